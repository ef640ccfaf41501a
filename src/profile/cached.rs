//! A recording's reading kept in the cache: what [`super::load`] made of
//! its records (processes, threads, binaries, unwound stacks, samples),
//! turned into a [`RecordingEntry`] and back, so that another report of the
//! same recording skips decompressing and unwinding it.

use std::path::Path;

use crate::binary::{DsoId, Store};
use crate::cache::{
    Cache, CachedDso, CachedLoss, CachedProcess, CachedSample, CachedThread, Identity, Kind,
    RecordingEntry,
};
use crate::process::{ProcessId, ProcessImage, Processes, ThreadId, ThreadSlot};
use crate::stacks::{FrameId, SampleKey, StackId, StackNode, StackTable, TimedSample};
use crate::unwind::{FrameKey, StackUse, Walk};

use super::{IngestCounts, Loss, Losses};

/// The first binary of the store that comes from a mapping; the ones
/// before it (kernel, vdso, unknown) every store has.
const FIRST_MAPPED_DSO: usize = 3;

/// Where the entry of a recording file is, and what the file is now.
pub(super) struct RecordingKey {
    pub name: String,
    pub identity: Identity,
}

impl RecordingKey {
    /// The key of counting event `event_index` of the file at `path`;
    /// `None` when the cache is off, or `path` is not a regular file that
    /// can be read.
    pub(super) fn of(
        cache: &Cache,
        path: &Path,
        event_index: usize,
        salvage: bool,
    ) -> Option<RecordingKey> {
        cache.root()?;
        // A FIFO or a device is read once; opening it again would block or
        // take what the reader has not read yet.
        if !std::fs::metadata(path).is_ok_and(|meta| meta.is_file() || meta.is_dir()) {
            return None;
        }
        let identity = Identity::of_recording(path).ok()?;
        let absolute = std::fs::canonicalize(path).ok()?;
        let mut hash = xxhash_rust::xxh3::Xxh3::new();
        hash.update(absolute.as_os_str().as_encoded_bytes());
        hash.update(&(event_index as u64).to_le_bytes());
        hash.update(&[u8::from(salvage)]);
        Some(RecordingKey {
            name: format!("{:016x}", hash.digest()),
            identity,
        })
    }
}

/// What a load made, in the form the cache keeps.
pub(super) struct Parts<'a> {
    pub event_index: usize,
    pub store: &'a Store,
    pub kernel_text_address: Option<u64>,
    pub kernel_build_id: Option<&'a [u8]>,
    pub processes: &'a Processes,
    pub stacks: &'a StackTable,
    pub counts: &'a IngestCounts,
    /// Why some streams' last records were not read, if they were not.
    pub unfinished: Option<&'a str>,
}

/// The entry for `parts` of the recording with `identity`.
pub(super) fn to_entry(identity: Identity, parts: &Parts<'_>) -> RecordingEntry {
    let dsos = parts
        .store
        .iter()
        .skip(FIRST_MAPPED_DSO)
        .map(|(_, dso)| CachedDso {
            path: dso.recorded_path.clone(),
            mmap_build_id: dso.mmap_build_id.clone(),
            found: dso.image.as_ref().map(|image| image.build_id.clone()),
        })
        .collect();
    let processes = parts
        .processes
        .images
        .iter()
        .map(|image| CachedProcess {
            pid: image.pid,
            parent_pid: image.parent_pid,
            name: image.name.clone(),
            executable: image.executable.clone(),
            began_with_exec: image.began_with_exec,
            maps_compiler_library: image.maps_compiler_library,
        })
        .collect();
    let threads = parts
        .processes
        .threads
        .iter()
        .map(|thread| CachedThread {
            process: thread.process.index() as u32,
            tid: thread.tid,
            name: thread.name.clone(),
        })
        .collect();
    let stack_number = |stack: Option<StackId>| stack.map_or(0, |id| id.index() as u32 + 1);
    RecordingEntry {
        identity,
        event_index: parts.event_index as u32,
        dsos,
        kernel_text_address: parts.kernel_text_address,
        kernel_build_id: parts.kernel_build_id.map(<[u8]>::to_vec),
        processes,
        threads,
        frames: (parts.stacks.frames.iter())
            .map(|frame| (frame.dso.index() as u32, frame.lookup))
            .collect(),
        nodes: (parts.stacks.nodes.iter())
            .map(|node| (stack_number(node.parent), node.frame.index() as u32))
            .collect(),
        samples: (parts.stacks.timeline.iter())
            .map(|sample| CachedSample {
                time: sample.time,
                thread: sample.key.thread.index() as u32,
                stack: stack_number(sample.key.stack),
                complete: sample.key.walk == Walk::Complete,
            })
            .collect(),
        other_event_samples: parts.counts.other_event_samples,
        lost: (parts.counts.lost.records.iter())
            .map(|loss| CachedLoss {
                time: loss.time,
                cpu: loss.cpu,
                count: loss.count,
            })
            .collect(),
        lost_samples_reported: parts.counts.lost.samples_reported,
        period_total: parts.counts.period_total,
        unfinished: parts.unfinished.map(str::to_owned),
    }
}

