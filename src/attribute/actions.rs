//! MLIR's actions (`actions.bin` of `record --actions`) put on perf's
//! clock. The profiler times actions from its own start; perf's samples
//! are CLOCK_MONOTONIC. The offset between them is the one at which the
//! main thread's samples fall inside pass intervals whose pass is on their
//! stacks most often: searched coarse to fine around a first guess. That
//! share of the main thread's samples in a pass is the agreement, which
//! the reports state.

use std::sync::Arc;

use hashbrown::HashMap;

use super::classes::Classes;
use super::pass::{PassId, Passes};
use crate::actions::{ActionKind, Actions, NameIndex, ThreadActions};
use crate::mlir_timing::{TimerKind, TimerTotal, Timers};
use crate::profile::Profile;
use crate::stacks::StackId;

/// How far from the first guess the offset is searched, in nanoseconds,
/// then each finer stage's: (span either side, step, main-thread samples
/// scored per candidate, spread evenly). The agreement is then counted over
/// all of them.
const SEARCH: [(u64, u64, usize); 3] = [
    (5_000_000_000, 2_000_000, 500),
    (4_000_000, 50_000, 4_000),
    (100_000, 2_000, 4_000),
];

/// The actions on perf's clock.
#[derive(Debug)]
pub(crate) struct ActionJoin {
    pub actions: Actions,
    /// perf's time (ns) of the profiler's zero.
    pub origin_ns: u64,
    pub agreement: Agreement,
    /// The thread of each tid.
    threads: HashMap<i32, usize>,
    /// The stacks' pass of each action pass name that has one.
    pass_of: HashMap<NameIndex, PassId>,
    /// The row of the verification of each action pass's output.
    verifications: HashMap<NameIndex, PassId>,
}

/// How well the actions agree with the stacks: of the main thread's
/// samples with a pass on the stack, those inside a pass interval of a
/// pass on the stack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Agreement {
    pub samples: u64,
    pub agreeing: u64,
}

impl Agreement {
    pub(crate) fn percent(&self) -> f64 {
        super::percent(self.agreeing, self.samples)
    }
}

impl ActionJoin {
    /// The actions of thread `tid`, if it had any.
    pub(crate) fn thread(&self, tid: i32) -> Option<&ThreadActions> {
        self.threads.get(&tid).map(|&at| &self.actions.threads[at])
    }

    /// What a sample that verifies IR at `time_ns` is credited to, outermost
    /// pass first, the row last:
    /// - on `thread` (a thread verifying the pipeline it runs), the
    ///   verification of the pass that ended last there;
    /// - else by the main thread: when it is between passes, the
    ///   verification of the pass it ran last; inside a pass's run, that
    ///   pass, which queued the work; inside a nested pipeline's adaptor,
    ///   the verification of the pass that ended last on the thread that
    ///   was between passes, the pipeline's owner.
    pub(crate) fn verification_at(&self, thread: Option<i32>, time_ns: u64) -> Option<Vec<PassId>> {
        let time_us = self.action_time_us(time_ns)?;
        let verified = |tid: i32| match self.thread(tid)?.just_ended(time_us)? {
            ended if ended.kind == ActionKind::Pass => {
                Some((ended.end_us, *self.verifications.get(&ended.name)?))
            }
            _ => None,
        };
        if let Some(tid) = thread {
            return verified(tid).map(|(_, row)| vec![row]);
        }
        let main = self.thread(self.actions.main_tid)?;
        if main.just_ended(time_us).is_some() {
            return verified(self.actions.main_tid).map(|(_, row)| vec![row]);
        }
        let mut running: Vec<PassId> = main
            .chain(main.innermost_at(time_us))
            .filter(|interval| interval.kind == ActionKind::Pass)
            .filter_map(|interval| self.pass_of.get(&interval.name).copied())
            .collect();
        if !running.is_empty() {
            running.reverse();
            return Some(running);
        }
        (self.actions.threads.iter())
            .filter(|thread| thread.tid != self.actions.main_tid)
            .filter_map(|thread| verified(thread.tid))
            .max_by_key(|&(ended_us, _)| ended_us)
            .map(|(_, row)| vec![row])
    }

    /// A sample's time on the profiler's clock, in microseconds; `None`
    /// before the profiler started.
    pub(crate) fn action_time_us(&self, time_ns: u64) -> Option<u64> {
        time_ns.checked_sub(self.origin_ns).map(|ns| ns / 1000)
    }
}

/// A main-thread sample: its time and the passes on its stack.
struct MainSample {
    time_ns: u64,
    passes: Arc<[PassId]>,
}

/// Puts `actions` on perf's clock, by the passes on the main thread's
/// stacks; `declared` holds the `(class, timer name)` pairs the binaries
/// declare, as for MLIR's timers.
pub(crate) fn join_actions(
    profile: &Profile,
    classes: &mut Classes<'_>,
    actions: Actions,
    declared: &[(String, String)],
) -> ActionJoin {
    let threads = actions
        .threads
        .iter()
        .enumerate()
        .map(|(at, thread)| (thread.tid, at))
        .collect();
    let pass_of = pass_ids(classes, &actions, declared);
    let samples = main_samples(profile, classes, actions.main_tid);
    let (origin_ns, agreement) = match actions.thread(actions.main_tid) {
        Some(main) if !samples.is_empty() => anchor(main, &pass_of, &samples),
        _ => (0, Agreement::default()),
    };
    let verifications = verification_rows(&mut classes.passes, &actions, &pass_of);
    ActionJoin {
        actions,
        origin_ns,
        agreement,
        threads,
        pass_of,
        verifications,
    }
}

