//! The typed errors of the pipeline, each with the exit code it maps to:
//! [`Error`], and the errors it wraps: of reading the recording
//! (`perfdata::Error`), a rules file (`category_rules::RulesError`) and of
//! recording ([`RecordError`]). Every layer returns these; this
//! module imports nothing from the crate.
//!
//! Every failure a user can cause with their input has its own variant and its
//! own exit code, so scripts can tell "this is not a perf.data file" from "the
//! recording was cut short". The table lives in [`Error::exit_code`] and in
//! docs/troubleshooting.md ("Exit codes").

use std::path::PathBuf;

/// Every exit code, named; docs/troubleshooting.md ("Exit codes") says the
/// same. `record` of a failing compile exits with the compile's own code.
/// The output could not be written.
pub(crate) const EXIT_OUTPUT: u8 = 1;
/// The command line is wrong (clap's code).
pub(crate) const EXIT_USAGE: u8 = 2;
/// The input cannot be opened.
pub(crate) const EXIT_OPEN: u8 = 3;
/// The input is empty.
pub(crate) const EXIT_EMPTY: u8 = 4;
/// The input is not a perf.data file (or a file-mode one through a pipe).
pub(crate) const EXIT_NOT_PERF_DATA: u8 = 5;
/// A recording perf did not finish, refused or read with `--salvage`.
pub(crate) const EXIT_TRUNCATED: u8 = 6;
/// A pipe stream cut short.
pub(crate) const EXIT_CUT_SHORT: u8 = 7;
/// Corrupt records.
pub(crate) const EXIT_CORRUPT: u8 = 8;
/// `--event` names an event the recording does not have.
pub(crate) const EXIT_NO_SUCH_EVENT: u8 = 9;
/// The run finished but sampled libraries could not be found.
pub(crate) const EXIT_MISSING_LIBRARY: u8 = 10;
/// The run finished but a library had a different build id.
pub(crate) const EXIT_BUILD_ID_MISMATCH: u8 = 11;
/// The `--rules` file cannot be read or has a mistake.
pub(crate) const EXIT_RULES: u8 = 12;
/// `--category` or `--pass` names nothing there is.
pub(crate) const EXIT_UNKNOWN_NAME: u8 = 13;
/// Nothing to draw or export.
pub(crate) const EXIT_NOTHING_TO_DRAW: u8 = 14;
/// `--by pattern|unit` of a run without MLIR's actions (`record --actions`).
pub(crate) const EXIT_NO_ACTIONS: u8 = 15;
/// `record`: perf is missing or does not run.
pub(crate) const EXIT_PERF_MISSING: u8 = 20;
/// `record`: `kernel.perf_event_paranoid` forbids profiling.
pub(crate) const EXIT_NOT_PERMITTED: u8 = 21;
/// `record`: the run directory exists and `--force` was not given.
pub(crate) const EXIT_OUTPUT_EXISTS: u8 = 22;
/// `record`: the run directory cannot be made or written.
pub(crate) const EXIT_OUTPUT_NOT_WRITABLE: u8 = 23;
/// `record`: the command is not found.
pub(crate) const EXIT_COMMAND_MISSING: u8 = 24;
/// `record`: `perf record` failed and left no recording.
pub(crate) const EXIT_PERF_FAILED: u8 = 25;
/// `record`: `--force` refused to replace the directory.
pub(crate) const EXIT_FORCE_REFUSED: u8 = 26;
/// `record --alloc`: the uprobes could not be added.
pub(crate) const EXIT_PROBE_FAILED: u8 = 27;
/// `record`: an input file on iree-compile's command line does not exist.
pub(crate) const EXIT_INPUT_MISSING: u8 = 28;
/// `record --heap`: the heap sampler cannot be found, loaded or probed.
pub(crate) const EXIT_HEAP_SAMPLER: u8 = 29;
/// `diff`'s gate failed: a share or a run fact grew beyond its limit.
pub(crate) const EXIT_REGRESSION: u8 = 30;
/// `push` could not hand the profile over.
pub(crate) const EXIT_PUSH_FAILED: u8 = 31;
/// `diff`'s gate refused: a run of either side is of a failed compile.
pub(crate) const EXIT_FAILED_RUN: u8 = 32;
/// `diff`'s gate refused: the sides compiled different inputs or used
/// different flags, and `--allow-different-inputs` was not given.
pub(crate) const EXIT_DIFFERENT_INPUTS: u8 = 33;
/// `executables`: the compile dumped no executables.
pub(crate) const EXIT_NO_EXECUTABLES: u8 = 40;
/// `executables` ranked the executables, but one or more failed, timed out
/// or could not be recorded or read.
pub(crate) const EXIT_EXECUTABLES_FAILED: u8 = 41;
/// `history`: the store cannot be opened, read or written (a corrupt file,
/// an unreachable server, a password inside the URL).
pub(crate) const EXIT_HISTORY_STORE: u8 = 50;
/// `history`: the store was made by a newer compile-perf (its schema version
/// is higher than this one knows).
pub(crate) const EXIT_HISTORY_NEWER: u8 = 51;
/// `history add|check`: a run directory that cannot be stored (no
/// `run.json` of one run, or no recording).
pub(crate) const EXIT_HISTORY_RUN: u8 = 52;
/// `record` and `executables` stopped by Ctrl-C (128 + SIGINT, as a shell
/// reports it).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// A failure that stops the pipeline.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input path could not be opened.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The path given.
        path: PathBuf,
        /// Why it cannot be opened.
        source: std::io::Error,
    },
    /// The recording cannot be opened or read ([`perfdata::Error`]).
    #[error(transparent)]
    Read(#[from] perfdata::Error),
    /// Records damaged from some point on; the output holds the samples before it.
    #[error(
        "{input}: corrupt perf data: {reason}; the {samples} samples read before it were used, the rest of the recording was not read"
    )]
    CorruptRecords {
        /// The input's name.
        input: String,
        /// What is damaged, and where.
        reason: String,
        /// The samples read before the damage (and used).
        samples: u64,
    },
    /// `--event` names an event the recording does not have.
    #[error("{input}: no sampling event named {wanted:?}; the recording has: {available}")]
    NoSuchEvent {
        /// The input's name.
        input: String,
        /// The event asked for.
        wanted: String,
        /// The recording's sampling events, listed.
        available: String,
    },
    /// A `--rules` file that cannot be read or used.
    #[error("{0}")]
    Rules(#[from] category_rules::RulesError),
    /// A `--rules` file that cannot be read.
    #[error("cannot read the rules file {path}: {source}")]
    ReadRules {
        /// The path given.
        path: PathBuf,
        /// Why it cannot be read.
        source: std::io::Error,
    },
    /// `--category` names no category of the table.
    #[error(
        "no category {wanted:?}; did you mean: {closest}? (`compile-perf rules` lists every id and name)"
    )]
    UnknownCategory {
        /// The category asked for.
        wanted: String,
        /// The closest ids and names, listed.
        closest: String,
    },
    /// `--pass` names no pass found on the recording's stacks.
    #[error(
        "no pass {wanted:?} on the recorded stacks; did you mean: {closest}? (`report --by pass` lists them)"
    )]
    UnknownPass {
        /// The pass asked for.
        wanted: String,
        /// The closest passes on the stacks, listed.
        closest: String,
    },
    /// The samples selected leave nothing to draw or report.
    #[error("nothing to draw: {reason}")]
    NothingToDraw {
        /// Why, and what to check.
        reason: String,
    },
    /// The rows asked for come from MLIR's actions, and the run has none
    /// to read.
    #[error("{what} needs MLIR's actions of the compile: {reason}")]
    NoActions {
        /// What was asked for (`report --by pattern`).
        what: String,
        /// Why there are none, and how to record them.
        reason: String,
    },
    /// `record` could not record.
    #[error("{0}")]
    Record(#[from] RecordError),
    /// `push` could not hand the profile over.
    #[error("push to {url} failed: {reason}; the recording is unchanged")]
    Push {
        /// The server's URL.
        url: String,
        /// What went wrong, with the server's answer when it gave one.
        reason: String,
    },
    /// `executables`: the full compile dumped no executable sources.
    #[error(
        "the compile dumped no executables into {dir} ({outcome}): nothing to compile one by one; the compile must reach the HAL stage (no --compile-to before it) and have dispatches"
    )]
    NoExecutables {
        /// The directory the sources were to be dumped into.
        dir: PathBuf,
        /// How the full compile ended.
        outcome: String,
    },
    /// The history store failed.
    #[error("{0}")]
    History(#[from] HistoryError),
    /// Writing the output failed.
    #[error("cannot write {target}: {source}")]
    Output {
        /// The path, or `stdout`.
        target: String,
        /// Why writing failed.
        source: std::io::Error,
    },
}

