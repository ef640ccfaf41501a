//! Tests of the significance rule on synthetic runs of known spread.

use super::*;
use crate::stats::multiple::{FAMILY_ALPHA, Verdict, family_size, holm, judge};

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
    0.30, 0.15, 0.10, 0.08, 0.06, 0.05, 0.04, 0.035, 0.03, 0.025, 0.02, 0.02, 0.015, 0.015, 0.01,
    0.01, 0.008, 0.005, 0.003, 0.002,
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
    judge(&tests, threshold_pp, threshold_pp, FAMILY_ALPHA)
        .into_iter()
        .map(|verdict| verdict.significant)
        .collect()
}

/// The pooled noise of 40 rows of a 30% share at 2000 samples, six runs each
/// (three a side), with `spread_pp` points of run-to-run spread.
fn pooled_noise_of(draws: &mut Draws, spread_pp: f64) -> Noise {
    let rows: Vec<Vec<Count>> = (0..40)
        .map(|_| {
            (0..6)
                .map(|_| run(draws, 2000, &[0.30], spread_pp)[0])
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
    pooled_noise(&pairs)
}

#[test]
fn the_dispersion_of_runs_with_known_spread_is_recovered() {
    let mut draws = Draws(7);
    // A 30% row at 2000 samples has a sampling spread of 1.02 pp; a
    // run-to-run spread of 3 pp on top makes the variance (1.02² + 3²) /
    // 1.02² ≈ 9.6 times the binomial one.
    let noise = pooled_noise_of(&mut draws, 3.0);
    assert!(
        (7.0..13.0).contains(&noise.dispersion),
        "dispersion {noise:?}, expected about 9.6"
    );
    assert_eq!(noise.degrees_of_freedom, Some(160.0));
    // Without spread between runs, what is left is sampling error: 1.
    let noise = pooled_noise_of(&mut draws, 0.0);
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
    assert_eq!(judge(&[test], 1.0, 1.0, FAMILY_ALPHA), [beyond(true)]);
    assert_eq!(judge(&[test], 2.5, 1.0, FAMILY_ALPHA), [beyond(false)]);
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
            dispersion: 1.0,
            nearly_vanished: None,
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
    assert!(judge(&tests, 1.0, 1.0, FAMILY_ALPHA)[0].significant);
    // Counted in, they would hide it: p ≈ 3e-5 is above FAMILY_ALPHA / 2001.
    assert!(!judge(&tests, 1.0, 0.0, FAMILY_ALPHA)[0].significant);
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

#[test]
fn a_share_that_vanishes_is_tested_exactly() {
    // The lexer in four runs of 600 samples (3.2–4.7 %), none in the new
    // run. The difference over its standard error under the pooled share
    // gives z = 4.9 (p = 1e-6); no sample where 23.5 were expected has the
    // probability e^-23.5, p ≈ 1e-10.
    let base = [19, 28, 24, 23].map(|hits| Count { hits, samples: 600 });
    let new = [Count {
        hits: 0,
        samples: 600,
    }];
    let row = RowRuns {
        base: &base,
        new: &new,
    };
    let noise = Noise {
        dispersion: 1.0,
        degrees_of_freedom: Some(400.0),
    };
    let test = test_row(&row, &noise);
    assert!((test.delta_pp + 3.9).abs() < 0.05, "{test:?}");
    assert!(test.p_value < 1e-9, "{test:?}");
    // Twice the dispersion: the negative binomial's 2^-23.5, p ≈ 2e-7,
    // where the likelihood ratio scaled by it would say 1e-5.
    let noisy = test_row(
        &row,
        &Noise {
            dispersion: 2.0,
            ..noise
        },
    );
    assert!(noisy.p_value > 1e-7 && noisy.p_value < 1e-6, "{noisy:?}");
    // No change, no evidence.
    let same = [Count {
        hits: 24,
        samples: 600,
    }];
    let unchanged = test_row(
        &RowRuns {
            base: &base,
            new: &same,
        },
        &noise,
    );
    assert!(unchanged.p_value > 0.5, "{unchanged:?}");
}

#[test]
fn a_vanished_share_of_a_noisy_row_is_still_flagged() {
    // A clean-clone CI run (2026-12-07): the lexer at 5.2–10.4 % in five
    // unchanged runs of about 600 samples, its own dispersion 4–6, none
    // in the bytecode run. The likelihood ratio scaled by φ gave p = 8e-5,
    // above Holm's first bar over 19 category shares at 0.001 (5.3e-5);
    // no sample where 43 were expected is far less likely than that.
    let base = [(31, 598), (56, 596), (46, 597), (62, 598), (32, 595)]
        .map(|(hits, samples)| Count { hits, samples });
    let against_base = |hits| {
        let new = [Count { hits, samples: 560 }];
        let noise = Noise {
            dispersion: 1.48,
            degrees_of_freedom: Some(60.0),
        };
        test_row(
            &RowRuns {
                base: &base,
                new: &new,
            },
            &noise,
        )
    };
    let test = against_base(0);
    assert!(test.dispersion > 4.0, "{test:?}");
    let (seen, expected) = test.nearly_vanished.unwrap();
    assert!(seen == 0 && (expected - 42.6).abs() < 0.1, "{test:?}");
    assert!(test.p_value < 1e-6, "{test:?}");
    // One sample left (CI's next run, the same day): the likelihood ratio
    // said p = 8e-5; at most one where 43 were expected is as unlikely.
    let test = against_base(1);
    assert_eq!(test.nearly_vanished.map(|(seen, _)| seen), Some(1));
    assert!(test.p_value < 1e-5, "{test:?}");
    // Half the samples is a move the likelihood ratio judges.
    let test = against_base(21);
    assert_eq!(test.nearly_vanished, None);
    assert!(test.p_value > 1e-3, "{test:?}");
}
