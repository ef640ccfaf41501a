//! The rows of the HTML report's tables: a grouping's rows sorted as
//! `report` sorts them, each named as `report` names it
//! ([`RowNames::in_recording`]), with its top categories or functions.

use super::{NAME_CHARS, TOP_DETAILS};
use crate::attribute::actions::ActionJoin;
use crate::attribute::{Classes, Detail, Grouped, RowKey, RowName, RowNames, RowTotals};
use crate::profile::Profile;
use crate::short_name;

/// One table row.
pub(super) struct Row {
    pub(super) swatch: Option<String>,
    pub(super) name: String,
    pub(super) self_samples: u64,
    pub(super) inclusive_samples: u64,
    /// The top symbols or categories, as (shown, whole).
    pub(super) top: Vec<(String, String)>,
}

/// The rows of `grouped`, sorted as `report` sorts them (self, then
/// inclusive samples); `actions` names the rows of actions.
pub(super) fn sorted_rows(
    profile: &Profile,
    classes: &Classes<'_>,
    grouped: &Grouped,
    actions: Option<&ActionJoin>,
) -> Vec<Row> {
    let names = RowNames {
        profile,
        classes,
        actions,
    };
    let mut keyed: Vec<(&RowKey, &RowTotals)> = grouped.rows.iter().collect();
    keyed.sort_by(|(ka, a), (kb, b)| {
        (b.self_samples, b.inclusive_samples, ka).cmp(&(a.self_samples, a.inclusive_samples, kb))
    });
    let table = classes.table;
    keyed
        .into_iter()
        .map(|(key, totals)| {
            let RowName {
                name,
                color: swatch,
            } = names.in_recording(*key);
            let mut details: Vec<(&Detail, &u64)> = totals.details.iter().collect();
            let of_categories = details
                .iter()
                .all(|(detail, _)| matches!(detail, Detail::Category(_)));
            let mut counts = Vec::new();
            details.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
            let names: Vec<&str> = details
                .into_iter()
                .take(TOP_DETAILS)
                .map(|(detail, count)| {
                    counts.push(*count);
                    match *detail {
                        Detail::Symbol(symbol) => profile.symbols.get(symbol).name.as_str(),
                        Detail::Category(category) => table.category(category).name.as_str(),
                    }
                })
                .collect();
            // Functions are shown short, as in the text report, with the
            // full name as the tooltip; categories by the whole name that
            // `--category` takes.
            let shown = if of_categories {
                names.iter().map(|name| (*name).to_owned()).collect()
            } else {
                short_name::distinct(&names, NAME_CHARS)
            };
            let top = shown
                .into_iter()
                .zip(&names)
                .zip(&counts)
                .map(|((shown, name), count)| (format!("{shown} ({count})"), (*name).to_owned()))
                .collect();
            Row {
                swatch,
                name,
                self_samples: totals.self_samples,
                inclusive_samples: totals.inclusive_samples,
                top,
            }
        })
        .collect()
}
