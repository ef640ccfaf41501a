//! The instant a `--heap` reading looks at (the RSS peak of the compiler,
//! or `--at SECONDS`), the profile's counts made the bytes live then, and
//! the figures every heap report states: the live heap and its standard
//! error, what is live at the end, and the compiler's RSS then and at its
//! start.

use super::heap::{HeapAlloc, Live};
use super::{Profile, SampleFilter, is_compiler};
use crate::rss::{Resident, RssProcess, RssSeries};

/// Which instant `--heap` reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum HeapInstant {
    /// The compiler's RSS peak (the default); without an RSS series, the
    /// most live heap.
    Peak,
    /// Seconds after the first sample the command keeps (`--at`), as the
    /// memory line and the timeline count them.
    At(f64),
}

/// What the instant read is, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InstantKind {
    /// The compiler's RSS peak.
    RssPeak,
    /// No RSS series: the most live heap sampled.
    HeapPeak,
    /// Given with `--at`.
    Given,
}

/// The heap figures of a `--heap` reading, for the compiler process (the
/// process with the most heap when the recording has no compiler).
#[derive(Clone, Debug)]
pub(crate) struct HeapView {
    pub kind: InstantKind,
    /// The instant, perf's time in ns.
    pub at_ns: u64,
    /// Seconds from the first sample the command keeps.
    pub seconds: f64,
    pub pid: i32,
    /// Live at the instant, by thread and stack, in all.
    pub live: Live,
    /// Live at the end of the compile: allocations never freed.
    pub leaked: Live,
    /// The most live heap sampled, and when (seconds).
    pub max_bytes: u64,
    pub max_seconds: f64,
    /// The process's RSS (all, anonymous) at the instant and at its first
    /// RSS sample, when `memory.json` has its series.
    pub rss_at: Option<(u64, u64)>,
    pub rss_start: Option<(u64, u64)>,
    /// Sampled frees whose allocation was not seen.
    pub unmatched_frees: u64,
}

/// Makes `profile`'s counts the bytes live at `instant` (all processes, so
/// that `--pid` and `--compiler` choose as they do for samples) and
/// returns the heap figures; `None` when the profile was not read with
/// `--heap` or no allocation was sampled.
pub(crate) fn apply(
    profile: &mut Profile,
    series: Option<&RssSeries>,
    instant: HeapInstant,
    scope: &SampleFilter,
) -> Option<HeapView> {
    let heap = profile.heap.as_ref()?;
    let pid = compiler_pid(profile)?;
    let in_process = |alloc: &HeapAlloc| alloc.pid == pid;
    let first_alloc = heap.allocs.iter().find(|alloc| in_process(alloc))?.time;
    let start_ns = profile.first_time_kept(scope).unwrap_or(first_alloc);
    let seconds_of = |time: u64| time.saturating_sub(start_ns) as f64 / 1e9;
    let points = heap.series(in_process);
    let (max_ns, max_bytes) = points
        .iter()
        .map(|point| (point.time, point.bytes))
        .reduce(|best, point| if point.1 > best.1 { point } else { best })
        .unwrap_or((start_ns, 0));
    let process = series.and_then(|series| series.processes.iter().find(|p| p.pid == pid));
    let (kind, at_ns) = match (instant, process.and_then(|p| p.peak(Resident::All))) {
        (HeapInstant::At(seconds), _) => (
            InstantKind::Given,
            start_ns.saturating_add((seconds.max(0.0) * 1e9) as u64),
        ),
        (HeapInstant::Peak, Some(peak)) => (InstantKind::RssPeak, peak.time_ns),
        (HeapInstant::Peak, None) => (InstantKind::HeapPeak, max_ns),
    };
    let live = heap.live_at(at_ns, in_process);
    let leaked = heap.live_at_end(in_process);
    let both = |process: &RssProcess, time: u64| {
        Some((
            process.bytes_at(Resident::All, time)?,
            process.bytes_at(Resident::Anonymous, time)?,
        ))
    };
    let view = HeapView {
        kind,
        at_ns,
        seconds: seconds_of(at_ns),
        pid,
        live: live.clone(),
        leaked,
        max_bytes,
        max_seconds: seconds_of(max_ns),
        rss_at: process.and_then(|process| both(process, at_ns)),
        rss_start: process.and_then(|process| {
            let first = process.samples.first()?;
            Some((first.rss_bytes, first.anon_bytes))
        }),
        unmatched_frees: heap.unmatched_frees,
    };
    let all = heap.live_at(at_ns, |_| true);
    profile.stacks.counts = all.by_key;
    Some(view)
}

/// The native compiler's process; without one, the process with the most
/// sampled bytes.
fn compiler_pid(profile: &Profile) -> Option<i32> {
    let heap = profile.heap.as_ref()?;
    let compiler = profile
        .processes
        .images
        .iter()
        .filter(|image| is_compiler(image))
        .map(|image| image.pid)
        .max_by_key(|&pid| {
            (heap.allocs.iter())
                .filter(|alloc| alloc.pid == pid)
                .map(|alloc| alloc.marked.weight)
                .sum::<u64>()
        });
    compiler.or_else(|| {
        let mut totals: hashbrown::HashMap<i32, u64> = hashbrown::HashMap::new();
        for alloc in &heap.allocs {
            *totals.entry(alloc.pid).or_insert(0) += alloc.marked.weight;
        }
        totals
            .into_iter()
            .max_by_key(|&(_, bytes)| bytes)
            .map(|(pid, _)| pid)
    })
}
