//! Reading a recording into a [`Profile`]: its records streamed through
//! the process model and the unwinder into the stack table, the kernel it
//! was made on, and the frames symbolized, the most on the side while the
//! records are read.

use hashbrown::HashMap;
use std::sync::Mutex;

use super::{
    HeapEvents, IngestCounts, InstrumentationCost, Loss, Profile, ReadOptions, cached,
    instrumentation,
};
use crate::binary::{SearchPaths, Store};
use crate::cache::Kind;
use crate::error::Error;
use crate::process::{MappedCode, Processes};
use crate::progress::ReadingBar;
use crate::stacks::StackTable;
use crate::symbolize::{
    KernelLoading, KernelSource, KernelSymbols, NamedAhead, NamingAhead, RecordedKernel, symbolize,
};
use crate::unwind::{FrameKey, StackUse, Unwinders, mapping_bias};
use perfdata::{InputEnd, Record, Recording, RecordingInfo};

/// What is being read: the options, the input's name and the event counted.
pub(super) struct Reading<'a> {
    pub(super) options: &'a ReadOptions,
    pub(super) input_name: String,
    pub(super) event_index: usize,
    /// With `--alloc`: the allocator probe events, each sample weighted by
    /// the bytes it asks for. Empty otherwise.
    pub(super) alloc_events: Vec<usize>,
    /// With `--heap`: the alloc and free marker events.
    pub(super) heap_events: Option<(usize, usize)>,
    /// With `--heap`, once read: the sampled allocations and frees.
    pub(super) heap: Option<HeapEvents>,
    /// The directory the recording is in (where `record` keeps a copy of
    /// the kernel's symbols); `None` for stdin.
    pub(super) recording_dir: Option<std::path::PathBuf>,
}

/// A store of the recording's binaries, none found yet.
pub(super) fn new_store(info: &RecordingInfo, options: &ReadOptions) -> Store {
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
pub(super) fn recorded_kernel(
    reading: &Reading<'_>,
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
        beside: reading.recording_dir.clone(),
    }
}

/// Symbolizes what was read (or restored) into a [`Profile`]. `kernel_loading`
/// is a load of the kernel's symbols already started, if any.
pub(super) fn finish_load(
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
    processes.mark_compilers();
    let kernel = KernelSource {
        recorded: recorded_kernel(
            &reading,
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
    let mut profile = Profile {
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
        unit: if reading.alloc_events.is_empty() && reading.heap_events.is_none() {
            "samples"
        } else {
            "bytes"
        },
        command: None,
        stack_use: restored.stack_use,
        heap: reading.heap,
        heap_view: None,
        instrumentation: InstrumentationCost::default(),
        instrumented: None,
    };
    let with_instrumentation = reading.options.with_instrumentation;
    profile.instrumented = instrumentation::set_aside(&mut profile, with_instrumentation);
    profile
}

/// The last part of a recording's name (`perf.data`, or the run
/// directory's), short enough for a progress line.
pub(super) fn recording_file_name(input_name: &str) -> String {
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
pub(super) fn read_records(
    mut recording: Recording,
    reading: Reading<'_>,
    mut store: Store,
    key: Option<cached::RecordingKey>,
) -> Result<Profile, Error> {
    let (options, event_index) = (reading.options, reading.event_index);
    let alloc_periods = alloc_periods(&reading, &recording.info);
    let mut heap = reading.heap_events.map(|_| HeapEvents::default());
    let mut processes = Processes::default();
    let mut unwinders = Unwinders::default();
    let mut stacks = StackTable::default();
    let mut counts = IngestCounts::default();
    let mut kernel = recorded_kernel(&reading, &recording.info, None, None);
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
            let mut marked = None;
            let weight = match alloc_periods.get(sample.event_index) {
                Some(Some(period)) => crate::alloc::requested_bytes(&sample, *period),
                _ if heap.is_some() => {
                    let Some(heap) = heap.as_mut() else { return };
                    match read_marker(heap, reading.heap_events, &sample) {
                        Some(alloc) => {
                            marked = Some(alloc);
                            alloc.weight
                        }
                        None => return,
                    }
                }
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
                kernel_symbols = start_kernel_symbols(&kernel, &options.cache);
            }
            if marked.is_some() {
                trim_sampler_frames(&store, &mut frames);
            }
            stacks.add_sample(sample.time, thread, &frames, walk, weight);
            if let (Some(heap), Some(marked), Some(timed)) =
                (heap.as_mut(), marked, stacks.timeline.last())
            {
                heap.on_alloc(sample.time, sample.pid, marked, timed.key);
            }
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
            if let Some(code) = mapped_code(&mapping, &path, &mut store, &mut kernel) {
                processes.on_mmap(mapping.pid, code, &path);
                if let Some(image) = &store.get(code.dso).image {
                    unwinders.on_mmap(mapping.pid, &code, image);
                }
            }
        }
        Record::Lost { count, time, cpu } => counts.lost.records.push(Loss { time, cpu, count }),
        Record::LostSamples { count, .. } => counts.lost.samples_reported += count,
    })?;
    drop(reading_bar);
    let named_ahead = naming_ahead.map(NamingAhead::finish).unwrap_or_default();
    let read = Read {
        processes,
        stacks,
        counts,
        kernel,
        stack_use: unwinders.stack_use,
        input_end,
    };
    let reading = Reading { heap, ..reading };
    Ok(keep_and_finish(
        reading,
        recording.info,
        store,
        read,
        key,
        kernel_symbols,
        named_ahead,
    ))
}

