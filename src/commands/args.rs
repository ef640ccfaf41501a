//! What the commands' arguments share, as clap parses it: the headings
//! options are grouped under, the recording and how it is read
//! ([`InputArgs`], [`ReadingArgs`]), `--rules`, and the value parsers more
//! than one command uses; and their resolution into a [`Reading`]. Each
//! command's own arguments are in its file. Defaults shown in `--help` come
//! from [`crate::defaults`] and the `#[default]` variants of the library's
//! enums.

use std::path::PathBuf;

use clap::Args;

use super::Reading;
use crate::cache::Cache;
use crate::defaults;
use crate::profile::{HeapInstant, ReadOptions, SampleFilter};
use perfdata::Input;

/// The headings `--help` groups options under, after the command's own
/// options (clap's "Options"). A shared struct (`ReadingArgs`,
/// `RulesFileArg`) names its headings once for every command that flattens
/// it; the headings follow in the order their first option is declared.
pub(crate) mod heading {
    /// Where the results go and how much is said on stderr.
    pub(crate) const OUTPUT: &str = "Output";
    /// Which samples count, and what a sample weighs.
    pub(crate) const SAMPLES: &str = "Samples";
    /// How a recording is read: binaries, debug files, caches, damage.
    pub(crate) const READING: &str = "Reading";
    /// The rule table that sorts functions into categories.
    pub(crate) const CATEGORIES: &str = "Categories";
    /// What `record` records besides CPU time, and how often.
    pub(crate) const RECORDING: &str = "Recording";
    /// How perf samples: rate, stacks, event, streams, its own arguments.
    pub(crate) const PERF: &str = "perf";
    /// `diff`'s verdict: what is flagged, and when the exit code is 30.
    pub(crate) const GATE: &str = "CI gate";
    /// `history`'s store and the series of runs compared.
    pub(crate) const STORE: &str = "Store";
}

/// Options shared by every command that reads a recording.
#[derive(Debug, Args)]
pub(crate) struct InputArgs {
    /// The recording: a perf.data file, a pipe-mode stream, or `-` for stdin.
    #[arg(default_value = defaults::INPUT)]
    pub input: PathBuf,
    #[command(flatten)]
    pub reading: ReadingArgs,
}

impl InputArgs {
    /// What the command reads and which samples it keeps.
    pub(crate) fn into_reading(self) -> Reading {
        Reading {
            input: Input::from_arg(&self.input),
            filter: self.reading.filter(),
            read: self.reading.into_read_options(),
        }
    }
}

/// How recordings are read and which processes count: for every command
/// that reads one (`diff` reads several).
#[derive(Debug, Args)]
pub(crate) struct ReadingArgs {
    /// Count this event (as `perf evlist` names it). Default is the first sampling event.
    #[arg(long, value_name = "NAME", help_heading = heading::SAMPLES)]
    pub event: Option<String>,
    /// Count the bytes asked for at the allocator probes of `record --alloc`
    /// instead of samples.
    #[arg(long, conflicts_with = "event", help_heading = heading::SAMPLES)]
    pub alloc: bool,
    /// Count the bytes live at the compiler's RSS peak (or --at) from the
    /// heap sampler of `record --heap` instead of samples.
    #[arg(long, conflicts_with_all = ["event", "alloc"], help_heading = heading::SAMPLES)]
    pub heap: bool,
    /// With --heap: the instant to read, in seconds after the first sample
    /// kept (the clock of the memory line and the timeline). Default is the
    /// compiler's RSS peak.
    #[arg(long, value_name = "SECONDS", requires = "heap",
          value_parser = non_negative_seconds, help_heading = heading::SAMPLES)]
    pub at: Option<f64>,
    /// Also look for binaries under DIR, matched by build id: for a venv rebuilt
    /// elsewhere or a profile from another machine. Repeatable.
    #[arg(long = "symfs", value_name = "DIR", help_heading = heading::READING)]
    pub symfs: Vec<PathBuf>,
    /// Look for separate debug files under DIR instead of /usr/lib/debug. Repeatable.
    #[arg(long = "debug-dir", value_name = "DIR", help_heading = heading::READING)]
    pub debug_dirs: Vec<PathBuf>,
    /// Keep only samples of this pid. Repeatable.
    #[arg(long, value_name = "PID", help_heading = heading::SAMPLES)]
    pub pid: Vec<i32>,
    /// Keep only samples of processes with this name or executable file name. Repeatable.
    #[arg(long, value_name = "NAME", help_heading = heading::SAMPLES)]
    pub process: Vec<String>,
    /// Keep only samples of the compiler: the process that runs libIREECompiler.so (the native iree-compile, or a Python compiling in-process), not the Python launcher nor iree-lld.
    #[arg(long, help_heading = heading::SAMPLES)]
    pub compiler: bool,
    /// Count the samples of the recording's own instrumentation (MLIR's
    /// action profiler and action log, IR printed around passes, the heap
    /// sampler, perf's uprobes), each in the category Instrumentation under
    /// the pass it ran in. Default: they are set aside, out of every share,
    /// and their cost is stated.
    #[arg(long, help_heading = heading::SAMPLES)]
    pub with_instrumentation: bool,
    /// Do not print the summary on stderr (warnings still print).
    #[arg(long, short, help_heading = heading::OUTPUT)]
    pub quiet: bool,
    /// Read a recording perf did not finish (killed, or cut short) up to its
    /// last complete record, with a warning and exit code 6.
    #[arg(long, help_heading = heading::READING)]
    pub salvage: bool,
    /// Neither read nor write the caches of symbols and recordings
    /// ($XDG_CACHE_HOME/compile-perf).
    #[arg(long, help_heading = heading::READING)]
    pub no_cache: bool,
    /// Use N threads: read and unwind at most N streams of a `perf record
    /// --threads` directory at once (each decompressing its own zstd, on a
    /// thread of its own only when N leaves threads to spare), and name and
    /// draw on N. The output is the same for every N. Default is the number
    /// of cores.
    #[arg(long, short = 'j', value_name = "N", alias = "read-threads",
          value_parser = clap::value_parser!(u16).range(1..), help_heading = heading::READING)]
    pub jobs: Option<u16>,
}

