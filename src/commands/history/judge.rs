//! A run judged against the recent runs of its series, metric by metric,
//! with the statistics of `crate::stats`:
//!
//! - measures (wall, CPU, peak RSS, page faults, bytes): a rustc-perf-style
//!   IQR fence of the measure's own adjacent changes (`stats::fence`); the
//!   run is flagged when it differs from the history's median by more than
//!   the fence (never less than the measure's floor). With fewer than
//!   [`MIN_CHANGES`] changes a fallback fence is used instead: a fixed one,
//!   or twice the history's own range when that is wider; the output says
//!   which. How busy other processes kept the machine ([`OTHER_CORES`]) is
//!   shown, never flagged;
//! - what the machine's load moves is judged with the load, or with the
//!   compiler's own work behind it (`load.rs`): the CPU time and the
//!   threading share with the other processes' load, the wall time with
//!   the CPU time, the kernel's share with the page faults. What the
//!   machine moved is not flagged unless asked (`Rules::flag_with_load`,
//!   `Rules::flag_wall_alone`, `Rules::flag_kernel_alone`);
//! - shares (a category's self samples, a pass's inclusive samples): the
//!   likelihood-ratio test of `stats::shares`, the run against the
//!   history's runs pooled, corrected with Holm's method in two families,
//!   the category shares and the pass shares; flagged only when also at
//!   least the minimum effect and beyond the share's own noise, learned on
//!   the square-root scale (`stats::fence::share_band`): the IQR fence of
//!   its adjacent changes with enough history, else outside the history's
//!   range widened by that range on each side (one row can vary from run
//!   to run more than the dispersion pooled over all rows says).

use crate::stats::fence::{Change, MIN_CHANGES, iqr_fence, share_band};
use crate::stats::multiple::{self, CATEGORY_FAMILY_ALPHA, FAMILY_ALPHA};
use crate::stats::shares::{self, Count, RowRuns};
use crate::stats::{median, relative_range};
use std::collections::BTreeMap;

use crate::defaults::HISTORY_THRESHOLD_PP;
use crate::history::metric::{
    BYTES, CATEGORY, JudgedMetric, OTHER_CORES, PAGE_FAULTS, PASS, Point, RSS, is_share,
};
use crate::history::{Metric, StoredRun};

/// A measure's fences, as fractions: the floor under the IQR fence, and
/// the fallback without enough history.
fn fences(metric: &str) -> (f64, f64) {
    if metric == BYTES || metric.starts_with(&format!("{BYTES}:")) {
        // Outputs are deterministic: any change of more than 0.1 % is real.
        (0.001, 0.001)
    } else if metric == RSS || metric == PAGE_FAULTS {
        // Peak RSS moved by less than 1 % between unchanged runs, the page
        // faults by less than 0.7 % (24,257–24,409 in six).
        (0.03, 0.10)
    } else {
        // Wall and CPU time on a shared 2-core machine at load 6: unchanged
        // runs moved by up to 33 % from the median of the others
        // (docs/history.md).
        (0.10, 0.35)
    }
}

mod load;

/// How `judge` decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rules {
    /// The minimum effect on a share, in percentage points. Default is
    /// [`HISTORY_THRESHOLD_PP`].
    pub threshold_pp: f64,
    /// Flag a wall time beyond its fence even when the CPU time is within
    /// its own (`--flag-wall-alone`). Default is false: the machine was busy.
    pub flag_wall_alone: bool,
    /// Flag the kernel's share beyond noise even when the page faults are
    /// within their fence (`--flag-kernel-alone`). Default is false: the
    /// machine was slower at the same faults.
    pub flag_kernel_alone: bool,
    /// Flag what moved with the machine's load (the CPU time, the wall time
    /// with it, the threading share) even when other processes kept the
    /// machine busier or quieter than in every run of the history
    /// (`--flag-with-load`). Default is false.
    pub flag_with_load: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            threshold_pp: HISTORY_THRESHOLD_PP,
            flag_wall_alone: false,
            flag_kernel_alone: false,
            flag_with_load: false,
        }
    }
}

