//! The compile over time: samples in equal time slices, split by category,
//! with the number of busy threads and the phase of the compile (input
//! parsing, flow, stream, HAL, codegen, VM, output) each slice was in.
//!
//! Samples the kernel lost are counted in the slice of the record that
//! said so (`PERF_RECORD_LOST`, written once the ring buffer had room
//! again, so just after the drops).
//!
//! Busy threads are CPU time over wall time: a thread that ran the whole
//! slice yields `frequency × slice length` samples. That also says how
//! much of the compile ran on one thread while the machine's other cores
//! idled.

use hashbrown::HashMap;

use super::classes::{Attribution, Classes, Facts, facts};
use super::pass::{OutsidePass, Phase};
use super::row_key::RowKey;
use crate::profile::{Profile, SampleFilter};
use crate::stacks::SampleKey;
use category_rules::CategoryId;

/// Below this many busy threads a slice counts as running on one thread.
const SERIAL_BELOW: f64 = 1.25;
/// The utilization is measured in this many slices, whatever the number
/// drawn: the share of time on one thread depends on the slices' width, and
/// every report gives the same figure.
const UTILIZATION_SLICES: usize = 200;

/// One slice of time.
#[derive(Clone, Debug, Default)]
pub(crate) struct TimeSlice {
    /// Start, in seconds from the first sample.
    pub start_seconds: f64,
    pub samples: u64,
    /// Samples by self category.
    pub categories: HashMap<CategoryId, u64>,
    /// Average number of threads on a CPU, when the sampling rate is known.
    pub busy_threads: Option<f64>,
    /// The phase most of the slice's samples were in.
    pub phase: Option<Phase>,
    /// Records the kernel dropped in the slice (most of them samples).
    pub lost: u64,
}

/// A run of slices in the same phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PhaseSpan {
    pub phase: Phase,
    pub start_seconds: f64,
    pub end_seconds: f64,
}

/// How busy the threads were over the whole span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Utilization {
    /// Average number of busy threads.
    pub mean_busy_threads: f64,
    /// Share (0–1) of the time with fewer than 1.25 busy threads.
    pub serial_share: f64,
    /// The machine's CPUs, as the recording states.
    pub cpus: Option<u32>,
}

/// The samples of a profile over time.
#[derive(Clone, Debug)]
pub(crate) struct Timeline {
    /// perf's time of the first sample kept: second 0 of the slices.
    pub start_ns: u64,
    pub slice_seconds: f64,
    pub slices: Vec<TimeSlice>,
    pub phases: Vec<PhaseSpan>,
    pub utilization: Option<Utilization>,
    /// Samples the kernel lost while recording (of every process), timed
    /// or not.
    pub lost_samples: u64,
}

/// The phase of a sample: its passes', or parsing's and output's outside
/// passes.
pub(crate) fn phase_of(classes: &Classes<'_>, facts: &Facts) -> Option<Phase> {
    classes.passes.phase(&facts.passes).or(match facts.place {
        RowKey::OutsidePass(OutsidePass::ParsingInput) => Some(Phase::Input),
        RowKey::OutsidePass(OutsidePass::SerializationAndOutput) => Some(Phase::Output),
        _ => None,
    })
}

/// Splits the samples `filter` keeps into `count` equal time slices.
pub(crate) fn timeline(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    count: usize,
) -> Timeline {
    let kept: Vec<_> = profile
        .stacks
        .timeline
        .iter()
        .filter(|sample| profile.keeps(filter, &sample.key))
        .collect();
    let (Some(first), Some(last)) = (
        kept.iter().map(|sample| sample.time).min(),
        kept.iter().map(|sample| sample.time).max(),
    ) else {
        return Timeline {
            start_ns: 0,
            slice_seconds: 0.0,
            slices: Vec::new(),
            phases: Vec::new(),
            utilization: None,
            lost_samples: profile.counts.lost.samples(),
        };
    };
    let count = count.max(1);
    let span = (last - first).max(1);
    let slice_ns = span.div_ceil(count as u64).max(1);
    let slice_seconds = slice_ns as f64 / 1e9;
    let mut slices: Vec<TimeSlice> = (0..count)
        .map(|index| TimeSlice {
            start_seconds: index as f64 * slice_seconds,
            ..TimeSlice::default()
        })
        .collect();
    let mut phase_counts: Vec<HashMap<Phase, u64>> = vec![HashMap::new(); count];
    let mut known: HashMap<SampleKey, (CategoryId, Option<Phase>)> = HashMap::new();
    for sample in &kept {
        let (category, phase) = *known.entry(sample.key).or_insert_with(|| {
            let facts = facts(profile, classes, Attribution::Leaf, &sample.key);
            (facts.self_category, phase_of(classes, &facts))
        });
        let index = slice_of(sample.time, first, slice_ns, count);
        let slice = &mut slices[index];
        slice.samples += 1;
        *slice.categories.entry(category).or_default() += 1;
        if let Some(phase) = phase {
            *phase_counts[index].entry(phase).or_default() += 1;
        }
    }
    for loss in &profile.counts.lost.records {
        if let Some(time) = loss.time {
            slices[slice_of(time, first, slice_ns, count)].lost += loss.count;
        }
    }
    let frequency = profile
        .info
        .events
        .iter()
        .find(|event| event.name == profile.event)
        .and_then(|event| event.frequency);
    for (slice, phases) in slices.iter_mut().zip(&phase_counts) {
        slice.busy_threads = frequency.map(|hz| slice.samples as f64 / (hz as f64 * slice_seconds));
        slice.phase = phases
            .iter()
            .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))
            .map(|(phase, _)| *phase);
    }
    let utilization = frequency.map(|hz| {
        let times = kept.iter().map(|sample| sample.time);
        utilization(times, first, span, hz, profile.info.cpus_online)
    });
    Timeline {
        start_ns: first,
        slice_seconds,
        phases: phase_spans(&slices, slice_seconds),
        slices,
        utilization,
        lost_samples: profile.counts.lost.samples(),
    }
}

