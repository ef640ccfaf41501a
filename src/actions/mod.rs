//! MLIR's actions of a compile (`record --actions`): the intervals of every
//! pass run, pattern applied and greedy rewrite iteration, on each thread,
//! as iree-compile's action profiler timed them, with the IR unit each pass
//! ran on when its action log named it. The one type the recorder writes
//! (`actions.bin`, compact, from the profiler's Chrome-trace JSON and the
//! log: `trace.rs` and `log.rs`) and the reports read (`store.rs`).
//!
//! The profiler's times are microseconds of `steady_clock` since it
//! started: CLOCK_MONOTONIC, perf's clock under `-k CLOCK_MONOTONIC`, less
//! an offset that `attribute::actions` finds by aligning the main thread's
//! pass intervals with the passes on its stacks.

mod log;
mod store;
mod trace;

use serde::{Deserialize, Serialize};

pub(crate) use log::name_units;
pub(crate) use store::{ACTIONS_FILE, read, write};
pub(crate) use trace::parse_trace;

/// iree-compile's flag that writes the profile (Chrome trace events).
pub(crate) const PROFILE_FLAG: &str = "--profile-actions-to";
/// iree-compile's flag that writes the action log (which IR unit each
/// action ran on, in the profile's order).
pub(crate) const LOG_FLAG: &str = "--log-actions-to";

/// How much `record --actions` asks of the compiler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ActionsMode {
    /// The profile alone: times of passes and patterns; a unit is its op.
    #[default]
    Times,
    /// The profile and the log, on one thread: also the IR unit of each
    /// pass run (for `report --by unit`).
    Units,
}

/// What an action is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum ActionKind {
    /// `pass-execution`: a pass run on one op.
    Pass,
    /// `apply-pattern`: one rewrite pattern applied.
    Pattern,
    /// Anything else (`GreedyPatternRewriteIteration`, `apply-conversion`,
    /// `walk-and-apply-patterns`), named by its tag.
    Other,
}

/// An index into [`Actions::names`].
pub(crate) type NameIndex = u32;

/// One action's interval on its thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    /// Microseconds since the profiler started.
    pub begin_us: u64,
    pub end_us: u64,
    pub kind: ActionKind,
    /// The pass, the pattern or the action's tag.
    pub name: NameIndex,
    /// A pass's op name (`hal.executable`).
    pub op: Option<NameIndex>,
    /// A pass's IR unit, named by the log (`hal.executable @main_dispatch_0`).
    pub unit: Option<NameIndex>,
    /// The interval this one runs inside, on the same thread (an index into
    /// the thread's intervals).
    pub parent: Option<u32>,
}

/// The actions of one thread, by begin time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ThreadActions {
    /// The thread's id, as perf records it.
    pub tid: i32,
    pub intervals: Vec<Interval>,
}

/// Every action of a compile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Actions {
    pub names: Vec<String>,
    pub threads: Vec<ThreadActions>,
    /// The thread of the first action: the compiler's main thread.
    pub main_tid: i32,
    /// Whether the log named the passes' IR units.
    pub units_named: bool,
}

impl Actions {
    pub(crate) fn name(&self, index: NameIndex) -> &str {
        &self.names[index as usize]
    }

    pub(crate) fn thread(&self, tid: i32) -> Option<&ThreadActions> {
        self.threads.iter().find(|thread| thread.tid == tid)
    }

    /// The names of the passes that ran, each once, in name order.
    pub(crate) fn pass_names(&self) -> Vec<NameIndex> {
        let mut names: Vec<NameIndex> = (self.threads.iter())
            .flat_map(|thread| &thread.intervals)
            .filter(|interval| interval.kind == ActionKind::Pass)
            .map(|interval| interval.name)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// How many intervals there are.
    pub(crate) fn intervals(&self) -> usize {
        self.threads
            .iter()
            .map(|thread| thread.intervals.len())
            .sum()
    }
}

impl ThreadActions {
    /// The innermost interval that holds `time_us`, if any.
    pub(crate) fn innermost_at(&self, time_us: u64) -> Option<u32> {
        let after = self
            .intervals
            .partition_point(|interval| interval.begin_us <= time_us);
        let mut at = after.checked_sub(1).map(|at| at as u32);
        while let Some(index) = at {
            let interval = &self.intervals[index as usize];
            if interval.end_us >= time_us {
                return Some(index);
            }
            at = interval.parent;
        }
        None
    }

    /// The outermost interval that ended by `time_us` among those around the
    /// interval that began last by then: the action the thread has just
    /// finished at the nesting it is at. `None` when that interval still
    /// runs.
    pub(crate) fn just_ended(&self, time_us: u64) -> Option<&Interval> {
        let begun = (self.intervals).partition_point(|interval| interval.begin_us <= time_us);
        self.chain(begun.checked_sub(1).map(|at| at as u32))
            .take_while(|interval| interval.end_us < time_us)
            .last()
    }

    /// `index` and the intervals around it, innermost first.
    pub(crate) fn chain(&self, index: Option<u32>) -> impl Iterator<Item = &Interval> {
        std::iter::successors(index, |&at| self.intervals[at as usize].parent)
            .map(|at| &self.intervals[at as usize])
    }
}

/// What `record --actions` says of the actions in `run.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ActionsFacts {
    pub mode: ActionsMode,
    /// Begin events the profile held.
    pub actions: u64,
    pub threads: u64,
    /// Bytes of the profile's JSON and the log the compiler wrote.
    pub raw_bytes: u64,
    /// Bytes of `actions.bin`.
    pub stored_bytes: u64,
    /// Pass runs the log named the unit of, and those it did not.
    pub units_named: u64,
    pub units_unnamed: u64,
    /// Events the profile could not pair (an end without a begin, or a
    /// begin never ended, as when the compile was stopped).
    pub unpaired: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(begin_us: u64, end_us: u64, parent: Option<u32>) -> Interval {
        Interval {
            begin_us,
            end_us,
            kind: ActionKind::Pass,
            name: 0,
            op: None,
            unit: None,
            parent,
        }
    }

    #[test]
    fn the_innermost_interval_is_found_through_ended_siblings() {
        let thread = ThreadActions {
            tid: 1,
            intervals: vec![
                interval(0, 100, None),
                interval(10, 20, Some(0)),
                interval(30, 40, Some(0)),
                interval(200, 300, None),
            ],
        };
        assert_eq!(thread.innermost_at(15), Some(1));
        assert_eq!(thread.innermost_at(50), Some(0));
        assert_eq!(thread.innermost_at(150), None);
        assert_eq!(thread.innermost_at(250), Some(3));
        assert_eq!(thread.chain(Some(2)).count(), 2);
        // Just ended: the outermost interval ended among those around the
        // last one begun.
        assert_eq!(thread.just_ended(25), Some(&thread.intervals[1]));
        assert_eq!(thread.just_ended(35), None);
        assert_eq!(thread.just_ended(50), Some(&thread.intervals[2]));
        assert_eq!(thread.just_ended(150), Some(&thread.intervals[0]));
        assert_eq!(thread.just_ended(250), None);
    }
}
