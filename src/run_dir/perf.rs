//! How perf was run, as `run.json`'s `perf` says: the streams, the ring
//! buffer and the data rate chosen for the budget, each with its reason.
//! The choices are made by `recorder/sizing.rs`; these are their records.

use serde::{Deserialize, Serialize};

use super::exit::CommandExit;

/// How perf was run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PerfRun {
    pub version: String,
    pub command: Vec<String>,
    pub event: String,
    /// Why this event: given with --event, or what the detection found.
    pub event_reason: String,
    pub exit: CommandExit,
    /// One stream or one per CPU (`--threads`), and why.
    pub streams: StreamChoice,
    /// perf's `-m`, and why.
    pub ring_buffer: RingBuffer,
    /// The frequency and stack size for the data budget, the rate expected
    /// and the rate perf wrote.
    pub data_rate: RatePlan,
    /// The bytes of perf.data (the file, or the directory's files) as
    /// written, after zstd.
    pub written_bytes: u64,
}

/// How perf writes the recording (`record --streams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Streams {
    /// One writer thread and one zstd stream: perf.data is a file.
    One,
    /// perf's `--threads`: one writer and one zstd stream per CPU, into the
    /// directory perf.data/ (`data`, `data.0`, `data.1`, …).
    PerCpu,
}

/// The streams chosen (`perf.streams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct StreamChoice {
    /// How perf writes the recording.
    pub choice: Streams,
    /// Why, in a sentence.
    pub reason: String,
}

/// The ring buffer chosen (`perf.ring_buffer`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RingBuffer {
    /// The data bytes per CPU; `None` when the user's `-m` decides.
    pub bytes_per_cpu: Option<u64>,
    /// perf's `-m`: data pages per CPU, a power of two; `None` as above.
    pub pages: Option<u64>,
    /// Why, in a sentence.
    pub reason: String,
}

/// The frequency and stack size chosen for the budget, and why
/// (`perf.data_rate`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RatePlan {
    /// perf's `-F`.
    pub frequency_hz: u32,
    /// The stack copy per sample with `--call-graph dwarf`.
    pub stack_size_bytes: u32,
    /// The bytes one sample is expected to take in the raw stream.
    pub bytes_per_sample: u64,
    /// The cores counted as busy.
    pub cores: u32,
    /// The budget, in bytes per second across all cores.
    pub budget_bytes_per_s: u64,
    /// frequency × bytes per sample × cores.
    pub expected_bytes_per_s: u64,
    /// The raw bytes perf says it wrote (before zstd); `None` until it has
    /// run, or when it did not say.
    pub measured_raw_bytes: Option<u64>,
    /// Those bytes over the compile's wall time.
    pub measured_bytes_per_s: Option<u64>,
    /// The choice made, in a sentence.
    pub choice: String,
}
