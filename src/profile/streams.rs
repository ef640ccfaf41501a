//! Reading a recording of many streams (perf's `--threads` directory) in
//! two passes, each stream on its own and `jobs` at once: first the
//! side-band records of every stream (mappings, forks, execs, names), the
//! process model in time order; then each stream's samples unwound against
//! that model as it was at each sample's time, into a small prefix tree of
//! the stream's stacks. Only those trees and the samples' keys are merged,
//! in the time order of [`StreamKey`]s, into the stack table: the same
//! table, and so the same output, for every number of jobs; and what is
//! held at once grows with the jobs, not with the streams.

use hashbrown::HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::read::{
    Read, Reading, keep_and_finish, mapped_code, recorded_kernel, recording_file_name,
    start_kernel_symbols,
};
use super::side_band::{Comm, Fork, SideBand, side_band_of, without_repeats};
use super::{IngestCounts, Profile, cached};
use crate::binary::Store;
use crate::error::Error;
use crate::process::{MappedCode, Processes};
use crate::progress::ReadingBar;
use crate::stacks::{StackId, StackTable};
use crate::symbolize::NamedAhead;
use crate::unwind::{FrameKey, StackUse, Unwinders, Walk};
use perfdata::{EachStream, Input, Record, Recording, StreamKey};

/// What the process model takes, in time order: a side-band record with
/// its mapping's binary found.
enum ProcessEvent {
    Comm(Comm),
    Fork(Fork),
    Mmap {
        pid: i32,
        code: MappedCode,
        path: String,
    },
}

impl ProcessEvent {
    /// Plays the event into `processes`, and into `unwinders` when given.
    fn apply(&self, processes: &mut Processes, unwinders: Option<&mut Unwinders>, store: &Store) {
        match self {
            ProcessEvent::Comm(Comm {
                pid,
                tid,
                name,
                is_exec,
            }) => {
                if let (true, Some(unwinders)) = (*is_exec, unwinders) {
                    unwinders.on_exec(*pid);
                }
                processes.on_comm(*pid, *tid, name, *is_exec);
            }
            &ProcessEvent::Fork(Fork {
                pid,
                ppid,
                tid,
                parent_tid,
            }) => {
                processes.on_fork(pid, ppid, tid, parent_tid);
                if let (true, Some(unwinders)) = (pid == tid, unwinders) {
                    unwinders.on_fork(pid, ppid);
                }
            }
            ProcessEvent::Mmap { pid, code, path } => {
                processes.on_mmap(*pid, *code, path);
                if let (Some(image), Some(unwinders)) = (&store.get(code.dso).image, unwinders) {
                    unwinders.on_mmap(*pid, code, image);
                }
            }
        }
    }
}

/// One sample of a stream, unwound: its stack is a node of the stream's tree.
struct Unwound {
    key: StreamKey,
    time: u64,
    pid: i32,
    tid: i32,
    /// The stack's node in the stream's tree, plus one; 0 for no frames.
    node: u32,
    walk: Walk,
    weight: u64,
}

/// A stream's samples unwound: the prefix tree of its stacks (each node
/// its parent plus one, 0 for a root, and its frame) and the samples.
struct StreamStacks {
    nodes: Vec<(u32, FrameKey)>,
    samples: Vec<Unwound>,
    /// The samples' periods added up.
    period_total: u64,
    other_event_samples: u64,
    stack_use: StackUse,
    kernel_seen: bool,
}

/// A stream being unwound: the process model replayed up to its next
/// sample, and the stacks so far.
struct Unwinding<'a> {
    events: &'a [(StreamKey, ProcessEvent)],
    played: usize,
    processes: Processes,
    unwinders: Unwinders,
    frames: Vec<FrameKey>,
    node_ids: HashMap<(u32, FrameKey), u32>,
    stacks: StreamStacks,
}

