//! Reads a recording: a file-mode perf.data or a pipe-mode stream, plain or
//! zstd-compressed, through linux-perf-data; an uncompressed file's records
//! are read in place from a memory map (`mapped`).
//!
//! This is the only module that reads the recording. It validates the
//! structure before the library parses it, detects the format, and turns the
//! library's records into the few plain [`Record`]s the pipeline needs. It
//! knows nothing about processes, unwinding or symbols.

mod mapped;
mod pipe_guard;
mod validate;

use std::cell::Cell;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use linux_perf_data::linux_perf_event_reader::constants::{
    PERF_CONTEXT_MAX, PERF_RECORD_MISC_MMAP_BUILD_ID,
};
use linux_perf_data::linux_perf_event_reader::{
    CpuMode, EventRecord, Mmap2FileId, PerfEventType, RawData, RawDataU64, RawEventRecord,
    RecordType, SamplingPolicy, SoftwareCounterType,
};
use linux_perf_data::{DsoKey, PerfFile, PerfFileReader, PerfFileRecord, PerfRecordIter};

use crate::error::Error;
use mapped::MappedRecords;
use pipe_guard::{PipeGuard, StreamEnd};

/// x86-64 `perf_regs` indexes of the registers the unwinder needs.
const REG_BP: u64 = 6;
const REG_SP: u64 = 7;
const REG_IP: u64 = 8;
/// Read buffer for the recording; large enough to keep syscalls rare.
const READ_BUFFER: usize = 32 << 10;

/// Where the recording comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A path to a file-mode or pipe-mode perf.data.
    Path(PathBuf),
    /// Standard input, which must carry a pipe-mode stream (`perf record -o -`).
    Stdin,
}

impl Input {
    /// `-` means standard input; anything else is a path.
    pub fn from_arg(arg: &Path) -> Self {
        if arg == Path::new("-") {
            Input::Stdin
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
    /// Host name, kernel release, perf version and CPU count of the recording machine.
    pub hostname: Option<String>,
    pub os_release: Option<String>,
    pub perf_version: Option<String>,
    pub cpus_online: Option<u32>,
    /// Build ids of the files that samples hit.
    pub build_ids: Vec<HeaderBuildId>,
    /// True for a pipe-mode stream.
    pub is_pipe: bool,
}

/// The user-space registers the unwinder starts from.
#[derive(Clone, Copy, Debug)]
pub struct UserRegs {
    pub ip: u64,
    pub sp: u64,
    pub bp: u64,
}

/// The mode a sample was taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleMode {
    Kernel,
    User,
    /// Guest, hypervisor or unknown modes.
    Other,
}

/// A sample, borrowing its stack data from the reader.
pub struct Sample<'a> {
    pub event_index: usize,
    pub pid: i32,
    pub tid: i32,
    pub time: u64,
    pub ip: u64,
    pub mode: SampleMode,
    /// The kernel's callchain (kernel frames, and user frames for `-g`).
    pub callchain: Option<RawDataU64<'a>>,
    pub user_regs: Option<UserRegs>,
    /// The copied user stack, starting at `user_regs.sp`.
    pub user_stack: &'a [u8],
}

/// A new memory mapping of code.
pub struct Mapping<'a> {
    pub pid: i32,
    pub start: u64,
    pub len: u64,
    pub file_offset: u64,
    pub path: &'a [u8],
    pub build_id: Option<Vec<u8>>,
    /// The kernel image or a kernel module (pid -1 in perf's records).
    pub is_kernel: bool,
}

