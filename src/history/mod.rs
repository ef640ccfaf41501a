//! The history store: runs' facts kept between runs, in an SQLite file (the
//! default, `$XDG_DATA_HOME/compile-perf/history.db`) or on a PostgreSQL
//! server a team shares (`postgres://…`), with one schema and versioned
//! migrations (`schema.rs`). A run is stored whole in one transaction or
//! not at all; its identity is the SHA-256 of its `perf.data`, so adding it
//! again is a no-op. Plain types in and out: the commands fill [`StoredRun`]
//! and judge what [`HistoryStore::runs`] gives back; nothing here reads a run
//! directory or knows a statistic.

mod db;
pub(crate) mod metric;
mod postgres;
mod schema;
mod sqlite;

use std::collections::BTreeMap;
use std::path::PathBuf;

use db::{Column, Db, Value};

use crate::error::HistoryError;

/// The environment variable that names the store when `--db` does not.
pub(crate) const DB_ENV: &str = "COMPILE_PERF_DB";
/// Test hook: seconds `add` sleeps inside its transaction, half-way through
/// the metrics, after saying so on stderr (the kill -9 test).
const PAUSE_ENV: &str = "COMPILE_PERF_HISTORY_TEST_PAUSE";

/// Where the store is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// `--db`, else `COMPILE_PERF_DB`, else the default file.
    pub(crate) fn resolve(arg: Option<&str>) -> Result<Location, HistoryError> {
        let given = arg
            .map(str::to_owned)
            .or_else(|| std::env::var(DB_ENV).ok().filter(|db| !db.is_empty()));
        match given {
            Some(db) if db.starts_with("postgres://") || db.starts_with("postgresql://") => {
                Ok(Location::Postgres(db))
            }
            Some(db) => Ok(Location::Sqlite(PathBuf::from(db))),
            None => default_file().map(Location::Sqlite).ok_or(HistoryError::Store {
                store: "(default)".to_owned(),
                reason: "neither XDG_DATA_HOME nor HOME names an absolute directory; name the store with --db or COMPILE_PERF_DB".to_owned(),
            }),
        }
    }

    /// The file or the URL, for messages: a password in the URL (which is
    /// refused) is not repeated.
    pub(crate) fn name(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => without_password(url),
        }
    }
}

/// `url` with the password of its user information, if any, as `***`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((user_info, host)) if user_info.contains(':') => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}{}", &rest[authority_end..])
        }
        _ => url.to_owned(),
    }
}

/// `$XDG_DATA_HOME/compile-perf/history.db`, or under `~/.local/share`.
fn default_file() -> Option<PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    let data = absolute("XDG_DATA_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".local").join("share")))?;
    Some(data.join(crate::defaults::HISTORY_FILE))
}

/// One metric of a run: a measure (`value` alone) or a share (`samples` of
/// the run's `total`, `value` in percent).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Metric {
    pub name: String,
    pub value: f64,
    pub samples: Option<i64>,
    pub total: Option<i64>,
}

/// A run as the store keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct StoredRun {
    /// SHA-256 of the run's `perf.data`, lower-case hex.
    pub identity: String,
    /// The `--key`s, `k=v` sorted and joined with `,`: runs of one series
    /// are compared with each other.
    pub series: String,
    /// When the run began (RFC 3339): the order of a series.
    pub start_time: String,
    pub added_at: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub machine: Option<String>,
    /// `--label`s, as a JSON object.
    pub labels: BTreeMap<String, String>,
    /// The run directory, absolute, when it was added.
    pub path: Option<String>,
    pub compiler_version: Option<String>,
    /// The compile's command line.
    pub flags: Vec<String>,
    /// `run.json`'s host, as JSON.
    pub host: String,
    /// The run's `report.json`, kept as it was (not read back by `runs`:
    /// [`HistoryStore::report`] reads it).
    pub report: Option<String>,
    pub metrics: Vec<Metric>,
}

/// An open store, migrated to this build's schema.
pub(crate) struct HistoryStore {
    db: Box<dyn Db>,
    name: String,
}

