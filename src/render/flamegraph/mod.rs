//! `compile-perf flamegraph`: a flamegraph whose frames are coloured by
//! category (the same colour for a category in every run), with a title
//! naming the profiled command, a subtitle with the top categories, and a
//! legend of every category present; a click zooms, and a search
//! highlights. It can be cut to one category's stacks or to one MLIR pass.
//!
//! This file selects the stacks and makes the picture; `merge.rs` cuts
//! stacks (where drawing stops, at a pass), `depth.rs` cuts the few very
//! deep ones (`--max-depth`), `names.rs` ranks the frame names, `color.rs`
//! makes the category palette, `captions.rs` the title, subtitle and
//! legend, `layout.rs` places the frames and `svg.rs` writes the SVG with
//! its script. `passes.rs` draws the passes alone (`--passes-only`), and
//! `diff.rs` the differential flamegraph of `diff`.

mod captions;
mod color;
mod depth;
pub(crate) mod diff;
mod layout;
mod merge;
mod names;
mod passes;
mod sum;
mod svg;
mod through_pass;

use crate::attribute::{Classes, PassId};
use crate::fold::{FoldedStack, counted_lines, fold, sort_by_names};
use crate::profile::{Profile, SampleFilter};
use captions::{legend_entries, subtitle, title};
use category_rules::{CategoryId, RuleTable};
use color::{NEUTRAL, Rgb, Share, category_shares, palette};
pub(crate) use depth::MaxDepth;
use depth::cut_deep;
use layout::{lay_out, leaf_first};
use merge::{cut_at_pass, cut_narrow_frames};
use names::{FrameNames, NamedStack};
pub(crate) use passes::passes_picture;
pub(crate) use sum::added_up;
pub(crate) use svg::Svg;
use svg::{FrameLook, LegendEntry, Page, write_svg};

/// What to draw.
#[derive(Clone, Debug)]
pub(crate) struct PictureOptions {
    /// Keep only stacks with a frame of this category; its frames keep their
    /// colour and the others are dimmed.
    pub category: Option<CategoryId>,
    /// Keep only stacks through this pass, cut so that its frame is the root.
    pub pass: Option<PassId>,
    /// An icicle of leaf callers: leaves on top, their callers below.
    pub inverted: bool,
    /// Only pass frames and the places outside passes (`passes.rs`).
    pub passes_only: bool,
    /// Frames narrower than this, in percent of the width, are left out.
    pub min_width: f64,
    /// Stacks deeper than this are cut, with a marker frame for the rest.
    pub max_depth: MaxDepth,
    /// Keep the folded lines of every stack drawn, uncut, in [`Rendered`].
    pub keep_folded: bool,
    pub filter: SampleFilter,
    /// The run's facts (from `run.json`), shown under the title.
    pub run_facts: Option<String>,
    /// What the roots are when they are not threads (`rewrite patterns`),
    /// named in the title.
    pub roots: Option<&'static str>,
}

/// The SVG, and the folded stacks drawn (`stack count` lines, in byte
/// order) when [`PictureOptions::keep_folded`] asked for them.
pub(crate) struct Rendered {
    pub folded: Vec<String>,
    pub svg: Svg,
}

/// Stacks ready to draw.
pub(crate) struct Drawable<'a> {
    /// Every stack selected, merged: shares and colours are counted on these.
    stacks: Vec<(FoldedStack<'a>, u64)>,
    /// What is drawn: the stacks cut where drawing stops (an icicle's are
    /// not: its frames merge from the leaves), as names, in the order they
    /// are drawn, and the names.
    drawn: Vec<NamedStack>,
    names: FrameNames,
    /// The narrowest frame drawn, in percent of the width, the depth
    /// limit, and whether the picture is an icicle: what the cut depends on.
    min_width: f64,
    max_depth: MaxDepth,
    inverted: bool,
}

impl Drawable<'_> {
    /// True when these stacks, cut as they are, draw what `options` asks for.
    pub(crate) fn suits(&self, options: &PictureOptions) -> bool {
        options.category.is_none()
            && options.pass.is_none()
            && !options.passes_only
            && options.inverted == self.inverted
            && options.min_width == self.min_width
            && options.max_depth == self.max_depth
    }
}

