//! What `run.json` says about a recorded run, as the reports show it (the
//! command, wall time, peak RSS, exit, compiler version), and the notices a
//! user must not miss: a failed compile, a large Python launcher share, a
//! compile that spent much of its wall time off the CPU.

use serde::{Deserialize, Serialize};

use crate::artifact::Artifact;
use crate::attribute::{percent, runs::seconds_per_sample};
use crate::profile::{Profile, SampleFilter};
use crate::report::summary::LOST_SAMPLES_PREFIX;

/// The facts of `run.json` the reports use; every one may be missing.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub(crate) struct RunFacts {
    #[serde(default)]
    pub command: Vec<String>,
    pub wall_seconds: Option<f64>,
    pub exit: Option<RunExit>,
    pub peak_rss_bytes: Option<u64>,
    pub iree_compile_version: Option<String>,
    #[serde(default)]
    pub interrupted: bool,
    /// The first and last lines the command wrote to stderr.
    #[serde(default)]
    pub stderr: RunStderr,
    /// What `record` noted about the run.
    #[serde(default)]
    pub notes: Vec<String>,
    pub host: Option<RunHost>,
    /// When the run began (RFC 3339).
    pub start_time: Option<String>,
    /// The input files named on the command line.
    #[serde(default)]
    pub inputs: Vec<RunInput>,
    /// The files the compile wrote (`record` since artifacts were noted).
    #[serde(default)]
    pub artifacts: Vec<Artifact>,
}

/// An input file named on the command line.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub(crate) struct RunInput {
    pub path: String,
}

/// How the command ended.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
pub(crate) struct RunExit {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// The first and last lines a command wrote to stderr.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub(crate) struct RunStderr {
    #[serde(default)]
    pub head: Vec<String>,
    #[serde(default)]
    pub tail: Vec<String>,
    #[serde(default)]
    pub lines: u64,
}

/// The machine the run was recorded on.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub(crate) struct RunHost {
    pub cores: Option<usize>,
    pub hostname: Option<String>,
}

/// Samples of the Python launcher above this share of all samples earn a
/// notice.
const PYTHON_NOTICE_PERCENT: f64 = 10.0;
/// A compile on a CPU for less than this share of its wall time (summed over
/// its threads) earns a notice.
const ON_CPU_NOTICE_PERCENT: f64 = 50.0;
/// How many of the failed compile's last stderr lines a notice quotes
/// (after its first ones).
const QUOTED_STDERR_LINES: usize = 6;
/// Quoted stderr lines are cut to this many characters.
const QUOTED_LINE_CHARS: usize = 160;

impl RunFacts {
    /// The facts as one line, for a report's header.
    pub(crate) fn summary_line(&self) -> String {
        let mut parts = self.measured();
        parts.extend(self.compiler_version());
        parts.join(", ")
    }

    /// Wall time, peak RSS and exit, for a picture's subtitle.
    pub(crate) fn short_line(&self) -> String {
        self.measured().join(", ")
    }

    /// Wall time, peak RSS and exit, those known.
    fn measured(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if let Some(wall) = self.wall_seconds {
            parts.push(format!("{wall:.1} s wall"));
        }
        if let Some(rss) = self.peak_rss_bytes {
            parts.push(format!("peak RSS {} MiB", rss >> 20));
        }
        if let Some(exit) = self.exit {
            parts.push(match (exit.code, exit.signal) {
                (Some(code), _) => format!("exit {code}"),
                (None, Some(signal)) => format!("killed by signal {signal}"),
                (None, None) => "exit unknown".to_owned(),
            });
        }
        parts
    }

    /// "IREE compiler version …" from `iree-compile --version`'s lines.
    pub(crate) fn compiler_version(&self) -> Option<String> {
        let text = self.iree_compile_version.as_deref()?;
        text.lines()
            .map(str::trim)
            .find(|line| line.starts_with("IREE compiler version"))
            .map(|line| line.split(" @ ").next().unwrap_or(line).to_owned())
    }

