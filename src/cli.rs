//! Command-line parsing (clap) and its resolution into a [`Config`].
//!
//! The clap structs only parse. [`Cli::into_config`] fills in defaults and
//! turns paths and names into the typed options the pipeline takes; it does
//! no I/O.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::attribute::{Attribution, Grouping};
use crate::output::Output;
use crate::perfdata::Input;
use crate::profile::{DEFAULT_DEBUG_ROOT, LoadOptions, SampleFilter};
use crate::recorder::{CallGraph, RecordOptions};
use crate::report::table::TextFormat;

/// Profile iree-compile: read perf.data, unwind, symbolize, and tell which
/// part of the compiler the time went to.
#[derive(Debug, Parser)]
#[command(name = "compile-perf", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
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
    /// Print the effective category rule table.
    Rules(RulesArgs),
    /// Run a command and write its exit status and peak RSS to a file
    /// (used by `record` inside perf).
    #[command(hide = true)]
    Measure(MeasureArgs),
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The run directory. Default is compile-perf-runs/<timestamp>.
    #[arg(long, short, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Replace the run directory if it exists.
    #[arg(long)]
    pub force: bool,
    /// Samples per second.
    #[arg(long = "freq", value_name = "HZ", default_value_t = 499)]
    pub frequency: u32,
    /// How perf collects stacks: dwarf (whole stacks in iree-compile) or fp.
    #[arg(long, value_enum, default_value_t = CallGraphArg::Dwarf)]
    pub call_graph: CallGraphArg,
    /// Bytes of stack copied per sample with --call-graph dwarf.
    #[arg(long, value_name = "BYTES", default_value_t = 65528)]
    pub stack_size: u32,
    /// The event to sample. Default: hardware cycles, or cpu-clock where the
    /// machine has no hardware counters (VMs, containers).
    #[arg(long, value_name = "EVENT")]
    pub event: Option<String>,
    /// Also sample page faults (`page-faults/period=64/`): the report then
    /// shows memory first touched by category and by pass.
    #[arg(long)]
    pub memory: bool,
    /// Pass ARG on to `perf record`. Repeatable.
    #[arg(long = "perf-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub perf_args: Vec<String>,
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// The command to record, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Where to write the result (JSON).
    #[arg(long, value_name = "FILE")]
    pub into: PathBuf,
    /// The command to run, after `--`.
    #[arg(last = true, required = true)]
    pub command: Vec<OsString>,
}

/// `record --call-graph`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CallGraphArg {
    Dwarf,
    Fp,
}

/// Options shared by every command that reads a recording.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The recording: a perf.data file, a pipe-mode stream, or `-` for stdin.
    #[arg(default_value = "perf.data")]
    pub input: PathBuf,
    /// Count this event (as `perf evlist` names it). Default is the first sampling event.
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Also look for binaries under DIR, matched by build id: for a venv rebuilt
    /// elsewhere or a profile from another machine. Repeatable.
    #[arg(long = "symfs", value_name = "DIR")]
    pub symfs: Vec<PathBuf>,
    /// Look for separate debug files under DIR instead of /usr/lib/debug. Repeatable.
    #[arg(long = "debug-dir", value_name = "DIR")]
    pub debug_dirs: Vec<PathBuf>,
    /// Keep only samples of this pid. Repeatable.
    #[arg(long, value_name = "PID")]
    pub pid: Vec<i32>,
    /// Keep only samples of processes with this name or executable file name. Repeatable.
    #[arg(long, value_name = "NAME")]
    pub process: Vec<String>,
    /// Keep only samples of the native compiler process (not its Python launcher).
    #[arg(long)]
    pub compiler: bool,
    /// Do not print the summary on stderr (warnings still print).
    #[arg(long, short)]
    pub quiet: bool,
    /// Read a recording perf did not finish (killed, or cut short) up to its
    /// last complete record, with a warning and exit code 6.
    #[arg(long)]
    pub salvage: bool,
}