/// Judges every metric of `run` and of `history` (oldest first, the run
/// itself not in it) against the history. Without history, nothing.
pub(crate) fn judge(history: &[&StoredRun], run: &StoredRun, rules: &Rules) -> Vec<JudgedMetric> {
    if history.is_empty() {
        return Vec::new();
    }
    let mut names: Vec<&str> = run
        .metrics
        .iter()
        .chain(history.iter().flat_map(|old| &old.metrics))
        .map(|metric| metric.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut judged: Vec<JudgedMetric> = names
        .iter()
        .filter(|name| !is_share(name))
        .filter_map(|name| measure(history, run, name))
        .collect();
    judged.extend(share_metrics(history, run, &names, rules.threshold_pp));
    load::unflag_the_machines_moves(&mut judged, history, run, rules);
    judged
}

fn value_of(run: &StoredRun, name: &str) -> Option<f64> {
    find(run, name).map(|metric| metric.value)
}

fn find<'a>(run: &'a StoredRun, name: &str) -> Option<&'a Metric> {
    run.metrics.iter().find(|metric| metric.name == name)
}

fn measure(history: &[&StoredRun], run: &StoredRun, name: &str) -> Option<JudgedMetric> {
    let value = value_of(run, name)?;
    let values: Vec<f64> = history
        .iter()
        .filter_map(|old| value_of(old, name))
        .collect();
    let previous = *values.last()?;
    let median = median(&values);
    let relative = |base: f64| (base != 0.0).then(|| (value - base) / base * 100.0);
    let (floor, fallback) = fences(name);
    let (fence, how) = match iqr_fence(&values, Change::Relative) {
        Some((fence, changes)) if fence >= floor => (
            fence,
            format!("IQR fence: Q3 + 3·IQR of {changes} adjacent changes"),
        ),
        Some((_, changes)) => (
            floor,
            format!("IQR fence ({changes} adjacent changes) raised to the floor"),
        ),
        None => {
            // A history too short for quartiles still shows how far its own
            // runs lie apart: a noisy machine's runs widen the fence.
            let spread = relative_range(&values, median);
            if 2.0 * spread > fallback {
                (
                    2.0 * spread,
                    format!(
                        "fallback fence: {} earlier runs, fewer than {} changes for an IQR \
                         fence; twice their own range",
                        values.len(),
                        MIN_CHANGES
                    ),
                )
            } else {
                (
                    fallback,
                    format!(
                        "fallback fence: {} earlier runs, fewer than {} changes for an IQR fence",
                        values.len(),
                        MIN_CHANGES
                    ),
                )
            }
        }
    };
    let delta_median = relative(median);
    let (flagged, test) = if name == OTHER_CORES {
        (
            false,
            "not judged: how busy other processes kept the machine, which the CPU and wall \
             times are read with"
                .to_owned(),
        )
    } else {
        let flagged = delta_median.is_some_and(|delta| delta.abs() > fence * 100.0);
        let test = format!(
            "{how} = ±{:.1} %; {} the median by {:+.1} %",
            fence * 100.0,
            if flagged { "beyond it:" } else { "within it:" },
            delta_median.unwrap_or(0.0)
        );
        (flagged, test)
    };
    Some(JudgedMetric {
        metric: name.to_owned(),
        value,
        previous: Some(previous),
        median: Some(median),
        delta_previous: relative(previous),
        delta_median,
        flagged,
        test,
    })
}

/// The samples a run has of one kind of share (a category's or a pass's
/// `total`), when it has any share of that kind.
fn kind_total(run: &StoredRun, prefix: &str) -> Option<u64> {
    run.metrics
        .iter()
        .find(|metric| metric.name.starts_with(prefix))
        .and_then(|metric| metric.total)
        .map(|total| total.max(0) as u64)
}

fn count(run: &StoredRun, name: &str, prefix: &str) -> Option<Count> {
    let samples = kind_total(run, prefix)?;
    let hits = find(run, name)
        .and_then(|metric| metric.samples)
        .unwrap_or(0)
        .max(0) as u64;
    Some(Count { hits, samples })
}

/// The shares of one kind (`prefix`: categories or passes), judged as one
/// family of tests.
fn share_metrics(
    history: &[&StoredRun],
    run: &StoredRun,
    names: &[&str],
    threshold_pp: f64,
) -> Vec<JudgedMetric> {
    [CATEGORY, PASS]
        .into_iter()
        .flat_map(|prefix| share_family(history, run, names, prefix, threshold_pp))
        .collect()
}

/// A share's own noise from its history (`stats::fence::share_band`):
/// whether `value` is beyond it, and the words.
fn own_noise(values: &[f64], value: f64) -> (bool, String) {
    let band = share_band(values);
    let how = match band.changes {
        Some(changes) => format!("Q3 + 3·IQR of {changes} adjacent changes of its square root"),
        None => format!(
            "{} earlier runs (fewer than {} changes for a fence): the range of their square \
             roots widened by that range on each side",
            values.len(),
            MIN_CHANGES
        ),
    };
    (
        band.beyond(value),
        format!(
            "the share's own noise, {how}: {:.2}–{:.2}%",
            band.low, band.high
        ),
    )
}

