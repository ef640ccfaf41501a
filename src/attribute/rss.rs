//! The resident set over time (`memory.json`) joined with the passes: for
//! each pass, the compiler's RSS when it first started, how much its
//! anonymous memory and its mapped files grew over the pass's spans, and
//! the highest it was during them; and where the RSS and the anonymous
//! memory peaked (the pass and the phase). Growth is charged by kind: a
//! pass that first touches pages of the compiler library grows the RSS
//! without holding memory. Both series are on `CLOCK_MONOTONIC`
//! (`perf record -k CLOCK_MONOTONIC`), so a time means the same in each.

use hashbrown::HashMap;

use super::classes::{Attribution, Classes, facts};
use super::pass::{OutsidePass, Phase};
use super::pass_spans::{PassSpan, spans};
use super::runs::seconds_per_sample;
use super::{PassId, RowKey};
use crate::profile::{Profile, SampleFilter, is_compiler};
use crate::rss::{Resident, RssProcess, RssSeries};
use crate::stacks::SampleKey;

/// The RSS of the compiler process during one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PassRss {
    /// When the pass first started.
    pub start_bytes: u64,
    /// The growth over each of its spans, added up (spans on several
    /// threads at once count once); negative when it freed more.
    pub growth_bytes: i64,
    /// The part of the growth that is anonymous memory.
    pub anon_growth_bytes: i64,
    /// The part that is mapped files (the library paged in) and shared memory.
    pub file_growth_bytes: i64,
    /// The highest during its spans.
    pub max_bytes: u64,
    /// The most anonymous memory during its spans.
    pub anon_max_bytes: u64,
}

/// A peak of the compiler process's memory, and where the compile was then.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MemoryPeak {
    /// The RSS then.
    pub bytes: u64,
    /// Its anonymous part.
    pub anon_bytes: u64,
    /// Its mapped files and shared memory.
    pub file_bytes: u64,
    /// From the first sample of the report.
    pub seconds: f64,
    /// The innermost pass running then, or the place outside passes.
    pub place: RowKey,
    /// Its name.
    pub place_name: String,
    pub phase: Option<Phase>,
}

/// The RSS series of the compiler process, joined with its passes.
#[derive(Clone, Debug)]
pub(crate) struct RssJoin {
    /// The process the series and the passes are of: its pid and name.
    pub pid: i32,
    pub name: String,
    pub passes: HashMap<PassId, PassRss>,
    /// The highest RSS.
    pub peak: Option<MemoryPeak>,
    /// The most anonymous memory: what a smaller machine runs out of.
    pub anon_peak: Option<MemoryPeak>,
    /// The samples as (seconds from the first sample kept, RSS bytes,
    /// anonymous bytes), those from before it left out.
    pub line: Vec<(f64, u64, u64)>,
}

/// Joins `series` with the passes of the samples `filter` keeps. The
/// process joined is [`compiler_series`]'s; `None` without one, or when
/// the recording has none of its samples.
pub(crate) fn join(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    series: &RssSeries,
) -> Option<RssJoin> {
    let process = compiler_series(profile, series)?;
    let start_ns = profile.first_time_kept(filter)?;
    let mut known: HashMap<SampleKey, (Vec<PassId>, RowKey, Option<Phase>)> = HashMap::new();
    let mut timed = Vec::new();
    for sample in &profile.stacks.timeline {
        let thread = profile.processes.thread(sample.key.thread);
        if profile.processes.image(thread.process).pid != process.pid
            || !profile.keeps(filter, &sample.key)
        {
            continue;
        }
        known.entry(sample.key).or_insert_with(|| {
            let facts = facts(profile, classes, Attribution::Leaf, &sample.key);
            let phase = classes.passes.phase(&facts.passes).or(match facts.place {
                RowKey::OutsidePass(OutsidePass::ParsingInput) => Some(Phase::Input),
                RowKey::OutsidePass(OutsidePass::SerializationAndOutput) => Some(Phase::Output),
                _ => None,
            });
            (facts.passes, facts.place, phase)
        });
        timed.push((sample.time, sample.key));
    }
    if timed.is_empty() {
        return None;
    }
    let period = seconds_per_sample(profile).map_or(0, |seconds| (seconds * 1e9).round() as u64);
    let pass_spans = spans(
        timed
            .iter()
            .map(|(time, key)| (key.thread, *time, known[key].0.as_slice())),
        period,
    );
    let passes = pass_rss(process, &pass_spans);
    let peak_of = |kind: Resident| {
        process.peak(kind).map(|peak| {
            // The sample nearest the peak says the phase, and the place when
            // no pass span covers the peak.
            let after = timed.partition_point(|(time, _)| *time <= peak.time_ns);
            let nearest = [after.checked_sub(1), Some(after)]
                .into_iter()
                .flatten()
                .filter_map(|at| timed.get(at))
                .min_by_key(|(time, _)| time.abs_diff(peak.time_ns))
                .expect("the compiler has samples");
            let (_, nearest_place, phase) = &known[&nearest.1];
            let innermost = pass_spans
                .iter()
                .filter(|span| span.start <= peak.time_ns && peak.time_ns < span.end)
                .max_by_key(|span| (span.depth, span.end - span.start));
            let place = innermost.map_or(*nearest_place, |span| RowKey::Pass(span.pass));
            MemoryPeak {
                bytes: peak.rss_bytes,
                anon_bytes: peak.anon_bytes,
                file_bytes: peak.file_bytes,
                seconds: peak.time_ns.saturating_sub(start_ns) as f64 / 1e9,
                place,
                place_name: classes
                    .place_name(place)
                    .expect("a sample's place is a pass or a place outside passes")
                    .to_owned(),
                phase: *phase,
            }
        })
    };
    let (peak, anon_peak) = (peak_of(Resident::All), peak_of(Resident::Anonymous));
    let line = process
        .samples
        .iter()
        .filter(|sample| sample.time_ns >= start_ns)
        .map(|sample| {
            let seconds = (sample.time_ns - start_ns) as f64 / 1e9;
            (seconds, sample.rss_bytes, sample.anon_bytes)
        })
        .collect();
    Some(RssJoin {
        pid: process.pid,
        name: process.name.clone(),
        passes,
        peak,
        anon_peak,
        line,
    })
}