impl HistoryStore {
    /// Opens the store at `location` (creating an SQLite file and its
    /// directory when missing) and brings its schema up to date; refuses a
    /// store of a newer schema.
    pub(crate) fn open(location: &Location) -> Result<HistoryStore, HistoryError> {
        let name = location.name();
        let failed = |reason: String| HistoryError::Store {
            store: name.clone(),
            reason,
        };
        let db: Box<dyn Db> = match location {
            Location::Sqlite(path) => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| failed(format!("cannot make {}: {e}", parent.display())))?;
                }
                Box::new(sqlite::Sqlite::open(path).map_err(failed)?)
            }
            Location::Postgres(url) => Box::new(postgres::Postgres::connect(url).map_err(failed)?),
        };
        let mut store = HistoryStore { db, name };
        store.migrate()?;
        Ok(store)
    }

    fn failed(&self, reason: String) -> HistoryError {
        HistoryError::Store {
            store: self.name.clone(),
            reason,
        }
    }

    /// The schema version the store is at (0 when new).
    fn version(&mut self) -> Result<i64, HistoryError> {
        let rows = self
            .db
            .query(schema::SELECT_VERSION, &[], &[Column::Int])
            .map_err(|e| self.failed(e))?;
        Ok(rows.first().and_then(|row| row[0].int()).unwrap_or(0))
    }

    fn migrate(&mut self) -> Result<(), HistoryError> {
        self.db
            .batch(schema::CREATE_VERSION_TABLE)
            .map_err(|e| self.failed(e))?;
        let found = self.version()?;
        let known = schema::known_version();
        if found > known {
            return Err(HistoryError::NewerSchema {
                store: self.name.clone(),
                found,
                known,
            });
        }
        for version in found + 1..=known {
            let sql = schema::MIGRATIONS[(version - 1) as usize];
            self.transaction(|db| {
                db.batch(sql)?;
                db.execute(schema::INSERT_VERSION, &[Value::Int(Some(version))])?;
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Runs `work` in a transaction: committed when it succeeds, rolled
    /// back when it fails (and by the database, when the process dies).
    fn transaction<T>(
        &mut self,
        work: impl FnOnce(&mut dyn Db) -> Result<T, String>,
    ) -> Result<T, HistoryError> {
        self.db.begin().map_err(|e| self.failed(e))?;
        match work(&mut *self.db) {
            Ok(value) => {
                self.db.batch("COMMIT").map_err(|e| self.failed(e))?;
                Ok(value)
            }
            Err(error) => {
                let _ = self.db.batch("ROLLBACK");
                Err(self.failed(error))
            }
        }
    }

    /// Adds `run` with its metrics in one transaction; false when a run of
    /// the same identity is already there (and nothing changes).
    pub(crate) fn add(&mut self, run: &StoredRun) -> Result<bool, HistoryError> {
        let params = [
            text(&run.identity),
            text(&run.series),
            text(&run.start_time),
            text(&run.added_at),
            Value::Text(run.commit.clone()),
            Value::Text(run.branch.clone()),
            Value::Text(run.machine.clone()),
            text(&to_json(&run.labels)),
            Value::Text(run.path.clone()),
            Value::Text(run.compiler_version.clone()),
            text(&to_json(&run.flags)),
            text(&run.host),
            Value::Text(run.report.clone()),
        ];
        self.transaction(|db| {
            if db.execute(schema::INSERT_RUN, &params)? == 0 {
                return Ok(false);
            }
            for (at, metric) in run.metrics.iter().enumerate() {
                if at == run.metrics.len() / 2 {
                    pause_for_test();
                }
                db.execute(
                    schema::INSERT_METRIC,
                    &[
                        text(&run.identity),
                        text(&metric.name),
                        Value::Real(metric.value),
                        Value::Int(metric.samples),
                        Value::Int(metric.total),
                    ],
                )?;
            }
            Ok(true)
        })
    }

    /// The runs of `series` (every series with `None`), oldest first within
    /// a series, with their metrics; without their reports.
    pub(crate) fn runs(&mut self, series: Option<&str>) -> Result<Vec<StoredRun>, HistoryError> {
        let params: Vec<Value> = series.map(text).into_iter().collect();
        let (t, i, r) = (Column::Text, Column::Int, Column::Real);
        let rows = self
            .db
            .query(
                &schema::select_runs(series.is_some()),
                &params,
                &[t, t, t, t, t, t, t, t, t, t, t, t],
            )
            .map_err(|e| self.failed(e))?;
        let metrics = self
            .db
            .query(
                &schema::select_metrics(series.is_some()),
                &params,
                &[t, t, r, i, i],
            )
            .map_err(|e| self.failed(e))?;
        let mut by_run: BTreeMap<String, Vec<Metric>> = BTreeMap::new();
        for row in metrics {
            let mut values = row.into_iter();
            let identity = values.next().and_then(Value::text).unwrap_or_default();
            let name = values.next().and_then(Value::text).unwrap_or_default();
            let rest: Vec<Value> = values.collect();
            by_run.entry(identity).or_default().push(Metric {
                name,
                value: rest[0].real(),
                samples: rest[1].int(),
                total: rest[2].int(),
            });
        }
        rows.into_iter()
            .map(|row| {
                let mut values = row.into_iter().map(Value::text);
                let mut next = || values.next().flatten();
                let identity = next().unwrap_or_default();
                let run = StoredRun {
                    metrics: by_run.remove(&identity).unwrap_or_default(),
                    identity,
                    series: next().unwrap_or_default(),
                    start_time: next().unwrap_or_default(),
                    added_at: next().unwrap_or_default(),
                    commit: next(),
                    branch: next(),
                    machine: next(),
                    labels: parse_json(next()),
                    path: next(),
                    compiler_version: next(),
                    flags: parse_json(next()),
                    host: next().unwrap_or_default(),
                    report: None,
                };
                Ok(run)
            })
            .collect()
    }

    /// The `report.json` kept with the run `identity`, when it had one.
    pub(crate) fn report(&mut self, identity: &str) -> Result<Option<String>, HistoryError> {
        let rows = self
            .db
            .query(schema::SELECT_REPORT, &[text(identity)], &[Column::Text])
            .map_err(|e| self.failed(e))?;
        Ok(rows
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next())
            .and_then(Value::text))
    }
}

fn text(value: &str) -> Value {
    Value::Text(Some(value.to_owned()))
}

/// A JSON column read back; a value this build cannot read is empty.
fn parse_json<T: serde::de::DeserializeOwned + Default>(text: Option<String>) -> T {
    text.and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The kill -9 test's hook ([`PAUSE_ENV`]).
fn pause_for_test() {
    let Some(seconds) = std::env::var(PAUSE_ENV)
        .ok()
        .and_then(|value| value.parse::<f64>().ok())
    else {
        return;
    };
    eprintln!("compile-perf: history: paused inside the transaction ({PAUSE_ENV})");
    std::thread::sleep(std::time::Duration::from_secs_f64(seconds));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_a_url_is_not_repeated_in_messages() {
        let location =
            Location::resolve(Some("postgres://ci:secret@db.example:5432/h?x=1")).unwrap();
        assert_eq!(location.name(), "postgres://ci:***@db.example:5432/h?x=1");
        let plain = Location::resolve(Some("postgresql://ci@%2Ftmp%2Fpg/postgres")).unwrap();
        assert_eq!(plain.name(), "postgresql://ci@%2Ftmp%2Fpg/postgres");
        assert_eq!(
            Location::resolve(Some("runs/h.db")).unwrap(),
            Location::Sqlite(PathBuf::from("runs/h.db"))
        );
    }

    #[test]
    fn a_run_is_stored_whole_once_and_read_back_in_order() {
        let dir = std::env::temp_dir().join(format!("cp-history-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let location = Location::Sqlite(dir.join("sub").join("h.db"));
        let run = |identity: &str, start: &str| StoredRun {
            identity: identity.to_owned(),
            series: "model=a".to_owned(),
            start_time: start.to_owned(),
            labels: BTreeMap::from([("ci".to_owned(), "yes".to_owned())]),
            flags: vec!["iree-compile".to_owned()],
            metrics: vec![
                Metric {
                    name: "category:ir".to_owned(),
                    value: 12.5,
                    samples: Some(125),
                    total: Some(1000),
                },
                Metric {
                    name: "wall_seconds".to_owned(),
                    value: 3.25,
                    samples: None,
                    total: None,
                },
            ],
            ..StoredRun::default()
        };
        let mut store = HistoryStore::open(&location).unwrap();
        assert!(store.add(&run("b", "2026-01-02T00:00:00Z")).unwrap());
        assert!(store.add(&run("a", "2026-01-01T00:00:00Z")).unwrap());
        assert!(!store.add(&run("a", "2026-01-01T00:00:00Z")).unwrap());
        drop(store);
        let mut again = HistoryStore::open(&location).unwrap();
        let runs = again.runs(Some("model=a")).unwrap();
        assert_eq!(
            runs,
            vec![
                run("a", "2026-01-01T00:00:00Z"),
                run("b", "2026-01-02T00:00:00Z")
            ]
        );
        assert!(again.runs(Some("model=b")).unwrap().is_empty());
        assert_eq!(again.runs(None).unwrap().len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
