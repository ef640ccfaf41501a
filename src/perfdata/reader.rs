//! Reads the records of a recording, in place and in perf's order: from a
//! memory-mapped file or from a stream (a pipe, or a file that cannot be
//! mapped), plain or zstd-compressed (`-z`).
//!
//! linux-perf-data copies every record into a buffer of its own (with DWARF
//! stack copies, a zero-filled 64 KiB buffer and a 64 KiB copy per sample),
//! and skips what it cannot make sense of. Here records are parsed where
//! they lie with linux-perf-event-reader, the record layer linux-perf-data is
//! built on: in the mapped file, or in the chunks a stream or the zstd
//! decompressor writes to. They are ordered as perf orders them: by time,
//! each FINISHED_ROUND releasing what no later record can precede. Every
//! record is checked first ([`plausible`](super::plausible)); the first one
//! that is not what perf writes ends the reading, after the records before
//! it are handed on.

use std::collections::VecDeque;
use std::fmt;
use std::io::Read;
use std::ops::Range;
use std::sync::mpsc::{Sender, channel};

use hashbrown::HashMap;
use linux_perf_data::linux_perf_event_reader::{
    AttrFlags, RawData, RawEventRecord, RecordParseInfo, RecordType,
};
use linux_perf_data::{Endianness, PerfFile};

use super::chunks::{ChunkAt, Chunks};
use super::decompress::Decompressor;
use super::mapped::{MappedFile, ReaderAt};
use super::plausible::{RecordRules, is_known_type, is_perf_type};
use super::validate::ByteOrder;

