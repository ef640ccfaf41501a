//! The words around a category flamegraph: the title (the profiled
//! command, and what the picture was cut to), the subtitle (the top
//! categories) and the entries of the legend of every category present.
//! `svg.rs` draws them.

use super::PictureOptions;
use super::color::Share;
use super::svg::LegendEntry;
use crate::attribute::Classes;
use crate::profile::Profile;
use crate::render::{TITLE_CHARS, short_command};
use category_rules::RuleTable;

/// The profiled command with its program's directory dropped, cut to fit,
/// and what the picture was cut to.
pub(super) fn title(profile: &Profile, options: &PictureOptions, classes: &Classes<'_>) -> String {
    let mut command = short_command(&profile.profiled_command(), TITLE_CHARS);
    if let Some(roots) = options.roots {
        command = format!("{command} — by {roots}");
    }
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
            LegendEntry::new(&category.id, &category.name, &category.color, &figure)
        })
        .collect()
}
