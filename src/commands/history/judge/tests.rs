use super::*;

/// A metric: its name, value, and (samples, total) for a share.
type Given = (&'static str, f64, Option<(i64, i64)>);

fn run(identity: &str, metrics: &[Given]) -> StoredRun {
    StoredRun {
        identity: identity.to_owned(),
        metrics: metrics
            .iter()
            .map(|&(name, value, counts)| Metric {
                name: name.to_owned(),
                value,
                samples: counts.map(|c| c.0),
                total: counts.map(|c| c.1),
            })
            .collect(),
        ..StoredRun::default()
    }
}

fn walls(values: &[f64]) -> Vec<StoredRun> {
    values
        .iter()
        .enumerate()
        .map(|(at, &wall)| run(&format!("r{at}"), &[("wall_seconds", wall, None)]))
        .collect()
}

#[test]
fn the_iqr_fence_is_q3_plus_three_iqr_of_adjacent_relative_changes() {
    // Changes: 10 %, 10 %, 20 %, 0 %, 30 %, 0 %: sorted 0 0 .1 .1 .2 .3,
    // Q1 = 0.025, Q3 = 0.175, fence = 0.175 + 3 · 0.15 = 0.625.
    let values = [100.0, 110.0, 99.0, 118.8, 118.8, 154.44, 154.44];
    let (fence, changes) = iqr_fence(&values).unwrap();
    assert_eq!(changes, 6);
    assert!((fence - 0.625).abs() < 1e-9, "{fence}");
    assert_eq!(iqr_fence(&values[..5]), None, "four changes are too few");
    assert!(
        iqr_fence(&values[..6]).is_some(),
        "five changes make a fence"
    );
}

#[test]
fn a_wall_time_beyond_the_fence_is_flagged_and_one_within_is_not() {
    let history = walls(&[10.0, 10.2, 9.9, 10.1, 10.0, 10.3, 9.8]);
    let old: Vec<&StoredRun> = history.iter().collect();
    let slow = judge(&old, &run("new", &[("wall_seconds", 13.0, None)]), 1.0);
    assert!(slow[0].flagged, "{slow:?}");
    assert!(slow[0].test.contains("IQR fence"), "{}", slow[0].test);
    let same = judge(&old, &run("new", &[("wall_seconds", 10.15, None)]), 1.0);
    assert!(!same[0].flagged, "{same:?}");
    assert_eq!(same[0].median, Some(10.0));
}

#[test]
fn with_little_history_the_fallback_fence_is_used_and_said() {
    let history = walls(&[10.0, 10.5, 9.8]);
    let old: Vec<&StoredRun> = history.iter().collect();
    let within = judge(&old, &run("new", &[("wall_seconds", 11.9, None)]), 1.0);
    assert!(!within[0].flagged);
    assert!(
        within[0].test.contains("fallback fence"),
        "{}",
        within[0].test
    );
    let beyond = judge(&old, &run("new", &[("wall_seconds", 14.0, None)]), 1.0);
    assert!(beyond[0].flagged);
}

#[test]
fn a_noisy_short_history_widens_the_fallback_fence_to_twice_its_range() {
    // Runs 30 % apart: the fence is 60 %, not 35 %.
    let history = walls(&[10.0, 13.0, 11.0]);
    let old: Vec<&StoredRun> = history.iter().collect();
    let within = judge(&old, &run("new", &[("wall_seconds", 16.0, None)]), 1.0);
    assert!(!within[0].flagged, "{within:?}");
    assert!(
        within[0].test.contains("twice their own range"),
        "{}",
        within[0].test
    );
    let beyond = judge(&old, &run("new", &[("wall_seconds", 18.0, None)]), 1.0);
    assert!(beyond[0].flagged, "{beyond:?}");
}

#[test]
fn without_history_nothing_is_judged() {
    assert!(judge(&[], &run("new", &[("wall_seconds", 1.0, None)]), 1.0).is_empty());
}

fn shares(lexer: i64, total: i64) -> Vec<Given> {
    vec![
        ("category:lexer", 0.0, Some((lexer, total))),
        ("category:ir", 0.0, Some((total - lexer, total))),
    ]
}

#[test]
fn a_share_that_moved_is_flagged_by_the_quasi_binomial_test_and_noise_is_not() {
    let history: Vec<StoredRun> = [300, 310, 295, 305, 298]
        .iter()
        .enumerate()
        .map(|(at, &lexer)| run(&format!("r{at}"), &shares(lexer, 1000)))
        .collect();
    let old: Vec<&StoredRun> = history.iter().collect();
    let moved = judge(&old, &run("new", &shares(150, 1000)), 1.0);
    let lexer = moved.iter().find(|j| j.metric == "category:lexer").unwrap();
    assert!(lexer.flagged, "{lexer:?}");
    assert!(lexer.test.starts_with("quasi-binomial"), "{}", lexer.test);
    assert!((lexer.value - 15.0).abs() < 1e-9);
    let same = judge(&old, &run("new", &shares(303, 1000)), 1.0);
    assert!(same.iter().all(|j| !j.flagged), "{same:?}");
}

#[test]
fn a_share_is_beyond_its_spread_only_outside_its_range_widened_by_the_range() {
    // 20 %, 23 %, 20 %, 23 %: the range 3 points, widened to 17–26 %.
    let history = [20.0, 23.0, 20.0, 23.0];
    for within in [17.0, 21.5, 25.5, 26.0] {
        assert!(!beyond_spread(&history, within), "{within}");
    }
    for beyond in [16.9, 26.1, 40.0] {
        assert!(beyond_spread(&history, beyond), "{beyond}");
    }
    // One earlier run has no spread: any change is outside it.
    assert!(beyond_spread(&[20.0], 20.5));
}