/// What reading the records made, before it is symbolized.
pub(super) struct Read {
    pub(super) processes: Processes,
    pub(super) stacks: StackTable,
    pub(super) counts: IngestCounts,
    pub(super) kernel: RecordedKernel,
    pub(super) stack_use: StackUse,
    pub(super) input_end: InputEnd,
}

/// Stores what was `read` under `key` when the recording was read to its
/// end, and symbolizes it into a [`Profile`].
pub(super) fn keep_and_finish(
    reading: Reading<'_>,
    info: RecordingInfo,
    store: Store,
    read: Read,
    key: Option<cached::RecordingKey>,
    kernel_symbols: Option<KernelLoading>,
    named_ahead: NamedAhead,
) -> Profile {
    let Read {
        processes,
        stacks,
        counts,
        kernel,
        stack_use,
        input_end,
    } = read;
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
            event_index: reading.event_index,
            store: &store,
            kernel_text_address: kernel.text_address,
            kernel_build_id: kernel.build_id.as_deref(),
            processes: &processes,
            stacks: &stacks,
            counts: &counts,
        };
        let entry = cached::to_entry(key.identity, &parts);
        (reading.options.cache).write_with(Kind::Recording, &key.name, move || entry);
    }
    let restored = cached::Restored {
        processes,
        stacks,
        counts,
        kernel_text_address: kernel.text_address,
        kernel_build_id: kernel.build_id,
        stack_use: Some(stack_use),
        unfinished: None,
    };
    finish_load(
        reading,
        info,
        store,
        restored,
        input_end,
        kernel_symbols,
        named_ahead,
    )
}

/// Per event: with `--alloc`, for the allocator probes, the event's fixed
/// period, if any (a sample then weighs the bytes it asks for); `None` for
/// the other events.
pub(super) fn alloc_periods(
    reading: &Reading<'_>,
    info: &RecordingInfo,
) -> Vec<Option<Option<u64>>> {
    (0..info.events.len())
        .map(|index| (reading.alloc_events.contains(&index)).then(|| info.events[index].period))
        .collect()
}

/// The code a mapping record maps, its binary found in `store`; `None`
/// for the kernel's, which says where the kernel's text is (`kernel`).
pub(super) fn mapped_code(
    mapping: &perfdata::Mapping<'_>,
    path: &str,
    store: &mut Store,
    kernel: &mut RecordedKernel,
) -> Option<MappedCode> {
    if mapping.is_kernel {
        if path.starts_with("[kernel.kallsyms]") {
            kernel.text_address = Some(mapping.file_offset);
            if kernel.build_id.is_none() {
                kernel.build_id = mapping.build_id.clone();
            }
        }
        return None;
    }
    let dso = store.intern_mapping(path, mapping.build_id.as_deref());
    Some(MappedCode {
        start: mapping.start,
        end: mapping.start.saturating_add(mapping.len),
        dso,
        bias: mapping_bias(store, dso, mapping.start, mapping.file_offset, mapping.len),
    })
}

/// Starts loading the running kernel's symbols on a thread of its own,
/// once a kernel frame is seen, unless the cache has them.
pub(super) fn start_kernel_symbols(
    kernel: &RecordedKernel,
    cache: &crate::cache::Cache,
) -> Option<KernelLoading> {
    let source = KernelSource {
        recorded: kernel.clone(),
        started: Mutex::new(None),
    };
    let cached = (source.cache_key()).is_some_and(|key| cache.contains(Kind::Binary, &key));
    let cache = cache.clone();
    (!cached).then(|| std::thread::spawn(move || KernelSymbols::load(&source.recorded, &cache)))
}

/// Takes the heap sampler's own frames off the leaf end of an alloc
/// marker's stack, but for the outermost, the wrapper the compiler called
/// (`malloc`, `calloc`…): the stack then reads as a `record --alloc` one,
/// with the allocator as its leaf.
fn trim_sampler_frames(store: &Store, leaf_first: &mut Vec<crate::unwind::FrameKey>) {
    let in_sampler = |frame: &crate::unwind::FrameKey| {
        store
            .get(frame.dso)
            .recorded_path
            .ends_with(crate::heap::LIBRARY)
    };
    let sampler_frames = leaf_first
        .iter()
        .take_while(|frame| in_sampler(frame))
        .count();
    if sampler_frames > 1 {
        leaf_first.drain(..sampler_frames - 1);
    }
}

/// With `--heap`: a free marker's sample goes into `heap` (`None`); an
/// alloc marker's is returned, to be counted with its stack; a sample of
/// any other event, or one whose payload is short, is `None`.
fn read_marker(
    heap: &mut HeapEvents,
    events: Option<(usize, usize)>,
    sample: &perfdata::Sample<'_>,
) -> Option<crate::heap::MarkedAlloc> {
    let (alloc, free) = events?;
    if sample.event_index == free {
        if let Some(ptr) = crate::heap::freed_ptr(sample) {
            heap.on_free(sample.time, sample.pid, ptr);
        }
        return None;
    }
    (sample.event_index == alloc)
        .then(|| crate::heap::MarkedAlloc::of(sample))
        .flatten()
}
