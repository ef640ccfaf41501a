//! `compile-perf timeline --format json`: the time slices (`buckets` in the
//! JSON, as `--buckets` counts them), their category samples, busy threads
//! and phases, and the utilization summary; the RSS line, and with
//! `--heap` the live-heap line.

use serde::{Deserialize, Serialize};

use crate::attribute::heap::HeapLine;
use crate::attribute::rss::{MemoryPeak, RssJoin};
use crate::attribute::{Timeline, Utilization};
use category_rules::RuleTable;

/// The JSON document of `timeline --format json`.
#[derive(Debug, Serialize)]
pub(crate) struct TimelineJson {
    pub command: String,
    /// Samples the kernel lost while recording; 0 when none were.
    pub lost_samples: u64,
    pub bucket_seconds: f64,
    pub utilization: Option<UtilizationJson>,
    pub phases: Vec<PhaseJson>,
    pub buckets: Vec<SliceJson>,
    /// The compiler's RSS over time, when the run directory has a
    /// `memory.json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss: Option<RssJson>,
    /// With `--heap`: the compiler's estimated live heap over time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap: Option<HeapJson>,
    /// Of a series of runs: which run this is, and why (`run-2, the run of
    /// median wall time of 3 runs: …`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_of_set: Option<String>,
}

/// The RSS line of the timeline.
#[derive(Debug, Serialize)]
pub(crate) struct RssJson {
    pub process: String,
    pub pid: i32,
    /// The highest RSS.
    pub peak: Option<RssPeakJson>,
    /// The most anonymous memory.
    pub anon_peak: Option<RssPeakJson>,
    /// `[seconds, bytes, anon_bytes]`: seconds from the first sample as the
    /// buckets, the RSS and its anonymous part.
    pub points: Vec<(f64, u64, u64)>,
}

/// The live-heap line of the timeline (`--heap`).
#[derive(Debug, Serialize)]
pub(crate) struct HeapJson {
    pub process: String,
    pub pid: i32,
    /// The instant `report --heap` reads (its `heap_peak`), on the
    /// buckets' clock.
    pub at: HeapAtJson,
    /// The most live heap of the line, and when.
    pub max: Option<HeapAtJson>,
    /// `[seconds, live_bytes, standard_error_bytes]` after each sampled
    /// allocation and free, seconds as the buckets.
    pub points: Vec<(f64, u64, u64)>,
}

/// The live heap at one instant.
#[derive(Debug, Serialize)]
pub(crate) struct HeapAtJson {
    pub seconds: f64,
    /// `rss_peak`, `heap_peak` or `given` (`--at`); `max` for the most.
    pub instant: &'static str,
    pub live_bytes: u64,
    pub standard_error_bytes: u64,
}

/// A peak of the RSS or of its anonymous part: the RSS then, split by
/// kind, when, and the pass (or place) and phase then.
#[derive(Debug, Serialize)]
pub(crate) struct RssPeakJson {
    pub bytes: u64,
    pub anon_bytes: u64,
    pub file_bytes: u64,
    pub seconds: f64,
    pub pass: String,
    pub phase: Option<&'static str>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct UtilizationJson {
    pub mean_busy_threads: f64,
    /// Share (%) of the time with fewer than 1.25 busy threads.
    pub serial_percent: f64,
    pub cpus: Option<u32>,
}

impl From<Utilization> for UtilizationJson {
    fn from(utilization: Utilization) -> Self {
        UtilizationJson {
            mean_busy_threads: super::round2(utilization.mean_busy_threads),
            serial_percent: super::round2(utilization.serial_share * 100.0),
            cpus: utilization.cpus,
        }
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct PhaseJson {
    pub phase: &'static str,
    pub start_seconds: f64,
    pub end_seconds: f64,
}

#[derive(Debug, Serialize)]
pub(crate) struct SliceJson {
    pub start_seconds: f64,
    pub samples: u64,
    pub busy_threads: Option<f64>,
    pub phase: Option<&'static str>,
    /// Samples by category id, largest first.
    pub categories: Vec<(String, u64)>,
    /// Records the kernel dropped in the slice, by the times of its
    /// `PERF_RECORD_LOST` records (most of them samples; perf's own count
    /// of samples lost, in `lost_samples` at the top, has no time).
    pub lost_samples: u64,
}

fn peak_json(peak: &MemoryPeak, round: impl Fn(f64) -> f64) -> RssPeakJson {
    RssPeakJson {
        bytes: peak.bytes,
        anon_bytes: peak.anon_bytes,
        file_bytes: peak.file_bytes,
        seconds: round(peak.seconds),
        pass: peak.place_name.clone(),
        phase: peak.phase.map(|phase| phase.name()),
    }
}

fn heap_json(heap: &HeapLine, round: impl Fn(f64) -> f64) -> HeapJson {
    let (seconds, live_bytes, standard_error_bytes, instant) = heap.at;
    HeapJson {
        process: heap.process.clone(),
        pid: heap.pid,
        at: HeapAtJson {
            seconds: round(seconds),
            instant,
            live_bytes,
            standard_error_bytes,
        },
        max: (heap.points.iter())
            .reduce(|best, point| if point.1 > best.1 { point } else { best })
            .map(|&(seconds, live_bytes, standard_error_bytes)| HeapAtJson {
                seconds: round(seconds),
                instant: "max",
                live_bytes,
                standard_error_bytes,
            }),
        points: (heap.points.iter())
            .map(|&(seconds, bytes, error)| (round(seconds), bytes, error))
            .collect(),
    }
}

/// The JSON form of `timeline`.
pub(crate) fn to_json(
    timeline: &Timeline,
    table: &RuleTable,
    command: String,
    rss: Option<&RssJoin>,
    heap: Option<&HeapLine>,
) -> TimelineJson {
    let round = |value: f64| (value * 1000.0).round() / 1000.0;
    TimelineJson {
        run_of_set: None,
        heap: heap.map(|heap| heap_json(heap, round)),
        rss: rss.map(|rss| RssJson {
            process: rss.name.clone(),
            pid: rss.pid,
            peak: rss.peak.as_ref().map(|peak| peak_json(peak, round)),
            anon_peak: rss.anon_peak.as_ref().map(|peak| peak_json(peak, round)),
            points: rss
                .line
                .iter()
                .map(|&(seconds, bytes, anon)| (round(seconds), bytes, anon))
                .collect(),
        }),
        command,
        lost_samples: timeline.lost_samples,
        bucket_seconds: round(timeline.slice_seconds),
        utilization: timeline.utilization.map(Into::into),
        phases: timeline
            .phases
            .iter()
            .map(|span| PhaseJson {
                phase: span.phase.name(),
                start_seconds: round(span.start_seconds),
                end_seconds: round(span.end_seconds),
            })
            .collect(),
        buckets: timeline
            .slices
            .iter()
            .map(|slice| {
                let mut categories: Vec<(String, u64)> = slice
                    .categories
                    .iter()
                    .map(|(id, samples)| (table.category(*id).id.clone(), *samples))
                    .collect();
                categories.sort_by(|a, b| (b.1, &a.0).cmp(&(a.1, &b.0)));
                SliceJson {
                    start_seconds: round(slice.start_seconds),
                    samples: slice.samples,
                    busy_threads: slice.busy_threads.map(super::round2),
                    phase: slice.phase.map(|phase| phase.name()),
                    categories,
                    lost_samples: slice.lost,
                }
            })
            .collect(),
    }
}