/// The records the pipeline acts on, in time order.
pub enum Record<'a> {
    Sample(Sample<'a>),
    /// A thread got a name: at exec (`is_exec`) or through `prctl`.
    Comm {
        pid: i32,
        tid: i32,
        name: &'a [u8],
        is_exec: bool,
    },
    Fork {
        pid: i32,
        ppid: i32,
        tid: i32,
        parent_tid: i32,
    },
    Mmap(Mapping<'a>),
    /// The kernel dropped `count` records because perf could not keep up.
    Lost {
        count: u64,
    },
}

/// How the recording ended.
#[derive(Clone, Copy, Debug)]
pub enum InputEnd {
    /// Read to the end perf wrote.
    Complete,
    /// A pipe stream that stopped early.
    CutShort { bytes: u64, reason: &'static str },
}

/// An opened recording, ready to stream its records.
pub struct Recording {
    pub info: RecordingInfo,
    input: String,
    reader: Reader,
}

enum Reader {
    File(Box<PerfFile>, PerfRecordIter<BufReader<File>>),
    Mapped(MappedRecords),
    Pipe(
        Box<PerfFile>,
        PerfRecordIter<BufReader<PipeGuard<Box<dyn Read>>>>,
        Rc<Cell<StreamEnd>>,
    ),
}

/// The fixed start of every perf.data: magic and the header size.
struct Preamble {
    big_endian: bool,
    header_size: u64,
}

fn read_preamble(bytes: &[u8], input: &str) -> Result<Preamble, Error> {
    let not_perf = |reason: &str| Error::NotPerfData {
        input: input.to_owned(),
        reason: reason.to_owned(),
    };
    if bytes.len() < 16 {
        let magic_prefix = &bytes[..bytes.len().min(8)];
        if b"PERFILE2".starts_with(magic_prefix) || b"2ELIFREP".starts_with(magic_prefix) {
            return Err(Error::Truncated {
                input: input.to_owned(),
                reason: format!("only {} bytes, less than the 16-byte preamble", bytes.len()),
            });
        }
        return Err(not_perf("shorter than the 16-byte preamble"));
    }
    let big_endian = match &bytes[..8] {
        b"PERFILE2" => false,
        b"2ELIFREP" => true,
        b"PERFFILE" => return Err(not_perf("perf.data version 1 is not supported")),
        _ => return Err(not_perf("no PERFILE2 magic at the start")),
    };
    let raw: [u8; 8] = bytes[8..16].try_into().expect("8 bytes");
    let header_size = if big_endian {
        u64::from_be_bytes(raw)
    } else {
        u64::from_le_bytes(raw)
    };
    Ok(Preamble {
        big_endian,
        header_size,
    })
}

impl Recording {
    /// Opens `input`, detecting file or pipe format, and validates it.
    pub fn open(input: &Input) -> Result<Recording, Error> {
        let name = input.display_name();
        match input {
            Input::Path(path) => {
                let file = File::open(path).map_err(|source| Error::Open {
                    path: path.clone(),
                    source,
                })?;
                let len = file
                    .metadata()
                    .map_err(|source| Error::Open {
                        path: path.clone(),
                        source,
                    })?
                    .len();
                if len == 0 && file_is_regular(&file) {
                    return Err(Error::Empty { input: name });
                }
                Self::open_file(file, len, name)
            }
            Input::Stdin => Self::open_stream(Box::new(std::io::stdin()), name),
        }
    }

    fn open_file(mut file: File, len: u64, name: String) -> Result<Recording, Error> {
        if !file_is_regular(&file) {
            return Self::open_stream(Box::new(file), name);
        }
        let mut start = [0u8; 16];
        let got = read_up_to(&mut file, &mut start).map_err(|source| Error::Corrupt {
            input: name.clone(),
            reason: source.to_string(),
        })?;
        let preamble = read_preamble(&start[..got], &name)?;
        file.seek(SeekFrom::Start(0))
            .map_err(|error| corrupt(&name, error))?;
        if preamble.header_size == 16 {
            return Self::open_stream(Box::new(file), name);
        }
        let data = validate::check_file_structure(&mut file, len, preamble.big_endian).map_err(
            |problem| match problem {
                validate::Problem::Truncated(reason) => Error::Truncated {
                    input: name.clone(),
                    reason,
                },
                validate::Problem::Corrupt(reason) => Error::Corrupt {
                    input: name.clone(),
                    reason,
                },
            },
        )?;
        file.seek(SeekFrom::Start(0))
            .map_err(|error| corrupt(&name, error))?;
        let copy = file.try_clone().map_err(|error| corrupt(&name, error))?;
        let reader = guarded(&name, || {
            PerfFileReader::parse_file(BufReader::with_capacity(READ_BUFFER, copy))
        })?;
        let info = recording_info(&reader.perf_file, false);
        // A file that cannot be mapped (some FUSE or network file systems)
        // is read by linux-perf-data as a stream instead.
        let mapped = MappedRecords::new(&file, data, &reader.perf_file)
            .ok()
            .flatten();
        let reader = match mapped {
            Some(mapped) => Reader::Mapped(mapped),
            None => Reader::File(Box::new(reader.perf_file), reader.record_iter),
        };
        Ok(Recording {
            info,
            input: name,
            reader,
        })
    }

    fn open_stream(mut source: Box<dyn Read>, name: String) -> Result<Recording, Error> {
        let mut start = [0u8; 16];
        let got = read_up_to(&mut source, &mut start).map_err(|error| corrupt(&name, error))?;
        if got == 0 {
            return Err(Error::Empty { input: name });
        }
        let preamble = read_preamble(&start[..got], &name).map_err(|error| match error {
            Error::Truncated { input, .. } => Error::StreamCutShort {
                input,
                bytes: got as u64,
                reason: "it ends inside the 16-byte preamble",
                samples: 0,
            },
            other => other,
        })?;
        if preamble.header_size != 16 {
            return Err(Error::NotPerfData {
                input: name,
                reason: "a file-mode perf.data cannot be read from a pipe; pass its path instead"
                    .to_owned(),
            });
        }
        if preamble.big_endian {
            return Err(Error::NotPerfData {
                input: name,
                reason: "big-endian pipe streams are not supported".to_owned(),
            });
        }
        let replay: Box<dyn Read> = Box::new(std::io::Cursor::new(start).chain(source));
        let (guard, end) = PipeGuard::new(replay);
        let buffered = BufReader::with_capacity(READ_BUFFER, guard);
        let reader = guarded(&name, || PerfFileReader::parse_pipe(buffered))
            .map_err(|error| pipe_open_error(error, &end, &name))?;
        let info = recording_info(&reader.perf_file, true);
        let PerfFileReader {
            perf_file,
            record_iter,
        } = reader;
        Ok(Recording {
            info,
            input: name,
            reader: Reader::Pipe(Box::new(perf_file), record_iter, end),
        })
    }

    /// Streams every record to `handle`, in time order, and says how the input ended.
    pub fn for_each_record(
        &mut self,
        mut handle: impl FnMut(Record<'_>),
    ) -> Result<InputEnd, Error> {
        let input = self.input.clone();
        match &mut self.reader {
            Reader::File(perf_file, records) => {
                drain(perf_file, records, &input, &mut handle)?;
                Ok(InputEnd::Complete)
            }
            Reader::Mapped(records) => {
                records.for_each(&input, |attr_index, record| {
                    deliver(attr_index, &record, &input, &mut handle)
                })?;
                Ok(InputEnd::Complete)
            }
            Reader::Pipe(perf_file, records, end) => {
                let result = drain(perf_file, records, &input, &mut handle);
                let seen = end.get();
                match (seen.cut_reason(), result) {
                    (Some(reason), _) if seen.reached_eof => Ok(InputEnd::CutShort {
                        bytes: seen.bytes,
                        reason,
                    }),
                    (_, Err(error)) => Err(error),
                    (_, Ok(())) => Ok(InputEnd::Complete),
                }
            }
        }
    }
}

fn file_is_regular(file: &File) -> bool {
    file.metadata().is_ok_and(|meta| meta.is_file())
}

/// Reads until `buf` is full or the source ends; returns the bytes read.
fn read_up_to(source: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

fn corrupt(input: &str, reason: impl std::fmt::Display) -> Error {
    Error::Corrupt {
        input: input.to_owned(),
        reason: reason.to_string(),
    }
}

/// Runs a linux-perf-data call, turning its errors and any panic on
/// malformed input into [`Error::Corrupt`].
fn guarded<T>(
    input: &str,
    parse: impl FnOnce() -> Result<T, linux_perf_data::Error>,
) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(parse)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(corrupt(input, error)),
        Err(_) => Err(corrupt(
            input,
            "the perf.data parser rejected a malformed record",
        )),
    }
}

/// A pipe stream that fails while its header records are read was most
/// likely cut short; say so when the guard saw it end.
fn pipe_open_error(error: Error, end: &Rc<Cell<StreamEnd>>, input: &str) -> Error {
    let seen = end.get();
    match seen.cut_reason() {
        Some(reason) if seen.reached_eof => Error::StreamCutShort {
            input: input.to_owned(),
            bytes: seen.bytes,
            reason,
            samples: 0,
        },
        _ => error,
    }
}

fn recording_info(perf_file: &PerfFile, is_pipe: bool) -> RecordingInfo {
    let events = perf_file
        .event_attributes()
        .iter()
        .map(|attr| {
            let is_dummy = matches!(
                attr.attr.type_,
                PerfEventType::Software(SoftwareCounterType::Dummy)
            );
            EventInfo {
                name: attr
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| event_type_name(&attr.attr.type_)),
                is_sampling: !is_dummy
                    && !matches!(attr.attr.sampling_policy, SamplingPolicy::NoSampling),
                frequency: match attr.attr.sampling_policy {
                    SamplingPolicy::Frequency(hz) if hz > 0 => Some(hz),
                    _ => None,
                },
                period: match attr.attr.sampling_policy {
                    SamplingPolicy::Period(period) => Some(period.get()),
                    _ => None,
                },
            }
        })
        .collect();
    let build_ids = perf_file
        .build_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|(key, info)| HeaderBuildId {
            path: match key {
                DsoKey::Kernel => "[kernel.kallsyms]".to_owned(),
                _ => String::from_utf8_lossy(&info.path).into_owned(),
            },
            build_id: info.build_id,
        })
        .collect();
    RecordingInfo {
        events,
        perf_command: perf_file
            .cmdline()
            .ok()
            .flatten()
            .map(|args| args.into_iter().map(str::to_owned).collect()),
        hostname: perf_file.hostname().ok().flatten().map(str::to_owned),
        os_release: perf_file.os_release().ok().flatten().map(str::to_owned),
        perf_version: perf_file.perf_version().ok().flatten().map(str::to_owned),
        cpus_online: perf_file
            .nr_cpus()
            .ok()
            .flatten()
            .map(|cpus| cpus.nr_cpus_online),
        build_ids,
        is_pipe,
    }
}

