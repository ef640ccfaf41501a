//! A run directory of `record` or `executables`, opened once: its
//! `run.json` ([`RunJson`], the one type the recorder writes and the reports
//! read), the compiler's RSS over time (`memory.json`) and MLIR's pass
//! timers (`mlir-timing.json`), each with the notice to give when the file
//! is there but cannot be read; its actions and dumped executables when
//! asked for.

mod exit;
mod perf;
mod run_json;

use std::path::{Path, PathBuf};

pub(crate) use exit::CommandExit;
pub(crate) use perf::{PerfRun, RatePlan, RingBuffer, StreamChoice, Streams};
pub(crate) use run_json::{
    ExecutablesRunJson, Host, InputFile, InstrumentKindFacts, InstrumentationFacts, RunJson,
    RunKind, RunManifest, RunStatus, SeriesJson, StderrExcerpt, is_run_json, kind_of, save,
};

use crate::actions::{ACTIONS_FILE, Actions};
use crate::consteval::{CONSTEVAL_FILE, ConstEval};
use crate::executable_sources::{Alike, SOURCES_DIR, alike, dumped_sources};
use crate::mlir_timing::{TIMING_FILE, Timers};
use crate::rss::{MEMORY_FILE, RssSeries};

/// The run directory's manifest.
pub(crate) const RUN_FILE: &str = "run.json";

/// A file of the run directory: absent, read, or there but unreadable (with
/// the notice that says why).
#[derive(Clone, Debug, Default)]
pub(crate) enum RunFile<T> {
    /// Not there (or no run directory).
    #[default]
    Absent,
    Read(T),
    /// There, but it cannot be read or is not what its name says.
    Unreadable(String),
}

/// What a run directory holds, read once. A recording outside a run
/// directory (or read from stdin) has an empty one.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunDir {
    /// `run.json` of one recorded run; `None` without a readable one (a
    /// recording outside a run directory is not a problem).
    pub run: Option<RunJson>,
    /// `memory.json`: the compiler's RSS over time.
    pub rss: RunFile<RssSeries>,
    /// `mlir-timing.json` of `record --mlir-timing`: MLIR's pass timers.
    pub timers: RunFile<Timers>,
    /// `consteval.json`: the globals const-eval computed.
    pub consteval: RunFile<ConstEval>,
    /// The directory, when the recording is in one.
    pub dir: Option<PathBuf>,
}

impl RunDir {
    /// The run directory a recording at `recording` is in (perf.data, a file
    /// or perf's `--threads` directory, sits in it).
    pub(crate) fn of_recording(recording: &Path) -> RunDir {
        recording.parent().map(RunDir::open).unwrap_or_default()
    }

    /// Reads what `dir` holds.
    pub(crate) fn open(dir: &Path) -> RunDir {
        let run = std::fs::read(dir.join(RUN_FILE))
            .ok()
            .filter(|bytes| kind_of(bytes) == Some(RunKind::Run))
            .and_then(|bytes| serde_json::from_slice(&bytes).ok());
        let rss = read_file(dir, MEMORY_FILE, |bytes| {
            serde_json::from_slice(bytes).map_err(|error| format!("is not an RSS series: {error}"))
        });
        let timers = read_file(dir, TIMING_FILE, |bytes| {
            let text = std::str::from_utf8(bytes).map_err(|error| error.to_string());
            text.and_then(Timers::parse)
                .map_err(|error| format!("is not MLIR's timing report: {error}"))
        });
        let consteval = read_file(dir, CONSTEVAL_FILE, |bytes| {
            serde_json::from_slice(bytes)
                .map_err(|error| format!("is not const-eval's globals: {error}"))
        });
        RunDir {
            run,
            rss,
            timers,
            consteval,
            dir: Some(dir.to_owned()),
        }
    }

    /// The globals const-eval computed, if the run kept them, and the
    /// notice when `consteval.json` is there but unreadable.
    pub(crate) fn consteval(&self) -> (Option<ConstEval>, Option<String>) {
        match &self.consteval {
            RunFile::Read(consteval) => (Some(consteval.clone()), None),
            RunFile::Absent => (None, None),
            RunFile::Unreadable(why) => (None, Some(why.clone())),
        }
    }

