//! Builds a [`Profile`] from a recording: streams its records through the
//! process model and the unwinder into the stack table, then symbolizes each
//! unique frame once.

mod cached;
mod heap;
mod heap_view;
mod instrumentation;
mod losses;
mod read;
mod select;
mod side_band;
mod streams;
mod thread_roots;

use std::path::{Path, PathBuf};

use crate::binary::Store;
use crate::cache::{Cache, Kind};
use crate::error::Error;
use crate::process::Processes;
use crate::stacks::{SampleKey, StackId, StackTable};
use crate::symbolize::{NamedAhead, SymbolId, Symbols};
use crate::unwind::StackUse;
use perfdata::{Input, InputEnd, Recording, RecordingInfo};

pub(crate) use heap::{HeapAlloc, HeapEvents};
pub(crate) use heap_view::{HeapInstant, HeapView, InstantKind, apply as apply_heap_view};
pub(crate) use instrumentation::{InstrumentationCost, InstrumentedStacks};
pub(crate) use losses::{Loss, Losses};
use read::{Reading, finish_load, new_store, read_records};
pub(crate) use select::{SampleFilter, is_compiler, is_linker};

/// How a recording is read: where its binaries are, the event counted,
/// the caches; the same for every recording a command reads.
#[derive(Clone, Debug)]
pub(crate) struct ReadOptions {
    /// The event to count; default is the first sampling event.
    pub event: Option<String>,
    /// Extra roots to find moved binaries in (`--symfs`).
    pub symfs: Vec<PathBuf>,
    /// Roots of separate debug files. Default is [`crate::defaults::DEBUG_ROOT`].
    pub debug_roots: Vec<PathBuf>,
    /// Read a recording perf did not finish as far as it goes (`--salvage`).
    /// Default is false: such a recording is refused.
    pub salvage: bool,
    /// The caches to use (`--no-cache`: none).
    pub cache: Cache,
    /// How many threads the reading uses (`--jobs`): streams of a `perf
    /// record --threads` directory read and unwound at once, and rayon's
    /// threads for naming and the rest. Default (`None`) is the cores there are.
    pub jobs: Option<usize>,
    /// Count the bytes asked for at the allocator probes of `record --alloc`
    /// (all of them, each sample weighted by its bytes) instead of samples
    /// of one event. Default is false.
    pub alloc: bool,
    /// Read the heap sampler's markers of `record --heap` (each sampled
    /// allocation weighted by the bytes it stands for, and the frees)
    /// instead of samples of one event. Default is none: samples; with `--heap`, the instant read.
    pub heap: Option<HeapInstant>,
    /// Show how far the reading has gone on stderr, once it takes more
    /// than a second. Default is on a terminal, and not under `-q`.
    pub progress: bool,
    /// Count the samples of the recording's own instrumentation (the action
    /// profiler, the IR printer, the heap sampler…) in the profile, each in
    /// the category `instrumentation` (`--with-instrumentation`). Default is
    /// false: they are set aside and only counted.
    pub with_instrumentation: bool,
}

/// Counts gathered while streaming.
#[derive(Clone, Debug, Default)]
pub(crate) struct IngestCounts {
    /// Samples of the chosen event.
    pub samples: u64,
    /// Samples of other events, skipped.
    pub other_event_samples: u64,
    /// What the kernel reported lost, and when.
    pub lost: Losses,
    /// The sum of the periods of the samples counted (events they stand
    /// for: nanoseconds for `cpu-clock` and `task-clock`); 0 when the
    /// recording has no periods.
    pub period_total: u64,
    /// Timestamps (ns) of the first and the last sample of the chosen event.
    pub first_time: Option<u64>,
    pub last_time: Option<u64>,
}

impl IngestCounts {
    /// Seconds from the first to the last sample.
    pub(crate) fn duration_seconds(&self) -> f64 {
        match (self.first_time, self.last_time) {
            (Some(first), Some(last)) => last.saturating_sub(first) as f64 / 1e9,
            _ => 0.0,
        }
    }
}