fn event_type_name(event_type: &PerfEventType) -> String {
    match event_type {
        PerfEventType::Software(SoftwareCounterType::CpuClock) => "cpu-clock".to_owned(),
        PerfEventType::Software(SoftwareCounterType::TaskClock) => "task-clock".to_owned(),
        PerfEventType::Software(SoftwareCounterType::PageFaults) => "page-faults".to_owned(),
        other => format!("{other:?}"),
    }
}

/// Pulls every record from `records` and hands the ones the pipeline uses to `handle`.
fn drain<R: Read>(
    perf_file: &mut PerfFile,
    records: &mut PerfRecordIter<R>,
    input: &str,
    handle: &mut impl FnMut(Record<'_>),
) -> Result<(), Error> {
    loop {
        let (records, perf_file) = (&mut *records, &mut *perf_file);
        let next = catch_unwind(AssertUnwindSafe(move || {
            let records = records;
            records.next_record(perf_file)
        }));
        let record = match next {
            Ok(Ok(Some(record))) => record,
            Ok(Ok(None)) => return Ok(()),
            Ok(Err(error)) => return Err(corrupt(input, error)),
            Err(_) => {
                return Err(corrupt(
                    input,
                    "the perf.data parser rejected a malformed record",
                ));
            }
        };
        let PerfFileRecord::EventRecord { attr_index, record } = record else {
            continue;
        };
        deliver(attr_index, &record, input, handle)?;
    }
}

/// Decodes one event record and hands it to `handle` if the pipeline uses it.
fn deliver(
    attr_index: usize,
    record: &RawEventRecord<'_>,
    input: &str,
    handle: &mut impl FnMut(Record<'_>),
) -> Result<(), Error> {
    if record.record_type == RecordType::MMAP2
        && !mmap2_build_id_is_valid(&record.data, record.misc)
    {
        return Err(corrupt(
            input,
            "an MMAP2 record states a build id longer than 20 bytes",
        ));
    }
    let parsed = catch_unwind(AssertUnwindSafe(|| record.parse()));
    let event = match parsed {
        Ok(Ok(event)) => event,
        Ok(Err(error)) => return Err(corrupt(input, format!("undecodable record: {error}"))),
        Err(_) => {
            return Err(corrupt(
                input,
                "the perf.data parser rejected a malformed record",
            ));
        }
    };
    if let Some(record) = convert(attr_index, event, record.timestamp().unwrap_or(0)) {
        handle(record);
    }
    Ok(())
}

/// linux-perf-data asserts on this field, so it is checked before parsing.
fn mmap2_build_id_is_valid(data: &RawData<'_>, misc: u16) -> bool {
    if misc & PERF_RECORD_MISC_MMAP_BUILD_ID == 0 {
        return true;
    }
    // pid, tid, addr, len, pgoff come first: 4 + 4 + 8 + 8 + 8 bytes.
    match data.get(32..33) {
        Some(len) => len.as_slice().first().is_some_and(|&len| len <= 20),
        None => true,
    }
}

fn convert(event_index: usize, event: EventRecord<'_>, time: u64) -> Option<Record<'_>> {
    Some(match event {
        EventRecord::Sample(sample) => {
            let user_regs = sample.user_regs.and_then(|regs| {
                Some(UserRegs {
                    ip: regs.get(REG_IP)?,
                    sp: regs.get(REG_SP)?,
                    bp: regs.get(REG_BP)?,
                })
            });
            let user_stack = match sample.user_stack {
                Some((RawData::Single(bytes), dynamic_size)) => {
                    &bytes[..bytes.len().min(dynamic_size as usize)]
                }
                _ => &[],
            };
            Record::Sample(Sample {
                event_index,
                pid: sample.pid.unwrap_or(-1),
                tid: sample.tid.unwrap_or(-1),
                time: sample.timestamp.unwrap_or(time),
                ip: sample.ip.unwrap_or(0),
                mode: match sample.cpu_mode {
                    CpuMode::Kernel => SampleMode::Kernel,
                    CpuMode::User => SampleMode::User,
                    _ => SampleMode::Other,
                },
                callchain: sample.callchain,
                user_regs,
                user_stack,
            })
        }
        EventRecord::Comm(comm) => Record::Comm {
            pid: comm.pid,
            tid: comm.tid,
            name: single(comm.name),
            is_exec: comm.is_execve,
        },
        EventRecord::Fork(fork) => Record::Fork {
            pid: fork.pid,
            ppid: fork.ppid,
            tid: fork.tid,
            parent_tid: fork.ptid,
        },
        EventRecord::Mmap(mmap) if mmap.is_executable => Record::Mmap(Mapping {
            pid: mmap.pid,
            start: mmap.address,
            len: mmap.length,
            file_offset: mmap.page_offset,
            path: single(mmap.path),
            build_id: None,
            is_kernel: mmap.cpu_mode == CpuMode::Kernel,
        }),
        EventRecord::Mmap2(mmap) if mmap.protection & PROT_EXEC != 0 => Record::Mmap(Mapping {
            pid: mmap.pid,
            start: mmap.address,
            len: mmap.length,
            file_offset: mmap.page_offset,
            path: single(mmap.path),
            build_id: match mmap.file_id {
                Mmap2FileId::BuildId(id) => Some(id),
                Mmap2FileId::InodeAndVersion(_) => None,
            },
            is_kernel: mmap.cpu_mode == CpuMode::Kernel,
        }),
        EventRecord::Lost(lost) => Record::Lost { count: lost.count },
        // PERF_RECORD_LOST_SAMPLES: samples dropped by the PMU or the kernel.
        EventRecord::Raw(raw) if raw.record_type == RecordType::LOST_SAMPLES => {
            let lost = raw.data.get(0..8)?.as_slice();
            Record::Lost {
                count: u64::from_le_bytes(lost.as_ref().try_into().ok()?),
            }
        }
        _ => return None,
    })
}

/// `PROT_EXEC` from `<sys/mman.h>`.
const PROT_EXEC: u32 = 4;

/// Records come from one contiguous buffer, so their strings are one slice.
fn single(data: RawData<'_>) -> &[u8] {
    match data {
        RawData::Single(bytes) => bytes,
        RawData::Split(first, _) => first,
    }
}

/// True for the markers (`PERF_CONTEXT_KERNEL`, `PERF_CONTEXT_USER`, ...)
/// that separate the parts of a callchain.
pub fn is_callchain_context(address: u64) -> bool {
    address >= PERF_CONTEXT_MAX
}
