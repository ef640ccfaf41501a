//! The arguments of the commands that read recordings, as clap parses them,
//! and the headings options are grouped under. Defaults shown in
//! `--help` come from [`crate::defaults`] and the `#[default]` variants of
//! the library's enums.

use std::path::PathBuf;

use clap::Args;

use crate::attribute::{Attribution, Grouping};
use crate::commands::export::ExportFormat;
use crate::commands::push::PushFormat;
use crate::commands::report::ReportPageFormat;
use crate::commands::rules::RulesFormat;
use crate::commands::timeline::TimelineFormat;
use crate::commands::top::TopFormat;
use crate::commands::{ColorChoice, ReportFormat};
use crate::defaults;
use crate::render::flamegraph::MaxDepth;

/// The headings `--help` groups options under, after the command's own
/// options (clap's "Options"). A shared struct (`ReadingArgs`,
/// `RulesFileArg`) names its headings once for every command that flattens
/// it; the headings follow in the order their first option is declared.
pub(super) mod heading {
    /// Where the results go and how much is said on stderr.
    pub(in crate::cli) const OUTPUT: &str = "Output";
    /// Which samples count, and what a sample weighs.
    pub(in crate::cli) const SAMPLES: &str = "Samples";
    /// How a recording is read: binaries, debug files, caches, damage.
    pub(in crate::cli) const READING: &str = "Reading";
    /// The rule table that sorts functions into categories.
    pub(in crate::cli) const CATEGORIES: &str = "Categories";
    /// What `record` records besides CPU time, and how often.
    pub(in crate::cli) const RECORDING: &str = "Recording";
    /// How perf samples: rate, stacks, event, streams, its own arguments.
    pub(in crate::cli) const PERF: &str = "perf";
    /// `diff`'s verdict: what is flagged, and when the exit code is 30.
    pub(in crate::cli) const GATE: &str = "CI gate";
}

#[derive(Debug, Args)]
pub(super) struct DiffArgs {
    /// The base: a perf.data, a run directory of `record`, or a directory of
    /// several runs (every perf.data below it).
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The new side, as BASE.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    #[command(flatten)]
    pub reading: ReadingArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    pub format: ReportFormat,
    /// What the rows are.
    #[arg(long, value_enum, default_value_t)]
    pub by: Grouping,
    /// How a sample's self category is chosen, as for `report`.
    #[arg(long, value_enum, default_value_t)]
    pub attribution: Attribution,
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// Colour the changes in the table: auto (on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    pub color: ColorChoice,
    /// The smallest change, in percentage points of the samples, that is flagged.
    #[arg(long, value_name = "PP", default_value_t = defaults::DIFF_THRESHOLD_PP,
          value_parser = parse_points,
          help_heading = heading::GATE)]
    pub threshold: f64,
    /// Exit 30 when a row's share grew beyond the noise by more than the threshold.
    #[arg(long, help_heading = heading::GATE)]
    pub fail_on_regression: bool,
    /// Exit 30 when this row (a category id or name with --by category) grew beyond
    /// the noise by more than PP percentage points; `size`, `rss`, `anon` (anonymous
    /// memory) and `wall` limit the runs' facts instead, in percent. Repeatable.
    #[arg(long, value_name = "KEY=PP", value_parser = parse_limit, help_heading = heading::GATE)]
    pub max_increase: Vec<(String, f64)>,
    /// Let the gate compare runs of different inputs (SHA-256) or compiler flags;
    /// without it the gate refuses them (exit 33). They are warned of either way.
    #[arg(long, help_heading = heading::GATE)]
    pub allow_different_inputs: bool,
    /// Also draw NEW's stacks coloured by the change to OUT.svg (and BASE's
    /// to OUT-base.svg).
    #[arg(long, value_name = "OUT.svg", help_heading = heading::OUTPUT)]
    pub flamegraph: Option<PathBuf>,
    /// Keep threads apart in the differential flamegraphs, and every frame:
    /// by default a stack starts at its process and leaves out the thread-pool
    /// and pass-manager frames, so that work that moved between threads
    /// compares as the same frame.
    #[arg(long, requires = "flamegraph", help_heading = heading::OUTPUT)]
    pub by_thread: bool,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
}