impl ReadingArgs {
    /// The processes `--pid`, `--process` and `--compiler` keep.
    pub(crate) fn filter(&self) -> SampleFilter {
        SampleFilter {
            pids: self.pid.clone(),
            names: self.process.clone(),
            compiler_only: self.compiler,
        }
    }

    /// How to read: the event, where binaries and debug files are, and
    /// whether to salvage.
    pub(crate) fn into_read_options(self) -> ReadOptions {
        ReadOptions {
            event: self.event,
            symfs: self.symfs,
            debug_roots: if self.debug_dirs.is_empty() {
                vec![PathBuf::from(defaults::DEBUG_ROOT)]
            } else {
                self.debug_dirs
            },
            salvage: self.salvage,
            cache: Cache::from_env(!self.no_cache),
            alloc: self.alloc,
            heap: self.heap.then_some(match self.at {
                Some(seconds) => HeapInstant::At(seconds),
                None => HeapInstant::Peak,
            }),
            jobs: self
                .jobs
                .map(|jobs| crate::profile::use_jobs(usize::from(jobs))),
            progress: crate::progress::shown(self.quiet),
            with_instrumentation: self.with_instrumentation,
        }
    }
}

/// `--rules`, shared by the commands that categorize.
#[derive(Debug, Args)]
pub(crate) struct RulesFileArg {
    /// Extend the built-in categories with a TOML file of the same format:
    /// add categories, rename or recolour them, put rules in front.
    #[arg(long = "rules", value_name = "FILE.toml", help_heading = heading::CATEGORIES)]
    pub file: Option<PathBuf>,
}

/// Percentage points: a number from 0 to 100.
pub(crate) fn parse_points(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(points) if (0.0..=100.0).contains(&points) => Ok(points),
        _ => Err(format!(
            "{text:?} is not a number of percentage points from 0 to 100"
        )),
    }
}

/// Seconds: a number above 0.
pub(crate) fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && std::time::Duration::try_from_secs_f64(seconds).is_ok() => {
            Ok(seconds)
        }
        _ => Err(format!("{text:?} is not a number of seconds above 0")),
    }
}

/// `compile-perf-runs/<UTC timestamp>`, a new directory for each run.
pub(crate) fn default_run_dir() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(':', "-")
        .trim_end_matches('Z')
        .to_owned();
    PathBuf::from(defaults::RUNS_DIR).join(stamp)
}

/// The cores a compile may keep busy at once.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// A number of seconds, at least 0.
fn non_negative_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(seconds),
        _ => Err(format!("`{text}` is not a number of seconds (0 or more)")),
    }
}
