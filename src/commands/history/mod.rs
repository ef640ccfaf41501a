//! `compile-perf history add|show|check`: runs kept in a store (SQLite by
//! default, PostgreSQL for a team; `crate::history`), their trends, and a
//! gate against them. `facts.rs` reads a run directory into what is kept,
//! `judge.rs` judges a run against its history, `show.rs` and `check.rs`
//! write what they find.

mod check;
mod facts;
mod judge;
mod show;

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::args::{RulesFileArg, heading, parse_points};
use super::format::{Format, Formats};
use super::{Config, Run, load_rules};
use crate::defaults;
use crate::error::Error;
use crate::history::{Location, Store};
use facts::{Tags, read_run, run_dirs};

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  Keep the runs of `record --repeat` under a key, with the commit they are of:
    compile-perf history add runs/main --key model=resnet --commit $(git rev-parse HEAD)
  A CI gate against the last 30 runs of that key: exit 30 when a metric moved beyond noise:
    compile-perf history check runs/pr --key model=resnet";

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
}

/// Where the store is, and which runs are one series.
#[derive(Debug, Args)]
struct StoreArgs {
    /// The store: an SQLite file, or postgres://[USER@]HOST[:PORT]/DB (the
    /// password from PGPASSWORD or ~/.pgpass, never in the URL). Default:
    /// $COMPILE_PERF_DB, else $XDG_DATA_HOME/compile-perf/history.db.
    #[arg(long, value_name = "PATH|URL", help_heading = heading::STORE)]
    db: Option<String>,
    /// What the runs are of, as K=V (repeatable): runs with the same keys are
    /// one series, compared with each other.
    #[arg(long = "key", value_name = "K=V", value_parser = parse_pair,
          help_heading = heading::STORE)]
    keys: Vec<(String, String)>,
}

#[derive(Debug, Args)]
struct AddArgs {
    /// Run directories of `record` or `record --repeat`.
    #[arg(value_name = "RUN_DIR", required = true)]
    run_dirs: Vec<PathBuf>,
    #[command(flatten)]
    store: StoreArgs,
    /// The commit of the compiler (or of the model) the runs are of.
    #[arg(long, value_name = "SHA", help_heading = heading::STORE)]
    commit: Option<String>,
    /// The branch the runs are of.
    #[arg(long, value_name = "B", help_heading = heading::STORE)]
    branch: Option<String>,
    /// The machine the runs were on. Default: the run's host name.
    #[arg(long, value_name = "M", help_heading = heading::STORE)]
    machine: Option<String>,
    /// A free-form K=V label kept with the runs (repeatable).
    #[arg(long = "label", value_name = "K=V", value_parser = parse_pair,
          help_heading = heading::STORE)]
    labels: Vec<(String, String)>,
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
    /// Output format.
    #[arg(long, default_value = "table", help_heading = heading::OUTPUT,
          value_parser = Formats(&[Format::Table, Format::Json]))]
    format: Format,
    #[command(flatten)]
    rules: RulesFileArg,
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() && !key.contains(',') && !value.contains(',') => {
            Ok((key.to_owned(), value.to_owned()))
        }
        _ => Err(format!("{text:?} is not K=V (a key before `=`, no commas)")),
    }
}

/// The series name of `keys`: `k=v` sorted, joined with `,`.
fn series_of(keys: &[(String, String)]) -> String {
    let sorted: BTreeMap<&str, &str> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    sorted
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(",")
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
        threshold_pp: f64,
        format: Format,
    },
}

impl HistoryArgs {
    pub(crate) fn into_config(self) -> Config {
        match self.action {
            HistoryAction::Add(args) => {
                let tags = Tags {
                    series: series_of(&args.store.keys),
                    commit: args.commit,
                    branch: args.branch,
                    machine: args.machine,
                    labels: args.labels.into_iter().collect(),
                };
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
                    threshold_pp: args.threshold,
                    format: args.format,
                };
                Config::new(check, None, false, args.rules.file)
            }
        }
    }
}

fn open(db: Option<&str>) -> Result<Store, Error> {
    Ok(Store::open(&Location::resolve(db)?)?)
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
                for dir in dirs.iter().flat_map(|dir| run_dirs(dir)) {
                    let run = read_run(&dir, tags, &rules)?;
                    let added = store.add(&run)?;
                    eprintln!(
                        "compile-perf: history: {} {} ({})",
                        if added { "added" } else { "already has" },
                        dir.display(),
                        &run.identity[..12]
                    );
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
                threshold_pp,
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
                check::check(config, &history, &runs, *last, *threshold_pp, *format)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_make_one_series_name_whatever_their_order() {
        let keys = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert_eq!(
            series_of(&keys(&[("target", "cpu"), ("model", "resnet")])),
            "model=resnet,target=cpu"
        );
        assert_eq!(series_of(&[]), "");
        assert!(parse_pair("model").is_err());
        assert!(parse_pair("=x").is_err());
        assert_eq!(
            parse_pair("a=b=c").unwrap(),
            ("a".to_owned(), "b=c".to_owned())
        );
    }
}
