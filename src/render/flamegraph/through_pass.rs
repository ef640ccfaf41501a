//! The stacks of `flamegraph --pass`, as the pass rows count them: the
//! stacks that hold the pass's frame, cut there, and the thread-pool tasks
//! credited to it (a pipeline it runs on many ops at once, a nested
//! compiler's passes while the main thread is in it): a task cut at the
//! pass's frame, or put under one when it has none.

use hashbrown::HashMap;

use crate::attribute::{Classes, CreditedTo, PassId, credit_workers};
use crate::fold::FoldedStack;
use crate::profile::{Profile, SampleFilter};
use crate::symbolize::SymbolId;

/// The stacks through `pass` of the samples `filter` keeps, each rooted at
/// the pass's frame.
pub(super) fn stacks_through_pass<'a>(
    profile: &'a Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    pass: PassId,
) -> Vec<(FoldedStack<'a>, u64)> {
    let passes = &classes.passes;
    let frame_pass = passes.frame_pass(pass);
    // A credited task without the pass's frame goes under one.
    let pass_frame = (0..profile.symbols.symbols.len())
        .map(SymbolId::new)
        .find(|&symbol| passes.frame_of(symbol) == Some(frame_pass));
    let credits = credit_workers(profile, classes, filter, None);
    let (mut leaf_first, mut on_stack) = (Vec::new(), Vec::new());
    let mut merged: HashMap<FoldedStack<'a>, u64> = HashMap::new();
    for (key, count) in profile.samples(filter) {
        leaf_first.clear();
        profile.symbols_leaf_first(key.stack, &mut leaf_first);
        let parts = credits.of(key);
        let credited: u64 = parts
            .iter()
            .filter(|(to, _)| matches!(to, CreditedTo::Passes(passes) if passes.contains(&pass)))
            .map(|(_, samples)| samples)
            .sum();
        let own = count - parts.iter().map(|(_, samples)| samples).sum::<u64>();
        let mut add = |symbols: Vec<SymbolId>, samples: u64| {
            let stack = FoldedStack {
                thread: &profile.processes.thread(key.thread).name,
                truncated: false,
                symbols,
                leaf: profile.leaf_function(key.stack),
            };
            *merged.entry(stack).or_insert(0) += samples;
        };
        passes.on_stack(&leaf_first, &mut on_stack);
        if own > 0 && on_stack.contains(&pass) {
            // The outermost frame of the pass past its nested compiler's.
            let root_first: Vec<SymbolId> = leaf_first.iter().rev().copied().collect();
            let owner_at = passes.parent(pass).and_then(|owner| {
                root_first
                    .iter()
                    .position(|&symbol| passes.pass_of(symbol) == Some(owner))
            });
            let from = owner_at.map_or(0, |at| at + 1);
            if let Some(at) = (root_first[from..].iter())
                .position(|&symbol| passes.frame_of(symbol) == Some(frame_pass))
            {
                add(root_first[from + at..].to_vec(), own);
            }
        }
        if credited > 0 {
            let task_end = passes.task_cut(&leaf_first).unwrap_or(leaf_first.len());
            let task: Vec<SymbolId> = leaf_first[..task_end].iter().rev().copied().collect();
            let at = (task.iter()).position(|&symbol| passes.frame_of(symbol) == Some(frame_pass));
            match (at, pass_frame) {
                (Some(at), _) => add(task[at..].to_vec(), credited),
                (None, Some(frame)) => add(std::iter::once(frame).chain(task).collect(), credited),
                (None, None) => {}
            }
        }
    }
    merged.into_iter().collect()
}
