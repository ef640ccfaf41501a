//! Report rows from MLIR's actions: `--by pattern` (the innermost rewrite
//! pattern a sample's thread was applying) and `--by unit` (the innermost
//! IR unit a pass was running on), each with the pass it ran under. A
//! sample is placed by its time on its own thread's actions, so worker
//! threads count where they worked. A greedy driver folds ops (their fold
//! hooks) outside any pattern's action: such samples, told by
//! `mlir::Operation::fold` on their stacks, are a row of their own.

use hashbrown::{HashMap, HashSet};

use super::action_place::{ActionRows, OutsideAction};
use super::actions::ActionJoin;
use super::classes::{Attribution, Classes, facts};
use super::grouping::Grouping;
use super::row_key::{Detail, RowKey};
use super::rows::{Grouped, group};
use crate::actions::{ActionKind, Interval, NameIndex};
use crate::profile::{Profile, SampleFilter};
use crate::stacks::StackId;

/// The frame of an op's folding, as a greedy driver calls it.
const OP_FOLD: &str = "mlir::Operation::fold(";

/// Which stacks fold an op: a frame of [`OP_FOLD`] on them.
pub(crate) struct FoldingStacks<'a> {
    profile: &'a Profile,
    /// By symbol: whether it is [`OP_FOLD`].
    folds: Vec<bool>,
    by_stack: HashMap<Option<StackId>, bool>,
    symbols: Vec<crate::symbolize::SymbolId>,
}

