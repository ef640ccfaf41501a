//! The arguments of the commands that run programs (`record`,
//! `executables`, `measure`) and of those that print the command line's own
//! documents (`completions`, `man`), as clap parses them.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::sync::OnceLock;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory};

use super::Cli;
use super::args::{RulesFileArg, heading};
use crate::commands::completions::Shell;
use crate::defaults;
use crate::recorder::CallGraph;
use crate::run_dir::Streams;

#[derive(Debug, Args)]
pub(super) struct RecordArgs {
    /// The run directory. Default is compile-perf-runs/<timestamp>.
    #[arg(long, short, value_name = "DIR", help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
    /// Replace the run directory if it exists.
    #[arg(long, help_heading = heading::OUTPUT)]
    pub force: bool,
    /// Samples per second. Default is 499, lowered when --budget asks.
    #[arg(long = "freq", value_name = "HZ", help_heading = heading::PERF)]
    pub frequency: Option<u32>,
    /// How perf collects stacks: dwarf (whole stacks in iree-compile) or fp.
    #[arg(long, value_enum, default_value_t, help_heading = heading::PERF)]
    pub call_graph: CallGraph,
    /// Bytes of stack copied per sample with --call-graph dwarf. Default is
    /// 65528, lowered when --budget asks and the frequency is at its lowest.
    #[arg(long, value_name = "BYTES", help_heading = heading::PERF)]
    pub stack_size: Option<u32>,
    /// The raw data rate to stay under, in MB/s across all cores: the
    /// frequency and then the stack size are lowered to fit (an explicit
    /// --freq or --stack-size wins).
    #[arg(long, value_name = "MB_PER_S", default_value_t = defaults::BUDGET_MB_PER_S,
          value_parser = clap::value_parser!(u64).range(1..),
          help_heading = heading::PERF)]
    pub budget: u64,
    /// How perf writes the recording: one stream, or one per CPU (perf's
    /// --threads, a perf.data directory). Default is per-cpu on more than
    /// one core.
    #[arg(long, value_enum, value_name = "STREAMS", help_heading = heading::PERF)]
    pub streams: Option<Streams>,
    /// The event to sample. Default: hardware cycles, or cpu-clock where the
    /// machine has no hardware counters (VMs, containers).
    #[arg(long, value_name = "EVENT", help_heading = heading::PERF)]
    pub event: Option<String>,
    /// Also sample page faults (`page-faults/period=64/`): the report then
    /// shows memory first touched by category and by pass. (`--memory` is
    /// its former name.)
    #[arg(long, alias = "memory", help_heading = heading::RECORDING)]
    pub page_faults: bool,
    /// Record allocations instead of CPU time: uprobes on libc's malloc,
    /// calloc and realloc (operator new calls malloc); every call asking for
    /// at least --alloc-min-bytes is a sample, weighted by its size.
    #[arg(long, conflicts_with_all = ["page_faults", "event"], help_heading = heading::RECORDING)]
    pub alloc: bool,
    /// With --alloc: the smallest request recorded, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = defaults::ALLOC_MIN_BYTES,
          value_parser = clap::value_parser!(u64).range(1..),
          help_heading = heading::RECORDING)]
    pub alloc_min_bytes: u64,
    /// Pass ARG on to `perf record`. Repeatable.
    #[arg(long = "perf-arg", value_name = "ARG", allow_hyphen_values = true,
          help_heading = heading::PERF)]
    pub perf_args: Vec<String>,
    /// Record the command N times, into DIR/run-1 … DIR/run-N, and report
    /// the runs together, with the spread of each category's share.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          help_heading = heading::RECORDING)]
    pub repeat: Option<u32>,
    /// Add `--mlir-timing --mlir-timing-display=tree --mlir-output-format=json`
    /// to the iree-compile command and keep its pass timers as
    /// DIR/mlir-timing.json, which `report --by pass` joins with the samples.
    #[arg(long, help_heading = heading::RECORDING)]
    pub mlir_timing: bool,
    /// Neither the live status line nor the summary on stderr (warnings
    /// still print).
    #[arg(long, short, help_heading = heading::OUTPUT)]
    pub quiet: bool,
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// The command to record, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub(super) struct ExecutablesArgs {
    /// The run directory. Default is compile-perf-runs/<timestamp>.
    #[arg(long, short, value_name = "DIR", help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
    /// Replace the run directory if it exists.
    #[arg(long, help_heading = heading::OUTPUT)]
    pub force: bool,
    /// Seconds one executable's compile may take; then it is stopped
    /// (SIGTERM, SIGKILL 5 s later), and what was recorded is kept.
    #[arg(long, value_name = "SECS", default_value_t = defaults::EXECUTABLE_TIMEOUT_SECONDS,
          value_parser = parse_seconds)]
    pub timeout: f64,
    /// Executables compiled at a time. Above 1 they share the cores, and
    /// each one's wall time grows with the others'.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: u16,
    /// Compiles of each executable: its wall time is their median, and the
    /// ranking says which steps of its order are beyond run-to-run noise
    /// (3 at least; 1 leaves the order untested; at most 20).
    #[arg(long, value_name = "N", default_value_t = defaults::EXECUTABLE_REPEAT,
          value_parser = clap::value_parser!(u16).range(1..=20))]
    pub repeat: u16,
    /// Samples per second.
    #[arg(long = "freq", value_name = "HZ", default_value_t = defaults::FREQUENCY_HZ,
          help_heading = heading::PERF)]
    pub frequency: u32,
    /// No progress bar on stderr (the line per executable still prints).
    #[arg(long, short, help_heading = heading::OUTPUT)]
    pub quiet: bool,
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// The full compile, after `--`: iree-compile ARGS… (flags with `=`).
    #[arg(last = true, required = true, value_name = "IREE_COMPILE")]
    pub command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub(super) struct MeasureArgs {
    /// Where to write the result (JSON).
    #[arg(long, value_name = "FILE")]
    pub into: PathBuf,
    /// Keep MLIR's timing report (the lines from `[` to `]` on the
    /// command's stderr) in FILE instead of passing it through.
    #[arg(long, value_name = "FILE")]
    pub mlir_timing_into: Option<PathBuf>,
    /// Stop the command after SECS seconds (SIGTERM, then SIGKILL).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Record the command with `perf ARG…` (`record` and its options, once
    /// each, in order; `-p` and a control channel are added): perf records
    /// the command alone, not this wrapper.
    #[arg(long = "perf-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub perf_args: Vec<OsString>,
    /// The command to run, after `--`.
    #[arg(last = true, required = true)]
    pub command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub(super) struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub(super) struct ManArgs {
    /// The command whose page to print. Default is the top page,
    /// compile-perf(1), which lists the others.
    #[arg(value_name = "COMMAND", value_parser = CommandName)]
    pub command: Option<String>,
}

/// Seconds: a number above 0.
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && std::time::Duration::try_from_secs_f64(seconds).is_ok() => {
            Ok(seconds)
        }
        _ => Err(format!("{text:?} is not a number of seconds above 0")),
    }
}

/// `man`'s COMMAND: the name of a command that `--help` lists, checked and
/// offered to shell completion as a `ValueEnum`'s values are. The names come
/// from [`Cli`]'s own definition, read when a value is parsed (not while the
/// definition is built, which would never end).
#[derive(Clone, Copy, Debug)]
struct CommandName;

impl CommandName {
    /// The names of the commands that are not hidden, in `--help`'s order.
    fn names() -> &'static [String] {
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        NAMES.get_or_init(|| {
            Cli::command()
                .get_subcommands()
                .filter(|command| !command.is_hide_set())
                .map(|command| command.get_name().to_owned())
                .collect()
        })
    }
}

impl TypedValueParser for CommandName {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        PossibleValuesParser::new(Self::names().iter().map(String::as_str))
            .parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Self::names()
                .iter()
                .map(|name| PossibleValue::new(name.as_str())),
        ))
    }
}
