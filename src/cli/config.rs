//! The second stage of the command line: parsed arguments resolved into a
//! [`Config`], the settings every command shares and the command's own
//! options, with the defaults and implications that need more than clap.

use std::path::PathBuf;

use clap::CommandFactory;

use super::args::{InputArgs, ReadingArgs};
use super::{Cli, Command};
use crate::attribute::diff::Limits;
use crate::cache::Cache;
use crate::commands::completions::CompletionsOptions;
use crate::commands::diff::DiffOptions;
use crate::commands::executables::ExecutablesOptions;
use crate::commands::export::ExportOptions;
use crate::commands::flamegraph::FlamegraphOptions;
use crate::commands::man::ManOptions;
use crate::commands::measure::MeasureOptions;
use crate::commands::push::PushOptions;
use crate::commands::report::ReportOptions;
use crate::commands::rules::RulesOptions;
use crate::commands::timeline::TimelineOptions;
use crate::commands::top::TopOptions;
use crate::commands::{Action, Config, Reading};
use crate::defaults;
use crate::output::Output;
use crate::profile::{LoadOptions, SampleFilter};
use crate::recorder::{RateRequest, RecordOptions};
use crate::render::flamegraph::diff::FoldedFor;
use crate::run_dir::{RatePlan, StreamChoice, Streams};
use perfdata::Input;

impl Cli {
    /// Resolves the parsed arguments into a [`Config`].
    pub fn into_config(self) -> Config {
        let command_quiet = match &self.command {
            Command::Record(args) => args.quiet,
            Command::Executables(args) => args.quiet,
            _ => false,
        };
        let quiet = command_quiet
            || self
                .command
                .reading_args()
                .is_some_and(|reading| reading.quiet);
        let (action, output, rules_file) = match self.command {
            Command::Collapse(args) => (Action::Collapse(reading(args.input)), args.output, None),
            Command::Top(args) => (
                Action::Top(
                    reading(args.input),
                    TopOptions {
                        limit: args.limit,
                        format: args.format,
                    },
                ),
                args.output,
                None,
            ),
            Command::Report(args) => (
                Action::Report(
                    reading(args.input),
                    ReportOptions {
                        format: args.format,
                        grouping: args.by,
                        attribution: args.attribution,
                        color: args.color,
                        flamegraph: args.flamegraph,
                        max_depth: args.max_depth,
                    },
                ),
                args.output,
                args.rules.file,
            ),
            Command::Flamegraph(args) => (
                Action::Flamegraph(
                    reading(args.input),
                    FlamegraphOptions {
                        category: args.category,
                        pass: args.pass,
                        inverted: args.inverted,
                        passes_only: args.passes_only,
                        min_width: args.min_width,
                        max_depth: args.max_depth,
                        folded_out: args.folded_out,
                    },
                ),
                Some(args.output),
                args.rules.file,
            ),
            Command::Record(args) => (
                Action::Record(RecordOptions {
                    command: args.command,
                    output_dir: args.output.unwrap_or_else(default_run_dir),
                    force: args.force,
                    rate: RatePlan::choose(RateRequest {
                        frequency: args.frequency,
                        stack_size: args.stack_size,
                        budget_bytes_per_s: args.budget.saturating_mul(1_000_000),
                        call_graph: args.call_graph,
                        cores: cores(),
                    }),
                    call_graph: args.call_graph,
                    streams: StreamChoice::new(
                        args.streams
                            .unwrap_or_else(|| Streams::default_for(cores())),
                        args.streams.is_some(),
                        &args.perf_args,
                    ),
                    event: args.event,
                    perf_args: args.perf_args,
                    page_faults: args.page_faults,
                    alloc_min_bytes: args.alloc.then_some(args.alloc_min_bytes),
                    repeat: args.repeat,
                    mlir_timing: args.mlir_timing,
                    quiet: args.quiet,
                    status_label: None,
                }),
                None,
                args.rules.file,
            ),
            Command::Diff(args) => (
                Action::Diff(
                    // The recordings of each side take this input's place.
                    reading(InputArgs {
                        input: args.base.clone(),
                        reading: args.reading,
                    }),
                    DiffOptions {
                        base: args.base,
                        new: args.new,
                        format: args.format,
                        grouping: args.by,
                        attribution: args.attribution,
                        color: args.color,
                        threshold_pp: args.threshold,
                        limits: Limits {
                            fail_on_regression: args.fail_on_regression,
                            max_increase: args.max_increase,
                        },
                        allow_different_inputs: args.allow_different_inputs,
                        folded: match args.by_thread {
                            true => FoldedFor::ByThread,
                            false => FoldedFor::Diff,
                        },
                        flamegraph: args.flamegraph,
                    },
                ),
                args.output,
                args.rules.file,
            ),
            Command::Export(args) => (
                Action::Export(
                    reading(args.input),
                    ExportOptions {
                        format: args.format,
                    },
                ),
                Some(args.output),
                args.rules.file,
            ),
            Command::Push(args) => (
                Action::Push(
                    reading(args.input),
                    PushOptions {
                        url: args.url,
                        app: args.app,
                        labels: args.label,
                        format: args.format,
                    },
                ),
                None,
                args.rules.file,
            ),
            Command::Measure(args) => (
                Action::Measure(MeasureOptions {
                    command: args.command,
                    into: args.into,
                    mlir_timing_into: args.mlir_timing_into,
                    timeout: args.timeout.map(std::time::Duration::from_secs_f64),
                    perf_args: args.perf_args,
                }),
                None,
                None,
            ),
            Command::Timeline(args) => (
                Action::Timeline(
                    reading(args.input),
                    TimelineOptions {
                        format: args.format,
                        slices: args.buckets,
                    },
                ),
                Some(args.output),
                args.rules.file,
            ),
            Command::Cache(action) => (Action::Cache(action), None, None),
            Command::Executables(args) => (
                Action::Executables(ExecutablesOptions {
                    command: args.command,
                    output_dir: args.output.unwrap_or_else(default_run_dir),
                    force: args.force,
                    timeout: std::time::Duration::from_secs_f64(args.timeout),
                    jobs: usize::from(args.jobs),
                    repeat: usize::from(args.repeat),
                    frequency: args.frequency,
                }),
                None,
                args.rules.file,
            ),
            // The command line's definition is this layer's: it is handed to
            // the command, which makes the text from it.
            Command::Completions(args) => (
                Action::Completions(CompletionsOptions {
                    shell: args.shell,
                    command: Cli::command(),
                }),
                None,
                None,
            ),
            Command::Man(args) => (
                Action::Man(ManOptions {
                    command: man_page(args.command.as_deref()),
                }),
                None,
                None,
            ),
            Command::Rules(args) => (
                Action::Rules(RulesOptions {
                    format: args.format,
                }),
                None,
                args.rules.file,
            ),
        };
        Config {
            action,
            output: Output::from_arg(output),
            quiet,
            rules_file,
        }
    }
}