impl Error {
    /// The process exit code for this error; see docs/troubleshooting.md.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Output { .. } => EXIT_OUTPUT,
            Error::Open { .. } => EXIT_OPEN,
            Error::Read(error) => read_exit_code(error),
            Error::CorruptRecords { .. } => EXIT_CORRUPT,
            Error::NoSuchEvent { .. } => EXIT_NO_SUCH_EVENT,
            Error::Rules(_) | Error::ReadRules { .. } => EXIT_RULES,
            Error::UnknownCategory { .. } | Error::UnknownPass { .. } => EXIT_UNKNOWN_NAME,
            Error::NothingToDraw { .. } => EXIT_NOTHING_TO_DRAW,
            Error::NoActions { .. } => EXIT_NO_ACTIONS,
            Error::Record(error) => error.exit_code(),
            Error::Push { .. } => EXIT_PUSH_FAILED,
            Error::NoExecutables { .. } => EXIT_NO_EXECUTABLES,
            Error::History(error) => error.exit_code(),
        }
    }

    /// True when writing failed because the reader of a pipe went away.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Output { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// The exit code of a recording that cannot be opened or read.
fn read_exit_code(error: &perfdata::Error) -> u8 {
    match error {
        perfdata::Error::Open { .. } | perfdata::Error::NoRecordingInDirectory { .. } => EXIT_OPEN,
        perfdata::Error::Empty { .. } => EXIT_EMPTY,
        perfdata::Error::NotPerfData { .. } | perfdata::Error::FileModeStream { .. } => {
            EXIT_NOT_PERF_DATA
        }
        perfdata::Error::Truncated { .. } => EXIT_TRUNCATED,
        perfdata::Error::StreamCutShort { .. } => EXIT_CUT_SHORT,
        perfdata::Error::Corrupt { .. } => EXIT_CORRUPT,
    }
}