/// Reads the many streams of `recording` (opened from `input`) in two
/// passes, `jobs` at once, and symbolizes the result into a [`Profile`];
/// stores it under `key` when it was read to its end.
pub(super) fn read_streams(
    input: &Input,
    mut recording: Recording,
    reading: Reading<'_>,
    mut store: Store,
    key: Option<cached::RecordingKey>,
    jobs: usize,
) -> Result<Profile, Error> {
    let options = reading.options;
    let (bytes_read, bytes_to_read) = recording.progress();
    let reading_bar = ReadingBar::start(
        options.progress,
        recording_file_name(&reading.input_name),
        bytes_read.clone(),
        bytes_to_read.map(|bytes| 2 * bytes),
    );
    let side_band = EachStream {
        start: |_| Vec::new(),
        visit: |kept: &mut Vec<(StreamKey, SideBand)>, key: StreamKey, record: Record<'_>| {
            if let Some(side_band) = side_band_of(record) {
                kept.push((key, side_band));
            }
        },
        finish: |kept| kept,
    };
    let (side_bands, _) = recording.for_each_stream(jobs, &side_band);
    let mut side_bands: Vec<(StreamKey, SideBand)> = side_bands.into_iter().flatten().collect();
    side_bands.sort_unstable_by_key(|(key, _)| *key);

    let mut counts = IngestCounts::default();
    let mut kernel = recorded_kernel(&reading, &recording.info, None, None);
    let events = process_events(side_bands, &mut store, &mut kernel, &mut counts);

    // The second pass reads the streams again, from a recording opened anew.
    let mut again = Recording::open(input, options.salvage)?;
    again.count_progress_in(&bytes_read);
    let alloc_periods = super::read::alloc_periods(&reading, &recording.info);
    let unwinding = EachStream {
        start: |_| Unwinding::new(&events),
        visit: |unwinding: &mut Unwinding<'_>, key: StreamKey, record: Record<'_>| {
            if let Record::Sample(sample) = record {
                let weight = match alloc_periods.get(sample.event_index) {
                    Some(Some(period)) => crate::alloc::requested_bytes(&sample, *period),
                    _ if sample.event_index == reading.event_index => 1,
                    _ => {
                        unwinding.stacks.other_event_samples += 1;
                        return;
                    }
                };
                unwinding.unwind(key, &sample, weight, &store);
            }
        },
        finish: Unwinding::finish,
    };
    let (streams, input_end) = again.for_each_stream(jobs, &unwinding);
    drop(reading_bar);

    let kernel_symbols = streams
        .iter()
        .any(|stream| stream.kernel_seen)
        .then(|| start_kernel_symbols(&kernel, &options.cache))
        .flatten();
    let mut processes = Processes::default();
    let mut stacks = StackTable::default();
    let mut stack_use = StackUse::default();
    for stream in &streams {
        stack_use.add_all(&stream.stack_use);
        counts.other_event_samples += stream.other_event_samples;
        counts.period_total = counts.period_total.saturating_add(stream.period_total);
    }
    merge(
        &streams,
        &events,
        &store,
        &mut processes,
        &mut stacks,
        &mut counts,
    );
    drop(streams);
    let read = Read {
        processes,
        stacks,
        counts,
        kernel,
        stack_use,
        input_end,
    };
    Ok(keep_and_finish(
        reading,
        recording.info,
        store,
        read,
        key,
        kernel_symbols,
        NamedAhead::new(),
    ))
}

/// The process model's events from the side-band records, in time order:
/// mappings' binaries found in `store` (in that order, as one pass would
/// find them), the kernel's text noted in `kernel`, losses counted.
fn process_events(
    side_bands: Vec<(StreamKey, SideBand)>,
    store: &mut Store,
    kernel: &mut crate::symbolize::RecordedKernel,
    counts: &mut IngestCounts,
) -> Vec<(StreamKey, ProcessEvent)> {
    let mut events = Vec::with_capacity(side_bands.len());
    let side_bands = without_repeats(side_bands);
    for (key, side_band) in side_bands {
        let event = match side_band {
            SideBand::Comm(comm) => ProcessEvent::Comm(comm),
            SideBand::Fork(fork) => ProcessEvent::Fork(fork),
            SideBand::Mmap {
                pid,
                start,
                len,
                file_offset,
                path,
                build_id,
                is_kernel,
            } => {
                let mapping = perfdata::Mapping {
                    pid,
                    start,
                    len,
                    file_offset,
                    path: path.as_bytes(),
                    build_id,
                    is_kernel,
                };
                let Some(code) = mapped_code(&mapping, &path, store, kernel) else {
                    continue;
                };
                ProcessEvent::Mmap { pid, code, path }
            }
            SideBand::Lost(loss) => {
                counts.lost.records.push(loss);
                continue;
            }
            SideBand::LostSamples(count) => {
                counts.lost.samples_reported += count;
                continue;
            }
        };
        events.push((key, event));
    }
    events
}

