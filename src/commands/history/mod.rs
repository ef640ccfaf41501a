//! `compile-perf history add|show|check|html`: runs kept in a store (SQLite
//! by default, PostgreSQL for a team; `crate::history`), their trends, a
//! gate against them, and a dashboard page of the trends. `commands/keep`
//! reads a run directory into what is kept and adds it (shared with
//! `record --history`), `judge.rs` judges a run against its history,
//! `show.rs` and `check.rs` write what they find, and `html.rs` hands the
//! judged runs to the page of `render::history`.

mod check;
mod html;
mod judge;
mod show;

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Args, Subcommand};

use super::args::{RulesFileArg, heading, parse_points};
use super::format::{Format, Formats, TableOrJson};
use super::keep::facts::{Tags, read_run, run_dirs};
use super::keep::{StoreArgs, TagArgs, add, open, series_of};
use super::{Config, Run, load_rules};
use crate::defaults;
use crate::error::Error;
use judge::Rules;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  Keep the runs of `record --repeat` under a key, with the commit they are of:
    compile-perf history add runs/main --key model=resnet --commit $(git rev-parse HEAD)
  A CI gate against the last 30 runs of that key: exit 30 when a metric moved beyond noise:
    compile-perf history check runs/pr --key model=resnet
  A dashboard page of every key's trends, flagged runs marked:
    compile-perf history html -o dashboard.html";

#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    #[command(subcommand)]
    action: HistoryAction,
}

#[derive(Debug, Subcommand)]
enum HistoryAction {
    /// Store runs: a run directory of `record`, or each run of `record --repeat`.
    Add(AddArgs),
    /// The trend of each metric: value, change against the previous run and
    /// the median of the last N, flagged or not.
    Show(ShowArgs),
    /// Judge a run against the last N runs of its key; exit 30 when a metric
    /// moved beyond noise.
    Check(CheckArgs),
    /// A self-contained HTML page: a chart of each metric of each key over
    /// its last N runs, flagged runs marked; a click on a run shows its facts.
    Html(HtmlArgs),
}

#[derive(Debug, Args)]
struct AddArgs {
    /// Run directories of `record` or `record --repeat`.
    #[arg(value_name = "RUN_DIR", required = true)]
    run_dirs: Vec<PathBuf>,
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    tags: TagArgs,
    #[command(flatten)]
    rules: RulesFileArg,
}

#[derive(Debug, Args)]
struct ShowArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Show the last N runs of each key, each judged against the N before it.
    #[arg(long, value_name = "N", default_value_t = defaults::HISTORY_LAST)]
    last: usize,
    /// Output format.
    #[arg(long, default_value = "table", help_heading = heading::OUTPUT,
          value_parser = Formats(&[Format::Table, Format::Markdown, Format::Csv, Format::Json]))]
    format: Format,
    /// Every share in the table, not only the categories and the flagged passes.
    #[arg(long, help_heading = heading::OUTPUT)]
    all: bool,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    output: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// The run directory to judge (a run of `record`, or each run of `record --repeat`).
    #[arg(value_name = "RUN_DIR")]
    run_dir: PathBuf,
    #[command(flatten)]
    store: StoreArgs,
    /// Judge against the last N runs of the key.
    #[arg(long, value_name = "N", default_value_t = defaults::HISTORY_LAST)]
    last: usize,
    /// The smallest change of a share, in percentage points, that is flagged.
    #[arg(long, value_name = "PP", default_value_t = defaults::HISTORY_THRESHOLD_PP,
          value_parser = parse_points, help_heading = heading::GATE)]
    threshold: f64,
    /// Flag a wall time beyond its fence even when the CPU time stayed
    /// within its own (without it, that is reported as a busy machine).
    #[arg(long, help_heading = heading::GATE)]
    flag_wall_alone: bool,
    /// Flag the kernel's share beyond noise even when the page faults stayed
    /// within their fence (without it, that is reported as the machine being
    /// slower at the same faults).
    #[arg(long, help_heading = heading::GATE)]
    flag_kernel_alone: bool,
    /// Flag the CPU time (and the wall time with it) and the threading share
    /// even when they moved while other processes kept the machine busier or
    /// quieter than in every run of the history (without it, that is
    /// reported as the machine's load).
    #[arg(long, help_heading = heading::GATE)]
    flag_with_load: bool,
    /// Output format.
    #[arg(long, default_value = "table", help_heading = heading::OUTPUT,
          value_parser = Formats(&[Format::Table, Format::Json]).try_map(TableOrJson::of))]
    format: TableOrJson,
    #[command(flatten)]
    rules: RulesFileArg,
}

