//! `compile-perf flamegraph`: an inferno flamegraph whose frames are coloured
//! by category (the same colour for a category in every run), with a title
//! naming the profiled command, a subtitle with the top categories, and a
//! legend of every category present. inferno's search and zoom still work.
//! It can be cut to one category's stacks or to one MLIR pass.

use hashbrown::HashMap;
use inferno::flamegraph::color::{PaletteMap, parse_hex_color};
use inferno::flamegraph::{Direction, Options};

use super::{TITLE_CHARS, short_command, xml_escape};
use crate::attribute::{Classes, PassId, percent};
use crate::fold::{FoldedStack, TRUNCATED_FRAME, counted_lines, fold, sort_by_names};
use crate::profile::{Profile, SampleFilter};
use crate::rules::{CategoryId, RuleTable};

/// Colour of frames that are not functions: thread roots and `[truncated]`.
const NEUTRAL_COLOR: &str = "#bdbdbd";
/// Legend layout, in SVG pixels.
const LEGEND_ROW_HEIGHT: usize = 18;
const LEGEND_COLUMN_WIDTH: usize = 236;
const IMAGE_WIDTH: usize = 1200;

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
    /// Frames narrower than this, in percent of the width, are left out.
    pub min_width: f64,
    /// Keep the folded lines of every stack drawn, uncut, in [`Rendered`].
    pub keep_folded: bool,
    pub filter: SampleFilter,
}

/// The SVG, and the folded stacks drawn (`stack count` lines, in byte
/// order) when [`PictureOptions::keep_folded`] asked for them.
pub(crate) struct Rendered {
    pub folded: Vec<String>,
    pub svg: Vec<u8>,
}

/// Stacks ready to draw.
pub(crate) struct Drawable<'a> {
    /// Every stack selected, merged: shares and colours are counted on these.
    stacks: Vec<(FoldedStack<'a>, u64)>,
    /// What inferno reads: the stacks cut where inferno stops drawing them,
    /// as folded lines in byte order.
    lines: Vec<String>,
    /// The narrowest frame drawn, in percent of the width, and whether the
    /// picture is an icicle: what the cut depends on.
    min_width: f64,
    inverted: bool,
}

impl Drawable<'_> {
    /// True when these stacks, cut as they are, draw what `options` asks for.
    pub(crate) fn suits(&self, options: &PictureOptions) -> bool {
        options.category.is_none()
            && options.pass.is_none()
            && options.inverted == self.inverted
            && options.min_width == self.min_width
    }
}

/// Every stack `filter` keeps, ready for a flamegraph with frames at least
/// `min_width` percent wide. It needs no categories, so it can be made while
/// the symbols are classified.
pub(crate) fn all_stacks<'a>(
    profile: &'a Profile,
    filter: &SampleFilter,
    min_width: f64,
) -> Drawable<'a> {
    drawable(profile, fold(profile, filter), min_width, false)
}

fn drawable<'a>(
    profile: &'a Profile,
    mut stacks: Vec<(FoldedStack<'a>, u64)>,
    min_width: f64,
    inverted: bool,
) -> Drawable<'a> {
    sort_by_names(profile, &mut stacks);
    // An icicle is cut by inferno from the leaves; it reads every line.
    let lines = if inverted {
        byte_ordered_lines(profile, &stacks)
    } else {
        byte_ordered_lines(profile, &cut_narrow_frames(profile, &stacks, min_width))
    };
    Drawable {
        stacks,
        lines,
        min_width,
        inverted,
    }
}

