//! What `history add` and `record --history` share, so that a run is added
//! to the store one way: the store's flags and the runs' tags (`StoreArgs`,
//! `TagArgs`), the series a run's keys make, a run directory read into what
//! the store keeps (`facts.rs`), and [`add`]. Only the commands `history`
//! and `record` use it; it knows no statistic (that is `history`'s judge).

pub(crate) mod facts;

use std::collections::BTreeMap;
use std::path::Path;

use clap::Args;

use super::args::heading;
use crate::error::Error;
use crate::history::{HistoryStore, Location, StoredRun};
use category_rules::RuleTable;
use facts::{RunInputs, Tags, read_run, run_dirs, stored_run};

/// Where the store is, and which runs are one series.
#[derive(Debug, Args)]
pub(crate) struct StoreArgs {
    /// The store: an SQLite file, or postgres://[USER@]HOST[:PORT]/DB (the
    /// password from PGPASSWORD or ~/.pgpass, never in the URL). Default:
    /// $COMPILE_PERF_DB, else $XDG_DATA_HOME/compile-perf/history.db.
    #[arg(long, value_name = "PATH|URL", help_heading = heading::STORE)]
    pub(crate) db: Option<String>,
    /// What the runs are of, as K=V (repeatable): runs with the same keys are
    /// one series, compared with each other.
    #[arg(long = "key", value_name = "K=V", value_parser = parse_pair,
          help_heading = heading::STORE)]
    pub(crate) keys: Vec<(String, String)>,
}

/// What is kept with a run besides its facts.
#[derive(Debug, Args)]
pub(crate) struct TagArgs {
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
}

impl TagArgs {
    /// The tags of runs of the series `keys` make.
    pub(crate) fn tags(self, keys: &[(String, String)]) -> Tags {
        Tags {
            series: series_of(keys),
            commit: self.commit,
            branch: self.branch,
            machine: self.machine,
            labels: self.labels.into_iter().collect(),
        }
    }
}

pub(crate) fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() && !key.contains(',') && !value.contains(',') => {
            Ok((key.to_owned(), value.to_owned()))
        }
        _ => Err(format!("{text:?} is not K=V (a key before `=`, no commas)")),
    }
}

/// The series name of `keys`: `k=v` sorted, joined with `,`.
pub(crate) fn series_of(keys: &[(String, String)]) -> String {
    let sorted: BTreeMap<&str, &str> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    sorted
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The store `--db` names (else `COMPILE_PERF_DB`, else the default file), open.
pub(crate) fn open(db: Option<&str>) -> Result<HistoryStore, Error> {
    Ok(HistoryStore::open(&Location::resolve(db)?)?)
}

/// Adds the run in `dir` (each run of a `record --repeat` set) to `store`,
/// tagged with `tags`, and says so on stderr.
pub(crate) fn add(
    store: &mut HistoryStore,
    dir: &Path,
    tags: &Tags,
    rules: &RuleTable,
) -> Result<(), Error> {
    for dir in run_dirs(dir) {
        let run = read_run(&dir, tags, rules)?;
        keep_run(store, &dir, &run)?;
    }
    Ok(())
}

/// Adds `run`, read from `dir`, to `store`, and says so on stderr.
fn keep_run(store: &mut HistoryStore, dir: &Path, run: &StoredRun) -> Result<(), Error> {
    let added = store.add(run)?;
    eprintln!(
        "compile-perf: history: {} {} ({})",
        if added { "added" } else { "already has" },
        dir.display(),
        &run.identity[..12]
    );
    Ok(())
}

/// `record --history`: where each run of the recording goes, with what.
#[derive(Debug)]
pub(crate) struct Keep {
    pub(crate) db: Option<String>,
    pub(crate) tags: Tags,
}

/// Adding the runs of one `record` as they finish: the store opened at the
/// first, and the first failure's exit code kept for the end.
pub(crate) struct Keeper<'a> {
    keep: Option<&'a Keep>,
    store: Option<HistoryStore>,
    failed: Option<u8>,
}

impl<'a> Keeper<'a> {
    pub(crate) fn new(keep: Option<&'a Keep>) -> Keeper<'a> {
        Keeper {
            keep,
            store: None,
            failed: None,
        }
    }

    /// Adds the finished run of `inputs`, unless its compile failed (which
    /// the store refuses). A failure is reported here, and the run
    /// directory stays as it is: it can be added later with `history add`.
    pub(crate) fn add(&mut self, inputs: RunInputs<'_>, compile_failed: bool, rules: &RuleTable) {
        let Some(keep) = self.keep else { return };
        let dir = inputs.dir;
        if compile_failed {
            eprintln!(
                "compile-perf: history: {} not added: the compile failed",
                dir.display()
            );
            return;
        }
        let store = match &mut self.store {
            Some(store) => Ok(store),
            None => open(keep.db.as_deref()).map(|store| self.store.insert(store)),
        };
        let added = store.and_then(|store| {
            let run = stored_run(inputs, &keep.tags, rules)?;
            keep_run(store, dir, &run)
        });
        if let Err(error) = added {
            eprintln!("compile-perf: error: {error}");
            eprintln!(
                "compile-perf: history: the run is kept in {}; add it later with `compile-perf history add {}` and the same --key",
                dir.display(),
                dir.display()
            );
            self.failed.get_or_insert(error.exit_code());
        }
    }

    /// The exit code of the recording, `code`, unless a run could not be
    /// added: then the history error's (50–52), when the compile itself
    /// did not fail.
    pub(crate) fn exit_code(&self, code: u8, compile_failed: bool) -> u8 {
        match self.failed {
            Some(failed) if !compile_failed => failed,
            _ => code,
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
