//! Whether a share moved by more than run-to-run noise: the statistics of
//! `diff`. Plain functions over sample counts, no I/O.
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
//! The test. The difference of the two sides' aggregate shares, over its
//! standard error under φ (the pooled share under "no change"), against
//! Student's t with the pooled degrees of freedom, two-sided. With one run
//! a side φ cannot be estimated: it is 1, and only sampling error is
//! covered. The p-values of the rows and measures of a diff are corrected
//! together with Holm's method at a family-wise rate of [`FAMILY_ALPHA`]. A change is reported only when it is also at least the minimum
//! effect (`--threshold`).

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Rows with fewer samples than this per run (on average) are left out of
/// the pooled dispersion: Pearson's χ² is unreliable on tiny counts.
const MIN_POOLED_COUNT: f64 = 5.0;

/// The family-wise error rate of one diff: the chance, under the model,
/// that a diff of an unchanged configuration flags any row. For a diff of
/// about 40 tests, Holm's first step is then at 2.5e-6, a change of about
/// five standard errors: the bar of rustc-perf's Q3 + 3·IQR rule (4.7
/// standard deviations for normal noise). Run-to-run noise on a busy
/// machine has heavier tails than the model; this bar is where real
/// same-configuration pairs stopped being flagged (see the README).
pub(crate) const FAMILY_ALPHA: f64 = 1e-4;

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
    let pooled = share(base_hits + new_hits, base_samples + new_samples);
    let (row_chi, row_df) = row_chi_square(row);
    let row_dispersion = if row_df > 0.0 { row_chi / row_df } else { 0.0 };
    let dispersion = noise.dispersion.max(row_dispersion);
    let variance = dispersion * pooled * (1.0 - pooled) * (1.0 / base_samples + 1.0 / new_samples);
    if !(variance > 0.0 && variance.is_finite()) {
        // Nothing on either side, or a side without samples: no evidence.
        return Test {
            delta_pp,
            p_value: 1.0,
            reachable_pp,
        };
    }
    let statistic = ((new_share - base_share) / variance.sqrt()).abs();
    let upper_tail = match noise.degrees_of_freedom {
        Some(df) if df.is_finite() => StudentsT::new(0.0, 1.0, df)
            .expect("positive degrees of freedom")
            .sf(statistic),
        _ => Normal::standard().sf(statistic),
    };
    Test {
        delta_pp,
        p_value: (2.0 * upper_tail).min(1.0),
        reachable_pp,
    }
}

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
/// minimum effect of `threshold_pp`. The correction counts the tests that
/// could reach `floor_pp` (the threshold, or a smaller limit of interest):
/// a row too small to change that much cannot be flagged, and testing it
/// would only make the others harder to flag.
pub(crate) fn judge(tests: &[Test], threshold_pp: f64, floor_pp: f64) -> Vec<Verdict> {
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
    for (&index, rejected) in family.iter().zip(holm(&p_values, FAMILY_ALPHA)) {
        verdicts[index] = Verdict {
            beyond_noise: rejected,
            significant: rejected && tests[index].delta_pp.abs() >= threshold_pp,
        };
    }
    verdicts
}

/// Whether one test on its own, uncorrected, is beyond the noise at
/// [`FAMILY_ALPHA`] and at least `threshold_pp`: for the frames of a
/// flamegraph, which are nested (each a part of its parent) and thousands.
pub(crate) fn significant_alone(test: &Test, threshold_pp: f64) -> bool {
    test.p_value < FAMILY_ALPHA && test.delta_pp.abs() >= threshold_pp
}

