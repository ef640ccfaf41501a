//! The key of a report row: a category, symbol, binary, thread, process,
//! pass or place outside passes, or an action's pattern, unit or pass.

use super::action_place::OutsideAction;
use super::pass::{OutsidePass, PassId};
use crate::actions::NameIndex;
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