fn share_family(
    history: &[&StoredRun],
    run: &StoredRun,
    names: &[&str],
    prefix: &str,
    threshold_pp: f64,
) -> Vec<JudgedMetric> {
    let rows: Vec<(&str, Vec<Count>, Vec<Count>)> = names
        .iter()
        .filter(|name| name.starts_with(prefix))
        .filter_map(|&name| {
            let new = vec![count(run, name, prefix)?];
            let base: Vec<Count> = history
                .iter()
                .filter_map(|old| count(old, name, prefix))
                .collect();
            (!base.is_empty()).then_some((name, base, new))
        })
        .collect();
    let row_runs: Vec<RowRuns<'_>> = rows
        .iter()
        .map(|(_, base, new)| RowRuns { base, new })
        .collect();
    let noise = shares::pooled_noise(&row_runs);
    let tests: Vec<_> = row_runs
        .iter()
        .map(|row| shares::test_row(row, &noise))
        .collect();
    let family = multiple::family_size(&tests, threshold_pp);
    let (kind, alpha) = if prefix == CATEGORY {
        ("category", CATEGORY_FAMILY_ALPHA)
    } else {
        ("pass", FAMILY_ALPHA)
    };
    let verdicts = multiple::judge(&tests, threshold_pp, threshold_pp, alpha);
    rows.iter()
        .zip(&row_runs)
        .zip(tests.iter().zip(verdicts))
        .map(|(((name, base, _), row), (test, verdict))| {
            let share = |count: &Count| count.hits as f64 / count.samples.max(1) as f64 * 100.0;
            let values: Vec<f64> = base.iter().map(share).collect();
            let value = share(&row.new[0]);
            let previous = *values.last().unwrap_or(&value);
            let median = median(&values);
            let (beyond_own, own) = own_noise(&values, value);
            let flagged = verdict.significant && beyond_own;
            let verdict_words = match (verdict.significant, verdict.beyond_noise) {
                (true, _) => "beyond noise and at least the minimum effect",
                (false, true) => "beyond noise but under the minimum effect",
                (false, false) => "within noise",
            };
            let own_words = if beyond_own { "beyond it" } else { "within it" };
            JudgedMetric {
                metric: (*name).to_owned(),
                value,
                previous: Some(previous),
                median: Some(median),
                delta_previous: Some(value - previous),
                delta_median: Some(value - median),
                flagged,
                test: format!(
                    "{} against {} pooled runs (φ = {:.2}, the larger of the \
                     row's own and {:.2} pooled over rows): {:+.2} pp, p = {:.2e}, \
                     Holm over {family} {kind} shares at {alpha}: {verdict_words}; {own}: \
                     {own_words}",
                    match test.nearly_vanished {
                        Some((seen, expected)) => format!(
                            "{seen} samples on one side where {expected:.1} were expected, \
                             negative binomial,"
                        ),
                        None => "likelihood ratio".to_owned(),
                    },
                    base.len(),
                    test.dispersion,
                    noise.dispersion,
                    test.delta_pp,
                    test.p_value,
                ),
            }
        })
        .collect()
}

/// The last `last` runs of each series, each judged against up to `last`
/// runs before it (as `history show` and `history html` show them).
pub(crate) fn points(runs: &[StoredRun], last: usize) -> BTreeMap<&str, Vec<Point<'_>>> {
    let mut by_series: BTreeMap<&str, Vec<&StoredRun>> = BTreeMap::new();
    for run in runs {
        by_series.entry(run.series.as_str()).or_default().push(run);
    }
    by_series
        .into_iter()
        .map(|(series, runs)| {
            let first = runs.len().saturating_sub(last);
            let points = (first..runs.len())
                .map(|at| {
                    let history = &runs[at.saturating_sub(last)..at];
                    let mut judged = judge(history, runs[at], &Rules::default());
                    if judged.is_empty() {
                        judged = plain(runs[at]);
                    }
                    Point {
                        run: runs[at],
                        judged,
                    }
                })
                .collect();
            (series, points)
        })
        .collect()
}

/// The metrics of a run without history, unjudged.
fn plain(run: &StoredRun) -> Vec<JudgedMetric> {
    run.metrics
        .iter()
        .map(|metric| JudgedMetric {
            metric: metric.name.clone(),
            value: metric.value,
            previous: None,
            median: None,
            delta_previous: None,
            delta_median: None,
            flagged: false,
            test: "first run: nothing to compare with".to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
