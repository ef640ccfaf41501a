//! The zstd stream of a `-z` recording, decompressed into pieces that hold
//! whole records: on a thread of its own, ahead of the reader, when the
//! file is mapped; in step with the reader when the records come from a
//! stream.
//!
//! perf compresses its records as one zstd stream, flushed (not ended) at
//! the end of each PERF_RECORD_COMPRESSED record, so one decompression
//! context runs over all of them, and a record can begin in one compressed
//! record and end in the next. A piece ends at a record's end; the start
//! of an unfinished record moves to the next piece, the only copy a
//! decompressed record's bytes see.
//!
//! Ahead of a mapped file, zstd's buffer-less decoder
//! ([`zstd_blocks`](super::zstd_blocks)) writes into the pieces directly;
//! a piece then holds more than a window, and the one handed on last stays
//! untouched until the next is. A stream, read in step, hands on a piece
//! at the end of each compressed record, too short for a window: there the
//! streaming decoder, which keeps its own window, writes the pieces.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};

use zstd_safe::{DCtx, InBuffer, OutBuffer};

use super::byte_order::ByteOrder;
use super::record_header::{
    AUXTRACE, COMPRESSED, COMPRESSED2, HEADER_SIZE, Next, auxtrace_payload_end, next_header,
};
use super::zstd_blocks::{BlockDecoder, MAX_BLOCK, Step};

/// Bytes a piece can hold: many records (a DWARF sample is up to 64 KiB),
/// few enough that recycled pieces stay in the CPU's cache (the earlier
/// one-thread reader with 4 MiB chunks took 0.89 s instead of 0.73 s for
/// `collapse` of a 68 MB `-z` recording).
const PIECE_BYTES: usize = 1 << 20;
/// Output space asked of a piece per step; a piece with less room is
/// handed on. Otherwise a piece is handed on only at the end of the data,
/// or, for a stream read in step, at the end of each compressed record:
/// few pieces, few wake-ups of the reader.
const MIN_OUTPUT: usize = 128 << 10;
const _: () = assert!(MIN_OUTPUT >= MAX_BLOCK, "a block fits the room a step asks");
/// The largest unfinished record a piece carries into the next (a record's
/// size is 16 bits).
const MAX_CARRY: usize = u16::MAX as usize;
/// The largest zstd window decoded into the pieces directly (perf's default
/// level 1 uses 512 KiB, `compile-perf record`'s level 3 2 MiB); a larger
/// one goes through the streaming decoder, so that pieces stay small.
const MAX_DIRECT_WINDOW: u64 = 4 << 20;
/// Pieces the thread may run ahead of the reader: a few, so that memory
/// stays bounded whatever the recording's size.
pub(super) const PIECES_AHEAD: usize = 8;

/// What the inflater hands to the reader, in stream order.
pub(super) enum Inflated {
    /// Decompressed bytes following the previous piece (whole records,
    /// unless the stream is damaged there), and the compressed records
    /// whose records are now all handed on.
    Piece { bytes: Vec<u8>, done: Vec<Done> },
    /// The compressed record at `offset` cannot be decompressed, for zstd's
    /// `reason`; nothing follows.
    Failed { offset: u64, reason: &'static str },
}

/// A compressed record decompressed: after it, `written` bytes had been
/// decompressed, and the records that end there or before are its
/// (those past it begin a record that a later compressed record ends).
#[derive(Clone, Copy, Debug)]
pub(super) struct Done {
    pub(super) offset: u64,
    pub(super) written: u64,
}

/// The decoder of the zstd stream.
enum Decoder {
    /// zstd's streaming decoder: it decodes into a window of its own and
    /// copies out.
    Stream(DCtx<'static>),
    /// zstd's buffer-less decoder, writing into the pieces.
    Direct(BlockDecoder),
}

/// One zstd decompression context over a recording's compressed records,
/// and the pieces it fills.
pub(super) struct Inflater {
    decoder: Decoder,
    pieces: Pieces,
}

/// The piece being filled, and what is known of those handed on.
struct Pieces {
    order: ByteOrder,
    /// The capacity of a piece.
    bytes: usize,
    /// Decompressed bytes not yet handed on: whole records up to `whole`,
    /// then the start of one.
    current: Vec<u8>,
    whole: usize,
    written: u64,
    /// Compressed records done whose records are not all handed on.
    done: Vec<Done>,
    /// Set when a record header is not what perf writes: from there on
    /// bytes are handed on as they are, for the reader to name the damage.
    damaged: bool,
    spare: Vec<Vec<u8>>,
    /// Pieces the reader released, for a thread inflating ahead of it:
    /// taken back whenever no spare is left, so that a compressed record
    /// decompressing into many pieces reuses those read meanwhile instead
    /// of touching new memory.
    returned: Option<Receiver<Vec<u8>>>,
}

impl Inflater {
    /// An inflater with zstd's streaming decoder, which keeps a window of
    /// its own: for a stream read in step (which hands on a piece at the
    /// end of each compressed record), and ahead of a file whose window is
    /// too large for the pieces.
    pub(super) fn streaming(order: ByteOrder) -> Inflater {
        Inflater {
            decoder: Decoder::Stream(DCtx::create()),
            pieces: Pieces::new(order, PIECE_BYTES, None),
        }
    }