impl<'a> Unwinding<'a> {
    fn new(events: &'a [(StreamKey, ProcessEvent)]) -> Unwinding<'a> {
        Unwinding {
            events,
            played: 0,
            processes: Processes::default(),
            unwinders: Unwinders::default(),
            frames: Vec::with_capacity(256),
            node_ids: HashMap::new(),
            stacks: StreamStacks {
                nodes: Vec::new(),
                samples: Vec::new(),
                period_total: 0,
                other_event_samples: 0,
                stack_use: StackUse::default(),
                kernel_seen: false,
            },
        }
    }

    /// Unwinds the sample at `key` against the process model as it was then.
    fn unwind(
        &mut self,
        key: StreamKey,
        sample: &perfdata::Sample<'_>,
        weight: u64,
        store: &Store,
    ) {
        while let Some((at, event)) = self.events.get(self.played) {
            if *at >= key {
                break;
            }
            event.apply(&mut self.processes, Some(&mut self.unwinders), store);
            self.played += 1;
        }
        let walk = (self.unwinders).unwind(sample, &self.processes, store, &mut self.frames);
        let kernel = store.kernel();
        self.stacks.kernel_seen |= self.frames.iter().any(|frame| frame.dso == kernel);
        let mut node = 0;
        for frame in self.frames.iter().rev() {
            let parent = node;
            let next = self.stacks.nodes.len() as u32 + 1;
            node = *self.node_ids.entry((parent, *frame)).or_insert(next);
            if node == next {
                self.stacks.nodes.push((parent, *frame));
            }
        }
        self.stacks.samples.push(Unwound {
            key,
            time: sample.time,
            pid: sample.pid,
            tid: sample.tid,
            node,
            walk,
            weight,
        });
        self.stacks.period_total =
            (self.stacks.period_total).saturating_add(sample.period.unwrap_or(0));
    }

    /// What is kept of the stream: its tree and samples, in time order.
    fn finish(self) -> StreamStacks {
        let mut stacks = self.stacks;
        stacks.stack_use = self.unwinders.stack_use;
        stacks.samples.sort_unstable_by_key(|sample| sample.key);
        // Held until every stream is read: no room to spare.
        stacks.samples.shrink_to_fit();
        stacks.nodes.shrink_to_fit();
        stacks
    }
}

/// Merges the streams' samples in the order of their keys into `stacks`,
/// with the process model's `events` played into `processes` in between.
fn merge(
    streams: &[StreamStacks],
    events: &[(StreamKey, ProcessEvent)],
    store: &Store,
    processes: &mut Processes,
    stacks: &mut StackTable,
    counts: &mut IngestCounts,
) {
    // Each stream's nodes as stacks of the table, once met.
    let mut in_table: Vec<Vec<Option<StackId>>> = (streams.iter())
        .map(|stream| vec![None; stream.nodes.len()])
        .collect();
    let mut next: Vec<usize> = vec![0; streams.len()];
    let mut order: BinaryHeap<Reverse<(StreamKey, usize)>> = (streams.iter().enumerate())
        .filter_map(|(at, stream)| Some(Reverse((stream.samples.first()?.key, at))))
        .collect();
    let mut played = 0;
    let mut path = Vec::new();
    while let Some(Reverse((key, at))) = order.pop() {
        while let Some((_, event)) = events.get(played).filter(|(at, _)| *at < key) {
            event.apply(processes, None, store);
            played += 1;
        }
        let stream = &streams[at];
        let sample = &stream.samples[next[at]];
        next[at] += 1;
        if let Some(following) = stream.samples.get(next[at]) {
            order.push(Reverse((following.key, at)));
        }
        counts.samples += 1;
        counts.first_time.get_or_insert(sample.time);
        counts.last_time = Some(sample.time);
        let thread = processes.thread_for_sample(sample.pid, sample.tid);
        let stack = table_stack(stream, &mut in_table[at], sample.node, stacks, &mut path);
        stacks.count(sample.time, thread, stack, sample.walk, sample.weight);
    }
    for (_, event) in &events[played..] {
        event.apply(processes, None, store);
    }
}

/// The table's stack for node `node` (plus one; 0 for none) of `stream`'s
/// tree, interned root first, as [`StackTable::add_sample`] interns.
fn table_stack(
    stream: &StreamStacks,
    in_table: &mut [Option<StackId>],
    node: u32,
    stacks: &mut StackTable,
    path: &mut Vec<u32>,
) -> Option<StackId> {
    path.clear();
    let mut at = node;
    let mut known = None;
    while at != 0 {
        if let Some(stack) = in_table[at as usize - 1] {
            known = Some(stack);
            break;
        }
        path.push(at);
        at = stream.nodes[at as usize - 1].0;
    }
    for &at in path.iter().rev() {
        let stack = stacks.intern(known, stream.nodes[at as usize - 1].1);
        in_table[at as usize - 1] = Some(stack);
        known = Some(stack);
    }
    known
}
