//! Crediting walked over made-up samples: the main thread's latest and
//! next passes, tasks' own passes, verification.

use super::*;

fn passes(ids: &[usize]) -> Option<CreditedTo> {
    Some(CreditedTo::Passes(
        ids.iter().map(|&id| PassId::new(id)).collect(),
    ))
}

/// [`walk`] over `samples`, looking ahead in them.
fn walk_all<'a>(
    samples: &[Sample<'a, u8, char>],
    verified: impl Fn(u8, Option<i32>, u64) -> Option<Vec<PassId>>,
    nest: impl Fn(&[PassId], Option<&[PassId]>, &TaskPasses) -> Option<Vec<PassId>>,
) -> HashMap<char, Vec<(CreditedTo, u64)>> {
    let ahead = MainAhead::of(samples.iter().map(|s| (s.process, s.time_ns, s.role)));
    walk(samples.iter().copied(), ahead, verified, nest)
}

/// `sample` at `time_ns`.
fn at(time_ns: u64, sample: Sample<'_, u8, char>) -> Sample<'_, u8, char> {
    Sample { time_ns, ..sample }
}

fn sample(process: u8, key: char, role: &KeyRole, kept: bool) -> Sample<'_, u8, char> {
    Sample {
        process,
        tid: 0,
        key,
        role,
        kept,
        time_ns: 0,
    }
}

#[test]
fn workers_take_what_the_main_thread_did_last_and_verification_goes_to_the_pass_manager() {
    let in_pass = KeyRole::Main {
        doing: passes(&[0, 1]),
        in_task: false,
        verifying: false,
        task: None,
    };
    let main_in_task = KeyRole::Main {
        doing: passes(&[0]),
        in_task: true,
        verifying: false,
        task: None,
    };
    let parsing = KeyRole::Main {
        doing: None,
        in_task: false,
        verifying: false,
        task: None,
    };
    let worker = KeyRole::Worker {
        verifying: false,
        own_pipeline: false,
    };
    let verifying = KeyRole::Worker {
        verifying: true,
        own_pipeline: false,
    };
    let kept = KeyRole::Kept;
    // (process, key, role, kept by the filter), in time order.
    let samples = [
        sample(1, 'w', &worker, true),       // before any main sample: nothing
        sample(1, 'm', &in_pass, true),      // main in passes 0 > 1
        sample(1, 'w', &worker, true),       // credited to 0 > 1
        sample(1, 'v', &verifying, true),    // to the pass manager
        sample(2, 'x', &worker, true),       // another process's main never ran
        sample(1, 'k', &kept, true),         // a task with a pass keeps it
        sample(1, 't', &main_in_task, true), // main running a task: its own pass 0
        sample(1, 'w', &worker, false),      // credited, but filtered out
        sample(1, 'w', &worker, true),       // credited to 0
        sample(1, 'p', &parsing, true),      // main outside the pass manager
        sample(1, 'w', &worker, true),       // nothing
    ];
    // Without actions, no pass is known to have just run.
    let credits = walk_all(&samples, |_, _, _| None, |_, _, _| None);
    // Most samples first, then in the order of what they are credited to.
    assert_eq!(
        credits[&'w'],
        [(passes(&[0]).unwrap(), 1), (passes(&[0, 1]).unwrap(), 1)]
    );
    assert_eq!(credits[&'v'], [(CreditedTo::PassManager, 1)]);
    assert_eq!(credits[&'t'], [(passes(&[0]).unwrap(), 1)]);
    for uncredited in ['x', 'k', 'm', 'p'] {
        assert!(!credits.contains_key(&uncredited), "{uncredited}");
    }
}

