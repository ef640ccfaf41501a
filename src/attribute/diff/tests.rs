//! Tests of `attribute::diff`.

use std::path::PathBuf;

use super::*;
use crate::attribute::runs::RowCounts;

/// A run of `samples` samples with rows `(key, self, inclusive)`, 2 ms each.
fn run(samples: u64, rows: &[(&str, u64, u64)]) -> RunRows {
    RunRows {
        input: PathBuf::from("perf.data"),
        samples,
        lost_samples: 0,
        seconds_per_sample: Some(0.002),
        rows: rows
            .iter()
            .map(|&(key, own, inclusive)| {
                (
                    key.to_owned(),
                    RowCounts {
                        name: key.to_uppercase(),
                        color: None,
                        self_samples: own,
                        inclusive_samples: inclusive,
                    },
                )
            })
            .collect(),
    }
}

fn side(runs: Vec<RunRows>) -> Side {
    Side {
        name: "side".to_owned(),
        runs,
        measures: Vec::new(),
        compiled: SideRuns::default(),
    }
}

/// Three runs a side: `lexer` falls from 30% to nothing, `hash` grows
/// from 20% to 32% (of a shorter compile), `ir` stays.
fn compared() -> Diff {
    let base = (0..3)
        .map(|index| {
            run(
                1000,
                &[
                    ("lexer", 300 + index, 310),
                    ("hash", 200, 200),
                    ("ir", 100, 400),
                ],
            )
        })
        .collect();
    let new = (0..3)
        .map(|index| run(700, &[("hash", 224 - index, 224), ("ir", 70, 280)]))
        .collect();
    diff(side(base), side(new), 1.0, 1.0)
}

#[test]
fn rows_are_shares_of_the_runs_together_sorted_by_the_change() {
    let compared = compared();
    let keys: Vec<&str> = compared.rows.iter().map(|row| row.key.as_str()).collect();
    assert_eq!(keys, ["lexer", "hash", "ir"]);
    let lexer = &compared.rows[0];
    assert_eq!(lexer.base_self_percent, 30.1);
    assert_eq!(lexer.new_self_percent, 0.0);
    assert_eq!(lexer.delta_self_pp, -30.1);
    assert_eq!(lexer.base_self_seconds, Some(0.6));
    assert_eq!(lexer.new_self_seconds, Some(0.0));
    assert!(lexer.significant_self && lexer.significant_inclusive);
    let hash = &compared.rows[1];
    // 20% → 31.86%: the same 0.45 s a run in a compile of 1.4 s, not 2.
    assert_eq!(hash.delta_self_pp, 11.86);
    assert_eq!(
        hash.delta_self_pp,
        round2(hash.new_self_percent - hash.base_self_percent)
    );
    assert_eq!(
        (hash.base_self_seconds, hash.new_self_seconds),
        (Some(0.4), Some(0.45))
    );
    assert!(hash.significant_self);
    let ir = &compared.rows[2];
    assert_eq!((ir.delta_self_pp, ir.delta_inclusive_pp), (0.0, 0.0));
    assert!(!ir.significant);
    let seconds = |side: &Side| Diff::cpu_seconds(side).unwrap();
    assert!((seconds(&compared.base) - 2.0).abs() < 1e-9);
    assert!((seconds(&compared.new) - 1.4).abs() < 1e-9);
    assert!(compared.method().starts_with("3 runs vs 3 runs"));
}

#[test]
fn the_gate_fails_on_shares_grown_beyond_their_limit() {
    let compared = compared();
    let measures = |failed: &[Failure]| -> Vec<(String, &'static str)> {
        failed
            .iter()
            .map(|failure| (failure.name.clone(), failure.measure))
            .collect()
    };
    let all = failures(
        &compared,
        &Limits {
            fail_on_regression: true,
            max_increase: Vec::new(),
        },
    );
    assert_eq!(
        measures(&all),
        [
            ("HASH".to_owned(), "self"),
            ("HASH".to_owned(), "inclusive")
        ]
    );
    // A limit of its own above the growth lets the row pass.
    let limited = failures(
        &compared,
        &Limits {
            fail_on_regression: true,
            max_increase: vec![("hash".to_owned(), 15.0)],
        },
    );
    assert!(limited.is_empty(), "{limited:?}");
    // A limit alone checks only its row.
    let one = failures(
        &compared,
        &Limits {
            fail_on_regression: false,
            max_increase: vec![("ir".to_owned(), 0.0), ("hash".to_owned(), 5.0)],
        },
    );
    assert_eq!(one.len(), 2);
    assert!(one.iter().all(|failure| failure.limit_pp == 5.0));
    assert!(failures(&compared, &Limits::default()).is_empty());
}

#[test]
fn a_sides_cpu_seconds_per_run_is_the_median_as_in_the_runs_table() {
    // 2, 2 and 8 CPU seconds: the mean would say 4.
    let runs = [1000, 1000, 4000].map(|samples| run(samples, &[("ir", samples, samples)]));
    let side = side(runs.into());
    assert_eq!(Diff::cpu_seconds(&side), Some(2.0));
}