    /// The executables dumped into `sources/` (by `record --actions` or
    /// `executables`) that are alike, grouped; absent without dumps.
    pub(crate) fn alike_executables(&self) -> RunFile<Vec<Alike>> {
        let Some(sources) = self.dir.as_ref().map(|dir| dir.join(SOURCES_DIR)) else {
            return RunFile::Absent;
        };
        match dumped_sources(&sources) {
            Ok(dumped) if dumped.is_empty() => RunFile::Absent,
            Ok(dumped) => RunFile::Read(alike(&dumped)),
            Err(error) => {
                RunFile::Unreadable(format!("{} cannot be read: {error}", sources.display()))
            }
        }
    }

    /// `actions.bin` of `record --actions`: MLIR's actions, read when asked
    /// for (a large compile's are megabytes).
    pub(crate) fn actions(&self) -> RunFile<Actions> {
        match &self.dir {
            Some(dir) => read_file(dir, ACTIONS_FILE, crate::actions::read),
            None => RunFile::Absent,
        }
    }
}

/// The `run.json` of `dir` when `dir` holds a series of runs of
/// `record --repeat`; `None` for any other directory or file.
pub(crate) fn series_at(dir: &Path) -> Option<SeriesJson> {
    let bytes = std::fs::read(dir.join(RUN_FILE)).ok()?;
    (kind_of(&bytes)? == RunKind::Series).then_some(())?;
    serde_json::from_slice(&bytes).ok()
}

