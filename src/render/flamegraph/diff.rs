//! Differential flamegraphs for `diff --flamegraph`: one side's stacks (their
//! widths are that side's samples), every frame coloured by how the share
//! of the samples under it (the frame and its callees) changed from BASE to
//! NEW: red grew, blue shrank, the deeper the colour the larger the change,
//! grey within the noise or under the minimum effect. Shares normalize the
//! two sides to equal totals, as inferno's `diff-folded` does; drawing BASE
//! with the same colours shows the stacks that vanished (inferno's
//! `--negate`, the other way round).
//!
//! inferno lays the frames out; the colours and the change in each frame's
//! tooltip are put in afterwards, frame by frame, found by their depth and
//! their first sample (`fg:x`), which the same walk over the sorted stacks
//! gives here.

use hashbrown::HashMap;
use inferno::flamegraph::Options;

use super::svg::{IMAGE_WIDTH, LegendEntry, add_legend};
use crate::attribute::significance::{self, Count, Noise, RowRuns, Test};
use crate::fold::{fold, line};
use crate::profile::{Profile, SampleFilter};
use crate::render::xml_escape;

/// Colour of frames within the noise.
const WITHIN_NOISE: (u8, u8, u8) = (212, 212, 212);
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

/// The folded stacks of both sides (`thread;root;…;leaf` → samples, all
/// runs of a side together) and how to judge their changes.
pub(crate) struct DiffStacks<'a> {
    pub base: &'a HashMap<String, u64>,
    pub new: &'a HashMap<String, u64>,
    /// The run-to-run noise of inclusive shares, measured on the diff's rows.
    pub noise: Noise,
    pub threshold_pp: f64,
}

/// One frame of the merged tree of both sides.
struct Node<'a> {
    children: HashMap<&'a str, usize>,
    /// Samples at or under this frame: base, new.
    samples: [u64; 2],
}

/// Every frame of both sides, merged from the root: a frame is a path of
/// names, as in a flamegraph.
struct Tree<'a> {
    nodes: Vec<Node<'a>>,
    totals: [u64; 2],
}

