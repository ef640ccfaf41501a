//! speedscope's file format (`file-format-schema.json` of the `speedscope`
//! npm package): one sampled profile per thread, its samples in the order
//! they were taken, each weighing the nanoseconds of CPU time one sample
//! stands for (the event's mean period, or one over the frequency), so
//! that speedscope's axis reads in time; when that is not known (or the
//! samples weigh bytes), each weighs 1 and the unit is "none". Frames are
//! functions, inlined ones included; a stack that stops early begins with
//! a `[truncated]` frame.

use std::io::{self, Write};

use hashbrown::HashMap;
use serde::Serialize;

use super::Samples;
use crate::fold::TRUNCATED_FRAME;
use crate::process::ThreadId;
use crate::symbolize::SymbolId;

/// The schema every speedscope file names.
const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

#[derive(Serialize)]
struct File {
    #[serde(rename = "$schema")]
    schema: &'static str,
    name: String,
    exporter: String,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: usize,
    shared: Shared,
    profiles: Vec<SampledProfile>,
}

#[derive(Serialize)]
struct Shared {
    frames: Vec<Frame>,
}

#[derive(Serialize)]
struct Frame {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
}

#[derive(Serialize)]
struct SampledProfile {
    r#type: &'static str,
    name: String,
    unit: &'static str,
    #[serde(rename = "startValue")]
    start_value: u64,
    #[serde(rename = "endValue")]
    end_value: u64,
    /// Each sample's frames, root first, as indexes into `shared.frames`.
    samples: Vec<Vec<usize>>,
    weights: Vec<u64>,
}

/// Writes `samples` as a speedscope file.
pub(crate) fn write(samples: &Samples<'_>, out: &mut dyn Write) -> io::Result<()> {
    let mut frames: Vec<Frame> = Vec::new();
    let mut frame_index: HashMap<Option<SymbolId>, usize> = HashMap::new();
    let mut frame_of = |symbol: Option<SymbolId>| {
        *frame_index.entry(symbol).or_insert_with(|| {
            frames.push(match symbol {
                Some(symbol) => Frame {
                    name: samples.symbol_name(symbol).to_owned(),
                    file: Some(
                        samples
                            .profile
                            .store
                            .get(samples.profile.symbols.get(symbol).dso)
                            .name
                            .clone(),
                    ),
                },
                None => Frame {
                    name: TRUNCATED_FRAME.to_owned(),
                    file: None,
                },
            });
            frames.len() - 1
        })
    };
    // Each distinct stack's frame indexes, made once.
    let stack_frames: Vec<Vec<usize>> = samples
        .stacks
        .iter()
        .map(|stack| {
            let truncated = stack.truncated.then(|| frame_of(None));
            truncated
                .into_iter()
                .chain(
                    samples
                        .symbols_root_first(stack)
                        .into_iter()
                        .map(|symbol| frame_of(Some(symbol))),
                )
                .collect()
        })
        .collect();
    let (unit, weight) = match samples.nanoseconds_per_sample() {
        Some(nanoseconds) if samples.profile.unit == "samples" && nanoseconds >= 1.0 => {
            ("nanoseconds", nanoseconds.round() as u64)
        }
        _ => ("none", 1),
    };
    let mut profiles: Vec<(ThreadId, SampledProfile)> = Vec::new();
    let mut profile_of: HashMap<ThreadId, usize> = HashMap::new();
    for &(_, at) in &samples.timed {
        let thread = samples.stacks[at].key.thread;
        let index = *profile_of.entry(thread).or_insert_with(|| {
            let (process, pid) = samples.process_of(thread);
            let tid = samples.profile.processes.thread(thread).tid;
            profiles.push((
                thread,
                SampledProfile {
                    r#type: "sampled",
                    name: format!("{} ({process} {pid}/{tid})", samples.thread_name(thread)),
                    unit,
                    start_value: 0,
                    end_value: 0,
                    samples: Vec::new(),
                    weights: Vec::new(),
                },
            ));
            profiles.len() - 1
        });
        let profile = &mut profiles[index].1;
        profile.samples.push(stack_frames[at].clone());
        profile.weights.push(weight);
        profile.end_value += weight;
    }
    // The busiest thread first: speedscope opens the active profile.
    profiles.sort_by(|a, b| (b.1.end_value, a.0).cmp(&(a.1.end_value, b.0)));
    let file = File {
        schema: SCHEMA,
        name: samples.profile.profiled_command(),
        exporter: format!("compile-perf {}", env!("CARGO_PKG_VERSION")),
        active_profile_index: 0,
        shared: Shared { frames },
        profiles: profiles.into_iter().map(|(_, profile)| profile).collect(),
    };
    serde_json::to_writer(&mut *out, &file)?;
    writeln!(out)
}