/// A loaded, symbolized recording.
pub(crate) struct Profile {
    pub info: RecordingInfo,
    pub input_name: String,
    /// The name of the event counted.
    pub event: String,
    pub processes: Processes,
    pub store: Store,
    pub stacks: StackTable,
    pub symbols: Symbols,
    pub counts: IngestCounts,
    pub input_end: InputEnd,
    /// The caches the profile was loaded with; categorizing uses them too.
    pub cache: Cache,
    /// What the counts are: `samples`, or with `--alloc` the `bytes` asked
    /// for.
    pub unit: &'static str,
    /// The command as the run's `run.json` records it: `record` attaches
    /// perf to the command, so perf's own command line does not name it.
    /// Set by whoever reads the run's facts; `None` otherwise.
    pub command: Option<String>,
    /// How much of the copied stacks the unwinds that reached a root read;
    /// `None` when the stacks came from the cache, not from unwinding.
    pub stack_use: Option<StackUse>,
    /// With `heap`: the sampled allocations and frees.
    pub heap: Option<HeapEvents>,
    /// With `heap`, once the instant is chosen ([`apply_heap_view`]): the
    /// heap figures the reports state.
    pub heap_view: Option<HeapView>,
    /// The samples of the recording's own instrumentation, by kind: set
    /// aside, or with `--with-instrumentation` counted.
    pub instrumentation: InstrumentationCost,
    /// With `--with-instrumentation`: which stacks run in instrumentation,
    /// for their category.
    pub instrumented: Option<InstrumentedStacks>,
}

impl Profile {
    /// The sample counts that `filter` keeps, by thread, stack and unwinding result.
    pub(crate) fn samples<'a>(
        &'a self,
        filter: &'a SampleFilter,
    ) -> impl Iterator<Item = (&'a SampleKey, u64)> + 'a {
        self.stacks
            .counts
            .iter()
            .filter(move |(key, _)| self.keeps(filter, key))
            .map(|(key, &count)| (key, count))
    }

    /// When the first sample `filter` keeps was taken (perf's ns): the
    /// origin of every time a report states, the memory line's, the
    /// timeline's, the findings' and the heap's.
    pub(crate) fn first_time_kept(&self, filter: &SampleFilter) -> Option<u64> {
        (self.stacks.timeline.iter())
            .filter(|sample| self.keeps(filter, &sample.key))
            .map(|sample| sample.time)
            .min()
    }

    /// Whether `filter` keeps the samples of `key`'s process.
    pub(crate) fn keeps(&self, filter: &SampleFilter, key: &SampleKey) -> bool {
        filter.keeps_all() || {
            let process = self.processes.thread(key.thread).process;
            filter.accepts(self.processes.image(process))
        }
    }

    /// Appends the symbols of `stack` to `symbols`, leaf first; a frame's
    /// inlined functions come before the function they are inlined into.
    pub(crate) fn symbols_leaf_first(&self, stack: Option<StackId>, symbols: &mut Vec<SymbolId>) {
        for frame in self.stacks.frames_leaf_first(stack) {
            symbols.extend_from_slice(self.symbols.of_frame(frame));
        }
    }

    /// The command perf recorded: the run's, when [`Profile::command`] is
    /// set; else what follows `--` in `perf record … -- CMD`.
    pub(crate) fn profiled_command(&self) -> String {
        if let Some(command) = &self.command {
            return command.clone();
        }
        let Some(args) = &self.info.perf_command else {
            return "(the recording does not say)".to_owned();
        };
        let after_dashes = |args: &[String]| match args.iter().position(|arg| arg == "--") {
            Some(at) => args[at + 1..].to_vec(),
            None => args.to_vec(),
        };
        let command = after_dashes(args);
        // `compile-perf record` runs the command through `compile-perf measure … --`.
        let wrapped =
            command.len() > 1 && command[0].ends_with("compile-perf") && command[1] == "measure";
        if wrapped {
            after_dashes(&command[1..]).join(" ")
        } else {
            command.join(" ")
        }
    }

    /// The function the sampled instruction of `stack` is in, as `perf
    /// report --no-inline` counts self time.
    pub(crate) fn leaf_function(&self, stack: Option<StackId>) -> Option<SymbolId> {
        stack.map(|stack| {
            self.symbols
                .function_of_frame(self.stacks.node(stack).frame)
        })
    }
}

