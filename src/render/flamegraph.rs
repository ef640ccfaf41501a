//! `compile-perf flamegraph`: an inferno flamegraph whose frames are coloured
//! by category (the same colour for a category in every run), with a title
//! naming the profiled command, a subtitle with the top categories, and a
//! legend of every category present. inferno's search and zoom still work.
//! It can be cut to one category's stacks or to one MLIR pass.

use hashbrown::{HashMap, HashSet};
use inferno::flamegraph::color::{PaletteMap, parse_hex_color};
use inferno::flamegraph::{Direction, Options};

use super::{TITLE_CHARS, short_command, xml_escape};
use crate::attribute::{Classes, PassId, SampleFilter, percent};
use crate::categorize::{CategoryId, RuleTable};
use crate::profile::Profile;
use crate::report::breakdown::profiled_command;
use crate::report::collapse::{FoldedStack, TRUNCATED_FRAME, counted_lines, fold, sort_by_names};

/// Colour of frames that are not functions: thread roots and `[truncated]`.
const NEUTRAL_COLOR: &str = "#bdbdbd";
/// Legend layout, in SVG pixels.
const LEGEND_ROW_HEIGHT: usize = 18;
const LEGEND_COLUMN_WIDTH: usize = 236;
const IMAGE_WIDTH: usize = 1200;

/// What to draw.
#[derive(Clone, Debug)]
pub struct FlamegraphOptions {
    /// Keep only stacks with a frame of this category; its frames keep their
    /// colour and the others are dimmed.
    pub category: Option<CategoryId>,
    /// Keep only stacks through this pass, cut so that its frame is the root.
    pub pass: Option<PassId>,
    /// An icicle of leaf callers: leaves on top, their callers below.
    pub inverted: bool,
    /// Frames narrower than this many pixels are left out.
    pub min_width: f64,
    pub filter: SampleFilter,
}

/// The folded stacks drawn (`stack count` lines), and the SVG.
pub struct Rendered {
    pub folded: Vec<String>,
    pub svg: Vec<u8>,
}

/// Stacks ready to draw: merged, with their folded lines in byte order.
pub struct Drawable<'a> {
    stacks: Vec<(FoldedStack<'a>, u64)>,
    lines: Vec<String>,
}

/// Every stack `filter` keeps, ready to draw. It needs no categories, so it
/// can be made while the symbols are classified.
pub fn all_stacks<'a>(profile: &'a Profile, filter: &SampleFilter) -> Drawable<'a> {
    drawable(profile, fold(profile, filter))
}

fn drawable<'a>(profile: &'a Profile, mut stacks: Vec<(FoldedStack<'a>, u64)>) -> Drawable<'a> {
    sort_by_names(profile, &mut stacks);
    let mut lines = counted_lines(profile, &stacks);
    // Byte order, which inferno needs: stacks sorted by their names are
    // nearly in it already, so this stable sort is a few merges, and inferno
    // need not sort again.
    lines.sort();
    Drawable { stacks, lines }
}

/// Renders the flamegraph of `profile`; `None` when no stack is left to draw.
pub fn render(
    profile: &Profile,
    classes: &Classes<'_>,
    options: &FlamegraphOptions,
) -> std::io::Result<Option<Rendered>> {
    let categories = &classes.categories;
    let mut stacks: Vec<_> = fold(profile, &options.filter)
        .into_iter()
        .filter(|(stack, _)| match options.category {
            None => true,
            Some(wanted) => stack
                .symbols
                .iter()
                .any(|symbol| categories[symbol.0 as usize] == wanted),
        })
        .collect();
    if let Some(pass) = options.pass {
        stacks = cut_at_pass(stacks, classes, pass);
    }
    render_drawable(profile, classes, options, drawable(profile, stacks))
}

/// Renders `drawable`, which must hold the stacks `options` selects (as
/// [`all_stacks`] does when it names no category and no pass); `None` when
/// there is no stack to draw.
pub fn render_drawable(
    profile: &Profile,
    classes: &Classes<'_>,
    options: &FlamegraphOptions,
    drawable: Drawable<'_>,
) -> std::io::Result<Option<Rendered>> {
    let Drawable { stacks, lines } = drawable;
    if stacks.is_empty() {
        return Ok(None);
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
    let mut coloured = HashSet::new();
    for symbol in stacks.iter().flat_map(|(stack, _)| &stack.symbols) {
        if !coloured.insert(*symbol) {
            continue;
        }
        let category = categories[symbol.0 as usize];
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
    let mut inferno_options = Options::default();
    inferno_options.title = title(profile, options, classes);
    inferno_options.subtitle = Some(subtitle(table, &self_shares));
    inferno_options.count_name = "samples".to_owned();
    inferno_options.image_width = Some(IMAGE_WIDTH);
    inferno_options.min_width = options.min_width;
    inferno_options.deterministic = true;
    inferno_options.palette_map = Some(&mut palette);
    if options.inverted {
        inferno_options.direction = Direction::Inverted;
        inferno_options.reverse_stack_order = true;
    } else {
        inferno_options.no_sort = true;
    }
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(
        &mut inferno_options,
        lines.iter().map(String::as_str),
        &mut svg,
    )?;
    let svg = add_legend(svg, table, &self_shares);
    Ok(Some(Rendered { folded: lines, svg }))
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
    let mut on_stack: HashSet<CategoryId> = HashSet::new();
    for (stack, count) in stacks {
        if let Some(leaf) = stack.leaf {
            counts.entry(categories[leaf.0 as usize]).or_default().0 += count;
        }
        on_stack.clear();
        on_stack.extend(
            stack
                .symbols
                .iter()
                .map(|symbol| categories[symbol.0 as usize]),
        );
        for category in &on_stack {
            counts.entry(*category).or_default().1 += count;
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
fn title(profile: &Profile, options: &FlamegraphOptions, classes: &Classes<'_>) -> String {
    let mut command = short_command(&profiled_command(profile), TITLE_CHARS);
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
fn add_legend(svg: Vec<u8>, table: &RuleTable, shares: &[Share]) -> Vec<u8> {
    let text = String::from_utf8(svg).expect("inferno writes UTF-8");
    let Some(height) = outer_height(&text) else {
        return text.into_bytes();
    };
    let per_row = IMAGE_WIDTH / LEGEND_COLUMN_WIDTH;
    let rows = shares.len().div_ceil(per_row);
    let legend_height = 12 + rows * LEGEND_ROW_HEIGHT;
    let new_height = height + legend_height;
    let mut legend = r#"<g id="legend" font-size="12"><title>category legend</title>"#.to_owned();
    for (index, share) in shares.iter().enumerate() {
        let category = table.category(share.category);
        // Self share; a category only on stacks (no leaf) shows its inclusive one.
        let figure = if share.self_percent > 0.0 {
            format!("{:.1}%", share.self_percent)
        } else if share.inclusive_percent >= 1.0 {
            format!("({:.0}% incl)", share.inclusive_percent)
        } else {
            "(<1% incl)".to_owned()
        };
        let x = 10 + (index % per_row) * LEGEND_COLUMN_WIDTH;
        let y = height + 6 + (index / per_row) * LEGEND_ROW_HEIGHT;
        legend.push_str(&format!(
            r#"<g class="legend-entry" data-category="{id}"><rect x="{x}" y="{y}" width="12" height="12" fill="{color}"/><text x="{tx}" y="{ty}">{name} {figure}</text></g>"#,
            id = xml_escape(&category.id),
            color = category.color,
            tx = x + 16,
            ty = y + 10,
            name = xml_escape(&category.name),
            figure = xml_escape(&figure),
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
