//! Differential flamegraphs for `diff --flamegraph`: one side's stacks (their
//! widths are that side's samples), every frame coloured by how the share
//! of the samples under it (the frame and its callees) changed from BASE to
//! NEW: red grew, blue shrank, the deeper the colour the larger the change,
//! grey within the noise or under the minimum effect. Shares normalize the
//! two sides to equal totals, as inferno's `diff-folded` does; drawing BASE
//! with the same colours shows the stacks that vanished (inferno's
//! `--negate`, the other way round).
//!
//! The frames are the merged tree's, walked from the root with siblings in
//! the order of the stacks' folded lines; each is drawn with its colour
//! and, in its tooltip, the other side's share and the change.
//!
//! A frame is judged as `diff`'s table judges a row: its inclusive share
//! run by run against the run-to-run noise, with Holm's correction over
//! every frame that could change by the threshold, the table's threshold
//! and family-wise error rate. By default a stack starts at its process, not
//! its thread, and the thread-pool and pass-manager frames that only say
//! where work ran are left out ([`FoldedFor::Diff`]): work that moved from
//! the main thread to a worker, or from one dispatch of the pass manager to
//! another, is the same frame on both sides.
//!
//! A frame whose change is only structural is drawn as moved
//! (`diff/moved.rs`): its share changed beyond the noise, but its
//! function's samples, over every path it is on, did not; the work ran on
//! another path.

use hashbrown::HashMap;

use super::color::Rgb;
use super::layout::{Frame, too_narrow};
use super::svg::{FrameLook, LegendEntry, Page, Svg, write_svg};
use crate::attribute::Classes;
use crate::fold::{TRUNCATED_FRAME, fold, frame_name, line};
use crate::profile::{Profile, SampleFilter};
use crate::stats::multiple;
use crate::stats::shares::{self, Count, Noise, RowRuns, Test};

/// Colour of frames whose change only moved work from one path to another.
const MOVED: Rgb = Rgb {
    r: 176,
    g: 196,
    b: 222,
};
/// Colour of frames within the noise.
const WITHIN_NOISE: Rgb = Rgb {
    r: 212,
    g: 212,
    b: 212,
};
/// The palest and the deepest shade of a change: the other channels of
/// red or blue, from a small change to the largest.
const PALEST: f64 = 225.0;
const DEEPEST: f64 = 90.0;

/// Which side's stacks are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Drawn {
    Base,
    New,
}

/// The folded stacks of both sides' runs (`process;root;…;leaf` →
/// samples, a map a run) and how to judge their changes.
pub(crate) struct DiffStacks<'a> {
    pub base: &'a [HashMap<String, u64>],
    pub new: &'a [HashMap<String, u64>],
    /// The run-to-run noise of inclusive shares, measured on the diff's rows.
    pub noise: Noise,
    pub threshold_pp: f64,
}

/// One frame of the merged tree of both sides.
struct Node<'a> {
    /// The function's name (empty for the root).
    name: &'a str,
    children: HashMap<&'a str, usize>,
    /// Samples at or under this frame: base, new.
    samples: [u64; 2],
    /// The same, run by run.
    runs: [Vec<u64>; 2],
}

/// Every frame of both sides, merged from the root: a frame is a path of
/// names, as in a flamegraph.
struct Tree<'a> {
    nodes: Vec<Node<'a>>,
    totals: [u64; 2],
    /// Each run's samples.
    run_totals: [Vec<u64>; 2],
}

