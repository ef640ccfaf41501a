//! Whether the order of `executables`' ranking is beyond run-to-run noise:
//! each step from one executable to the next (slowest first) tested on the
//! two executables' timed runs, and the sentence that says what the order
//! can be trusted for.

use super::{ExecutableEntry, RankingNoise};
use crate::stats::rank_sum::{RANKING_ALPHA, slower_p_value};

/// Tests each step of `executables` (ranked slowest first, each with the
/// wall times of its runs), marks it on the slower executable, and sums
/// them up; `runs_each` is the compiles asked of each.
pub(crate) fn test_order(executables: &mut [ExecutableEntry], runs_each: usize) -> RankingNoise {
    let (mut tested, mut beyond) = (0, 0);
    for at in 1..executables.len() {
        let (slower, faster) = (&executables[at - 1], &executables[at]);
        if slower.wall_runs_seconds.len() < 2 || faster.wall_runs_seconds.len() < 2 {
            continue;
        }
        let p = slower_p_value(&slower.wall_runs_seconds, &faster.wall_runs_seconds);
        tested += 1;
        beyond += usize::from(p <= RANKING_ALPHA);
        let slower = &mut executables[at - 1];
        slower.p_value_vs_next = Some(p);
        slower.beyond_noise_of_next = Some(p <= RANKING_ALPHA);
    }
    let top_within = executables
        .first()
        .is_some_and(|first| first.beyond_noise_of_next == Some(false));
    RankingNoise {
        runs_each,
        steps_tested: tested,
        steps_beyond_noise: beyond,
        alpha: RANKING_ALPHA,
        statement: statement(runs_each, tested, beyond, top_within),
    }
}

/// The sentence about the order: `tested` steps, `beyond` of them beyond
/// noise, and whether the slowest two are within noise of each other.
fn statement(runs_each: usize, tested: usize, beyond: usize, top_within: bool) -> String {
    if runs_each < 2 {
        return "the order is not tested against run-to-run noise: each executable was \
                compiled once (--repeat 3 tests it)"
            .to_owned();
    }
    let test = format!(
        "{runs_each} runs each, ranked by the median; a step is beyond noise when the slower's \
         runs are longer than the next one's at one-sided p ≤ {RANKING_ALPHA} (Mann–Whitney)"
    );
    let few = if runs_each == 2 {
        "; with 2 runs each no step can be, --repeat 3 at least"
    } else {
        ""
    };
    let top = if top_within {
        "; the slowest two are within noise of each other"
    } else {
        ""
    };
    if tested == 0 {
        format!(
            "the order is not tested: no two executables next to each other both have two runs ({test})"
        )
    } else if beyond == 0 {
        format!("the whole order is within run-to-run noise ({test}{few})")
    } else if beyond == tested {
        format!("every step of the order is beyond run-to-run noise ({test})")
    } else {
        format!(
            "{beyond} of {tested} steps of the order are beyond run-to-run noise (marked >), the \
             rest within it (≈){top} ({test})"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::entry;
    use super::*;

    fn ranked(runs: &[&[f64]]) -> Vec<ExecutableEntry> {
        runs.iter()
            .enumerate()
            .map(|(at, walls)| {
                let mut entry = entry(&format!("e{at}"), walls[0], Some(0), false);
                entry.wall_runs_seconds = walls.to_vec();
                entry
            })
            .collect()
    }

    #[test]
    fn each_step_is_marked_on_the_slower_and_the_summary_counts_them() {
        let mut executables = ranked(&[
            &[4.0, 4.2, 3.9],
            &[1.2, 1.0, 1.1],
            &[1.05, 1.15, 0.95],
            &[0.5, 0.55, 0.52],
        ]);
        let noise = test_order(&mut executables, 3);
        let marks: Vec<Option<bool>> = executables
            .iter()
            .map(|entry| entry.beyond_noise_of_next)
            .collect();
        assert_eq!(marks, [Some(true), Some(false), Some(true), None]);
        assert_eq!((noise.steps_tested, noise.steps_beyond_noise), (3, 2));
        assert!(
            noise
                .statement
                .starts_with("2 of 3 steps of the order are beyond run-to-run noise"),
            "{}",
            noise.statement
        );
        assert!(
            !noise.statement.contains("slowest two"),
            "{}",
            noise.statement
        );
    }

    #[test]
    fn a_ranking_within_noise_says_so_and_one_run_is_not_tested() {
        let mut executables = ranked(&[&[1.2, 1.0, 1.1], &[1.05, 1.15, 0.95]]);
        let noise = test_order(&mut executables, 3);
        assert_eq!(executables[0].beyond_noise_of_next, Some(false));
        assert!(
            noise
                .statement
                .starts_with("the whole order is within run-to-run noise"),
            "{}",
            noise.statement
        );
        let mut once = ranked(&[&[2.0], &[1.0]]);
        let noise = test_order(&mut once, 1);
        assert_eq!(
            (noise.steps_tested, once[0].beyond_noise_of_next),
            (0, None)
        );
        assert!(
            noise.statement.contains("not tested"),
            "{}",
            noise.statement
        );
        assert!(
            noise.statement.contains("--repeat 3"),
            "{}",
            noise.statement
        );
    }

    #[test]
    fn the_slowest_two_within_noise_are_named() {
        let mut executables = ranked(&[&[1.2, 1.0, 1.1], &[1.05, 1.15, 0.95], &[0.3, 0.31, 0.32]]);
        let noise = test_order(&mut executables, 3);
        assert!(
            noise
                .statement
                .contains("the slowest two are within noise of each other"),
            "{}",
            noise.statement
        );
    }
}
