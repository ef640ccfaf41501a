//! A stream's records on their way to the merge of a `--threads`
//! directory: batches that keep the decompressed pieces their records lie
//! in, and copy the records read from the file itself.

use std::sync::Arc;

use linux_perf_data::linux_perf_event_reader::{EventRecord, RawData, RawEventRecord, RecordType};

use super::byte_order::ByteOrder;
use super::pieces::Piece;
use super::record_header::HEADER_SIZE;

/// A stream's batch is handed to the merge once it holds this many bytes
/// of copied records,
const BATCH_BYTES: usize = 256 << 10;
/// or once the records it keeps in decompressed pieces have this many:
/// half a piece at `record`'s zstd level (a piece holds more than zstd's
/// 2 MiB window), so that a batch waiting for the merge keeps one or two.
const BATCH_KEPT_BYTES: usize = 1 << 20;
/// What a batch reserves: enough for its last record to go past
/// `BATCH_BYTES` without growing it (a sample with a 64 KiB stack copy).
const BATCH_CAPACITY: usize = BATCH_BYTES + (80 << 10);

/// Records of one stream, in the stream's order: those read from its file
/// copied, those decompressed kept where they are.
pub(super) struct Batch {
    bytes: Vec<u8>,
    /// The decompressed pieces the kept records lie in.
    pieces: Vec<Arc<Piece>>,
    kept_bytes: usize,
    pub(super) records: Vec<Held>,
}

impl Batch {
    pub(super) fn new() -> Batch {
        Batch {
            bytes: Vec::new(),
            pieces: Vec::new(),
            kept_bytes: 0,
            records: Vec::new(),
        }
    }

    pub(super) fn is_full(&self) -> bool {
        self.bytes.len() >= BATCH_BYTES || self.kept_bytes >= BATCH_KEPT_BYTES
    }

    /// Copies a record's body in (a sample's user stack copy only as far as
    /// the kernel filled it); returns where it is.
    pub(super) fn copy(&mut self, record: &RawEventRecord<'_>, order: ByteOrder) -> Body {
        if self.bytes.capacity() == 0 {
            self.bytes.reserve_exact(BATCH_CAPACITY);
        }
        let body = record.data.as_slice();
        let start = self.bytes.len();
        match unfilled_stack(record, &body) {
            Some(cut) => {
                self.bytes.extend_from_slice(&body[..cut.data_at]);
                order.put_u64(&mut self.bytes, start + cut.data_at - 8, cut.kept as u64);
                self.bytes
                    .extend_from_slice(&body[cut.data_at..cut.data_at + cut.kept]);
                self.bytes.extend_from_slice(&body[cut.data_end..]);
            }
            None => self.bytes.extend_from_slice(&body),
        }
        Body::Copied {
            start,
            end: self.bytes.len(),
        }
    }

    /// Keeps the piece a record of `size` bytes lies in, at `at`; returns
    /// where its body is.
    pub(super) fn keep(&mut self, piece: &Arc<Piece>, at: usize, size: usize) -> Body {
        if !(self.pieces.last()).is_some_and(|last| Arc::ptr_eq(last, piece)) {
            self.pieces.push(Arc::clone(piece));
        }
        self.kept_bytes += size;
        Body::InPiece {
            piece: self.pieces.len() - 1,
            start: at + HEADER_SIZE,
            end: at + size,
        }
    }

    /// The body of a record.
    pub(super) fn body(&self, held: &Held) -> &[u8] {
        match held.body {
            Body::Copied { start, end } => &self.bytes[start..end],
            Body::InPiece { piece, start, end } => &self.pieces[piece][start..end],
        }
    }
}

/// Where a record's body is in its batch.
#[derive(Clone, Copy)]
pub(super) enum Body {
    /// `bytes[start..end]`.
    Copied { start: usize, end: usize },
    /// `pieces[piece][start..end]`.
    InPiece {
        piece: usize,
        start: usize,
        end: usize,
    },
}

/// One record of a batch.
pub(super) struct Held {
    pub(super) body: Body,
    pub(super) record_type: u32,
    pub(super) misc: u16,
    pub(super) attr_index: usize,
    /// Its time; a record without one takes the time of the record before
    /// it in the stream, so that it keeps its place.
    pub(super) time: u64,
}

/// Where a sample's user stack copy is in its record, and how much of it the
/// kernel filled.
struct StackCopy {
    /// Where the copy's bytes start; its size (a u64) is just before.
    data_at: usize,
    /// Where they end; the dynamic size (a u64) follows.
    data_end: usize,
    /// The bytes to keep: the dynamic size, rounded up to 8 to keep the
    /// record's alignment.
    kept: usize,
}

/// The user stack copy of a sample whose kernel filled less of it than perf
/// wrote (perf writes the whole requested size; what follows the dynamic
/// size is whatever its ring buffer held there, which no reader may use).
/// Copying only the filled part halves what a stream copies into its
/// batches on iree-compile's recordings. `None` for any other record.
fn unfilled_stack(record: &RawEventRecord<'_>, body: &[u8]) -> Option<StackCopy> {
    if record.record_type != RecordType::SAMPLE || !matches!(record.data, RawData::Single(_)) {
        return None;
    }
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| record.parse()));
    let Ok(Ok(EventRecord::Sample(sample))) = parsed else {
        return None;
    };
    let (RawData::Single(stack), dynamic_size) = sample.user_stack? else {
        return None;
    };
    let data_at = (stack.as_ptr() as usize).checked_sub(body.as_ptr() as usize)?;
    let data_end = data_at.checked_add(stack.len())?;
    let kept = usize::try_from(dynamic_size).ok()?.next_multiple_of(8);
    (data_at >= 8 && data_end <= body.len() && kept < stack.len()).then_some(StackCopy {
        data_at,
        data_end,
        kept,
    })
}
