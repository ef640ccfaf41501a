//! Totals over a symbolized profile: self and inclusive samples per symbol,
//! category and MLIR pass, how well stacks unwound (overall and per
//! process), and how many frames stayed unresolved. Plain functions over
//! in-memory tables.

mod category;
mod filter;
mod pass;
mod time_slices;

pub use category::{
    Attribution, Classes, Detail, Facts, Grouped, Grouping, RowKey, RowTotals, classify_symbols,
    facts, group,
};
pub use filter::{SampleFilter, is_compiler};
pub use pass::{OutsidePass, PassId, Passes, Phase};
pub use time_slices::{PhaseSpan, TimeSlice, Timeline, Utilization, timeline};

use hashbrown::HashMap;

use crate::binary::DsoId;
use crate::process::ProcessId;
use crate::profile::Profile;
use crate::stacks::SampleKey;
use crate::symbolize::SymbolId;
use crate::unwind::Walk;

/// The functions a thread starts in, as real stacks end: a stack whose
/// outermost function is one of these is whole, whichever unwinder made it.
///
/// - `_start`, `__libc_start_main`: the main thread, unwound with DWARF CFI;
/// - `__libc_start_call_main`: the main thread in a `-g` (frame pointer)
///   callchain, which stops there because `_start` clears the frame pointer;
/// - `start_thread`, `clone3`, `clone` and glibc's internal aliases: other
///   threads (`start_thread` ends `-g` callchains, `clone3` DWARF ones).
///
/// glibc's functions other than `__libc_start_main` are named only when its
/// symbol table is there (Debian: `libc6-dbg`).
const THREAD_ENTRY_FUNCTIONS: &[&str] = &[
    "_start",
    "__libc_start_main",
    "__libc_start_call_main",
    "start_thread",
    "clone3",
    "clone",
    "__clone",
    "__clone3",
    "__GI___clone",
    "__GI___clone3",
];

/// True when `name` (a symbol name, maybe with an `@VERSION` suffix such as
/// `__libc_start_main@@GLIBC_2.34`) is a thread entry function. A PLT stub
/// (`clone@plt`) is not.
fn is_thread_entry(name: &str) -> bool {
    let unversioned = match name.split_once('@') {
        Some((_, "plt")) => return false,
        Some((base, _)) => base,
        None => name,
    };
    THREAD_ENTRY_FUNCTIONS.contains(&unversioned)
}

/// Samples per symbol.
#[derive(Default)]
pub struct SymbolTotals {
    /// Samples whose sampled instruction is in the symbol (the leaf function).
    pub self_samples: HashMap<SymbolId, u64>,
    /// Samples with the symbol anywhere on the stack, counted once per sample.
    pub inclusive_samples: HashMap<SymbolId, u64>,
}

/// How far stacks got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnwindStats {
    /// Samples whose stack reaches a thread root.
    pub complete: u64,
    /// Samples whose stack stops early (kept, and marked `[truncated]`).
    pub truncated: u64,
}

impl UnwindStats {
    pub fn total(&self) -> u64 {
        self.complete + self.truncated
    }

    /// Share of complete stacks, in percent.
    pub fn complete_percent(&self) -> f64 {
        percent(self.complete, self.total())
    }
}

/// `part` of `whole` in percent; 0 for an empty whole.
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// True when the sample's stack reaches a thread root: the unwinder saw the
/// stack's end, or its outermost function is a thread entry function.
pub fn reaches_root(profile: &Profile, key: &SampleKey) -> bool {
    match key.walk {
        Walk::Complete => true,
        Walk::Stopped => key.stack.is_some_and(|stack| {
            let root = profile.stacks.root_frame(stack);
            is_thread_entry(
                &profile
                    .symbols
                    .get(profile.symbols.function_of_frame(root))
                    .name,
            )
        }),
    }
}

/// Unwinding results of the samples `filter` keeps, overall and per process image.
pub fn unwind_stats(
    profile: &Profile,
    filter: &SampleFilter,
) -> (UnwindStats, HashMap<ProcessId, UnwindStats>) {
    let mut overall = UnwindStats::default();
    let mut per_process: HashMap<ProcessId, UnwindStats> = HashMap::new();
    for (key, count) in profile.samples(filter) {
        let process = profile.processes.thread(key.thread).process;
        let stats = per_process.entry(process).or_default();
        if reaches_root(profile, key) {
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
pub fn symbol_totals(profile: &Profile, filter: &SampleFilter) -> SymbolTotals {
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
pub struct FrameResolution {
    pub frames: u64,
    pub unresolved: u64,
    /// Frame occurrences per binary.
    pub per_dso: HashMap<DsoId, u64>,
}

pub fn frame_resolution(profile: &Profile) -> FrameResolution {
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

#[cfg(test)]
mod tests {
    use super::is_thread_entry;

    #[test]
    fn thread_entry_functions_are_known_with_or_without_a_symbol_version() {
        for name in [
            "_start",
            "__libc_start_main@@GLIBC_2.34",
            "__libc_start_main@GLIBC_2.2.5",
            "__libc_start_call_main",
            "start_thread",
            "clone3",
            "__GI___clone3",
        ] {
            assert!(is_thread_entry(name), "{name}");
        }
        for name in [
            "main",
            "clone@plt",
            "_start_thread",
            "libc.so.6+0x27249",
            "[unknown]",
            "mlir::PassManager::run(mlir::Operation*)",
        ] {
            assert!(!is_thread_entry(name), "{name}");
        }
    }
}