/// Options shared by every command that reads a recording.
#[derive(Debug, Args)]
pub(super) struct InputArgs {
    /// The recording: a perf.data file, a pipe-mode stream, or `-` for stdin.
    #[arg(default_value = defaults::INPUT)]
    pub input: PathBuf,
    #[command(flatten)]
    pub reading: ReadingArgs,
}

/// How recordings are read and which processes count: for every command
/// that reads one (`diff` reads several).
#[derive(Debug, Args)]
pub(super) struct ReadingArgs {
    /// Count this event (as `perf evlist` names it). Default is the first sampling event.
    #[arg(long, value_name = "NAME", help_heading = heading::SAMPLES)]
    pub event: Option<String>,
    /// Count the bytes asked for at the allocator probes of `record --alloc`
    /// instead of samples.
    #[arg(long, conflicts_with = "event", help_heading = heading::SAMPLES)]
    pub alloc: bool,
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
    /// Keep only samples of the native compiler process (not its Python launcher).
    #[arg(long, help_heading = heading::SAMPLES)]
    pub compiler: bool,
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
    /// Read at most N streams of a `perf record --threads` directory at once
    /// (each with a decompression thread of its own). The output is the same
    /// for every N. Default is the number of cores.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..),
          help_heading = heading::READING)]
    pub read_threads: Option<u16>,
}

#[derive(Debug, Args)]
pub(super) struct CollapseArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct ExportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The format to write.
    #[arg(long, value_enum, help_heading = heading::OUTPUT)]
    pub format: ExportFormat,
    /// The file to write (`-` is stdout).
    #[arg(long, short, value_name = "OUT", help_heading = heading::OUTPUT)]
    pub output: PathBuf,
    #[command(flatten)]
    pub rules: RulesFileArg,
}

#[derive(Debug, Args)]
pub(super) struct PushArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The Pyroscope server, e.g. http://localhost:4040 (`/ingest` is added).
    /// Basic auth comes from PYROSCOPE_BASIC_AUTH_USER and PYROSCOPE_BASIC_AUTH_PASSWORD.
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// The application name the profile is stored under.
    #[arg(long, value_name = "NAME", value_parser = parse_app)]
    pub app: String,
    /// A label of the profile, besides those run.json gives (compiler_version,
    /// input, host), which it overrides. Repeatable.
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_label)]
    pub label: Vec<(String, String)>,
    /// What to send.
    #[arg(long, value_enum, default_value_t)]
    pub format: PushFormat,
    #[command(flatten)]
    pub rules: RulesFileArg,
}

