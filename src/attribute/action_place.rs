//! The kinds of rows MLIR's actions make (`--by pattern|unit`) and the
//! places of samples outside every action of a kind: the keys
//! `action_rows.rs` groups by, apart from it so that the row keys need not
//! import the grouping.

use crate::actions::NameIndex;

/// What the rows of actions are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum ActionRows {
    /// The rewrite pattern being applied.
    Pattern,
    /// The IR unit a pass was running on.
    Unit,
}

/// Where a sample is when no action of its kind holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum OutsideAction {
    /// A thread with actions, in no pattern (or no unit) at that instant.
    Outside(ActionRows),
    /// A thread that had no actions (the Python launcher, the linker,
    /// threads that never ran one) or a sample before the profiler started.
    NoActions,
    /// In no pass: the pass a row ran under, when it ran under none.
    OutsidePasses,
    /// In a driver's action (a greedy rewrite iteration, a conversion) but
    /// in no pattern: the driver's own work (the worklist, erasing ops)
    /// and what runs under it.
    Driver(NameIndex),
    /// In a driver's action, in no pattern, folding an op (its fold hook,
    /// which the greedy driver calls before it tries the patterns, with no
    /// action of its own).
    DriverFolding(NameIndex),
}

impl OutsideAction {
    /// The place's name; `action_name` names a driver's action.
    pub(crate) fn name(self, action_name: impl Fn(NameIndex) -> String) -> String {
        match self {
            OutsideAction::Outside(ActionRows::Pattern) => "(outside patterns)".to_owned(),
            OutsideAction::Outside(ActionRows::Unit) => "(outside passes' units)".to_owned(),
            OutsideAction::NoActions => "(threads without actions)".to_owned(),
            OutsideAction::OutsidePasses => "(outside passes)".to_owned(),
            OutsideAction::Driver(name) => {
                format!("({}, outside patterns)", action_name(name))
            }
            OutsideAction::DriverFolding(name) => format!("({}, folding)", action_name(name)),
        }
    }
}
