//! Thread-pool work credited to the pass that queued it. A compiler thread
//! that runs a thread-pool task (parallel verification, patterns applied in
//! parallel, LLVM's codegen of executables) has no pass frame on its stack:
//! the pass that queued the task is on the main thread's. Such a sample is
//! credited to what the main thread was doing at that instant, as of the
//! main thread's latest sample (it waits for its tasks off the CPU,
//! unsampled): the passes it was in or, when it was in the pass manager
//! outside any pass (a nested pipeline's adaptor, verification), the pass
//! manager. A sample of the main thread itself running a task is credited
//! the same way, from the frames below its task runner. A task that
//! verifies IR is the pass manager's verification of a pass's output, which
//! it spreads over the threads after the pass: it is credited to the pass
//! manager whenever the main thread is in it. Credited samples
//! are counted as such ([`super::RowTotals::credited_samples`]), never
//! silently. With the run's actions, verification goes instead to the
//! pass whose output it verifies, by the actions' intervals
//! ([`ActionJoin::verification_at`]). Samples before the main thread's first pass, or while it is
//! outside the pass manager, stay where their stacks put them.
//!
//! A thread-pool task that runs passes (a pipeline run on many ops at once
//! by IREE's pipeline adaptor, or by a nested compiler such as const-eval's
//! JIT) shows its own passes but not those the main thread runs that
//! pipeline in. Its passes are credited under them, as
//! [`running_passes`] finds them: the main thread's latest sample's passes
//! up to the pass that queued the task (the task's frames name it), or,
//! when that sample is not in it, the passes both the latest and the next
//! main-thread sample are in, with the queuing pass added; under a nested
//! compiler, the task's passes are its own. A worker's ApplyPatternsPass,
//! queued by the JIT's OpPipelineAdaptorPass inside its
//! FixedPointIteratorPass, counts in `JitGlobalsPass > ApplyPatternsPass`
//! and in the inclusive samples of `JitGlobalsPass >
//! OpPipelineAdaptorPass`, `JitGlobalsPass > FixedPointIteratorPass` and
//! `JitGlobalsPass`. Only the passes not on the task's own stack count
//! those samples as credited.

use std::hash::Hash;

use hashbrown::HashMap;

use super::PassId;
use super::actions::ActionJoin;
use super::classes::Classes;
use super::pass::OutsidePass;
use super::row_key::RowKey;
use crate::process::ProcessId;
use crate::profile::{Profile, SampleFilter, is_compiler};
use crate::stacks::SampleKey;

/// The category of the IR verifier's functions.
const VERIFIER: &str = "verifier";

/// What samples are credited to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum CreditedTo {
    /// These passes, outermost first.
    Passes(Vec<PassId>),
    /// The pass manager, between or around passes.
    PassManager,
}

impl CreditedTo {
    /// The passes credited (outermost first) and the row of the innermost:
    /// the pass manager's place when there is no pass.
    pub(crate) fn passes_and_place(&self) -> (&[PassId], RowKey) {
        match self {
            CreditedTo::Passes(passes) => (
                passes,
                passes.last().map_or(
                    RowKey::OutsidePass(OutsidePass::PassManager),
                    |&innermost| RowKey::Pass(innermost),
                ),
            ),
            CreditedTo::PassManager => (&[], RowKey::OutsidePass(OutsidePass::PassManager)),
        }
    }
}

/// The samples of each key credited elsewhere, and how many; the key's
/// other samples keep their place.
#[derive(Debug, Default)]
pub(crate) struct Credits {
    by_key: HashMap<SampleKey, Vec<(CreditedTo, u64)>>,
}

impl Credits {
    /// The credited parts of `key`'s samples.
    pub(crate) fn of(&self, key: &SampleKey) -> &[(CreditedTo, u64)] {
        self.by_key.get(key).map_or(&[], Vec::as_slice)
    }
}

