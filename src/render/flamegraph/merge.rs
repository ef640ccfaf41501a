//! Stacks cut for drawing: where drawing stops (so that far fewer frames
//! are named, sorted and laid out for the same picture), and at a pass (so
//! that the pass is the root).

use hashbrown::HashMap;

use super::depth::{Drawn, Hidden};
use super::layout::too_narrow;
use crate::attribute::{Classes, PassId};
use crate::fold::{FoldedStack, TRUNCATED_FRAME};
use crate::profile::Profile;

/// The stacks as they are drawn: a frame narrower than `min_width` percent
/// of the picture is left out, and so everything above it. Each stack is
/// cut a frame above its first such frame, and cut stacks that become
/// equal are merged. No sample is dropped and the stacks sort as before,
/// so every frame drawn keeps its place and width: the picture is the
/// same, from far fewer frames. A depth limit's marker frame (on top of a
/// stack) is a frame like the others.
/// `stacks` must be sorted by their frames' names, so that stacks sharing
/// frames from the root are adjacent.
pub(super) fn cut_narrow_frames<'a>(
    profile: &'a Profile,
    stacks: &[(Drawn<'a>, u64)],
    min_width: f64,
) -> Vec<(Drawn<'a>, u64)> {
    let markers: Vec<Option<String>> = stacks
        .iter()
        .map(|(drawn, _)| drawn.hidden.map(Hidden::name))
        .collect();
    let keep = frames_to_keep(
        stacks.len(),
        |index, names| {
            let stack = &stacks[index].0.stack;
            names.push(stack.thread);
            if stack.truncated {
                names.push(TRUNCATED_FRAME);
            }
            names.extend(
                stack
                    .symbols
                    .iter()
                    .map(|&symbol| profile.symbols.get(symbol).name.as_str()),
            );
            names.extend(markers[index].as_deref());
        },
        |index| stacks[index].1,
        min_width,
    );
    let mut merged: HashMap<Drawn<'a>, u64> = HashMap::new();
    for ((drawn, count), kept) in stacks.iter().zip(keep) {
        let stack = &drawn.stack;
        let marker = usize::from(stack.truncated);
        let symbols = kept.saturating_sub(1 + marker).min(stack.symbols.len());
        let cut = FoldedStack {
            thread: stack.thread,
            truncated: stack.truncated && kept > 1,
            symbols: stack.symbols[..symbols].to_vec(),
            leaf: None,
        };
        // The marker stays when every frame below it does and it too.
        let hidden = drawn
            .hidden
            .filter(|_| kept > 1 + marker + stack.symbols.len());
        *merged.entry(Drawn { stack: cut, hidden }).or_insert(0) += count;
    }
    merged.into_iter().collect()
}

/// How many frames from the root of each of `len` stacks are needed to
/// draw them at `min_width`: up to the first frame it leaves out and one
/// more (`usize::MAX` for all). `names(index, out)` appends a stack's frame
/// names, root first; stacks sharing frames from the root must be adjacent.
fn frames_to_keep<'n>(
    len: usize,
    names: impl Fn(usize, &mut Vec<&'n str>),
    samples: impl Fn(usize) -> u64,
    min_width: f64,
) -> Vec<usize> {
    let total: u64 = (0..len).map(&samples).sum();
    let narrow = |samples: u64| too_narrow(samples, total, min_width);
    // `open` holds, per depth, the first stack and the samples of the frame
    // at that depth shared by the stacks since.
    let mut keep = vec![usize::MAX; len];
    let mut open: Vec<(usize, u64)> = Vec::new();
    let (mut previous, mut current): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for index in 0..=len {
        current.clear();
        if index < len {
            names(index, &mut current);
        }
        let shared = previous
            .iter()
            .zip(&current)
            .take_while(|(a, b)| a == b)
            .count();
        while open.len() > shared {
            let depth = open.len() - 1;
            let (first, frame_samples) = open.pop().expect("open is longer than shared");
            if narrow(frame_samples) {
                // The frame and one above it stay (so that siblings keep
                // the order of folded lines, where a name's next character
                // decides). Fewer samples than the threshold means a
                // handful of stacks.
                for kept in &mut keep[first..index] {
                    *kept = (*kept).min(depth + 2);
                }
            }
        }
        if index == len {
            break;
        }
        open.resize(current.len(), (index, 0));
        let count = samples(index);
        for (_, frame_samples) in &mut open {
            *frame_samples += count;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    keep
}

/// The stacks that run `pass`, each cut so that the outermost frame of the
/// pass is its root; stacks that become equal are merged.
pub(super) fn cut_at_pass<'a>(
    stacks: Vec<(FoldedStack<'a>, u64)>,
    classes: &Classes<'_>,
    pass: PassId,
) -> Vec<(FoldedStack<'a>, u64)> {
    let mut merged: HashMap<FoldedStack<'a>, u64> = HashMap::new();
    for (mut stack, count) in stacks {
        let Some(at) = stack.symbols.iter().position(|&symbol| {
            classes.passes.frame_of(symbol) == Some(classes.passes.frame_pass(pass))
        }) else {
            continue;
        };
        stack.symbols.drain(..at);
        stack.truncated = false;
        *merged.entry(stack).or_insert(0) += count;
    }
    merged.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::render::flamegraph::layout::{Frame, lay_out};

    /// Stacks whose sibling names are prefixes of one another (`f`, `f(int)`,
    /// `f2`), with a deterministic spread of sample counts, in the order of
    /// their names.
    fn stacks() -> Vec<(Vec<&'static str>, u64)> {
        let names = ["f", "f(int)", "f2", "g", "g::h", "h"];
        let mut random = crate::test_random::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut next = move |bound: u64| random() % bound;
        let stacks: Vec<(Vec<&str>, u64)> = (0..400)
            .map(|_| {
                let depth = 1 + next(7) as usize;
                let frames = std::iter::once(if next(4) == 0 { "worker" } else { "main" })
                    .chain((0..depth).map(|_| names[next(names.len() as u64) as usize]))
                    .collect();
                (frames, 1 + next(30) * next(2) * next(2))
            })
            .collect();
        merged(stacks)
    }

    /// Equal stacks merged, in the order of their names.
    fn merged(stacks: Vec<(Vec<&'static str>, u64)>) -> Vec<(Vec<&'static str>, u64)> {
        let mut merged: BTreeMap<Vec<&str>, u64> = BTreeMap::new();
        for (frames, count) in stacks {
            *merged.entry(frames).or_insert(0) += count;
        }
        merged.into_iter().collect()
    }

    #[test]
    fn cutting_narrow_frames_leaves_every_frame_drawn_in_its_place() {
        let stacks = stacks();
        for min_width in [0.1, 0.5, 2.0, 5.0] {
            let keep = frames_to_keep(
                stacks.len(),
                |index, names| names.extend(&stacks[index].0),
                |index| stacks[index].1,
                min_width,
            );
            let cut = merged(
                stacks
                    .iter()
                    .zip(&keep)
                    .map(|((frames, count), &kept)| {
                        (frames[..kept.min(frames.len())].to_vec(), *count)
                    })
                    .collect(),
            );
            let frames =
                |stacks: &[(Vec<&str>, u64)]| stacks.iter().map(|(f, _)| f.len()).sum::<usize>();
            assert!(
                frames(&cut) < frames(&stacks),
                "at {min_width}% something is cut"
            );
            let drawn: Vec<Frame<Option<&str>>> = lay_out(&stacks, min_width);
            assert!(
                drawn.len() > 10,
                "at {min_width}% {} frames are drawn",
                drawn.len()
            );
            assert_eq!(lay_out(&cut, min_width), drawn, "at {min_width}%");
        }
    }
}
