//! Folded stacks (`root;…;leaf count`), the format inferno and FlameGraph read.
//!
//! Each line starts with the thread's name, as `inferno-collapse-perf` does.
//! A stack that did not reach its thread root gets a `[truncated]` frame
//! below its outermost known frame, so it is visible, not hidden.

use std::io::Write;

use hashbrown::HashMap;

use crate::attribute::{SampleFilter, reaches_root};
use crate::profile::Profile;

/// The frame that marks a stack that stops early.
pub const TRUNCATED_FRAME: &str = "[truncated]";

/// The folded stacks of the samples `filter` keeps, sorted, with their counts.
pub fn folded_stacks(profile: &Profile, filter: &SampleFilter) -> Vec<(String, u64)> {
    let mut lines: HashMap<String, u64> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    for (key, count) in profile.samples(filter) {
        names.clear();
        for frame in profile.stacks.frames_leaf_first(key.stack) {
            // A frame's symbols are innermost first; leaf-first order keeps that.
            for &symbol in profile.symbols.of_frame(frame) {
                names.push(&profile.symbols.get(symbol).name);
            }
        }
        if !reaches_root(profile, key) {
            names.push(TRUNCATED_FRAME);
        }
        names.push(&profile.processes.thread(key.thread).name);
        let mut line = String::with_capacity(names.iter().map(|name| name.len() + 1).sum());
        for (index, name) in names.iter().rev().enumerate() {
            if index > 0 {
                line.push(';');
            }
            // `;` separates frames, so a name must not contain one.
            if name.contains(';') {
                line.push_str(&name.replace(';', ":"));
            } else {
                line.push_str(name);
            }
        }
        *lines.entry(line).or_insert(0) += count;
    }
    let mut sorted: Vec<(String, u64)> = lines.into_iter().collect();
    sorted.sort_unstable();
    sorted
}

/// Writes folded stacks, one `stack count` line each.
pub fn write_lines(stacks: &[(String, u64)], out: &mut dyn Write) -> std::io::Result<()> {
    for (line, count) in stacks {
        out.write_all(line.as_bytes())?;
        out.write_all(format!(" {count}\n").as_bytes())?;
    }
    Ok(())
}
