//! The entry of one recording: its identity, and what reading it produced
//! (processes, threads, binaries, interned frames and stacks, every sample
//! in time order, the counts), in plain numbers and strings.

use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

/// What says a file is still the recording that was cached: its size, its
/// modification time, and a hash of its first and last 64 KiB and of 4 KiB
/// at 64 places between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Identity {
    pub size: u64,
    pub mtime_ns: i128,
    pub sampled_hash: u64,
}

/// Bytes hashed at each end of the file.
const END_BYTES: u64 = 64 << 10;
/// Bytes hashed at each of [`PROBES`] places between.
const PROBE_BYTES: u64 = 4 << 10;
const PROBES: u64 = 64;

impl Identity {
    /// The identity of the recording at `path` now: a file's, or for
    /// perf's directory format (`perf record --threads`) one made of the
    /// identities of every file in the directory, by name.
    pub(crate) fn of_recording(path: &Path) -> std::io::Result<Identity> {
        if !path.is_dir() {
            return Identity::of_file(path);
        }
        let mut files: Vec<_> = std::fs::read_dir(path)?
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
            .map(|entry| entry.path())
            .collect();
        files.sort();
        let mut hash = Xxh3::new();
        let mut whole = Identity {
            size: 0,
            mtime_ns: 0,
            sampled_hash: 0,
        };
        for file in &files {
            let identity = Identity::of_file(file)?;
            hash.update(file.file_name().unwrap_or_default().as_encoded_bytes());
            hash.update(&identity.size.to_le_bytes());
            hash.update(&identity.sampled_hash.to_le_bytes());
            whole.size += identity.size;
            whole.mtime_ns = whole.mtime_ns.max(identity.mtime_ns);
        }
        whole.sampled_hash = hash.digest();
        Ok(whole)
    }

    /// The identity of the file at `path` now.
    fn of_file(path: &Path) -> std::io::Result<Identity> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        let size = meta.len();
        let mut hash = Xxh3::new();
        let mut buffer = vec![0; END_BYTES as usize];
        let mut take = |offset: u64, len: u64| -> std::io::Result<()> {
            let len = len.min(size.saturating_sub(offset)) as usize;
            file.read_exact_at(&mut buffer[..len], offset)?;
            hash.update(&offset.to_le_bytes());
            hash.update(&buffer[..len]);
            Ok(())
        };
        take(0, END_BYTES)?;
        for probe in 1..=PROBES {
            take(size / (PROBES + 1) * probe, PROBE_BYTES)?;
        }
        take(size.saturating_sub(END_BYTES), END_BYTES)?;
        Ok(Identity {
            size,
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            sampled_hash: hash.digest(),
        })
    }
}

/// A binary as the recording named it and as it was found then: the
/// stacks hold for another run only if it is found the same way again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CachedDso {
    pub path: String,
    pub mmap_build_id: Option<Vec<u8>>,
    /// `None` when no matching file was found; else the found file's build id.
    pub found: Option<Option<Vec<u8>>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CachedProcess {
    pub pid: i32,
    pub parent_pid: Option<i32>,
    pub name: String,
    pub executable: Option<String>,
    pub began_with_exec: bool,
    pub maps_compiler_library: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CachedThread {
    pub process: u32,
    pub tid: i32,
    pub name: String,
}

/// One sample: when, which thread, which stack (`0` for none, else the
/// node's index + 1), and whether the unwinder reached the root.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct CachedSample {
    pub time: u64,
    pub thread: u32,
    pub stack: u32,
    pub complete: bool,
}

/// Everything a report needs from reading a recording, before symbols.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct RecordingEntry {
    pub identity: Identity,
    /// The index of the event counted.
    pub event_index: u32,
    /// The binaries in the order they were first mapped.
    pub dsos: Vec<CachedDso>,
    /// The kernel text address the recording states.
    pub kernel_text_address: Option<u64>,
    /// The kernel's build id, as the header or its mapping record states it.
    pub kernel_build_id: Option<Vec<u8>>,
    pub processes: Vec<CachedProcess>,
    pub threads: Vec<CachedThread>,
    /// Unique frames: binary index and lookup address.
    pub frames: Vec<(u32, u64)>,
    /// Stack nodes: parent (`0` for a root, else index + 1) and frame.
    pub nodes: Vec<(u32, u32)>,
    pub samples: Vec<CachedSample>,
    pub other_event_samples: u64,
    /// One entry per `PERF_RECORD_LOST`, in the recording's order.
    pub lost: Vec<CachedLoss>,
    /// The counts of the `PERF_RECORD_LOST_SAMPLES` records, summed.
    pub lost_samples_reported: u64,
    pub period_total: u64,
    /// Why the last records of some streams were not read, when perf did
    /// not finish writing them (the warning a warm read repeats).
    pub unfinished: Option<String>,
}

/// Records the kernel dropped: when (ns) and on which CPU, when the
/// recording says, and how many.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct CachedLoss {
    pub time: Option<u64>,
    pub cpu: Option<u32>,
    pub count: u64,
}