/// How many of `tests` [`judge`] corrects together.
pub(crate) fn family_size(tests: &[Test], floor_pp: f64) -> usize {
    tests
        .iter()
        .filter(|test| test.reachable_pp >= floor_pp)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), so that every run of
    /// these tests draws the same synthetic profiles.
    struct Draws(u64);

    impl Draws {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }

        fn normal(&mut self) -> f64 {
            let (u, v) = (self.uniform().max(1e-300), self.uniform());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        }

        fn binomial(&mut self, samples: u64, share: f64) -> u64 {
            (0..samples).filter(|_| self.uniform() < share).count() as u64
        }
    }

    /// One synthetic profile: `samples` samples split among rows whose true
    /// shares are `shares`, each share moved for this run by a normal
    /// run-to-run spread (`spread_pp` percentage points for a 30% row, in
    /// proportion to the sampling spread for the others: the same
    /// dispersion everywhere), then drawn binomially (sampling error).
    /// Returns each row's count.
    fn run(draws: &mut Draws, samples: u64, shares: &[f64], spread_pp: f64) -> Vec<Count> {
        shares
            .iter()
            .map(|&share| {
                let spread = spread_pp / 100.0 * (share * (1.0 - share) / (0.3 * 0.7)).sqrt();
                let moved = (share + draws.normal() * spread).clamp(0.0, 1.0);
                Count {
                    hits: draws.binomial(samples, moved),
                    samples,
                }
            })
            .collect()
    }

    /// Twenty rows shaped like a compile's categories: a few large, many small.
    const SHARES: [f64; 20] = [
        0.30, 0.15, 0.10, 0.08, 0.06, 0.05, 0.04, 0.035, 0.03, 0.025, 0.02, 0.02, 0.015, 0.015,
        0.01, 0.01, 0.008, 0.005, 0.003, 0.002,
    ];

    /// Runs of a configuration: `runs` profiles of rows with `shares`.
    fn side(
        draws: &mut Draws,
        runs: usize,
        samples: u64,
        shares: &[f64],
        spread_pp: f64,
    ) -> Vec<Vec<Count>> {
        let per_run: Vec<Vec<Count>> = (0..runs)
            .map(|_| run(draws, samples, shares, spread_pp))
            .collect();
        // Row by row.
        (0..shares.len())
            .map(|row| per_run.iter().map(|counts| counts[row]).collect())
            .collect()
    }

    /// Which rows of a diff are significant at `threshold_pp`.
    fn flagged(base: &[Vec<Count>], new: &[Vec<Count>], threshold_pp: f64) -> Vec<bool> {
        let rows: Vec<RowRuns<'_>> = base
            .iter()
            .zip(new)
            .map(|(base, new)| RowRuns { base, new })
            .collect();
        let noise = pooled_noise(&rows);
        let tests: Vec<Test> = rows.iter().map(|row| test_row(row, &noise)).collect();
        judge(&tests, threshold_pp, threshold_pp)
            .into_iter()
            .map(|verdict| verdict.significant)
            .collect()
    }

    #[test]
    fn the_dispersion_of_runs_with_known_spread_is_recovered() {
        let mut draws = Draws(7);
        // A 30% row at 2000 samples has a sampling spread of 1.02 pp; a
        // run-to-run spread of 3 pp on top makes the variance (1.02² + 3²) /
        // 1.02² ≈ 9.6 times the binomial one.
        let rows: Vec<Vec<Count>> = (0..40)
            .map(|_| {
                (0..6)
                    .map(|_| run(&mut draws, 2000, &[0.30], 3.0)[0])
                    .collect()
            })
            .collect();
        let pairs: Vec<RowRuns<'_>> = rows
            .iter()
            .map(|runs| RowRuns {
                base: &runs[..3],
                new: &runs[3..],
            })
            .collect();
        let noise = pooled_noise(&pairs);
        assert!(
            (7.0..13.0).contains(&noise.dispersion),
            "dispersion {noise:?}, expected about 9.6"
        );
        assert_eq!(noise.degrees_of_freedom, Some(160.0));
        // Without spread between runs, what is left is sampling error: 1.
        let quiet: Vec<Vec<Count>> = (0..40)
            .map(|_| {
                (0..6)
                    .map(|_| run(&mut draws, 2000, &[0.30], 0.0)[0])
                    .collect()
            })
            .collect();
        let pairs: Vec<RowRuns<'_>> = quiet
            .iter()
            .map(|runs| RowRuns {
                base: &runs[..3],
                new: &runs[3..],
            })
            .collect();
        let noise = pooled_noise(&pairs);
        assert!(
            (1.0..1.4).contains(&noise.dispersion),
            "dispersion {noise:?}, expected about 1"
        );
    }

    #[test]
    fn same_configuration_pairs_are_rarely_flagged_and_sampling_error_alone_would_flag_them() {
        let mut draws = Draws(11);
        let (mut flagged_pairs, mut naive_flags) = (0, 0);
        let pairs = 200;
        for _ in 0..pairs {
            // A 30% row spreading by 3 points from run to run at 1500
            // samples: 7.5 times the sampling variance, as the APFloat share
            // of six identical compiles spread from 42% to 56%.
            let base = side(&mut draws, 3, 1500, &SHARES, 3.0);
            let new = side(&mut draws, 3, 1500, &SHARES, 3.0);
            if flagged(&base, &new, 0.0).contains(&true) {
                flagged_pairs += 1;
            }
            // The same rows judged by sampling error alone (as if each side
            // were one long run): run-to-run noise makes it cry wolf.
            let merge = |runs: &[Vec<Count>]| -> Vec<Vec<Count>> {
                runs.iter()
                    .map(|row| {
                        vec![Count {
                            hits: row.iter().map(|run| run.hits).sum(),
                            samples: row.iter().map(|run| run.samples).sum(),
                        }]
                    })
                    .collect()
            };
            if flagged(&merge(&base), &merge(&new), 0.0).contains(&true) {
                naive_flags += 1;
            }
        }
        // Under the model, about 0.02 of 200 are expected; 4 would mean the
        // noise is underestimated.
        assert!(
            flagged_pairs <= 4,
            "{flagged_pairs} of {pairs} same-configuration pairs flagged"
        );
        assert!(
            naive_flags > pairs / 3,
            "sampling error alone flagged only {naive_flags} of {pairs}"
        );
    }

    #[test]
    fn a_shift_well_above_the_spread_is_found_with_three_runs_a_side() {
        let mut draws = Draws(13);
        let mut moved = SHARES;
        // The 10% row grows by 12 points, the 30% row loses them: the 30%
        // row's runs spread by 1.9 points (1.5 between runs, 1.2 of sampling
        // error), so its mean of three by 1.1 and the difference of two
        // means by 1.6: the shift is 7.7 times that.
        moved[2] += 0.12;
        moved[0] -= 0.12;
        let mut found = 0;
        let pairs = 100;
        for _ in 0..pairs {
            let base = side(&mut draws, 3, 1500, &SHARES, 1.5);
            let new = side(&mut draws, 3, 1500, &moved, 1.5);
            let flags = flagged(&base, &new, 1.0);
            if flags[2] && flags[0] {
                found += 1;
            }
            // Only the rows that moved, never one that did not (at this
            // seed; the family-wise rate allows 1%).
            assert!(
                flags.iter().skip(3).filter(|&&flag| flag).count() <= 1,
                "{flags:?}"
            );
        }
        assert!(found >= 90, "the shift was found in {found} of {pairs}");
    }

    #[test]
    fn a_row_noisier_than_the_rest_is_judged_by_its_own_spread() {
        // Kernel time swings with the machine's state (page cache, memory
        // pressure) far more than the compiler's own rows: here the 15% row
        // spreads by 6 points between runs, the others as a 30% row by 1.
        let mut draws = Draws(19);
        let noisy_side = |draws: &mut Draws| {
            let mut rows = side(draws, 3, 1500, &SHARES, 1.0);
            rows[1] = (0..3)
                .map(|_| {
                    let share = (0.15 + draws.normal() * 0.06).clamp(0.0, 1.0);
                    Count {
                        hits: draws.binomial(1500, share),
                        samples: 1500,
                    }
                })
                .collect();
            rows
        };
        let pairs = 200;
        let mut noisy_row_flagged = 0;
        for _ in 0..pairs {
            let (base, new) = (noisy_side(&mut draws), noisy_side(&mut draws));
            if flagged(&base, &new, 0.0)[1] {
                noisy_row_flagged += 1;
            }
        }
        // Judged by the pooled dispersion alone it would be flagged in about
        // a third of the pairs.
        assert!(
            noisy_row_flagged <= 20,
            "the noisy row was flagged in {noisy_row_flagged} of {pairs} pairs"
        );
    }

    #[test]
    fn one_run_a_side_covers_sampling_error_only() {
        let mut draws = Draws(17);
        let base = side(&mut draws, 1, 2000, &SHARES, 0.0);
        let new = side(&mut draws, 1, 2000, &SHARES, 0.0);
        let rows: Vec<RowRuns<'_>> = base
            .iter()
            .zip(&new)
            .map(|(base, new)| RowRuns { base, new })
            .collect();
        let noise = pooled_noise(&rows);
        assert!(noise.sampling_error_only());
        assert_eq!(noise.dispersion, 1.0);
        // 30% vs 36% of 2000 samples: z ≈ 4, beyond sampling error.
        let row = RowRuns {
            base: &[Count {
                hits: 600,
                samples: 2000,
            }],
            new: &[Count {
                hits: 720,
                samples: 2000,
            }],
        };
        let test = test_row(&row, &noise);
        assert!((test.delta_pp - 6.0).abs() < 1e-9, "{test:?}");
        assert!(test.p_value < 1e-4, "{test:?}");
        // 30% vs 31%: z ≈ 0.7, within it.
        let row = RowRuns {
            base: &[Count {
                hits: 600,
                samples: 2000,
            }],
            new: &[Count {
                hits: 620,
                samples: 2000,
            }],
        };
        assert!(test_row(&row, &noise).p_value > 0.4);
    }

    #[test]
    fn the_threshold_is_a_floor_on_the_effect_size() {
        // 2.0 points on 100k samples a side is far beyond sampling error.
        let base = [Count {
            hits: 20_000,
            samples: 100_000,
        }];
        let new = [Count {
            hits: 22_000,
            samples: 100_000,
        }];
        let noise = pooled_noise(&[RowRuns {
            base: &base,
            new: &new,
        }]);
        let test = test_row(
            &RowRuns {
                base: &base,
                new: &new,
            },
            &noise,
        );
        let beyond = |significant| Verdict {
            beyond_noise: true,
            significant,
        };
        assert_eq!(judge(&[test], 1.0, 1.0), [beyond(true)]);
        assert_eq!(judge(&[test], 2.5, 1.0), [beyond(false)]);
    }

    #[test]
    fn empty_rows_and_rows_on_one_side_only_are_handled() {
        let empty = [Count {
            hits: 0,
            samples: 1000,
        }];
        let noise = Noise {
            dispersion: 1.0,
            degrees_of_freedom: None,
        };
        let test = test_row(
            &RowRuns {
                base: &empty,
                new: &empty,
            },
            &noise,
        );
        assert_eq!(
            test,
            Test {
                delta_pp: 0.0,
                p_value: 1.0,
                reachable_pp: 0.0,
            }
        );
        // A row that vanished: 25% of 1000 samples to nothing.
        let gone = [Count {
            hits: 250,
            samples: 1000,
        }];
        let test = test_row(
            &RowRuns {
                base: &gone,
                new: &empty,
            },
            &noise,
        );
        assert!((test.delta_pp + 25.0).abs() < 1e-9);
        assert!(test.p_value < 1e-20, "{test:?}");
        // A side with no samples at all gives no evidence.
        let nothing: [Count; 0] = [];
        let test = test_row(
            &RowRuns {
                base: &nothing,
                new: &gone,
            },
            &noise,
        );
        assert_eq!(test.p_value, 1.0);
    }

    #[test]
    fn rows_too_small_to_reach_the_threshold_do_not_dilute_the_correction() {
        // One row moved 20% → 25.5% of 2000 samples (z ≈ 4.1); 2000 rows of
        // one sample each cannot move by a point.
        let noise = Noise {
            dispersion: 1.0,
            degrees_of_freedom: None,
        };
        let count = |hits| {
            [Count {
                hits,
                samples: 2000,
            }]
        };
        let (base, new, tiny) = (count(400), count(510), count(1));
        let mut tests = vec![test_row(
            &RowRuns {
                base: &base,
                new: &new,
            },
            &noise,
        )];
        tests.extend((0..2000).map(|_| {
            test_row(
                &RowRuns {
                    base: &tiny,
                    new: &tiny,
                },
                &noise,
            )
        }));
        assert_eq!(family_size(&tests, 1.0), 1);
        assert!(judge(&tests, 1.0, 1.0)[0].significant);
        // Counted in, they would hide it: p ≈ 3e-5 is above FAMILY_ALPHA / 2001.
        assert!(!judge(&tests, 1.0, 0.0)[0].significant);
    }

    #[test]
    fn holm_rejects_step_by_step() {
        // m = 4: 0.01 ≤ 0.05/4, 0.015 ≤ 0.05/3, 0.03 > 0.05/2 stops.
        assert_eq!(
            holm(&[0.03, 0.01, 0.5, 0.015], 0.05),
            [false, true, false, true]
        );
        assert_eq!(holm(&[0.02], 0.05), [true]);
        assert!(holm(&[], 0.05).is_empty());
    }
}