impl<'a> Tree<'a> {
    fn new(stacks: &DiffStacks<'a>) -> Tree<'a> {
        let run_counts = [stacks.base.len(), stacks.new.len()];
        let node = |name| Node {
            name,
            children: HashMap::new(),
            samples: [0, 0],
            runs: run_counts.map(|runs| vec![0; runs]),
        };
        let mut tree = Tree {
            nodes: vec![node("")],
            totals: [0, 0],
            run_totals: run_counts.map(|runs| vec![0; runs]),
        };
        for (side, runs) in [stacks.base, stacks.new].into_iter().enumerate() {
            for (run, lines) in runs.iter().enumerate() {
                for (line, &count) in lines {
                    tree.totals[side] += count;
                    tree.run_totals[side][run] += count;
                    tree.nodes[0].samples[side] += count;
                    tree.nodes[0].runs[side][run] += count;
                    let mut at = 0;
                    for name in line.split(';') {
                        let next = tree.nodes.len();
                        let child = *tree.nodes[at].children.entry(name).or_insert(next);
                        if child == next {
                            tree.nodes.push(node(name));
                        }
                        tree.nodes[child].samples[side] += count;
                        tree.nodes[child].runs[side][run] += count;
                        at = child;
                    }
                }
            }
        }
        tree
    }

    /// The test of samples counted run by run on each side (`hits[side][run]`)
    /// against the runs' totals, as a row of the table is tested.
    fn test(&self, hits: &[Vec<u64>; 2], noise: &Noise) -> Test {
        let counts = |side: usize| -> Vec<Count> {
            hits[side]
                .iter()
                .zip(&self.run_totals[side])
                .map(|(&hits, &samples)| Count { hits, samples })
                .collect()
        };
        let (base, new) = (counts(0), counts(1));
        shares::test_row(
            &RowRuns {
                base: &base,
                new: &new,
            },
            noise,
        )
    }

    /// Change of each frame's share, in percentage points, and whether it
    /// is significant: each frame tested as a row of the table, run by run
    /// against the noise, and corrected with every frame that could change
    /// by the threshold.
    fn changes(&self, noise: &Noise, threshold_pp: f64) -> Vec<(f64, bool)> {
        let tests: Vec<Test> = self
            .nodes
            .iter()
            .map(|node| self.test(&node.runs, noise))
            .collect();
        let verdicts = multiple::judge(&tests, threshold_pp, threshold_pp, multiple::FAMILY_ALPHA);
        tests
            .iter()
            .zip(verdicts)
            .map(|(test, verdict)| (test.delta_pp, verdict.significant))
            .collect()
    }
}

/// Titles and labels of a picture.
pub(crate) struct Labels {
    pub title: String,
    pub base: String,
    pub new: String,
}

/// Draws `drawn`'s stacks coloured by the change; `None` when that side
/// has no samples.
pub(crate) fn draw(
    stacks: &DiffStacks<'_>,
    drawn: Drawn,
    labels: &Labels,
    min_width: f64,
) -> Option<Svg> {
    let side = match drawn {
        Drawn::Base => 0,
        Drawn::New => 1,
    };
    let tree = Tree::new(stacks);
    if tree.totals[side] == 0 {
        return None;
    }
    let changes = tree.changes(&stacks.noise, stacks.threshold_pp);
    let significant: Vec<bool> = changes
        .iter()
        .map(|(_, significant)| *significant)
        .collect();
    let moved = tree.moved(&significant, &stacks.noise, stacks.threshold_pp);
    let largest = changes
        .iter()
        .zip(&moved)
        .filter(|((_, significant), moved)| *significant && !**moved)
        .map(|((delta, _), _)| delta.abs())
        .fold(0.0, f64::max);
    let frames = tree.frames(side, min_width);
    let subtitle = subtitle(drawn, labels, stacks.threshold_pp);
    let legend = scale(largest, stacks.threshold_pp);
    let page = Page {
        title: &labels.title,
        subtitle: &subtitle,
        count_name: "samples",
        inverted: false,
        legend: &legend,
        legend_description: "colour scale: change of each frame's share from base to new; the deepest shades are the largest change drawn",
    };
    let other_side = 1 - side;
    let other_name = match drawn {
        Drawn::Base => "new",
        Drawn::New => "base",
    };
    Some(write_svg(&page, &frames, |frame| {
        let node = &tree.nodes[frame.key];
        let (delta, significant) = changes[frame.key];
        let (fill, verdict) = match (significant, moved[frame.key]) {
            (false, _) => (WITHIN_NOISE, ", not significant"),
            (true, true) => (MOVED, ", moved: the same work on another path"),
            (true, false) => (color(delta, true, largest), ""),
        };
        FrameLook {
            name: node.name,
            fill,
            note: format!(
                "; {other_name} {:.2}%, {:+.2} pp{verdict}",
                crate::attribute::percent(node.samples[other_side], tree.totals[other_side]),
                delta,
            ),
            suffix: "",
        }
    }))
}

impl Tree<'_> {
    /// The frames of `side`'s samples: every node with samples on that
    /// side, at least `min_width` percent of them wide, from the root,
    /// each before the frames on it, siblings in the order of their folded
    /// lines right of the frame's own samples (as `layout::lay_out` places
    /// sorted stacks).
    fn frames(&self, side: usize, min_width: f64) -> Vec<Frame<usize>> {
        let total = self.totals[side];
        let mut frames = Vec::new();
        // Nodes to place, the last first: (node, depth, start).
        let mut to_place = vec![(0, 0, 0)];
        while let Some((node, depth, start)) = to_place.pop() {
            let width = self.nodes[node].samples[side];
            frames.push(Frame {
                key: node,
                depth,
                start,
                width,
            });
            let mut children: Vec<(&str, usize)> = self.nodes[node]
                .children
                .iter()
                .map(|(name, child)| (*name, *child))
                .filter(|(_, child)| self.nodes[*child].samples[side] > 0)
                .collect();
            // In the order of the stacks' folded lines: a name, then `;`
            // (`f;…` after `f(int)`, as these pictures always had them).
            children.sort_unstable_by(|(a, _), (b, _)| {
                a.bytes().chain([b';']).cmp(b.bytes().chain([b';']))
            });
            // The frame's own samples come first, as a stack ending at a
            // frame sorts before the stacks that go on from it.
            let under: u64 = children
                .iter()
                .map(|(_, child)| self.nodes[*child].samples[side])
                .sum();
            let mut child_start = start + width - under;
            let mut placed = Vec::with_capacity(children.len());
            for (_, child) in children {
                let samples = self.nodes[child].samples[side];
                if !too_narrow(samples, total, min_width) {
                    placed.push((child, depth + 1, child_start));
                }
                child_start += samples;
            }
            to_place.extend(placed.into_iter().rev());
        }
        frames
    }
}