    /// An inflater running ahead of the reader, whose stream begins with
    /// `first` (the zstd data of the first compressed record): the
    /// direct decoder, unless the frame's window is too large for the
    /// pieces (or `first` is no frame header, or a skippable one: the
    /// streaming decoder then names the damage, or reads on).
    fn ahead(order: ByteOrder, first: &[u8], returned: Receiver<Vec<u8>>) -> Inflater {
        let (decoder, bytes) = match BlockDecoder::frame_info(first) {
            Some(frame) if frame.holds_data && frame.window <= MAX_DIRECT_WINDOW => (
                Decoder::Direct(BlockDecoder::new()),
                PIECE_BYTES.max(frame.window as usize + MIN_OUTPUT + MAX_CARRY),
            ),
            _ => (Decoder::Stream(DCtx::create()), PIECE_BYTES),
        };
        Inflater {
            decoder,
            pieces: Pieces::new(order, bytes, Some(returned)),
        }
    }

    /// Takes back a piece the reader no longer needs.
    pub(super) fn recycle(&mut self, piece: Vec<u8>) {
        self.pieces.recycle(piece);
    }

    /// Hands on the whole records decompressed so far, and the compressed
    /// records done; an unfinished record moves to a fresh piece.
    pub(super) fn flush(&mut self, hand: &mut impl FnMut(Inflated) -> bool) -> bool {
        self.pieces.flush(hand)
    }

    /// Decompresses `input`, the zstd data of the compressed record at
    /// `offset`, handing on each piece as it fills; the rest waits for
    /// [`flush`](Self::flush) or the next piece. `hand` returns false when
    /// the reader wants nothing more; so does this function.
    pub(super) fn inflate(
        &mut self,
        input: &[u8],
        offset: u64,
        hand: &mut impl FnMut(Inflated) -> bool,
    ) -> bool {
        let pieces = &mut self.pieces;
        let decoded = match &mut self.decoder {
            Decoder::Stream(context) => pieces.stream(context, input, hand),
            Decoder::Direct(decoder) => pieces.direct(decoder, input, hand),
        };
        match decoded {
            Ok(true) => {}
            Ok(false) => return false,
            Err(reason) => {
                if pieces.flush(hand) {
                    hand(Inflated::Failed { offset, reason });
                }
                return false;
            }
        }
        pieces.done.push(Done {
            offset,
            written: pieces.written,
        });
        true
    }
}

impl Pieces {
    fn new(order: ByteOrder, bytes: usize, returned: Option<Receiver<Vec<u8>>>) -> Pieces {
        Pieces {
            order,
            bytes,
            current: Vec::with_capacity(bytes),
            whole: 0,
            written: 0,
            done: Vec::new(),
            damaged: false,
            spare: Vec::new(),
            returned,
        }
    }

    fn room(&self) -> usize {
        self.current.capacity() - self.current.len()
    }

    /// Decodes all of `input` with the streaming decoder. `Ok(false)` when
    /// the reader hung up.
    fn stream(
        &mut self,
        context: &mut DCtx<'static>,
        input: &[u8],
        hand: &mut impl FnMut(Inflated) -> bool,
    ) -> Result<bool, &'static str> {
        let mut source = InBuffer::around(input);
        loop {
            if self.room() < MIN_OUTPUT && !self.flush(hand) {
                return Ok(false);
            }
            let before = self.current.len();
            let room = self.room();
            let mut target = OutBuffer::around_pos(&mut self.current, before);
            context
                .decompress_stream(&mut target, &mut source)
                .map_err(zstd_safe::get_error_name)?;
            let written = self.current.len() - before;
            self.written += written as u64;
            self.find_whole();
            if source.pos() == input.len() && written < room {
                return Ok(true);
            }
        }
    }

