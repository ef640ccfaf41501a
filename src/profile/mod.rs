//! Builds a [`Profile`] from a recording: streams its records through the
//! process model and the unwinder into the stack table, then symbolizes each
//! unique frame once.

mod cached;
mod losses;
mod select;
mod thread_roots;

use hashbrown::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::binary::{SearchPaths, Store};
use crate::cache::{Cache, Kind};
use crate::error::Error;
use crate::perfdata::{Input, InputEnd, Record, Recording, RecordingInfo};
use crate::process::{MappedCode, Processes};
use crate::progress::ReadingBar;
use crate::stacks::{SampleKey, StackId, StackTable};
use crate::symbolize::{
    KernelLoading, KernelSource, KernelSymbols, NamedAhead, NamingAhead, RecordedKernel, SymbolId,
    Symbols, symbolize,
};
use crate::unwind::{FrameKey, StackUse, Unwinders, mapping_bias};

pub(crate) use losses::{Loss, Losses};
pub(crate) use select::{SampleFilter, is_compiler, is_linker};

/// What to load and how.
#[derive(Clone, Debug)]
pub(crate) struct LoadOptions {
    pub input: Input,
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
    /// How many streams of a `perf record --threads` directory are read
    /// at once (`--read-threads`). Default (`None`) is the cores there are.
    pub read_threads: Option<usize>,
    /// Count the bytes asked for at the allocator probes of `record --alloc`
    /// (all of them, each sample weighted by its bytes) instead of samples
    /// of one event. Default is false.
    pub alloc: bool,
    /// Show how far the reading has gone on stderr, once it takes more
    /// than a second. Default is on a terminal, and not under `-q`.
    pub progress: bool,
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
            .filter(move |(key, _)| {
                filter.keeps_all()
                    || filter.accepts(
                        self.processes
                            .image(self.processes.thread(key.thread).process),
                    )
            })
            .map(|(key, &count)| (key, count))
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

/// Reads, unwinds and symbolizes the recording named in `options`. A file
/// read before with the same event comes from the recording cache, without
/// decompressing or unwinding it again, as long as its binaries are found
/// as they were; a complete reading is stored there for the next time.
pub(crate) fn load(options: &LoadOptions) -> Result<Profile, Error> {
    let mut recording = Recording::open(&options.input, options.salvage)?;
    if let Some(threads) = options.read_threads {
        recording.set_read_threads(threads);
    }
    let input_name = options.input.display_name();
    let alloc_events = if options.alloc {
        alloc_events(&recording.info, &input_name)?
    } else {
        Vec::new()
    };
    let event_index = match alloc_events.first() {
        Some(&first) => first,
        None => choose_event(&recording.info, options.event.as_deref(), &input_name)?,
    };
    let reading = Reading {
        options,
        input_name,
        event_index,
        alloc_events,
    };
    // The cache keeps sample counts, not bytes: `--alloc` reads the file.
    let key = match &options.input {
        Input::Path(_) if options.alloc => None,
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
    read_records(recording, reading, store, key)
}

/// What is being read: the options, the input's name and the event counted.
struct Reading<'a> {
    options: &'a LoadOptions,
    input_name: String,
    event_index: usize,
    /// With `--alloc`: the allocator probe events, each sample weighted by
    /// the bytes it asks for. Empty otherwise.
    alloc_events: Vec<usize>,
}

/// A store of the recording's binaries, none found yet.
fn new_store(info: &RecordingInfo, options: &LoadOptions) -> Store {
    let header_build_ids: HashMap<String, Vec<u8>> = info
        .build_ids
        .iter()
        .map(|entry| (entry.path.clone(), entry.build_id.clone()))
        .collect();
    Store::new(
        SearchPaths::new(options.symfs.clone(), options.debug_roots.clone()),
        header_build_ids,
    )
}

/// The kernel the recording was made on, as far as it says: its build id
/// from the header's table, else from its mapping record (where
/// `--buildid-mmap` puts it, leaving the table empty).
fn recorded_kernel(
    info: &RecordingInfo,
    text_address: Option<u64>,
    mapped_build_id: Option<Vec<u8>>,
) -> RecordedKernel {
    RecordedKernel {
        build_id: info
            .build_ids
            .iter()
            .find(|entry| entry.path == "[kernel.kallsyms]")
            .map(|entry| entry.build_id.clone())
            .or(mapped_build_id),
        release: info.os_release.clone(),
        text_address,
    }
}

/// Symbolizes what was read (or restored) into a [`Profile`]. `kernel_loading`
/// is a load of the kernel's symbols already started, if any.
fn finish_load(
    reading: Reading<'_>,
    info: RecordingInfo,
    store: Store,
    restored: cached::Restored,
    input_end: InputEnd,
    kernel_loading: Option<KernelLoading>,
    named_ahead: NamedAhead,
) -> Profile {
    let cache = &reading.options.cache;
    let mut processes = restored.processes;
    processes.qualify_shared_names();
    let kernel = KernelSource {
        recorded: recorded_kernel(
            &info,
            restored.kernel_text_address,
            restored.kernel_build_id,
        ),
        started: Mutex::new(kernel_loading),
    };
    let symbols = symbolize(&restored.stacks.frames, &store, &kernel, cache, named_ahead);
    let event = if reading.alloc_events.is_empty() {
        info.events[reading.event_index].name.clone()
    } else {
        let names: Vec<&str> = (reading.alloc_events.iter())
            .map(|&index| info.events[index].name.as_str())
            .collect();
        names.join("+")
    };
    Profile {
        event,
        info,
        input_name: reading.input_name,
        processes,
        store,
        stacks: restored.stacks,
        symbols,
        counts: restored.counts,
        input_end,
        cache: cache.clone(),
        unit: if reading.alloc_events.is_empty() {
            "samples"
        } else {
            "bytes"
        },
        command: None,
        stack_use: restored.stack_use,
    }
}

/// The last part of a recording's name (`perf.data`, or the run
/// directory's), short enough for a progress line.
fn recording_file_name(input_name: &str) -> String {
    let path = std::path::Path::new(input_name);
    match path.file_name() {
        Some(name) if name == "perf.data" => {
            path.parent().and_then(|dir| dir.file_name()).map_or_else(
                || "perf.data".to_owned(),
                |dir| format!("{}/perf.data", dir.to_string_lossy()),
            )
        }
        Some(name) => name.to_string_lossy().into_owned(),
        None => input_name.to_owned(),
    }
}

/// Streams the records through the process model and the unwinder into
/// the stack table, stores the result under `key` when the recording was
/// read to its end, and symbolizes it: the frames found while reading are
/// named on the side when a core is idle ([`NamingAhead`]), the rest after.
fn read_records(
    mut recording: Recording,
    reading: Reading<'_>,
    mut store: Store,
    key: Option<cached::RecordingKey>,
) -> Result<Profile, Error> {
    let (options, event_index) = (reading.options, reading.event_index);
    let alloc_periods: Vec<Option<Option<u64>>> = (0..recording.info.events.len())
        .map(|index| {
            reading
                .alloc_events
                .contains(&index)
                .then(|| recording.info.events[index].period)
        })
        .collect();
    let mut processes = Processes::default();
    let mut unwinders = Unwinders::default();
    let mut stacks = StackTable::default();
    let mut counts = IngestCounts::default();
    let mut kernel = recorded_kernel(&recording.info, None, None);
    // /proc/kallsyms takes tens of milliseconds to read; it loads on the other
    // core while the recording streams, from the first kernel frame on,
    // unless the cache has the kernel's names.
    let mut kernel_seen = false;
    let mut kernel_symbols = None;
    let mut frames: Vec<FrameKey> = Vec::with_capacity(256);
    let mut naming_ahead = NamingAhead::start(&options.cache);
    let (bytes_read, bytes_to_read) = recording.progress();
    let reading_bar = ReadingBar::start(
        options.progress,
        recording_file_name(&reading.input_name),
        bytes_read,
        bytes_to_read,
    );
    let input_end = recording.for_each_record(|record| match record {
        Record::Sample(sample) => {
            let weight = match alloc_periods.get(sample.event_index) {
                Some(Some(period)) => crate::alloc::requested_bytes(&sample, *period),
                _ if sample.event_index == event_index => 1,
                _ => {
                    counts.other_event_samples += 1;
                    return;
                }
            };
            counts.samples += 1;
            counts.period_total = counts
                .period_total
                .saturating_add(sample.period.unwrap_or(0));
            counts.first_time.get_or_insert(sample.time);
            counts.last_time = Some(sample.time);
            let thread = processes.thread_for_sample(sample.pid, sample.tid);
            let walk = unwinders.unwind(&sample, &processes, &store, &mut frames);
            if !kernel_seen && frames.iter().any(|frame| frame.dso == store.kernel()) {
                kernel_seen = true;
                let source = KernelSource {
                    recorded: kernel.clone(),
                    started: Mutex::new(None),
                };
                let cached = (source.cache_key())
                    .is_some_and(|key| options.cache.contains(Kind::Binary, &key));
                if !cached {
                    let cache = options.cache.clone();
                    kernel_symbols = Some(std::thread::spawn(move || {
                        KernelSymbols::load(&source.recorded, &cache)
                    }));
                }
            }
            stacks.add_sample(sample.time, thread, &frames, walk, weight);
            if let Some(naming) = &mut naming_ahead {
                naming.offer(&stacks.frames, &store);
            }
        }
        Record::Comm {
            pid,
            tid,
            name,
            is_exec,
        } => {
            if is_exec {
                unwinders.on_exec(pid);
            }
            processes.on_comm(pid, tid, &String::from_utf8_lossy(name), is_exec);
        }
        Record::Fork {
            pid,
            ppid,
            tid,
            parent_tid,
        } => {
            processes.on_fork(pid, ppid, tid, parent_tid);
            if pid == tid {
                unwinders.on_fork(pid, ppid);
            }
        }
        Record::Mmap(mapping) => {
            let path = String::from_utf8_lossy(mapping.path);
            if mapping.is_kernel {
                if path.starts_with("[kernel.kallsyms]") {
                    kernel.text_address = Some(mapping.file_offset);
                    if kernel.build_id.is_none() {
                        kernel.build_id = mapping.build_id.clone();
                    }
                }
                return;
            }
            let dso = store.intern_mapping(&path, mapping.build_id.as_deref());
            let code = MappedCode {
                start: mapping.start,
                end: mapping.start.saturating_add(mapping.len),
                dso,
                bias: mapping_bias(&store, dso, mapping.start, mapping.file_offset, mapping.len),
            };
            processes.on_mmap(mapping.pid, code, &path);
            if let Some(image) = &store.get(dso).image {
                unwinders.on_mmap(mapping.pid, &code, image);
            }
        }
        Record::Lost { count, time, cpu } => counts.lost.records.push(Loss { time, cpu, count }),
        Record::LostSamples { count, .. } => counts.lost.samples_reported += count,
    })?;
    drop(reading_bar);
    let named_ahead = naming_ahead.map(NamingAhead::finish).unwrap_or_default();

    // A recording read to its end is kept, and so is one whose streams end
    // in records perf did not finish: those are final once perf has exited
    // (a file that still grows has another identity).
    let unfinished = match &input_end {
        InputEnd::Complete => Some(None),
        InputEnd::Unfinished { reason } => Some(Some(reason.as_str())),
        _ => None,
    };
    if let (Some(key), Some(unfinished)) = (&key, unfinished) {
        let parts = cached::Parts {
            unfinished,
            event_index,
            store: &store,
            kernel_text_address: kernel.text_address,
            kernel_build_id: kernel.build_id.as_deref(),
            processes: &processes,
            stacks: &stacks,
            counts: &counts,
        };
        let entry = cached::to_entry(key.identity, &parts);
        options
            .cache
            .write_with(Kind::Recording, &key.name, move || entry);
    }
    let restored = cached::Restored {
        processes,
        stacks,
        counts,
        kernel_text_address: kernel.text_address,
        kernel_build_id: kernel.build_id,
        stack_use: Some(unwinders.stack_use),
        unfinished: None,
    };
    Ok(finish_load(
        reading,
        recording.info,
        store,
        restored,
        input_end,
        kernel_symbols,
        named_ahead,
    ))
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