/// What the picture says under its title.
fn subtitle(drawn: Drawn, labels: &Labels, threshold_pp: f64) -> String {
    let (widths, other) = match drawn {
        Drawn::New => (&labels.new, &labels.base),
        Drawn::Base => (&labels.base, &labels.new),
    };
    format!(
        "widths: samples of {widths}; colour: each frame's share, base → new: red grew, blue shrank, grey-blue moved (its function's samples did not change), grey within noise or < {threshold_pp} pp (vs {other})"
    )
}

/// The fill of a frame whose share changed by `delta` points.
fn color(delta: f64, significant: bool, largest: f64) -> Rgb {
    if !significant || largest <= 0.0 {
        return WITHIN_NOISE;
    }
    let depth = (delta.abs() / largest).clamp(0.0, 1.0);
    let other = (PALEST - (PALEST - DEEPEST) * depth).round() as u8;
    if delta > 0.0 {
        Rgb {
            r: 255,
            g: other,
            b: other,
        }
    } else {
        Rgb {
            r: other,
            g: other,
            b: 255,
        }
    }
}

/// The colour scale, as the legend below the picture: the deepest shades
/// stand for the largest change drawn, either way.
fn scale(largest: f64, threshold_pp: f64) -> Vec<LegendEntry> {
    [
        (
            "shrank-most",
            color(-largest, true, largest),
            format!("shrank {largest:.1} pp"),
        ),
        (
            "shrank",
            color(-threshold_pp, true, largest),
            "shrank".to_owned(),
        ),
        (
            "within-noise",
            WITHIN_NOISE,
            format!("within noise or under {threshold_pp} pp"),
        ),
        ("moved", MOVED, "moved: same work, other path".to_owned()),
        (
            "grew",
            color(threshold_pp, true, largest),
            "grew".to_owned(),
        ),
        (
            "grew-most",
            color(largest, true, largest),
            format!("grew {largest:.1} pp"),
        ),
    ]
    .into_iter()
    .map(|(id, fill, label)| LegendEntry::new(id, &label, &fill.to_string(), ""))
    .collect()
}

/// How the stacks of a differential flamegraph are folded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum FoldedFor {
    /// Each stack under its process, without the thread-pool and
    /// pass-manager frames that only say where work ran, and a thread-pool
    /// task from its runner up (not on the stack of the thread that waited
    /// for it): the same work on another thread, or through another
    /// dispatch, is one frame.
    #[default]
    Diff,
    /// Each stack under its thread, every frame kept (`diff --by-thread`).
    ByThread,
}

/// The categories of frames that only say where work ran.
const PLUMBING: [&str; 2] = ["threading", "pass-manager"];

/// The folded stacks of the samples `filter` keeps (`process;root;…;leaf`,
/// or `thread;root;…;leaf` and every frame with [`FoldedFor::ByThread`]) →
/// samples, merged by their text.
pub(crate) fn folded_lines(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    folded: FoldedFor,
) -> HashMap<String, u64> {
    let mut lines: HashMap<String, u64> = HashMap::new();
    let plumbing: Vec<bool> = classes
        .table
        .categories
        .iter()
        .map(|category| PLUMBING.contains(&category.id.as_str()))
        .collect();
    if folded == FoldedFor::ByThread {
        for (stack, count) in fold(profile, filter) {
            *lines.entry(line(profile, &stack)).or_insert(0) += count;
        }
        return lines;
    }
    let mut symbols = Vec::new();
    for (key, count) in profile.samples(filter) {
        let image = profile
            .processes
            .image(profile.processes.thread(key.thread).process);
        // The program, so that the launcher and the compiler, both named
        // `iree-compile`, stay apart.
        let program = image
            .executable
            .as_deref()
            .and_then(|path| path.rsplit('/').next())
            .unwrap_or(&image.name);
        let mut text = frame_name(program).into_owned();
        if !profile.reaches_root(key) {
            text.push(';');
            text.push_str(TRUNCATED_FRAME);
        }
        symbols.clear();
        profile.symbols_leaf_first(key.stack, &mut symbols);
        // A thread waiting for its parallel work runs queued tasks on top
        // of its own stack: a task is drawn from the task runner up,
        // whichever thread ran it.
        if let Some(cut) = classes.passes.task_cut(&symbols) {
            symbols.truncate(cut);
        }
        for (at, &symbol) in symbols.iter().enumerate().rev() {
            if at > 0 && plumbing[classes.categories[symbol.index()].index()] {
                continue;
            }
            text.push(';');
            text.push_str(&frame_name(&profile.symbols.get(symbol).name));
        }
        *lines.entry(text).or_insert(0) += count;
    }
    lines
}

mod moved;
#[cfg(test)]
mod tests;