impl<'a> FoldingStacks<'a> {
    pub(crate) fn new(profile: &'a Profile) -> FoldingStacks<'a> {
        FoldingStacks {
            profile,
            folds: (profile.symbols.symbols.iter())
                .map(|symbol| symbol.name.starts_with(OP_FOLD))
                .collect(),
            by_stack: HashMap::new(),
            symbols: Vec::new(),
        }
    }

    /// Whether `stack` folds an op.
    fn folds(&mut self, stack: Option<StackId>) -> bool {
        if let Some(&folds) = self.by_stack.get(&stack) {
            return folds;
        }
        self.symbols.clear();
        self.profile.symbols_leaf_first(stack, &mut self.symbols);
        let folds = (self.symbols.iter()).any(|symbol| self.folds[symbol.index()]);
        self.by_stack.insert(stack, folds);
        folds
    }
}

/// Groups the samples `filter` keeps into rows of `grouping`: of patterns
/// and units by the run's `actions` when given, else as [`group`] does.
pub(crate) fn group_rows(
    profile: &Profile,
    classes: &Classes<'_>,
    grouping: Grouping,
    attribution: Attribution,
    filter: &SampleFilter,
    actions: Option<&ActionJoin>,
) -> Grouped {
    match (grouping.action_rows(), actions) {
        (Some(rows), Some(join)) => {
            group_by_actions(profile, classes, attribution, join, rows, filter)
        }
        _ => group(profile, classes, grouping, attribution, filter, actions),
    }
}

/// Groups the samples `filter` keeps by the actions their threads were in.
pub(crate) fn group_by_actions(
    profile: &Profile,
    classes: &Classes<'_>,
    attribution: Attribution,
    join: &ActionJoin,
    rows: ActionRows,
    filter: &SampleFilter,
) -> Grouped {
    let mut grouped = Grouped {
        samples: 0,
        credited: 0,
        in_pass_manager: 0,
        rows: HashMap::new(),
    };
    let mut categories = HashMap::new();
    let mut inclusive: HashSet<RowKey> = HashSet::new();
    let no_pass = RowKey::OutsideAction(OutsideAction::OutsidePasses);
    let mut folding = FoldingStacks::new(profile);
    for sample in &profile.stacks.timeline {
        let key = &sample.key;
        if !profile.keeps(filter, key) {
            continue;
        }
        let category = *categories
            .entry(*key)
            .or_insert_with(|| facts(profile, classes, attribution, key).self_category);
        let tid = profile.processes.thread(key.thread).tid;
        let chain = chain_at(join, tid, sample.time);
        let keys = chain
            .iter()
            .filter_map(|interval| row_of(join, rows, interval));
        inclusive.clear();
        inclusive.extend(keys);
        let self_key = self_row_of(join, rows, &chain, join.thread(tid).is_some(), || {
            folding.folds(key.stack)
        });
        inclusive.insert(self_key);
        let pass = chain
            .iter()
            .find(|interval| interval.kind == ActionKind::Pass)
            .map_or(no_pass, |interval| RowKey::Action(interval.name));
        grouped.samples += 1;
        let row = grouped.rows.entry(self_key).or_default();
        row.self_samples += 1;
        *row.details.entry(Detail::Category(category)).or_default() += 1;
        *row.passes.entry(pass).or_default() += 1;
        for key in &inclusive {
            grouped.rows.entry(*key).or_default().inclusive_samples += 1;
        }
    }
    grouped
}

/// The row of `rows`' kind a sample of thread `tid` at perf's `time`, with
/// `stack`, counts in as self (as [`group_by_actions`] counts it).
pub(crate) fn self_row(
    join: &ActionJoin,
    rows: ActionRows,
    folding: &mut FoldingStacks<'_>,
    tid: i32,
    time: u64,
    stack: Option<StackId>,
) -> RowKey {
    let chain = chain_at(join, tid, time);
    self_row_of(join, rows, &chain, join.thread(tid).is_some(), || {
        folding.folds(stack)
    })
}

/// The actions thread `tid` was in at perf's `time`, innermost first;
/// none when the thread had no actions or the profiler had not started.
fn chain_at(join: &ActionJoin, tid: i32, time: u64) -> Vec<&Interval> {
    match (join.thread(tid), join.action_time_us(time)) {
        (Some(thread), Some(time_us)) => thread.chain(thread.innermost_at(time_us)).collect(),
        _ => Vec::new(),
    }
}

/// The innermost action of `rows`' kind in `chain`, else the place outside
/// them (`folds` says whether the sample's stack folds an op).
fn self_row_of(
    join: &ActionJoin,
    rows: ActionRows,
    chain: &[&Interval],
    had_actions: bool,
    folds: impl FnOnce() -> bool,
) -> RowKey {
    let place = match chain
        .iter()
        .find_map(|interval| row_of(join, rows, interval))
    {
        Some(row) => return row,
        None => outside(rows, chain, had_actions),
    };
    RowKey::OutsideAction(match place {
        OutsideAction::Driver(driver) if folds() => OutsideAction::DriverFolding(driver),
        place => place,
    })
}

/// The name of a row of actions: a pattern's, a unit's or a pass's, or
/// the place outside them in parentheses; `None` for other rows.
pub(crate) fn row_name(join: &ActionJoin, key: RowKey) -> Option<String> {
    key.action_row_name(&join.actions)
}

/// Where a sample in no action of `rows`' kind is: for patterns, in the
/// innermost driver action around it, if any.
fn outside(rows: ActionRows, chain: &[&Interval], had_actions: bool) -> OutsideAction {
    let driver = chain
        .iter()
        .take_while(|interval| interval.kind != ActionKind::Pass)
        .find(|interval| interval.kind == ActionKind::Other);
    match (rows, driver, had_actions) {
        (_, _, false) => OutsideAction::NoActions,
        (ActionRows::Pattern, Some(driver), true) => OutsideAction::Driver(driver.name),
        (_, _, true) => OutsideAction::Outside(rows),
    }
}

/// An action's name (a pattern, unit or pass), when the run's actions are
/// there.
pub(crate) fn action_name(actions: Option<&ActionJoin>, name: NameIndex) -> String {
    actions.map_or_else(
        || format!("(action {name})"),
        |join| join.actions.name(name).to_owned(),
    )
}

/// The row an interval makes for `rows`, if it makes one: a pattern's name;
/// a pass's unit (or, when the log named none, its op).
fn row_of(join: &ActionJoin, rows: ActionRows, interval: &Interval) -> Option<RowKey> {
    match (rows, interval.kind) {
        (ActionRows::Pattern, ActionKind::Pattern) => Some(RowKey::Action(interval.name)),
        (ActionRows::Unit, ActionKind::Pass) => match (interval.unit, interval.op) {
            (Some(unit), _) => Some(RowKey::Action(unit)),
            (None, op) if !join.actions.units_named => op.map(RowKey::Action),
            (None, _) => None,
        },
        _ => None,
    }
}