    /// The compiler's version number (`3.13.0rc20261016`).
    pub(crate) fn compiler_version_number(&self) -> Option<String> {
        let line = self.compiler_version()?;
        line.split("version ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned)
    }

    /// The first input file's name, without its directory.
    pub(crate) fn input_file_name(&self) -> Option<&str> {
        let path = &self.inputs.first()?.path;
        path.rsplit('/').next()
    }

    /// The host's name.
    pub(crate) fn hostname(&self) -> Option<&str> {
        self.host.as_ref()?.hostname.as_deref()
    }

    /// When the run began, in nanoseconds since the Unix epoch.
    pub(crate) fn start_unix_nanos(&self) -> Option<i64> {
        let start = humantime::parse_rfc3339(self.start_time.as_deref()?).ok()?;
        let since_epoch = start.duration_since(std::time::UNIX_EPOCH).ok()?;
        i64::try_from(since_epoch.as_nanos()).ok()
    }

    /// True when `record` noted lost samples (and warned about them then).
    pub(crate) fn notes_lost_samples(&self) -> bool {
        self.notes
            .iter()
            .any(|note| note.starts_with(LOST_SAMPLES_PREFIX))
    }

    /// True when the command ended with a non-zero code or a signal.
    fn failed(&self) -> bool {
        self.exit
            .is_some_and(|exit| exit.code != Some(0) || exit.signal.is_some())
    }
}

/// The notices for `profile`, recorded as `run` says (when it is known).
pub(crate) fn notices(profile: &Profile, run: Option<&RunFacts>) -> Vec<String> {
    let mut notices = Vec::new();
    if let Some(run) = run.filter(|run| run.failed()) {
        notices.push(failed_compile_notice(run));
    }
    if let Some(notice) = python_notice(profile) {
        notices.push(notice);
    }
    if let Some(notice) = off_cpu_notice(profile, run) {
        notices.push(notice);
    }
    notices
}

fn failed_compile_notice(run: &RunFacts) -> String {
    let ending = match run.exit.map(|exit| (exit.code, exit.signal)) {
        Some((Some(code), _)) => format!("exited with code {code}"),
        Some((None, Some(signal))) => format!("was killed by signal {signal}"),
        _ => "failed".to_owned(),
    };
    let mut notice = format!(
        "the compile {ending}: this profile is of a failed compile, up to where it stopped"
    );
    let stderr = &run.stderr;
    if stderr.lines == 0 {
        notice.push_str(" (it wrote nothing to stderr)");
        return notice;
    }
    notice.push_str("; its stderr:");
    let tail = &stderr.tail[stderr.tail.len().saturating_sub(QUOTED_STDERR_LINES)..];
    let skipped = stderr.lines - (stderr.head.len() + tail.len()) as u64;
    let mut quote = |line: &str| {
        notice.push_str("\n    ");
        match line.char_indices().nth(QUOTED_LINE_CHARS) {
            Some((cut, _)) => {
                notice.push_str(&line[..cut]);
                notice.push('…');
            }
            None => notice.push_str(line),
        }
    };
    stderr.head.iter().for_each(|line| quote(line));
    if skipped > 0 {
        quote(&format!("… ({skipped} more lines)"));
    }
    tail.iter().for_each(|line| quote(line));
    notice
}

/// The Python launcher's share, when large: `iree-compile` from pip is a
/// Python script that starts the native compiler, and numpy's OpenBLAS
/// threads spin while it waits.
fn python_notice(profile: &Profile) -> Option<String> {
    let total: u64 = (profile.samples(&SampleFilter::default()))
        .map(|(_, count)| count)
        .sum();
    let python: u64 = profile
        .samples(&SampleFilter::default())
        .filter(|(key, _)| {
            let image = profile
                .processes
                .image(profile.processes.thread(key.thread).process);
            let executable_name = image
                .executable
                .as_deref()
                .and_then(|path| path.rsplit('/').next());
            image.name.starts_with("python")
                || executable_name.is_some_and(|name| name.starts_with("python"))
        })
        .map(|(_, count)| count)
        .sum();
    python_share_notice(percent(python, total))
}

/// The notice for a Python launcher with `share` percent of the samples.
fn python_share_notice(share: f64) -> Option<String> {
    (share >= PYTHON_NOTICE_PERCENT).then(|| {
        format!(
            "the Python launcher has {share:.0}% of the samples: record the native compiler \
             (iree/compiler/_mlir_libs/iree-compile in the venv's site-packages) instead of the \
             `iree-compile` script, or set OPENBLAS_NUM_THREADS=1 to stop numpy's threads spinning"
        )
    })
}

/// When the samples' CPU time is a small part of the wall time: the compile
/// waited (on the disk, on memory, on a lock) rather than computed, and the
/// profile shows only the computing.
fn off_cpu_notice(profile: &Profile, run: Option<&RunFacts>) -> Option<String> {
    let cpu_seconds = seconds_per_sample(profile)? * profile.counts.samples as f64;
    let wall = run
        .and_then(|run| run.wall_seconds)
        .unwrap_or_else(|| profile.counts.duration_seconds());
    let cores = run.and_then(|run| run.host.as_ref()?.cores);
    busy_notice(cpu_seconds, wall, cores)
}

/// The notice for `cpu_seconds` of samples over `wall` seconds, when that
/// is less than half of one core busy on average.
fn busy_notice(cpu_seconds: f64, wall: f64, cores: Option<usize>) -> Option<String> {
    if wall <= 0.0 {
        return None;
    }
    let busy_cores = cpu_seconds / wall;
    (busy_cores * 100.0 < ON_CPU_NOTICE_PERCENT).then(|| {
        let cores = cores.map_or(String::new(), |cores| format!(" (of {cores})"));
        format!(
            "the compile was on a CPU for {cpu_seconds:.1} s of its {wall:.1} s wall time: on \
             average {busy_cores:.2} cores busy{cores}, less than half of one; the rest of the time \
             it waited (on the disk, on memory or swap, on locks), which the profile does not show"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(json: &str) -> RunFacts {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_summary_line_has_wall_rss_exit_and_the_version_without_its_hash() {
        let run = facts(
            r#"{"wall_seconds": 3.15, "peak_rss_bytes": 681967616, "exit": {"code": 0, "signal": null},
                "iree_compile_version": "IREE (https://iree.dev):\n  IREE compiler version 3.13.0rc20261016 @ 89ece87b\n  LLVM version 24.0.0git"}"#,
        );
        assert_eq!(
            run.summary_line(),
            "3.1 s wall, peak RSS 650 MiB, exit 0, IREE compiler version 3.13.0rc20261016"
        );
    }

    #[test]
    fn a_failed_compile_is_told_with_the_first_and_last_lines_of_its_stderr() {
        let run = facts(
            r##"{"exit": {"code": 1, "signal": null},
                "stderr": {"head": ["Please report issues", "#0 0x1 llvm::sys::PrintStackTrace", "#1 0x2 f"],
                           "tail": ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "error: custom op 'foo.bar' is unknown"],
                           "lines": 41}}"##,
        );
        assert!(run.failed());
        let notice = failed_compile_notice(&run);
        assert!(
            notice.starts_with("the compile exited with code 1"),
            "{notice}"
        );
        assert!(notice.contains("\n    Please report issues\n"));
        assert!(
            notice.contains("\n    … (32 more lines)\n    t3\n"),
            "{notice}"
        );
        assert!(notice.ends_with("\n    error: custom op 'foo.bar' is unknown"));
        assert!(!notice.contains("t2"));
    }

    #[test]
    fn the_launcher_and_off_cpu_notices_have_their_thresholds() {
        assert!(python_share_notice(9.9).is_none());
        let notice = python_share_notice(23.4).unwrap();
        assert!(notice.starts_with("the Python launcher has 23% of the samples"));
        assert!(notice.contains("OPENBLAS_NUM_THREADS=1"));
        // A serial compile keeps one core busy: no notice.
        assert!(busy_notice(10.0, 10.5, Some(2)).is_none());
        assert!(busy_notice(0.0, 0.0, None).is_none());
        let notice = busy_notice(0.7, 2.1, Some(2)).unwrap();
        assert!(
            notice.starts_with("the compile was on a CPU for 0.7 s of its 2.1 s wall time: on average 0.33 cores busy (of 2)"),
            "{notice}"
        );
    }

    #[test]
    fn lost_samples_noted_by_record_are_known_again() {
        let mut run = facts("{}");
        assert!(!run.notes_lost_samples());
        let warning = crate::report::summary::lost_warning(12, 0.5).expect("a warning");
        run.notes.push(warning);
        assert!(run.notes_lost_samples());
    }

    #[test]
    fn labels_and_start_come_from_run_json() {
        let run = facts(
            r#"{"iree_compile_version": "IREE (https://iree.dev):\n  IREE compiler version 3.13.0rc20261016 @ 89ece87b\n",
                "inputs": [{"path": "inputs/model.mlir", "bytes": 1, "sha256": "x"}],
                "host": {"hostname": "vm", "cores": 2},
                "start_time": "2026-12-01T08:35:00Z"}"#,
        );
        assert_eq!(
            run.compiler_version_number().as_deref(),
            Some("3.13.0rc20261016")
        );
        assert_eq!(run.input_file_name(), Some("model.mlir"));
        assert_eq!(run.hostname(), Some("vm"));
        assert_eq!(run.start_unix_nanos(), Some(1_796_114_100_000_000_000));
    }

    #[test]
    fn a_run_json_of_an_older_version_still_reads() {
        let run = facts(r#"{"status": "finished", "exit": {"code": 0, "signal": null}}"#);
        assert!(!run.failed());
        assert_eq!(run.stderr.lines, 0);
        let killed = facts(r#"{"exit": {"code": null, "signal": 9}}"#);
        assert!(killed.failed());
        let notice = failed_compile_notice(&killed);
        assert!(notice.contains("killed by signal 9"));
        assert!(notice.ends_with("(it wrote nothing to stderr)"));
    }
}
