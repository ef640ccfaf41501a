//! `diff --heap`: two sides' live heaps at their instants read (the RSS
//! peak by default) compared, with whether the change is beyond the
//! sampling error (a two-sided z test on the difference, the sides'
//! standard errors combined), and the live bytes by pass and by category
//! on each side. A side of several runs is their mean, its standard error
//! the mean's under the sampling alone (run-to-run noise is not in it).

use std::borrow::Cow;

use hashbrown::HashMap;
use serde::Serialize;

use super::heap::{HeapPeak, NamedBytes};
use super::round2;

/// |z| beyond which a change is called beyond the sampling error: 5%
/// two-sided.
const Z_CRITICAL: f64 = 1.96;

/// The test, in words, for the reports.
pub(crate) const TEST: &str = "two-sided z test on the difference of the estimates, the two standard errors combined (√(se_base² + se_new²)), |z| > 1.96 (5%)";

/// One side's live heap.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct HeapSide {
    /// The runs added up (their mean).
    pub runs: usize,
    /// `rss_peak`, `heap_peak` or `given`, of the first run.
    pub instant: Cow<'static, str>,
    /// Seconds after each side's first sample kept, their mean.
    pub seconds: f64,
    pub live_bytes: u64,
    pub standard_error_bytes: u64,
    /// The pass that holds the most.
    pub pass: Option<String>,
    /// Still live at the end (never freed).
    pub at_end_bytes: u64,
}

/// A pass or category, its live bytes on each side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct NamedChange {
    pub name: String,
    pub base_live_bytes: u64,
    pub new_live_bytes: u64,
    pub delta_bytes: i64,
}

/// `heap_peak` of `diff --heap --format json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct HeapPeakDiff {
    pub base: HeapSide,
    pub new: HeapSide,
    /// New minus base.
    pub delta_bytes: i64,
    /// The change over base, in percent; `None` when base has none.
    pub delta_percent: Option<f64>,
    /// The difference's standard error: the sides' combined.
    pub standard_error_bytes: u64,
    /// `delta_bytes` over its standard error; `None` when that is 0.
    pub z: Option<f64>,
    /// True when the change is beyond the sampling error by [`TEST`].
    pub beyond_error: bool,
    pub test: &'static str,
    /// By pass (or place outside passes), largest first on either side.
    pub by_pass: Vec<NamedChange>,
    /// By category of the function charged (caller attribution).
    pub by_category: Vec<NamedChange>,
}

/// One side from its runs' peaks; `None` when it has none.
pub(crate) fn side(peaks: &[HeapPeak]) -> Option<HeapSide> {
    let first = peaks.first()?;
    let runs = peaks.len();
    let mean = |value: fn(&HeapPeak) -> f64| peaks.iter().map(value).sum::<f64>() / runs as f64;
    let variance: f64 = (peaks.iter())
        .map(|peak| (peak.standard_error_bytes as f64).powi(2))
        .sum();
    let by_pass = mean_by_name(peaks, |peak| {
        (peak.by_pass.iter())
            .map(|place| (place.pass.as_str(), place.live_bytes))
            .collect()
    });
    Some(HeapSide {
        runs,
        instant: first.instant.clone(),
        seconds: round2(mean(|peak| peak.seconds)),
        live_bytes: mean(|peak| peak.live_bytes as f64).round() as u64,
        standard_error_bytes: (variance.sqrt() / runs as f64).round() as u64,
        pass: by_pass.first().map(|(name, _)| name.clone()),
        at_end_bytes: mean(|peak| peak.at_end.live_bytes as f64).round() as u64,
    })
}

/// The mean over `peaks` of each name's bytes, most first.
fn mean_by_name(
    peaks: &[HeapPeak],
    named: impl Fn(&HeapPeak) -> Vec<(&str, u64)>,
) -> Vec<(String, u64)> {
    let mut sums: HashMap<String, u64> = HashMap::new();
    for peak in peaks {
        for (name, bytes) in named(peak) {
            *sums.entry(name.to_owned()).or_insert(0) += bytes;
        }
    }
    let runs = peaks.len().max(1) as u64;
    let mut means: Vec<(String, u64)> = (sums.into_iter())
        .map(|(name, bytes)| (name, (bytes + runs / 2) / runs))
        .collect();
    means.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    means
}

