//! The heap section of `--heap` readings (`record --heap`): the live heap
//! at the instant read, with its standard error; the pass that holds the
//! most then, and what is still live at the end (never freed), by pass;
//! the live heap against the compiler's RSS growth over its start, as a
//! ratio. Text lines and the JSON `heap_peak` object.

use std::io::{self, Write};

use hashbrown::HashMap;
use serde::Serialize;

use crate::attribute::{Attribution, Classes, OutsidePass, RowKey, facts};
use crate::profile::{HeapAlloc, InstantKind, Profile};
use crate::stacks::SampleKey;

/// How many passes a line names.
const PASSES_NAMED: usize = 3;

/// One place (a pass, or a place outside passes) and the live bytes it holds.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PlaceBytes {
    pub pass: String,
    pub live_bytes: u64,
}

/// What is still live at the end of the compile.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct LeakJson {
    pub live_bytes: u64,
    pub standard_error_bytes: u64,
    pub sampled_allocations: u64,
    /// The place that holds the most of it.
    pub pass: Option<String>,
    pub by_pass: Vec<PlaceBytes>,
}

/// `heap_peak` of the JSON report.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct HeapPeakJson {
    /// Seconds after the compiler's first sampled allocation.
    pub seconds: f64,
    /// `rss_peak`, `heap_peak` (no RSS series) or `given` (`--at`).
    pub instant: &'static str,
    pub pid: i32,
    /// The process's name.
    pub process: String,
    /// The pass (or place outside passes) that holds the most live bytes.
    pub pass: Option<String>,
    pub pass_live_bytes: u64,
    /// The estimated live heap of the compiler process.
    pub live_bytes: u64,
    /// The sampling's standard error of `live_bytes`.
    pub standard_error_bytes: u64,
    pub sampled_allocations: u64,
    pub by_pass: Vec<PlaceBytes>,
    /// The most live heap sampled, and when.
    pub max_live_bytes: u64,
    pub max_seconds: f64,
    /// The compiler's RSS then and at its first sample, when `memory.json`
    /// has them; the growth, and `live_bytes` over it.
    pub rss_bytes: Option<u64>,
    pub rss_start_bytes: Option<u64>,
    pub rss_growth_bytes: Option<i64>,
    pub anon_growth_bytes: Option<i64>,
    pub live_to_rss_growth: Option<f64>,
    pub live_to_anon_growth: Option<f64>,
    /// Allocations never freed.
    pub at_end: LeakJson,
    /// Frees of sampled pointers whose allocation was not seen.
    pub unmatched_frees: u64,
}

/// The heap figures of `profile`, when it was read with `--heap`.
pub(crate) fn heap_peak(profile: &Profile, classes: &Classes<'_>) -> Option<HeapPeakJson> {
    let view = profile.heap_view.as_ref()?;
    let at = view.at_ns;
    let by_pass = by_place(profile, classes, view.pid, |alloc| {
        alloc.time <= at && alloc.freed.is_none_or(|freed| freed > at)
    });
    let at_end = by_place(profile, classes, view.pid, |alloc| alloc.freed.is_none());
    let growth = |now: u64, start: u64| Some(i64::try_from(now).ok()? - i64::try_from(start).ok()?);
    let rss_growth = view
        .rss_at
        .zip(view.rss_start)
        .and_then(|(now, start)| growth(now.0, start.0));
    let anon_growth = view
        .rss_at
        .zip(view.rss_start)
        .and_then(|(now, start)| growth(now.1, start.1));
    let ratio = |growth: Option<i64>| {
        growth
            .filter(|&growth| growth > 0)
            .map(|growth| crate::attribute::round2(view.live.bytes as f64 / growth as f64))
    };
    Some(HeapPeakJson {
        seconds: crate::attribute::round2(view.seconds),
        instant: match view.kind {
            InstantKind::RssPeak => "rss_peak",
            InstantKind::HeapPeak => "heap_peak",
            InstantKind::Given => "given",
        },
        pid: view.pid,
        process: (profile.processes.images.iter())
            .rev()
            .find(|image| image.pid == view.pid)
            .map_or_else(String::new, |image| image.name.clone()),
        pass: by_pass.first().map(|place| place.pass.clone()),
        pass_live_bytes: by_pass.first().map_or(0, |place| place.live_bytes),
        live_bytes: view.live.bytes,
        standard_error_bytes: view.live.standard_error(),
        sampled_allocations: view.live.samples,
        by_pass,
        max_live_bytes: view.max_bytes,
        max_seconds: crate::attribute::round2(view.max_seconds),
        rss_bytes: view.rss_at.map(|(rss, _)| rss),
        rss_start_bytes: view.rss_start.map(|(rss, _)| rss),
        rss_growth_bytes: rss_growth,
        anon_growth_bytes: anon_growth,
        live_to_rss_growth: ratio(rss_growth),
        live_to_anon_growth: ratio(anon_growth),
        at_end: LeakJson {
            live_bytes: view.leaked.bytes,
            standard_error_bytes: view.leaked.standard_error(),
            sampled_allocations: view.leaked.samples,
            pass: at_end.first().map(|place| place.pass.clone()),
            by_pass: at_end,
        },
        unmatched_frees: view.unmatched_frees,
    })
}

