//! Folded stacks (`root;…;leaf count`), the format inferno and FlameGraph read.
//!
//! Each line starts with the thread's name, as `inferno-collapse-perf` does.
//! A stack that did not reach its thread root gets a `[truncated]` frame
//! below its outermost known frame, so it is visible, not hidden.

use std::io::Write;

use hashbrown::HashMap;

use crate::attribute::{SampleFilter, reaches_root};
use crate::profile::Profile;
use crate::symbolize::SymbolId;

/// The frame that marks a stack that stops early.
pub const TRUNCATED_FRAME: &str = "[truncated]";

/// Samples whose stacks name the same functions, merged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FoldedStack<'a> {
    pub thread: &'a str,
    pub truncated: bool,
    /// Functions from the root to the leaf (inlined ones included).
    pub symbols: Vec<SymbolId>,
    /// The function the sampled instruction is in (as `top` counts self).
    pub leaf: Option<SymbolId>,
}

/// The stacks of the samples `filter` keeps, merged by the functions they
/// name (different call sites in one function merge), with their counts.
pub fn fold<'a>(profile: &'a Profile, filter: &SampleFilter) -> Vec<(FoldedStack<'a>, u64)> {
    let mut merged: HashMap<FoldedStack<'a>, u64> = HashMap::new();
    for (key, count) in profile.samples(filter) {
        let mut symbols = Vec::new();
        for frame in profile.stacks.frames_leaf_first(key.stack) {
            // A frame's symbols are innermost first; leaf-first order keeps that.
            symbols.extend_from_slice(profile.symbols.of_frame(frame));
        }
        symbols.reverse();
        let stack = FoldedStack {
            thread: &profile.processes.thread(key.thread).name,
            truncated: !reaches_root(profile, key),
            symbols,
            leaf: key.stack.map(|stack| {
                profile
                    .symbols
                    .function_of_frame(profile.stacks.node(stack).frame)
            }),
        };
        *merged.entry(stack).or_insert(0) += count;
    }
    merged.into_iter().collect()
}

/// The folded line of `stack`, without its count.
pub fn line(profile: &Profile, stack: &FoldedStack<'_>) -> String {
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

/// `;` separates frames, so a name must not contain one.
fn push_frame(line: &mut String, name: &str) {
    if name.contains(';') {
        line.push_str(&name.replace(';', ":"));
    } else {
        line.push_str(name);
    }
}

/// Folded lines with their counts, sorted.
pub fn to_lines(profile: &Profile, stacks: &[(FoldedStack<'_>, u64)]) -> Vec<(String, u64)> {
    let mut lines: Vec<(String, u64)> = stacks
        .iter()
        .map(|(stack, count)| (line(profile, stack), *count))
        .collect();
    lines.sort_unstable();
    lines
}

/// The folded stacks of the samples `filter` keeps, sorted, with their counts.
pub fn folded_stacks(profile: &Profile, filter: &SampleFilter) -> Vec<(String, u64)> {
    to_lines(profile, &fold(profile, filter))
}

/// Writes folded stacks, one `stack count` line each.
pub fn write_lines(stacks: &[(String, u64)], out: &mut dyn Write) -> std::io::Result<()> {
    for (line, count) in stacks {
        out.write_all(line.as_bytes())?;
        out.write_all(format!(" {count}\n").as_bytes())?;
    }
    Ok(())
}
