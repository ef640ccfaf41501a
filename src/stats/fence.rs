//! A metric's own noise, learned from its history: rustc-perf's rule. The
//! changes between adjacent runs, in absolute value, give the fence
//! Q3 + 3·IQR (for normal noise about 4.7 standard deviations of a
//! change); a new value is beyond the noise when it lies further than the
//! fence from the history's median. With fewer than [`MIN_CHANGES`]
//! changes the quartiles mean little, and the caller falls back to a
//! defined rule of its own (a fixed fence, or the history's range).

use super::quantile;

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
}