#[derive(Debug, Args)]
pub struct CollapseArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TopArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Show this many functions.
    #[arg(long, short = 'n', default_value_t = 30)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TopFormat::Table)]
    pub format: TopFormat,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// What the rows are.
    #[arg(long, value_enum, default_value_t = By::Category)]
    pub by: By,
    /// How a sample's self category is chosen: its leaf function's, or the
    /// nearest compiler caller's when the leaf is generic library code.
    #[arg(long, value_enum, default_value_t = AttributionArg::Leaf)]
    pub attribution: AttributionArg,
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// Colour swatches in the table: auto (on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Also draw the category flamegraph to OUT.svg, from the same reading of the recording.
    #[arg(long, value_name = "OUT.svg")]
    pub flamegraph: Option<PathBuf>,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct FlamegraphArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The SVG to write (`-` is stdout).
    #[arg(long, short, value_name = "OUT.svg")]
    pub output: PathBuf,
    /// Keep only stacks with a frame of this category (an id from `compile-perf rules`).
    #[arg(long, value_name = "ID")]
    pub category: Option<String>,
    /// Draw one MLIR pass (a name from `report --by pass`): its stacks, rooted at the pass.
    #[arg(long, value_name = "NAME")]
    pub pass: Option<String>,
    /// Draw an icicle of leaf callers: the hot functions on top, their callers below.
    #[arg(long)]
    pub inverted: bool,
    /// Leave out frames narrower than this percentage of the picture's width
    /// (inferno's test: 0.1 leaves out frames under 1/1000 of the samples).
    #[arg(long, value_name = "PERCENT", default_value_t = 0.1)]
    pub min_width: f64,
    /// Also write the folded stacks drawn to FILE.
    #[arg(long, value_name = "FILE")]
    pub folded_out: Option<PathBuf>,
    #[command(flatten)]
    pub rules: RulesFileArg,
}

#[derive(Debug, Args)]
pub struct TimelineArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Where to write (`-` is stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,
    /// svg: the picture; json: the buckets.
    #[arg(long, value_enum, default_value_t = TimelineFormat::Svg)]
    pub format: TimelineFormat,
    /// How many time buckets.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub buckets: usize,
    #[command(flatten)]
    pub rules: RulesFileArg,
}

/// Formats of `timeline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TimelineFormat {
    Svg,
    Json,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}

/// `--rules`, shared by the commands that categorize.
#[derive(Debug, Args)]
pub struct RulesFileArg {
    /// Extend the built-in categories with a TOML file of the same format:
    /// add categories, rename or recolour them, put rules in front.
    #[arg(long = "rules", value_name = "FILE.toml")]
    pub file: Option<PathBuf>,
}

/// Formats of `top`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TopFormat {
    Table,
    Json,
}

/// Formats of `report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Markdown,
    Csv,
    Json,
}

/// Formats of `rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Table,
    Markdown,
}

/// `report --by`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum By {
    Category,
    Symbol,
    Dso,
    Thread,
    Process,
    Pass,
}

/// `report --attribution`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AttributionArg {
    Leaf,
    Caller,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// What to do, resolved from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    /// What to read; `None` for commands that read no recording.
    pub load: Option<LoadOptions>,
    pub filter: SampleFilter,
    pub action: Action,
    pub output: Output,
    pub quiet: bool,
    /// The `--rules` file, if any.
    pub rules_file: Option<PathBuf>,
}

/// The command, with its own settings.
#[derive(Clone, Debug)]
pub enum Action {
    Collapse,
    Top {
        limit: usize,
        json: bool,
    },
    Report {
        format: Option<TextFormat>,
        grouping: Grouping,
        attribution: Attribution,
        color: ColorChoice,
        flamegraph: Option<PathBuf>,
    },
    Flamegraph {
        category: Option<String>,
        pass: Option<String>,
        inverted: bool,
        min_width: f64,
        folded_out: Option<PathBuf>,
    },
    Rules {
        format: TextFormat,
    },
    Timeline {
        json: bool,
        buckets: usize,
    },
    Record(RecordOptions),
    Measure {
        command: Vec<OsString>,
        into: PathBuf,
    },
}

