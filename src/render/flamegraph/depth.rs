//! How deep a flamegraph draws: a few deep stacks (the Python launcher's
//! import machinery, 200 to 370 frames, in 1 to 2% of a long compile's
//! samples and 10% of a short one's) would make a picture four times as
//! tall as the compiler's stacks need, and most of it blank. Stacks deeper than the limit are cut
//! there, and one marker frame on top of the cut (`[N deeper frames]`, or
//! below it in an icicle, `[N outer frames]`) stands for what was left
//! out: nothing is hidden silently, and every sample is still counted.
//!
//! The limit ([`MaxDepth::Auto`]): three times the samples' median depth,
//! and never under [`FLOOR_FRAMES`]. The median is the compiler's whatever
//! the launcher's share, up to half the samples; a compiler stack three
//! times as deep as the median is rare (59 to 80 frames at most on the
//! gallery's compiles, medians 23 to 37). So the compiler's stacks are not
//! cut, and the launcher's are. (The 95th percentile, tried first, is the
//! launcher's on a short compile: 164 frames where the median is 31.)

use std::fmt;
use std::str::FromStr;

use hashbrown::HashMap;

use crate::fold::FoldedStack;

/// The automatic limit is never lower than this many frames…
const FLOOR_FRAMES: usize = 64;
/// …and else this many times the samples' median depth.
const MEDIAN_TIMES: usize = 3;

/// How deep a flamegraph's stacks are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum MaxDepth {
    /// Cut stacks deeper than three times the samples' median depth (at
    /// least 64 frames). Default.
    #[default]
    Auto,
    /// Cut stacks deeper than this many frames.
    Frames(usize),
    /// Draw every frame.
    All,
}

impl MaxDepth {
    /// The depth, in frames above the thread, that `stacks` are cut at;
    /// `None` draws every frame.
    pub(super) fn limit(self, stacks: &[(FoldedStack<'_>, u64)]) -> Option<usize> {
        match self {
            MaxDepth::All => None,
            MaxDepth::Frames(frames) => Some(frames),
            MaxDepth::Auto => {
                let median =
                    median_depth(stacks.iter().map(|(stack, count)| (depth(stack), *count)));
                Some(FLOOR_FRAMES.max(median * MEDIAN_TIMES))
            }
        }
    }
}

impl FromStr for MaxDepth {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "auto" => Ok(MaxDepth::Auto),
            "all" => Ok(MaxDepth::All),
            _ => match text.parse::<usize>() {
                Ok(frames) if frames > 0 => Ok(MaxDepth::Frames(frames)),
                _ => Err(format!(
                    "`{text}` is not a depth: give `auto`, `all` or a number of frames (at least 1)"
                )),
            },
        }
    }
}

impl fmt::Display for MaxDepth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaxDepth::Auto => f.write_str("auto"),
            MaxDepth::All => f.write_str("all"),
            MaxDepth::Frames(frames) => write!(f, "{frames}"),
        }
    }
}

/// A stack's depth: its functions (inlined ones included), without the
/// thread and the `[truncated]` marker.
fn depth(stack: &FoldedStack<'_>) -> usize {
    stack.symbols.len()
}

/// The smallest depth that half the samples stay within, from (depth,
/// samples) pairs; 0 when there are none.
fn median_depth(depths: impl Iterator<Item = (usize, u64)>) -> usize {
    let mut depths: Vec<(usize, u64)> = depths.collect();
    depths.sort_unstable();
    let total: u64 = depths.iter().map(|(_, count)| count).sum();
    let mut within = 0;
    for (depth, count) in depths {
        within += count;
        if within * 2 >= total {
            return depth;
        }
    }
    0
}

/// The frames a depth limit left out of the stacks merged into one: as
/// few and as many as there were in each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Hidden {
    fewest: usize,
    most: usize,
    /// An icicle's: the outermost callers were left out, not the deepest
    /// callees.
    outer: bool,
}

impl Hidden {
    /// The marker frame's name: `[12 deeper frames]`, `[3 to 305 deeper
    /// frames]`, or an icicle's `[12 outer frames]`.
    pub(super) fn name(self) -> String {
        let side = if self.outer { "outer" } else { "deeper" };
        let plural = if self.most == 1 { "frame" } else { "frames" };
        if self.fewest == self.most {
            format!("[{} {side} {plural}]", self.most)
        } else {
            format!("[{} to {} {side} {plural}]", self.fewest, self.most)
        }
    }

    /// True when the marker stands for an icicle's outermost callers, and
    /// so sits below the frames kept (next to the thread).
    pub(super) fn outer(self) -> bool {
        self.outer
    }

