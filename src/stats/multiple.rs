//! Many tests corrected together: Holm's step-down method within a family
//! of tests, at a family-wise error rate (`diff`: [`FAMILY_ALPHA`];
//! `history check`: [`CATEGORY_FAMILY_ALPHA`] for the category shares), and the verdicts with a
//! minimum effect. A caller makes one family of each kind of row it tests
//! (`diff`: the rows of one grouping; `history check`: the category
//! shares, and apart from them the pass shares), so that a hundred pass
//! shares do not raise the bar for a vanished category.

use super::shares::Test;

/// The family-wise error rate of one family of tests: the chance, under the model,
/// that a diff of an unchanged configuration flags any row. For a diff of
/// about 40 tests, Holm's first step is then at 2.5e-6, a change of about
/// five standard errors: the bar of rustc-perf's Q3 + 3·IQR rule (4.7
/// standard deviations for normal noise). Run-to-run noise on a busy
/// machine has heavier tails than the model; this bar is where real
/// same-configuration pairs stopped being flagged (see
/// docs/measurements/diff-noise.md).
pub(crate) const FAMILY_ALPHA: f64 = 1e-4;

/// `history check`'s family-wise error rate for the category shares (its
/// pass shares keep [`FAMILY_ALPHA`]). A share is flagged there only when
/// it is also beyond its own noise in the history (`fence::share_band`), a
/// second guard `diff` has not. At [`FAMILY_ALPHA`] a category of 3–5% of
/// 600 samples that vanished was missed in 3 to 7 of 31 checks against 4
/// runs of history (p ≈ 1e-5 over 19 categories); at this rate the pass
/// shares, about 115 of them, gained false flags and the categories none
/// but a kernel share that moved by 11 pp (`scripts/bench-gates.py`,
/// docs/history.md).
pub(crate) const CATEGORY_FAMILY_ALPHA: f64 = 1e-3;

/// Holm's step-down correction: which of `p_values` are rejected with a
/// family-wise error rate of `alpha`.
pub(crate) fn holm(p_values: &[f64], alpha: f64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..p_values.len()).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]).then(a.cmp(&b)));
    let tests = p_values.len();
    let mut rejected = vec![false; tests];
    for (rank, &index) in order.iter().enumerate() {
        if p_values[index] > alpha / (tests - rank) as f64 {
            break;
        }
        rejected[index] = true;
    }
    rejected
}

/// What a test says once corrected with the others of its diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Rejected by [`holm`] at [`FAMILY_ALPHA`]: beyond the noise, whatever
    /// the size of the change.
    pub beyond_noise: bool,
    /// Beyond the noise and at least the minimum effect.
    pub significant: bool,
}

/// The verdicts on `tests`, all the rows and measures of one diff, with a
/// minimum effect of `threshold_pp`, at a family-wise error rate of
/// `alpha`. The correction counts the tests that
/// could reach `floor_pp` (the threshold, or a smaller limit of interest):
/// a row too small to change that much cannot be flagged, and testing it
/// would only make the others harder to flag.
pub(crate) fn judge(tests: &[Test], threshold_pp: f64, floor_pp: f64, alpha: f64) -> Vec<Verdict> {
    let family: Vec<usize> = (0..tests.len())
        .filter(|&index| tests[index].reachable_pp >= floor_pp)
        .collect();
    let p_values: Vec<f64> = family.iter().map(|&index| tests[index].p_value).collect();
    let mut verdicts = vec![
        Verdict {
            beyond_noise: false,
            significant: false,
        };
        tests.len()
    ];
    for (&index, rejected) in family.iter().zip(holm(&p_values, alpha)) {
        verdicts[index] = Verdict {
            beyond_noise: rejected,
            significant: rejected && tests[index].delta_pp.abs() >= threshold_pp,
        };
    }
    verdicts
}

/// How many of `tests` [`judge`] corrects together.
pub(crate) fn family_size(tests: &[Test], floor_pp: f64) -> usize {
    tests
        .iter()
        .filter(|test| test.reachable_pp >= floor_pp)
        .count()
}
