//! Command-line parsing (clap) and its resolution into a [`Config`].
//!
//! The clap structs only parse. [`Cli::into_config`] fills in defaults and
//! turns paths and names into the typed options the pipeline takes; it does
//! no I/O.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::perfdata::Input;
use crate::profile::{DEFAULT_DEBUG_ROOT, LoadOptions};

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
    /// Write folded stacks (`root;…;leaf count`) for inferno or FlameGraph.
    Collapse(CollapseArgs),
    /// List the functions with the most samples, self and inclusive.
    Top(TopArgs),
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
    /// Do not print the summary on stderr (warnings still print).
    #[arg(long, short)]
    pub quiet: bool,
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

/// Formats of `top`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TopFormat {
    Table,
    Json,
}

/// Where output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Stdout,
    File(PathBuf),
}

/// What to do, resolved from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    pub load: LoadOptions,
    pub action: Action,
    pub output: Output,
    pub quiet: bool,
}

/// The command, with its own settings.
#[derive(Clone, Copy, Debug)]
pub enum Action {
    Collapse,
    Top { limit: usize, format: TopFormat },
}

impl Cli {
    /// Resolves the parsed arguments into a [`Config`].
    pub fn into_config(self) -> Config {
        let (input, action, output) = match self.command {
            Command::Collapse(args) => (args.input, Action::Collapse, args.output),
            Command::Top(args) => (
                args.input,
                Action::Top {
                    limit: args.limit,
                    format: args.format,
                },
                args.output,
            ),
        };
        let debug_roots = if input.debug_dirs.is_empty() {
            vec![PathBuf::from(DEFAULT_DEBUG_ROOT)]
        } else {
            input.debug_dirs
        };
        Config {
            load: LoadOptions {
                input: Input::from_arg(&input.input),
                event: input.event,
                symfs: input.symfs,
                debug_roots,
            },
            action,
            output: match output {
                Some(path) if path.as_os_str() != "-" => Output::File(path),
                _ => Output::Stdout,
            },
            quiet: input.quiet,
        }
    }
}
