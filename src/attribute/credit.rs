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
//! silently. Samples before the main thread's first pass, or while it is
//! outside the pass manager, stay where their stacks put them.

use std::hash::Hash;

use hashbrown::HashMap;

use super::PassId;
use super::classes::Classes;
use super::pass::OutsidePass;
use super::row_key::RowKey;
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
    },
    /// A sample of another compiler thread with no pass on its stack;
    /// `verifying` when its task verifies IR.
    Worker { verifying: bool },
    /// Anything else: it keeps its place.
    Kept,
}

/// The credits of the samples `filter` keeps, walked in time order.
pub(crate) fn credit_workers(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
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
        if !main_thread {
            return match task_has_pass {
                true => KeyRole::Kept,
                false => KeyRole::Worker {
                    verifying: task
                        .iter()
                        .any(|&symbol| Some(classes.category_of(symbol)) == verifier),
                },
            };
        }
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
        Some((
            process,
            sample.key,
            role,
            profile.keeps(filter, &sample.key),
        ))
    });
    Credits {
        by_key: walk(in_time_order),
    }
}

/// The credits of samples given in time order as (process, key, role,
/// whether the filter keeps it): what each process's main thread is doing
/// is what its latest sample says.
fn walk<'a, P: Copy + Eq + Hash, K: Copy + Eq + Hash>(
    in_time_order: impl Iterator<Item = (P, K, &'a KeyRole, bool)>,
) -> HashMap<K, Vec<(CreditedTo, u64)>> {
    let mut main_doing: HashMap<P, Option<CreditedTo>> = HashMap::new();
    let mut credits: HashMap<K, HashMap<CreditedTo, u64>> = HashMap::new();
    for (process, key, role, kept) in in_time_order {
        let credited = match role {
            KeyRole::Main { doing, in_task } => {
                main_doing.insert(process, doing.clone());
                doing.clone().filter(|_| *in_task)
            }
            KeyRole::Worker { verifying } => {
                main_doing
                    .get(&process)
                    .cloned()
                    .flatten()
                    .map(|doing| match verifying {
                        true => CreditedTo::PassManager,
                        false => doing,
                    })
            }
            KeyRole::Kept => None,
        };
        if let Some(to) = credited.filter(|_| kept) {
            *credits.entry(key).or_default().entry(to).or_default() += 1;
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

    #[test]
    fn workers_take_what_the_main_thread_did_last_and_verification_goes_to_the_pass_manager() {
        let in_pass = KeyRole::Main {
            doing: passes(&[0, 1]),
            in_task: false,
        };
        let main_in_task = KeyRole::Main {
            doing: passes(&[0]),
            in_task: true,
        };
        let parsing = KeyRole::Main {
            doing: None,
            in_task: false,
        };
        let worker = KeyRole::Worker { verifying: false };
        let verifying = KeyRole::Worker { verifying: true };
        let kept = KeyRole::Kept;
        // (process, key, role, kept by the filter), in time order.
        let samples = [
            (1, 'w', &worker, true),       // before any main sample: nothing
            (1, 'm', &in_pass, true),      // main in passes 0 > 1
            (1, 'w', &worker, true),       // credited to 0 > 1
            (1, 'v', &verifying, true),    // to the pass manager
            (2, 'x', &worker, true),       // another process's main never ran
            (1, 'k', &kept, true),         // a task with a pass keeps it
            (1, 't', &main_in_task, true), // main running a task: its own pass 0
            (1, 'w', &worker, false),      // credited, but filtered out
            (1, 'w', &worker, true),       // credited to 0
            (1, 'p', &parsing, true),      // main outside the pass manager
            (1, 'w', &worker, true),       // nothing
        ];
        let credits = walk(samples.into_iter());
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
}
