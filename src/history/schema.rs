//! The history store's one schema, for SQLite and PostgreSQL alike, as
//! versioned migrations: `schema_version` holds the versions applied, each
//! migration runs in its own transaction, and a store with a version newer
//! than [`MIGRATIONS`] knows is refused. Only types both databases read the
//! same way are used (TEXT, BIGINT, DOUBLE PRECISION), and `$N` parameters,
//! which SQLite binds by position when each appears once, in order.

/// The migrations, in order: version `i + 1` is `MIGRATIONS[i]`. A new
/// version is a new entry; an entry, once released, never changes.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: runs and their metrics.
    "CREATE TABLE runs (
        identity TEXT PRIMARY KEY,
        series TEXT NOT NULL,
        start_time TEXT NOT NULL,
        added_at TEXT NOT NULL,
        commit_sha TEXT,
        branch TEXT,
        machine TEXT,
        labels TEXT NOT NULL,
        path TEXT,
        compiler_version TEXT,
        flags TEXT NOT NULL,
        host TEXT NOT NULL,
        report TEXT
    );
    CREATE INDEX runs_by_series ON runs (series, start_time);
    CREATE TABLE metrics (
        identity TEXT NOT NULL REFERENCES runs (identity),
        metric TEXT NOT NULL,
        value DOUBLE PRECISION NOT NULL,
        samples BIGINT,
        total BIGINT,
        PRIMARY KEY (identity, metric)
    );",
];

/// The newest schema version this build knows.
pub(super) fn known_version() -> i64 {
    MIGRATIONS.len() as i64
}

pub(super) const CREATE_VERSION_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)";
pub(super) const SELECT_VERSION: &str = "SELECT MAX(version) FROM schema_version";
pub(super) const INSERT_VERSION: &str = "INSERT INTO schema_version (version) VALUES ($1)";

pub(super) const INSERT_RUN: &str = "INSERT INTO runs (identity, series, start_time, added_at,
    commit_sha, branch, machine, labels, path, compiler_version, flags, host, report)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
    ON CONFLICT (identity) DO NOTHING";
pub(super) const INSERT_METRIC: &str =
    "INSERT INTO metrics (identity, metric, value, samples, total) VALUES ($1, $2, $3, $4, $5)";

pub(super) const SELECT_REPORT: &str = "SELECT report FROM runs WHERE identity = $1";

const RUN_COLUMNS: &str = "identity, series, start_time, added_at, commit_sha, branch, machine,
    labels, path, compiler_version, flags, host";
const METRIC_COLUMNS: &str = "m.identity, m.metric, m.value, m.samples, m.total";

/// The runs of every series, or of one (`$1`), oldest first.
pub(super) fn select_runs(one_series: bool) -> String {
    let filter = if one_series { "WHERE series = $1" } else { "" };
    format!("SELECT {RUN_COLUMNS} FROM runs {filter} ORDER BY series, start_time, identity")
}

/// The metrics of those runs.
pub(super) fn select_metrics(one_series: bool) -> String {
    let filter = if one_series {
        "WHERE r.series = $1"
    } else {
        ""
    };
    format!(
        "SELECT {METRIC_COLUMNS} FROM metrics m JOIN runs r ON r.identity = m.identity {filter}
        ORDER BY m.identity, m.metric"
    )
}
