//! `compile-perf measure`, the wrapper `record` runs the command through
//! inside perf: it runs the command, passes its stderr through while
//! keeping the last lines, samples the resident set of the command's
//! process tree over time (`rss_sampler.rs`), waits, and writes its exit
//! status, those lines, the peak RSS of the command (not of perf) and the
//! RSS series to a file in the run directory.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::attach::{AttachedPerf, PerfOutcome, STOPPED_START, wait_stopped};
use super::machine_load::{machine_busy_seconds, other_cores_busy};
use super::rss_sampler;
use crate::mlir_timing::ReportLines;
use crate::rss::RssSeries;
use crate::run_dir::{CommandExit, StderrExcerpt};

/// The file the `measure` wrapper writes its result to, in the run directory.
pub(crate) const MEASURE_FILE: &str = ".measure.json";

/// What the `measure` wrapper reports about the command it ran.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Measured {
    pub exit: CommandExit,
    /// The largest peak resident set of the command and its descendants.
    pub peak_rss_bytes: u64,
    /// The page faults (minor and major) of the command and its descendants.
    #[serde(default)]
    pub page_faults: Option<u64>,
    /// The cores other processes (perf among them) kept busy on average
    /// while the command ran.
    #[serde(default)]
    pub other_cores_busy: Option<f64>,
    /// The command's wall time, from its start to its end.
    #[serde(default)]
    pub wall_seconds: Option<f64>,
    /// True when the command was stopped at its timeout.
    #[serde(default)]
    pub timed_out: bool,
    /// What the command wrote to stderr, in short.
    pub stderr: StderrExcerpt,
    /// The resident set of the command's process tree over time; `None`
    /// when the sampler could not start.
    pub memory: Option<RssSeries>,
    /// How perf ran, when the wrapper attached it to the command.
    #[serde(default)]
    pub perf: Option<PerfOutcome>,
}

/// How many of the command's first and last stderr lines are kept.
const STDERR_HEAD_LINES: usize = 3;
const STDERR_TAIL_LINES: usize = 12;
/// Longer stderr lines are cut to this many bytes in the kept tail.
const STDERR_LINE_BYTES: usize = 400;

/// How long a command stopped at its timeout has after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(5);
/// How often the watcher of a timeout looks at the clock and at Ctrl-C.
const WATCH_INTERVAL: Duration = Duration::from_millis(10);