/// Size of `struct perf_event_header`.
const HEADER_SIZE: usize = 8;
/// `PERF_RECORD_LOST_SAMPLES`: perf 6.1 writes one after its closing round.
const LOST_SAMPLES: u32 = 13;
/// `PERF_RECORD_FINISHED_ROUND` (perf's `tools/perf/util/event.h`): no record
/// after it is older than the records before the previous one.
const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_AUXTRACE`: its payload follows the record, outside its size.
const AUXTRACE: u32 = 71;
/// `PERF_RECORD_COMPRESSED`: its body is zstd data.
const COMPRESSED: u32 = 81;
/// `PERF_RECORD_COMPRESSED2`: the size of the zstd data, the data, padding.
const COMPRESSED2: u32 = 83;
/// A stream is read in steps of at least this many bytes.
const READ_STEP: usize = 64 << 10;
/// Pages of a mapped file are mapped ahead of the reader, and dropped
/// behind it, in steps of this many bytes.
pub(super) const PAGE_STEP: usize = 8 << 20;

/// How a reading ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ReadEnd {
    /// Every record up to the end of the data.
    Complete,
    /// A pipe stream that stopped before perf finished writing it.
    CutShort { bytes: u64, reason: &'static str },
    /// The record stream is damaged; the reason says where and how.
    Corrupt(String),
    /// A salvaged file ends in a record perf did not finish writing; the
    /// records before byte `read_to` were read.
    Salvaged { read_to: u64 },
}

/// Where the records come from.
pub(super) enum Source {
    /// The data section (byte range) of a mapped file.
    Mapped(MappedFile, Range<usize>),
    /// A pipe-mode stream after its header records, or the data section of
    /// a file that cannot be mapped; `start` is the offset of its first byte.
    Stream {
        reader: Box<dyn Read>,
        start: u64,
        kind: StreamKind,
    },
}

/// What a stream is, which decides what its end means.
#[derive(Clone, Copy, Debug)]
pub(super) enum StreamKind {
    /// perf's pipe mode: complete when it ends with perf's closing round.
    Pipe,
    /// A file's data section of this many bytes.
    FileData { len: u64 },
}

/// How one recording's records are laid out: its events, and how a record
/// names its event.
pub(super) struct Events {
    parse_infos: Vec<RecordParseInfo>,
    ids: EventIds,
    event_of_id: HashMap<u64, usize>,
    rules: RecordRules,
}

/// Where a record's event id is.
enum EventIds {
    /// One event: every record is its.
    One,
    /// Every event puts the id at the same place.
    Same,
    /// Every event has `PERF_SAMPLE_IDENTIFIER`: first in samples, last in
    /// other records (with `sample_id_all`).
    Identifier { sample_id_all: bool },
}

impl Events {
    pub(super) fn new(perf_file: &PerfFile) -> Events {
        let endian = perf_file.endian();
        let attributes = perf_file.event_attributes();
        let parse_infos: Vec<RecordParseInfo> = attributes
            .iter()
            .map(|attribute| RecordParseInfo::new(&attribute.attr, endian))
            .collect();
        let first = parse_infos.first();
        let ids = if parse_infos.len() <= 1 {
            EventIds::One
        } else if parse_infos
            .iter()
            .all(|info| Some(&info.id_parse_info) == first.map(|first| &first.id_parse_info))
        {
            EventIds::Same
        } else {
            EventIds::Identifier {
                sample_id_all: attributes
                    .first()
                    .is_some_and(|first| first.attr.flags.contains(AttrFlags::SAMPLE_ID_ALL)),
            }
        };
        let event_of_id = attributes
            .iter()
            .enumerate()
            .flat_map(|(index, attribute)| attribute.event_ids.iter().map(move |&id| (id, index)))
            .collect();
        let exact_trailers = parse_infos.iter().all(|info| {
            Some(info.common_data_offset_from_end)
                == first.map(|first| first.common_data_offset_from_end)
        });
        Events {
            parse_infos,
            ids,
            event_of_id,
            rules: RecordRules {
                order: ByteOrder {
                    big_endian: endian == Endianness::BigEndian,
                },
                exact_trailers,
            },
        }
    }

    /// The event a record belongs to, by its id; the first when it has none.
    fn event_of(&self, header: Header, body: &[u8]) -> usize {
        let id = match self.ids {
            EventIds::One => return 0,
            EventIds::Same => self.record(header, body, 0).id(),
            EventIds::Identifier { sample_id_all } => {
                let order = self.rules.order;
                if header.record_type == RecordType::SAMPLE.0 {
                    order.u64(body, 0)
                } else if sample_id_all {
                    body.len().checked_sub(8).and_then(|at| order.u64(body, at))
                } else {
                    None
                }
            }
        };
        id.and_then(|id| self.event_of_id.get(&id).copied())
            .unwrap_or(0)
    }

    /// Checks a record parsed elsewhere (by linux-perf-data) as this
    /// reader checks its own.
    pub(super) fn check(&self, record: &RawEventRecord<'_>) -> Result<(), String> {
        self.rules.check(record)
    }

    /// The record with `header` and `body`, parsed as one of event `attr_index`.
    fn record<'a>(&self, header: Header, body: &'a [u8], attr_index: usize) -> RawEventRecord<'a> {
        RawEventRecord::new(
            RecordType(header.record_type),
            header.misc,
            RawData::Single(body),
            self.parse_infos[attr_index],
        )
    }
}

/// A record's `struct perf_event_header`, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    record_type: u32,
    misc: u16,
    size: usize,
}

/// What the bytes at the reader hold.
enum Next {
    Record(Header),
    /// Not all of the record is there (yet).
    Incomplete,
    Bad(String),
}

/// Reads the record header at the start of `bytes`.
fn next_header(bytes: &[u8], order: ByteOrder) -> Next {
    let Some(header) = bytes.get(..HEADER_SIZE) else {
        return Next::Incomplete;
    };
    let record_type = order.u32(header, 0).expect("inside the header");
    let misc = order.u16(header, 4).expect("inside the header");
    let size = usize::from(order.u16(header, 6).expect("inside the header"));
    if !is_known_type(record_type) {
        return Next::Bad(format!(
            "a record has type {record_type}, which neither perf nor the kernel writes"
        ));
    }
    if size < HEADER_SIZE {
        return Next::Bad(format!(
            "a record of type {record_type} states a size of {size} bytes, less than its header"
        ));
    }
    if !is_perf_type(record_type) && size % 8 != 0 {
        return Next::Bad(format!(
            "a record of type {record_type} states a size of {size} bytes; the kernel's \
             records are multiples of 8"
        ));
    }
    if size > bytes.len() {
        return Next::Incomplete;
    }
    Next::Record(Header {
        record_type,
        misc,
        size,
    })
}

/// Where a record's bytes are, which also orders records of equal time:
/// decompressed records first (as linux-perf-data orders them), then in
/// the order they were read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Decompressed(ChunkAt),
    /// At this offset of the mapped file.
    File(usize),
    /// In the chunks of the stream.
    Stream(ChunkAt),
}

/// Where a record was found, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// At this byte of the file, or of the stream.
    Top { offset: u64, stream: bool },
    /// At byte `within` of the bytes decompressed from the compressed
    /// record at `record`.
    Decompressed {
        record: u64,
        within: u64,
        stream: bool,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = |stream: bool| if stream { "stream" } else { "file" };
        match *self {
            Origin::Top { offset, stream } => {
                write!(out, "at byte {offset} of the {}", whole(stream))
            }
            Origin::Decompressed {
                record,
                within,
                stream,
            } => write!(
                out,
                "at byte {within} of the data decompressed from the compressed record at byte \
                 {record} of the {}",
                whole(stream)
            ),
        }
    }
}

/// A record's place in perf's order: its time (records without one first),
/// then its place.
type SortKey = (Option<u64>, Place);

/// A record read but not yet handed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    key: SortKey,
    attr_index: usize,
    header: Header,
    origin: Origin,
}

/// Puts records in perf's time order. perf writes each CPU's buffer in
/// turn, so records arrive out of order, and marks with FINISHED_ROUND the
/// points after which no record is older than anything before the previous
/// mark: a round's records can be handed on once the next round has ended.
#[derive(Default)]
struct RoundOrder {
    pending: Vec<Pending>,
    /// The latest key seen before the last FINISHED_ROUND.
    previous_round_max: Option<SortKey>,
    max_seen: Option<SortKey>,
}

impl RoundOrder {
    fn push(&mut self, record: Pending) {
        self.max_seen = self.max_seen.max(Some(record.key));
        self.pending.push(record);
    }

    /// At a FINISHED_ROUND: the records no later record can precede, in order.
    fn finish_round(&mut self) -> std::vec::Drain<'_, Pending> {
        self.pending.sort_unstable_by_key(|record| record.key);
        let limit = self.previous_round_max;
        let ready = self
            .pending
            .partition_point(|record| Some(record.key) <= limit);
        self.previous_round_max = self.max_seen;
        self.pending.drain(..ready)
    }

    /// At the end: every record left, in order.
    fn finish(&mut self) -> std::vec::Drain<'_, Pending> {
        self.pending.sort_unstable_by_key(|record| record.key);
        self.pending.drain(..)
    }

    /// The smallest value `of` gives for a record still held.
    fn oldest<T: Ord>(&self, of: impl Fn(&Place) -> Option<T>) -> Option<T> {
        self.pending
            .iter()
            .filter_map(|record| of(&record.key.1))
            .min()
    }
}

/// Why a reading stopped early.
enum Stop {
    /// Reading found damage; what was read before it is still handed on.
    Read(String),
    /// The record handler refused a record (the reason names it); nothing
    /// more is handed on.
    HandOn(String),
    /// A stream ended before perf finished it.
    CutShort { bytes: u64, reason: &'static str },
    /// A salvaged file ends here.
    Salvaged { read_to: u64 },
}

/// The records of one recording, ready to be read once.
pub(super) struct RecordReader {
    events: Events,
    source: Option<Source>,
    /// Whether the data may end inside a record (a salvaged file whose
    /// data section's end is not known).
    end_may_be_cut: bool,
}

impl RecordReader {
    pub(super) fn new(events: Events, source: Source, end_may_be_cut: bool) -> RecordReader {
        RecordReader {
            events,
            source: Some(source),
            end_may_be_cut,
        }
    }

    /// Hands every event record, with the index of its event, to `handle`
    /// in perf's order, and says how the records ended. `handle` refuses a
    /// record by returning why; that ends the reading as corrupt.
    pub(super) fn for_each(
        &mut self,
        mut handle: impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> ReadEnd {
        let Some(source) = self.source.take() else {
            return ReadEnd::Complete;
        };
        let stream = matches!(
            source,
            Source::Stream {
                kind: StreamKind::Pipe,
                ..
            }
        );
        let mut core = Core {
            events: &self.events,
            order: RoundOrder::default(),
            decompressed: Chunks::new(),
            decompressor: None,
            compressed_starts: VecDeque::new(),
            ended_with_round: false,
            stream,
        };
        let end_may_be_cut = self.end_may_be_cut;
        let (read, stream_chunks, map) = match source {
            Source::Mapped(map, data) => {
                let read = std::thread::scope(|scope| {
                    let (tell, told) = channel();
                    let keeper_data = data.clone();
                    let map = &map;
                    scope.spawn(move || map.keep_pages_near_reader(keeper_data, told));
                    core.read_mapped(map.bytes(), data, end_may_be_cut, tell, &mut handle)
                });
                (read, None, Some(map))
            }
            Source::Stream {
                reader,
                start,
                kind,
            } => {
                let mut chunks = Chunks::new();
                let read = core.read_stream(
                    reader,
                    start,
                    kind,
                    end_may_be_cut,
                    &mut chunks,
                    &mut handle,
                );
                (read, Some(chunks), None)
            }
        };
        let bytes = Bytes {
            map: map.as_ref().map(MappedFile::bytes),
            stream: stream_chunks.as_ref(),
        };
        let stop = match read {
            Ok(()) => core.check_decompressed_end(end_may_be_cut).err(),
            Err(stop) => Some(stop),
        };
        if let Some(Stop::HandOn(reason)) = stop {
            return ReadEnd::Corrupt(reason);
        }
        if let Err(Stop::HandOn(reason)) = core.hand_on_all(&bytes, &mut handle) {
            return ReadEnd::Corrupt(reason);
        }
        match stop {
            None => ReadEnd::Complete,
            Some(Stop::Read(reason) | Stop::HandOn(reason)) => ReadEnd::Corrupt(reason),
            Some(Stop::CutShort { bytes, reason }) => ReadEnd::CutShort { bytes, reason },
            Some(Stop::Salvaged { read_to }) => ReadEnd::Salvaged { read_to },
        }
    }
}

/// The byte stores records are handed on from, besides the decompressed chunks.
struct Bytes<'a> {
    map: Option<&'a [u8]>,
    stream: Option<&'a Chunks>,
}

/// The state of one reading.
struct Core<'e> {
    events: &'e Events,
    order: RoundOrder,
    decompressed: Chunks,
    decompressor: Option<Decompressor>,
    /// Where the output of recent compressed records starts in the
    /// decompressed stream, and where each record is.
    compressed_starts: VecDeque<(u64, u64)>,
    /// Whether the last top-level record (LOST_SAMPLES aside) was a FINISHED_ROUND.
    ended_with_round: bool,
    /// Whether offsets are of a pipe stream rather than a file (for messages).
    stream: bool,
}

impl Core<'_> {
    fn read_mapped(
        &mut self,
        map: &[u8],
        data: Range<usize>,
        end_may_be_cut: bool,
        tell_pages: Sender<ReaderAt>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        let bytes = Bytes {
            map: Some(map),
            stream: None,
        };
        let order = self.events.rules.order;
        let mut next_step = data.start + PAGE_STEP;
        let mut offset = data.start;
        while offset < data.end {
            let origin = Origin::Top {
                offset: offset as u64,
                stream: false,
            };
            let header = match next_header(&map[offset..data.end], order) {
                Next::Record(header) => header,
                Next::Incomplete if end_may_be_cut => {
                    return Err(Stop::Salvaged {
                        read_to: offset as u64,
                    });
                }
                Next::Bad(_) if end_may_be_cut && map[offset..data.end].iter().all(|&b| b == 0) => {
                    return Err(Stop::Salvaged {
                        read_to: offset as u64,
                    });
                }
                Next::Incomplete => {
                    return Err(Stop::Read(format!(
                        "the record {origin} runs past the end of the data section at byte {}",
                        data.end
                    )));
                }
                Next::Bad(reason) => return Err(Stop::Read(format!("{reason} ({origin})"))),
            };
            let record = &map[offset..offset + header.size];
            let place = Place::File(offset);
            let payload = self.top_level(header, record, place, offset as u64, &bytes, handle)?;
            offset += header.size;
            if payload > 0 {
                offset = usize::try_from(payload)
                    .ok()
                    .and_then(|payload| offset.checked_add(payload))
                    .filter(|&end| end <= data.end)
                    .ok_or_else(|| {
                        Stop::Read(format!(
                            "the AUXTRACE record {origin} states {payload} bytes of trace data, \
                             past the end of the data section"
                        ))
                    })?;
            }
            if header.record_type == FINISHED_ROUND && offset >= next_step {
                next_step = offset + PAGE_STEP;
                let needed = self
                    .order
                    .oldest(|place| match place {
                        Place::File(offset) => Some(*offset),
                        _ => None,
                    })
                    .unwrap_or(offset);
                // The page keeper stops only when this function returns.
                let _ = tell_pages.send(ReaderAt {
                    reached: offset,
                    needed,
                });
            }
        }
        Ok(())
    }

    fn read_stream(
        &mut self,
        mut reader: Box<dyn Read>,
        start: u64,
        kind: StreamKind,
        end_may_be_cut: bool,
        chunks: &mut Chunks,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        let order = self.events.rules.order;
        let mut skip: u64 = 0;
        let mut total: u64 = 0;
        loop {
            let space = chunks.space(READ_STEP);
            let got = loop {
                match reader.read(space) {
                    Ok(got) => break got,
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(error) => {
                        return Err(Stop::Read(format!(
                            "reading failed after byte {}: {error}",
                            start + total
                        )));
                    }
                }
            };
            chunks.commit(got);
            total += got as u64;
            loop {
                let (at, unparsed) = chunks.unparsed();
                if skip > 0 {
                    let skipped = skip.min(unparsed.len() as u64);
                    chunks.consume(skipped as usize);
                    skip -= skipped;
                    if skip > 0 {
                        break;
                    }
                    continue;
                }
                let offset = start + chunks.position(at);
                let origin = Origin::Top {
                    offset,
                    stream: self.stream,
                };
                let header = match next_header(unparsed, order) {
                    Next::Record(header) => header,
                    Next::Incomplete => break,
                    Next::Bad(reason) => return Err(Stop::Read(format!("{reason} ({origin})"))),
                };
                let bytes = Bytes {
                    map: None,
                    stream: Some(chunks),
                };
                skip = self.top_level(
                    header,
                    &unparsed[..header.size],
                    Place::Stream(at),
                    offset,
                    &bytes,
                    handle,
                )?;
                chunks.consume(header.size);
            }
            chunks.release_before(
                self.order
                    .oldest(|place| match place {
                        Place::Stream(at) => Some(at.chunk),
                        _ => None,
                    })
                    .unwrap_or(u64::MAX)
                    .min(chunks.last_chunk()),
            );
            if got == 0 {
                break;
            }
        }
        let inside_record = skip > 0 || !chunks.unparsed().1.is_empty();
        let end = start + total;
        match kind {
            StreamKind::Pipe => {
                let reason = if inside_record {
                    Some("it ends in the middle of a record")
                } else if !self.ended_with_round {
                    Some("it lacks the closing FINISHED_ROUND record that perf writes last")
                } else {
                    None
                };
                match reason {
                    Some(reason) => Err(Stop::CutShort { bytes: end, reason }),
                    None => Ok(()),
                }
            }
            StreamKind::FileData { .. } if inside_record && end_may_be_cut => Err(Stop::Salvaged {
                read_to: start + chunks.position(chunks.unparsed().0),
            }),
            StreamKind::FileData { len } if inside_record || total < len => {
                Err(Stop::Read(format!(
                    "the records end at byte {end}, inside a record or before the end of the data \
                 section at byte {}",
                    start + len
                )))
            }
            StreamKind::FileData { .. } => Ok(()),
        }
    }

    /// Acts on one top-level record: orders a round, decompresses, or
    /// holds an event record. Returns the bytes of AUXTRACE payload that
    /// follow the record.
    fn top_level(
        &mut self,
        header: Header,
        record: &[u8],
        place: Place,
        offset: u64,
        bytes: &Bytes<'_>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<u64, Stop> {
        let body = &record[HEADER_SIZE..];
        let origin = Origin::Top {
            offset,
            stream: self.stream,
        };
        if header.record_type != LOST_SAMPLES {
            self.ended_with_round = header.record_type == FINISHED_ROUND;
        }
        match header.record_type {
            FINISHED_ROUND => self.hand_on_round(bytes, handle)?,
            COMPRESSED | COMPRESSED2 => self.decompress(header.record_type, body, offset)?,
            AUXTRACE => {
                return self.events.rules.order.u64(body, 0).ok_or_else(|| {
                    Stop::Read(format!("the AUXTRACE record {origin} is too short"))
                });
            }
            record_type if is_perf_type(record_type) => {}
            _ => hold(self.events, &mut self.order, header, record, place, origin)?,
        }
        Ok(0)
    }

    /// Decompresses the body of a compressed record at `offset` and holds
    /// the event records completed by it.
    fn decompress(&mut self, record_type: u32, body: &[u8], offset: u64) -> Result<(), Stop> {
        let origin = Origin::Top {
            offset,
            stream: self.stream,
        };
        let input = if record_type == COMPRESSED2 {
            let order = self.events.rules.order;
            order
                .u64(body, 0)
                .and_then(|len| usize::try_from(len).ok())
                .and_then(|len| body.get(8..8usize.checked_add(len)?))
                .ok_or_else(|| {
                    Stop::Read(format!(
                        "the compressed record {origin} states more data than it holds"
                    ))
                })?
        } else {
            body
        };
        self.compressed_starts
            .push_back((self.decompressed.written(), offset));
        let mut consumed = 0;
        loop {
            let done = self
                .decompressor
                .get_or_insert_with(Decompressor::new)
                .step(input, &mut consumed, &mut self.decompressed)
                .map_err(|error| {
                    Stop::Read(format!(
                        "the zstd data of the compressed record {origin} cannot be decompressed \
                         ({error})"
                    ))
                })?;
            self.hold_decompressed()?;
            if done {
                return Ok(());
            }
        }
    }

    /// Holds the complete records in the decompressed bytes.
    fn hold_decompressed(&mut self) -> Result<(), Stop> {
        let order = self.events.rules.order;
        loop {
            let at = self.decompressed.unparsed().0;
            let origin = self.decompressed_origin(self.decompressed.position(at));
            let unparsed = self.decompressed.unparsed().1;
            let header = match next_header(unparsed, order) {
                Next::Record(header) => header,
                Next::Incomplete => return Ok(()),
                Next::Bad(reason) => return Err(Stop::Read(format!("{reason} ({origin})"))),
            };
            if !is_perf_type(header.record_type) {
                let record = &unparsed[..header.size];
                let place = Place::Decompressed(at);
                hold(self.events, &mut self.order, header, record, place, origin)?;
            }
            self.decompressed.consume(header.size);
        }
    }

    /// Where the decompressed byte at `position` came from.
    fn decompressed_origin(&mut self, position: u64) -> Origin {
        while self
            .compressed_starts
            .get(1)
            .is_some_and(|&(start, _)| start <= position)
        {
            self.compressed_starts.pop_front();
        }
        let (start, record) = self.compressed_starts.front().copied().unwrap_or((0, 0));
        Origin::Decompressed {
            record,
            within: position - start,
            stream: self.stream,
        }
    }

    /// At the end of the data, the decompressed bytes must end with a
    /// complete record (a salvaged file may end inside one).
    fn check_decompressed_end(&mut self, end_may_be_cut: bool) -> Result<(), Stop> {
        let (at, unparsed) = self.decompressed.unparsed();
        if unparsed.is_empty() || end_may_be_cut {
            return Ok(());
        }
        let left = unparsed.len();
        let origin = self.decompressed_origin(self.decompressed.position(at));
        Err(Stop::Read(format!(
            "the decompressed records end inside a record: {left} bytes are left {origin}"
        )))
    }

    fn hand_on_round(
        &mut self,
        bytes: &Bytes<'_>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        let Core {
            events,
            order,
            decompressed,
            ..
        } = self;
        hand_on(order.finish_round(), events, bytes, decompressed, handle)?;
        let keep = order
            .oldest(|place| match place {
                Place::Decompressed(at) => Some(at.chunk),
                _ => None,
            })
            .unwrap_or(u64::MAX)
            .min(decompressed.last_chunk());
        decompressed.release_before(keep);
        Ok(())
    }

    fn hand_on_all(
        &mut self,
        bytes: &Bytes<'_>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        let Core {
            events,
            order,
            decompressed,
            ..
        } = self;
        hand_on(order.finish(), events, bytes, decompressed, handle)
    }
}

/// Checks an event record and holds it in `order` until its round is handed on.
fn hold(
    events: &Events,
    order: &mut RoundOrder,
    header: Header,
    record: &[u8],
    place: Place,
    origin: Origin,
) -> Result<(), Stop> {
    let body = &record[HEADER_SIZE..];
    let attr_index = events.event_of(header, body);
    let parsed = events.record(header, body, attr_index);
    events
        .rules
        .check(&parsed)
        .map_err(|reason| Stop::Read(format!("{reason} ({origin})")))?;
    order.push(Pending {
        key: (parsed.timestamp(), place),
        attr_index,
        header,
        origin,
    });
    Ok(())
}

/// Hands `ready` records on, in order.
fn hand_on(
    ready: std::vec::Drain<'_, Pending>,
    events: &Events,
    bytes: &Bytes<'_>,
    decompressed: &Chunks,
    handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
) -> Result<(), Stop> {
    for pending in ready {
        let size = pending.header.size;
        let record = match pending.key.1 {
            Place::File(offset) => {
                &bytes.map.expect("file records come from the map")[offset..offset + size]
            }
            Place::Stream(at) => bytes
                .stream
                .expect("stream records come from the stream")
                .get(at, size),
            Place::Decompressed(at) => decompressed.get(at, size),
        };
        let parsed = events.record(pending.header, &record[HEADER_SIZE..], pending.attr_index);
        handle(pending.attr_index, parsed)
            .map_err(|reason| Stop::HandOn(format!("{reason} ({})", pending.origin)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After perf's example (`tools/perf/util/ordered-events.c`): two CPUs,
    /// three rounds; a round is handed on only when the next one has ended,
    /// and equal times keep file order (the 4 of round two waits).
    #[test]
    fn rounds_are_handed_on_one_round_late_in_time_order() {
        let mut order = RoundOrder::default();
        let mut offset = 0;
        let mut push = |order: &mut RoundOrder, time: u64| {
            offset += 8;
            order.push(Pending {
                key: (Some(time), Place::File(offset)),
                attr_index: 0,
                header: Header {
                    record_type: 9,
                    misc: 0,
                    size: 8,
                },
                origin: Origin::Top {
                    offset: offset as u64,
                    stream: false,
                },
            });
        };
        let times = |records: Vec<Pending>| -> Vec<u64> {
            records.iter().map(|record| record.key.0.unwrap()).collect()
        };
        for time in [1, 2, 2, 3, 4] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), Vec::<u64>::new());
        for time in [3, 4, 5, 6, 7] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), [1, 2, 2, 3, 3, 4]);
        let file_offset = |place: &Place| match place {
            Place::File(offset) => Some(*offset),
            _ => None,
        };
        assert_eq!(order.oldest(file_offset), Some(56));
        for time in [6, 8, 9] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), [4, 5, 6, 6, 7]);
        assert_eq!(times(order.finish().collect()), [8, 9]);
    }

    #[test]
    fn record_headers_perf_never_writes_are_refused() {
        let order = ByteOrder { big_endian: false };
        let header = |record_type: u32, size: u16| {
            let mut bytes = record_type.to_le_bytes().to_vec();
            bytes.extend_from_slice(&0u16.to_le_bytes());
            bytes.extend_from_slice(&size.to_le_bytes());
            bytes.resize(64, 0);
            bytes
        };
        assert!(matches!(next_header(&header(9, 48), order), Next::Record(h) if h.size == 48));
        assert!(
            matches!(next_header(&header(81, 19), order), Next::Record(_)),
            "compressed records are not aligned"
        );
        assert!(matches!(
            next_header(&header(9, 72), order),
            Next::Incomplete
        ));
        for (record_type, size, problem) in [
            (0, 48, "type 0"),
            (37, 48, "type 37, which neither perf nor the kernel writes"),
            (0xffff_fff0, 48, "neither perf nor the kernel"),
            (9, 4, "less than its header"),
            (9, 44, "multiples of 8"),
        ] {
            match next_header(&header(record_type, size), order) {
                Next::Bad(reason) => assert!(reason.contains(problem), "{reason}"),
                _ => panic!("type {record_type} size {size} accepted"),
            }
        }
    }
}