/// The verification row of each action pass: the stack pass's when there is
/// one, else one named after the action's pass.
fn verification_rows(
    passes: &mut Passes,
    actions: &Actions,
    pass_of: &HashMap<NameIndex, PassId>,
) -> HashMap<NameIndex, PassId> {
    (actions.pass_names().into_iter())
        .map(|name| {
            let row = match pass_of
                .get(&name)
                .and_then(|&pass| passes.verification(pass))
            {
                Some(row) => row,
                None => passes.add_verification(actions.name(name)),
            };
            (name, row)
        })
        .collect()
}

/// The stack pass of each action pass name, joined as MLIR's timers are.
fn pass_ids(
    classes: &Classes<'_>,
    actions: &Actions,
    declared: &[(String, String)],
) -> HashMap<NameIndex, PassId> {
    let names = actions.pass_names();
    let timers = Timers {
        names: names
            .iter()
            .map(|&name| TimerTotal {
                name: actions.name(name).to_owned(),
                kind: TimerKind::Pass,
                wall_seconds: 0.0,
                user_seconds: 0.0,
                timers: 1,
            })
            .collect(),
        total_wall_seconds: None,
    };
    let joined = super::timers::join(classes.passes.names(), declared, &timers);
    let by_name: HashMap<&str, NameIndex> = names
        .iter()
        .map(|&name| (actions.name(name), name))
        .collect();
    joined
        .passes
        .iter()
        .filter_map(|(&pass, timer)| Some((*by_name.get(timer.name.as_str())?, pass)))
        .collect()
}

/// The samples of thread `tid` with a pass on their stack, by time.
fn main_samples(profile: &Profile, classes: &Classes<'_>, tid: i32) -> Vec<MainSample> {
    let mut passes_of: HashMap<Option<StackId>, Arc<[PassId]>> = HashMap::new();
    let mut symbols = Vec::new();
    let mut passes = Vec::new();
    let mut samples = Vec::new();
    for sample in &profile.stacks.timeline {
        if profile.processes.thread(sample.key.thread).tid != tid {
            continue;
        }
        let on_stack = passes_of.entry(sample.key.stack).or_insert_with(|| {
            symbols.clear();
            profile.symbols_leaf_first(sample.key.stack, &mut symbols);
            classes.passes.on_stack(&symbols, &mut passes);
            // The actions name a nested compiler's passes as the passes.
            (passes.iter())
                .map(|&pass| classes.passes.frame_pass(pass))
                .collect()
        });
        if !on_stack.is_empty() {
            samples.push(MainSample {
                time_ns: sample.time,
                passes: on_stack.clone(),
            });
        }
    }
    samples.sort_by_key(|sample| sample.time_ns);
    samples
}

/// Whether the innermost pass interval at `time_ns` (with the profiler's
/// zero at `origin_ns`) is of a pass on the sample's stack.
fn agrees(
    main: &ThreadActions,
    pass_of: &HashMap<NameIndex, PassId>,
    origin_ns: u64,
    sample: &MainSample,
) -> bool {
    let Some(time_us) = sample.time_ns.checked_sub(origin_ns).map(|ns| ns / 1000) else {
        return false;
    };
    main.chain(main.innermost_at(time_us))
        .find(|interval| interval.kind == ActionKind::Pass)
        .and_then(|interval| pass_of.get(&interval.name))
        .is_some_and(|pass| sample.passes.contains(pass))
}

/// The offset with the most agreeing samples, and the agreement there.
fn anchor(
    main: &ThreadActions,
    pass_of: &HashMap<NameIndex, PassId>,
    samples: &[MainSample],
) -> (u64, Agreement) {
    let score = |origin: u64, scored: &[&MainSample]| {
        scored
            .iter()
            .filter(|sample| agrees(main, pass_of, origin, sample))
            .count()
    };
    // First guess: the first sample in a pass is in the first pass interval.
    let first_pass_us = main
        .intervals
        .iter()
        .find(|interval| interval.kind == ActionKind::Pass)
        .map_or(0, |interval| interval.begin_us);
    let mut best = samples[0].time_ns.saturating_sub(first_pass_us * 1000);
    for (span, step, sampled) in SEARCH {
        let every = samples.len().div_ceil(sampled).max(1);
        let scored: Vec<&MainSample> = samples.iter().step_by(every).collect();
        let from = best.saturating_sub(span);
        let candidates = (from..=best + span).step_by(step as usize);
        let mut best_score = score(best, &scored);
        for origin in candidates {
            let here = score(origin, &scored);
            if here > best_score {
                (best, best_score) = (origin, here);
            }
        }
    }
    let agreeing = samples
        .iter()
        .filter(|sample| agrees(main, pass_of, best, sample))
        .count() as u64;
    (
        best,
        Agreement {
            samples: samples.len() as u64,
            agreeing,
        },
    )
}