#[derive(Debug, Args)]
struct HtmlArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Chart the last N runs of each key, each judged against the N before it.
    #[arg(long, value_name = "N", default_value_t = defaults::HISTORY_LAST)]
    last: usize,
    /// The page to write (`-` is stdout).
    #[arg(long, short, value_name = "FILE", required = true, help_heading = heading::OUTPUT)]
    output: PathBuf,
}

/// What `history` was asked to do, resolved.
#[derive(Debug)]
enum History {
    Add {
        run_dirs: Vec<PathBuf>,
        db: Option<String>,
        tags: Tags,
    },
    Show {
        db: Option<String>,
        series: Option<String>,
        last: usize,
        format: Format,
        all: bool,
    },
    Check {
        run_dir: PathBuf,
        db: Option<String>,
        series: String,
        last: usize,
        judging: Rules,
        format: TableOrJson,
    },
    Html {
        db: Option<String>,
        series: Option<String>,
        last: usize,
    },
}

impl HistoryArgs {
    pub(crate) fn into_config(self) -> Config {
        match self.action {
            HistoryAction::Add(args) => {
                let tags = args.tags.tags(&args.store.keys);
                let add = History::Add {
                    run_dirs: args.run_dirs,
                    db: args.store.db,
                    tags,
                };
                Config::new(add, None, false, args.rules.file)
            }
            HistoryAction::Show(args) => {
                let show = History::Show {
                    series: (!args.store.keys.is_empty()).then(|| series_of(&args.store.keys)),
                    db: args.store.db,
                    last: args.last.max(1),
                    format: args.format,
                    all: args.all,
                };
                Config::new(show, args.output, false, None)
            }
            HistoryAction::Check(args) => {
                let check = History::Check {
                    run_dir: args.run_dir,
                    series: series_of(&args.store.keys),
                    db: args.store.db,
                    last: args.last.max(1),
                    judging: Rules {
                        threshold_pp: args.threshold,
                        flag_wall_alone: args.flag_wall_alone,
                        flag_kernel_alone: args.flag_kernel_alone,
                        flag_with_load: args.flag_with_load,
                    },
                    format: args.format,
                };
                Config::new(check, None, false, args.rules.file)
            }
            HistoryAction::Html(args) => {
                let html = History::Html {
                    series: (!args.store.keys.is_empty()).then(|| series_of(&args.store.keys)),
                    db: args.store.db,
                    last: args.last.max(1),
                };
                Config::new(html, Some(args.output), false, None)
            }
        }
    }
}

impl Run for History {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        match self {
            History::Add {
                run_dirs: dirs,
                db,
                tags,
            } => {
                let rules = load_rules(config.rules_file.as_deref())?;
                let mut store = open(db.as_deref())?;
                for dir in dirs {
                    add(&mut store, dir, tags, &rules)?;
                }
                Ok(0)
            }
            History::Show {
                db,
                series,
                last,
                format,
                all,
            } => {
                let mut store = open(db.as_deref())?;
                let runs = store.runs(series.as_deref())?;
                show::show(config, &runs, *last, *format, *all)
            }
            History::Check {
                run_dir,
                db,
                series,
                last,
                judging,
                format,
            } => {
                let rules = load_rules(config.rules_file.as_deref())?;
                let mut store = open(db.as_deref())?;
                let history = store.runs(Some(series))?;
                let tags = Tags {
                    series: series.clone(),
                    ..Tags::default()
                };
                let runs = run_dirs(run_dir)
                    .iter()
                    .map(|dir| read_run(dir, &tags, &rules))
                    .collect::<Result<Vec<_>, Error>>()?;
                check::check(config, &history, &runs, *last, judging, *format)
            }
            History::Html { db, series, last } => {
                let mut store = open(db.as_deref())?;
                let runs = store.runs(series.as_deref())?;
                html::write(config, &mut store, &runs, *last)
            }
        }
    }
}
