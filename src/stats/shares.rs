//! Whether a share of samples moved by more than run-to-run noise. Plain
//! functions over sample counts.
//!
//! The model. A row's samples in one run are binomial, with extra
//! variation between runs (other processes, caches, page faults, thread
//! timing): `Var(hits) = φ · n · p · (1 − p)`, the quasi-binomial model of
//! generalized linear models. φ is estimated from the runs of each side with
//! Pearson's χ² over df: pooled over every row with at least
//! [`MIN_POOLED_COUNT`] samples per run (many rows, so many degrees of
//! freedom even with three runs a side), and for each row on its own. A row
//! is judged with the larger of the two (and never less than 1, plain
//! sampling error), as DESeq does for genes with few replicates: a row
//! noisier than the rest keeps its own spread, a row whose few runs agree
//! by chance does not look quieter than the rest.
//!
//! The test. The two sides' counts are compared by their likelihood ratio
//! (the binomial deviance of one share for both sides against a share for
//! each), scaled by φ: the quasi-likelihood F test with one and the pooled
//! degrees of freedom, taken as Student's t of the signed root, two-sided.
//! Where both sides' shares are well inside (0, 1) it agrees with the
//! difference of shares over its standard error; where a share vanishes or
//! appears (all of a row's samples on one side) the likelihood ratio keeps
//! its power, which the standard error under the pooled share loses; where
//! a side has fewer than a tenth of the samples it would have at the other
//! side's share (a row that vanished or appeared, or nearly), the test is
//! exact: the probability of so few at that share, under the negative
//! binomial of that mean and φ times its variance. With
//! one run a side φ cannot be estimated: it is 1, and only sampling error is
//! covered. Tests are corrected together by `multiple.rs`.

use statrs::distribution::{
    ContinuousCDF, DiscreteCDF, NegativeBinomial, Normal, Poisson, StudentsT,
};

/// Rows with fewer samples than this per run (on average) are left out of
/// the pooled dispersion: Pearson's χ² is unreliable on tiny counts.
const MIN_POOLED_COUNT: f64 = 5.0;

/// One run's samples in a row, and the run's samples in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Count {
    pub hits: u64,
    pub samples: u64,
}

/// A row of one measure (self or inclusive samples), run by run, on both sides.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowRuns<'a> {
    pub base: &'a [Count],
    pub new: &'a [Count],
}

/// The run-to-run noise of one measure, pooled over rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Noise {
    /// Variance between runs as a multiple of sampling variance (≥ 1).
    pub dispersion: f64,
    /// Degrees of freedom of the estimate; `None` when no side has two
    /// runs, so only sampling error is known.
    pub degrees_of_freedom: Option<f64>,
}

impl Noise {
    /// True when the runs could not show any spread (one run a side).
    pub(crate) fn sampling_error_only(&self) -> bool {
        self.degrees_of_freedom.is_none()
    }
}

/// The outcome of one row's test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Test {
    /// New share minus base share of the aggregates, in percentage points.
    pub delta_pp: f64,
    /// Two-sided p-value before the correction for many rows.
    pub p_value: f64,
    /// The largest change the row's samples could show, in percentage
    /// points: all of them on the side with fewer samples. It does not
    /// depend on which side they are on, so leaving out the rows it keeps
    /// below the minimum effect keeps the correction sound (independent
    /// filtering).
    pub reachable_pp: f64,
    /// The dispersion the row was judged with: the pooled one or the
    /// row's own, the larger.
    pub dispersion: f64,
    /// When one side has fewer than [`NEARLY_VANISHED`] of the samples
    /// it would have at the other side's share: its samples and that
    /// expectation. The row was then tested by the probability of so few.
    pub nearly_vanished: Option<(u64, f64)>,
}

/// Pearson's χ² of a row among the runs of one side, and its degrees of
/// freedom; `None` with fewer than two runs or a share of 0 or 1.
fn pearson(runs: &[Count]) -> Option<(f64, f64)> {
    if runs.len() < 2 {
        return None;
    }
    let hits: u64 = runs.iter().map(|run| run.hits).sum();
    let samples: u64 = runs.iter().map(|run| run.samples).sum();
    let share = hits as f64 / samples as f64;
    if !(share > 0.0 && share < 1.0) {
        return None;
    }
    let chi_square = runs
        .iter()
        .map(|run| {
            let expected = run.samples as f64 * share;
            (run.hits as f64 - expected).powi(2) / (expected * (1.0 - share))
        })
        .sum();
    Some((chi_square, (runs.len() - 1) as f64))
}

/// Pearson's χ² and degrees of freedom of a row over both sides' runs.
fn row_chi_square(row: &RowRuns<'_>) -> (f64, f64) {
    [row.base, row.new]
        .into_iter()
        .filter_map(pearson)
        .fold((0.0, 0.0), |(chi, df), (c, d)| (chi + c, df + d))
}

/// Mean samples per run of a side's row.
fn mean_hits(runs: &[Count]) -> f64 {
    runs.iter().map(|run| run.hits as f64).sum::<f64>() / runs.len().max(1) as f64
}

