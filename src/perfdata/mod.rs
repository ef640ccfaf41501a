//! Reads a recording: a file-mode perf.data or a pipe-mode stream, plain or
//! zstd-compressed.
//!
//! This is the only module that reads the recording. It validates the
//! structure (`validate`), lets linux-perf-data parse the header, reads the
//! records itself (`reader`: in place from a memory map or a stream, zstd
//! decompressed with one context, each record checked by `plausible`), and
//! turns them into the few plain [`Record`]s the pipeline needs. It knows
//! nothing about processes, unwinding or symbols.

mod chunks;
mod decompress;
mod mapped;
mod plausible;
mod reader;
mod validate;

use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use linux_perf_data::linux_perf_event_reader::constants::PERF_CONTEXT_MAX;
use linux_perf_data::linux_perf_event_reader::{
    CpuMode, EventRecord, Mmap2FileId, PerfEventType, RawData, RawDataU64, RawEventRecord,
    RecordType, SamplingPolicy, SoftwareCounterType,
};
use linux_perf_data::{DsoKey, Feature, PerfFile, PerfFileReader, PerfFileRecord, PerfRecordIter};

use crate::error::Error;
use mapped::MappedFile;
use reader::{Events, ReadEnd, RecordReader, Source, StreamKind};

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
    /// The events this sample stands for, when the event records it (in
    /// frequency mode it does: nanoseconds for `cpu-clock`).
    pub period: Option<u64>,
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputEnd {
    /// Read to the end perf wrote.
    Complete,
    /// A pipe stream that stopped early.
    CutShort { bytes: u64, reason: &'static str },
    /// The records are damaged from some point on; the reason says where.
    /// The records before it were read.
    Corrupt { reason: String },
    /// An unfinished recording read with `--salvage`; the reason says what
    /// is missing and how far it was read.
    Salvaged { reason: String },
}

/// An opened recording, ready to stream its records.
pub struct Recording {
    pub info: RecordingInfo,
    input: String,
    reader: Reader,
    /// What a salvaged file lacks, and whether its records may end inside one.
    salvaged: Option<validate::Salvage>,
}

enum Reader {
    Records(RecordReader),
    /// simpleperf files have no rounds: linux-perf-data's reader makes some.
    Simpleperf(Box<Simpleperf>),
}

/// linux-perf-data's reader of a simpleperf file, and the file's events.
struct Simpleperf {
    perf_file: PerfFile,
    records: PerfRecordIter<BufReader<File>>,
    events: Events,
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
    let header_size = validate::ByteOrder { big_endian }
        .u64(bytes, 8)
        .expect("16 bytes");
    Ok(Preamble {
        big_endian,
        header_size,
    })
}

/// `PERF_RECORD_HEADER_ATTR` and `PERF_RECORD_HEADER_FEATURE`: the records
/// at the start of a pipe stream that describe it.
const HEADER_ATTR: u32 = 64;
const HEADER_FEATURE: u32 = 80;
/// perf describes a stream in a few dozen such records (one per event and
/// feature); a stream of endless ones is not perf's.
const MAX_HEADER_RECORDS: usize = 1 << 12;

impl Recording {
    /// Opens `input`, detecting file or pipe format, and validates it. With
    /// `salvage`, a file perf did not finish is read as far as it goes.
    pub fn open(input: &Input, salvage: bool) -> Result<Recording, Error> {
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
                Self::open_file(file, len, name, salvage)
            }
            Input::Stdin => Self::open_stream(Box::new(std::io::stdin()), name),
        }
    }

    fn open_file(
        mut file: File,
        len: u64,
        name: String,
        salvage: bool,
    ) -> Result<Recording, Error> {
        if !file_is_regular(&file) {
            return Self::open_stream(Box::new(file), name);
        }
        let mut start = [0u8; 16];
        let got = read_up_to(&mut file, &mut start).map_err(|error| corrupt(&name, error))?;
        let preamble = read_preamble(&start[..got], &name)?;
        if preamble.header_size == 16 {
            file.seek(SeekFrom::Start(0))
                .map_err(|error| corrupt(&name, error))?;
            return Self::open_stream(Box::new(file), name);
        }
        let layout = validate::check_file_structure(&mut file, len, preamble.big_endian, salvage)
            .map_err(|problem| match problem {
            validate::Problem::Truncated(reason) => Error::Truncated {
                input: name.clone(),
                reason,
            },
            validate::Problem::Corrupt(reason) => Error::Corrupt {
                input: name.clone(),
                reason,
            },
        })?;
        let parsed = match &layout.salvage {
            Some(salvage) => {
                guarded(&name, || {
                    PerfFileReader::parse_file(Cursor::new(salvage.header.clone()))
                })?
                .perf_file
            }
            None => {
                file.seek(SeekFrom::Start(0))
                    .map_err(|error| corrupt(&name, error))?;
                let copy = file.try_clone().map_err(|error| corrupt(&name, error))?;
                let reader = guarded(&name, || {
                    PerfFileReader::parse_file(BufReader::with_capacity(READ_BUFFER, copy))
                })?;
                if reader
                    .perf_file
                    .features()
                    .has_feature(Feature::SIMPLEPERF_META_INFO)
                {
                    return Ok(Recording {
                        info: recording_info(&reader.perf_file, false),
                        input: name,
                        reader: Reader::Simpleperf(Box::new(Simpleperf {
                            events: Events::new(&reader.perf_file),
                            perf_file: reader.perf_file,
                            records: reader.record_iter,
                        })),
                        salvaged: None,
                    });
                }
                reader.perf_file
            }
        };
        let info = recording_info(&parsed, false);
        let events = Events::new(&parsed);
        // A file that cannot be mapped (some FUSE or network file systems)
        // is read as a stream instead.
        let source = match MappedFile::new(&file, &layout.data) {
            Ok(Some(map)) => {
                Source::Mapped(map, layout.data.start as usize..layout.data.end as usize)
            }
            _ => {
                file.seek(SeekFrom::Start(layout.data.start))
                    .map_err(|error| corrupt(&name, error))?;
                let len = layout.data.end - layout.data.start;
                Source::Stream {
                    reader: Box::new(BufReader::with_capacity(READ_BUFFER, file).take(len)),
                    start: layout.data.start,
                    kind: StreamKind::FileData { len },
                }
            }
        };
        let end_may_be_cut = layout
            .salvage
            .as_ref()
            .is_some_and(|salvage| salvage.data_may_be_cut);
        Ok(Recording {
            info,
            input: name,
            reader: Reader::Records(RecordReader::new(events, source, end_may_be_cut)),
            salvaged: layout.salvage,
        })
    }

    fn open_stream(mut source: Box<dyn Read>, name: String) -> Result<Recording, Error> {
        let mut start = [0u8; 16];
        let got = read_up_to(&mut source, &mut start).map_err(|error| corrupt(&name, error))?;
        if got == 0 {
            return Err(Error::Empty { input: name });
        }
        let cut_short = |bytes: usize, reason| Error::StreamCutShort {
            input: name.clone(),
            bytes: bytes as u64,
            reason,
            samples: 0,
        };
        let preamble = read_preamble(&start[..got], &name).map_err(|error| match error {
            Error::Truncated { .. } => cut_short(got, "it ends inside the 16-byte preamble"),
            other => other,
        })?;
        if preamble.header_size != 16 {
            return Err(Error::FileModeStream { input: name });
        }
        let order = validate::ByteOrder {
            big_endian: preamble.big_endian,
        };
        // The records that describe the stream, up to its first other record.
        let mut head = start.to_vec();
        let mut header_records = 0;
        let first = loop {
            let mut header = [0u8; 8];
            let got =
                read_up_to(&mut source, &mut header).map_err(|error| corrupt(&name, error))?;
            if got < header.len() {
                if got > 0 {
                    return Err(cut_short(
                        head.len() + got,
                        "it ends in the middle of a record",
                    ));
                }
                break Vec::new();
            }
            let record_type = order.u32(&header, 0).expect("8 bytes");
            let size = usize::from(order.u16(&header, 6).expect("8 bytes"));
            if record_type != HEADER_ATTR && record_type != HEADER_FEATURE {
                break header.to_vec();
            }
            header_records += 1;
            if header_records > MAX_HEADER_RECORDS {
                return Err(corrupt(
                    &name,
                    format!(
                        "the stream starts with more than {MAX_HEADER_RECORDS} records that \
                         describe it"
                    ),
                ));
            }
            let Some(body_len) = size.checked_sub(header.len()) else {
                return Err(corrupt(
                    &name,
                    format!(
                        "the record at byte {} of the stream states a size of {size} bytes",
                        head.len()
                    ),
                ));
            };
            let mut body = vec![0u8; body_len];
            let got = read_up_to(&mut source, &mut body).map_err(|error| corrupt(&name, error))?;
            if got < body_len {
                return Err(cut_short(
                    head.len() + header.len() + got,
                    "it ends in the middle of a record",
                ));
            }
            if record_type == HEADER_ATTR {
                validate::check_attribute(&body, order).map_err(|problem| {
                    corrupt(
                        &name,
                        format!(
                            "the event attribute at byte {} of the stream {problem}",
                            head.len()
                        ),
                    )
                })?;
            }
            if record_type == HEADER_FEATURE {
                validate::check_pipe_feature(&body, order).map_err(|problem| {
                    corrupt(
                        &name,
                        format!(
                            "the header feature record at byte {} of the stream {problem}",
                            head.len()
                        ),
                    )
                })?;
            }
            head.extend_from_slice(&header);
            head.extend_from_slice(&body);
        };
        let start = head.len() as u64;
        let perf_file = guarded(&name, || PerfFileReader::parse_pipe(Cursor::new(head)))?.perf_file;
        let info = recording_info(&perf_file, true);
        let events = Events::new(&perf_file);
        let source = Source::Stream {
            reader: Box::new(Cursor::new(first).chain(source)),
            start,
            kind: StreamKind::Pipe,
        };
        Ok(Recording {
            info,
            input: name,
            reader: Reader::Records(RecordReader::new(events, source, false)),
            salvaged: None,
        })
    }

    /// Streams every record to `handle`, in time order, and says how the input ended.
    pub fn for_each_record(
        &mut self,
        mut handle: impl FnMut(Record<'_>),
    ) -> Result<InputEnd, Error> {
        self.for_each_event(|attr_index, record| deliver(attr_index, &record, &mut handle))
    }

    /// Hands every event record, with the index of its event, to `handle`
    /// in time order; `handle` refuses a record by saying why.
    fn for_each_event(
        &mut self,
        mut handle: impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<InputEnd, Error> {
        let input = self.input.clone();
        let records = match &mut self.reader {
            Reader::Records(records) => records,
            Reader::Simpleperf(simpleperf) => {
                let Simpleperf {
                    perf_file,
                    records,
                    events,
                } = &mut **simpleperf;
                drain(perf_file, records, events, &input, &mut handle)?;
                return Ok(InputEnd::Complete);
            }
        };
        let end = records.for_each(handle);
        Ok(match (end, &self.salvaged) {
            (ReadEnd::Complete, None) => InputEnd::Complete,
            (ReadEnd::Complete, Some(salvage)) => InputEnd::Salvaged {
                reason: match salvage.data_may_be_cut {
                    true => format!("{}; all of its records were read", salvage.reason),
                    false => salvage.reason.clone(),
                },
            },
            (ReadEnd::Salvaged { read_to }, salvage) => InputEnd::Salvaged {
                reason: format!(
                    "{}; it was read up to its last complete record, which ends at byte \
                     {read_to}",
                    salvage
                        .as_ref()
                        .map_or("the file is cut", |salvage| &salvage.reason)
                ),
            },
            (ReadEnd::CutShort { bytes, reason }, _) => InputEnd::CutShort { bytes, reason },
            (ReadEnd::Corrupt(reason), _) => InputEnd::Corrupt { reason },
        })
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

/// Pulls every record from linux-perf-data's reader and hands the ones the
/// pipeline uses to `handle`, after the checks the own reader makes.
fn drain<R: Read>(
    perf_file: &mut PerfFile,
    records: &mut PerfRecordIter<R>,
    events: &Events,
    input: &str,
    handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
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
        events
            .check(&record)
            .and_then(|()| handle(attr_index, record))
            .map_err(|reason| corrupt(input, reason))?;
    }
}

/// Decodes one event record and hands it to `handle` if the pipeline uses
/// it; the error says why it cannot be decoded.
fn deliver(
    attr_index: usize,
    record: &RawEventRecord<'_>,
    handle: &mut impl FnMut(Record<'_>),
) -> Result<(), String> {
    let parsed = catch_unwind(AssertUnwindSafe(|| record.parse()));
    let event = match parsed {
        Ok(Ok(event)) => event,
        Ok(Err(error)) => return Err(format!("undecodable record: {error}")),
        Err(_) => return Err("the perf.data parser rejected a malformed record".to_owned()),
    };
    if let Some(record) = convert(attr_index, event, record.timestamp().unwrap_or(0)) {
        handle(record);
    }
    Ok(())
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
                period: sample.period,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// (event, type, misc, time, body) of every event record, in the order given.
    type Seen = Vec<(usize, u32, u16, Option<u64>, Vec<u8>)>;

    fn seen(
        attr_index: usize,
        record: &RawEventRecord<'_>,
    ) -> (usize, u32, u16, Option<u64>, Vec<u8>) {
        (
            attr_index,
            record.record_type.0,
            record.misc,
            record.timestamp(),
            record.data.as_slice().into_owned(),
        )
    }

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    fn by_linux_perf_data(path: &Path) -> Seen {
        let file = BufReader::new(File::open(path).unwrap());
        let PerfFileReader {
            mut perf_file,
            mut record_iter,
        } = if path.to_string_lossy().contains("pipe") {
            PerfFileReader::parse_pipe(file).unwrap()
        } else {
            PerfFileReader::parse_file(file).unwrap()
        };
        let mut records = Vec::new();
        while let Some(record) = record_iter.next_record(&mut perf_file).unwrap() {
            if let PerfFileRecord::EventRecord { attr_index, record } = record {
                records.push(seen(attr_index, &record));
            }
        }
        records
    }

    /// Compares the records of the recordings listed in
    /// `COMPILE_PERF_COMPARE` (paths separated by `:`) with linux-perf-data's,
    /// by digest: for checking real recordings, too large to commit.
    /// `COMPILE_PERF_COMPARE=run/perf.data cargo test --release --lib -- --ignored`
    #[test]
    #[ignore = "needs COMPILE_PERF_COMPARE=FILE[:FILE…]"]
    fn recordings_named_in_the_environment_read_as_linux_perf_data_reads_them() {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let digest = |seen: (usize, u32, u16, Option<u64>, Vec<u8>)| {
            let mut hasher = DefaultHasher::new();
            seen.hash(&mut hasher);
            hasher.finish()
        };
        let paths = std::env::var("COMPILE_PERF_COMPARE")
            .expect("COMPILE_PERF_COMPARE names the recordings to compare");
        for path in paths.split(':').map(Path::new) {
            let pipe = validate::ByteOrder { big_endian: false }
                .u64(&std::fs::read(path).unwrap()[..16], 8)
                == Some(16);
            let file = BufReader::new(File::open(path).unwrap());
            let PerfFileReader {
                mut perf_file,
                mut record_iter,
            } = if pipe {
                PerfFileReader::parse_pipe(file).unwrap()
            } else {
                PerfFileReader::parse_file(file).unwrap()
            };
            let mut expected = Vec::new();
            while let Some(record) = record_iter.next_record(&mut perf_file).unwrap() {
                if let PerfFileRecord::EventRecord { attr_index, record } = record {
                    expected.push(digest(seen(attr_index, &record)));
                }
            }
            let mut recording = Recording::open(&Input::Path(path.to_owned()), false).unwrap();
            let mut records = Vec::new();
            let end = recording
                .for_each_event(|attr_index, record| {
                    records.push(digest(seen(attr_index, &record)));
                    Ok(())
                })
                .unwrap();
            assert_eq!(end, InputEnd::Complete, "{}", path.display());
            assert_eq!(records.len(), expected.len(), "{}", path.display());
            let first_difference = records.iter().zip(&expected).position(|(a, b)| a != b);
            assert_eq!(
                first_difference,
                None,
                "{}: same records, same order",
                path.display()
            );
            eprintln!("{}: {} records, identical", path.display(), records.len());
        }
    }

    fn read_all(recording: &mut Recording) -> Seen {
        let mut records = Vec::new();
        let end = recording
            .for_each_event(|attr_index, record| {
                records.push(seen(attr_index, &record));
                Ok(())
            })
            .unwrap();
        assert_eq!(end, InputEnd::Complete);
        records
    }

    /// A file's records read as a stream, as when the file cannot be mapped.
    fn streamed(path: &Path) -> Recording {
        let mut recording = Recording::open(&Input::Path(path.to_owned()), false).unwrap();
        let mut file = File::open(path).unwrap();
        let len = file.metadata().unwrap().len();
        let layout = validate::check_file_structure(&mut file, len, false, false).unwrap();
        file.seek(SeekFrom::Start(layout.data.start)).unwrap();
        let data_len = layout.data.end - layout.data.start;
        let parsed = PerfFileReader::parse_file(BufReader::new(File::open(path).unwrap())).unwrap();
        let source = Source::Stream {
            reader: Box::new(file.take(data_len)),
            start: layout.data.start,
            kind: StreamKind::FileData { len: data_len },
        };
        recording.reader = Reader::Records(RecordReader::new(
            Events::new(&parsed.perf_file),
            source,
            false,
        ));
        recording
    }

    #[test]
    fn records_come_in_the_order_and_with_the_events_linux_perf_data_gives() {
        for name in [
            "fake-fp.perf.data",
            "fake-rounds.perf.data",
            "fake-dwarf.perf.data",
            "fake-dwarf-buildid-mmap.perf.data",
            "fake-multi-event.perf.data",
            "fake-pipe.perf.data",
        ] {
            let path = fixture(name);
            let expected = by_linux_perf_data(&path);
            assert!(expected.len() > 100, "{name} has records");
            let mut recording = Recording::open(&Input::Path(path.clone()), false).unwrap();
            assert!(
                read_all(&mut recording) == expected,
                "{name}: same records, same order"
            );
            if !name.contains("pipe") {
                assert!(
                    read_all(&mut streamed(&path)) == expected,
                    "{name}, read as a stream: same records, same order"
                );
            }
            let events: std::collections::BTreeSet<usize> =
                expected.iter().map(|record| record.0).collect();
            let expected_events = if name.contains("rounds") || name.contains("multi") {
                2
            } else {
                1
            };
            assert_eq!(
                events.len(),
                expected_events,
                "{name}: every event has records"
            );
        }
    }
}
