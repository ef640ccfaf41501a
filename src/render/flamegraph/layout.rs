//! Where each frame of a flamegraph goes: stacks, in the order they are
//! drawn, merged into frames (adjacent stacks with the same frames from the
//! root share those frames), each with its depth, its first sample and its
//! width in samples. Frames narrower than the picture's minimum width are
//! left out, and with them everything above them. Nothing here knows
//! names, colours or SVG.

/// One frame of a picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Frame<K> {
    /// What the frame stands for: a name, or a node of a tree.
    pub(super) key: K,
    /// 0 for the root, 1 for the frames on it, and so on.
    pub(super) depth: usize,
    /// The samples left of it.
    pub(super) start: u64,
    pub(super) width: u64,
}

/// True when a frame `width` samples wide, of `total`, is narrower than
/// `min_width` percent of the picture and so is left out.
pub(super) fn too_narrow(width: u64, total: u64, min_width: f64) -> bool {
    (width as f64) < min_width * total as f64 / 100.0
}

/// The frames of `stacks` (frames from the root, and a count each), in
/// the order given: the root first (key `None`, all samples wide), then
/// each frame before the frames on it and left of its later siblings. Only
/// frames at least `min_width` percent of the picture wide are kept.
pub(super) fn lay_out<K: Copy + Eq>(
    stacks: &[(Vec<K>, u64)],
    min_width: f64,
) -> Vec<Frame<Option<K>>> {
    let total: u64 = stacks.iter().map(|(_, count)| count).sum();
    let mut frames = vec![Frame {
        key: None,
        depth: 0,
        start: 0,
        width: total,
    }];
    // The frames of the stack before, above the root, by depth.
    let mut open: Vec<usize> = Vec::new();
    let mut previous: &[K] = &[];
    let mut start = 0;
    for (stack, count) in stacks {
        let shared = previous
            .iter()
            .zip(stack)
            .take_while(|(a, b)| a == b)
            .count();
        open.truncate(shared);
        for (above, key) in stack[shared..].iter().enumerate() {
            open.push(frames.len());
            frames.push(Frame {
                key: Some(*key),
                depth: shared + above + 1,
                start,
                width: 0,
            });
        }
        for &frame in &open {
            frames[frame].width += count;
        }
        start += count;
        previous = stack;
    }
    frames.retain(|frame| !too_narrow(frame.width, total, min_width));
    frames
}

/// Stacks from the root turned into an icicle's, in its drawing order:
/// each from its leaf to its root, sorted, so that stacks with the same
/// leaf (and the same callers from there) are neighbours and share frames.
pub(super) fn leaf_first<K: Ord>(mut stacks: Vec<(Vec<K>, u64)>) -> Vec<(Vec<K>, u64)> {
    for (stack, _) in &mut stacks {
        stack.reverse();
    }
    stacks.sort_unstable();
    stacks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(key, depth, start, width)` of each frame.
    fn placed(frames: &[Frame<Option<char>>]) -> Vec<(Option<char>, usize, u64, u64)> {
        frames
            .iter()
            .map(|frame| (frame.key, frame.depth, frame.start, frame.width))
            .collect()
    }

    fn stacks(lines: &[(&str, u64)]) -> Vec<(Vec<char>, u64)> {
        lines
            .iter()
            .map(|(frames, count)| (frames.chars().collect(), *count))
            .collect()
    }

    #[test]
    fn adjacent_stacks_share_the_frames_they_have_in_common_from_the_root() {
        // main;a;b 3, main;a;c 2, main;a 1 (self time of a), main;d 4.
        let frames = lay_out(
            &stacks(&[("mab", 3), ("mac", 2), ("ma", 1), ("md", 4)]),
            0.0,
        );
        assert_eq!(
            placed(&frames),
            [
                (None, 0, 0, 10),
                (Some('m'), 1, 0, 10),
                (Some('a'), 2, 0, 6),
                (Some('b'), 3, 0, 3),
                (Some('c'), 3, 3, 2),
                (Some('d'), 2, 6, 4),
            ]
        );
    }

    #[test]
    fn stacks_are_drawn_in_the_order_given_and_only_neighbours_merge() {
        // `a` twice, with `b` between: two frames of `a`.
        let frames = lay_out(&stacks(&[("a", 1), ("b", 2), ("ax", 3)]), 0.0);
        assert_eq!(
            placed(&frames),
            [
                (None, 0, 0, 6),
                (Some('a'), 1, 0, 1),
                (Some('b'), 1, 1, 2),
                (Some('a'), 1, 3, 3),
                (Some('x'), 2, 3, 3),
            ]
        );
    }

    #[test]
    fn frames_narrower_than_the_minimum_width_go_and_everything_on_them() {
        // 1,000 samples at 0.5%: a frame needs 5 samples.
        let lines = [("mab", 4), ("mac", 5), ("md", 991)];
        let frames = lay_out(&stacks(&lines), 0.5);
        assert_eq!(
            placed(&frames),
            [
                (None, 0, 0, 1000),
                (Some('m'), 1, 0, 1000),
                (Some('a'), 2, 0, 9),
                (Some('c'), 3, 4, 5),
                (Some('d'), 2, 9, 991),
            ]
        );
        // At 1%, `a` (9 samples) goes, and `c` on it with it.
        let frames = lay_out(&stacks(&lines), 1.0);
        assert_eq!(
            placed(&frames),
            [
                (None, 0, 0, 1000),
                (Some('m'), 1, 0, 1000),
                (Some('d'), 2, 9, 991)
            ]
        );
        assert!(too_narrow(4, 1000, 0.5) && !too_narrow(5, 1000, 0.5));
    }

    #[test]
    fn an_icicle_merges_stacks_by_their_leaves_and_then_their_callers() {
        // main;f;x 2, main;g;x 3, main;g;y 1: `x` is one frame of 5
        // samples at the root, with its callers `f` and `g` on it.
        let icicle = leaf_first(stacks(&[("mfx", 2), ("mgx", 3), ("mgy", 1)]));
        assert_eq!(
            placed(&lay_out(&icicle, 0.0)),
            [
                (None, 0, 0, 6),
                (Some('x'), 1, 0, 5),
                (Some('f'), 2, 0, 2),
                (Some('m'), 3, 0, 2),
                (Some('g'), 2, 2, 3),
                (Some('m'), 3, 2, 3),
                (Some('y'), 1, 5, 1),
                (Some('g'), 2, 5, 1),
                (Some('m'), 3, 5, 1),
            ]
        );
    }
}
