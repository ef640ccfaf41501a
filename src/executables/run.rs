//! Every dumped executable recorded alone under perf with `record`'s
//! settings and a timeout, `repeat` times, `jobs` executables at a time,
//! each run into a run directory of its own. Ctrl-C stops the executable
//! being compiled and starts no other.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::{EXECUTABLES_DIR, executable_command};
use crate::executable_sources::ExecutableSource;
use crate::progress::Progress;
use crate::recorder::{RecordError, RecordOptions, Recorded, interrupt_flag, record_with_timeout};

/// One executable's recordings.
pub(crate) struct ExecutableRun {
    pub source: ExecutableSource,
    /// In the order they ran; the last is the one that failed, timed out
    /// or was not recorded when one did (the executable is not compiled
    /// again then).
    pub runs: Vec<OneRun>,
}

/// One compile of an executable: its recording, or why perf left none.
pub(crate) struct OneRun {
    /// The run directory, relative to the `executables` run directory:
    /// `executables/NAME`, or `executables/NAME/run-K` when each is
    /// compiled more than once.
    pub run_dir: PathBuf,
    pub recorded: Result<Recorded, RecordError>,
}

impl OneRun {
    /// The compile's own wall time; `None` when it was not recorded.
    pub(crate) fn wall_seconds(&self) -> Option<f64> {
        let recorded = self.recorded.as_ref().ok()?;
        Some(
            recorded
                .command_wall_seconds
                .or(recorded.run.wall_seconds)
                .unwrap_or_default(),
        )
    }

    /// True when it was recorded, ran to its end and exited 0.
    pub(crate) fn succeeded(&self) -> bool {
        self.recorded.as_ref().is_ok_and(|recorded| {
            !recorded.timed_out && recorded.run.exit.is_some_and(|exit| exit.shell_code() == 0)
        })
    }
}

/// How each executable is compiled: the recording's settings (the command
/// and the directory are each run's own), the timeout of one compile, the
/// compiles of each executable and the executables compiled at a time.
pub(crate) struct Plan<'a> {
    pub settings: &'a RecordOptions,
    pub timeout: Duration,
    pub repeat: usize,
    pub jobs: usize,
}

/// Records every source in `sources` under `dir/executables/NAME/` as
/// `plan` says, counting them on `progress`. Returns the runs in the order
/// of `sources`; after Ctrl-C, the runs made until then.
pub(crate) fn record_executables(
    dir: &Path,
    sources: &[ExecutableSource],
    plan: &Plan<'_>,
    progress: &Progress,
) -> Vec<ExecutableRun> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let runs: Mutex<Vec<Option<ExecutableRun>>> =
        Mutex::new(sources.iter().map(|_| None).collect());
    let interrupted = interrupt_flag();
    std::thread::scope(|scope| {
        for _ in 0..plan.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(source) = sources.get(index) else {
                        break;
                    };
                    if interrupted.load(Ordering::SeqCst) {
                        break;
                    }
                    progress.set_message(source.name.clone());
                    let run = record_one(dir, source, plan);
                    let finished = done.fetch_add(1, Ordering::SeqCst) + 1;
                    progress.println(&format!(
                        "compile-perf: executable {finished} of {}: {} {}",
                        sources.len(),
                        source.name,
                        outcome(&run.runs)
                    ));
                    progress.step_done();
                    runs.lock().unwrap_or_else(|error| error.into_inner())[index] = Some(run);
                }
            });
        }
    });
    runs.into_inner()
        .unwrap_or_else(|error| error.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// Records one executable `plan.repeat` times, until a run fails.
fn record_one(dir: &Path, source: &ExecutableSource, plan: &Plan<'_>) -> ExecutableRun {
    let interrupted = interrupt_flag();
    let mut runs: Vec<OneRun> = Vec::new();
    for index in 1..=plan.repeat.max(1) {
        if runs.last().is_some_and(|run| !run.succeeded()) || interrupted.load(Ordering::SeqCst) {
            break;
        }
        let mut run_dir = PathBuf::from(EXECUTABLES_DIR).join(&source.name);
        if plan.repeat > 1 {
            run_dir.push(format!("run-{index}"));
        }
        let output_dir = dir.join(&run_dir);
        let options = RecordOptions {
            command: executable_command(
                &plan.settings.command,
                &source.file,
                &output_dir.join(format!("{}.bin", source.name)),
            ),
            output_dir,
            force: false,
            repeat: None,
            kernel_symbols: false,
            consteval: false,
            ..plan.settings.clone()
        };
        runs.push(OneRun {
            run_dir,
            recorded: record_with_timeout(&options, Some(plan.timeout)),
        });
    }
    ExecutableRun {
        source: source.clone(),
        runs,
    }
}

/// How an executable's compiles went, in a few words for the progress
/// line: each run's wall time, and how the last ended.
fn outcome(runs: &[OneRun]) -> String {
    let Some(last) = runs.last() else {
        return "not compiled".to_owned();
    };
    let walls: Vec<String> = runs
        .iter()
        .filter_map(OneRun::wall_seconds)
        .map(|wall| format!("{wall:.2}"))
        .collect();
    let end = match &last.recorded {
        Err(error) => return format!("not recorded: {error}"),
        Ok(recorded) => match recorded.run.exit {
            _ if recorded.timed_out => "timed out".to_owned(),
            Some(exit) if exit.shell_code() == 0 => "ok".to_owned(),
            Some(exit) => format!("failed (exit {})", exit.shell_code()),
            None => "ended unmeasured".to_owned(),
        },
    };
    format!("{} s, {end}", walls.join(" "))
}
