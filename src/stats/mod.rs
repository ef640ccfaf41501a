//! The statistics of every gate (`diff`, `history check`, `executables
//! --repeat`): plain functions over numbers and sample counts, no I/O and
//! nothing of the crate. What the rows and runs mean is their callers'.
//!
//! - this file: the median, quantiles and range of a few values;
//! - `shares.rs`: whether a share of samples moved beyond run-to-run noise
//!   (quasi-binomial dispersion, the likelihood-ratio test of two counts);
//! - `multiple.rs`: many tests corrected together (Holm's method within a
//!   family of tests) and the verdicts with a minimum effect;
//! - `fence.rs`: a metric's own noise learned from its history (rustc-perf's
//!   Q3 + 3·IQR of adjacent changes), for shares on the square-root scale;
//! - `rank_sum.rs`: whether one set of timed runs is slower than another
//!   (exact Mann–Whitney).

pub(crate) mod fence;
pub(crate) mod multiple;
pub(crate) mod rank_sum;
pub(crate) mod shares;

/// The median of `values` (the mean of the middle two for an even count;
/// 0 for none).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        len if len % 2 == 1 => sorted[len / 2],
        len => (sorted[len / 2 - 1] + sorted[len / 2]) / 2.0,
    }
}

/// The `q` quantile of sorted `values` (not empty), interpolated between
/// ranks (type 7 of Hyndman and Fan, R's and NumPy's default).
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = q * (sorted.len() - 1) as f64;
    let (low, high) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[low] + (sorted[high] - sorted[low]) * (rank - low as f64)
}

/// The least and the greatest of `values` (infinities for none).
pub(crate) fn bounds(values: &[f64]) -> (f64, f64) {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (low, high)
}

/// The range of `values` as a fraction of `median` (0 when it is 0).
pub(crate) fn relative_range(values: &[f64], median: f64) -> f64 {
    let (low, high) = bounds(values);
    if median == 0.0 {
        0.0
    } else {
        (high - low) / median
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_odd_even_and_no_values() {
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), 2.5);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let sorted = [0.0, 0.0, 0.1, 0.1, 0.2, 0.3];
        assert!((quantile(&sorted, 0.25) - 0.025).abs() < 1e-12);
        assert!((quantile(&sorted, 0.75) - 0.175).abs() < 1e-12);
        assert_eq!(quantile(&sorted, 1.0), 0.3);
        assert_eq!(bounds(&[2.0, -1.0, 5.0]), (-1.0, 5.0));
    }

    #[test]
    fn a_range_is_a_fraction_of_its_median() {
        assert!((relative_range(&[9.0, 10.0, 12.0], 10.0) - 0.3).abs() < 1e-12);
        assert_eq!(relative_range(&[0.0, 0.0], 0.0), 0.0);
    }
}
