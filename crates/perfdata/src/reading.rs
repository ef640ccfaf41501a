//! The state of one reading of a record stream, shared by the ways records
//! arrive ([`reader`](super::reader) for a stream, `mapped.rs` for a mapped
//! file, `decompress.rs` for zstd data): every top-level record is acted on
//! here, event records are checked and held until their round, and rounds
//! are handed on in perf's order.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use linux_perf_data::linux_perf_event_reader::{RawEventRecord, RecordType};

use super::chunks::Chunks;
use super::events::Events;
use super::inflate::PIECES_AHEAD;
use super::pieces::{Decompressed, Inflation, Piece};
use super::plausible::is_perf_type;
use super::record_header::{
    AUXTRACE, COMPRESSED, COMPRESSED2, FINISHED_ROUND, HEADER_SIZE, Header, Next, next_header,
};
use super::round_order::{Origin, Pending, Place, RoundOrder};

/// A stream is read in steps of at least this many bytes.
pub(super) const READ_STEP: usize = 64 << 10;
/// How far a mapped file is read ahead of the reader.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lookahead {
    /// Pages are mapped ahead of the reader, and dropped behind it, in
    /// steps of this many bytes.
    pub(super) page_step: usize,
    /// Decompressed pieces waiting for the reader, at most, beside the one
    /// the decompression thread hands on next.
    pub(super) pieces: usize,
    /// Whether a mapped file's zstd records are decompressed on a thread of
    /// their own, ahead of the reader, rather than on the reader's thread:
    /// not when the jobs' threads already keep every core they may use busy.
    pub(super) decompress_ahead: bool,
}

impl Lookahead {
    /// For a file read alone.
    pub(super) const WHOLE_FILE: Lookahead = Lookahead {
        page_step: 8 << 20,
        pieces: PIECES_AHEAD,
        decompress_ahead: true,
    };
    /// For each of the many streams of a `--threads` directory, all read at
    /// once: what they hold ahead adds up (a piece is 2.2 MiB at `record`'s
    /// zstd level), and most streams wait for the merge anyway. With none
    /// waiting, 32 streams read at once took 757 MB instead of 900 (two
    /// waiting), and two streams as long.
    pub(super) const ONE_OF_MANY: Lookahead = Lookahead {
        page_step: 1 << 20,
        pieces: 0,
        decompress_ahead: true,
    };
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
    /// The data ends inside its last record, which perf did not finish
    /// writing (the reason says where and why).
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

/// Where a record handed on lies, when it lies in a decompressed piece: the
/// piece, shared, and the record's first byte in it. A reader that keeps
/// the record past the call can keep the piece instead of a copy.
pub(super) type InPiece<'a> = Option<(&'a Arc<Piece>, usize)>;

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
    /// Whether the last compressed record read had no room left: perf
    /// 6.1 may not have written the rest of the zstd data flushed into it.
    pub(super) last_compressed_full: bool,
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
        handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
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
        handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
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
        handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        match self.rounds {
            Rounds::Marked => Ok(()),
            Rounds::EachRecord => self.hand_on_round(bytes, handle),
        }
    }

    pub(super) fn hand_on_round(
        &mut self,
        bytes: &Bytes<'_>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
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
        handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
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
    handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
) -> Result<(), Stop> {
    for pending in ready {
        let size = pending.header.size;
        let (record, in_piece) = match pending.key.1 {
            Place::File(offset) => (
                &bytes.map.expect("file records come from the map")[offset..offset + size],
                None,
            ),
            Place::Stream(at) => (
                bytes
                    .stream
                    .expect("stream records come from the stream")
                    .get(at, size),
                None,
            ),
            Place::Decompressed(at) => {
                let piece = decompressed.piece(at);
                (&piece[at.at..at.at + size], Some((piece, at.at)))
            }
        };
        let parsed = events.record(pending.header, &record[HEADER_SIZE..], pending.attr_index);
        handle(pending.attr_index, parsed, in_piece)
            .map_err(|reason| Stop::HandOn(format!("{reason} ({})", pending.origin)))?;
    }
    Ok(())
}