/// The passes a thread-pool task runs, and the pass that queued it.
#[derive(Debug, Default)]
struct TaskPasses {
    /// Outermost first.
    own: Vec<PassId>,
    /// The pass whose run queued the task, when its frames say so (IREE's
    /// pipeline adaptor); `None` when the pass manager's adaptor did.
    queued_by: Option<PassId>,
}

/// What a key's samples are to crediting.
enum KeyRole {
    /// A sample of the compiler's main thread: what it is doing below any
    /// task it runs, and whether it runs one.
    Main {
        doing: Option<CreditedTo>,
        in_task: bool,
        verifying: bool,
        /// The task it runs, when the task runs passes (its share of a
        /// pipeline run on many ops at once).
        task: Option<TaskPasses>,
    },
    /// A sample of another compiler thread running passes in a task: under
    /// the passes the main thread runs that task's pipeline in.
    WorkerPasses(TaskPasses),
    /// A sample of another compiler thread with no pass on its stack;
    /// `verifying` when its task verifies IR, `own_pipeline` when that is
    /// the verification of a pipeline the thread runs itself (the pass
    /// manager is on its stack), not a part of the main thread's.
    Worker { verifying: bool, own_pipeline: bool },
    /// Anything else: it keeps its place.
    Kept,
}

/// The credits of the samples `filter` keeps, walked in time order; with
/// the run's `actions`, verification is credited to the pass verified.
pub(crate) fn credit_workers(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    actions: Option<&ActionJoin>,
) -> Credits {
    let passes = &classes.passes;
    let verifier = classes.table.find(VERIFIER);
    let mut roles: HashMap<SampleKey, KeyRole> = HashMap::new();
    let mut symbols = Vec::new();
    let mut on_stack = Vec::new();
    let mut role_of = |key: SampleKey, main_thread: bool| -> KeyRole {
        symbols.clear();
        profile.symbols_leaf_first(key.stack, &mut symbols);
        let cut = passes.task_cut(&symbols);
        let task = &symbols[..cut.unwrap_or(symbols.len())];
        passes.on_stack(task, &mut on_stack);
        let task_has_pass = !on_stack.is_empty();
        let verifying = task
            .iter()
            .any(|&symbol| Some(classes.category_of(symbol)) == verifier);
        let task_passes = || TaskPasses {
            own: on_stack.clone(),
            queued_by: passes.queued_by(task),
        };
        if !main_thread {
            return match task_has_pass {
                true if cut.is_some() => KeyRole::WorkerPasses(task_passes()),
                true => KeyRole::Kept,
                false => KeyRole::Worker {
                    verifying,
                    own_pipeline: passes.managed(task),
                },
            };
        }
        let task = (cut.is_some() && task_has_pass).then(task_passes);
        let below = &symbols[cut.unwrap_or(0)..];
        passes.on_stack(below, &mut on_stack);
        let doing = if !on_stack.is_empty() {
            Some(CreditedTo::Passes(on_stack.clone()))
        } else if passes.managed(below) {
            Some(CreditedTo::PassManager)
        } else {
            None
        };
        KeyRole::Main {
            doing,
            in_task: cut.is_some() && !task_has_pass,
            verifying,
            task,
        }
    };
    for sample in &profile.stacks.timeline {
        let thread = profile.processes.thread(sample.key.thread);
        let image = profile.processes.image(thread.process);
        if is_compiler(image) && !roles.contains_key(&sample.key) {
            let role = role_of(sample.key, thread.tid == image.pid);
            roles.insert(sample.key, role);
        }
    }
    let sample_of = |sample: &crate::stacks::TimedSample| {
        let role = roles.get(&sample.key)?;
        let thread = profile.processes.thread(sample.key.thread);
        Some(Sample {
            process: thread.process,
            tid: thread.tid,
            key: sample.key,
            role,
            kept: profile.keeps(filter, &sample.key),
            time_ns: sample.time,
        })
    };
    // The actions are the compiler's, whose main thread's tid is its pid.
    let verified = |process: ProcessId, thread: Option<i32>, time_ns: u64| {
        let join =
            actions.filter(|join| profile.processes.image(process).pid == join.actions.main_tid)?;
        join.verification_at(thread, time_ns)
    };
    // A task's passes under the passes the main thread runs its pipeline
    // in: as a nested compiler's own when one of them is one.
    let nest = |latest: &[PassId], next: Option<&[PassId]>, task: &TaskPasses| {
        let own = &task.own;
        if passes.nested_compiler(own).is_some()
            || own.iter().any(|&pass| passes.parent(pass).is_some())
        {
            return None;
        }
        let queuer = |pass: PassId| Some(passes.frame_pass(pass)) == task.queued_by;
        let running = running_passes(latest, next, queuer);
        let owner = passes.nested_compiler(running).map(|at| running[at]);
        let mut nested = running.to_vec();
        for pass in (task.queued_by.iter().chain(own)).map(|&pass| passes.under(owner, pass)) {
            if !nested.contains(&pass) {
                nested.push(pass);
            }
        }
        Some(nested)
    };
    Credits {
        by_key: walk(
            profile.stacks.timeline.iter().filter_map(sample_of),
            MainAhead::of(profile.stacks.timeline.iter().filter_map(|sample| {
                let role = roles.get(&sample.key)?;
                Some((
                    profile.processes.thread(sample.key.thread).process,
                    sample.time,
                    role,
                ))
            })),
            verified,
            nest,
        ),
    }
}