/// The series of the native compiler process, found by its executable; in
/// a recording without one (another program), the series' largest. `None`
/// when the compiler has no series (a compile that failed at once): a
/// shell or the launcher is not the compiler, even when the sampler saw
/// nothing else.
pub(crate) fn compiler_series<'a>(
    profile: &Profile,
    series: &'a RssSeries,
) -> Option<&'a RssProcess> {
    let compiler_pids: Vec<i32> = profile
        .processes
        .images
        .iter()
        .filter(|image| is_compiler(image))
        .map(|image| image.pid)
        .collect();
    if compiler_pids.is_empty() {
        return series.largest();
    }
    series
        .processes
        .iter()
        .filter(|process| compiler_pids.contains(&process.pid))
        .max_by_key(|process| process.peak(Resident::All).map_or(0, |peak| peak.rss_bytes))
}

/// Each pass's RSS figures over its spans, the spans of all threads merged
/// where they overlap.
fn pass_rss(process: &RssProcess, spans: &[PassSpan]) -> HashMap<PassId, PassRss> {
    let mut intervals: HashMap<PassId, Vec<(u64, u64)>> = HashMap::new();
    for span in spans {
        intervals
            .entry(span.pass)
            .or_default()
            .push((span.start, span.end));
    }
    intervals
        .into_iter()
        .filter_map(|(pass, mut intervals)| {
            intervals.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::new();
            for (start, end) in intervals {
                match merged.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ => merged.push((start, end)),
                }
            }
            let start_bytes = process.bytes_at(Resident::All, merged.first()?.0)?;
            let growth = |kind: Resident| -> Option<i64> {
                merged.iter().try_fold(0i64, |sum, &(start, end)| {
                    let before = process.bytes_at(kind, start)?;
                    let after = process.bytes_at(kind, end)?;
                    Some(sum + after as i64 - before as i64)
                })
            };
            let most = |kind: Resident| -> Option<u64> {
                merged.iter().try_fold(0u64, |most, &(start, end)| {
                    Some(most.max(process.max_between(kind, start, end)?))
                })
            };
            Some((
                pass,
                PassRss {
                    start_bytes,
                    growth_bytes: growth(Resident::All)?,
                    anon_growth_bytes: growth(Resident::Anonymous)?,
                    file_growth_bytes: growth(Resident::Files)?,
                    max_bytes: most(Resident::All)?,
                    anon_max_bytes: most(Resident::Anonymous)?,
                },
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::ThreadId;
    use crate::rss::RssSample;

    fn span(thread: usize, pass: usize, depth: usize, start: u64, end: u64) -> PassSpan {
        PassSpan {
            thread: ThreadId::new(thread),
            pass: PassId::new(pass),
            depth,
            start,
            end,
            samples: 1,
        }
    }

    #[test]
    fn a_pass_is_charged_the_growth_over_its_merged_spans() {
        // Anonymous memory is all of it but 100 bytes of the library.
        let rss = |time_ns, rss_bytes| RssSample {
            time_ns,
            rss_bytes,
            anon_bytes: rss_bytes - 100,
            file_bytes: 100,
        };
        let process = RssProcess {
            pid: 1,
            samples: vec![
                rss(0, 100),
                rss(10, 150),
                rss(20, 400),
                rss(30, 300),
                rss(40, 320),
                rss(50, 200),
            ],
            ..RssProcess::default()
        };
        let figures = pass_rss(
            &process,
            &[
                // Pass 0 on two threads at once, 5–25 and 12–32: one
                // interval, 5–32, from 100 to 300, through 400.
                span(0, 0, 0, 5, 25),
                span(1, 0, 0, 12, 32),
                // And again later, 41–55: from 320 to 200.
                span(0, 0, 0, 41, 55),
                // Pass 1 inside a stretch without a sample: no growth.
                span(0, 1, 1, 21, 24),
            ],
        );
        assert_eq!(
            figures[&PassId::new(0)],
            PassRss {
                start_bytes: 100,
                growth_bytes: 200 - 120,
                anon_growth_bytes: 200 - 120,
                file_growth_bytes: 0,
                max_bytes: 400,
                anon_max_bytes: 300,
            }
        );
        assert_eq!(
            figures[&PassId::new(1)],
            PassRss {
                start_bytes: 400,
                growth_bytes: 0,
                anon_growth_bytes: 0,
                file_growth_bytes: 0,
                max_bytes: 400,
                anon_max_bytes: 300,
            }
        );
    }
}
