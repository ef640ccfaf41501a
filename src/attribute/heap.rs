//! The figures of a `--heap` reading (`record --heap`), as data for every
//! writer (the text and JSON report, the HTML page, the timeline, `diff`):
//! the live heap at the instant read with its standard error; what holds it
//! by pass (or place outside passes), by category and by function charged;
//! what is still live at the end (never freed); the live heap against the
//! compiler's RSS growth over its start; and the live-heap line over time.
//! Plain functions over the profile's paired allocations (`profile::heap`);
//! no text here.

use hashbrown::HashMap;
use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::classes::{Attribution, Classes, facts};
use super::consteval_heap::consteval_at_peak;
use super::pass::OutsidePass;
use super::round2;
use super::row_key::RowKey;
use crate::consteval::ConstEval;
use crate::profile::{HeapAlloc, InstantKind, Profile};
use crate::stacks::SampleKey;

/// How many categories and functions the peak lists.
const TOP_NAMED: usize = 10;

/// One place (a pass, or a place outside passes), category or function,
/// and the live bytes it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PlaceBytes {
    pub pass: String,
    pub live_bytes: u64,
}

/// A category or function and the live bytes charged to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct NamedBytes {
    pub name: String,
    pub live_bytes: u64,
}

/// What is still live at the end of the compile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct HeapLeak {
    pub live_bytes: u64,
    pub standard_error_bytes: u64,
    pub sampled_allocations: u64,
    /// The place that holds the most of it.
    pub pass: Option<String>,
    pub by_pass: Vec<PlaceBytes>,
}

/// The heap at the instant read: `heap_peak` of the JSON report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct HeapPeak {
    /// Seconds after the first sample kept (as `--at`).
    pub seconds: f64,
    /// `rss_peak`, `heap_peak` (no RSS series) or `given` (`--at`).
    pub instant: Cow<'static, str>,
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
    /// The categories of the functions charged (caller attribution), most
    /// first, the first [`TOP_NAMED`].
    pub by_category: Vec<NamedBytes>,
    /// The functions charged (caller attribution), most first, the first
    /// [`TOP_NAMED`].
    pub by_function: Vec<NamedBytes>,
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
    pub at_end: HeapLeak,
    /// Frees of sampled pointers whose allocation was not seen.
    pub unmatched_frees: u64,
    /// Const-eval's globals then, when the run kept them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consteval: Option<super::consteval_heap::ConstEvalAtPeak>,
}

/// The heap figures of `profile`, when it was read with `--heap`; with the
/// run's const-eval globals, what of the heap they hold.
pub(crate) fn heap_peak(
    profile: &Profile,
    classes: &Classes<'_>,
    consteval: Option<&ConstEval>,
) -> Option<HeapPeak> {
    let view = profile.heap_view.as_ref()?;
    let at = view.at_ns;
    let live_then = |alloc: &HeapAlloc| alloc.time <= at && alloc.freed.is_none_or(|f| f > at);
    let by_pass = by_place(profile, classes, view.pid, live_then);
    let at_end = by_place(profile, classes, view.pid, |alloc| alloc.freed.is_none());
    let (by_category, by_function) = by_charged(profile, classes, view.pid, live_then);
    let growth = |now: u64, start: u64| Some(i64::try_from(now).ok()? - i64::try_from(start).ok()?);
    let both = view.rss_at.zip(view.rss_start);
    let rss_growth = both.and_then(|(now, start)| growth(now.0, start.0));
    let anon_growth = both.and_then(|(now, start)| growth(now.1, start.1));
    let ratio = |growth: Option<i64>| {
        growth
            .filter(|&growth| growth > 0)
            .map(|growth| round2(view.live.bytes as f64 / growth as f64))
    };
    Some(HeapPeak {
        seconds: round2(view.seconds),
        instant: instant_name(view.kind).into(),
        pid: view.pid,
        process: process_name(profile, view.pid),
        pass: by_pass.first().map(|place| place.pass.clone()),
        pass_live_bytes: by_pass.first().map_or(0, |place| place.live_bytes),
        live_bytes: view.live.bytes,
        standard_error_bytes: view.live.standard_error(),
        sampled_allocations: view.live.samples,
        by_pass,
        by_category,
        by_function,
        max_live_bytes: view.max_bytes,
        max_seconds: round2(view.max_seconds),
        rss_bytes: view.rss_at.map(|(rss, _)| rss),
        rss_start_bytes: view.rss_start.map(|(rss, _)| rss),
        rss_growth_bytes: rss_growth,
        anon_growth_bytes: anon_growth,
        live_to_rss_growth: ratio(rss_growth),
        live_to_anon_growth: ratio(anon_growth),
        at_end: HeapLeak {
            live_bytes: view.leaked.bytes,
            standard_error_bytes: view.leaked.standard_error(),
            sampled_allocations: view.leaked.samples,
            pass: at_end.first().map(|place| place.pass.clone()),
            by_pass: at_end,
        },
        unmatched_frees: view.unmatched_frees,
        consteval: consteval.and_then(|consteval| consteval_at_peak(profile, consteval)),
    })
}

/// The JSON name of an instant's kind.
fn instant_name(kind: InstantKind) -> &'static str {
    match kind {
        InstantKind::RssPeak => "rss_peak",
        InstantKind::HeapPeak => "heap_peak",
        InstantKind::Given => "given",
    }
}

