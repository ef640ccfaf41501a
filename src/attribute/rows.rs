//! Samples grouped into report rows: one grouping algorithm serves every
//! `--by` (the rows a sample counts in are the grouping's own, in
//! `grouping.rs`), with self and inclusive samples per row. Thread-pool work is credited to the
//! passes that queued it ([`super::credit`]).

use hashbrown::{HashMap, HashSet};

use super::actions::ActionJoin;
use super::classes::{Attribution, Classes, Facts, facts};
use super::credit::{CreditedTo, Credits, credit_workers};
use super::grouping::Grouping;
use super::row_key::{Detail, RowKey};
use crate::profile::{Profile, SampleFilter};

/// One row's totals.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowTotals {
    pub self_samples: u64,
    pub inclusive_samples: u64,
    /// Self samples of the row split by detail (symbols or categories).
    pub details: HashMap<Detail, u64>,
    /// Self samples of the row split by innermost pass (or place outside
    /// passes), thread-pool work credited with rows of passes, threads and
    /// processes, which show it.
    pub passes: HashMap<RowKey, u64>,
    /// Of the self samples, those of thread-pool work credited to the pass
    /// the main thread was in (see [`super::credit`]).
    pub credited_samples: u64,
    /// Of the inclusive samples, those credited: the rest are the samples
    /// with the row on their own stack.
    pub credited_inclusive_samples: u64,
}

/// Samples grouped into rows.
pub(crate) struct Grouped {
    /// Samples the filter kept.
    pub samples: u64,
    /// Of those, samples of thread-pool work credited to a pass (with rows
    /// of passes, threads and processes; 0 with the others).
    pub credited: u64,
    /// Of those, samples of the compiler process with a pass on their stack:
    /// the span that mlir-timing's `root` covers.
    pub in_pass_manager: u64,
    pub rows: HashMap<RowKey, RowTotals>,
}

/// Groups the samples `filter` keeps into rows of `grouping`; with the
/// run's `actions`, the pass manager's verification is credited to the pass
/// verified.
pub(crate) fn group(
    profile: &Profile,
    classes: &Classes<'_>,
    grouping: Grouping,
    attribution: Attribution,
    filter: &SampleFilter,
    actions: Option<&ActionJoin>,
) -> Grouped {
    let mut grouping_run = RowMaker {
        profile,
        classes,
        grouping,
        grouped: Grouped {
            samples: 0,
            credited: 0,
            in_pass_manager: 0,
            rows: HashMap::new(),
        },
        inclusive: HashSet::new(),
    };
    // Credits move samples between passes: only rows that show passes need them.
    let credits = if grouping.credits_pool_work() {
        credit_workers(profile, classes, filter, actions)
    } else {
        Credits::default()
    };
    for (key, count) in profile.samples(filter) {
        let facts = facts(profile, classes, attribution, key);
        let mut left = count;
        for (to, credited) in credits.of(key) {
            grouping_run.add(&facts, Some(to), *credited);
            left -= credited;
        }
        grouping_run.add(&facts, None, left);
    }
    grouping_run.grouped
}

/// The rows being made.
struct RowMaker<'a> {
    profile: &'a Profile,
    classes: &'a Classes<'a>,
    grouping: Grouping,
    grouped: Grouped,
    /// The inclusive rows of one sample, each once.
    inclusive: HashSet<RowKey>,
}

impl RowMaker<'_> {
    /// Adds `count` samples of `facts`; with `credited`, as samples of
    /// what they are credited to instead of their stack's passes.
    fn add(&mut self, facts: &Facts, credited: Option<&CreditedTo>, count: u64) {
        if count == 0 {
            return;
        }
        let (profile, classes, grouped) = (self.profile, self.classes, &mut self.grouped);
        let (passes, place) = match credited {
            None => (facts.passes.as_slice(), facts.place),
            Some(to) => to.passes_and_place(),
        };
        // What crediting changed: the place, and rows of passes not on the
        // sample's own stack (a worker's own pass keeps its samples as its
        // own, under the main thread's passes credited with them).
        let place_credited = credited.is_some() && place != facts.place;
        let row_credited = |row_key: &RowKey| match row_key {
            RowKey::Pass(pass) => credited.is_some() && !facts.passes.contains(pass),
            _ => place_credited,
        };
        grouped.samples += count;
        if place_credited {
            grouped.credited += count;
        }
        if facts.in_compiler && !passes.is_empty() {
            grouped.in_pass_manager += count;
        }
        let inclusive = &mut self.inclusive;
        inclusive.clear();
        let (self_key, detail) =
            (self.grouping).rows_of(profile, classes, facts, (passes, place), inclusive);
        inclusive.extend(self_key);
        if let Some(self_key) = self_key {
            let row = grouped.rows.entry(self_key).or_default();
            row.self_samples += count;
            if row_credited(&self_key) {
                row.credited_samples += count;
            }
            if let Some(detail) = detail {
                *row.details.entry(detail).or_default() += count;
            }
            *row.passes.entry(place).or_default() += count;
        }
        for row_key in inclusive.iter() {
            let row = grouped.rows.entry(*row_key).or_default();
            row.inclusive_samples += count;
            if row_credited(row_key) {
                row.credited_inclusive_samples += count;
            }
        }
    }
}