/// Every stack `filter` keeps, ready for a flamegraph with frames at least
/// `min_width` percent wide, cut at `max_depth`. It needs no categories, so
/// it can be made while the symbols are classified.
pub(crate) fn all_stacks<'a>(
    profile: &'a Profile,
    filter: &SampleFilter,
    min_width: f64,
    max_depth: MaxDepth,
) -> Drawable<'a> {
    straight(profile, fold(profile, filter), min_width, max_depth)
}

/// `stacks` for a flamegraph (not an icicle), cut at the depth limit and
/// where drawing stops, in the order of their names.
fn straight<'a>(
    profile: &'a Profile,
    mut stacks: Vec<(FoldedStack<'a>, u64)>,
    min_width: f64,
    max_depth: MaxDepth,
) -> Drawable<'a> {
    sort_by_names(profile, &mut stacks);
    let deep = cut_deep(&stacks, max_depth.limit(&stacks), false);
    let cut = cut_narrow_frames(profile, &deep, min_width);
    let names = FrameNames::new(profile, &cut, &[]);
    Drawable {
        drawn: names.stacks(&cut),
        names,
        stacks,
        min_width,
        max_depth,
        inverted: false,
    }
}

/// An icicle's stacks, from the leaf on: each under its leaf's category, so
/// that the hot part of the compiler reads as one wide bar with its
/// functions below it, in the order of their names from there. Stacks
/// deeper than the depth limit lose their outermost callers.
fn icicle<'a>(
    profile: &'a Profile,
    classes: &Classes<'_>,
    mut stacks: Vec<(FoldedStack<'a>, u64)>,
    min_width: f64,
    max_depth: MaxDepth,
) -> Drawable<'a> {
    sort_by_names(profile, &mut stacks);
    let table = classes.table;
    let category_frames: Vec<String> = (0..table.categories.len())
        .map(|index| category_frame(table, CategoryId::new(index)))
        .collect();
    let cut = cut_deep(&stacks, max_depth.limit(&stacks), true);
    let names = FrameNames::new(profile, &cut, &category_frames);
    let from_root: Vec<NamedStack> = cut
        .iter()
        .map(|(drawn, count)| {
            let category = drawn
                .stack
                .leaf
                .map_or(table.other(), |leaf| classes.category_of(leaf));
            let names = names.stack(drawn, Some(&category_frames[category.index()]));
            (names, *count)
        })
        .collect();
    let drawn = leaf_first(from_root);
    Drawable {
        stacks,
        drawn,
        names,
        min_width,
        max_depth,
        inverted: true,
    }
}

/// The folded lines of `stacks` in byte order, as `--folded-out` writes
/// them. Two lines are compared from the first frame where their stacks
/// differ: the bytes before it are the same (the same frames), and a deep
/// stack's line is many kilobytes.
fn byte_ordered_lines(profile: &Profile, stacks: &[(FoldedStack<'_>, u64)]) -> Vec<String> {
    let lines = counted_lines(profile, stacks);
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| {
        let from = common_prefix_bytes(profile, &stacks[a].0, &stacks[b].0);
        lines[a].as_bytes()[from..].cmp(&lines[b].as_bytes()[from..])
    });
    let mut lines: Vec<Option<String>> = lines.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|at| lines[at].take().expect("each line is taken once"))
        .collect()
}

/// The length of the folded-line text the two stacks' lines surely share:
/// the thread, the truncation marker and the frames they have in common.
fn common_prefix_bytes(profile: &Profile, a: &FoldedStack<'_>, b: &FoldedStack<'_>) -> usize {
    if a.thread != b.thread {
        return 0;
    }
    let mut bytes = a.thread.len();
    if a.truncated != b.truncated {
        return bytes;
    }
    if a.truncated {
        bytes += 1 + crate::fold::TRUNCATED_FRAME.len();
    }
    for (x, y) in a.symbols.iter().zip(&b.symbols) {
        if x != y {
            break;
        }
        bytes += 1 + profile.symbols.get(*x).name.len();
    }
    bytes
}

/// The flamegraph of `profile`, ready to draw; `None` when no stack is left.
pub(crate) fn picture(
    profile: &Profile,
    classes: &Classes<'_>,
    options: &PictureOptions,
) -> Option<Picture> {
    let stacks = match options.pass {
        Some(pass) => through_pass::stacks_through_pass(profile, classes, &options.filter, pass),
        None => fold(profile, &options.filter),
    };
    picture_from(profile, classes, options, stacks)
}