/// The slice of `count`, each `slice_ns` long from `first`, that `time`
/// falls in; a time outside them is in the first or the last.
fn slice_of(time: u64, first: u64, slice_ns: u64, count: usize) -> usize {
    ((time.saturating_sub(first) / slice_ns) as usize).min(count - 1)
}

/// Runs of slices in one phase; slices without a phase join the run they
/// are in.
fn phase_spans(slices: &[TimeSlice], slice_seconds: f64) -> Vec<PhaseSpan> {
    let mut spans: Vec<PhaseSpan> = Vec::new();
    for slice in slices {
        let end = slice.start_seconds + slice_seconds;
        match (slice.phase, spans.last_mut()) {
            (Some(phase), Some(last)) if last.phase == phase => last.end_seconds = end,
            (Some(phase), _) => spans.push(PhaseSpan {
                phase,
                start_seconds: slice.start_seconds,
                end_seconds: end,
            }),
            (None, Some(last)) => last.end_seconds = end,
            (None, None) => {}
        }
    }
    spans
}

/// How busy the threads were: the samples counted in
/// [`UTILIZATION_SLICES`] slices of `span` nanoseconds from `first`, at
/// `hz` samples a second per busy thread.
fn utilization(
    times: impl Iterator<Item = u64>,
    first: u64,
    span: u64,
    hz: u64,
    cpus: Option<u32>,
) -> Utilization {
    let slice_ns = span.div_ceil(UTILIZATION_SLICES as u64).max(1);
    let mut samples = vec![0u64; UTILIZATION_SLICES];
    for time in times {
        samples[slice_of(time, first, slice_ns, UTILIZATION_SLICES)] += 1;
    }
    let per_thread = hz as f64 * slice_ns as f64 / 1e9;
    let busy: Vec<f64> = samples
        .iter()
        .map(|&count| count as f64 / per_thread)
        .collect();
    let serial = busy
        .iter()
        .filter(|&&threads| threads < SERIAL_BELOW)
        .count();
    Utilization {
        mean_busy_threads: busy.iter().sum::<f64>() / busy.len() as f64,
        serial_share: serial as f64 / busy.len() as f64,
        cpus,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(start: f64, phase: Option<Phase>) -> TimeSlice {
        TimeSlice {
            start_seconds: start,
            phase,
            ..TimeSlice::default()
        }
    }

    #[test]
    fn times_fall_in_their_slice_and_outside_ones_in_the_nearest_end() {
        let slice = |time| slice_of(time, 1_000, 10, 4);
        assert_eq!(slice(1_000), 0);
        assert_eq!(slice(1_009), 0);
        assert_eq!(slice(1_010), 1);
        assert_eq!(slice(1_039), 3);
        // A loss reported before the first kept sample or after the last.
        assert_eq!(slice(5), 0);
        assert_eq!(slice(2_000), 3);
    }

    #[test]
    fn utilization_is_measured_the_same_whatever_slices_are_drawn() {
        // 10 s at 100 Hz: two threads busy for the first half, one after.
        let second = 1_000_000_000u64;
        let times = (0..1000u64)
            .flat_map(|tick| {
                let time = tick * second / 100;
                let threads = if time < 5 * second { 2 } else { 1 };
                std::iter::repeat_n(time, threads)
            })
            .collect::<Vec<_>>();
        let used = utilization(times.iter().copied(), 0, 10 * second, 100, Some(2));
        assert!((used.mean_busy_threads - 1.5).abs() < 0.02, "{used:?}");
        assert!((used.serial_share - 0.5).abs() < 0.01, "{used:?}");
        assert_eq!(used.cpus, Some(2));
    }

    #[test]
    fn phases_merge_into_spans_and_gaps_join_the_current_one() {
        let slices = [
            slice(0.0, Some(Phase::Input)),
            slice(1.0, Some(Phase::Input)),
            slice(2.0, None),
            slice(3.0, Some(Phase::Flow)),
            slice(4.0, Some(Phase::Codegen)),
        ];
        let spans = phase_spans(&slices, 1.0);
        let summary: Vec<(Phase, f64, f64)> = spans
            .iter()
            .map(|span| (span.phase, span.start_seconds, span.end_seconds))
            .collect();
        assert_eq!(
            summary,
            vec![
                (Phase::Input, 0.0, 3.0),
                (Phase::Flow, 3.0, 4.0),
                (Phase::Codegen, 4.0, 5.0)
            ]
        );
    }
}