impl<'a> Tree<'a> {
    fn new(stacks: &DiffStacks<'a>) -> Tree<'a> {
        let mut tree = Tree {
            nodes: vec![Node {
                children: HashMap::new(),
                samples: [0, 0],
            }],
            totals: [0, 0],
        };
        for (side, lines) in [stacks.base, stacks.new].into_iter().enumerate() {
            for (line, &count) in lines {
                tree.totals[side] += count;
                tree.nodes[0].samples[side] += count;
                let mut at = 0;
                for name in line.split(';') {
                    let next = tree.nodes.len();
                    let child = *tree.nodes[at].children.entry(name).or_insert(next);
                    if child == next {
                        tree.nodes.push(Node {
                            children: HashMap::new(),
                            samples: [0, 0],
                        });
                    }
                    tree.nodes[child].samples[side] += count;
                    at = child;
                }
            }
        }
        tree
    }

    /// Change of each frame's share, in percentage points, and whether it
    /// is significant, each frame on its own: correcting over thousands of
    /// nested frames would grey out all but the largest changes.
    fn changes(&self, noise: &Noise, threshold_pp: f64) -> Vec<(f64, bool)> {
        let tests: Vec<Test> = self
            .nodes
            .iter()
            .map(|node| {
                let count = |side: usize| Count {
                    hits: node.samples[side],
                    samples: self.totals[side],
                };
                significance::test_row(
                    &RowRuns {
                        base: &[count(0)],
                        new: &[count(1)],
                    },
                    noise,
                )
            })
            .collect();
        tests
            .iter()
            .map(|test| {
                (
                    test.delta_pp,
                    significance::significant_alone(test, threshold_pp),
                )
            })
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
) -> std::io::Result<Option<Vec<u8>>> {
    let side = match drawn {
        Drawn::Base => stacks.base,
        Drawn::New => stacks.new,
    };
    if side.is_empty() {
        return Ok(None);
    }
    let tree = Tree::new(stacks);
    let changes = tree.changes(&stacks.noise, stacks.threshold_pp);
    let largest = changes
        .iter()
        .filter(|(_, significant)| *significant)
        .map(|(delta, _)| delta.abs())
        .fold(0.0, f64::max);
    let mut lines: Vec<(&str, u64)> = side
        .iter()
        .map(|(line, &count)| (line.as_str(), count))
        .collect();
    lines.sort_unstable();
    let starts = frame_starts(&tree, &lines);

    let mut options = Options::default();
    options.title = labels.title.clone();
    options.subtitle = Some(subtitle(drawn, labels, stacks.threshold_pp));
    options.count_name = "samples".to_owned();
    options.image_width = Some(IMAGE_WIDTH);
    options.min_width = min_width;
    options.deterministic = true;
    options.no_sort = true;
    let text_lines: Vec<String> = lines
        .iter()
        .map(|(line, count)| format!("{line} {count}"))
        .collect();
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(
        &mut options,
        text_lines.iter().map(String::as_str),
        &mut svg,
    )?;
    let svg = String::from_utf8(super::labels::shorten_labels(svg)).expect("inferno writes UTF-8");
    let recoloured = recolour(&svg, |depth, start| {
        let node = *starts.get(&(depth, start))?;
        let (delta, significant) = changes[node];
        let other = match drawn {
            Drawn::Base => ("new", tree.nodes[node].samples[1], tree.totals[1]),
            Drawn::New => ("base", tree.nodes[node].samples[0], tree.totals[0]),
        };
        Some(FrameChange {
            color: color(delta, significant, largest),
            note: format!(
                "{} {:.2}%, {:+.2} pp{}",
                other.0,
                crate::attribute::percent(other.1, other.2),
                delta,
                if significant { "" } else { ", not significant" }
            ),
        })
    });
    Ok(Some(add_legend(
        recoloured.into_bytes(),
        &scale(largest, stacks.threshold_pp),
        "colour scale: change of each frame's share from base to new; the deepest shades are the largest change drawn",
    )))
}

/// What the picture says under its title.
fn subtitle(drawn: Drawn, labels: &Labels, threshold_pp: f64) -> String {
    let (widths, other) = match drawn {
        Drawn::New => (&labels.new, &labels.base),
        Drawn::Base => (&labels.base, &labels.new),
    };
    format!(
        "widths: samples of {widths}; colour: each frame's share, base → new: red grew, blue shrank, grey within noise or < {threshold_pp} pp (vs {other})"
    )
}

/// The fill of a frame whose share changed by `delta` points.
fn color(delta: f64, significant: bool, largest: f64) -> (u8, u8, u8) {
    if !significant || largest <= 0.0 {
        return WITHIN_NOISE;
    }
    let depth = (delta.abs() / largest).clamp(0.0, 1.0);
    let other = (PALEST - (PALEST - DEEPEST) * depth).round() as u8;
    if delta > 0.0 {
        (255, other, other)
    } else {
        (other, other, 255)
    }
}

/// The frame of each (depth, first sample) inferno draws from `lines`
/// (sorted, as inferno reads them): the same walk as inferno's, which
/// opens a frame where a stack first differs from the one before.
fn frame_starts(tree: &Tree<'_>, lines: &[(&str, u64)]) -> HashMap<(usize, u64), usize> {
    let mut starts = HashMap::new();
    starts.insert((0, 0), 0);
    let mut open: Vec<(&str, usize)> = Vec::new();
    let mut time = 0;
    for (line, count) in lines {
        let names: Vec<&str> = line.split(';').collect();
        let shared = open
            .iter()
            .zip(&names)
            .take_while(|((open_name, _), name)| open_name == *name)
            .count();
        open.truncate(shared);
        for name in &names[shared..] {
            let parent = open.last().map_or(0, |(_, node)| *node);
            let node = tree.nodes[parent].children[name];
            open.push((name, node));
            starts.insert((open.len(), time), node);
        }
        time += count;
    }
    starts
}

/// A frame's new colour and what its tooltip adds.
struct FrameChange {
    color: (u8, u8, u8),
    note: String,
}

/// inferno's SVG with every frame `change(depth, first sample)` knows
/// recoloured and its tooltip extended. Depth 0 is the root; depths come
/// from the frames' `y`, the root lowest.
fn recolour(svg: &str, change: impl Fn(usize, u64) -> Option<FrameChange>) -> String {
    const FRAME: &str = "<g><title>";
    let mut ys: Vec<u64> = svg
        .match_indices(FRAME)
        .filter_map(|(at, _)| attribute(&svg[at..], "y"))
        .collect();
    ys.sort_unstable();
    ys.dedup();
    let depth_of = |y: u64| ys.len() - 1 - ys.binary_search(&y).unwrap_or(0);
    let mut out = String::with_capacity(svg.len() + svg.len() / 4);
    let mut rest = svg;
    while let Some(at) = rest.find(FRAME) {
        out.push_str(&rest[..at]);
        let frame = &rest[at..];
        let end = frame.find("/>").map_or(frame.len(), |end| end + 2);
        let (tag, after) = frame.split_at(end);
        rest = after;
        let found = attribute(tag, "y")
            .zip(attribute(tag, "fg:x"))
            .and_then(|(y, start)| change(depth_of(y), start));
        match found {
            Some(found) => out.push_str(&rewrite(tag, &found)),
            None => out.push_str(tag),
        }
    }
    out.push_str(rest);
    out
}

/// The numeric value of `name="…"` in `tag`.
fn attribute(tag: &str, name: &str) -> Option<u64> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let value = &tag[start..start + tag[start..].find('"')?];
    value.parse().ok()
}

/// A frame's `<g><title>…</title><rect …/>` with the new fill and the
/// change added inside the title's parentheses.
fn rewrite(tag: &str, change: &FrameChange) -> String {
    let (r, g, b) = change.color;
    let mut text = tag.to_owned();
    if let Some(close) = text.find(")</title>") {
        text.insert_str(close, &format!("; {}", xml_escape(&change.note)));
    }
    if let Some(fill) = text.find(" fill=\"") {
        let value_start = fill + " fill=\"".len();
        if let Some(length) = text[value_start..].find('"') {
            text.replace_range(
                value_start..value_start + length,
                &format!("rgb({r},{g},{b})"),
            );
        }
    }
    text
}

/// The colour scale, as the legend below the picture: the deepest shades
/// stand for the largest change drawn, either way.
fn scale(largest: f64, threshold_pp: f64) -> Vec<LegendEntry> {
    let rgb = |(r, g, b): (u8, u8, u8)| format!("rgb({r},{g},{b})");
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
    .map(|(id, fill, label)| LegendEntry::new(id, &label, &rgb(fill), ""))
    .collect()
}

/// The folded stacks of the samples `filter` keeps (`thread;root;…;leaf`
/// → samples), merged by their text, to be added up over a side's runs.
pub(crate) fn folded_lines(profile: &Profile, filter: &SampleFilter) -> HashMap<String, u64> {
    let mut lines: HashMap<String, u64> = HashMap::new();
    for (stack, count) in fold(profile, filter) {
        *lines.entry(line(profile, &stack)).or_insert(0) += count;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fill and title of every frame of an SVG, in order.
    fn frames(svg: &[u8]) -> Vec<(String, String)> {
        let svg = std::str::from_utf8(svg).unwrap();
        svg.split("<g><title>")
            .skip(1)
            .map(|frame| {
                let title = frame[..frame.find("</title>").unwrap()].to_owned();
                let fill_at = frame.find("fill=\"").unwrap() + "fill=\"".len();
                let fill = frame[fill_at..fill_at + frame[fill_at..].find('"').unwrap()].to_owned();
                (title, fill)
            })
            .collect()
    }

    /// A diff of one run a side (sampling error only), at a 1 pp threshold.
    fn sampling_error_only<'a>(
        base: &'a HashMap<String, u64>,
        new: &'a HashMap<String, u64>,
    ) -> DiffStacks<'a> {
        DiffStacks {
            base,
            new,
            noise: Noise {
                dispersion: 1.0,
                degrees_of_freedom: None,
            },
            threshold_pp: 1.0,
        }
    }

