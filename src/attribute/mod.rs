//! Totals over a symbolized profile: self and inclusive samples per symbol,
//! category and MLIR pass, how well stacks unwound (overall and per
//! process), and how many frames stayed unresolved. Plain functions over
//! in-memory tables.
//!
//! `classes.rs` categorizes (every symbol once, with the rule table) and
//! says what each sample is; `pass.rs` finds MLIR passes and phases on the
//! stacks; `rows.rs` groups samples into report rows; `time_slices.rs`
//! splits them over time; `joined_passes.rs` lists nested passes that do
//! the same work as one entry; `timers.rs` joins MLIR's pass timers with the
//! passes on the stacks; `pass_spans.rs` finds the time spans of passes
//! and `rss.rs` joins them with the resident set over time. For `diff` and
//! `record --repeat`: `runs.rs` reduces each run to rows keyed across runs,
//! `diff.rs` sets two sides' rows side by side and judges them with
//! the statistics of `crate::stats`, `series.rs` adds up the runs of one
//! `record --repeat` series with their facts' medians and ranges,
//! `comparable.rs` says whether two sides compare like with like (failed
//! compiles, other inputs or flags) and `run_diff.rs` sets the runs' facts
//! side by side (times, RSS, artifact bytes, the wall time judged with the
//! CPU time). `credit/` credits thread-pool work to the pass the main
//! thread was in; `pass/` finds the passes a nested compiler (const-eval's
//! JIT) runs, as `JitGlobalsPass > Pass`. `actions.rs` puts MLIR's actions
//! (`record --actions`) on perf's clock and `action_rows.rs` groups samples
//! by the pattern or IR unit their thread was in (keys in
//! `action_place.rs`). `grouping.rs` is what `--by` groups by and all that
//! a grouping decides, `row_key.rs` a row's key in every grouping and
//! `row_names.rs` how each key reads.
//! `heap.rs`, `heap_diff.rs` and `consteval_heap.rs` are the live heap of
//! `record --heap` by row, compared, and by const-eval global. `findings/`
//! has the findings, with their thresholds in one table.

mod action_place;
mod action_rows;
pub(crate) mod actions;
mod classes;
pub(crate) mod comparable;
pub(crate) mod consteval_heap;
mod credit;
pub(crate) mod diff;
pub(crate) mod findings;
mod grouping;
pub(crate) mod heap;
pub(crate) mod heap_diff;
mod joined_passes;
mod pass;
pub(crate) mod pass_spans;
mod row_key;
mod row_names;
mod rows;
pub(crate) mod rss;
pub(crate) mod run_diff;
pub(crate) mod runs;
pub(crate) mod series;
mod time_slices;
pub(crate) mod timers;

pub(crate) use action_place::ActionRows;
pub(crate) use action_rows::{FoldingStacks, group_by_actions, group_rows, row_name, self_row};
pub(crate) use classes::{Attribution, Classes, categories_cached, facts};
pub(crate) use credit::{CreditedTo, credit_workers};
pub(crate) use grouping::{Grouping, TopColumn};
pub(crate) use joined_passes::joined_passes;
pub(crate) use pass::{PassId, Phase};
pub(crate) use row_key::{Detail, RowKey};
pub(crate) use row_names::{RowName, RowNames};
pub(crate) use rows::{Grouped, RowTotals, group};
pub(crate) use time_slices::{Timeline, Utilization, timeline};

use hashbrown::HashMap;

use crate::binary::DsoId;
use crate::process::ProcessId;
use crate::profile::{Profile, SampleFilter};
use crate::symbolize::SymbolId;

/// Samples per symbol.
#[derive(Default)]
pub(crate) struct SymbolTotals {
    /// Samples whose sampled instruction is in the symbol (the leaf function).
    pub self_samples: HashMap<SymbolId, u64>,
    /// Samples with the symbol anywhere on the stack, counted once per sample.
    pub inclusive_samples: HashMap<SymbolId, u64>,
}

/// How far stacks got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct UnwindStats {
    /// Samples whose stack reaches a thread root.
    pub complete: u64,
    /// Samples whose stack stops early (kept, and marked `[truncated]`).
    pub truncated: u64,
}

impl UnwindStats {
    pub(crate) fn total(&self) -> u64 {
        self.complete + self.truncated
    }

    /// Share of complete stacks, in percent.
    pub(crate) fn complete_percent(&self) -> f64 {
        percent(self.complete, self.total())
    }
}

/// `value` rounded to two decimals, as JSON reports print percentages
/// (and `diff` compares them).
pub(crate) fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// `part` of `whole` in percent; 0 for an empty whole.
pub(crate) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

pub(crate) fn unwind_stats(
    profile: &Profile,
    filter: &SampleFilter,
) -> (UnwindStats, HashMap<ProcessId, UnwindStats>) {
    let mut overall = UnwindStats::default();
    let mut per_process: HashMap<ProcessId, UnwindStats> = HashMap::new();
    for (key, count) in profile.samples(filter) {
        let process = profile.processes.thread(key.thread).process;
        let stats = per_process.entry(process).or_default();
        if profile.reaches_root(key) {
            overall.complete += count;
            stats.complete += count;
        } else {
            overall.truncated += count;
            stats.truncated += count;
        }
    }
    (overall, per_process)
}

/// Self and inclusive samples of every symbol, over the samples `filter` keeps.
pub(crate) fn symbol_totals(profile: &Profile, filter: &SampleFilter) -> SymbolTotals {
    let mut totals = SymbolTotals::default();
    let mut on_stack: Vec<SymbolId> = Vec::new();
    for (key, count) in profile.samples(filter) {
        if let Some(leaf) = profile.leaf_function(key.stack) {
            *totals.self_samples.entry(leaf).or_default() += count;
        }
        on_stack.clear();
        profile.symbols_leaf_first(key.stack, &mut on_stack);
        on_stack.sort_unstable();
        on_stack.dedup();
        for &symbol in &on_stack {
            *totals.inclusive_samples.entry(symbol).or_default() += count;
        }
    }
    totals
}

/// Frame occurrences over all samples, and how many of them stayed unresolved,
/// in all and per binary.
#[derive(Default)]
pub(crate) struct FrameResolution {
    pub frames: u64,
    pub unresolved: u64,
    /// Frame occurrences per binary.
    pub per_dso: HashMap<DsoId, u64>,
}

pub(crate) fn frame_resolution(profile: &Profile) -> FrameResolution {
    let mut resolution = FrameResolution::default();
    for (key, &count) in &profile.stacks.counts {
        for frame in profile.stacks.frames_leaf_first(key.stack) {
            let symbol = profile
                .symbols
                .get(profile.symbols.function_of_frame(frame));
            resolution.frames += count;
            if !symbol.resolved {
                resolution.unresolved += count;
            }
            *resolution.per_dso.entry(symbol.dso).or_default() += count;
        }
    }
    resolution
}