impl Command {
    /// How the command reads recordings, when it reads any.
    fn reading_args(&self) -> Option<&ReadingArgs> {
        match self {
            Command::Collapse(args) => Some(&args.input.reading),
            Command::Top(args) => Some(&args.input.reading),
            Command::Report(args) => Some(&args.input.reading),
            Command::Flamegraph(args) => Some(&args.input.reading),
            Command::Timeline(args) => Some(&args.input.reading),
            Command::Export(args) => Some(&args.input.reading),
            Command::Push(args) => Some(&args.input.reading),
            Command::Diff(args) => Some(&args.reading),
            Command::Record(_)
            | Command::Executables(_)
            | Command::Rules(_)
            | Command::Cache(_)
            | Command::Completions(_)
            | Command::Man(_)
            | Command::Measure(_) => None,
        }
    }
}

/// What a command reads and which samples it keeps.
fn reading(input: InputArgs) -> Reading {
    Reading {
        filter: filter(&input.reading),
        load: load_options(input),
    }
}

/// The processes `--pid`, `--process` and `--compiler` keep.
fn filter(reading: &ReadingArgs) -> SampleFilter {
    SampleFilter {
        pids: reading.pid.clone(),
        names: reading.process.clone(),
        compiler_only: reading.compiler,
    }
}

/// What to read and how: the input, the event, where binaries and debug
/// files are, and whether to salvage.
fn load_options(input: InputArgs) -> LoadOptions {
    let reading = input.reading;
    LoadOptions {
        input: Input::from_arg(&input.input),
        event: reading.event,
        symfs: reading.symfs,
        debug_roots: if reading.debug_dirs.is_empty() {
            vec![PathBuf::from(defaults::DEBUG_ROOT)]
        } else {
            reading.debug_dirs
        },
        salvage: reading.salvage,
        cache: Cache::from_env(!reading.no_cache),
        alloc: reading.alloc,
        read_threads: reading.read_threads.map(usize::from),
        progress: crate::progress::shown(reading.quiet),
    }
}

/// The command whose man page `man` prints: the top command, or the one
/// named (the parser took only a visible command's name). It comes from the
/// built definition, where a command's name for pages is `compile-perf-NAME`
/// and its usage `compile-perf NAME`; without `help`, which has no page.
fn man_page(name: Option<&str>) -> clap::Command {
    let mut top = Cli::command().disable_help_subcommand(true);
    top.build();
    if let Some(command) = name.and_then(|name| top.find_subcommand(name)) {
        return command.clone();
    }
    top
}

/// The cores a compile may keep busy at once.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `compile-perf-runs/<UTC timestamp>`, a new directory for each run.
fn default_run_dir() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(':', "-")
        .trim_end_matches('Z')
        .to_owned();
    PathBuf::from(defaults::RUNS_DIR).join(stamp)
}
