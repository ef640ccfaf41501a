//! The command line: clap structs that only parse ([`Cli`] and the
//! per-command [`args`]), and their resolution into a
//! [`Config`](crate::Config) ([`config`]), where defaults and implications
//! live and names become typed options. No I/O happens here, but for one
//! look at the input: a run directory of `record` stands for its perf.data
//! ([`crate::perfdata::Input`]).
//!
//! Each command has an `…Args` struct in [`args`], a variant of [`Command`],
//! and an arm in [`Cli::into_config`] that makes its options.

mod args;
mod config;

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand};

use crate::commands::cache::CacheAction;

use args::{
    CollapseArgs, DiffArgs, ExecutablesArgs, ExportArgs, FlamegraphArgs, MeasureArgs, PushArgs,
    RecordArgs, ReportArgs, RulesArgs, TimelineArgs, TopArgs,
};

/// Profile iree-compile: read perf.data, unwind, symbolize, and tell which
/// part of the compiler the time went to.
#[derive(Debug, Parser)]
#[command(name = "compile-perf", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    /// Parses `args` (the program's name first) as [`Parser::parse_from`]
    /// does, and exits the same way on a bad command line; `record` followed
    /// by a command without `--` gets a tip to put `--` before it.
    pub fn parse_with_tips(args: impl IntoIterator<Item = OsString>) -> Cli {
        let args: Vec<OsString> = args.into_iter().collect();
        Cli::try_parse_from(&args).unwrap_or_else(|mut error| {
            let record = args.get(1).is_some_and(|arg| arg == "record");
            if record && error.kind() == ErrorKind::UnknownArgument {
                error.insert(
                    ContextKind::Suggested,
                    ContextValue::StyledStrs(vec![
                        "put `--` before the command to record: compile-perf record [OPTIONS] -- COMMAND [ARGS]..."
                            .into(),
                    ]),
                );
            }
            error.exit()
        })
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Run a command (iree-compile) under perf, then write the report and flamegraphs.
    Record(RecordArgs),
    /// Where the samples went, by category (or symbol, binary, thread, process).
    Report(ReportArgs),
    /// Draw a flamegraph SVG coloured by category.
    Flamegraph(FlamegraphArgs),
    /// Draw category shares over the course of the compile, with its phases and busy threads.
    Timeline(TimelineArgs),
    /// List the functions with the most samples, self and inclusive.
    Top(TopArgs),
    /// Write folded stacks (`root;…;leaf count`) for inferno or FlameGraph.
    Collapse(CollapseArgs),
    /// Compare two compiles (or two sets of runs): how each category's share
    /// moved, and whether the move is beyond run-to-run noise.
    Diff(DiffArgs),
    /// Write the profile for another tool: pprof, Firefox Profiler, speedscope,
    /// Chrome trace (pass spans) or folded stacks.
    Export(ExportArgs),
    /// Send the profile to a Grafana Pyroscope server (HTTP ingest API).
    Push(PushArgs),
    /// Compile each executable (dispatch) of a compile alone under perf, with
    /// a timeout, and rank them by compile time.
    Executables(ExecutablesArgs),
    /// Print the effective category rule table.
    Rules(RulesArgs),
    /// Show (`info`) or empty (`clear`) the caches of symbols and recordings.
    #[command(subcommand)]
    Cache(CacheAction),
    /// Run a command and write its exit status and peak RSS to a file
    /// (used by `record` inside perf).
    #[command(hide = true)]
    Measure(MeasureArgs),
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;
    use crate::rules::RuleTable;

    #[test]
    fn flamegraph_help_lists_every_built_in_category_id() {
        let mut command = Cli::command();
        let help = command
            .find_subcommand_mut("flamegraph")
            .expect("flamegraph is a command")
            .render_long_help()
            .to_string();
        let listed = help
            .split("Built-in ids:")
            .nth(1)
            .expect("the help lists the ids")
            .split("\n\n")
            .next()
            .unwrap_or_default();
        let listed: Vec<&str> = listed
            .split(',')
            .map(|id| id.trim().trim_end_matches('.'))
            .collect();
        let table = RuleTable::builtin();
        let ids: Vec<&str> = table.categories.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(listed, ids);
    }
}