/// The passes, outermost first, that the main thread runs a task's
/// pipeline in, as a prefix of its latest sample's passes (`latest`):
/// those up to the pass that queued the task (`is_queuer`, one of the
/// passes or a nested compiler's copy of it) when the latest sample is in
/// it; otherwise those its next sample (`next`) is in too. The main thread
/// waits for its tasks off the CPU, unsampled, so the innermost passes of
/// its latest sample may have ended since.
fn running_passes<'a>(
    latest: &'a [PassId],
    next: Option<&[PassId]>,
    is_queuer: impl Fn(PassId) -> bool,
) -> &'a [PassId] {
    if let Some(at) = latest.iter().rposition(|&pass| is_queuer(pass)) {
        return &latest[..=at];
    }
    match next {
        Some(next) => {
            let common = (latest.iter().zip(next))
                .take_while(|(a, b)| a == b)
                .count();
            &latest[..common]
        }
        None => latest,
    }
}

/// Each process's main-thread samples in time order, read ahead of a walk
/// in time order: the passes of the main thread's next sample.
struct MainAhead<'a, P> {
    samples: HashMap<P, Vec<(u64, &'a KeyRole)>>,
    /// Per process, the first sample not before the walk's time.
    cursors: HashMap<P, usize>,
}

impl<'a, P: Copy + Eq + Hash> MainAhead<'a, P> {
    /// The main-thread samples among the `(process, time, role)` of
    /// samples in time order.
    fn of(in_time_order: impl Iterator<Item = (P, u64, &'a KeyRole)>) -> Self {
        let mut samples: HashMap<P, Vec<(u64, &'a KeyRole)>> = HashMap::new();
        for (process, time_ns, role) in in_time_order {
            if let KeyRole::Main { .. } = role {
                samples.entry(process).or_default().push((time_ns, role));
            }
        }
        MainAhead {
            samples,
            cursors: HashMap::new(),
        }
    }

    /// The passes of `process`'s first main-thread sample after `time_ns`
    /// (empty when it is in none); `None` when there is none. The times
    /// asked for never go back.
    fn next_after(&mut self, process: P, time_ns: u64) -> Option<&'a [PassId]> {
        let samples = self.samples.get(&process)?;
        let cursor = self.cursors.entry(process).or_default();
        while samples
            .get(*cursor)
            .is_some_and(|&(time, _)| time <= time_ns)
        {
            *cursor += 1;
        }
        match samples.get(*cursor)?.1 {
            KeyRole::Main {
                doing: Some(CreditedTo::Passes(passes)),
                ..
            } => Some(passes),
            _ => Some(&[]),
        }
    }
}

/// A sample as [`walk`] takes it.
#[derive(Clone, Copy)]
struct Sample<'a, P, K> {
    process: P,
    tid: i32,
    key: K,
    role: &'a KeyRole,
    /// Whether the filter keeps it.
    kept: bool,
    time_ns: u64,
}