#[test]
fn a_task_s_passes_go_under_the_main_thread_s_latest_and_next_passes() {
    let main = |ids: &[usize]| KeyRole::Main {
        doing: passes(ids),
        in_task: false,
        verifying: false,
        task: None,
    };
    let (main_in_0_1, main_in_0_2, main_in_3) = (main(&[0, 1]), main(&[0, 2]), main(&[3]));
    let task = || TaskPasses {
        own: vec![PassId::new(9)],
        queued_by: Some(PassId::new(5)),
    };
    let worker = KeyRole::WorkerPasses(task());
    // The main thread running its share of the same pipeline.
    let main_in_task = KeyRole::Main {
        doing: passes(&[0, 5]),
        in_task: false,
        verifying: false,
        task: Some(task()),
    };
    let samples = [
        at(1, sample(1, 'a', &worker, true)), // no main sample yet: its own
        at(2, sample(1, 'm', &main_in_0_1, true)), // main in 0 > 1
        at(3, sample(1, 'b', &worker, true)), // latest 0 > 1, next 0 > 2
        at(4, sample(1, 'n', &main_in_0_2, true)), // main in 0 > 2
        at(5, sample(1, 'e', &main_in_task, true)), // main's own share: 0 > 5
        at(6, sample(2, 'c', &worker, true)), // another process: its own
        at(7, sample(1, 'd', &worker, true)), // latest 0 > 5, no next
        at(8, sample(1, 'o', &main_in_3, true)), // main in 3
    ];
    let credits = walk_all(
        &samples,
        |_, _, _| None,
        |latest, next, task| {
            // What the walk saw, as the credit: latest, a marker, next.
            let mut seen = latest.to_vec();
            seen.push(PassId::new(99));
            seen.extend(next.unwrap_or(&[]));
            seen.extend(&task.own);
            Some(seen)
        },
    );
    let seen = |ids: &[usize]| [(passes(ids).unwrap(), 1)];
    assert_eq!(credits[&'b'], seen(&[0, 1, 99, 0, 2, 9]));
    assert_eq!(credits[&'e'], seen(&[0, 5, 99, 9]));
    assert_eq!(credits[&'d'], seen(&[0, 5, 99, 3, 9]));
    for own in ['a', 'c', 'm', 'n', 'o'] {
        assert!(!credits.contains_key(&own), "{own}");
    }
}

#[test]
fn the_passes_running_a_task_are_those_up_to_its_queuer_or_both_samples_are_in() {
    let ids = |ids: &[usize]| ids.iter().map(|&id| PassId::new(id)).collect::<Vec<_>>();
    let queuer = |pass: PassId| pass == PassId::new(5);
    // The latest sample is in the queuer: up to it.
    assert_eq!(running_passes(&ids(&[0, 5, 7]), None, queuer), ids(&[0, 5]));
    // It is not: the passes the next sample is in too.
    assert_eq!(
        running_passes(&ids(&[0, 1, 2]), Some(&ids(&[0, 1, 5])), queuer),
        ids(&[0, 1])
    );
    assert_eq!(running_passes(&ids(&[0, 1]), Some(&[]), queuer), ids(&[]));
    // No next sample: the latest's.
    assert_eq!(running_passes(&ids(&[0, 1]), None, queuer), ids(&[0, 1]));
}

#[test]
fn verification_goes_to_the_pass_just_run_when_the_actions_name_it() {
    let main_verifying = KeyRole::Main {
        doing: Some(CreditedTo::PassManager),
        in_task: false,
        verifying: true,
        task: None,
    };
    let main_between = KeyRole::Main {
        doing: Some(CreditedTo::PassManager),
        in_task: false,
        verifying: false,
        task: None,
    };
    let main_in_pass_verifying = KeyRole::Main {
        doing: passes(&[0]),
        in_task: false,
        verifying: true,
        task: None,
    };
    let worker_verifying = KeyRole::Worker {
        verifying: true,
        own_pipeline: false,
    };
    let worker_verifying_own = KeyRole::Worker {
        verifying: true,
        own_pipeline: true,
    };
    let samples = [
        at(10, sample(1, 'a', &main_verifying, true)), // after pass 5: its verification
        at(20, sample(1, 'b', &worker_verifying, true)), // the same, on a worker
        at(30, sample(1, 'c', &main_between, true)),   // not verifying: keeps its place
        at(40, sample(1, 'd', &main_in_pass_verifying, true)), // inside pass 0: keeps it
        at(50, sample(1, 'e', &worker_verifying, true)), // no pass known: the pass manager
        at(
            60,
            Sample {
                tid: 9,
                ..sample(1, 'f', &worker_verifying_own, true)
            },
        ), // its own pass 6
    ];
    let (verification_of_5, verification_of_6) = (PassId::new(7), PassId::new(8));
    let credits = walk_all(
        &samples,
        |_, thread, time| match thread {
            None => (time < 50).then(|| vec![verification_of_5]),
            Some(9) => Some(vec![verification_of_6]),
            Some(_) => None,
        },
        |_, _, _| None,
    );
    assert_eq!(
        credits[&'f'],
        [(CreditedTo::Passes(vec![verification_of_6]), 1)]
    );
    let of_5 = CreditedTo::Passes(vec![verification_of_5]);
    assert_eq!(credits[&'a'], [(of_5.clone(), 1)]);
    assert_eq!(credits[&'b'], [(of_5, 1)]);
    assert_eq!(credits[&'e'], [(CreditedTo::PassManager, 1)]);
    assert!(!credits.contains_key(&'c') && !credits.contains_key(&'d'));
}