    /// Decodes all of `input` with the direct decoder, into the pieces.
    /// `Ok(false)` when the reader hung up.
    fn direct(
        &mut self,
        decoder: &mut BlockDecoder,
        mut input: &[u8],
        hand: &mut impl FnMut(Inflated) -> bool,
    ) -> Result<bool, &'static str> {
        loop {
            if self.room() < MIN_OUTPUT && !self.flush(hand) {
                return Ok(false);
            }
            let before = self.current.len();
            // SAFETY: zstd's history is what it wrote into the current
            // piece (which never reallocates: it is written within its
            // capacity, and its own bytes are never changed) and, once the
            // piece moved, the piece handed on last. That one holds more
            // than a window (a piece is handed on with less than MIN_OUTPUT
            // room and at most MAX_CARRY carried in, so it is never empty,
            // which the reader would drop) and is neither changed nor freed
            // until the next piece is handed on: the reader only reads
            // pieces, `recycle` frees none and a spare is written only
            // once the piece then handed on holds the window, and a
            // reader that stops keeps the pieces until this thread has
            // hung up.
            let step = unsafe { decoder.step(&mut input, self.current.spare_capacity_mut()) }?;
            match step {
                Step::NeedInput => return Ok(true),
                Step::Wrote(written) => {
                    // SAFETY: zstd initialized the `written` bytes after `before`.
                    unsafe { self.current.set_len(before + written) };
                    self.written += written as u64;
                    self.find_whole();
                }
            }
        }
    }

    /// Takes back a piece the reader no longer needs, for reuse. Every one
    /// is kept: a piece is made only when none is spare, so there are never
    /// more than were in use at once, and none is freed to be made again
    /// (a new piece is a megabyte of pages the kernel faults in).
    fn recycle(&mut self, mut piece: Vec<u8>) {
        piece.clear();
        self.spare.push(piece);
    }

    fn flush(&mut self, hand: &mut impl FnMut(Inflated) -> bool) -> bool {
        if self.whole == 0 && self.done.is_empty() {
            return true;
        }
        if self.spare.is_empty() {
            while let Some(piece) =
                (self.returned.as_ref()).and_then(|returned| returned.try_recv().ok())
            {
                self.recycle(piece);
            }
        }
        let mut next = self
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(self.bytes));
        next.extend_from_slice(&self.current[self.whole..]);
        self.current.truncate(self.whole);
        self.whole = 0;
        hand(Inflated::Piece {
            bytes: std::mem::replace(&mut self.current, next),
            done: std::mem::take(&mut self.done),
        })
    }

    /// Moves `whole` past the records completed in `current`.
    fn find_whole(&mut self) {
        if self.damaged {
            self.whole = self.current.len();
            return;
        }
        loop {
            match next_header(&self.current[self.whole..], self.order) {
                Next::Record(header) => self.whole += header.size,
                Next::Incomplete => return,
                Next::Bad(_) => {
                    self.damaged = true;
                    self.whole = self.current.len();
                    return;
                }
            }
        }
    }
}

/// The zstd data of a compressed record's body, or `None` when a
/// PERF_RECORD_COMPRESSED2 states more than it holds.
pub(super) fn zstd_data(record_type: u32, body: &[u8], order: ByteOrder) -> Option<&[u8]> {
    if record_type != COMPRESSED2 {
        return Some(body);
    }
    order
        .u64(body, 0)
        .and_then(|len| usize::try_from(len).ok())
        .and_then(|len| body.get(8..8usize.checked_add(len)?))
}

/// Runs on its own thread beside the reader of a mapped file: walks the
/// top-level records of `data` from its start (a compressed record) and
/// decompresses each compressed record, handing the pieces to `pieces`
/// and taking released ones back from `released`. Stops where the records
/// stop making sense (the reader says why when it gets there), at the end
/// of the data, or when the reader sets `stop` or hangs up; `pieces` is
/// dropped last, so a reader that waits for it to hang up knows that
/// nothing reads the pieces any more.
pub(super) fn inflate_ahead(
    map: &[u8],
    data: Range<usize>,
    order: ByteOrder,
    pieces: SyncSender<Inflated>,
    released: Receiver<Vec<u8>>,
    stop: Arc<AtomicBool>,
) {
    let mut hand =
        |inflated: Inflated| !stop.load(Ordering::Relaxed) && pieces.send(inflated).is_ok();
    let mut released = Some(released);
    let mut inflater: Option<Inflater> = None;
    let mut offset = data.start;
    // Where the records stop making sense, the reader reports why.
    while let Next::Record(header) = next_header(&map[offset..data.end], order) {
        let body = &map[offset + HEADER_SIZE..offset + header.size];
        if matches!(header.record_type, COMPRESSED | COMPRESSED2) {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let Some(input) = zstd_data(header.record_type, body, order) else {
                break;
            };
            let inflater = inflater.get_or_insert_with(|| {
                let released = released.take().expect("one inflater per stream");
                Inflater::ahead(order, input, released)
            });
            if !inflater.inflate(input, offset as u64, &mut hand) {
                return;
            }
        }
        offset += header.size;
        if header.record_type == AUXTRACE {
            let payload = order.u64(body, 0);
            match payload.and_then(|payload| auxtrace_payload_end(offset, payload, data.end)) {
                Some(end) => offset = end,
                None => break,
            }
        }
    }
    if let Some(inflater) = &mut inflater {
        inflater.flush(&mut hand);
    }
}

#[cfg(test)]
mod tests;