/// The dispersion of one measure, pooled over `rows`: every side's runs of
/// every row with at least [`MIN_POOLED_COUNT`] samples per run.
pub(crate) fn pooled_noise(rows: &[RowRuns<'_>]) -> Noise {
    let replicated = rows
        .iter()
        .any(|row| row.base.len() > 1 || row.new.len() > 1);
    if !replicated {
        return Noise {
            dispersion: 1.0,
            degrees_of_freedom: None,
        };
    }
    let (chi_square, df) = rows
        .iter()
        .flat_map(|row| [row.base, row.new])
        .filter(|runs| mean_hits(runs) >= MIN_POOLED_COUNT)
        .filter_map(pearson)
        .fold((0.0, 0.0), |(chi, df), (c, d)| (chi + c, df + d));
    if df == 0.0 {
        // Runs, but no row large enough to measure their spread on.
        return Noise {
            dispersion: 1.0,
            degrees_of_freedom: Some(f64::INFINITY),
        };
    }
    Noise {
        dispersion: (chi_square / df).max(1.0),
        degrees_of_freedom: Some(df),
    }
}

/// `x · ln(x / expected)`, 0 for no `x`: one term of a deviance.
fn deviance_term(x: f64, expected: f64) -> f64 {
    if x > 0.0 {
        x * (x / expected).ln()
    } else {
        0.0
    }
}

/// The binomial deviance (likelihood-ratio statistic, G) of `hits` of
/// `samples` on two sides against one share for both; 0 when a side has no
/// samples or the pooled share is 0 or 1.
fn deviance(base: (f64, f64), new: (f64, f64)) -> f64 {
    let pooled = (base.0 + new.0) / (base.1 + new.1);
    if !(pooled > 0.0 && pooled < 1.0) || base.1 <= 0.0 || new.1 <= 0.0 {
        return 0.0;
    }
    let side = |(hits, samples): (f64, f64)| {
        deviance_term(hits, samples * pooled)
            + deviance_term(samples - hits, samples * (1.0 - pooled))
    };
    (2.0 * (side(base) + side(new))).max(0.0)
}

/// Tests one row against `noise` (see the module documentation).
pub(crate) fn test_row(row: &RowRuns<'_>, noise: &Noise) -> Test {
    let total = |runs: &[Count]| -> (f64, f64) {
        runs.iter().fold((0.0, 0.0), |(hits, samples), run| {
            (hits + run.hits as f64, samples + run.samples as f64)
        })
    };
    let (base_hits, base_samples) = total(row.base);
    let (new_hits, new_samples) = total(row.new);
    let share = |hits: f64, samples: f64| if samples > 0.0 { hits / samples } else { 0.0 };
    let (base_share, new_share) = (share(base_hits, base_samples), share(new_hits, new_samples));
    let delta_pp = (new_share - base_share) * 100.0;
    let reachable_pp =
        (share(base_hits + new_hits, base_samples.min(new_samples)) * 100.0).min(100.0);
    let (row_chi, row_df) = row_chi_square(row);
    let row_dispersion = if row_df > 0.0 { row_chi / row_df } else { 0.0 };
    let dispersion = noise.dispersion.max(row_dispersion);
    let deviance = deviance((base_hits, base_samples), (new_hits, new_samples));
    if !(deviance > 0.0 && deviance.is_finite()) {
        // Nothing on either side, a side without samples, or the same share
        // on both: no evidence of a change.
        return Test {
            delta_pp,
            p_value: 1.0,
            reachable_pp,
            dispersion,
            nearly_vanished: None,
        };
    }
    let nearly_vanished = nearly_vanished((base_hits, base_samples), (new_hits, new_samples));
    let upper_tail = match nearly_vanished {
        Some((seen, expected)) => at_most(seen, expected, dispersion),
        None => {
            let statistic = (deviance / dispersion).sqrt();
            match noise.degrees_of_freedom {
                Some(df) if df.is_finite() => StudentsT::new(0.0, 1.0, df)
                    .expect("positive degrees of freedom")
                    .sf(statistic),
                _ => Normal::standard().sf(statistic),
            }
        }
    };
    Test {
        delta_pp,
        p_value: (2.0 * upper_tail).min(1.0),
        reachable_pp,
        dispersion,
        nearly_vanished,
    }
}

/// When one side has fewer than this share of the samples it would have
/// at the other side's share, the row is tested exactly.
const NEARLY_VANISHED: f64 = 0.1;

/// When a side has under [`NEARLY_VANISHED`] of the samples it would have
/// at the other side's share (a row that vanished or appeared, or nearly):
/// its samples and that expectation.
fn nearly_vanished(base: (f64, f64), new: (f64, f64)) -> Option<(u64, f64)> {
    let few = |side: (f64, f64), other: (f64, f64)| {
        let expected = side.1 * other.0 / other.1;
        (other.0 > 0.0 && side.0 < NEARLY_VANISHED * expected).then_some((side.0 as u64, expected))
    };
    few(new, base).or_else(|| few(base, new))
}

/// The probability of at most `seen` samples in a row expected to have
/// `expected`, whose variance is `dispersion` times that: the negative
/// binomial of that mean and variance (Poisson's at a dispersion of 1).
/// The likelihood ratio's normal approximation understates how unlikely a
/// nearly empty row is when its runs vary.
fn at_most(seen: u64, expected: f64, dispersion: f64) -> f64 {
    if dispersion <= 1.0 + 1e-9 {
        Poisson::new(expected).map_or(1.0, |poisson| poisson.cdf(seen))
    } else {
        NegativeBinomial::new(expected / (dispersion - 1.0), 1.0 / dispersion)
            .map_or(1.0, |negative_binomial| negative_binomial.cdf(seen))
    }
}

#[cfg(test)]
mod tests;