/// The name of the process `pid` (its last image).
fn process_name(profile: &Profile, pid: i32) -> String {
    (profile.processes.images.iter())
        .rev()
        .find(|image| image.pid == pid)
        .map_or_else(String::new, |image| image.name.clone())
}

/// The estimated live heap of the compiler process over time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HeapLine {
    pub pid: i32,
    pub process: String,
    /// `(seconds, live bytes, standard error)` after each sampled
    /// allocation and free, seconds from `start_ns` (those before it left
    /// out).
    pub points: Vec<(f64, u64, u64)>,
    /// The instant read (as `heap_peak`): seconds from `start_ns`, the
    /// live bytes and their standard error then, and its kind.
    pub at: (f64, u64, u64, &'static str),
}

/// The live-heap line of a `--heap` reading, on a time axis that starts at
/// `start_ns` (the timeline's first sample).
pub(crate) fn heap_line(profile: &Profile, start_ns: u64) -> Option<HeapLine> {
    let view = profile.heap_view.as_ref()?;
    let heap = profile.heap.as_ref()?;
    let seconds = |time: u64| time.saturating_sub(start_ns) as f64 / 1e9;
    let points = heap
        .series(|alloc| alloc.pid == view.pid)
        .into_iter()
        .filter(|point| point.time >= start_ns)
        .map(|point| (seconds(point.time), point.bytes, point.standard_error()))
        .collect();
    Some(HeapLine {
        pid: view.pid,
        process: process_name(profile, view.pid),
        points,
        at: (
            seconds(view.at_ns),
            view.live.bytes,
            view.live.standard_error(),
            instant_name(view.kind),
        ),
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

/// The live bytes of the process's allocations that `live` accepts by the
/// category of the function charged and by that function (caller
/// attribution, as the report's rows), most first, the first [`TOP_NAMED`]
/// of each.
fn by_charged(
    profile: &Profile,
    classes: &Classes<'_>,
    pid: i32,
    live: impl Fn(&HeapAlloc) -> bool,
) -> (Vec<NamedBytes>, Vec<NamedBytes>) {
    let Some(heap) = &profile.heap else {
        return (Vec::new(), Vec::new());
    };
    let mut known: HashMap<SampleKey, (&str, &str)> = HashMap::new();
    let mut categories: HashMap<&str, u64> = HashMap::new();
    let mut functions: HashMap<&str, u64> = HashMap::new();
    for alloc in (heap.allocs.iter()).filter(|alloc| alloc.pid == pid && live(alloc)) {
        let (category, function) = *known.entry(alloc.key).or_insert_with(|| {
            let facts = facts(profile, classes, Attribution::Caller, &alloc.key);
            (
                classes.table.category(facts.self_category).name.as_str(),
                facts.charged.map_or("(unknown)", |symbol| {
                    profile.symbols.get(symbol).name.as_str()
                }),
            )
        });
        *categories.entry(category).or_insert(0) += alloc.marked.weight;
        *functions.entry(function).or_insert(0) += alloc.marked.weight;
    }
    (top(categories), top(functions))
}

/// The first [`TOP_NAMED`] of `bytes`, most first.
fn top(bytes: HashMap<&str, u64>) -> Vec<NamedBytes> {
    let mut named: Vec<NamedBytes> = bytes
        .into_iter()
        .map(|(name, live_bytes)| NamedBytes {
            name: name.to_owned(),
            live_bytes,
        })
        .collect();
    named.sort_by(|a, b| b.live_bytes.cmp(&a.live_bytes).then(a.name.cmp(&b.name)));
    named.truncate(TOP_NAMED);
    named
}

/// A heap peak for tests: `live` bytes ± `error`, held by `passes`, all
/// in one category.
#[cfg(test)]
pub(crate) fn example_peak(live: u64, error: u64, passes: &[(&str, u64)]) -> HeapPeak {
    let by_pass: Vec<PlaceBytes> = (passes.iter())
        .map(|&(pass, live_bytes)| PlaceBytes {
            pass: pass.to_owned(),
            live_bytes,
        })
        .collect();
    HeapPeak {
        seconds: 2.0,
        instant: "rss_peak".into(),
        pid: 1,
        process: "iree-compile".to_owned(),
        pass: by_pass.first().map(|place| place.pass.clone()),
        pass_live_bytes: by_pass.first().map_or(0, |place| place.live_bytes),
        live_bytes: live,
        standard_error_bytes: error,
        sampled_allocations: 10,
        by_pass,
        by_category: vec![NamedBytes {
            name: "Constant folding".to_owned(),
            live_bytes: live,
        }],
        by_function: Vec::new(),
        max_live_bytes: live,
        max_seconds: 2.0,
        rss_bytes: None,
        rss_start_bytes: None,
        rss_growth_bytes: None,
        anon_growth_bytes: None,
        live_to_rss_growth: None,
        live_to_anon_growth: None,
        at_end: HeapLeak {
            live_bytes: 0,
            standard_error_bytes: 0,
            sampled_allocations: 0,
            pass: None,
            by_pass: Vec::new(),
        },
        unmatched_frees: 0,
        consteval: None,
    }
}
