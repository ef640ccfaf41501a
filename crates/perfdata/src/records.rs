//! What a recording holds, as the rest of the pipeline sees it: where it
//! comes from ([`Input`]), what its header says ([`RecordingInfo`]), the few
//! plain [`Record`]s it yields, and how it ended ([`InputEnd`]).

use std::path::{Path, PathBuf};

use linux_perf_data::linux_perf_event_reader::RawDataU64;

/// The recording's name in a run directory of `record`.
pub const RUN_RECORDING: &str = "perf.data";

/// Where the recording comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A path to a file-mode or pipe-mode perf.data.
    Path(PathBuf),
    /// Standard input, which must carry a pipe-mode stream (`perf record -o -`).
    Stdin,
}

impl Input {
    /// `-` means standard input; a run directory of `record` means its
    /// `perf.data`; anything else is a path.
    pub fn from_arg(arg: &Path) -> Self {
        if arg == Path::new("-") {
            return Input::Stdin;
        }
        let in_run_directory = arg.join(RUN_RECORDING);
        if arg.is_dir() && in_run_directory.exists() {
            Input::Path(in_run_directory)
        } else {
            Input::Path(arg.to_owned())
        }
    }

    /// The name used in messages.
    pub fn display_name(&self) -> String {
        match self {
            Input::Path(path) => path.display().to_string(),
            Input::Stdin => "<stdin>".to_owned(),
        }
    }
}

/// One event (`-e`) the recording holds.
#[derive(Clone, Debug)]
pub struct EventInfo {
    /// perf's name for it, such as `cpu-clock` or `page-faults`.
    pub name: String,
    /// False for counting-only and perf's bookkeeping `dummy` events.
    pub is_sampling: bool,
    /// Samples per second per busy thread, when sampled by frequency (`-F`).
    pub frequency: Option<u64>,
    /// Events per sample, when sampled by a fixed period (`-c`, `/period=N/`).
    pub period: Option<u64>,
    /// True when its timestamps are `CLOCK_MONOTONIC` (`perf record -k
    /// CLOCK_MONOTONIC`), the clock of a run's `memory.json`.
    pub monotonic_clock: bool,
}

impl EventInfo {
    /// The name without modifiers and terms: `page-faults` for
    /// `page-faults/period=64/`, `cpu-clock` for `cpu-clock:u`.
    pub fn base_name(&self) -> &str {
        self.name.split(['/', ':']).next().unwrap_or(&self.name)
    }
}

/// A build id the recording's header states for a file.
#[derive(Clone, Debug)]
pub struct HeaderBuildId {
    /// The path as perf recorded it, or `[kernel.kallsyms]`.
    pub path: String,
    /// The build id bytes.
    pub build_id: Vec<u8>,
}

/// What the header says about the recording.
#[derive(Clone, Debug, Default)]
pub struct RecordingInfo {
    /// The events, in file order; samples name them by index.
    pub events: Vec<EventInfo>,
    /// The `perf record` command line.
    pub perf_command: Option<Vec<String>>,
    /// The kernel release of the recording machine.
    pub os_release: Option<String>,
    /// The CPUs online on the recording machine.
    pub cpus_online: Option<u32>,
    /// Build ids of the files that samples hit.
    pub build_ids: Vec<HeaderBuildId>,
}

/// The user-space registers the unwinder starts from.
#[derive(Clone, Copy, Debug)]
pub struct UserRegs {
    /// The instruction pointer.
    pub ip: u64,
    /// The stack pointer.
    pub sp: u64,
    /// The frame pointer.
    pub bp: u64,
}

/// The mode a sample was taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleMode {
    /// In the kernel.
    Kernel,
    /// In user space.
    User,
    /// Guest, hypervisor or unknown modes.
    Other,
}

/// A sample, borrowing its stack data from the reader.
pub struct Sample<'a> {
    /// The event it samples: an index into [`RecordingInfo::events`].
    pub event_index: usize,
    /// The process.
    pub pid: i32,
    /// The thread.
    pub tid: i32,
    /// perf's timestamp, in nanoseconds.
    pub time: u64,
    /// The sampled instruction.
    pub ip: u64,
    /// Kernel or user space.
    pub mode: SampleMode,
    /// The kernel's callchain (kernel frames, and user frames for `-g`).
    pub callchain: Option<RawDataU64<'a>>,
    /// The user-space registers, with DWARF stacks.
    pub user_regs: Option<UserRegs>,
    /// The copied user stack, starting at `user_regs.sp`.
    pub user_stack: &'a [u8],
    /// The events this sample stands for, when the event records it (in
    /// frequency mode it does: nanoseconds for `cpu-clock`).
    pub period: Option<u64>,
    /// The event's raw payload (`PERF_SAMPLE_RAW`: a tracepoint's or uprobe's
    /// fields), empty when the event has none.
    pub raw: &'a [u8],
}