/// Why recording could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// perf cannot be run.
    #[error(
        "perf is not installed or does not run ({detail}); compile-perf needs Linux perf from the system (pip does not install it; tested with perf 6.1): on Debian apt-get install linux-perf, on Ubuntu apt-get install linux-tools-generic, on Fedora dnf install perf"
    )]
    PerfMissing {
        /// What running it said.
        detail: String,
    },
    /// `perf_event_paranoid` keeps this user from profiling.
    #[error(
        "the kernel does not let this user profile (kernel.perf_event_paranoid = {value}); allow it with: sudo sysctl kernel.perf_event_paranoid=1"
    )]
    NotPermitted {
        /// `kernel.perf_event_paranoid`.
        value: i64,
    },
    /// The run directory exists, and `--force` was not given.
    #[error("{dir} already exists; choose another -o or pass --force to replace it")]
    OutputExists {
        /// The run directory asked for.
        dir: PathBuf,
    },
    /// `--force` was given, but the directory is not one it replaces.
    #[error("--force does not replace {dir}: {reason}; nothing was deleted")]
    ForceRefused {
        /// The run directory asked for.
        dir: PathBuf,
        /// Why it stays.
        reason: ForceRefusal,
    },
    /// The run directory cannot be made or written.
    #[error("cannot write the run directory {dir}: {source}")]
    OutputNotWritable {
        /// The run directory.
        dir: PathBuf,
        /// Why it cannot be written.
        source: std::io::Error,
    },
    /// The command to record does not exist.
    #[error("command not found: {command}{looked_in}")]
    CommandMissing {
        /// The program named.
        command: String,
        /// Where a bare name was looked for, and what to do (empty for a
        /// path, or no command at all).
        looked_in: String,
    },
    /// An input file on iree-compile's command line does not exist.
    #[error(
        "the input {path} does not exist: iree-compile would fail before compiling anything; nothing was recorded"
    )]
    InputMissing {
        /// The path on the command line.
        path: String,
    },
    /// perf ran but made no recording.
    #[error("perf record failed ({status}) and left no recording; its messages are above")]
    PerfFailed {
        /// How perf ended.
        status: String,
    },
    /// `record --alloc` could not add its uprobes to libc.
    #[error(
        "record --alloc could not add the uprobe `{definition}` to {library}: {detail} (uprobes need root or CAP_SYS_ADMIN, a kernel with CONFIG_UPROBE_EVENTS and tracefs; nothing was recorded)"
    )]
    ProbeFailed {
        /// The probe definition given to `perf probe`.
        definition: String,
        /// The library probed.
        library: String,
        /// What perf probe said.
        detail: String,
    },
    /// `record --heap`: the heap sampler library cannot be found, loaded or
    /// probed.
    #[error("record --heap: {reason}; nothing was recorded")]
    HeapSampler {
        /// Why.
        reason: String,
    },
    /// `record --mlir-timing` or `--actions` was given a command it cannot
    /// add its flags to.
    #[error("record {option}: {reason}")]
    CompilerFlags {
        /// The option of `record` that adds the flags.
        option: &'static str,
        /// Why (not iree-compile, or a flag it contradicts).
        reason: String,
    },
}

