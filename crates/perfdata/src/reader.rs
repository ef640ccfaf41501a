//! Reads the records of a recording, in place and in perf's order: from a
//! memory-mapped file or from a stream (a pipe, or a file that cannot be
//! mapped), plain or zstd-compressed (`-z`).
//!
//! linux-perf-data copies every record into a buffer of its own (with DWARF
//! stack copies, a zero-filled 64 KiB buffer and a 64 KiB copy per sample),
//! and skips what it cannot make sense of. Here records are parsed where
//! they lie with linux-perf-event-reader, the record layer linux-perf-data is
//! built on: in the mapped file, in the chunks a stream is read into, or in
//! the pieces the zstd decompression writes (on a thread of its own, ahead
//! of the reader, for a mapped file). They are ordered as perf orders them: by time,
//! each FINISHED_ROUND releasing what no later record can precede. Every
//! record is checked first ([`plausible`](super::plausible)); the first one
//! that is not what perf writes ends the reading, after the records before
//! it are handed on.

use std::collections::VecDeque;
use std::io::Read;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::channel;

use linux_perf_data::linux_perf_event_reader::{RawEventRecord, RecordType};

use super::chunks::Chunks;
use super::decompress::{Decompressed, Inflation};
use super::events::Events;
use super::inflate::PIECES_AHEAD;
use super::mapped::MappedFile;
use super::plausible::is_perf_type;
use super::record_header::{HEADER_SIZE, Header, Next, next_header};
use super::round_order::{Origin, Pending, Place, RoundOrder};