/// The credits of samples given in time order: what each process's main
/// thread is doing is what its latest sample says. Verification by the
/// pass manager goes to the passes `verified(process, thread, time)` names,
/// when it names them: the verification of the pass that has just run on
/// that thread (`None`: as the process's main thread says). A task's own
/// passes go where `nest(the main thread's latest passes, its next
/// sample's, the task)` puts them, when it puts them anywhere.
fn walk<'a, P: Copy + Eq + Hash, K: Copy + Eq + Hash>(
    in_time_order: impl Iterator<Item = Sample<'a, P, K>>,
    mut main_ahead: MainAhead<'a, P>,
    verified: impl Fn(P, Option<i32>, u64) -> Option<Vec<PassId>>,
    nest: impl Fn(&[PassId], Option<&[PassId]>, &TaskPasses) -> Option<Vec<PassId>>,
) -> HashMap<K, Vec<(CreditedTo, u64)>> {
    let mut main_doing: HashMap<P, Option<CreditedTo>> = HashMap::new();
    let mut credits: HashMap<K, HashMap<CreditedTo, u64>> = HashMap::new();
    for sample in in_time_order {
        // Whether the sample verifies a pass's output, and on whose thread
        // that pass ran (`None`: the main thread).
        let (credited, verifying, pipeline_thread) = match sample.role {
            KeyRole::Main {
                doing,
                in_task,
                verifying,
                task,
            } => {
                main_doing.insert(sample.process, doing.clone());
                let credited = match (doing, task) {
                    (Some(CreditedTo::Passes(doing)), Some(task)) => {
                        nest(doing, None, task).map(CreditedTo::Passes)
                    }
                    _ => doing.clone().filter(|_| *in_task),
                };
                (
                    credited,
                    *verifying && *doing == Some(CreditedTo::PassManager),
                    None,
                )
            }
            KeyRole::Worker {
                verifying,
                own_pipeline,
            } => {
                let doing = main_doing.get(&sample.process).cloned().flatten();
                let own = own_pipeline.then_some(sample.tid);
                match (doing, verifying) {
                    (Some(_), true) => (Some(CreditedTo::PassManager), true, own),
                    (doing, _) => (doing, false, None),
                }
            }
            KeyRole::WorkerPasses(task) => {
                let nested = match main_doing.get(&sample.process) {
                    Some(Some(CreditedTo::Passes(latest))) => {
                        let next = main_ahead.next_after(sample.process, sample.time_ns);
                        nest(latest, next, task)
                    }
                    _ => None,
                };
                (nested.map(CreditedTo::Passes), false, None)
            }
            KeyRole::Kept => (None, false, None),
        };
        let credited = match verifying {
            true => verified(sample.process, pipeline_thread, sample.time_ns)
                .map(CreditedTo::Passes)
                .or(credited),
            false => credited,
        };
        if let Some(to) = credited.filter(|_| sample.kept) {
            *credits
                .entry(sample.key)
                .or_default()
                .entry(to)
                .or_default() += 1;
        }
    }
    credits
        .into_iter()
        .map(|(key, parts)| {
            let mut parts: Vec<(CreditedTo, u64)> = parts.into_iter().collect();
            parts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            (key, parts)
        })
        .collect()
}

#[cfg(test)]
mod tests;
