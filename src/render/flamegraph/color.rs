//! The category palette: every function drawn gets its category's colour
//! (dimmed outside `--category`), and the shares the subtitle and the
//! legend show. `Rgb` is the one colour type of the flamegraphs.

use std::fmt;

use hashbrown::HashMap;

use super::PictureOptions;
use super::names::FrameNames;
use crate::attribute::{Classes, percent};
use crate::fold::{FoldedStack, TRUNCATED_FRAME};
use category_rules::CategoryId;

/// A frame's fill, written `rgb(r,g,b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rgb {
    pub(super) r: u8,
    pub(super) g: u8,
    pub(super) b: u8,
}

impl Rgb {
    /// `#rrggbb`, as the rule table writes colours; `None` for anything else.
    pub(super) fn from_hex(text: &str) -> Option<Rgb> {
        let digits = text.strip_prefix('#').filter(|digits| digits.len() == 6)?;
        let channel = |at: usize| u8::from_str_radix(digits.get(at..at + 2)?, 16).ok();
        Some(Rgb {
            r: channel(0)?,
            g: channel(2)?,
            b: channel(4)?,
        })
    }

    /// The colour mixed two thirds of the way to white.
    fn dimmed(self) -> Rgb {
        let mix = |channel: u8| (channel as u16 + 2 * 255).div_ceil(3) as u8;
        Rgb {
            r: mix(self.r),
            g: mix(self.g),
            b: mix(self.b),
        }
    }
}

impl fmt::Display for Rgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rgb({},{},{})", self.r, self.g, self.b)
    }
}

/// Colour of frames that are not functions: the root, thread roots,
/// `[truncated]` and the depth limit's markers (`#bdbdbd`).
pub(super) const NEUTRAL: Rgb = Rgb {
    r: 0xbd,
    g: 0xbd,
    b: 0xbd,
};

/// The fill of every name of `names`, by rank: a function's frame gets its
/// category's colour (dimmed outside `--category`); thread roots, the
/// `[truncated]` marker and the depth markers are neutral, and an icicle's
/// category frames have their category's colour.
pub(super) fn palette(
    classes: &Classes<'_>,
    options: &PictureOptions,
    stacks: &[(FoldedStack<'_>, u64)],
    names: &FrameNames,
) -> Vec<Rgb> {
    let table = classes.table;
    let categories = &classes.categories;
    let mut fills = vec![NEUTRAL; names.len()];
    let mut filled = vec![false; names.len()];
    // A name two binaries share (`_start` of the Python launcher and of the
    // compiler) is one frame, and takes the colour of the first one drawn.
    let mut coloured = vec![false; categories.len()];
    for symbol in stacks.iter().flat_map(|(stack, _)| &stack.symbols) {
        if std::mem::replace(&mut coloured[symbol.index()], true) {
            continue;
        }
        let Some(name) = names.symbol(*symbol) else {
            continue;
        };
        if std::mem::replace(&mut filled[name.index()], true) {
            continue;
        }
        let category = categories[symbol.index()];
        let color = Rgb::from_hex(&table.category(category).color).unwrap_or(NEUTRAL);
        fills[name.index()] = match options.category {
            Some(wanted) if wanted != category => color.dimmed(),
            _ => color,
        };
    }
    let mut neutral_frame = |name: &str| {
        if let Some(name) = names.other(name) {
            fills[name.index()] = NEUTRAL;
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
            let frame = super::category_frame(table, CategoryId::new(index));
            if let Some(name) = names.other(&frame) {
                fills[name.index()] = Rgb::from_hex(&category.color).unwrap_or(NEUTRAL);
            }
        }
    }
    fills
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
