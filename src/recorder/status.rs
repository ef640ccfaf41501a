//! The live status line of `record` on a terminal (indicatif): the time
//! since the wrapper started, the CPU samples taken so far (estimated from
//! the compile's CPU time and perf's `-F`: perf's compressed streams are
//! not read while it writes them), the megabytes perf has written (the
//! perf.data file, or the directory of `--threads`) and the compile's
//! resident set now, from `/proc` of the `measure` wrapper's children other
//! than perf. It draws nothing under `-q` or when stderr is not a terminal,
//! and it has no colour, so `NO_COLOR` holds. Lost samples are counted when
//! the recording is read, after the compile.

use std::path::Path;
use std::process::{Child, ExitStatus};
use std::time::Duration;

use super::recording_bytes;
use super::rss_sampler::{children, page_size};
use crate::progress::Progress;

/// How often the line's figures are read again.
const TICK: Duration = Duration::from_millis(250);

/// What the status line shows.
#[derive(Clone, Copy, Debug)]
pub(super) struct StatusLine<'a> {
    /// Whether it is drawn: stderr is a terminal and `-q` was not given.
    pub shown: bool,
    /// What the line starts with (`run 2/3` of a series).
    pub label: Option<&'a str>,
    /// perf's `-F`, when the samples are of CPU time.
    pub frequency_hz: Option<u32>,
}

/// Waits for the `measure` wrapper, with the status line on stderr while it
/// runs when stderr is a terminal.
pub(super) fn wait_with_status(
    wrapper: &mut Child,
    perf_data: &Path,
    status_line: StatusLine<'_>,
) -> std::io::Result<ExitStatus> {
    if !status_line.shown {
        return wrapper.wait();
    }
    let bar = Progress::status(true);
    let root = i32::try_from(wrapper.id()).unwrap_or(i32::MAX);
    let status = loop {
        if let Some(status) = wrapper.try_wait()? {
            break status;
        }
        let compile = compile_tree(root);
        let samples = (status_line.frequency_hz)
            .map(|hz| (compile.cpu_ticks as f64 / clock_ticks_per_second() * f64::from(hz)) as u64);
        let figures = line(samples, recording_bytes(perf_data), compile.rss_bytes);
        bar.set_message(match status_line.label {
            Some(label) => format!("{label}: {figures}"),
            None => figures,
        });
        std::thread::sleep(TICK);
    };
    Ok(status)
}

/// The message: samples so far (when known), MB written and the
/// compile's RSS.
fn line(samples: Option<u64>, written_bytes: u64, rss_bytes: u64) -> String {
    let samples = samples.map_or_else(String::new, |n| format!("~{n} samples, "));
    format!(
        "{samples}{:.1} MB written, compile RSS {:.0} MB",
        written_bytes as f64 / 1e6,
        rss_bytes as f64 / 1e6
    )
}

/// The compile's process tree now: the wrapper's children but perf, with
/// all their descendants.
struct CompileTree {
    /// Their resident sets, summed.
    rss_bytes: u64,
    /// Their CPU time (user and system, with their waited-for children's),
    /// in clock ticks.
    cpu_ticks: u64,
}

fn compile_tree(wrapper: i32) -> CompileTree {
    let mut pending: Vec<i32> = children(wrapper)
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim_end() != "perf")
        })
        .collect();
    let mut tree = CompileTree {
        rss_bytes: 0,
        cpu_ticks: 0,
    };
    while let Some(pid) = pending.pop() {
        let pages = std::fs::read_to_string(format!("/proc/{pid}/statm"))
            .ok()
            .and_then(|text| text.split_whitespace().nth(1)?.parse::<u64>().ok())
            .unwrap_or(0);
        tree.rss_bytes += pages * page_size();
        tree.cpu_ticks += std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|text| cpu_ticks(&text))
            .unwrap_or(0);
        pending.extend(children(pid));
    }
    tree
}

/// utime + stime + cutime + cstime of a `/proc/PID/stat` line (fields 14
/// to 17, counted after the command name, which may hold spaces).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // After the name, field 3 (state) is index 0: utime (14) is index 11.
    let ticks = fields.get(11..15)?;
    ticks.iter().map(|field| field.parse::<u64>().ok()).sum()
}

/// The kernel's clock ticks per second (`USER_HZ`).
fn clock_ticks_per_second() -> f64 {
    // SAFETY: `sysconf` reads a constant of the system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_gives_samples_megabytes_written_and_the_resident_set() {
        assert_eq!(
            line(Some(4990), 12_345_678, 987_000_000),
            "~4990 samples, 12.3 MB written, compile RSS 987 MB"
        );
        assert_eq!(
            line(None, 12_345_678, 987_000_000),
            "12.3 MB written, compile RSS 987 MB"
        );
    }

    #[test]
    fn cpu_time_is_read_after_a_name_with_spaces() {
        let stat = "4242 (iree compile) R 1 2 3 4 5 6 7 8 9 10 150 25 3 2 20 0 1 0";
        assert_eq!(cpu_ticks(stat), Some(150 + 25 + 3 + 2));
        assert_eq!(cpu_ticks("4242 (x) R 1"), None);
    }
}
