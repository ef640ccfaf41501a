//! The `measure` wrapper's memory sampler: a thread that, every few
//! milliseconds, reads the resident set of each process of the command's
//! tree from `/proc/PID/statm` (resident and shared pages; the name and
//! `VmHWM` from `/proc/PID/status` less often) and stamps it with
//! `CLOCK_MONOTONIC`, perf's clock under `-k CLOCK_MONOTONIC`. Processes
//! are kept apart: summed, a forked child's copy-on-write pages and a
//! library two processes map would count twice.
//! The tree is found through `/proc/PID/task/TID/children` from the
//! command down, so the launcher, the native compiler and the linker it
//! starts are all counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::rss::{MONOTONIC_CLOCK, RssProcess, RssSample, RssSeries};

/// A running sampler; [`Sampler::finish`] stops it and gives the series.
pub(crate) struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<RssSeries>,
}

/// Starts sampling the tree below (and including) `root` every `interval`.
pub(crate) fn start(root: i32, interval: Duration) -> std::io::Result<Sampler> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("rss-sampler".to_owned())
        .spawn(move || sample_until(root, interval, &stopped))?;
    Ok(Sampler { stop, thread })
}

impl Sampler {
    /// Stops the sampler (at once, not at its next tick) and returns what
    /// it saw.
    pub(crate) fn finish(self) -> RssSeries {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.thread().unpark();
        self.thread
            .join()
            .expect("the memory sampler does not panic")
    }
}

fn sample_until(root: i32, interval: Duration, stop: &AtomicBool) -> RssSeries {
    let mut tree = Tree::default();
    let interval_ns = u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX);
    let mut next_tick = monotonic_ns();
    let mut tick: u64 = 0;
    while !stop.load(Ordering::SeqCst) {
        tree.sample(root, tick % STATUS_EVERY == 0);
        tick += 1;
        // Ticks stay on a fixed grid; a late tick is not made up for.
        next_tick += interval_ns;
        let now = monotonic_ns();
        if next_tick <= now {
            next_tick = now + interval_ns;
        }
        std::thread::park_timeout(Duration::from_nanos(next_tick - now));
    }
    RssSeries {
        clock: MONOTONIC_CLOCK.to_owned(),
        interval_ms: u64::try_from(interval.as_millis()).unwrap_or(u64::MAX),
        source: "/proc/PID/statm of the command and each of its descendants (found through \
                 /proc/PID/task/TID/children); names and VmHWM from /proc/PID/status"
            .to_owned(),
        sampler_cpu_seconds: thread_cpu_seconds(),
        processes: tree.processes,
    }
}

/// Every this many ticks the sampler also looks for new processes in the
/// tree and reads each process's name and peak: walking the tree and
/// reading `/proc/PID/status` cost several times reading `statm`.
const STATUS_EVERY: u64 = 5;

/// The processes of the tree seen so far.
#[derive(Default)]
struct Tree {
    processes: Vec<RssProcess>,
    /// The processes the last sample found, which the next one reads.
    alive: Vec<i32>,
}

impl Tree {
    /// Samples every process of the tree below `root` now; with `status`,
    /// also looks for new children and reads each process's name and peak.
    fn sample(&mut self, root: i32, status: bool) {
        let mut pending = if status {
            vec![root]
        } else {
            self.alive.clone()
        };
        self.alive.clear();
        while let Some(pid) = pending.pop() {
            let time_ns = monotonic_ns();
            let Some(sample) = std::fs::read_to_string(format!("/proc/{pid}/statm"))
                .ok()
                .and_then(|text| parse_statm(&text, time_ns))
            else {
                continue;
            };
            if status {
                pending.extend(children(pid));
            }
            self.alive.push(pid);
            let at = match self.processes.iter().position(|process| process.pid == pid) {
                Some(at) => at,
                None => {
                    self.processes.push(RssProcess {
                        pid,
                        ..RssProcess::default()
                    });
                    self.processes.len() - 1
                }
            };
            let process = &mut self.processes[at];
            // The kernel's VmHWM, read a moment later, can lag a sample by a
            // page or two: the peak is at least every sample.
            process.hwm_bytes = process.hwm_bytes.max(sample.rss_bytes);
            process.samples.push(sample);
            let fresh = process.name.is_empty();
            if status || fresh {
                if let Some((name, hwm)) = std::fs::read_to_string(format!("/proc/{pid}/status"))
                    .ok()
                    .and_then(|text| parse_status(&text))
                {
                    process.name = name;
                    process.hwm_bytes = process.hwm_bytes.max(hwm);
                }
            }
        }
    }
}

