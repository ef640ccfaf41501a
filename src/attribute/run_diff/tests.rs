//! Tests of the runs' facts side by side and the gate on them.

use super::*;

/// A run of `wall` seconds and `rss` MiB whose output holds `members`.
fn run(wall: f64, rss: u64, members: &[(&str, u64)]) -> RunMeasures {
    RunMeasures {
        wall_seconds: Some(wall),
        cpu_seconds: Some(wall * 0.9),
        peak_rss_bytes: Some(rss << 20),
        peak_anon_bytes: Some(rss << 19),
        artifacts: vec![Artifact::vmfb_of(members, 100)],
    }
}

const LINKED: [(&str, u64); 2] = [
    ("module.fb", 9788),
    ("d_linked_embedded_elf_x86_64.so", 79176),
];
const SEPARATE: [(&str, u64); 3] = [
    ("module.fb", 12412),
    ("main_dispatch_0_embedded_elf_x86_64.so", 17536),
    ("main_dispatch_1_embedded_elf_x86_64.so", 16312),
];

fn measure(compared: &RunDiff, measure: Measure) -> &MeasureDiff {
    compared
        .measures
        .iter()
        .find(|measured| measured.measure == measure)
        .unwrap()
}

#[test]
fn members_match_by_name_and_are_added_or_removed() {
    let compared = run_diff(&[run(2.0, 140, &LINKED)], &[run(6.0, 144, &SEPARATE)]);
    let members: Vec<(&str, Option<u64>, Option<u64>)> = compared
        .members
        .iter()
        .map(|member| (member.name.as_str(), member.base_bytes, member.new_bytes))
        .collect();
    assert_eq!(
        members,
        [
            ("d_linked", Some(79176), None),
            ("main_dispatch_0", None, Some(17536)),
            ("main_dispatch_1", None, Some(16312)),
            ("module.fb", Some(9788), Some(12412)),
        ]
    );
    let executables = &compared.kinds[0];
    assert_eq!(
        (
            executables.kind,
            executables.base_bytes,
            executables.new_bytes
        ),
        (MemberKind::Executable, 79176, 33848)
    );
    let size = measure(&compared, Measure::ArtifactBytes);
    assert_eq!(size.delta_percent, Some(-47.95));
    assert!(size.counts());
    // One run a side: the wall time's change is shown, not judged.
    let wall = measure(&compared, Measure::Wall);
    assert_eq!(wall.delta_percent, Some(200.0));
    assert_eq!(wall.beyond_spread, Some(false));
    assert!(!wall.counts());
}

#[test]
fn times_count_only_beyond_the_spread_of_three_runs_a_side() {
    let base: Vec<RunMeasures> = [2.0, 2.2, 2.1]
        .iter()
        .map(|&wall| run(wall, 140, &LINKED))
        .collect();
    let slower: Vec<RunMeasures> = [2.5, 2.4, 2.6]
        .iter()
        .map(|&wall| run(wall, 141, &LINKED))
        .collect();
    let overlapping: Vec<RunMeasures> = [2.15, 2.5, 2.6]
        .iter()
        .map(|&wall| run(wall, 140, &LINKED))
        .collect();
    let compared = run_diff(&base, &slower);
    let wall = measure(&compared, Measure::Wall);
    assert_eq!(wall.base.as_ref().unwrap().median, 2.1);
    assert_eq!(wall.delta_percent, Some(19.05));
    assert_eq!(wall.beyond_spread, Some(true));
    let limits = [(Measure::Wall, 10.0), (Measure::PeakRss, 0.5)];
    let failed: Vec<Measure> = run_failures(&compared, &limits, WallGate::WithCpu)
        .iter()
        .map(|failure| failure.measure)
        .collect();
    assert_eq!(failed, [Measure::Wall, Measure::PeakRss]);
    // The last limit given holds.
    assert!(
        run_failures(
            &compared,
            &[(Measure::Wall, 10.0), (Measure::Wall, 20.0)],
            WallGate::WithCpu
        )
        .is_empty()
    );
    let compared = run_diff(&base, &overlapping);
    let wall = measure(&compared, Measure::Wall);
    assert_eq!(wall.beyond_spread, Some(false));
    assert!(run_failures(&compared, &limits, WallGate::WithCpu).is_empty());
    // The same members on both sides: no kind or member changed, size passes.
    assert!(compared.members.iter().all(|member| member.delta() == 0));
    assert!(
        run_failures(
            &compared,
            &[(Measure::ArtifactBytes, 0.0)],
            WallGate::WithCpu
        )
        .is_empty()
    );
}

#[test]
fn a_wall_time_that_grew_without_the_cpu_time_is_the_machine_not_the_compile() {
    let base: Vec<RunMeasures> = [2.0, 2.2, 2.1]
        .iter()
        .map(|&wall| run(wall, 140, &LINKED))
        .collect();
    // Wall +33 %, every run above every base run; CPU as before.
    let busy: Vec<RunMeasures> = [2.7, 2.8, 2.9]
        .iter()
        .zip(&base)
        .map(|(&wall, before)| RunMeasures {
            wall_seconds: Some(wall),
            ..before.clone()
        })
        .collect();
    let compared = run_diff(&base, &busy);
    let limits = [(Measure::Wall, 10.0)];
    assert!(run_failures(&compared, &limits, WallGate::WithCpu).is_empty());
    let said = compared.busy_machine().expect("said");
    assert!(
        said.starts_with("wall moved (+33.3 %), CPU did not (+0.0 %): the machine was busy"),
        "{said}"
    );
    assert_eq!(run_failures(&compared, &limits, WallGate::Alone).len(), 1);
    // Both grew: the wall time counts, and nothing is said.
    let slower: Vec<RunMeasures> = [2.7, 2.8, 2.9]
        .iter()
        .map(|&wall| run(wall, 140, &LINKED))
        .collect();
    let compared = run_diff(&base, &slower);
    assert_eq!(run_failures(&compared, &limits, WallGate::WithCpu).len(), 1);
    assert_eq!(compared.busy_machine(), None);
}

#[test]
fn runs_without_run_json_compare_their_cpu_time_only() {
    let bare = RunMeasures {
        cpu_seconds: Some(1.5),
        ..RunMeasures::default()
    };
    let compared = run_diff(std::slice::from_ref(&bare), std::slice::from_ref(&bare));
    let measures: Vec<Measure> = compared.measures.iter().map(|m| m.measure).collect();
    assert_eq!(measures, [Measure::Cpu]);
    assert!(compared.kinds.is_empty() && compared.members.is_empty());
}