/// Reads, unwinds and symbolizes the recording `input` as `options` say. A file
/// read before with the same event comes from the recording cache, without
/// decompressing or unwinding it again, as long as its binaries are found
/// as they were; a complete reading is stored there for the next time.
pub(crate) fn load(input: &Input, options: &ReadOptions) -> Result<Profile, Error> {
    let mut recording = Recording::open(input, options.salvage)?;
    let jobs = options.jobs.unwrap_or_else(cores);
    recording.set_jobs(jobs);
    let input_name = input.display_name();
    let alloc_events = if options.alloc {
        alloc_events(&recording.info, &input_name)?
    } else {
        Vec::new()
    };
    let heap_events = if options.heap.is_some() {
        Some(heap_events(&recording.info, &input_name)?)
    } else {
        None
    };
    let event_index = match (alloc_events.first(), heap_events) {
        (Some(&first), _) => first,
        (None, Some((alloc, _))) => alloc,
        (None, None) => choose_event(&recording.info, options.event.as_deref(), &input_name)?,
    };
    let reading = Reading {
        options,
        input_name,
        event_index,
        alloc_events,
        heap_events,
        heap: None,
        recording_dir: match input {
            Input::Path(path) => path.parent().map(Path::to_owned),
            Input::Stdin => None,
        },
    };
    // The cache keeps sample counts, not bytes: `--alloc` and `--heap`
    // read the file.
    let key = match input {
        Input::Path(_) if options.alloc || options.heap.is_some() => None,
        Input::Path(path) => {
            cached::RecordingKey::of(&options.cache, path, event_index, options.salvage)
        }
        Input::Stdin => None,
    };
    let mut store = new_store(&recording.info, options);
    if let Some(key) = &key {
        if let Some(entry) = cached::read(&options.cache, key, event_index) {
            match cached::restore(entry, &mut store) {
                Ok(restored) => {
                    let input_end = match restored.unfinished.clone() {
                        Some(reason) => InputEnd::Unfinished { reason },
                        None => InputEnd::Complete,
                    };
                    return Ok(finish_load(
                        reading,
                        recording.info,
                        store,
                        restored,
                        input_end,
                        None,
                        NamedAhead::new(),
                    ));
                }
                Err(reason) => {
                    options
                        .cache
                        .note_stale(Kind::Recording, &key.name, &reason);
                    store = new_store(&recording.info, options);
                }
            }
        }
    }
    // Many streams are unwound each on its own, but for `--heap`, which
    // pairs each free with the allocation before it. A directory's streams
    // are its header file's (a few records) and one per CPU.
    let streams = recording.stream_count();
    let per_cpu = streams.saturating_sub(1);
    if streams > 1 && options.heap.is_none() && (per_cpu > jobs || jobs >= TWO_PASS_JOBS) {
        streams::read_streams(input, recording, reading, store, key, jobs)
    } else {
        read_records(recording, reading, store, key)
    }
}

/// The jobs from which a directory's streams are read in two passes even
/// when all of them could be read at once: the second pass decompresses
/// every zstd stream again (zstd is about 60% of a cold reading's CPU), and
/// unwinding on every job gains that back only from a few cores on. With
/// more streams than jobs, two passes are what keeps the memory to the
/// jobs'. On 2 cores, a 2-stream recording of the example took 0.52–0.58 s
/// of CPU read merged and 0.70–0.84 s in two passes (2026-12-07).
const TWO_PASS_JOBS: usize = 4;

/// Makes rayon's threads, which name frames and draw, `jobs` in number,
/// and returns `jobs`. Called once, as `--jobs` is resolved, before any of
/// them runs; a later call changes nothing.
pub(crate) fn use_jobs(jobs: usize) -> usize {
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build_global();
    jobs
}

/// The cores there are: the default of `--jobs`.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The indexes of the allocator probe events of `record --alloc`, or an
/// error naming the events the recording has.
fn alloc_events(info: &RecordingInfo, input: &str) -> Result<Vec<usize>, Error> {
    let found = crate::alloc::alloc_events(info);
    if found.is_empty() {
        return Err(Error::NoSuchEvent {
            input: input.to_owned(),
            wanted: "the allocator probes of `record --alloc` (probe_libc:malloc, …)".to_owned(),
            available: sampling_event_names(info),
        });
    }
    Ok(found)
}

/// The heap sampler's marker events of `record --heap`, or an error
/// naming the events the recording has.
fn heap_events(info: &RecordingInfo, input: &str) -> Result<(usize, usize), Error> {
    crate::heap::heap_events(info).ok_or_else(|| Error::NoSuchEvent {
        input: input.to_owned(),
        wanted: format!(
            "the heap sampler's markers of `record --heap` ({}, {})",
            crate::heap::ALLOC_EVENT,
            crate::heap::FREE_EVENT
        ),
        available: sampling_event_names(info),
    })
}

/// The recording's sampling events, listed.
fn sampling_event_names(info: &RecordingInfo) -> String {
    info.events
        .iter()
        .filter(|event| event.is_sampling)
        .map(|event| event.name.clone())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The index of the event to count: the one named, or the first sampling one.
fn choose_event(info: &RecordingInfo, wanted: Option<&str>, input: &str) -> Result<usize, Error> {
    let sampling = || {
        info.events
            .iter()
            .enumerate()
            .filter(|(_, event)| event.is_sampling)
    };
    let found = match wanted {
        Some(name) => sampling().find(|(_, event)| event.name == name || event.base_name() == name),
        None => sampling().next(),
    };
    found
        .map(|(index, _)| index)
        .ok_or_else(|| Error::NoSuchEvent {
            input: input.to_owned(),
            wanted: wanted.unwrap_or("(any sampling event)").to_owned(),
            available: sampling_event_names(info),
        })
}