/// The flamegraph of `stacks` (the folded samples `options.filter` keeps,
/// under the roots they were folded under), ready to draw; `None` when no
/// stack is left.
pub(crate) fn picture_from<'a>(
    profile: &'a Profile,
    classes: &Classes<'_>,
    options: &PictureOptions,
    stacks: Vec<(FoldedStack<'a>, u64)>,
) -> Option<Picture> {
    let categories = &classes.categories;
    let mut stacks: Vec<_> = stacks
        .into_iter()
        .filter(|(stack, _)| match options.category {
            None => true,
            Some(wanted) => stack
                .symbols
                .iter()
                .any(|symbol| categories[symbol.index()] == wanted),
        })
        .collect();
    if let Some(pass) = options.pass {
        stacks = cut_at_pass(stacks, classes, pass);
    }
    let drawable = if options.inverted {
        icicle(
            profile,
            classes,
            stacks,
            options.min_width,
            options.max_depth,
        )
    } else {
        straight(profile, stacks, options.min_width, options.max_depth)
    };
    picture_of(profile, classes, options, drawable)
}

/// The name of a category's frame in an icicle.
fn category_frame(table: &RuleTable, category: CategoryId) -> String {
    format!("[{}]", table.category(category).name)
}

/// Everything needed to draw one flamegraph, owned, so that it can be
/// drawn on a thread of its own while the run goes on.
pub(crate) struct Picture {
    /// The stacks as names, in the order they are drawn (an icicle's from
    /// the leaf on).
    stacks: Vec<NamedStack>,
    /// Each name's text and fill, by [`NameId`](names::NameId).
    names: Vec<String>,
    fills: Vec<Rgb>,
    /// Text added to the tooltips of a name's frames, by name (a pass's
    /// split by category); empty when there is none.
    suffixes: Vec<String>,
    title: String,
    subtitle: String,
    min_width: f64,
    inverted: bool,
    legend: Vec<LegendEntry>,
    folded: Vec<String>,
    /// What a frame's count is: samples, or bytes with `--alloc`.
    count_name: &'static str,
    /// The samples (or bytes) drawn, and the categories' shares of them:
    /// what pictures are added up by ([`added_up`]).
    total: u64,
    shares: Vec<Share>,
}

/// The picture of `drawable`, which must hold the stacks `options` selects,
/// cut for them (see [`Drawable::suits`]); `None` when there is no stack.
pub(crate) fn picture_of(
    profile: &Profile,
    classes: &Classes<'_>,
    options: &PictureOptions,
    drawable: Drawable<'_>,
) -> Option<Picture> {
    let Drawable {
        stacks,
        drawn,
        names,
        ..
    } = drawable;
    if stacks.is_empty() {
        return None;
    }
    let table = classes.table;
    let fills = palette(classes, options, &stacks, &names);
    let self_shares = category_shares(&stacks, &classes.categories, classes.table.other());
    let folded = if options.keep_folded {
        byte_ordered_lines(profile, &stacks)
    } else {
        Vec::new()
    };
    Some(Picture {
        stacks: drawn,
        names: names.into_names(),
        fills,
        suffixes: Vec::new(),
        title: title(profile, options, classes),
        subtitle: subtitle(table, &self_shares, options.run_facts.as_deref()),
        min_width: options.min_width,
        inverted: options.inverted,
        legend: legend_entries(table, &self_shares),
        folded,
        count_name: profile.unit,
        total: stacks.iter().map(|(_, count)| count).sum(),
        shares: self_shares,
    })
}

impl Picture {
    /// Lays the frames out and writes the SVG.
    pub(crate) fn draw(self) -> Rendered {
        let frames = lay_out(&self.stacks, self.min_width);
        let page = Page {
            title: &self.title,
            subtitle: &self.subtitle,
            count_name: self.count_name,
            inverted: self.inverted,
            legend: &self.legend,
            legend_description: "category legend",
        };
        let svg = write_svg(&page, &frames, |frame| match frame.key {
            None => FrameLook {
                name: "all",
                fill: NEUTRAL,
                note: String::new(),
                suffix: "",
            },
            Some(name) => FrameLook {
                name: &self.names[name.index()],
                fill: self.fills[name.index()],
                note: String::new(),
                suffix: self.suffixes.get(name.index()).map_or("", String::as_str),
            },
        });
        Rendered {
            folded: self.folded,
            svg,
        }
    }
}
