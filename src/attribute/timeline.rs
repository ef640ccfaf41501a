//! The compile over time: samples in equal time buckets, split by category,
//! with the number of busy threads and the phase of the compile (input
//! parsing, flow, stream, HAL, codegen, VM, output) each bucket was in.
//!
//! Busy threads are CPU time over wall time: a thread that ran the whole
//! bucket yields `frequency × bucket length` samples. That also says how
//! much of the compile ran on one thread while the machine's other cores
//! idled.

use hashbrown::HashMap;

use super::SampleFilter;
use super::category::{Attribution, Classes, RowKey, facts};
use super::pass::{Bucket, Phase};
use crate::categorize::CategoryId;
use crate::profile::Profile;
use crate::stacks::SampleKey;

/// Below this many busy threads a bucket counts as running on one thread.
const SERIAL_BELOW: f64 = 1.25;

/// One slice of time.
#[derive(Clone, Debug, Default)]
pub struct TimeBucket {
    /// Start, in seconds from the first sample.
    pub start_seconds: f64,
    pub samples: u64,
    /// Samples by self category.
    pub categories: HashMap<CategoryId, u64>,
    /// Average number of threads on a CPU, when the sampling rate is known.
    pub busy_threads: Option<f64>,
    /// The phase most of the bucket's samples were in.
    pub phase: Option<Phase>,
}

/// A run of buckets in the same phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseSpan {
    pub phase: Phase,
    pub start_seconds: f64,
    pub end_seconds: f64,
}

/// How busy the threads were over the whole span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Utilization {
    /// Average number of busy threads.
    pub mean_busy_threads: f64,
    /// Share (0–1) of the time with fewer than 1.25 busy threads.
    pub serial_share: f64,
    /// The machine's CPUs, as the recording states.
    pub cpus: Option<u32>,
}

/// The samples of a profile over time.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub bucket_seconds: f64,
    pub buckets: Vec<TimeBucket>,
    pub phases: Vec<PhaseSpan>,
    pub utilization: Option<Utilization>,
}

/// Splits the samples `filter` keeps into `count` equal time buckets.
pub fn timeline(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    count: usize,
) -> Timeline {
    let kept: Vec<_> = profile
        .stacks
        .timeline
        .iter()
        .filter(|sample| {
            filter.keeps_all() || {
                let process = profile.processes.thread(sample.key.thread).process;
                filter.accepts(profile.processes.image(process))
            }
        })
        .collect();
    let (Some(first), Some(last)) = (
        kept.iter().map(|sample| sample.time).min(),
        kept.iter().map(|sample| sample.time).max(),
    ) else {
        return Timeline {
            bucket_seconds: 0.0,
            buckets: Vec::new(),
            phases: Vec::new(),
            utilization: None,
        };
    };
    let count = count.max(1);
    let span = (last - first).max(1);
    let bucket_ns = span.div_ceil(count as u64).max(1);
    let bucket_seconds = bucket_ns as f64 / 1e9;
    let mut buckets: Vec<TimeBucket> = (0..count)
        .map(|index| TimeBucket {
            start_seconds: index as f64 * bucket_seconds,
            ..TimeBucket::default()
        })
        .collect();
    let mut phase_counts: Vec<HashMap<Phase, u64>> = vec![HashMap::new(); count];
    let mut known: HashMap<SampleKey, (CategoryId, Option<Phase>)> = HashMap::new();
    for sample in kept {
        let (category, phase) = *known.entry(sample.key).or_insert_with(|| {
            let facts = facts(profile, classes, Attribution::Leaf, &sample.key);
            let phase = classes.passes.phase(&facts.passes).or(match facts.place {
                RowKey::Bucket(Bucket::ParsingInput) => Some(Phase::Input),
                RowKey::Bucket(Bucket::SerializationAndOutput) => Some(Phase::Output),
                _ => None,
            });
            (facts.self_category, phase)
        });
        let index = (((sample.time - first) / bucket_ns) as usize).min(count - 1);
        let bucket = &mut buckets[index];
        bucket.samples += 1;
        *bucket.categories.entry(category).or_default() += 1;
        if let Some(phase) = phase {
            *phase_counts[index].entry(phase).or_default() += 1;
        }
    }
    let frequency = profile
        .info
        .events
        .iter()
        .find(|event| event.name == profile.event)
        .and_then(|event| event.frequency);
    for (bucket, phases) in buckets.iter_mut().zip(&phase_counts) {
        bucket.busy_threads =
            frequency.map(|hz| bucket.samples as f64 / (hz as f64 * bucket_seconds));
        bucket.phase = phases
            .iter()
            .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))
            .map(|(phase, _)| *phase);
    }
    let utilization = frequency.map(|_| {
        let busy: Vec<f64> = buckets
            .iter()
            .filter_map(|bucket| bucket.busy_threads)
            .collect();
        let mean = busy.iter().sum::<f64>() / busy.len().max(1) as f64;
        let serial = busy
            .iter()
            .filter(|&&threads| threads < SERIAL_BELOW)
            .count();
        Utilization {
            mean_busy_threads: mean,
            serial_share: serial as f64 / busy.len().max(1) as f64,
            cpus: profile.info.cpus_online,
        }
    });
    Timeline {
        bucket_seconds,
        phases: phase_spans(&buckets, bucket_seconds),
        buckets,
        utilization,
    }
}

/// Runs of buckets in one phase; buckets without a phase join the run they
/// are in.
fn phase_spans(buckets: &[TimeBucket], bucket_seconds: f64) -> Vec<PhaseSpan> {
    let mut spans: Vec<PhaseSpan> = Vec::new();
    for bucket in buckets {
        let end = bucket.start_seconds + bucket_seconds;
        match (bucket.phase, spans.last_mut()) {
            (Some(phase), Some(last)) if last.phase == phase => last.end_seconds = end,
            (Some(phase), _) => spans.push(PhaseSpan {
                phase,
                start_seconds: bucket.start_seconds,
                end_seconds: end,
            }),
            (None, Some(last)) => last.end_seconds = end,
            (None, None) => {}
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(start: f64, phase: Option<Phase>) -> TimeBucket {
        TimeBucket {
            start_seconds: start,
            phase,
            ..TimeBucket::default()
        }
    }

    #[test]
    fn phases_merge_into_spans_and_gaps_join_the_current_one() {
        let buckets = [
            bucket(0.0, Some(Phase::Input)),
            bucket(1.0, Some(Phase::Input)),
            bucket(2.0, None),
            bucket(3.0, Some(Phase::Flow)),
            bucket(4.0, Some(Phase::Codegen)),
        ];
        let spans = phase_spans(&buckets, 1.0);
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