    fn labels() -> Labels {
        Labels {
            title: "t".to_owned(),
            base: "base".to_owned(),
            new: "new".to_owned(),
        }
    }

    fn stacks(lines: &[(&str, u64)]) -> HashMap<String, u64> {
        lines
            .iter()
            .map(|(line, count)| ((*line).to_owned(), *count))
            .collect()
    }

    #[test]
    fn each_frame_is_coloured_by_the_change_of_its_own_path() {
        // `c` grows under `b` and shrinks under `a`: colours go by frame
        // (path), not by name. `f` and `f(int)` sort by what follows the
        // name, as in inferno.
        let base = stacks(&[
            ("main;a;c", 300),
            ("main;b;c", 300),
            ("main;d", 380),
            ("main;f", 10),
            ("main;f(int)", 10),
        ]);
        let new = stacks(&[
            ("main;a;c", 100),
            ("main;b;c", 500),
            ("main;d", 380),
            ("main;f", 10),
            ("main;f(int)", 10),
        ]);
        let diff = sampling_error_only(&base, &new);
        let labels = labels();
        let red = "rgb(255,90,90)";
        let blue = "rgb(90,90,255)";
        let grey = "rgb(212,212,212)";
        let drawn = frames(&draw(&diff, Drawn::New, &labels, 0.0).unwrap().unwrap());
        let fill_of = |frames: &[(String, String)], title: &str| -> String {
            frames
                .iter()
                .find(|(text, _)| text.starts_with(title))
                .unwrap_or_else(|| panic!("no frame {title} in {frames:?}"))
                .1
                .clone()
        };
        // Frames in inferno's order: a, c under a, b, c under b, d, f, f(int).
        assert_eq!(fill_of(&drawn, "a (100 samples"), blue);
        assert_eq!(fill_of(&drawn, "c (100 samples"), blue);
        assert_eq!(fill_of(&drawn, "b (500 samples"), red);
        assert_eq!(fill_of(&drawn, "c (500 samples"), red);
        assert_eq!(fill_of(&drawn, "d (380 samples"), grey);
        assert_eq!(fill_of(&drawn, "main (1,000 samples"), grey);
        assert_eq!(fill_of(&drawn, "f (10 samples"), grey);
        assert_eq!(fill_of(&drawn, "f(int) (10 samples"), grey);
        assert!(
            drawn
                .iter()
                .any(|(title, _)| title == "c (500 samples, 50.00%; base 30.00%, +20.00 pp)"),
            "{drawn:?}"
        );
        // BASE's stacks, the same colours: `c` under `a` has 300 samples there.
        let drawn = frames(&draw(&diff, Drawn::Base, &labels, 0.0).unwrap().unwrap());
        assert_eq!(fill_of(&drawn, "c (300 samples, 30.00%; new 10.00%"), blue);
        assert_eq!(fill_of(&drawn, "c (300 samples, 30.00%; new 50.00%"), red);
    }

    #[test]
    fn changes_within_sampling_error_stay_grey() {
        // 50% → 52% of 1000 samples is within sampling error (z ≈ 0.9).
        let base = stacks(&[("main;a", 500), ("main;b", 500)]);
        let new = stacks(&[("main;a", 520), ("main;b", 480)]);
        let diff = sampling_error_only(&base, &new);
        let labels = labels();
        let drawn = frames(&draw(&diff, Drawn::New, &labels, 0.0).unwrap().unwrap());
        assert!(
            drawn.iter().all(|(_, fill)| fill == "rgb(212,212,212)"),
            "{drawn:?}"
        );
    }
}
