//! The flamegraph of the passes alone (`flamegraph --passes-only`): each
//! sample's stack is reduced to its MLIR pass frames, outermost first, as
//! they nest (a pass inside itself, such as IREE's pipeline adaptor
//! inside another, is drawn inside itself); a sample outside every pass is
//! one frame, its place (`(parsing the input)`…). The pass manager's frames
//! (`OpToOpPassAdaptor::run`, `runPipeline`, `function_ref` callbacks) and
//! every other function are left out. A pass has the colour of the
//! category most of its self samples are in (of all its samples when it
//! has none of its own), and its tooltip adds its self samples' split by
//! category, over the whole picture.

use hashbrown::HashMap;

use super::captions::{legend_entries, subtitle, title};
use super::color::{NEUTRAL, Rgb, Share};
use super::names::{FrameNames, NamedStack};
use super::{Picture, PictureOptions};
use crate::attribute::{Attribution, Classes, PassId, RowKey, facts, percent};
use crate::profile::Profile;
use category_rules::CategoryId;

/// Categories named in a pass's tooltip.
const TOOLTIP_CATEGORIES: usize = 4;

/// A frame's samples by category: those it is the innermost frame of
/// (self), and all under it.
#[derive(Default)]
struct FrameCategories {
    own: HashMap<CategoryId, u64>,
    under: HashMap<CategoryId, u64>,
}

/// The pass-level picture of the samples `options.filter` keeps; `None`
/// when no sample is left.
pub(crate) fn passes_picture(
    profile: &Profile,
    classes: &Classes<'_>,
    options: &PictureOptions,
) -> Option<Picture> {
    let mut stacks: HashMap<Vec<RowKey>, u64> = HashMap::new();
    let mut categories: HashMap<RowKey, FrameCategories> = HashMap::new();
    let mut all_own: HashMap<CategoryId, u64> = HashMap::new();
    let mut nesting: Vec<PassId> = Vec::new();
    let mut total = 0;
    for (key, count) in profile.samples(&options.filter) {
        let sample = facts(profile, classes, Attribution::Leaf, key);
        classes.passes.nesting(&sample.symbols, &mut nesting);
        let frames: Vec<RowKey> = if nesting.is_empty() {
            vec![sample.place]
        } else {
            nesting.iter().copied().map(RowKey::Pass).collect()
        };
        let category = sample.self_category;
        for frame in &frames {
            *categories
                .entry(*frame)
                .or_default()
                .under
                .entry(category)
                .or_default() += count;
        }
        *categories
            .entry(sample.place)
            .or_default()
            .own
            .entry(category)
            .or_default() += count;
        *all_own.entry(category).or_default() += count;
        *stacks.entry(frames).or_default() += count;
        total += count;
    }
    if total == 0 {
        return None;
    }
    let name = |frame: &RowKey| {
        classes
            .place_name(*frame)
            .expect("a pass picture's frames are passes and places outside them")
            .to_owned()
    };
    let frame_names: HashMap<RowKey, String> = categories
        .keys()
        .map(|frame| (*frame, name(frame)))
        .collect();
    let names = FrameNames::of_names(frame_names.values().map(String::as_str));
    let named = |frame: &RowKey| names.other(&frame_names[frame]).expect("a frame's name");
    let mut drawn: Vec<NamedStack> = stacks
        .iter()
        .map(|(frames, count)| (frames.iter().map(named).collect(), *count))
        .collect();
    drawn.sort_unstable();
    let table = classes.table;
    let mut fills = vec![NEUTRAL; names.len()];
    let mut suffixes = vec![String::new(); names.len()];
    for (frame, split) in &categories {
        let main = main_category(if split.own.is_empty() {
            &split.under
        } else {
            &split.own
        });
        let id = named(frame).index();
        fills[id] = Rgb::from_hex(&table.category(main).color).unwrap_or(NEUTRAL);
        suffixes[id] = tooltip(classes, &split.own);
    }
    let folded = if options.keep_folded {
        let mut lines: Vec<String> = stacks
            .iter()
            .map(|(frames, count)| {
                let names: Vec<&str> = frames
                    .iter()
                    .map(|frame| frame_names[frame].as_str())
                    .collect();
                format!("{} {count}", names.join(";"))
            })
            .collect();
        lines.sort_unstable();
        lines
    } else {
        Vec::new()
    };
    let mut shares: Vec<(CategoryId, u64)> = all_own.into_iter().collect();
    shares.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
    let shares: Vec<Share> = shares
        .into_iter()
        .map(|(category, samples)| Share {
            category,
            self_percent: percent(samples, total),
            inclusive_percent: percent(samples, total),
        })
        .collect();
    Some(Picture {
        stacks: drawn,
        names: names.into_names(),
        fills,
        suffixes,
        folded,
        title: format!("{} — passes", title(profile, options, classes)),
        subtitle: subtitle(table, &shares, options.run_facts.as_deref()),
        min_width: options.min_width,
        inverted: false,
        legend: legend_entries(table, &shares),
        count_name: profile.unit,
        total,
        shares,
    })
}

/// The category with the most samples (the lower id on a tie).
fn main_category(split: &HashMap<CategoryId, u64>) -> CategoryId {
    split
        .iter()
        .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))
        .map(|(category, _)| *category)
        .expect("a frame has samples")
}

/// `; self, all its frames: 24: rewrite 67%, ir 13%, affine 8%, …`: the
/// split of a frame name's own samples, wherever it is drawn.
fn tooltip(classes: &Classes<'_>, own: &HashMap<CategoryId, u64>) -> String {
    let samples: u64 = own.values().sum();
    if samples == 0 {
        return "; no self samples".to_owned();
    }
    let mut split: Vec<(&CategoryId, &u64)> = own.iter().collect();
    split.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
    let mut parts: Vec<String> = split
        .iter()
        .take(TOOLTIP_CATEGORIES)
        .map(|(category, count)| {
            format!(
                "{} {:.0}%",
                classes.table.category(**category).id,
                percent(**count, samples)
            )
        })
        .collect();
    if split.len() > TOOLTIP_CATEGORIES {
        parts.push("…".to_owned());
    }
    format!("; self, all its frames: {samples}: {}", parts.join(", "))
}