/// What an entry gives back.
pub(super) struct Restored {
    pub processes: Processes,
    pub stacks: StackTable,
    pub counts: IngestCounts,
    pub kernel_text_address: Option<u64>,
    pub kernel_build_id: Option<Vec<u8>>,
    /// How much of the stack copies whole stacks read: known when the
    /// recording was unwound, not when it came from the cache.
    pub stack_use: Option<StackUse>,
    /// Why some streams' last records were not read, if they were not.
    pub unfinished: Option<String>,
}

/// The reading kept in `entry`, with its binaries found again in `store`
/// (which must be new); `Err` says why the entry no longer holds: a binary
/// is now found where it was not, or not where it was, or is another build.
pub(super) fn restore(entry: RecordingEntry, store: &mut Store) -> Result<Restored, String> {
    for (at, cached) in entry.dsos.iter().enumerate() {
        let id = store.intern_mapping(&cached.path, cached.mmap_build_id.as_deref());
        let dso = store.get(id);
        let found = dso.image.as_ref().map(|image| image.build_id.clone());
        if id != DsoId::new(FIRST_MAPPED_DSO + at) || found != cached.found {
            return Err(format!("{} is not found as it was then", cached.path));
        }
    }
    let dso_count = FIRST_MAPPED_DSO + entry.dsos.len();
    let damaged = || "its stacks do not fit together".to_owned();
    let frames = (entry.frames.iter())
        .map(|&(dso, lookup)| {
            ((dso as usize) < dso_count).then(|| FrameKey {
                dso: DsoId::new(dso as usize),
                lookup,
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(damaged)?;
    let stack = |number: u32, below: usize| -> Result<Option<StackId>, String> {
        match number {
            0 => Ok(None),
            n if (n as usize) <= below => Ok(Some(StackId::new(n as usize - 1))),
            _ => Err(damaged()),
        }
    };
    let mut nodes = Vec::with_capacity(entry.nodes.len());
    for (at, &(parent, frame)) in entry.nodes.iter().enumerate() {
        if frame as usize >= frames.len() {
            return Err(damaged());
        }
        nodes.push(StackNode {
            parent: stack(parent, at)?,
            frame: FrameId::new(frame as usize),
        });
    }
    let images: Vec<ProcessImage> = (entry.processes.into_iter())
        .map(|process| ProcessImage {
            pid: process.pid,
            parent_pid: process.parent_pid,
            name: process.name,
            executable: process.executable,
            began_with_exec: process.began_with_exec,
            maps_compiler_library: process.maps_compiler_library,
            compiler: false,
        })
        .collect();
    let threads = (entry.threads.into_iter())
        .map(|thread| {
            ((thread.process as usize) < images.len()).then(|| ThreadSlot {
                process: ProcessId::new(thread.process as usize),
                tid: thread.tid,
                name: thread.name,
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(damaged)?;
    let mut timeline = Vec::with_capacity(entry.samples.len());
    for sample in &entry.samples {
        if sample.thread as usize >= threads.len() {
            return Err(damaged());
        }
        timeline.push(TimedSample {
            time: sample.time,
            key: SampleKey {
                thread: ThreadId::new(sample.thread as usize),
                stack: stack(sample.stack, nodes.len())?,
                walk: if sample.complete {
                    Walk::Complete
                } else {
                    Walk::Stopped
                },
            },
        });
    }
    let counts = IngestCounts {
        samples: timeline.len() as u64,
        other_event_samples: entry.other_event_samples,
        lost: Losses {
            records: (entry.lost.iter())
                .map(|loss| Loss {
                    time: loss.time,
                    cpu: loss.cpu,
                    count: loss.count,
                })
                .collect(),
            samples_reported: entry.lost_samples_reported,
        },
        period_total: entry.period_total,
        first_time: timeline.first().map(|sample| sample.time),
        last_time: timeline.last().map(|sample| sample.time),
    };
    Ok(Restored {
        processes: Processes::from_parts(images, threads),
        stacks: StackTable::from_parts(frames, nodes, timeline),
        counts,
        kernel_text_address: entry.kernel_text_address,
        kernel_build_id: entry.kernel_build_id,
        stack_use: None,
        unfinished: entry.unfinished,
    })
}

/// Reads the entry under `key`, if it is of this recording as it is now.
pub(super) fn read(
    cache: &Cache,
    key: &RecordingKey,
    event_index: usize,
) -> Option<RecordingEntry> {
    let entry: RecordingEntry = cache.read(Kind::Recording, &key.name)?;
    if entry.identity != key.identity || entry.event_index as usize != event_index {
        cache.note_stale(
            Kind::Recording,
            &key.name,
            "the recording changed since it was cached",
        );
        return None;
    }
    Some(entry)
}