// The user record types below are perf's own (`tools/perf/util/event.h`);
// linux-perf-data keeps its constants for them private.
/// `PERF_RECORD_FINISHED_ROUND` (perf's `tools/perf/util/event.h`): no record
/// after it is older than the records before the previous one.
pub(super) const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_AUXTRACE`: its payload follows the record, outside its size.
pub(super) const AUXTRACE: u32 = 71;
/// `PERF_RECORD_COMPRESSED`: its body is zstd data.
pub(super) const COMPRESSED: u32 = 81;
/// `PERF_RECORD_COMPRESSED2`: the size of the zstd data, the data, padding.
pub(super) const COMPRESSED2: u32 = 83;
/// A stream is read in steps of at least this many bytes.
pub(super) const READ_STEP: usize = 64 << 10;
/// How far a mapped file is read ahead of the reader.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lookahead {
    /// Pages are mapped ahead of the reader, and dropped behind it, in
    /// steps of this many bytes.
    pub(super) page_step: usize,
    /// Decompressed pieces made ahead of the reader, at most.
    pub(super) pieces: usize,
}

impl Lookahead {
    /// For a file read alone.
    pub(super) const WHOLE_FILE: Lookahead = Lookahead {
        page_step: 8 << 20,
        pieces: PIECES_AHEAD,
    };
    /// For each of the many streams of a `--threads` directory, all read at
    /// once: what they hold ahead adds up.
    pub(super) const ONE_OF_MANY: Lookahead = Lookahead {
        page_step: 1 << 20,
        pieces: 2,
    };
}

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
    /// A stream of a `--threads` directory ends inside its last record,
    /// which perf did not finish writing; every record before it was read.
    Unfinished(String),
}

/// Where the records come from.
pub(super) enum Source {
    /// The data section (byte range) of a mapped file.
    Mapped(MappedFile, Range<usize>),
    /// A pipe-mode stream after its header records, or the data section of
    /// a file that cannot be mapped; `start` is the offset of its first byte.
    Stream {
        reader: Box<dyn Read + Send>,
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

/// Why a reading stopped early.
pub(super) enum Stop {
    /// Reading found damage; what was read before it is still handed on.
    Read(String),
    /// The record handler refused a record (the reason names it); nothing
    /// more is handed on.
    HandOn(String),
    /// A stream ended before perf finished it.
    CutShort { bytes: u64, reason: &'static str },
    /// A salvaged file ends here.
    Salvaged { read_to: u64 },
    /// A directory's stream ends inside its last record (the reason says where).
    Unfinished(String),
}

/// How a record stream marks the points up to which its records can be
/// put in time order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rounds {
    /// perf's FINISHED_ROUND records (one file or stream for all CPUs).
    Marked,
    /// None: one stream of perf's `--threads` directory, which holds one
    /// CPU's buffer in the kernel's order; each top-level record ends a
    /// round, so that records a little out of order still come in order.
    EachRecord,
}

/// The records of one recording, ready to be read once.
pub(super) struct RecordReader {
    pub(super) events: Events,
    pub(super) source: Option<Source>,
    /// Whether the data may end inside a record (a salvaged file whose
    /// data section's end is not known).
    pub(super) end_may_be_cut: bool,
    pub(super) rounds: Rounds,
    pub(super) lookahead: Lookahead,
    /// Bytes of top-level records read so far (shared by the streams of a
    /// directory), for a progress display.
    pub(super) bytes_read: Arc<AtomicU64>,
}

impl RecordReader {
    pub(super) fn new(events: Events, source: Source, end_may_be_cut: bool) -> RecordReader {
        RecordReader {
            events,
            source: Some(source),
            end_may_be_cut,
            rounds: Rounds::Marked,
            lookahead: Lookahead::WHOLE_FILE,
            bytes_read: Arc::default(),
        }
    }

    /// The bytes of records there are to read, when known (not of a pipe).
    pub(super) fn bytes_to_read(&self) -> Option<u64> {
        match self.source.as_ref()? {
            Source::Mapped(_, data) => Some(data.len() as u64),
            Source::Stream {
                kind: StreamKind::FileData { len },
                ..
            } => Some(*len),
            Source::Stream { .. } => None,
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
            inflation: None,
            decompressed: Decompressed::default(),
            compressed_starts: VecDeque::new(),
            ended_with_round: false,
            stream,
            rounds: self.rounds,
            lookahead: self.lookahead,
            bytes_read: &self.bytes_read,
        };
        let end_may_be_cut = self.end_may_be_cut;
        let (read, stream_chunks, map) = match source {
            Source::Mapped(map, data) => {
                let read = std::thread::scope(|scope| {
                    let (tell, told) = channel();
                    let keeper_data = data.clone();
                    let map = &map;
                    let page_step = self.lookahead.page_step;
                    scope.spawn(move || map.keep_pages_near_reader(keeper_data, page_step, told));
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
            Some(Stop::Unfinished(reason)) => ReadEnd::Unfinished(reason),
        }
    }
}

/// The byte stores records are handed on from, besides the decompressed pieces.
pub(super) struct Bytes<'a> {
    pub(super) map: Option<&'a [u8]>,
    pub(super) stream: Option<&'a Chunks>,
}

/// The state of one reading.
pub(super) struct Core<'e> {
    pub(super) events: &'e Events,
    pub(super) order: RoundOrder,
    /// Where compressed records are decompressed, once one is met. Declared
    /// before `decompressed`, so that it is dropped first: its drop waits
    /// for a thread that may still read the pieces.
    pub(super) inflation: Option<Inflation>,
    pub(super) decompressed: Decompressed,
    /// Where the output of recent compressed records starts in the
    /// decompressed stream, and where each record is.
    pub(super) compressed_starts: VecDeque<(u64, u64)>,
    /// Whether the last top-level record (LOST_SAMPLES aside) was a FINISHED_ROUND.
    pub(super) ended_with_round: bool,
    /// Whether offsets are of a pipe stream rather than a file (for messages).
    pub(super) stream: bool,
    pub(super) rounds: Rounds,
    pub(super) lookahead: Lookahead,
    /// Counts the bytes of the top-level records read.
    pub(super) bytes_read: &'e AtomicU64,
}

impl Core<'_> {
    pub(super) fn read_stream(
        &mut self,
        mut reader: Box<dyn Read + Send>,
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
    pub(super) fn top_level(
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
        (self.bytes_read).fetch_add(header.size as u64, Ordering::Relaxed);
        // perf 6.1 writes a LOST_SAMPLES after its closing round.
        if RecordType(header.record_type) != RecordType::LOST_SAMPLES {
            self.ended_with_round = header.record_type == FINISHED_ROUND;
        }
        match header.record_type {
            FINISHED_ROUND => self.hand_on_round(bytes, handle)?,
            COMPRESSED | COMPRESSED2 => {
                self.decompress(header.record_type, body, offset)?;
                self.end_unmarked_round(bytes, handle)?;
            }
            AUXTRACE => {
                return self.events.rules.order.u64(body, 0).ok_or_else(|| {
                    Stop::Read(format!("the AUXTRACE record {origin} is too short"))
                });
            }
            record_type if is_perf_type(record_type) => {}
            _ => {
                hold(self.events, &mut self.order, header, record, place, origin)?;
                self.end_unmarked_round(bytes, handle)?;
            }
        }
        Ok(0)
    }

    /// In a stream without FINISHED_ROUND records, a top-level record ends a round.
    fn end_unmarked_round(
        &mut self,
        bytes: &Bytes<'_>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        match self.rounds {
            Rounds::Marked => Ok(()),
            Rounds::EachRecord => self.hand_on_round(bytes, handle),
        }
    }

    pub(super) fn hand_on_round(
        &mut self,
        bytes: &Bytes<'_>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        let Core {
            events,
            order,
            decompressed,
            inflation,
            ..
        } = self;
        hand_on(order.finish_round(), events, bytes, decompressed, handle)?;
        let keep = order
            .oldest(|place| match place {
                Place::Decompressed(at) => Some(at.chunk),
                _ => None,
            })
            .unwrap_or(u64::MAX);
        for piece in decompressed.release_before(keep) {
            if let Some(inflation) = inflation {
                inflation.recycle(piece);
            }
        }
        Ok(())
    }

    pub(super) fn hand_on_all(
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
pub(super) fn hold(
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
pub(super) fn hand_on(
    ready: std::vec::Drain<'_, Pending>,
    events: &Events,
    bytes: &Bytes<'_>,
    decompressed: &Decompressed,
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
