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

use std::ops::Range;
use std::sync::mpsc::{Receiver, SyncSender};

use zstd_safe::{DCtx, InBuffer, OutBuffer};

use super::byte_order::ByteOrder;
use super::reader::{AUXTRACE, COMPRESSED, COMPRESSED2};
use super::record_header::{HEADER_SIZE, Next, next_header};

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
/// Released pieces kept for reuse.
const SPARE_PIECES: usize = 4;
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

/// One zstd decompression context over a recording's compressed records,
/// and the piece being filled.
pub(super) struct Inflater {
    context: DCtx<'static>,
    order: ByteOrder,
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
}

impl Inflater {
    pub(super) fn new(order: ByteOrder) -> Inflater {
        Inflater {
            context: DCtx::create(),
            order,
            current: Vec::with_capacity(PIECE_BYTES),
            whole: 0,
            written: 0,
            done: Vec::new(),
            damaged: false,
            spare: Vec::new(),
        }
    }

    /// Takes back a piece the reader no longer needs.
    pub(super) fn recycle(&mut self, mut piece: Vec<u8>) {
        if self.spare.len() < SPARE_PIECES {
            piece.clear();
            self.spare.push(piece);
        }
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
        let mut source = InBuffer::around(input);
        loop {
            if self.current.capacity() - self.current.len() < MIN_OUTPUT && !self.flush(hand) {
                return false;
            }
            let before = self.current.len();
            let room = self.current.capacity() - before;
            let mut target = OutBuffer::around_pos(&mut self.current, before);
            if let Err(code) = self.context.decompress_stream(&mut target, &mut source) {
                let reason = zstd_safe::get_error_name(code);
                if self.flush(hand) {
                    hand(Inflated::Failed { offset, reason });
                }
                return false;
            }
            let written = self.current.len() - before;
            self.written += written as u64;
            self.find_whole();
            if source.pos() == input.len() && written < room {
                break;
            }
        }
        self.done.push(Done {
            offset,
            written: self.written,
        });
        true
    }

    /// Hands on the whole records decompressed so far, and the compressed
    /// records done; an unfinished record moves to a fresh piece.
    pub(super) fn flush(&mut self, hand: &mut impl FnMut(Inflated) -> bool) -> bool {
        if self.whole == 0 && self.done.is_empty() {
            return true;
        }
        let mut next = self
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(PIECE_BYTES));
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
/// of the data, or when the reader hangs up.
pub(super) fn inflate_ahead(
    map: &[u8],
    data: Range<usize>,
    order: ByteOrder,
    pieces: SyncSender<Inflated>,
    released: Receiver<Vec<u8>>,
) {
    let mut inflater = Inflater::new(order);
    let mut hand = |inflated: Inflated| pieces.send(inflated).is_ok();
    let mut offset = data.start;
    // Where the records stop making sense, the reader reports why.
    while let Next::Record(header) = next_header(&map[offset..data.end], order) {
        let body = &map[offset + HEADER_SIZE..offset + header.size];
        if matches!(header.record_type, COMPRESSED | COMPRESSED2) {
            let Some(input) = zstd_data(header.record_type, body, order) else {
                break;
            };
            for piece in released.try_iter() {
                inflater.recycle(piece);
            }
            if !inflater.inflate(input, offset as u64, &mut hand) {
                return;
            }
        }
        offset += header.size;
        if header.record_type == AUXTRACE {
            let payload = order.u64(body, 0).and_then(|n| usize::try_from(n).ok());
            match payload.and_then(|n| offset.checked_add(n)) {
                Some(end) if end <= data.end => offset = end,
                _ => break,
            }
        }
    }
    inflater.flush(&mut hand);
}
