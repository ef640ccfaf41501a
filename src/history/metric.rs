//! The metrics of a stored run by name, and what is shown of them: the
//! names (the measures, the prefixes of the shares), their order in a
//! table, a value and a change with their units; a metric as judged
//! against its history ([`JudgedMetric`], which `history`'s judge fills)
//! and one run of a trend ([`Point`]). Plain types and words: the store's
//! writer, its judge and its pages (`history show`, `check`, `html`) share
//! them; no statistic here.

use serde::Serialize;

use super::StoredRun;

/// A metric's name: wall seconds of the compile alone.
pub(crate) const WALL: &str = "wall_seconds";
/// CPU seconds of the compile's samples.
pub(crate) const CPU: &str = "cpu_seconds";
/// Peak RSS of the compiler.
pub(crate) const RSS: &str = "peak_rss_bytes";
/// Page faults of the compiler, minor and major.
pub(crate) const PAGE_FAULTS: &str = "page_faults";
/// The cores other processes kept busy while the compile ran: not the
/// compile's, but what its CPU time is read with.
pub(crate) const OTHER_CORES: &str = "other_cores_busy";
/// Bytes of the compile's outputs.
pub(crate) const BYTES: &str = "bytes";
/// The prefixes of shares: a category's self samples, a pass's inclusive.
pub(crate) const CATEGORY: &str = "category:";
pub(crate) const PASS: &str = "pass:";
/// The kernel's share: page faults, zeroing pages, writing files.
pub(crate) const KERNEL: &str = "category:kernel";
/// The threading share: thread pools, locks, waiting.
pub(crate) const THREADING: &str = "category:threading";

/// What one metric of a run looks like against its history (as `check`
/// and `show` write it in JSON, too).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct JudgedMetric {
    pub metric: String,
    pub value: f64,
    /// The previous run's value.
    pub previous: Option<f64>,
    /// The median of the history.
    pub median: Option<f64>,
    /// Against the previous run and the median: per cent for measures,
    /// percentage points for shares.
    pub delta_previous: Option<f64>,
    pub delta_median: Option<f64>,
    pub flagged: bool,
    /// The test used and what it found.
    pub test: String,
}

/// One run of a trend: the run, and its metrics judged against the runs
/// before it (its plain values when it is the first).
pub(crate) struct Point<'a> {
    pub run: &'a StoredRun,
    pub judged: Vec<JudgedMetric>,
}

/// True for a share (category or pass) metric.
pub(crate) fn is_share(metric: &str) -> bool {
    metric.starts_with(CATEGORY) || metric.starts_with(PASS)
}

/// The order of the metrics in a table or on a page: measures first.
pub(crate) fn rank(metric: &str) -> (u8, &str) {
    let first = match metric {
        WALL => 0,
        CPU => 1,
        RSS => 2,
        PAGE_FAULTS => 3,
        OTHER_CORES => 4,
        _ if metric.starts_with(BYTES) => 5,
        _ if metric.starts_with(CATEGORY) => 6,
        _ if metric.starts_with(PASS) => 7,
        _ => 8,
    };
    (first, metric)
}

/// A change: per cent for a measure, percentage points for a share.
pub(crate) fn shown_delta(share: bool, delta: Option<f64>) -> String {
    match (share, delta) {
        (_, None) => String::new(),
        (true, Some(delta)) => format!("{delta:+.2} pp"),
        (false, Some(delta)) => format!("{delta:+.1} %"),
    }
}

/// A metric's value with its unit.
pub(crate) fn shown_value(metric: &str, value: f64) -> String {
    match metric {
        WALL | CPU => format!("{value:.2} s"),
        RSS => format!("{:.1} MiB", value / f64::from(1 << 20)),
        PAGE_FAULTS => format!("{value:.0} faults"),
        OTHER_CORES => format!("{value:.2} cores"),
        _ if metric.starts_with(BYTES) => format!("{value:.0} B"),
        _ if is_share(metric) => format!("{value:.2} %"),
        _ => format!("{value}"),
    }
}
