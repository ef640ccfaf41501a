//! The command line: clap structs that only parse ([`Cli`] and the
//! per-command [`args`]), and their resolution into a
//! [`Config`](crate::Config) ([`config`]), where defaults and implications
//! live and names become typed options. No I/O happens here.
//!
//! Each command has an `…Args` struct in [`args`], a variant of [`Command`],
//! and an arm in [`Cli::into_config`] that makes its options.

mod args;
mod config;

use clap::{Parser, Subcommand};

use crate::commands::cache::CacheAction;

use args::{
    CollapseArgs, DiffArgs, FlamegraphArgs, MeasureArgs, RecordArgs, ReportArgs, RulesArgs,
    TimelineArgs, TopArgs,
};

/// Profile iree-compile: read perf.data, unwind, symbolize, and tell which
/// part of the compiler the time went to.
#[derive(Debug, Parser)]
#[command(name = "compile-perf", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
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