impl RecordError {
    /// The process exit code; see docs/troubleshooting.md.
    pub fn exit_code(&self) -> u8 {
        match self {
            RecordError::PerfMissing { .. } => EXIT_PERF_MISSING,
            RecordError::NotPermitted { .. } => EXIT_NOT_PERMITTED,
            RecordError::OutputExists { .. } => EXIT_OUTPUT_EXISTS,
            RecordError::OutputNotWritable { .. } => EXIT_OUTPUT_NOT_WRITABLE,
            RecordError::CommandMissing { .. } => EXIT_COMMAND_MISSING,
            RecordError::InputMissing { .. } => EXIT_INPUT_MISSING,
            RecordError::PerfFailed { .. } => EXIT_PERF_FAILED,
            RecordError::ForceRefused { .. } => EXIT_FORCE_REFUSED,
            RecordError::ProbeFailed { .. } => EXIT_PROBE_FAILED,
            RecordError::HeapSampler { .. } => EXIT_HEAP_SAMPLER,
            RecordError::CompilerFlags { .. } => EXIT_USAGE,
        }
    }
}

/// Why the history store cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The store cannot be opened, read or written.
    #[error("history store {store}: {reason}")]
    Store {
        /// The file or the URL (without credentials).
        store: String,
        /// What failed, as the database said it.
        reason: String,
    },
    /// The store's schema is newer than this compile-perf knows.
    #[error(
        "history store {store} has schema version {found}, newer than this compile-perf's {known}: it was written by a newer compile-perf; upgrade compile-perf (nothing was changed)"
    )]
    NewerSchema {
        /// The file or the URL.
        store: String,
        /// The version in the store.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// A run directory that cannot be stored.
    #[error("{dir}: {reason}")]
    Run {
        /// The run directory.
        dir: PathBuf,
        /// Why it cannot be stored.
        reason: String,
    },
}

impl HistoryError {
    /// The process exit code; see docs/troubleshooting.md.
    pub fn exit_code(&self) -> u8 {
        match self {
            HistoryError::Store { .. } => EXIT_HISTORY_STORE,
            HistoryError::NewerSchema { .. } => EXIT_HISTORY_NEWER,
            HistoryError::Run { .. } => EXIT_HISTORY_RUN,
        }
    }
}

/// Why `--force` does not replace a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ForceRefusal {
    /// The root directory.
    #[error("it is the root directory")]
    Root,
    /// The home directory or above it.
    #[error("it is the home directory or contains it")]
    Home,
    /// The working directory or above it.
    #[error("it is the working directory or contains it")]
    WorkingDirectory,
    /// The working directory is unknown, so the path cannot be checked against it.
    #[error("the working directory cannot be found, so it cannot be told apart from it")]
    WorkingDirectoryUnknown,
    /// Not a directory.
    #[error("it is not a directory")]
    NotADirectory,
    /// A directory with things in it, but no `run.json` of a run.
    #[error(
        "it is not empty and has no run.json of compile-perf record, so it is not a run directory"
    )]
    NotARunDirectory,
}
