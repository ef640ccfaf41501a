//! Folded stacks: the samples merged by the functions on their stacks, in
//! the order and with the lines (`thread;root;…;leaf count`) that inferno
//! and FlameGraph read. Shared by the `collapse` writer and the flamegraph
//! renderer.
//!
//! Each line starts with the thread's name, as `inferno-collapse-perf` does.
//! A stack that did not reach its thread root gets a `[truncated]` frame
//! below its outermost known frame, so it is visible, not hidden.

use std::borrow::Cow;

use hashbrown::HashMap;
use rayon::prelude::*;

use crate::profile::{Profile, SampleFilter};
use crate::stacks::SampleKey;
use crate::symbolize::SymbolId;

/// The frame that marks a stack that stops early.
pub(crate) const TRUNCATED_FRAME: &str = "[truncated]";

/// Samples whose stacks name the same functions, merged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FoldedStack<'a> {
    /// The root frame: the thread's name, or what [`fold_under`] put there.
    pub thread: &'a str,
    pub truncated: bool,
    /// Functions from the root to the leaf (inlined ones included).
    pub symbols: Vec<SymbolId>,
    /// The function the sampled instruction is in (as `top` counts self).
    pub leaf: Option<SymbolId>,
}

/// The stacks of the samples `filter` keeps, merged by the functions they
/// name (different call sites in one function merge), with their counts.
pub(crate) fn fold<'a>(profile: &'a Profile, filter: &SampleFilter) -> Vec<(FoldedStack<'a>, u64)> {
    let mut merged: HashMap<FoldedStack<'a>, u64> = HashMap::new();
    for (key, count) in profile.samples(filter) {
        let mut symbols = Vec::new();
        profile.symbols_leaf_first(key.stack, &mut symbols);
        symbols.reverse();
        let stack = FoldedStack {
            thread: &profile.processes.thread(key.thread).name,
            truncated: !profile.reaches_root(key),
            symbols,
            leaf: profile.leaf_function(key.stack),
        };
        *merged.entry(stack).or_insert(0) += count;
    }
    merged.into_iter().collect()
}

/// The stacks of the samples `filter` keeps, merged as [`fold`] merges
/// them, but each under the root frame `root_of` names for it (by its
/// index in the profile's timeline) instead of its thread's name: sample
/// by sample, for roots that depend on when a sample was taken (the
/// rewrite pattern its thread was applying).
pub(crate) fn fold_under<'a>(
    profile: &'a Profile,
    filter: &SampleFilter,
    root_of: impl Fn(usize) -> &'a str,
) -> Vec<(FoldedStack<'a>, u64)> {
    let mut stacks: HashMap<SampleKey, FoldedStack<'a>> = HashMap::new();
    let mut merged: HashMap<FoldedStack<'a>, u64> = HashMap::new();
    for (at, sample) in profile.stacks.timeline.iter().enumerate() {
        if !profile.keeps(filter, &sample.key) {
            continue;
        }
        let stack = stacks.entry(sample.key).or_insert_with(|| {
            let mut symbols = Vec::new();
            profile.symbols_leaf_first(sample.key.stack, &mut symbols);
            symbols.reverse();
            FoldedStack {
                thread: "",
                truncated: !profile.reaches_root(&sample.key),
                symbols,
                leaf: profile.leaf_function(sample.key.stack),
            }
        });
        let rooted = FoldedStack {
            thread: root_of(at),
            ..stack.clone()
        };
        *merged.entry(rooted).or_insert(0) += 1;
    }
    merged.into_iter().collect()
}

/// The folded line of `stack`, without its count.
pub(crate) fn line(profile: &Profile, stack: &FoldedStack<'_>) -> String {
    let names = stack
        .symbols
        .iter()
        .map(|&symbol| profile.symbols.get(symbol).name.len() + 1)
        .sum::<usize>();
    let mut line = String::with_capacity(stack.thread.len() + TRUNCATED_FRAME.len() + 1 + names);
    push_frame(&mut line, stack.thread);
    if stack.truncated {
        line.push(';');
        line.push_str(TRUNCATED_FRAME);
    }
    for &symbol in &stack.symbols {
        line.push(';');
        push_frame(&mut line, &profile.symbols.get(symbol).name);
    }
    line
}

/// `name` as a frame of a folded line: `;` separates frames, so a name
/// must not contain one.
pub(crate) fn frame_name(name: &str) -> Cow<'_, str> {
    if name.contains(';') {
        name.replace(';', ":").into()
    } else {
        name.into()
    }
}

fn push_frame(line: &mut String, name: &str) {
    line.push_str(&frame_name(name));
}

/// Sorts stacks by their frames' names (thread first), as their folded
/// lines would sort frame by frame; no line is built to do it. Each name is
/// ranked once, so comparing two deep stacks compares integers.
pub(crate) fn sort_by_names<'a>(profile: &'a Profile, stacks: &mut [(FoldedStack<'a>, u64)]) {
    let mut used = vec![false; profile.symbols.symbols.len()];
    for (stack, _) in stacks.iter() {
        for symbol in &stack.symbols {
            used[symbol.index()] = true;
        }
    }
    let mut symbol_rank = vec![0u32; used.len()];
    let mut frames: Vec<(&str, Option<SymbolId>)> = (used.iter().enumerate())
        .filter(|(_, used)| **used)
        .map(|(index, _)| {
            let symbol = SymbolId::new(index);
            (profile.symbols.get(symbol).name.as_str(), Some(symbol))
        })
        .collect();
    frames.push((TRUNCATED_FRAME, None));
    frames.sort_unstable();
    let mut truncated_rank = 0;
    let mut rank = 0;
    for (index, &(name, symbol)) in frames.iter().enumerate() {
        if index > 0 && frames[index - 1].0 != name {
            rank += 1;
        }
        match symbol {
            Some(symbol) => symbol_rank[symbol.index()] = rank,
            None => truncated_rank = rank,
        }
    }
    stacks.sort_by_cached_key(|(stack, _)| {
        let ranks: Vec<u32> = stack
            .truncated
            .then_some(truncated_rank)
            .into_iter()
            .chain(
                stack
                    .symbols
                    .iter()
                    .map(|symbol| symbol_rank[symbol.index()]),
            )
            .collect();
        (stack.thread, ranks)
    });
}

/// The folded line of `stack` with its count: `stack count`.
pub(crate) fn counted_line(profile: &Profile, stack: &FoldedStack<'_>, count: u64) -> String {
    let mut text = line(profile, stack);
    text.push_str(&format!(" {count}"));
    text
}

/// Folded lines with their counts (`stack count`), in the order of
/// `stacks`, built on all cores.
pub(crate) fn counted_lines(profile: &Profile, stacks: &[(FoldedStack<'_>, u64)]) -> Vec<String> {
    stacks
        .par_iter()
        .map(|(stack, count)| counted_line(profile, stack, *count))
        .collect()
}
