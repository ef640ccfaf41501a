//! The key of a report row: a category, symbol, binary, thread, process,
//! pass or place outside passes, or an action's pattern, unit or pass; and
//! the key of what a row's "top" column lists. The names that need only a
//! pass table or the actions are here, each an exhaustive match; how every
//! row reads in full is `row_names.rs`.

use super::action_place::OutsideAction;
use super::pass::{OutsidePass, PassId, Passes};
use crate::actions::{Actions, NameIndex};
use crate::binary::DsoId;
use crate::process::{ProcessId, ThreadId};
use crate::symbolize::SymbolId;
use category_rules::CategoryId;

/// The key of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum RowKey {
    Category(CategoryId),
    Symbol(SymbolId),
    Dso(DsoId),
    Thread(ThreadId),
    Process(ProcessId),
    Pass(PassId),
    /// Samples outside every pass.
    OutsidePass(OutsidePass),
    /// A pattern, IR unit or pass of MLIR's actions, by its name in
    /// [`crate::actions::Actions::names`].
    Action(NameIndex),
    /// Samples outside every action of a kind.
    OutsideAction(OutsideAction),
}

/// What a row's "top" column lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Detail {
    Symbol(SymbolId),
    Category(CategoryId),
}

impl RowKey {
    /// The name of a pass or of a place outside every pass (a sample's
    /// place); `None` for any other row.
    pub(crate) fn place_name(self, passes: &Passes) -> Option<&str> {
        match self {
            RowKey::Pass(pass) => Some(passes.name(pass)),
            RowKey::OutsidePass(outside) => Some(outside.name()),
            RowKey::Category(_)
            | RowKey::Symbol(_)
            | RowKey::Dso(_)
            | RowKey::Thread(_)
            | RowKey::Process(_)
            | RowKey::Action(_)
            | RowKey::OutsideAction(_) => None,
        }
    }

    /// The name of a row of actions: a pattern's, a unit's or a pass's, or
    /// the place outside them in parentheses; `None` for any other row.
    pub(crate) fn action_row_name(self, actions: &Actions) -> Option<String> {
        match self {
            RowKey::Action(name) => Some(actions.name(name).to_owned()),
            RowKey::OutsideAction(place) => Some(place.name(|name| actions.name(name).to_owned())),
            RowKey::Category(_)
            | RowKey::Symbol(_)
            | RowKey::Dso(_)
            | RowKey::Thread(_)
            | RowKey::Process(_)
            | RowKey::Pass(_)
            | RowKey::OutsidePass(_) => None,
        }
    }
}
