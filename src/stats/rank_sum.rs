//! Whether one set of timed runs is slower than another beyond run-to-run
//! noise (`executables --repeat`): the exact one-sided Mann–Whitney
//! (Wilcoxon rank-sum) test, which assumes nothing of the noise's shape
//! and is not swayed by one run that a busy machine slowed down. Plain
//! functions over wall times.

/// The one-sided p-value at or under which one set of runs is slower than
/// another beyond noise. With three runs each the least p-value is 1/20,
/// every run of one slower than every run of the other; with two each it is
/// 1/6, and no order is beyond noise.
pub(crate) const RANKING_ALPHA: f64 = 0.05;

/// The chance, were both sets of runs from the same compile time, that
/// `slower`'s runs would come out at least as far above `faster`'s as they
/// did: the one-sided p-value of Mann–Whitney's U (the pairs of runs, one of
/// each set, in which `slower`'s is longer), counted exactly over every
/// order of the runs. A tie counts as not longer. 1 when a set is empty.
pub(crate) fn slower_p_value(slower: &[f64], faster: &[f64]) -> f64 {
    let (m, n) = (slower.len(), faster.len());
    if m == 0 || n == 0 {
        return 1.0;
    }
    let u = slower
        .iter()
        .map(|s| faster.iter().filter(|f| s > f).count())
        .sum::<usize>();
    let ways = orders_by_u(m, n);
    let total: f64 = ways.iter().sum();
    ways[u..].iter().sum::<f64>() / total
}

/// The number of orders of `m` runs of one set and `n` of another with U =
/// 0, 1, …, m·n (the pairs with the first set's run above), by the
/// recurrence on the longest run: from the first set, it is above all `n`
/// of the other; from the second, above none of the first.
fn orders_by_u(m: usize, n: usize) -> Vec<f64> {
    // ways[j] over U for the current m' and n' = j, built up m' = 0, 1, …, m.
    let mut ways: Vec<Vec<f64>> = (0..=n).map(|_| vec![1.0]).collect();
    for first in 1..=m {
        let mut next: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
        next.push(vec![1.0]);
        for second in 1..=n {
            let mut by_u = vec![0.0; first * second + 1];
            // The longest is of the first set: U grows by `second`.
            for (u, count) in ways[second].iter().enumerate() {
                by_u[u + second] += count;
            }
            // The longest is of the second set: U stays.
            for (u, count) in next[second - 1].iter().enumerate() {
                by_u[u] += count;
            }
            next.push(by_u);
        }
        ways = next;
    }
    ways.swap_remove(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_runs_each_wholly_apart_are_one_order_in_twenty() {
        let p = slower_p_value(&[1.3, 1.2, 1.25], &[1.0, 1.1, 1.05]);
        assert!((p - 1.0 / 20.0).abs() < 1e-12, "{p}");
        assert!(p <= RANKING_ALPHA);
        // One pair the other way round: 2 orders of 20 reach U = 8.
        let p = slower_p_value(&[1.3, 1.2, 1.07], &[1.0, 1.1, 1.05]);
        assert!((p - 2.0 / 20.0).abs() < 1e-12, "{p}");
        assert!(p > RANKING_ALPHA);
    }

    #[test]
    fn two_runs_each_can_never_rank_beyond_noise() {
        let p = slower_p_value(&[9.0, 8.0], &[1.0, 1.1]);
        assert!((p - 1.0 / 6.0).abs() < 1e-12, "{p}");
        assert!(p > RANKING_ALPHA);
    }

    #[test]
    fn ties_and_the_other_order_count_against_and_empty_sets_test_nothing() {
        assert_eq!(slower_p_value(&[1.0, 1.0, 1.0], &[1.0, 1.0, 1.0]), 1.0);
        assert_eq!(slower_p_value(&[1.0, 1.1, 1.2], &[2.0, 2.1, 2.2]), 1.0);
        assert_eq!(slower_p_value(&[], &[1.0]), 1.0);
        assert_eq!(slower_p_value(&[1.0], &[]), 1.0);
    }

    #[test]
    fn the_counts_add_up_to_every_order_and_are_symmetric() {
        for (m, n) in [(1, 1), (3, 3), (4, 2), (5, 7)] {
            let ways = orders_by_u(m, n);
            assert_eq!(ways.len(), m * n + 1);
            let choose = (0..m).fold(1.0, |c, k| c * (n + m - k) as f64 / (k + 1) as f64);
            assert!((ways.iter().sum::<f64>() - choose).abs() < 1e-6, "{m} {n}");
            assert!(ways.iter().zip(ways.iter().rev()).all(|(a, b)| a == b));
        }
        // Four runs each wholly apart: 1 of 70.
        let p = slower_p_value(&[5.0, 6.0, 7.0, 8.0], &[1.0, 2.0, 3.0, 4.0]);
        assert!((p - 1.0 / 70.0).abs() < 1e-12, "{p}");
    }
}
