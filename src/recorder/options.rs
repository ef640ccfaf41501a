//! What `record` is asked to record and how: the command, the run
//! directory, perf's rate, stacks, event and streams, and what is recorded
//! besides CPU time.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::Serialize;

use crate::actions::ActionsMode;
use crate::run_dir::{RatePlan, StreamChoice};

/// How perf collects call stacks (`record --call-graph`). `--help` names
/// the values without the notes below (`help = None`), as the option's own
/// help explains them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CallGraph {
    /// Copy the user stack and unwind it with DWARF CFI (needed for
    /// libIREECompiler, which has no frame pointers).
    #[default]
    #[value(help = None::<&str>)]
    Dwarf,
    /// Frame pointers: cheap, but only the leaf is right in iree-compile.
    #[value(help = None::<&str>)]
    Fp,
}

/// What to record and how. The defaults (in [`crate::defaults`]) make
/// `perf record --compression-level=3 --threads -m PAGES -F 499
/// --call-graph dwarf,65528` on a machine of up to 7 cores.
#[derive(Clone, Debug)]
pub(crate) struct RecordOptions {
    pub command: Vec<OsString>,
    pub output_dir: PathBuf,
    /// Replace an existing output directory. Default is to refuse.
    pub force: bool,
    /// Samples per second and bytes of user stack copied per sample with
    /// DWARF, as the data budget chose them. Default is
    /// [`crate::defaults::FREQUENCY_HZ`] and
    /// [`crate::defaults::STACK_SIZE_BYTES`] where they fit
    /// [`crate::defaults::BUDGET_MB_PER_S`].
    pub rate: RatePlan,
    /// How stacks are collected. Default is [`CallGraph::Dwarf`].
    pub call_graph: CallGraph,
    /// How perf writes the recording. Default is [`Streams::PerCpu`] on
    /// more than one core.
    pub streams: StreamChoice,
    /// The event; default is detected.
    pub event: Option<String>,
    /// More arguments for `perf record`, passed through.
    pub perf_args: Vec<String>,
    /// Also sample page faults, for the memory first touched by category and pass.
    pub page_faults: bool,
    /// Record allocations instead (`--alloc`): every call of the allocator
    /// uprobes asking for at least this many bytes. Default is none: CPU
    /// time.
    pub alloc_min_bytes: Option<u64>,
    /// Also sample the live heap (`--heap`): the heap sampler preloaded
    /// into the compile with this rate (mean bytes between samples).
    /// Default is none.
    pub heap_rate: Option<u64>,
    /// Record the command this many times, into `run-1` … `run-N` of the
    /// output directory. Default is once, into the directory itself.
    pub repeat: Option<u32>,
    /// Add MLIR's timing flags to the iree-compile command and keep its
    /// pass timers as `mlir-timing.json`. Default is off.
    pub mlir_timing: bool,
    /// Turn on iree-compile's action profiler (and with
    /// [`ActionsMode::Units`] its action log, on one thread) and keep what they write as
    /// `actions.bin`. Default is off.
    pub actions: Option<ActionsMode>,
    /// No live status line. Default is one, on a terminal.
    pub quiet: bool,
    /// What the status line starts with, e.g. `run 2/3` in a series.
    /// Default is nothing.
    pub status_label: Option<String>,
    /// Keep a copy of the kernel's symbols in the run directory
    /// (`kallsyms-<build id>`, 5.4 MB here) for the run's reports. On for
    /// `record` and the full compile of `executables`; off for the runs of
    /// each executable, which that command reads itself, with its caches.
    pub kernel_symbols: bool,
    /// Print the module around const-eval's `JitGlobalsPass` (constants
    /// elided) and keep the globals it computed as `consteval.json`, where
    /// the command is iree-compile and writes no MLIR text. On for `record`
    /// (`--no-consteval` turns it off) and the full compile of
    /// `executables`; off for the runs of each executable.
    pub consteval: bool,
}
