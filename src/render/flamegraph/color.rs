//! The category palette: every function drawn gets its category's colour
//! (dimmed outside `--category`), and the shares the subtitle and the
//! legend show.

use hashbrown::HashMap;
use inferno::flamegraph::color::{Color, PaletteMap, parse_hex_color};

use super::PictureOptions;
use super::tokens::FrameNames;
use crate::attribute::{Classes, percent};
use crate::fold::{FoldedStack, TRUNCATED_FRAME};
use category_rules::CategoryId;

/// Colour of frames that are not functions: thread roots, `[truncated]` and
/// the depth limit's markers.
pub(super) const NEUTRAL_COLOR: &str = "#bdbdbd";

/// inferno colours frames by name, here their tokens: every function's
/// frame gets its category's colour (dimmed outside `--category`); thread
/// roots, the `[truncated]` marker, the depth markers and inferno's own
/// root are neutral.
/// Frames `names` has no token for (cut away before inferno) get none.
pub(super) fn palette(
    classes: &Classes<'_>,
    options: &PictureOptions,
    stacks: &[(FoldedStack<'_>, u64)],
    names: &FrameNames,
) -> PaletteMap {
    let table = classes.table;
    let categories = &classes.categories;
    let mut palette = PaletteMap::default();
    let neutral = parse_hex_color(NEUTRAL_COLOR).expect("a valid colour");
    // A name two binaries share (`_start` of the Python launcher and of the
    // compiler) is one token, and takes the colour of the first one drawn.
    let mut coloured = vec![false; categories.len()];
    for symbol in stacks.iter().flat_map(|(stack, _)| &stack.symbols) {
        if std::mem::replace(&mut coloured[symbol.index()], true) {
            continue;
        }
        let Some(token) = names.symbol_token(*symbol) else {
            continue;
        };
        let category = categories[symbol.index()];
        let color = parse_hex_color(&table.category(category).color).unwrap_or(neutral);
        let color = match options.category {
            Some(wanted) if wanted != category => dim(color),
            _ => color,
        };
        if palette.get(&token).is_none() {
            palette.insert(token, color);
        }
    }
    let mut neutral_frame = |name: &str| {
        if let Some(token) = names.other_token(name) {
            palette.insert(token, neutral);
        }
    };
    for (stack, _) in stacks {
        neutral_frame(stack.thread);
    }
    neutral_frame(TRUNCATED_FRAME);
    for marker in names.markers() {
        neutral_frame(marker);
    }
    // An icicle's first level: the categories, in their colours.
    if options.inverted {
        for (index, category) in table.categories.iter().enumerate() {
            let color = parse_hex_color(&category.color).unwrap_or(neutral);
            if let Some(token) =
                names.other_token(&super::category_frame(table, CategoryId::new(index)))
            {
                palette.insert(token, color);
            }
        }
    }
    // inferno's root frame ("all") has the empty name.
    palette.insert("", neutral);
    palette
}

/// A colour mixed two thirds of the way to white.
fn dim(color: Color) -> Color {
    let mix = |channel: u8| (channel as u16 + 2 * 255).div_ceil(3) as u8;
    Color {
        r: mix(color.r),
        g: mix(color.g),
        b: mix(color.b),
    }
}

/// A category present in the picture: its self share (by the drawn stacks'
/// leaf functions) and its inclusive share (on a drawn stack at all).
#[derive(Clone, Copy, Debug)]
pub(super) struct Share {
    pub(super) category: CategoryId,
    pub(super) self_percent: f64,
    pub(super) inclusive_percent: f64,
}

/// Every category with a frame in the drawn stacks, by self share, then
/// inclusive share. `other` counts its self samples only, as in `report`.
pub(super) fn category_shares(
    stacks: &[(FoldedStack<'_>, u64)],
    categories: &[CategoryId],
    other: CategoryId,
) -> Vec<Share> {
    let total: u64 = stacks.iter().map(|(_, count)| count).sum();
    let mut counts: HashMap<CategoryId, (u64, u64)> = HashMap::new();
    // Categories are few: a stack's set of them is a list of flags.
    let mut on_stack: Vec<bool> = Vec::new();
    for (stack, count) in stacks {
        if let Some(leaf) = stack.leaf {
            counts.entry(categories[leaf.index()]).or_default().0 += count;
        }
        on_stack.clear();
        let leaf_is_other = stack
            .leaf
            .is_some_and(|leaf| categories[leaf.index()] == other);
        for symbol in &stack.symbols {
            let category = categories[symbol.index()];
            if category == other && !leaf_is_other {
                continue;
            }
            let category = category.index();
            if category >= on_stack.len() {
                on_stack.resize(category + 1, false);
            }
            on_stack[category] = true;
        }
        for (category, _) in on_stack.iter().enumerate().filter(|(_, on)| **on) {
            counts.entry(CategoryId::new(category)).or_default().1 += count;
        }
    }
    let mut shares: Vec<(CategoryId, (u64, u64))> = counts.into_iter().collect();
    shares.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
    shares
        .into_iter()
        .map(|(category, (own, inclusive))| Share {
            category,
            self_percent: percent(own, total),
            inclusive_percent: percent(inclusive, total),
        })
        .collect()
}