/// The folded lines of `stacks` in byte order, which inferno needs. Stacks
/// sorted by their names are nearly in it already, so this stable sort is a
/// few merges, and inferno need not sort again.
fn byte_ordered_lines(profile: &Profile, stacks: &[(FoldedStack<'_>, u64)]) -> Vec<String> {
    let mut lines = counted_lines(profile, stacks);
    lines.sort();
    lines
}

/// The stacks as inferno draws them: inferno leaves out a frame narrower
/// than `min_width` percent of the picture, and so everything above it.
/// Each stack is cut a frame above its first such frame, and cut stacks
/// that become equal are merged. No sample is dropped and the lines sort as
/// before, so every frame drawn keeps its place and width: the picture is
/// the same, and inferno has far less to read.
/// `stacks` must be sorted by their frames' names, so that stacks sharing
/// frames from the root are adjacent.
fn cut_narrow_frames<'a>(
    profile: &'a Profile,
    stacks: &[(FoldedStack<'a>, u64)],
    min_width: f64,
) -> Vec<(FoldedStack<'a>, u64)> {
    let keep = frames_to_keep(
        stacks.len(),
        |index, names| {
            let (stack, _) = &stacks[index];
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
        },
        |index| stacks[index].1,
        min_width,
    );
    let mut merged: HashMap<FoldedStack<'a>, u64> = HashMap::new();
    for ((stack, count), kept) in stacks.iter().zip(keep) {
        let marker = usize::from(stack.truncated);
        let symbols = kept.saturating_sub(1 + marker).min(stack.symbols.len());
        let cut = FoldedStack {
            thread: stack.thread,
            truncated: stack.truncated && kept > 1,
            symbols: stack.symbols[..symbols].to_vec(),
            leaf: None,
        };
        *merged.entry(cut).or_insert(0) += count;
    }
    merged.into_iter().collect()
}

/// How many frames from the root of each of `len` stacks inferno needs to
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
    // inferno's own test (`flamegraph::from_lines`), to the same rounding.
    let narrow = |samples: u64| (samples as f64) < min_width / (100.0 / total as f64);
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
                // The frame and one above it stay: what follows a drawn
                // frame's sibling in its line (`;` or the count) decides
                // their order, and so where the drawn frames sit. Fewer
                // samples than the threshold means a handful of stacks.
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

/// The flamegraph of `profile`, ready to draw; `None` when no stack is left.
pub(crate) fn picture(
    profile: &Profile,
    classes: &Classes<'_>,
    options: &PictureOptions,
) -> Option<Picture> {
    let categories = &classes.categories;
    let mut stacks: Vec<_> = fold(profile, &options.filter)
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
    let drawable = drawable(profile, stacks, options.min_width, options.inverted);
    picture_of(profile, classes, options, drawable)
}

/// Everything inferno needs for one flamegraph, owned, so that it can be
/// drawn on a thread of its own while the run goes on.
pub(crate) struct Picture {
    lines: Vec<String>,
    palette: PaletteMap,
    title: String,
    subtitle: String,
    min_width: f64,
    inverted: bool,
    legend: Vec<LegendEntry>,
    folded: Vec<String>,
}

/// One category in the legend.
struct LegendEntry {
    id: String,
    name: String,
    color: String,
    /// The self share, or the inclusive one for a category only on stacks.
    figure: String,
}

/// The picture of `drawable`, which must hold the stacks `options` selects,
/// cut for them (see [`Drawable::suits`]); `None` when there is no stack.
pub(crate) fn picture_of(
    profile: &Profile,
    classes: &Classes<'_>,
    options: &PictureOptions,
    drawable: Drawable<'_>,
) -> Option<Picture> {
    let Drawable { stacks, lines, .. } = drawable;
    if stacks.is_empty() {
        return None;
    }
    let table = classes.table;
    let categories = &classes.categories;

    // inferno colours frames by name: every function's name gets its
    // category's colour (dimmed outside `--category`); thread roots, the
    // `[truncated]` marker and inferno's own root are neutral.
    let mut palette = PaletteMap::default();
    let neutral = parse_hex_color(NEUTRAL_COLOR).expect("a valid colour");
    // Only functions drawn get a colour; a name two binaries share (`_start`
    // of the Python launcher and of the compiler) takes the first one drawn.
    let mut coloured = vec![false; categories.len()];
    for symbol in stacks.iter().flat_map(|(stack, _)| &stack.symbols) {
        if std::mem::replace(&mut coloured[symbol.index()], true) {
            continue;
        }
        let category = categories[symbol.index()];
        let color = parse_hex_color(&table.category(category).color).unwrap_or(neutral);
        let color = match options.category {
            Some(wanted) if wanted != category => dim(color),
            _ => color,
        };
        let name = profile.symbols.get(*symbol).name.replace(';', ":");
        if palette.get(&name).is_none() {
            palette.insert(name, color);
        }
    }
    for (stack, _) in &stacks {
        palette.insert(stack.thread, neutral);
    }
    palette.insert(TRUNCATED_FRAME, neutral);
    // inferno's root frame ("all") has the empty name.
    palette.insert("", neutral);

    let self_shares = category_shares(&stacks, categories);
    let folded = if options.keep_folded {
        byte_ordered_lines(profile, &stacks)
    } else {
        Vec::new()
    };
    Some(Picture {
        lines,
        palette,
        title: title(profile, options, classes),
        subtitle: subtitle(table, &self_shares),
        min_width: options.min_width,
        inverted: options.inverted,
        legend: legend_entries(table, &self_shares),
        folded,
    })
}

impl Picture {
    /// Draws the picture with inferno and adds the legend.
    pub(crate) fn draw(mut self) -> std::io::Result<Rendered> {
        let mut inferno_options = Options::default();
        inferno_options.title = std::mem::take(&mut self.title);
        inferno_options.subtitle = Some(std::mem::take(&mut self.subtitle));
        inferno_options.count_name = "samples".to_owned();
        inferno_options.image_width = Some(IMAGE_WIDTH);
        inferno_options.min_width = self.min_width;
        inferno_options.deterministic = true;
        inferno_options.palette_map = Some(&mut self.palette);
        if self.inverted {
            inferno_options.direction = Direction::Inverted;
            inferno_options.reverse_stack_order = true;
        } else {
            inferno_options.no_sort = true;
        }
        let mut svg = Vec::new();
        inferno::flamegraph::from_lines(
            &mut inferno_options,
            self.lines.iter().map(String::as_str),
            &mut svg,
        )?;
        Ok(Rendered {
            folded: self.folded,
            svg: add_legend(svg, &self.legend),
        })
    }
}

/// A colour mixed two thirds of the way to white.
fn dim(color: inferno::flamegraph::color::Color) -> inferno::flamegraph::color::Color {
    let mix = |channel: u8| (channel as u16 + 2 * 255).div_ceil(3) as u8;
    inferno::flamegraph::color::Color {
        r: mix(color.r),
        g: mix(color.g),
        b: mix(color.b),
    }
}

/// The stacks that run `pass`, each cut so that the outermost frame of the
/// pass is its root; stacks that become equal are merged.
fn cut_at_pass<'a>(
    stacks: Vec<(FoldedStack<'a>, u64)>,
    classes: &Classes<'_>,
    pass: PassId,
) -> Vec<(FoldedStack<'a>, u64)> {
    let mut merged: HashMap<FoldedStack<'a>, u64> = HashMap::new();
    for (mut stack, count) in stacks {
        let Some(at) = stack
            .symbols
            .iter()
            .position(|&symbol| classes.passes.pass_of(symbol) == Some(pass))
        else {
            continue;
        };
        stack.symbols.drain(..at);
        stack.truncated = false;
        *merged.entry(stack).or_insert(0) += count;
    }
    merged.into_iter().collect()
}

/// A category present in the picture: its self share (by the drawn stacks'
/// leaf functions) and its inclusive share (on a drawn stack at all).
#[derive(Clone, Copy, Debug)]
struct Share {
    category: CategoryId,
    self_percent: f64,
    inclusive_percent: f64,
}

/// Every category with a frame in the drawn stacks, by self share, then
/// inclusive share.
fn category_shares(stacks: &[(FoldedStack<'_>, u64)], categories: &[CategoryId]) -> Vec<Share> {
    let total: u64 = stacks.iter().map(|(_, count)| count).sum();
    let mut counts: HashMap<CategoryId, (u64, u64)> = HashMap::new();
    // Categories are few: a stack's set of them is a list of flags.
    let mut on_stack: Vec<bool> = Vec::new();
    for (stack, count) in stacks {
        if let Some(leaf) = stack.leaf {
            counts.entry(categories[leaf.index()]).or_default().0 += count;
        }
        on_stack.clear();
        for symbol in &stack.symbols {
            let category = categories[symbol.index()].index();
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

/// The profiled command with its program's directory dropped, cut to fit,
/// and what the picture was cut to.
fn title(profile: &Profile, options: &PictureOptions, classes: &Classes<'_>) -> String {
    let mut command = short_command(&profile.profiled_command(), TITLE_CHARS);
    if let Some(pass) = options.pass {
        command = format!("{command} — pass {}", classes.passes.name(pass));
    }
    match options.category {
        Some(category) => format!("{command} — {} only", classes.table.category(category).name),
        None => command,
    }
}

fn subtitle(table: &RuleTable, shares: &[Share]) -> String {
    let top: Vec<String> = shares
        .iter()
        .filter(|share| share.self_percent > 0.0)
        .take(4)
        .map(|share| {
            format!(
                "{} {:.1}%",
                table.category(share.category).name,
                share.self_percent
            )
        })
        .collect();
    format!("self time by category: {}", top.join(" · "))
}

/// Makes the SVG taller and draws the legend in the new space at the bottom.
/// The legend's entries: every category present, by self share.
fn legend_entries(table: &RuleTable, shares: &[Share]) -> Vec<LegendEntry> {
    shares
        .iter()
        .map(|share| {
            let category = table.category(share.category);
            // Self share; a category only on stacks (no leaf) shows its inclusive one.
            let figure = if share.self_percent > 0.0 {
                format!("{:.1}%", share.self_percent)
            } else if share.inclusive_percent >= 1.0 {
                format!("({:.0}% incl)", share.inclusive_percent)
            } else {
                "(<1% incl)".to_owned()
            };
            LegendEntry {
                id: category.id.clone(),
                name: category.name.clone(),
                color: category.color.clone(),
                figure,
            }
        })
        .collect()
}

fn add_legend(svg: Vec<u8>, entries: &[LegendEntry]) -> Vec<u8> {
    let text = String::from_utf8(svg).expect("inferno writes UTF-8");
    let Some(height) = outer_height(&text) else {
        return text.into_bytes();
    };
    let per_row = IMAGE_WIDTH / LEGEND_COLUMN_WIDTH;
    let rows = entries.len().div_ceil(per_row);
    let legend_height = 12 + rows * LEGEND_ROW_HEIGHT;
    let new_height = height + legend_height;
    let mut legend = r#"<g id="legend" font-size="12"><title>category legend</title>"#.to_owned();
    for (index, entry) in entries.iter().enumerate() {
        let x = 10 + (index % per_row) * LEGEND_COLUMN_WIDTH;
        let y = height + 6 + (index / per_row) * LEGEND_ROW_HEIGHT;
        legend.push_str(&format!(
            r#"<g class="legend-entry" data-category="{id}"><rect x="{x}" y="{y}" width="12" height="12" fill="{color}"/><text x="{tx}" y="{ty}">{name} {figure}</text></g>"#,
            id = xml_escape(&entry.id),
            color = entry.color,
            tx = x + 16,
            ty = y + 10,
            name = xml_escape(&entry.name),
            figure = xml_escape(&entry.figure),
        ));
    }
    legend.push_str("</g>");
    let resized = text.replacen(
        &format!(r#"height="{height}" onload"#),
        &format!(r#"height="{new_height}" onload"#),
        1,
    );
    let resized = resized.replacen(
        &format!(r#"viewBox="0 0 {IMAGE_WIDTH} {height}""#),
        &format!(r#"viewBox="0 0 {IMAGE_WIDTH} {new_height}""#),
        1,
    );
    let end = resized.rfind("</svg>").expect("an SVG ends with </svg>");
    let mut out = String::with_capacity(resized.len() + legend.len());
    out.push_str(&resized[..end]);
    out.push_str(&legend);
    out.push_str(&resized[end..]);
    out.into_bytes()
}

/// The `height` of the outermost `<svg>` element.
fn outer_height(svg: &str) -> Option<usize> {
    let start = svg.find("<svg ")?;
    let tag_end = start + svg[start..].find('>')?;
    let tag = &svg[start..tag_end];
    let at = tag.find(" height=\"")? + " height=\"".len();
    let digits: String = tag[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// inferno's picture of folded `lines`.
    fn inferno_svg(lines: &[String], min_width: f64) -> Vec<u8> {
        let mut options = Options::default();
        options.min_width = min_width;
        options.deterministic = true;
        let mut svg = Vec::new();
        inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut svg)
            .unwrap();
        svg
    }

    /// Stacks whose sibling names are prefixes of one another (`f`, `f(int)`,
    /// `f2`), where the character after a name decides the order inferno
    /// draws them in, with a deterministic spread of sample counts.
    fn stacks() -> Vec<(Vec<&'static str>, u64)> {
        let names = ["f", "f(int)", "f2", "g", "g::h", "h"];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let mut stacks: Vec<(Vec<&str>, u64)> = (0..400)
            .map(|_| {
                let depth = 1 + next(7) as usize;
                let frames = std::iter::once(if next(4) == 0 { "worker" } else { "main" })
                    .chain((0..depth).map(|_| names[next(names.len() as u64) as usize]))
                    .collect();
                (frames, 1 + next(30) * next(2) * next(2))
            })
            .collect();
        stacks.sort();
        stacks.dedup_by(|(later, later_count), (first, first_count)| {
            let same = later == first;
            if same {
                *first_count += *later_count;
            }
            same
        });
        stacks
    }

    fn lines(stacks: &[(Vec<&str>, u64)]) -> Vec<String> {
        let mut merged: HashMap<String, u64> = HashMap::new();
        for (frames, count) in stacks {
            *merged.entry(frames.join(";")).or_insert(0) += count;
        }
        let mut lines: Vec<String> = merged
            .into_iter()
            .map(|(stack, count)| format!("{stack} {count}"))
            .collect();
        lines.sort();
        lines
    }

    #[test]
    fn cutting_narrow_frames_leaves_the_picture_byte_for_byte_the_same() {
        let stacks = stacks();
        for min_width in [0.1, 0.5, 2.0, 5.0] {
            let keep = frames_to_keep(
                stacks.len(),
                |index, names| names.extend(&stacks[index].0),
                |index| stacks[index].1,
                min_width,
            );
            let cut: Vec<(Vec<&str>, u64)> = stacks
                .iter()
                .zip(&keep)
                .map(|((frames, count), &kept)| (frames[..kept.min(frames.len())].to_vec(), *count))
                .collect();
            let (full, short) = (lines(&stacks), lines(&cut));
            assert!(
                short.iter().map(String::len).sum::<usize>() < full.iter().map(String::len).sum(),
                "at {min_width}% something is cut"
            );
            assert!(
                inferno_svg(&short, min_width) == inferno_svg(&full, min_width),
                "at {min_width}% the picture is the same"
            );
        }
    }
}