impl Sample<'_> {
    /// The arguments a uprobe fetched as `u64` (`perf probe … size=%di:u64`),
    /// in the order the probe names them: the raw payload after the common
    /// tracepoint fields (8 bytes) and the probe's address (8 bytes). The
    /// kernel pads the payload by fewer than 8 bytes, so whole `u64`s are the
    /// arguments.
    pub fn probe_args(&self) -> impl Iterator<Item = u64> + '_ {
        self.raw
            .get(PROBE_ARGS_OFFSET..)
            .unwrap_or_default()
            .chunks_exact(8)
            .map(|chunk| u64::from_le_bytes(chunk.try_into().unwrap_or_default()))
    }
}

/// Where a uprobe's fetched arguments start in its raw payload:
/// `common_type`, `common_flags`, `common_preempt_count`, `common_pid`
/// (8 bytes), then `__probe_ip` (8 bytes), as its `format` file says.
const PROBE_ARGS_OFFSET: usize = 16;

/// A new memory mapping of code.
pub struct Mapping<'a> {
    /// The process mapping it (-1 for the kernel).
    pub pid: i32,
    /// The first address mapped.
    pub start: u64,
    /// Bytes mapped.
    pub len: u64,
    /// Where in the file the mapping starts (for the kernel image: the
    /// address of its text).
    pub file_offset: u64,
    /// The file's path, as perf recorded it.
    pub path: &'a [u8],
    /// The file's build id, when the record carries one (`--buildid-mmap`).
    pub build_id: Option<Vec<u8>>,
    /// The kernel image or a kernel module (pid -1 in perf's records).
    pub is_kernel: bool,
}

/// The records the pipeline acts on, in time order.
pub enum Record<'a> {
    /// A sample of one of the recording's events.
    Sample(Sample<'a>),
    /// A thread got a name: at exec (`is_exec`) or through `prctl`.
    Comm {
        /// The process.
        pid: i32,
        /// The thread.
        tid: i32,
        /// The new name.
        name: &'a [u8],
        /// True when an exec gave the name.
        is_exec: bool,
    },
    /// A new process or thread.
    Fork {
        /// The new thread's process.
        pid: i32,
        /// The process it was forked from.
        ppid: i32,
        /// The new thread.
        tid: i32,
        /// The thread that forked it.
        parent_tid: i32,
    },
    /// Code was mapped.
    Mmap(Mapping<'a>),
    /// The kernel dropped `count` records because perf could not keep up
    /// (`PERF_RECORD_LOST`: the ring buffer was full; most of them samples).
    Lost {
        /// Records dropped.
        count: u64,
        /// When the kernel wrote this record (ns, the samples' clock), when
        /// the event has `sample_id_all`.
        time: Option<u64>,
        /// The CPU whose ring buffer overflowed, when the event samples it.
        cpu: Option<u32>,
    },
    /// Samples of one event were lost (`PERF_RECORD_LOST_SAMPLES`). perf 6
    /// writes one per CPU at the end, from the kernel's count of the same
    /// drops its [`Record::Lost`] records report, without a time or a CPU.
    LostSamples {
        /// Samples lost.
        count: u64,
        /// When the kernel wrote this record (ns), if it says.
        time: Option<u64>,
        /// The CPU, when the record has a time and the event samples it.
        cpu: Option<u32>,
    },
}

/// How the recording ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputEnd {
    /// Read to the end perf wrote.
    Complete,
    /// A pipe stream that stopped early.
    CutShort {
        /// The bytes the stream had.
        bytes: u64,
        /// Where it stopped.
        reason: &'static str,
    },
    /// The records are damaged from some point on; the reason says where.
    /// The records before it were read.
    Corrupt {
        /// What is damaged, and where.
        reason: String,
    },
    /// An unfinished recording read with `--salvage`; the reason says what
    /// is missing and how far it was read.
    Salvaged {
        /// What is missing, and how far the file was read.
        reason: String,
    },
    /// Every record was read but the last, which perf did not finish
    /// writing: the last of some streams of a `--threads` directory, or
    /// the last of a file whose zstd data perf 6.1 did not write to its end
    /// (`perf report` skips them too): a warning, not an error.
    Unfinished {
        /// Which streams, and where they end.
        reason: String,
    },
}
