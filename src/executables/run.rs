//! Every dumped executable recorded alone under perf with `record`'s
//! settings and a timeout, `jobs` at a time, each into a run directory of
//! its own. Ctrl-C stops the executable being compiled and starts no other.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::{EXECUTABLES_DIR, ExecutableSource, executable_command};
use crate::progress::Progress;
use crate::recorder::{RecordError, RecordOptions, Recorded, interrupt_flag, record_with_timeout};

/// One executable's recording, or why perf left none.
pub(crate) struct ExecutableRun {
    pub source: ExecutableSource,
    /// The run directory, relative to the `executables` run directory.
    pub run_dir: PathBuf,
    pub recorded: Result<Recorded, RecordError>,
}

/// Records every source in `sources` under `dir/executables/NAME/`, `jobs`
/// at a time, with `settings` (the command and the directory are each
/// executable's own), counting them on `progress`. Returns the runs in the
/// order of `sources`; after Ctrl-C, the runs made until then.
pub(crate) fn record_executables(
    dir: &Path,
    sources: &[ExecutableSource],
    settings: &RecordOptions,
    timeout: Duration,
    jobs: usize,
    progress: &Progress,
) -> Vec<ExecutableRun> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let runs: Mutex<Vec<Option<ExecutableRun>>> =
        Mutex::new(sources.iter().map(|_| None).collect());
    let interrupted = interrupt_flag();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
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
                    let run = record_one(dir, source, settings, timeout);
                    let finished = done.fetch_add(1, Ordering::SeqCst) + 1;
                    progress.println(&format!(
                        "compile-perf: executable {finished} of {}: {} {}",
                        sources.len(),
                        source.name,
                        outcome(&run.recorded)
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

/// Records one executable.
fn record_one(
    dir: &Path,
    source: &ExecutableSource,
    settings: &RecordOptions,
    timeout: Duration,
) -> ExecutableRun {
    let run_dir = PathBuf::from(EXECUTABLES_DIR).join(&source.name);
    let output_dir = dir.join(&run_dir);
    let options = RecordOptions {
        command: executable_command(
            &settings.command,
            &source.file,
            &output_dir.join(format!("{}.bin", source.name)),
        ),
        output_dir,
        force: false,
        repeat: None,
        ..settings.clone()
    };
    ExecutableRun {
        source: source.clone(),
        run_dir,
        recorded: record_with_timeout(&options, Some(timeout)),
    }
}

/// How a recording went, in a few words for the progress line.
fn outcome(recorded: &Result<Recorded, RecordError>) -> String {
    match recorded {
        Err(error) => format!("not recorded: {error}"),
        Ok(recorded) => {
            let wall = recorded
                .command_wall_seconds
                .or(recorded.run.wall_seconds)
                .unwrap_or_default();
            let end = match recorded.run.exit {
                _ if recorded.timed_out => "timed out".to_owned(),
                Some(exit) if exit.shell_code() == 0 => "ok".to_owned(),
                Some(exit) => format!("failed (exit {})", exit.shell_code()),
                None => "ended unmeasured".to_owned(),
            };
            format!("{wall:.2} s, {end}")
        }
    }
}