impl Cli {
    /// Resolves the parsed arguments into a [`Config`].
    pub fn into_config(self) -> Config {
        let (input, action, output, rules_file) = match self.command {
            Command::Collapse(args) => (Some(args.input), Action::Collapse, args.output, None),
            Command::Top(args) => (
                Some(args.input),
                Action::Top {
                    limit: args.limit,
                    json: args.format == TopFormat::Json,
                },
                args.output,
                None,
            ),
            Command::Report(args) => (
                Some(args.input),
                Action::Report {
                    format: match args.format {
                        ReportFormat::Table => Some(TextFormat::Table),
                        ReportFormat::Markdown => Some(TextFormat::Markdown),
                        ReportFormat::Csv => Some(TextFormat::Csv),
                        ReportFormat::Json => None,
                    },
                    grouping: match args.by {
                        By::Category => Grouping::Category,
                        By::Symbol => Grouping::Symbol,
                        By::Dso => Grouping::Dso,
                        By::Thread => Grouping::Thread,
                        By::Process => Grouping::Process,
                        By::Pass => Grouping::Pass,
                    },
                    attribution: match args.attribution {
                        AttributionArg::Leaf => Attribution::Leaf,
                        AttributionArg::Caller => Attribution::Caller,
                    },
                    color: args.color,
                    flamegraph: args.flamegraph,
                },
                args.output,
                args.rules.file,
            ),
            Command::Flamegraph(args) => (
                Some(args.input),
                Action::Flamegraph {
                    category: args.category,
                    pass: args.pass,
                    inverted: args.inverted,
                    min_width: args.min_width,
                    folded_out: args.folded_out,
                },
                Some(args.output),
                args.rules.file,
            ),
            Command::Record(args) => (
                None,
                Action::Record(RecordOptions {
                    command: args.command,
                    output_dir: args.output.unwrap_or_else(default_run_dir),
                    force: args.force,
                    frequency: args.frequency,
                    call_graph: match args.call_graph {
                        CallGraphArg::Dwarf => CallGraph::Dwarf,
                        CallGraphArg::Fp => CallGraph::Fp,
                    },
                    stack_size: args.stack_size,
                    event: args.event,
                    perf_args: args.perf_args,
                    memory: args.memory,
                }),
                None,
                args.rules.file,
            ),
            Command::Measure(args) => (
                None,
                Action::Measure {
                    command: args.command,
                    into: args.into,
                },
                None,
                None,
            ),
            Command::Timeline(args) => (
                Some(args.input),
                Action::Timeline {
                    json: args.format == TimelineFormat::Json,
                    buckets: args.buckets,
                },
                Some(args.output),
                args.rules.file,
            ),
            Command::Rules(args) => (
                None,
                Action::Rules {
                    format: match args.format {
                        RulesFormat::Table => TextFormat::Table,
                        RulesFormat::Markdown => TextFormat::Markdown,
                    },
                },
                None,
                args.rules.file,
            ),
        };
        let quiet = input.as_ref().is_some_and(|input| input.quiet);
        let filter = input
            .as_ref()
            .map_or_else(SampleFilter::default, |input| SampleFilter {
                pids: input.pid.clone(),
                names: input.process.clone(),
                compiler_only: input.compiler,
            });
        let load = input.map(|input| LoadOptions {
            input: Input::from_arg(&input.input),
            event: input.event,
            symfs: input.symfs,
            debug_roots: if input.debug_dirs.is_empty() {
                vec![PathBuf::from(DEFAULT_DEBUG_ROOT)]
            } else {
                input.debug_dirs
            },
            salvage: input.salvage,
        });
        Config {
            load,
            filter,
            action,
            output: Output::from_arg(output),
            quiet,
            rules_file,
        }
    }
}

/// `compile-perf-runs/<UTC timestamp>`, a new directory for each run.
fn default_run_dir() -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(':', "-")
        .trim_end_matches('Z')
        .to_owned();
    PathBuf::from("compile-perf-runs").join(stamp)
}
