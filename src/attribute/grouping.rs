//! What `--by` groups samples by ([`Grouping`]) and all that a grouping
//! decides, each in one exhaustive match: its traits (its name, what its
//! rows' "top" column lists, whether thread-pool work is credited, whether
//! its rows show a top pass, whether MLIR's actions make its rows) and the
//! rows one sample counts in. A new grouping is a variant here; a new kind
//! of row key is a variant of [`RowKey`] and its names (`row_names.rs`).

use hashbrown::HashSet;

use super::action_place::{ActionRows, OutsideAction};
use super::classes::{Classes, Facts};
use super::pass::PassId;
use super::row_key::{Detail, RowKey};
use crate::profile::Profile;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TopColumn {
    /// The functions with most self samples (a category's: those charged).
    Symbols,
    /// The categories with most self samples.
    Categories,
}

/// What a grouping is, apart from how a sample is keyed.
#[derive(Clone, Copy, Debug)]
struct Traits {
    /// As `--by` takes it and JSON's `by` says.
    name: &'static str,
    top: TopColumn,
    /// Rows that show passes (passes, and a thread's or process's top
    /// pass): thread-pool work is credited to the pass that queued it.
    credits: bool,
    /// Rows that are not passes but say which pass most of their self
    /// samples were in.
    top_pass: bool,
    /// Rows that MLIR's actions make (`record --actions`).
    action_rows: Option<ActionRows>,
}

impl Grouping {
    /// Every trait of every grouping, one line each.
    fn traits(self) -> Traits {
        use TopColumn::{Categories, Symbols};
        let (name, top, credits, top_pass, action_rows) = match self {
            Grouping::Category => ("category", Symbols, false, false, None),
            Grouping::Symbol => ("symbol", Categories, false, false, None),
            Grouping::Dso => ("dso", Symbols, false, false, None),
            Grouping::Thread => ("thread", Categories, true, true, None),
            Grouping::Process => ("process", Categories, true, true, None),
            Grouping::Pass => ("pass", Categories, true, false, None),
            Grouping::Pattern => (
                "pattern",
                Categories,
                false,
                true,
                Some(ActionRows::Pattern),
            ),
            Grouping::Unit => ("unit", Categories, false, true, Some(ActionRows::Unit)),
        };
        Traits {
            name,
            top,
            credits,
            top_pass,
            action_rows,
        }
    }

    /// The grouping's name, as `--by` takes it.
    pub(crate) fn name(self) -> &'static str {
        self.traits().name
    }

    /// What its rows' "top" column lists.
    pub(crate) fn top_column(self) -> TopColumn {
        self.traits().top
    }

    /// True when its rows show passes, so that thread-pool work is
    /// credited to the pass that queued it (see [`super::credit`]).
    pub(crate) fn credits_pool_work(self) -> bool {
        self.traits().credits
    }

    /// True when its rows say which pass most of their self samples were in.
    pub(crate) fn shows_top_pass(self) -> bool {
        self.traits().top_pass
    }

    /// The rows of MLIR's actions it is, when it is.
    pub(crate) fn action_rows(self) -> Option<ActionRows> {
        self.traits().action_rows
    }

    /// The row a sample's self samples count in and what it adds to that
    /// row's top column; `inclusive` gets the rows whose inclusive samples
    /// it counts in besides. `passes` and `place` are the sample's passes
    /// and place, or those its thread-pool work is credited to.
    pub(super) fn rows_of(
        self,
        profile: &Profile,
        classes: &Classes<'_>,
        facts: &Facts,
        (passes, place): (&[PassId], RowKey),
        inclusive: &mut HashSet<RowKey>,
    ) -> (Option<RowKey>, Option<Detail>) {
        let leaf = facts.leaf;
        let self_category = Detail::Category(facts.self_category);
        match self {
            // A category's top functions are those charged with its
            // samples: with caller attribution, the callers. Frames no rule
            // names (thread roots, `main`, `_start`, and what the rules
            // miss) are on nearly every stack: `other` counts only its self
            // samples, so its inclusive share says something.
            Grouping::Category => {
                inclusive.extend(
                    (facts.symbols.iter())
                        .map(|symbol| classes.category_of(*symbol))
                        .filter(|&category| category != classes.table.other())
                        .map(RowKey::Category),
                );
                (
                    Some(RowKey::Category(facts.self_category)),
                    facts.charged.map(Detail::Symbol),
                )
            }
            Grouping::Symbol => {
                inclusive.extend(facts.symbols.iter().copied().map(RowKey::Symbol));
                (leaf.map(RowKey::Symbol), Some(self_category))
            }
            Grouping::Dso => {
                let dso = |symbol| RowKey::Dso(profile.symbols.get(symbol).dso);
                inclusive.extend(facts.symbols.iter().copied().map(dso));
                (leaf.map(dso), leaf.map(Detail::Symbol))
            }
            Grouping::Thread => (Some(RowKey::Thread(facts.thread)), Some(self_category)),
            Grouping::Process => (Some(RowKey::Process(facts.process)), Some(self_category)),
            Grouping::Pass => {
                inclusive.extend(passes.iter().copied().map(RowKey::Pass));
                (Some(place), Some(self_category))
            }
            // The rows of actions need the actions on perf's clock: see
            // `group_by_actions`. Without them, no sample is in one.
            Grouping::Pattern | Grouping::Unit => (
                Some(RowKey::OutsideAction(OutsideAction::NoActions)),
                Some(self_category),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    #[test]
    fn a_groupings_name_is_the_one_by_takes() {
        for grouping in Grouping::value_variants() {
            let value = grouping.to_possible_value().expect("no grouping is hidden");
            assert_eq!(grouping.name(), value.get_name());
        }
    }

    #[test]
    fn only_groupings_that_show_passes_credit_pool_work() {
        for grouping in Grouping::value_variants() {
            let shows_passes = *grouping == Grouping::Pass || grouping.shows_top_pass();
            assert!(
                !grouping.credits_pool_work() || shows_passes,
                "{grouping:?}"
            );
        }
    }
}
