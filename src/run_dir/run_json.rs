//! `run.json`, one type for each kind of run directory: [`RunJson`] of one
//! recorded run (written by the recorder, read by every report),
//! [`SeriesJson`] of `record --repeat` and [`ExecutablesRunJson`] of
//! `executables`, told apart by the `kind` each is written with
//! ([`RunKind`]); and the facts of a run as reports show them.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::RUN_FILE;
use super::exit::CommandExit;
use super::perf::PerfRun;
use crate::actions::ActionsFacts;
use crate::artifact::Artifact;

/// Where a run stands; `run.json` says it so that nothing half-made passes
/// for complete.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RunStatus {
    /// perf is recording.
    #[default]
    Recording,
    /// The recording is complete; the report is being made.
    Recorded,
    /// The recording and the report are complete.
    Finished,
}

/// The first and the last lines a command wrote to stderr: a crash says what
/// crashed first, an error says what failed last.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct StderrExcerpt {
    /// The first lines.
    pub head: Vec<String>,
    /// The last lines, after the head.
    pub tail: Vec<String>,
    /// How many lines the command wrote.
    pub lines: u64,
}

/// An input file named on the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct InputFile {
    pub path: String,
    pub bytes: u64,
    /// Lower-case hex SHA-256; `None` for inputs too large to hash.
    pub sha256: Option<String>,
}

/// The machine the run was on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Host {
    pub hostname: Option<String>,
    pub cores: usize,
    pub memory_bytes: Option<u64>,
    pub kernel: Option<String>,
}

/// `run.json` of one recorded run. Every field may be missing from a file
/// (an older compile-perf's, or one written by hand), and reads as its
/// default then.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct RunJson {
    pub status: RunStatus,
    /// True once everything listed under `outputs` is written.
    pub finished: bool,
    /// True when Ctrl-C stopped the command.
    pub interrupted: bool,
    pub command: Vec<String>,
    pub working_directory: String,
    /// When the run began (RFC 3339).
    pub start_time: String,
    /// perf's start, the command and perf's writing of the recording.
    pub wall_seconds: Option<f64>,
    /// The command alone, from its start to its exit, timed by the wrapper
    /// under perf: what to compare with the compile run without perf.
    pub command_wall_seconds: Option<f64>,
    pub exit: Option<CommandExit>,
    /// Of the command and its descendants (the compiler), not of perf.
    pub peak_rss_bytes: Option<u64>,
    /// The page faults, minor and major, of the command and its
    /// descendants (not of perf); `null` in runs recorded before they were
    /// counted.
    pub page_faults: Option<u64>,
    /// The cores other processes (perf among them) kept busy on average
    /// while the command ran: the machine's CPU time less the command's,
    /// per wall second; `null` in runs recorded before it was measured.
    pub other_cores_busy: Option<f64>,
    /// The first and last lines the command wrote to stderr.
    pub stderr: StderrExcerpt,
    pub iree_compile_version: Option<String>,
    pub inputs: Vec<InputFile>,
    pub host: Host,
    pub perf: Option<PerfRun>,
    /// The samples the kernel lost while recording (0 when none); `None`
    /// until the recording has been read.
    pub lost_samples: Option<u64>,
    /// Files of the run directory, by role.
    pub outputs: Vec<String>,
    /// Problems met while making the outputs.
    pub notes: Vec<String>,
    /// The files the compile wrote, found on its command line.
    pub artifacts: Vec<Artifact>,
    /// What `record --actions` kept of the compiler's actions.
    pub actions: Option<ActionsFacts>,
    /// The samples of the recording's own instrumentation, when it has
    /// any; `None` until the recording has been read.
    pub instrumentation: Option<InstrumentationFacts>,
}

/// The samples a recording spent in its own instrumentation (MLIR's action
/// profiler and log, IR printed around passes, the heap sampler, perf's
/// uprobes): set aside from every share, or with `--with-instrumentation`
/// counted in the category `instrumentation`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct InstrumentationFacts {
    pub samples: u64,
    /// Of all the recording's samples of the event counted.
    pub percent_of_samples: f64,
    /// The CPU time they stand for, when the event counts time.
    pub cpu_seconds: Option<f64>,
    /// True when counted (`--with-instrumentation`); false when set aside.
    pub counted: bool,
    /// Each kind with samples, most first.
    pub kinds: Vec<InstrumentKindFacts>,
}

/// One kind of instrumentation and its samples.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct InstrumentKindFacts {
    /// `action-profiler`, `action-log`, `ir-printing`, `heap-sampler` or
    /// `probes`.
    pub kind: String,
    /// What it is, as the report says it.
    pub what: String,
    pub samples: u64,
}

