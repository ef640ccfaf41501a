//! Const-eval's globals in the live heap of a `--heap` reading: the values
//! const-eval computed are allocated when the JIT's results become
//! attributes (IREE's `ConstEval::CompiledBinary::convertVariantToAttribute`)
//! and are never freed. At the instant read, the live bytes allocated there
//! say how much of the heap the globals hold, and a live sampled allocation
//! of a global's size says that global is alive.

use serde::{Deserialize, Serialize};

use crate::consteval::ConstEval;
use crate::profile::{HeapAlloc, Profile};

/// The frame that allocates the value of a global const-eval computed.
const CONVERT_RESULT: &str = "ConstEval::CompiledBinary::convertVariantToAttribute(";
/// An allocation holds a global's value when it is that many bytes, or a
/// little more (alignment, a header).
const SLACK_BYTES: u64 = 4096;

/// `heap_peak.consteval` of the JSON report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ConstEvalAtPeak {
    /// The estimated live bytes allocated by the JIT's results becoming
    /// attributes.
    pub live_bytes: u64,
    /// Of the live heap read.
    pub percent_of_live: f64,
    /// The globals whose value is a live sampled allocation then, largest
    /// first; and their bytes.
    pub globals_alive: Vec<String>,
    pub alive_bytes: u64,
    /// All the globals and their bytes.
    pub globals: usize,
    pub global_bytes: u64,
}

/// Const-eval's globals in the live heap of `profile` at its instant read;
/// `None` without a heap reading, or when no global's value was allocated
/// in the compiler.
pub(crate) fn consteval_at_peak(
    profile: &Profile,
    consteval: &ConstEval,
) -> Option<ConstEvalAtPeak> {
    let (allocs, live_total) = live_at_instant(profile)?;
    let mut symbols = Vec::new();
    let mut live_bytes = 0;
    let mut sizes = Vec::new();
    for alloc in allocs {
        symbols.clear();
        profile.symbols_leaf_first(alloc.key.stack, &mut symbols);
        let converted = symbols
            .iter()
            .any(|&symbol| profile.symbols.get(symbol).name.contains(CONVERT_RESULT));
        if converted {
            live_bytes += alloc.marked.weight;
            sizes.push(alloc.marked.size);
        }
    }
    if live_bytes == 0 {
        return None;
    }
    // Each sampled allocation stands for one global of its size.
    let mut globals_alive = Vec::new();
    let mut alive_bytes = 0;
    for global in &consteval.globals {
        let Some(bytes) = global.bytes else { continue };
        if let Some(at) = sizes
            .iter()
            .position(|&size| size >= bytes && size <= bytes + SLACK_BYTES)
        {
            sizes.swap_remove(at);
            globals_alive.push(global.name.clone());
            alive_bytes += bytes;
        }
    }
    Some(ConstEvalAtPeak {
        live_bytes,
        percent_of_live: super::round2(super::percent(live_bytes, live_total)),
        globals_alive,
        alive_bytes,
        globals: consteval.globals.len(),
        global_bytes: consteval.global_bytes,
    })
}

/// The compiler's allocations live at the heap view's instant, and their
/// estimated bytes; `None` without a heap reading.
fn live_at_instant(profile: &Profile) -> Option<(Vec<&HeapAlloc>, u64)> {
    let (heap, view) = (profile.heap.as_ref()?, profile.heap_view.as_ref()?);
    let at = view.at_ns;
    let live: Vec<&HeapAlloc> = heap
        .allocs
        .iter()
        .filter(|alloc| alloc.pid == view.pid)
        .filter(|alloc| alloc.time <= at && alloc.freed.is_none_or(|freed| freed > at))
        .collect();
    Some((live, view.live.bytes))
}
