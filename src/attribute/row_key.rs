//! The key of a report row: a category, symbol, binary, thread, process,
//! pass or place outside passes.

use super::pass::{OutsidePass, PassId};
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
}