#[derive(Debug, Args)]
pub(super) struct TopArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Show this many functions.
    #[arg(long, short = 'n', default_value_t = defaults::TOP_LIMIT)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    pub format: TopFormat,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct ReportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format (html: one self-contained page with the tables, flamegraphs and timeline).
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    pub format: ReportPageFormat,
    /// What the rows are.
    #[arg(long, value_enum, default_value_t)]
    pub by: Grouping,
    /// How a sample's self category is chosen: its leaf function's, or the
    /// nearest compiler caller's when the leaf is generic library code.
    /// Default is leaf, and caller with --alloc.
    #[arg(
        long,
        value_enum,
        default_value_t,
        default_value_if("alloc", "true", "caller")
    )]
    pub attribution: Attribution,
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// Colour swatches in the table: auto (on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    pub color: ColorChoice,
    /// Also draw the category flamegraph to OUT.svg, from the same reading of the recording.
    #[arg(long, value_name = "OUT.svg", help_heading = heading::OUTPUT)]
    pub flamegraph: Option<PathBuf>,
    /// How deep the flamegraphs of --flamegraph and --format html draw: as
    /// `flamegraph --max-depth` (auto, all or a number of frames).
    #[arg(long, value_name = "DEPTH", default_value = "auto", help_heading = heading::OUTPUT)]
    pub max_depth: MaxDepth,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct FlamegraphArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The SVG to write (`-` is stdout).
    #[arg(long, short, value_name = "OUT.svg", help_heading = heading::OUTPUT)]
    pub output: PathBuf,
    /// Keep only stacks with a frame of this category: an id or a name, in any
    /// case (`compile-perf rules` lists them). Built-in ids: lexer, parser,
    /// apfloat, bufferization, folding, rewrite, conversion, canonicalize,
    /// verifier, uniquing, hashing, analysis, affine, printing, pass-manager,
    /// ir, adt, llvm-codegen, llvm-opt, serialization, linker, runtime,
    /// malloc, memops, kernel, python, threading, startup, other.
    #[arg(long, value_name = "ID")]
    pub category: Option<String>,
    /// Draw one MLIR pass (a name from `report --by pass`): its stacks, rooted at the pass.
    #[arg(long, value_name = "NAME")]
    pub pass: Option<String>,
    /// Draw an icicle: each category on top as one bar, its hot functions
    /// below it, and their callers below them.
    #[arg(long)]
    pub inverted: bool,
    /// Draw only MLIR pass frames (nested as they run) and the places
    /// outside passes, each pass coloured by its main category, with its
    /// self samples' categories in the tooltip; the pass manager's own
    /// frames and every other function are left out.
    #[arg(long, conflicts_with_all = ["category", "pass", "inverted"])]
    pub passes_only: bool,
    /// Leave out frames narrower than this percentage of the picture's width
    /// (inferno's test: 0.1 leaves out frames under 1/1000 of the samples).
    #[arg(long, value_name = "PERCENT", default_value_t = defaults::MIN_WIDTH_PERCENT)]
    pub min_width: f64,
    /// Cut stacks deeper than DEPTH frames, with one frame `[N deeper frames]` on top for
    /// the rest (samples are all counted). auto: three times the samples' median depth,
    /// at least 64; all: no cut.
    #[arg(long, value_name = "DEPTH", default_value = "auto")]
    pub max_depth: MaxDepth,
    /// Also write the folded stacks drawn to FILE.
    #[arg(long, value_name = "FILE", help_heading = heading::OUTPUT)]
    pub folded_out: Option<PathBuf>,
    #[command(flatten)]
    pub rules: RulesFileArg,
}

#[derive(Debug, Args)]
pub(super) struct TimelineArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Where to write (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    pub output: PathBuf,
    /// svg: the picture; json: the buckets.
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    pub format: TimelineFormat,
    /// How many time buckets.
    #[arg(long, value_name = "N", default_value_t = defaults::TIMELINE_SLICES)]
    pub buckets: usize,
    #[command(flatten)]
    pub rules: RulesFileArg,
}

#[derive(Debug, Args)]
pub(super) struct RulesArgs {
    #[command(flatten)]
    pub rules: RulesFileArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    pub format: RulesFormat,
}

/// `--rules`, shared by the commands that categorize.
#[derive(Debug, Args)]
pub(super) struct RulesFileArg {
    /// Extend the built-in categories with a TOML file of the same format:
    /// add categories, rename or recolour them, put rules in front.
    #[arg(long = "rules", value_name = "FILE.toml", help_heading = heading::CATEGORIES)]
    pub file: Option<PathBuf>,
}

/// Percentage points: a number from 0 to 100.
fn parse_points(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(points) if (0.0..=100.0).contains(&points) => Ok(points),
        _ => Err(format!(
            "{text:?} is not a number of percentage points from 0 to 100"
        )),
    }
}

/// An application name: not empty, without the `{`, `}` and `,` of the
/// name syntax.
fn parse_app(text: &str) -> Result<String, String> {
    if text.is_empty() || text.contains(['{', '}', ',', '=']) || text.contains(char::is_whitespace)
    {
        return Err(format!(
            "{text:?} is not an application name (not empty, no spaces, braces, commas or `=`)"
        ));
    }
    Ok(text.to_owned())
}

/// `KEY=VALUE` of `--label`: a key of letters, digits and `_`, not starting
/// with a digit.
fn parse_label(text: &str) -> Result<(String, String), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not KEY=VALUE"))?;
    let key_ok = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !key_ok {
        return Err(format!(
            "{key:?} is not a label name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    Ok((key.to_owned(), value.to_owned()))
}

/// `KEY=PP` of `--max-increase`.
fn parse_limit(text: &str) -> Result<(String, f64), String> {
    let (key, limit) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("{text:?} is not KEY=PP"))?;
    if key.is_empty() {
        return Err(format!("{text:?} names no row before `=`"));
    }
    Ok((key.to_owned(), parse_points(limit)?))
}
