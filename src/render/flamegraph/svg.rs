//! The text around the picture: the title (the profiled command, and what
//! the picture was cut to), the subtitle (the top categories) and the
//! legend of every category present, added below inferno's SVG.

use super::PictureOptions;
use super::color::Share;
use crate::attribute::Classes;
use crate::profile::Profile;
use crate::render::{TITLE_CHARS, short_command, xml_escape};
use category_rules::RuleTable;

/// Legend layout, in SVG pixels.
const LEGEND_ROW_HEIGHT: usize = 18;
const LEGEND_COLUMN_WIDTH: usize = 236;
pub(super) const IMAGE_WIDTH: usize = 1200;

/// One entry of the legend: a category, or a shade of a differential
/// flamegraph's colour scale.
pub(super) struct LegendEntry {
    id: String,
    name: String,
    color: String,
    /// The self share, or the inclusive one for a category only on stacks.
    figure: String,
}

impl LegendEntry {
    /// An entry with a swatch of `color` (any SVG colour) and its text.
    pub(super) fn new(id: &str, name: &str, color: &str, figure: &str) -> LegendEntry {
        LegendEntry {
            id: id.to_owned(),
            name: name.to_owned(),
            color: color.to_owned(),
            figure: figure.to_owned(),
        }
    }
}

/// The profiled command with its program's directory dropped, cut to fit,
/// and what the picture was cut to.
pub(super) fn title(profile: &Profile, options: &PictureOptions, classes: &Classes<'_>) -> String {
    let mut command = short_command(&profile.profiled_command(), TITLE_CHARS);
    if let Some(pass) = options.pass {
        command = format!("{command} — pass {}", classes.passes.name(pass));
    }
    match options.category {
        Some(category) => format!("{command} — {} only", classes.table.category(category).name),
        None => command,
    }
}

/// The top categories' self shares, and the run's facts when known.
pub(super) fn subtitle(table: &RuleTable, shares: &[Share], run_facts: Option<&str>) -> String {
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
    let shares = format!("self time by category: {}", top.join(" · "));
    match run_facts {
        Some(facts) => format!("{shares} — {facts}"),
        None => shares,
    }
}

/// Makes the SVG taller and draws the legend in the new space at the bottom.
/// The legend's entries: every category present, by self share.
pub(super) fn legend_entries(table: &RuleTable, shares: &[Share]) -> Vec<LegendEntry> {
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

/// `description` is the legend's tooltip.
pub(super) fn add_legend(svg: Vec<u8>, entries: &[LegendEntry], description: &str) -> Vec<u8> {
    let text = String::from_utf8(svg).expect("inferno writes UTF-8");
    let Some(height) = outer_height(&text) else {
        return text.into_bytes();
    };
    let per_row = IMAGE_WIDTH / LEGEND_COLUMN_WIDTH;
    let rows = entries.len().div_ceil(per_row);
    let legend_height = 12 + rows * LEGEND_ROW_HEIGHT;
    let new_height = height + legend_height;
    let mut legend = format!(
        r#"<g id="legend" font-size="12"><title>{}</title>"#,
        xml_escape(description)
    );
    for (index, entry) in entries.iter().enumerate() {
        let x = 10 + (index % per_row) * LEGEND_COLUMN_WIDTH;
        let y = height + 6 + (index / per_row) * LEGEND_ROW_HEIGHT;
        let text = if entry.figure.is_empty() {
            xml_escape(&entry.name)
        } else {
            format!("{} {}", xml_escape(&entry.name), xml_escape(&entry.figure))
        };
        legend.push_str(&format!(
            r#"<g class="legend-entry" data-category="{id}"><rect x="{x}" y="{y}" width="12" height="12" fill="{color}"/><text x="{tx}" y="{ty}">{text}</text></g>"#,
            id = xml_escape(&entry.id),
            color = entry.color,
            tx = x + 16,
            ty = y + 10,
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