/// Reads `dir/name` with `parse`; its error says what the file is not.
fn read_file<T>(
    dir: &Path,
    name: &str,
    parse: impl FnOnce(&[u8]) -> Result<T, String>,
) -> RunFile<T> {
    let path = dir.join(name);
    match std::fs::read(&path) {
        Ok(bytes) => match parse(&bytes) {
            Ok(contents) => RunFile::Read(contents),
            Err(what) => RunFile::Unreadable(format!("{} {what}", path.display())),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => RunFile::Absent,
        Err(error) => RunFile::Unreadable(format!("{} cannot be read: {error}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::{Artifact, ArtifactRole};

    /// A run with every field set to something other than its default.
    fn every_field_set() -> RunJson {
        RunJson {
            status: RunStatus::Finished,
            finished: true,
            interrupted: true,
            command: vec!["iree-compile".to_owned(), "m.mlir".to_owned()],
            working_directory: "/work".to_owned(),
            start_time: "2026-12-02T21:00:00Z".to_owned(),
            wall_seconds: Some(7.5),
            command_wall_seconds: Some(7.25),
            exit: Some(CommandExit {
                code: None,
                signal: Some(9),
            }),
            peak_rss_bytes: Some(170 << 20),
            page_faults: Some(24_300),
            other_cores_busy: Some(0.1),
            stderr: StderrExcerpt {
                head: vec!["first".to_owned()],
                tail: vec!["last".to_owned()],
                lines: 12,
            },
            iree_compile_version: Some("IREE compiler version 3.13.0".to_owned()),
            inputs: vec![InputFile {
                path: "m.mlir".to_owned(),
                bytes: 3,
                sha256: Some("ab".to_owned()),
            }],
            host: Host {
                hostname: Some("vm".to_owned()),
                cores: 2,
                memory_bytes: Some(24 << 30),
                kernel: Some("6.1.0".to_owned()),
            },
            perf: Some(PerfRun {
                version: "perf version 6.1".to_owned(),
                command: vec!["perf".to_owned(), "record".to_owned()],
                event: "cpu-clock".to_owned(),
                event_reason: "detected".to_owned(),
                exit: CommandExit {
                    code: Some(0),
                    signal: None,
                },
                streams: StreamChoice {
                    choice: Streams::PerCpu,
                    reason: "two cores".to_owned(),
                },
                ring_buffer: RingBuffer {
                    bytes_per_cpu: Some(16 << 20),
                    pages: Some(4096),
                    reason: "0.5 s".to_owned(),
                },
                data_rate: RatePlan {
                    frequency_hz: 499,
                    stack_size_bytes: 65528,
                    bytes_per_sample: 65535,
                    cores: 2,
                    budget_bytes_per_s: 256_000_000,
                    expected_bytes_per_s: 65_403_930,
                    measured_raw_bytes: Some(1 << 30),
                    measured_bytes_per_s: Some(1 << 27),
                    choice: "fits".to_owned(),
                },
                written_bytes: 42 << 20,
            }),
            lost_samples: Some(3),
            outputs: vec![RUN_FILE.to_owned()],
            notes: vec!["a note".to_owned()],
            artifacts: vec![Artifact {
                path: "m.vmfb".to_owned(),
                bytes: 10,
                sha256: None,
                role: ArtifactRole::Output,
                entries: None,
                note: Some("not a ZIP archive".to_owned()),
            }],
            actions: Some(crate::actions::ActionsFacts {
                mode: crate::actions::ActionsMode::Times,
                actions: 5,
                threads: 2,
                raw_bytes: 900,
                stored_bytes: 30,
                units_named: 4,
                units_unnamed: 1,
                unpaired: 1,
            }),
            instrumentation: Some(InstrumentationFacts {
                samples: 513,
                percent_of_samples: 9.8,
                cpu_seconds: Some(1.03),
                counted: false,
                kinds: vec![InstrumentKindFacts {
                    kind: "action-profiler".to_owned(),
                    what: "MLIR's action profiler writing its events (--actions)".to_owned(),
                    samples: 513,
                }],
            }),
        }
    }

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("compile-perf-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn run_json_reads_back_field_by_field_as_written() {
        let dir = temp_dir("run-dir-round-trip");
        let run = every_field_set();
        save(&dir, &run).unwrap();
        let opened = RunDir::of_recording(&dir.join("perf.data"));
        assert_eq!(opened.run.as_ref(), Some(&run));
        assert!(matches!(opened.rss, RunFile::Absent));
        assert!(matches!(opened.timers, RunFile::Absent));
        // Every kind of run.json makes a run directory; other JSON does not.
        let text = std::fs::read(dir.join(RUN_FILE)).unwrap();
        assert!(is_run_json(&text));
        assert!(!is_run_json(br#"{"name": "other"}"#));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn series() -> SeriesJson {
        SeriesJson {
            status: RunStatus::Finished,
            finished: true,
            command: vec!["iree-compile".into()],
            repeat: 2,
            runs: vec!["run-1".into(), "run-2".into()],
            outputs: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn each_kind_of_run_json_is_written_with_its_kind_and_read_as_that_kind() {
        let dir = temp_dir("run-dir-kinds");
        save(&dir, &series()).unwrap();
        let text = std::fs::read(dir.join(RUN_FILE)).unwrap();
        assert!(text.starts_with(b"{\n  \"kind\": \"series\","));
        assert_eq!(kind_of(&text), Some(RunKind::Series));
        assert_eq!(series_at(&dir), Some(series()));
        // A series' run.json is no run's, though every field of one may be
        // missing.
        assert_eq!(RunDir::open(&dir).run, None);
        save(&dir, &every_field_set()).unwrap();
        assert_eq!(series_at(&dir), None);
        assert_eq!(RunDir::open(&dir).run, Some(every_field_set()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_json_without_a_kind_is_told_by_the_type_it_reads_as() {
        // Written as the types were, without their kind.
        let old_series = serde_json::to_vec(&series()).unwrap();
        assert_eq!(kind_of(&old_series), Some(RunKind::Series));
        let old_run = serde_json::to_vec(&every_field_set()).unwrap();
        assert_eq!(kind_of(&old_run), Some(RunKind::Run));
        assert_eq!(kind_of(br#"{"status": "finished"}"#), Some(RunKind::Run));
        let old_executables = br#"{"status": "finished", "finished": true, "command": [],
            "timeout_seconds": 60.0, "jobs": 2, "executables": [], "outputs": [], "notes": []}"#;
        assert_eq!(kind_of(old_executables), Some(RunKind::Executables));
        assert_eq!(
            kind_of(br#"{"kind": "executables"}"#),
            Some(RunKind::Executables)
        );
        assert_eq!(kind_of(br#"{"kind": "another"}"#), None);
        assert_eq!(kind_of(b"not json"), None);
    }

    fn notice<T>(file: &RunFile<T>) -> String {
        match file {
            RunFile::Unreadable(notice) => notice.clone(),
            RunFile::Absent | RunFile::Read(_) => panic!("not a notice"),
        }
    }

    #[test]
    fn files_that_are_there_but_unreadable_give_notices() {
        let dir = temp_dir("run-dir-unreadable");
        std::fs::write(dir.join(RUN_FILE), "not json").unwrap();
        std::fs::write(dir.join(MEMORY_FILE), "[]").unwrap();
        std::fs::write(dir.join(TIMING_FILE), "[]").unwrap();
        let opened = RunDir::open(&dir);
        assert_eq!(opened.run, None);
        let rss = notice(&opened.rss);
        assert!(
            rss.contains(&format!("{MEMORY_FILE} is not an RSS series")),
            "{rss}"
        );
        let timers = notice(&opened.timers);
        assert!(
            timers.contains(&format!("{TIMING_FILE} is not MLIR's timing report")),
            "{timers}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