/// `compile-perf measure`: runs `command`, samples its RSS, waits, and
/// writes its exit status, peak RSS and RSS series to `into`; with
/// `timing_into`, MLIR's timing report, taken out of the stderr, goes
/// there (when the command printed one). Returns the shell exit code of
/// the command. With a `timeout`, the command runs in a process group of
/// its own, which gets SIGTERM when the timeout passes (SIGKILL
/// [`TERM_GRACE`] later), and the Ctrl-C this wrapper gets. With
/// `perf_args`, `perf PERF_ARGS` records the command alone
/// ([`attach`](super::attach)); when perf cannot, the command does not run.
/// `env` is set in the command's environment (not this wrapper's, nor
/// perf's): `record --heap`'s `LD_PRELOAD`.
pub(crate) fn measure(
    command: &[OsString],
    into: &Path,
    timing_into: Option<&Path>,
    timeout: Option<Duration>,
    perf_args: &[OsString],
    env: &[(OsString, OsString)],
) -> std::io::Result<i32> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| std::io::Error::other("no command to run"))?;
    let attach = !perf_args.is_empty();
    // Ctrl-C must end the command (and perf), not this wrapper, which
    // reports how the command ended.
    let interrupted = Arc::new(AtomicBool::new(false));
    let setter = Arc::clone(&interrupted);
    let _ = ctrlc::set_handler(move || setter.store(true, Ordering::SeqCst));
    let mut spawn = if attach {
        let mut stopped = Command::new(STOPPED_START[0]);
        stopped.args(&STOPPED_START[1..]).arg("sh").arg(program);
        stopped
    } else {
        Command::new(program)
    };
    spawn.args(args).stderr(Stdio::piped());
    spawn.envs(env.iter().map(|(name, value)| (name, value)));
    if timeout.is_some() {
        spawn.process_group(0);
    }
    let mut child = spawn.spawn()?;
    let perf = if attach {
        let directory = into.parent().unwrap_or(Path::new("."));
        let attached = if wait_stopped(child.id()) {
            AttachedPerf::start(perf_args, child.id(), directory)
        } else {
            Err(PerfOutcome {
                command: Vec::new(),
                exit: None,
                error: Some("the command ended before perf could attach to it".to_owned()),
                stderr: Vec::new(),
            })
        };
        match attached {
            Ok(perf) => {
                // SAFETY: `kill` only sends SIGCONT to the stopped command.
                unsafe { libc::kill(child.id() as i32, libc::SIGCONT) };
                Some(perf)
            }
            Err(outcome) => return not_recorded(child, into, outcome),
        }
    } else {
        None
    };
    let started = Instant::now();
    let machine_busy_at_start = machine_busy_seconds();
    let finished = Arc::new(AtomicBool::new(false));
    let watcher = timeout.and_then(|timeout| {
        let group = i32::try_from(child.id()).ok()?;
        let finished = Arc::clone(&finished);
        let interrupted = Arc::clone(&interrupted);
        Some(std::thread::spawn(move || {
            watch(group, started + timeout, &finished, &interrupted)
        }))
    });
    let sampler = i32::try_from(child.id()).ok().and_then(|pid| {
        rss_sampler::start(pid, Duration::from_millis(crate::defaults::RSS_INTERVAL_MS)).ok()
    });
    let mut timing_report = timing_into.map(|_| Vec::new());
    let stderr = child
        .stderr
        .take()
        .map(|stderr| pass_through(stderr, &mut std::io::stderr(), timing_report.as_mut()))
        .unwrap_or_default();
    let status = child.wait()?;
    let wall_seconds = started.elapsed().as_secs_f64();
    let machine_busy_at_end = machine_busy_seconds();
    // Before perf is waited for, so that its own RSS and faults do not count.
    let children = children_usage();
    let other_cores_busy = machine_busy_at_start
        .zip(machine_busy_at_end)
        .and_then(|(start, end)| other_cores_busy(start, end, children.cpu_seconds, wall_seconds));
    let perf = perf.map(AttachedPerf::finish);
    finished.store(true, Ordering::SeqCst);
    let timed_out = watcher.is_some_and(|watcher| watcher.join().unwrap_or(false));
    if let (Some(path), Some(report)) = (timing_into, timing_report.filter(|r| !r.is_empty())) {
        crate::output::write_file(path, |out| out.write_all(&report))?;
    }
    let measured = Measured {
        exit: CommandExit::from_status(status),
        peak_rss_bytes: children.peak_rss_bytes,
        page_faults: Some(children.page_faults),
        other_cores_busy,
        wall_seconds: Some(wall_seconds),
        timed_out,
        stderr,
        memory: sampler.map(rss_sampler::Sampler::finish),
        perf,
    };
    write_measured(into, &measured)?;
    Ok(measured.exit.shell_code())
}

/// perf could not record the stopped command: it is killed unrun, and
/// `into` says why.
fn not_recorded(mut child: Child, into: &Path, outcome: PerfOutcome) -> std::io::Result<i32> {
    let _ = child.kill();
    let status = child.wait()?;
    let measured = Measured {
        exit: CommandExit::from_status(status),
        peak_rss_bytes: 0,
        page_faults: None,
        other_cores_busy: None,
        wall_seconds: None,
        timed_out: false,
        stderr: StderrExcerpt::default(),
        memory: None,
        perf: Some(outcome),
    };
    write_measured(into, &measured)?;
    Ok(1)
}

fn write_measured(into: &Path, measured: &Measured) -> std::io::Result<()> {
    let text = serde_json::to_vec(measured)?;
    crate::output::write_file(into, |out| out.write_all(&text))
}

/// Watches the command's process `group` until it has `finished`: passes
/// Ctrl-C on as SIGINT, and at `deadline` sends SIGTERM, then SIGKILL after
/// [`TERM_GRACE`]. Returns true when the deadline stopped it.
fn watch(group: i32, deadline: Instant, finished: &AtomicBool, interrupted: &AtomicBool) -> bool {
    let signal = |signal| {
        // SAFETY: `kill` only sends a signal to the command's process group.
        unsafe { libc::kill(-group, signal) };
    };
    let mut passed_on = false;
    let mut terminated: Option<Instant> = None;
    while !finished.load(Ordering::SeqCst) {
        let now = Instant::now();
        if interrupted.load(Ordering::SeqCst) && !passed_on {
            signal(libc::SIGINT);
            passed_on = true;
        }
        match terminated {
            None if now >= deadline => {
                signal(libc::SIGTERM);
                terminated = Some(now);
            }
            Some(sent) if now.duration_since(sent) >= TERM_GRACE => {
                signal(libc::SIGKILL);
                terminated = Some(now);
            }
            _ => {}
        }
        std::thread::sleep(WATCH_INTERVAL);
    }
    terminated.is_some()
}

