//! `compile-perf measure`, the wrapper `record` runs the command through
//! inside perf: it runs the command, passes its stderr through while
//! keeping the last lines, samples the resident set of the command's
//! process tree over time (`rss_sampler.rs`), waits, and writes its exit
//! status, those lines, the peak RSS of the command (not of perf) and the
//! RSS series to a file in the run directory.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::rss_sampler;
use super::run_json::CommandExit;
use crate::mlir_timing::ReportLines;
use crate::rss::RssSeries;

/// The file the `measure` wrapper writes its result to, in the run directory.
pub(crate) const MEASURE_FILE: &str = ".measure.json";

/// What the `measure` wrapper reports about the command it ran.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Measured {
    pub exit: CommandExit,
    /// The largest peak resident set of the command and its descendants.
    pub peak_rss_bytes: u64,
    /// What the command wrote to stderr, in short.
    pub stderr: StderrExcerpt,
    /// The resident set of the command's process tree over time; `None`
    /// when the sampler could not start.
    pub memory: Option<RssSeries>,
}

/// The first and the last lines a command wrote to stderr: a crash says what
/// crashed first, an error says what failed last.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StderrExcerpt {
    /// The first lines.
    pub head: Vec<String>,
    /// The last lines, after the head.
    pub tail: Vec<String>,
    /// How many lines the command wrote.
    pub lines: u64,
}

/// How many of the command's first and last stderr lines are kept.
const STDERR_HEAD_LINES: usize = 3;
const STDERR_TAIL_LINES: usize = 12;
/// Longer stderr lines are cut to this many bytes in the kept tail.
const STDERR_LINE_BYTES: usize = 400;

/// `compile-perf measure`: runs `command`, samples its RSS, waits, and
/// writes its exit status, peak RSS and RSS series to `into`; with
/// `timing_into`, MLIR's timing report, taken out of the stderr, goes
/// there (when the command printed one). Returns the shell exit code of
/// the command.
pub(crate) fn measure(
    command: &[OsString],
    into: &Path,
    timing_into: Option<&Path>,
) -> std::io::Result<i32> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| std::io::Error::other("no command to run"))?;
    // Ctrl-C (and perf's SIGTERM after it) must end the command, not this
    // wrapper, which reports how the command ended.
    let _ = ctrlc::set_handler(|| {});
    let mut child = Command::new(program)
        .args(args)
        .stderr(Stdio::piped())
        .spawn()?;
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
    if let (Some(path), Some(report)) = (timing_into, timing_report.filter(|r| !r.is_empty())) {
        crate::output::write_file(path, |out| out.write_all(&report))?;
    }
    let measured = Measured {
        exit: CommandExit::from_status(status),
        peak_rss_bytes: children_peak_rss(),
        stderr,
        memory: sampler.map(rss_sampler::Sampler::finish),
    };
    let text = serde_json::to_vec(&measured)?;
    crate::output::write_file(into, |out| out.write_all(&text))?;
    Ok(measured.exit.shell_code())
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

/// The largest peak RSS among the waited-for descendants of this process.
fn children_peak_rss() -> u64 {
    // SAFETY: `getrusage` only writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    // Linux reports ru_maxrss in kilobytes.
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

pub(crate) fn read_measured(path: &Path) -> Option<Measured> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
