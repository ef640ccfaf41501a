//! The heap sampler of `record --heap` (the `crates/heap-sampler`
//! library, `LD_PRELOAD`ed into the compile): its file name, its marker
//! functions and their uprobes, the event names perf records them under,
//! its rate's environment variable, and what a marker's sample says (the
//! pointer, the size, the bytes it stands for). Shared by the recorder and
//! the profile; it does no I/O.

use perfdata::{RecordingInfo, Sample};

/// The library's file name, found next to the compile-perf binary.
pub(crate) const LIBRARY: &str = "libheap_sampler.so";
/// The environment variable that names the library elsewhere.
pub(crate) const LIBRARY_VARIABLE: &str = "COMPILE_PERF_HEAP_SAMPLER";
/// The environment variable the library reads its rate from (mean bytes
/// between samples).
pub(crate) const RATE_VARIABLE: &str = "COMPILE_PERF_HEAP_RATE";
/// The marker of a sampled allocation: `perf probe -x LIBRARY -a …`.
pub(crate) const ALLOC_PROBE: &str =
    "compile_perf_heap:alloc=compile_perf_heap_alloc ptr=%di:u64 size=%si:u64 weight=%dx:u64";
/// The marker of a free of a sampled pointer.
pub(crate) const FREE_PROBE: &str = "compile_perf_heap:free=compile_perf_heap_free ptr=%di:u64";
/// The event of [`ALLOC_PROBE`].
pub(crate) const ALLOC_EVENT: &str = "compile_perf_heap:alloc";
/// The event of [`FREE_PROBE`].
pub(crate) const FREE_EVENT: &str = "compile_perf_heap:free";

/// The indexes of the recording's two marker events, when it has both.
pub(crate) fn heap_events(info: &RecordingInfo) -> Option<(usize, usize)> {
    let find = |name: &str| info.events.iter().position(|event| event.name == name);
    Some((find(ALLOC_EVENT)?, find(FREE_EVENT)?))
}

/// A sampled allocation, from its marker's sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MarkedAlloc {
    pub ptr: u64,
    /// The bytes allocated.
    pub size: u64,
    /// The bytes it stands for: `size / (1 − e^(−size/R))`.
    pub weight: u64,
}

impl MarkedAlloc {
    /// The arguments of an alloc marker's sample; `None` when the payload is
    /// too short to hold them.
    pub(crate) fn of(sample: &Sample<'_>) -> Option<MarkedAlloc> {
        let mut args = sample.probe_args();
        Some(MarkedAlloc {
            ptr: args.next()?,
            size: args.next()?,
            weight: args.next()?,
        })
    }

    /// The variance this sample adds to an estimate of the bytes (the
    /// Horvitz–Thompson estimator's: `(1 − p) w²`, with `p = size / weight`).
    pub(crate) fn variance(&self) -> f64 {
        let weight = self.weight as f64;
        if weight <= 0.0 {
            return 0.0;
        }
        let probability = (self.size as f64 / weight).min(1.0);
        (1.0 - probability) * weight * weight
    }
}

/// The pointer of a free marker's sample.
pub(crate) fn freed_ptr(sample: &Sample<'_>) -> Option<u64> {
    sample.probe_args().next()
}