/// Each name of either side, with its bytes on both, largest first.
fn changes(base: Vec<(String, u64)>, new: Vec<(String, u64)>) -> Vec<NamedChange> {
    let mut both: HashMap<String, (u64, u64)> = HashMap::new();
    for (name, bytes) in base {
        both.entry(name).or_default().0 = bytes;
    }
    for (name, bytes) in new {
        both.entry(name).or_default().1 = bytes;
    }
    let mut changes: Vec<NamedChange> = (both.into_iter())
        .map(|(name, (base, new))| NamedChange {
            name,
            base_live_bytes: base,
            new_live_bytes: new,
            delta_bytes: signed(new) - signed(base),
        })
        .collect();
    changes.sort_by(|a, b| {
        let size = |change: &NamedChange| change.base_live_bytes.max(change.new_live_bytes);
        size(b).cmp(&size(a)).then(a.name.cmp(&b.name))
    });
    changes
}

fn signed(bytes: u64) -> i64 {
    i64::try_from(bytes).unwrap_or(i64::MAX)
}

/// Compares the sides' runs' peaks; `None` when a side has none.
pub(crate) fn compare(base: &[HeapPeak], new: &[HeapPeak]) -> Option<HeapPeakDiff> {
    let (base_side, new_side) = (side(base)?, side(new)?);
    let delta = signed(new_side.live_bytes) - signed(base_side.live_bytes);
    let error = (base_side.standard_error_bytes as f64).hypot(new_side.standard_error_bytes as f64);
    let z = (error > 0.0).then(|| round2(delta as f64 / error));
    let beyond_error = match z {
        Some(z) => z.abs() > Z_CRITICAL,
        // No sampling error on either side: every allocation was sampled
        // with certainty, and any change is real.
        None => delta != 0,
    };
    let passes = |peaks: &[HeapPeak]| {
        mean_by_name(peaks, |peak| {
            (peak.by_pass.iter())
                .map(|place| (place.pass.as_str(), place.live_bytes))
                .collect()
        })
    };
    let categories = |peaks: &[HeapPeak]| {
        mean_by_name(peaks, |peak| {
            (peak.by_category.iter())
                .map(|named: &NamedBytes| (named.name.as_str(), named.live_bytes))
                .collect()
        })
    };
    Some(HeapPeakDiff {
        delta_percent: (base_side.live_bytes > 0)
            .then(|| round2(delta as f64 * 100.0 / base_side.live_bytes as f64)),
        base: base_side,
        new: new_side,
        delta_bytes: delta,
        standard_error_bytes: error.round() as u64,
        z,
        beyond_error,
        test: TEST,
        by_pass: changes(passes(base), passes(new)),
        by_category: changes(categories(base), categories(new)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribute::heap::example_peak as peak;

    #[test]
    fn a_change_beyond_twice_the_combined_standard_error_is_beyond_the_sampling_error() {
        // √(3² + 4²) = 5: a change of 11 is z = 2.2, of 9 is z = 1.8.
        let base = [peak(100, 3, &[("A", 60), ("B", 40)])];
        let grown = compare(&base, &[peak(111, 4, &[("A", 71), ("C", 40)])]).unwrap();
        assert_eq!(grown.delta_bytes, 11);
        assert_eq!(grown.standard_error_bytes, 5);
        assert_eq!(grown.z, Some(2.2));
        assert!(grown.beyond_error);
        assert_eq!(grown.delta_percent, Some(11.0));
        let names: Vec<(&str, u64, u64)> = (grown.by_pass.iter())
            .map(|change| {
                (
                    change.name.as_str(),
                    change.base_live_bytes,
                    change.new_live_bytes,
                )
            })
            .collect();
        assert_eq!(names, [("A", 60, 71), ("B", 40, 0), ("C", 0, 40)]);
        assert_eq!(grown.by_category[0].delta_bytes, 11);
        let within = compare(&base, &[peak(91, 4, &[("A", 91)])]).unwrap();
        assert_eq!(within.z, Some(-1.8));
        assert!(!within.beyond_error);
    }

    #[test]
    fn a_side_of_several_runs_is_their_mean_with_the_mean_s_sampling_error() {
        let side = side(&[peak(100, 30, &[("A", 100)]), peak(200, 40, &[("B", 200)])]).unwrap();
        assert_eq!(side.runs, 2);
        assert_eq!(side.live_bytes, 150);
        assert_eq!(side.standard_error_bytes, 25);
        assert_eq!(side.pass.as_deref(), Some("B"));
        assert!(compare(&[], &[peak(1, 0, &[])]).is_none());
    }

    #[test]
    fn without_sampling_error_any_change_is_beyond_it() {
        let same = compare(&[peak(5, 0, &[])], &[peak(5, 0, &[])]).unwrap();
        assert!(!same.beyond_error && same.z.is_none());
        let moved = compare(&[peak(5, 0, &[])], &[peak(6, 0, &[])]).unwrap();
        assert!(moved.beyond_error);
    }
}