/// The children of every thread of `pid`.
pub(super) fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|child| child.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// The bytes of a page.
pub(super) fn page_size() -> u64 {
    // SAFETY: `sysconf` reads a constant of the system.
    u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

/// Parses `/proc/PID/statm` (pages: size resident shared text lib data dt)
/// into a sample; `None` for a process without memory (a zombie's zeros).
fn parse_statm(text: &str, time_ns: u64) -> Option<RssSample> {
    let mut fields = text
        .split_whitespace()
        .map(|field| field.parse::<u64>().ok());
    let (_size, resident, shared) = (fields.next()??, fields.next()??, fields.next()??);
    if resident == 0 {
        return None;
    }
    let page = page_size();
    Some(RssSample {
        time_ns,
        rss_bytes: resident * page,
        anon_bytes: resident.saturating_sub(shared) * page,
        file_bytes: shared * page,
    })
}

/// The name and the peak RSS (`VmHWM`, bytes) of `/proc/PID/status`;
/// `None` for a process without a resident set (a zombie, a kernel thread).
fn parse_status(text: &str) -> Option<(String, u64)> {
    let mut name = String::new();
    let mut hwm = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key {
            "Name" => value.trim().clone_into(&mut name),
            "VmHWM" => {
                hwm = value
                    .trim()
                    .strip_suffix(" kB")
                    .and_then(|kilobytes| kilobytes.trim().parse::<u64>().ok());
            }
            _ => {}
        }
    }
    Some((name, hwm? * 1024))
}

/// `CLOCK_MONOTONIC` now, in nanoseconds.
pub(crate) fn monotonic_ns() -> u64 {
    // SAFETY: `clock_gettime` only writes into the zeroed struct it is given.
    let now = unsafe {
        let mut now: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
        now
    };
    u64::try_from(now.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(now.tv_nsec).unwrap_or(0)
}

/// The CPU time the calling thread has taken, in seconds.
fn thread_cpu_seconds() -> f64 {
    // SAFETY: `getrusage` only writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut usage);
        usage
    };
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statm_and_status_give_the_resident_set_in_bytes() {
        let page = page_size();
        let sample = parse_statm("182405 166304 65728 63 0 101232 0\n", 42).unwrap();
        assert_eq!(
            sample,
            RssSample {
                time_ns: 42,
                rss_bytes: 166_304 * page,
                anon_bytes: (166_304 - 65_728) * page,
                file_bytes: 65_728 * page,
            }
        );
        // A zombie's statm is zeros.
        assert_eq!(parse_statm("0 0 0 0 0 0 0\n", 1), None);
        assert_eq!(parse_statm("12 x 3", 1), None);
        let text = "Name:\tiree-compile\nUmask:\t0022\nState:\tR (running)\nVmHWM:\t  702396 kB\n\
                    VmRSS:\t  681216 kB\nThreads:\t3\n";
        assert_eq!(
            parse_status(text),
            Some(("iree-compile".to_owned(), 702_396 * 1024))
        );
        assert_eq!(parse_status("Name:\tsh\nState:\tZ (zombie)\n"), None);
    }

    #[test]
    fn a_running_tree_is_sampled_on_the_monotonic_clock() {
        // sh runs sleep as its child: both are in the tree.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5; true"])
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let mut tree = Tree::default();
        let before = monotonic_ns();
        // Until sh's child has exec'd sleep (before, it is a second "sh").
        let has_sleep = |tree: &Tree| tree.processes.iter().any(|p| p.name == "sleep");
        while !has_sleep(&tree) && monotonic_ns() - before < 5_000_000_000 {
            tree = Tree::default();
            tree.sample(pid, true);
        }
        let after = monotonic_ns();
        child.kill().unwrap();
        child.wait().unwrap();
        let names: Vec<&str> = tree.processes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["sh", "sleep"]);
        for process in &tree.processes {
            let sample = process.samples[0];
            assert!(sample.time_ns >= before && sample.time_ns <= after);
            assert!(
                sample.rss_bytes > 0 && sample.anon_bytes + sample.file_bytes == sample.rss_bytes
            );
            assert!(process.hwm_bytes >= sample.rss_bytes, "{process:?}");
        }
    }
}