/// Copies `from` to `to` line by line as it comes, and keeps the first and
/// the last lines. A failing `to` (a closed terminal) does not stop the copy:
/// the command must never block on a full pipe. With `timing_report`,
/// MLIR's timing report goes there instead of `to` and the excerpt.
fn pass_through(
    from: impl Read,
    to: &mut dyn Write,
    mut timing_report: Option<&mut Vec<u8>>,
) -> StderrExcerpt {
    let mut report_lines = ReportLines::default();
    let mut excerpt = StderrExcerpt::default();
    let mut tail = VecDeque::with_capacity(STDERR_TAIL_LINES);
    let mut reader = BufReader::new(from);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
        if let Some(report) = timing_report.as_deref_mut() {
            if report_lines.take(&line) {
                report.extend_from_slice(&line);
                line.clear();
                continue;
            }
        }
        let _ = to.write_all(&line).and_then(|()| to.flush());
        let text = String::from_utf8_lossy(&line[..line.len().min(STDERR_LINE_BYTES)])
            .trim_end()
            .to_owned();
        excerpt.lines += 1;
        if excerpt.head.len() < STDERR_HEAD_LINES {
            excerpt.head.push(text);
        } else {
            if tail.len() == STDERR_TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(text);
        }
        line.clear();
    }
    excerpt.tail = tail.into();
    excerpt
}

/// What the kernel counted of the waited-for descendants of this process.
struct ChildrenUsage {
    /// The largest peak RSS among them.
    peak_rss_bytes: u64,
    /// Their page faults, minor and major, added up.
    page_faults: u64,
    /// Their CPU time, user and system, added up.
    cpu_seconds: f64,
}

fn children_usage() -> ChildrenUsage {
    // SAFETY: `getrusage` only writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let count = |value: libc::c_long| u64::try_from(value).unwrap_or(0);
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 / 1e6;
    ChildrenUsage {
        cpu_seconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        // Linux reports ru_maxrss in kilobytes.
        peak_rss_bytes: count(usage.ru_maxrss) * 1024,
        page_faults: count(usage.ru_minflt) + count(usage.ru_majflt),
    }
}

pub(crate) fn read_measured(path: &Path) -> Option<Measured> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_past_its_timeout_is_terminated_with_its_process_group() {
        let into =
            std::env::temp_dir().join(format!("compile-perf-measure-{}", std::process::id()));
        // The shell's child `sleep` is in the group too: the wrapper waits
        // for the pipe of stderr, which it holds open, to close.
        let command: Vec<OsString> = ["sh", "-c", "sleep 60; true"]
            .iter()
            .map(OsString::from)
            .collect();
        let code = measure(
            &command,
            &into,
            None,
            Some(Duration::from_millis(100)),
            &[],
            &[],
        )
        .expect("sh runs");
        let measured = read_measured(&into).expect("the result is written");
        let _ = std::fs::remove_file(&into);
        assert!(measured.timed_out);
        assert_eq!(measured.exit.signal, Some(libc::SIGTERM));
        assert_eq!(code, 128 + libc::SIGTERM);
        assert!(measured.wall_seconds.is_some_and(|wall| wall >= 0.1));
    }

    #[test]
    fn stderr_passes_through_whole_and_its_head_and_tail_are_kept() {
        let text: String = (1..=25).map(|n| format!("line {n}\n")).collect();
        let mut copy = Vec::new();
        let excerpt = pass_through(text.as_bytes(), &mut copy, None);
        assert_eq!(copy, text.as_bytes());
        assert_eq!(excerpt.lines, 25);
        assert_eq!(excerpt.head, ["line 1", "line 2", "line 3"]);
        assert_eq!(excerpt.tail.len(), STDERR_TAIL_LINES);
        assert_eq!(excerpt.tail.first().map(String::as_str), Some("line 14"));
        assert_eq!(excerpt.tail.last().map(String::as_str), Some("line 25"));
    }

    #[test]
    fn the_timing_report_is_taken_out_of_the_stderr() {
        let text = "warning: w\n[\n{\"name\": \"Total\"}\n]\nerror: e\n";
        let (mut copy, mut report) = (Vec::new(), Vec::new());
        let excerpt = pass_through(text.as_bytes(), &mut copy, Some(&mut report));
        assert_eq!(copy, b"warning: w\nerror: e\n");
        assert_eq!(report, b"[\n{\"name\": \"Total\"}\n]\n");
        assert_eq!(excerpt.head, ["warning: w", "error: e"]);
        assert_eq!(excerpt.lines, 2);
    }

    #[test]
    fn a_last_line_without_newline_and_long_lines_are_kept_cut() {
        let long = "x".repeat(STDERR_LINE_BYTES * 2);
        let text = format!("{long}\nerror: no newline");
        let excerpt = pass_through(text.as_bytes(), &mut Vec::new(), None);
        assert_eq!(
            excerpt.head,
            vec![
                "x".repeat(STDERR_LINE_BYTES),
                "error: no newline".to_owned()
            ]
        );
        assert!(excerpt.tail.is_empty());
    }
}
