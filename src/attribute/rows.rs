//! Samples grouped into report rows: one grouping algorithm serves every
//! `--by` (category, symbol, binary, thread, process and pass), with self
//! and inclusive samples per row. Thread-pool work is credited to the
//! passes that queued it ([`super::credit`]).

use hashbrown::{HashMap, HashSet};

use super::action_place::OutsideAction;
use super::actions::ActionJoin;
use super::classes::{Attribution, Classes, Facts, facts};
use super::credit::{CreditedTo, Credits, credit_workers};
use super::row_key::RowKey;
use crate::profile::{Profile, SampleFilter};
use crate::symbolize::SymbolId;
use category_rules::CategoryId;

/// What report rows are (`report --by`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Grouping {
    #[default]
    Category,
    Symbol,
    Dso,
    Thread,
    Process,
    Pass,
    /// The rewrite pattern being applied, from MLIR's actions
    /// (`record --actions`).
    Pattern,
    /// The IR unit a pass was running on, from MLIR's actions.
    Unit,
}

/// What a row's "top" column lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Detail {
    Symbol(SymbolId),
    Category(CategoryId),
}

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
    // Credits move samples between passes: only rows that show passes
    // (passes, and the top pass of a thread or process) need them.
    let credits = match grouping {
        Grouping::Pass | Grouping::Thread | Grouping::Process => {
            credit_workers(profile, classes, filter, actions)
        }
        Grouping::Category
        | Grouping::Symbol
        | Grouping::Dso
        | Grouping::Pattern
        | Grouping::Unit => Credits::default(),
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
        grouped.samples += count;
        if credited.is_some() {
            grouped.credited += count;
        }
        if facts.in_compiler && !passes.is_empty() {
            grouped.in_pass_manager += count;
        }
        let leaf = facts.leaf;
        let self_category = facts.self_category;
        let (self_key, detail) = match self.grouping {
            // A category's top functions are those charged with its
            // samples: with caller attribution, the callers.
            Grouping::Category => (
                Some(RowKey::Category(self_category)),
                facts.charged.map(Detail::Symbol),
            ),
            Grouping::Symbol => (
                leaf.map(RowKey::Symbol),
                Some(Detail::Category(self_category)),
            ),
            Grouping::Dso => (
                leaf.map(|leaf| RowKey::Dso(profile.symbols.get(leaf).dso)),
                leaf.map(Detail::Symbol),
            ),
            Grouping::Thread => (
                Some(RowKey::Thread(facts.thread)),
                Some(Detail::Category(self_category)),
            ),
            Grouping::Process => (
                Some(RowKey::Process(facts.process)),
                Some(Detail::Category(self_category)),
            ),
            Grouping::Pass => (Some(place), Some(Detail::Category(self_category))),
            // The rows of actions need the actions on perf's clock: see
            // `group_by_actions`. Without them, no sample is in one.
            Grouping::Pattern | Grouping::Unit => (
                Some(RowKey::OutsideAction(OutsideAction::NoActions)),
                Some(Detail::Category(self_category)),
            ),
        };
        let inclusive = &mut self.inclusive;
        inclusive.clear();
        match self.grouping {
            // Frames no rule names (thread roots, `main`, `_start`, and what
            // the rules miss) are on nearly every stack: `other` counts only
            // its self samples, so its inclusive share says something.
            Grouping::Category => inclusive.extend(
                facts
                    .symbols
                    .iter()
                    .map(|symbol| classes.category_of(*symbol))
                    .filter(|&category| category != classes.table.other())
                    .map(RowKey::Category),
            ),
            Grouping::Symbol => inclusive.extend(facts.symbols.iter().copied().map(RowKey::Symbol)),
            Grouping::Dso => inclusive.extend(
                facts
                    .symbols
                    .iter()
                    .map(|symbol| RowKey::Dso(profile.symbols.get(*symbol).dso)),
            ),
            Grouping::Pass => inclusive.extend(passes.iter().copied().map(RowKey::Pass)),
            Grouping::Thread | Grouping::Process | Grouping::Pattern | Grouping::Unit => {}
        }
        inclusive.extend(self_key);
        if let Some(self_key) = self_key {
            let row = grouped.rows.entry(self_key).or_default();
            row.self_samples += count;
            if credited.is_some() {
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
            if credited.is_some() {
                row.credited_inclusive_samples += count;
            }
        }
    }
}