/// The live bytes of the process's allocations that `live` accepts, by
/// innermost pass (or place outside passes), most first. An allocation in
/// a thread-pool task, whose stack shows no pass, is credited to the place
/// of the main thread's latest sampled allocation in a pass or the pass
/// manager (the pass that queued the task), as CPU samples are.
fn by_place(
    profile: &Profile,
    classes: &Classes<'_>,
    pid: i32,
    live: impl Fn(&HeapAlloc) -> bool,
) -> Vec<PlaceBytes> {
    let Some(heap) = &profile.heap else {
        return Vec::new();
    };
    let mut known: HashMap<SampleKey, (RowKey, bool)> = HashMap::new();
    let mut main_place: Option<RowKey> = None;
    let mut bytes: HashMap<RowKey, u64> = HashMap::new();
    for alloc in heap.allocs.iter().filter(|alloc| alloc.pid == pid) {
        let (place, main) = *known.entry(alloc.key).or_insert_with(|| {
            let thread = profile.processes.thread(alloc.key.thread);
            let main = thread.tid == profile.processes.image(thread.process).pid;
            (
                facts(profile, classes, Attribution::Caller, &alloc.key).place,
                main,
            )
        });
        let in_pass_manager = matches!(
            place,
            RowKey::Pass(_) | RowKey::OutsidePass(OutsidePass::PassManager)
        );
        if main && in_pass_manager {
            main_place = Some(place);
        }
        let credited = match (place, main_place) {
            (RowKey::OutsidePass(OutsidePass::PoolTasks), Some(queued)) => queued,
            _ => place,
        };
        if live(alloc) {
            *bytes.entry(credited).or_insert(0) += alloc.marked.weight;
        }
    }
    let mut places: Vec<PlaceBytes> = bytes
        .into_iter()
        .map(|(place, live_bytes)| PlaceBytes {
            pass: classes.place_name(place).unwrap_or("(unknown)").to_owned(),
            live_bytes,
        })
        .collect();
    places.sort_by(|a, b| b.live_bytes.cmp(&a.live_bytes).then(a.pass.cmp(&b.pass)));
    places
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

fn signed_mib(bytes: i64) -> String {
    format!("{:+.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

fn places_line(places: &[PlaceBytes], total: u64) -> String {
    let named: Vec<String> = (places.iter().take(PASSES_NAMED))
        .map(|place| {
            format!(
                "{} {} ({:.0}%)",
                place.pass,
                mib(place.live_bytes),
                crate::attribute::percent(place.live_bytes, total)
            )
        })
        .collect();
    named.join(", ")
}

/// The heap section as text lines.
pub(crate) fn write_text(heap: &HeapPeakJson, out: &mut dyn Write) -> io::Result<()> {
    let instant = match heap.instant {
        "rss_peak" => "at the RSS peak",
        "heap_peak" => "at its most (no RSS series)",
        _ => "at the time given",
    };
    writeln!(
        out,
        "heap: live {instant}, {:.2} s, in {} ({}): {} ± {} (standard error; {} sampled allocations); the most live heap sampled: {} at {:.2} s",
        heap.seconds,
        heap.process,
        heap.pid,
        mib(heap.live_bytes),
        mib(heap.standard_error_bytes),
        heap.sampled_allocations,
        mib(heap.max_live_bytes),
        heap.max_seconds,
    )?;
    if let Some(pass) = &heap.pass {
        writeln!(
            out,
            "heap: held most by {pass}: {}; by pass: {}",
            mib(heap.pass_live_bytes),
            places_line(&heap.by_pass, heap.live_bytes)
        )?;
    }
    if let (Some(rss), Some(growth), Some(anon)) = (
        heap.rss_bytes,
        heap.rss_growth_bytes,
        heap.anon_growth_bytes,
    ) {
        let ratio = |ratio: Option<f64>| ratio.map_or("-".to_owned(), |r| format!("{r:.2}"));
        writeln!(
            out,
            "heap: RSS then {} ({} over its start; anonymous {}): live heap / RSS growth = {}, / anonymous growth = {} (RSS also counts mapped library pages; the heap does not count memory malloc keeps after a free, arena and page rounding, stacks, mmaps outside malloc)",
            mib(rss),
            signed_mib(growth),
            signed_mib(anon),
            ratio(heap.live_to_rss_growth),
            ratio(heap.live_to_anon_growth),
        )?;
    }
    let end = &heap.at_end;
    write!(
        out,
        "heap: live at the end (never freed): {} ± {} ({} sampled allocations)",
        mib(end.live_bytes),
        mib(end.standard_error_bytes),
        end.sampled_allocations
    )?;
    if !end.by_pass.is_empty() {
        write!(
            out,
            "; by pass: {}",
            places_line(&end.by_pass, end.live_bytes)
        )?;
    }
    writeln!(out)
}