    fn merge(self, other: Hidden) -> Hidden {
        Hidden {
            fewest: self.fewest.min(other.fewest),
            most: self.most.max(other.most),
            outer: self.outer,
        }
    }
}

/// A stack as it is drawn: its frames, and when a depth limit cut it, the
/// marker frame that stands for the frames left out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Drawn<'a> {
    pub(super) stack: FoldedStack<'a>,
    pub(super) hidden: Option<Hidden>,
}

impl<'a> Drawn<'a> {
    /// `stack` drawn whole.
    pub(super) fn whole(stack: FoldedStack<'a>) -> Self {
        Drawn {
            stack,
            hidden: None,
        }
    }
}

/// `stacks` cut at `limit` functions: a deeper stack keeps its `limit`
/// outermost functions (or, for an icicle, `outer`, its `limit` innermost,
/// leaf included), and gets a marker for the rest. Cut stacks that become
/// equal are merged, their markers with them; no sample is lost. A flame
/// graph's stacks in name order stay in that order (cutting every stack
/// at one depth keeps it). `None` keeps every frame.
pub(super) fn cut_deep<'a>(
    stacks: &[(FoldedStack<'a>, u64)],
    limit: Option<usize>,
    outer: bool,
) -> Vec<(Drawn<'a>, u64)> {
    let Some(limit) = limit.filter(|&limit| stacks.iter().any(|(s, _)| depth(s) > limit)) else {
        return stacks
            .iter()
            .map(|(stack, count)| (Drawn::whole(stack.clone()), *count))
            .collect();
    };
    let cut = stacks.iter().map(|(stack, count)| {
        let hidden = depth(stack).saturating_sub(limit);
        if hidden == 0 {
            return (Drawn::whole(stack.clone()), *count);
        }
        let symbols = if outer {
            stack.symbols[hidden..].to_vec()
        } else {
            stack.symbols[..limit].to_vec()
        };
        let stack = FoldedStack {
            thread: stack.thread,
            truncated: stack.truncated,
            symbols,
            // An icicle files a stack under its leaf's category.
            leaf: if outer { stack.leaf } else { None },
        };
        let hidden = Hidden {
            fewest: hidden,
            most: hidden,
            outer,
        };
        (
            Drawn {
                stack,
                hidden: Some(hidden),
            },
            *count,
        )
    });
    // Merged by the frames kept, keeping the first one's place.
    let mut at: HashMap<FoldedStack<'a>, usize> = HashMap::new();
    let mut merged: Vec<(Drawn<'a>, u64)> = Vec::with_capacity(stacks.len());
    for (drawn, count) in cut {
        let Some(hidden) = drawn.hidden else {
            merged.push((drawn, count));
            continue;
        };
        match at.get(&drawn.stack) {
            Some(&index) => {
                let (first, first_count) = &mut merged[index];
                first.hidden = first.hidden.map(|first| first.merge(hidden));
                *first_count += count;
            }
            None => {
                at.insert(drawn.stack.clone(), merged.len());
                merged.push((drawn, count));
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolize::SymbolId;

    /// A stack of `depth` functions, numbered from `first`, on `thread`.
    fn stack(thread: &'static str, first: usize, depth: usize) -> FoldedStack<'static> {
        FoldedStack {
            thread,
            truncated: false,
            symbols: (first..first + depth).map(SymbolId::new).collect(),
            leaf: Some(SymbolId::new(first + depth - 1)),
        }
    }

    /// Stacks shaped like a short compile under its Python launcher: the
    /// compiler's 3,030 samples 20 to 60 frames deep, the launcher's 360
    /// (11%) 120 to 370 frames deep.
    fn compile_with_launcher() -> Vec<(FoldedStack<'static>, u64)> {
        let mut stacks: Vec<_> = (20..=60)
            .map(|depth| {
                (
                    stack("iree-compile", 0, depth),
                    if depth < 40 { 120 } else { 30 },
                )
            })
            .collect();
        stacks.extend((0..6).map(|at| (stack("iree-compile", 1000, 120 + 50 * at), 60)));
        stacks
    }

    #[test]
    fn the_launchers_deep_stacks_are_cut_and_the_compilers_are_not() {
        let stacks = compile_with_launcher();
        let total: u64 = stacks.iter().map(|(_, count)| count).sum();
        let limit = MaxDepth::Auto.limit(&stacks).expect("a limit");
        let compiler_deepest = 60;
        assert!(
            (compiler_deepest..120).contains(&limit),
            "the limit {limit} keeps the compiler's 60 frames and cuts the launcher's 120"
        );
        let cut = cut_deep(&stacks, Some(limit), false);
        assert_eq!(
            cut.iter().map(|(_, count)| count).sum::<u64>(),
            total,
            "every sample is still counted"
        );
        assert!(
            cut.iter()
                .all(|(drawn, _)| drawn.stack.symbols.len() <= limit)
        );
        let markers: Vec<String> = cut
            .iter()
            .filter_map(|(drawn, _)| drawn.hidden.map(Hidden::name))
            .collect();
        let fewest = 120 - limit;
        let most = 370 - limit;
        assert_eq!(
            markers,
            [format!("[{fewest} to {most} deeper frames]")],
            "the launcher's six stacks share their first {limit} frames: one marker"
        );
        let (compiler, cut_compiler): (Vec<_>, Vec<_>) = (
            stacks
                .iter()
                .filter(|(s, _)| s.symbols[0].index() == 0)
                .collect(),
            cut.iter()
                .filter(|(drawn, _)| drawn.stack.symbols[0].index() == 0)
                .collect(),
        );
        assert_eq!(
            compiler.len(),
            cut_compiler.len(),
            "the compiler's stacks are whole"
        );
        assert!(cut_compiler.iter().all(|(drawn, _)| drawn.hidden.is_none()));
    }

    #[test]
    fn the_automatic_limit_follows_the_median_and_has_a_floor() {
        // A short compile: the launcher's deep stacks are 45% of the
        // samples, and still cut at three times the median, 30 frames.
        let mut stacks = vec![(stack("t", 0, 30), 55), (stack("t", 0, 300), 45)];
        assert_eq!(MaxDepth::Auto.limit(&stacks), Some(90));
        // More than half the samples that deep: they are the picture.
        stacks[1].1 = 56;
        assert_eq!(MaxDepth::Auto.limit(&stacks), Some(900));
        // Shallow stacks: the floor.
        assert_eq!(
            MaxDepth::Auto.limit(&[(stack("t", 0, 10), 1)]),
            Some(FLOOR_FRAMES)
        );
        assert_eq!(MaxDepth::Auto.limit(&[]), Some(FLOOR_FRAMES));
        assert_eq!(MaxDepth::Frames(7).limit(&stacks), Some(7));
        assert_eq!(MaxDepth::All.limit(&stacks), None);
    }

    #[test]
    fn stacks_within_the_limit_are_drawn_whole_and_in_their_order() {
        let stacks = vec![
            (stack("a", 0, 3), 1),
            (stack("a", 0, 9), 2),
            (stack("a", 5, 2), 3),
        ];
        for limit in [None, Some(9), Some(100)] {
            let cut = cut_deep(&stacks, limit, false);
            let whole: Vec<_> = stacks
                .iter()
                .map(|(stack, count)| (Drawn::whole(stack.clone()), *count))
                .collect();
            assert_eq!(cut, whole, "at {limit:?}");
        }
    }

    #[test]
    fn a_flame_graph_keeps_the_outer_frames_and_an_icicle_the_inner_ones() {
        let stacks = vec![(stack("t", 0, 10), 4), (stack("t", 0, 12), 1)];
        let upright = cut_deep(&stacks, Some(4), false);
        assert_eq!(upright.len(), 1, "both share their 4 outer frames");
        let (drawn, count) = &upright[0];
        assert_eq!(*count, 5);
        assert_eq!(drawn.stack.symbols, stack("t", 0, 4).symbols);
        assert_eq!(drawn.hidden.unwrap().name(), "[6 to 8 deeper frames]");

        let icicle = cut_deep(&stacks, Some(4), true);
        assert_eq!(icicle.len(), 2, "their inner frames differ");
        assert_eq!(icicle[0].0.stack.symbols, stack("t", 6, 4).symbols);
        assert_eq!(
            icicle[0].0.stack.leaf,
            Some(SymbolId::new(9)),
            "the leaf stays"
        );
        assert_eq!(icicle[1].0.hidden.unwrap().name(), "[8 outer frames]");
        assert!(icicle[1].0.hidden.unwrap().outer());
    }

    #[test]
    fn a_cut_of_one_frame_is_named_in_the_singular() {
        let cut = cut_deep(&[(stack("t", 0, 5), 1)], Some(4), false);
        assert_eq!(cut[0].0.hidden.unwrap().name(), "[1 deeper frame]");
    }

    #[test]
    fn depths_are_read_as_auto_all_or_a_number() {
        assert_eq!("auto".parse(), Ok(MaxDepth::Auto));
        assert_eq!("all".parse(), Ok(MaxDepth::All));
        assert_eq!("120".parse(), Ok(MaxDepth::Frames(120)));
        assert!("0".parse::<MaxDepth>().is_err());
        assert!("deep".parse::<MaxDepth>().is_err());
        for depth in [MaxDepth::Auto, MaxDepth::All, MaxDepth::Frames(3)] {
            assert_eq!(depth.to_string().parse(), Ok(depth));
        }
    }
}
