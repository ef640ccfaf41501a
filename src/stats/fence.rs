//! A metric's own noise, learned from its history: rustc-perf's rule. The
//! changes between adjacent runs, in absolute value, give the fence
//! Q3 + 3·IQR (for normal noise about 4.7 standard deviations of a
//! change); a new value is beyond the noise when it lies further than the
//! fence from the history's median. With fewer than [`MIN_CHANGES`]
//! changes the quartiles mean little, and the caller falls back to a
//! defined rule of its own (a fixed fence, or the history's range).
//!
//! A share's noise is learned on the square-root scale ([`share_band`]),
//! where a count's sampling noise is about the same size at any share and
//! a share cannot fall below zero: a band in percentage points would let a
//! small category vanish within its own noise.

use super::{bounds, median, quantile};

/// Adjacent changes needed for a fence (six runs of history).
pub(crate) const MIN_CHANGES: usize = 5;

/// How the changes between adjacent runs are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// As a fraction of the earlier value (times, bytes): a run of 0 gives
    /// no change.
    Relative,
    /// As the plain difference (shares, in percentage points).
    Absolute,
}

/// The fence Q3 + 3·IQR of the adjacent changes of `values` (oldest first),
/// and the number of changes it comes from; `None` with fewer than
/// [`MIN_CHANGES`].
pub(crate) fn iqr_fence(values: &[f64], change: Change) -> Option<(f64, usize)> {
    let mut changes: Vec<f64> = values
        .windows(2)
        .filter_map(|pair| match change {
            Change::Relative => (pair[0] != 0.0).then(|| ((pair[1] - pair[0]) / pair[0]).abs()),
            Change::Absolute => Some((pair[1] - pair[0]).abs()),
        })
        .collect();
    if changes.len() < MIN_CHANGES {
        return None;
    }
    changes.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile(&changes, 0.25), quantile(&changes, 0.75));
    Some((q3 + 3.0 * (q3 - q1), changes.len()))
}

/// A share's own noise, as the band of shares (in percent) a new run can
/// fall in without being beyond it, learned from the history's shares on
/// the square-root scale: the IQR fence of the roots' adjacent changes
/// around their median with [`MIN_CHANGES`] changes or more, else the
/// roots' range widened by that range on each side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ShareBand {
    pub low: f64,
    pub high: f64,
    /// The adjacent changes the fence came from; `None` for the range rule.
    pub changes: Option<usize>,
}

impl ShareBand {
    /// True when `share` lies outside the band.
    pub(crate) fn beyond(&self, share: f64) -> bool {
        share < self.low || share > self.high
    }
}

/// The [`ShareBand`] of the shares `history` (percent, oldest first, not
/// empty).
pub(crate) fn share_band(history: &[f64]) -> ShareBand {
    let roots: Vec<f64> = history.iter().map(|share| share.max(0.0).sqrt()).collect();
    let (low, high, changes) = match iqr_fence(&roots, Change::Absolute) {
        Some((fence, changes)) => {
            let centre = median(&roots);
            (centre - fence, centre + fence, Some(changes))
        }
        None => {
            let (low, high) = bounds(&roots);
            let range = high - low;
            (low - range, high + range, None)
        }
    };
    ShareBand {
        // A band reaching below a root of 0 holds a share of 0.
        low: low.max(0.0).powi(2),
        high: high.powi(2),
        changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fence_is_q3_plus_three_iqr_of_adjacent_relative_changes() {
        // Changes: 10 %, 10 %, 20 %, 0 %, 30 %, 0 %: sorted 0 0 .1 .1 .2 .3,
        // Q1 = 0.025, Q3 = 0.175, fence = 0.175 + 3 · 0.15 = 0.625.
        let values = [100.0, 110.0, 99.0, 118.8, 118.8, 154.44, 154.44];
        let (fence, changes) = iqr_fence(&values, Change::Relative).unwrap();
        assert_eq!(changes, 6);
        assert!((fence - 0.625).abs() < 1e-9, "{fence}");
        assert_eq!(
            iqr_fence(&values[..5], Change::Relative),
            None,
            "four changes are too few"
        );
        assert!(
            iqr_fence(&values[..6], Change::Relative).is_some(),
            "five changes make a fence"
        );
    }

    #[test]
    fn absolute_changes_are_plain_differences() {
        // Changes 1, 1, 2, 0, 3: sorted 0 1 1 2 3, Q1 = 1, Q3 = 2, fence 5.
        let values = [10.0, 11.0, 10.0, 12.0, 12.0, 15.0];
        let (fence, changes) = iqr_fence(&values, Change::Absolute).unwrap();
        assert_eq!(changes, 5);
        assert!((fence - 5.0).abs() < 1e-12, "{fence}");
    }

    #[test]
    fn a_small_share_that_vanishes_is_beyond_its_band() {
        // 2.6, 5.2, 3.6, 4.0 %: roots 1.61–2.28, widened by 0.67 on each
        // side to 0.94–2.95, the shares 0.89–8.69 %.
        let band = share_band(&[2.6, 5.2, 3.6, 4.0]);
        assert_eq!(band.changes, None);
        assert!((band.low - 0.8922).abs() < 1e-3, "{band:?}");
        assert!((band.high - 8.6922).abs() < 1e-3, "{band:?}");
        assert!(band.beyond(0.0) && band.beyond(9.0));
        assert!(!band.beyond(1.0) && !band.beyond(8.0));
        // Widened in percentage points the range would reach 0 %.
        let wide = share_band(&[1.0, 4.5]);
        assert_eq!(wide.low, 0.0);
        assert!(!wide.beyond(0.0), "a share this noisy may vanish: {wide:?}");
    }

    #[test]
    fn with_enough_runs_the_band_is_the_fence_of_the_roots() {
        // Roots 5, 6, 5, 6, 5, 6: changes all 1, Q1 = Q3 = 1, fence 1
        // around the median root 5.5: shares 20.25–42.25 %.
        let band = share_band(&[25.0, 36.0, 25.0, 36.0, 25.0, 36.0]);
        assert_eq!(band.changes, Some(5));
        assert!((band.low - 20.25).abs() < 1e-9 && (band.high - 42.25).abs() < 1e-9);
    }
}