/// `run.json` of a series of runs (`record --repeat`): what ran, how many
/// times it was to run, the runs recorded so far, and where it stands. Its
/// `status` and `command` make the directory a run directory for `--force`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SeriesJson {
    pub status: RunStatus,
    /// True once every run and the report of them all are written.
    pub finished: bool,
    pub command: Vec<String>,
    /// How many runs were asked for.
    pub repeat: u32,
    /// The run directories recorded, in order.
    pub runs: Vec<String>,
    pub outputs: Vec<String>,
    pub notes: Vec<String>,
}

/// `run.json` of an `executables` run: what ran, the executables recorded
/// so far, and where it stands. Each executable's own directory holds a
/// [`RunJson`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ExecutablesRunJson {
    pub status: RunStatus,
    /// True once every executable and the ranking are written.
    pub finished: bool,
    /// The full compile, as the user gave it.
    pub command: Vec<String>,
    /// Seconds each executable's compile may take.
    pub timeout_seconds: f64,
    /// Executables compiled at a time.
    pub jobs: usize,
    /// The run directories of the executables recorded, in order.
    pub executables: Vec<String>,
    pub outputs: Vec<String>,
    pub notes: Vec<String>,
}

/// What kind of run directory a `run.json` is of: its `kind` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RunKind {
    /// One recorded run: a [`RunJson`].
    Run,
    /// The runs of one `record --repeat`: a [`SeriesJson`].
    Series,
    /// The executables of `executables`: an [`ExecutablesRunJson`].
    Executables,
}

/// A type of `run.json`, written with its kind.
pub(crate) trait RunManifest: Serialize {
    const KIND: RunKind;
}

impl RunManifest for RunJson {
    const KIND: RunKind = RunKind::Run;
}

impl RunManifest for SeriesJson {
    const KIND: RunKind = RunKind::Series;
}

impl RunManifest for ExecutablesRunJson {
    const KIND: RunKind = RunKind::Executables;
}

/// A `run.json` as written: its kind, then the fields of its type.
#[derive(Serialize)]
struct Written<'a, T> {
    kind: RunKind,
    #[serde(flatten)]
    run: &'a T,
}

/// The `kind` a `run.json` says, if it says one.
#[derive(Deserialize)]
struct SaidKind {
    #[serde(default)]
    kind: Option<RunKind>,
}

/// The kind of run directory `bytes` (a `run.json`) are of: the `kind` it
/// says. One written before `kind` (2026-12-07) says none: it is told by
/// the type it reads as, as it was then (a series, executables, else one
/// run, whose fields may all be missing). `None` for what is not a JSON
/// object, or names a kind this version does not know.
pub(crate) fn kind_of(bytes: &[u8]) -> Option<RunKind> {
    let said = serde_json::from_slice::<SaidKind>(bytes).ok()?.kind;
    Some(said.unwrap_or_else(|| {
        if serde_json::from_slice::<SeriesJson>(bytes).is_ok() {
            RunKind::Series
        } else if serde_json::from_slice::<ExecutablesRunJson>(bytes).is_ok() {
            RunKind::Executables
        } else {
            RunKind::Run
        }
    }))
}

/// What every kind of `run.json` has: a known status and the command.
#[derive(Deserialize)]
struct RunHeader {
    #[serde(rename = "status")]
    _status: RunStatus,
    #[serde(rename = "command")]
    _command: Vec<String>,
}

/// True when `bytes` are a `run.json` of any kind: what makes a directory a
/// run directory (which `record --force` may replace).
pub(crate) fn is_run_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<RunHeader>(bytes).is_ok()
}

/// Writes `run` as `dir/run.json` with its kind, replacing the one before.
pub(crate) fn save<T: RunManifest>(dir: &Path, run: &T) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(&Written { kind: T::KIND, run })?;
    crate::output::write_file(&dir.join(RUN_FILE), |out| out.write_all(&text))
}

impl RunJson {
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
        self.host.hostname.as_deref()
    }

    /// When the run began, in nanoseconds since the Unix epoch.
    pub(crate) fn start_unix_nanos(&self) -> Option<i64> {
        let start = humantime::parse_rfc3339(&self.start_time).ok()?;
        let since_epoch = start.duration_since(std::time::UNIX_EPOCH).ok()?;
        i64::try_from(since_epoch.as_nanos()).ok()
    }

    /// True when the command ended with a non-zero code or a signal.
    pub(crate) fn failed(&self) -> bool {
        self.exit.is_some_and(|exit| exit.failed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(json: &str) -> RunJson {
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
    fn a_signal_reads_as_128_plus_it() {
        let exit = CommandExit {
            code: None,
            signal: Some(2),
        };
        assert_eq!(exit.shell_code(), 130);
        assert!(exit.failed());
    }
}
