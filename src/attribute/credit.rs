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
//! A pass that compiles a module of its own (const-eval's JIT) runs its
//! pipeline's passes on the thread pool too, where the stacks show those
//! passes but not the pass they run for: while the main thread is in such
//! a nested compiler, a worker's passes are credited to it, as its own
//! (`JitGlobalsPass > ApplyPatternsPass`).

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

/// What a key's samples are to crediting.
enum KeyRole {
    /// A sample of the compiler's main thread: what it is doing below any
    /// task it runs, and whether it runs one.
    Main {
        doing: Option<CreditedTo>,
        in_task: bool,
        verifying: bool,
        /// The passes of the task it runs, when the task runs some (its
        /// share of a nested compiler's parallel pipeline).
        task_passes: Vec<PassId>,
    },
    /// A sample of another compiler thread running these passes (outermost
    /// first) in a task: the main thread's, if it is in a nested compiler.
    WorkerPasses(Vec<PassId>),
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
        if !main_thread {
            return match task_has_pass {
                true if cut.is_some() => KeyRole::WorkerPasses(on_stack.clone()),
                true => KeyRole::Kept,
                false => KeyRole::Worker {
                    verifying,
                    own_pipeline: passes.managed(task),
                },
            };
        }
        let task_passes = match cut {
            Some(_) => on_stack.clone(),
            None => Vec::new(),
        };
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
            task_passes,
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
    let in_time_order = profile.stacks.timeline.iter().filter_map(|sample| {
        let role = roles.get(&sample.key)?;
        let process = profile.processes.thread(sample.key.thread).process;
        Some(Sample {
            process,
            tid: profile.processes.thread(sample.key.thread).tid,
            key: sample.key,
            role,
            kept: profile.keeps(filter, &sample.key),
            time_ns: sample.time,
        })
    });
    // The actions are the compiler's, whose main thread's tid is its pid.
    let verified = |process: ProcessId, thread: Option<i32>, time_ns: u64| {
        let join =
            actions.filter(|join| profile.processes.image(process).pid == join.actions.main_tid)?;
        join.verification_at(thread, time_ns)
    };
    // A worker's passes under the nested compiler the main thread is in.
    let nest = |doing: &[PassId], own: &[PassId]| {
        let owner_at = passes.nested_compiler(doing)?;
        let owner = doing[owner_at];
        (passes.nested_compiler(own).is_none()
            && own.iter().all(|&pass| passes.parent(pass).is_none()))
        .then(|| {
            let mut nested = doing[..=owner_at].to_vec();
            nested.extend(own.iter().map(|&pass| passes.under(Some(owner), pass)));
            nested
        })
    };
    Credits {
        by_key: walk(in_time_order, verified, nest),
    }
}

/// A sample as [`walk`] takes it.
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
/// that thread (`None`: as the process's main thread says). A worker's own
/// passes go where `nest(main thread's passes, worker's passes)` puts
/// them, when it puts them anywhere.
fn walk<'a, P: Copy + Eq + Hash, K: Copy + Eq + Hash>(
    in_time_order: impl Iterator<Item = Sample<'a, P, K>>,
    verified: impl Fn(P, Option<i32>, u64) -> Option<Vec<PassId>>,
    nest: impl Fn(&[PassId], &[PassId]) -> Option<Vec<PassId>>,
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
                task_passes,
            } => {
                main_doing.insert(sample.process, doing.clone());
                let credited = match doing {
                    Some(CreditedTo::Passes(doing)) if !task_passes.is_empty() => {
                        nest(doing, task_passes).map(CreditedTo::Passes)
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
            KeyRole::WorkerPasses(own) => {
                let nested = match main_doing.get(&sample.process) {
                    Some(Some(CreditedTo::Passes(doing))) => nest(doing, own),
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
mod tests {
    use super::*;

    fn passes(ids: &[usize]) -> Option<CreditedTo> {
        Some(CreditedTo::Passes(
            ids.iter().map(|&id| PassId::new(id)).collect(),
        ))
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
            task_passes: Vec::new(),
        };
        let main_in_task = KeyRole::Main {
            doing: passes(&[0]),
            in_task: true,
            verifying: false,
            task_passes: Vec::new(),
        };
        let parsing = KeyRole::Main {
            doing: None,
            in_task: false,
            verifying: false,
            task_passes: Vec::new(),
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
        let credits = walk(samples.into_iter(), |_, _, _| None, |_, _| None);
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
    fn a_worker_s_passes_go_to_the_nested_compiler_the_main_thread_is_in() {
        let (jit, jit_apply) = (PassId::new(1), PassId::new(9));
        let main_in_jit = KeyRole::Main {
            doing: passes(&[0, 1]),
            in_task: false,
            verifying: false,
            task_passes: Vec::new(),
        };
        let main_elsewhere = KeyRole::Main {
            doing: passes(&[2]),
            in_task: false,
            verifying: false,
            task_passes: Vec::new(),
        };
        let worker = KeyRole::WorkerPasses(vec![PassId::new(3)]);
        // The main thread running its share of the JIT's parallel pipeline.
        let main_in_jit_task = KeyRole::Main {
            doing: passes(&[0, 1]),
            in_task: false,
            verifying: false,
            task_passes: vec![PassId::new(3)],
        };
        let samples = [
            sample(1, 'a', &worker, true),      // before any main sample: its own
            sample(1, 'm', &main_in_jit, true), // main in the JIT
            sample(1, 'b', &worker, true),      // the JIT's
            sample(1, 'e', &main_in_jit_task, true), // the JIT's
            sample(2, 'c', &worker, true),      // another process: its own
            sample(1, 'n', &main_elsewhere, true), // main left the JIT
            sample(1, 'd', &worker, true),      // its own
        ];
        let credits = walk(
            samples.into_iter(),
            |_, _, _| None,
            |doing, own| {
                let at = doing.iter().position(|&pass| pass == jit)?;
                assert_eq!(own, [PassId::new(3)]);
                Some([&doing[..=at], &[jit_apply]].concat())
            },
        );
        assert_eq!(
            credits[&'b'],
            [(CreditedTo::Passes(vec![PassId::new(0), jit, jit_apply]), 1)]
        );
        assert_eq!(credits[&'e'], credits[&'b']);
        for own in ['a', 'c', 'd', 'm', 'n'] {
            assert!(!credits.contains_key(&own), "{own}");
        }
    }

    #[test]
    fn verification_goes_to_the_pass_just_run_when_the_actions_name_it() {
        let main_verifying = KeyRole::Main {
            doing: Some(CreditedTo::PassManager),
            in_task: false,
            verifying: true,
            task_passes: Vec::new(),
        };
        let main_between = KeyRole::Main {
            doing: Some(CreditedTo::PassManager),
            in_task: false,
            verifying: false,
            task_passes: Vec::new(),
        };
        let main_in_pass_verifying = KeyRole::Main {
            doing: passes(&[0]),
            in_task: false,
            verifying: true,
            task_passes: Vec::new(),
        };
        let worker_verifying = KeyRole::Worker {
            verifying: true,
            own_pipeline: false,
        };
        let worker_verifying_own = KeyRole::Worker {
            verifying: true,
            own_pipeline: true,
        };
        fn at(time_ns: u64, sample: Sample<'_, u8, char>) -> Sample<'_, u8, char> {
            Sample { time_ns, ..sample }
        }
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
        let credits = walk(
            samples.into_iter(),
            |_, thread, time| match thread {
                None => (time < 50).then(|| vec![verification_of_5]),
                Some(9) => Some(vec![verification_of_6]),
                Some(_) => None,
            },
            |_, _| None,
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
}
