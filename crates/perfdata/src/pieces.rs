//! The pieces of decompressed records of a `-z` recording, as the reader
//! holds them: where the decompression runs, which pieces may still hold
//! records not yet handed on, and the pieces shared with whoever keeps
//! records handed on from them.

use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};

use super::chunks::ChunkAt;
use super::inflate::{Done, Inflated, Inflater};

/// Where the decompression runs.
pub(super) enum Inflation {
    /// On the reader's thread, one compressed record at a time (a stream).
    InStep {
        inflater: Inflater,
        arrived: Vec<Inflated>,
    },
    /// On a thread of its own, ahead of the reader (a mapped file).
    Ahead {
        pieces: Receiver<Inflated>,
        released: Sender<Vec<u8>>,
        /// Tells the thread to stop early.
        stop: Arc<AtomicBool>,
    },
}

/// A decompressed piece, shared by the reader and by whoever keeps records
/// handed on from it (a directory's batches): it goes back to the thread
/// that decompresses ahead when the last holder lets go, so that it is
/// reused and never freed while that thread may still read it as zstd's
/// history. Pieces decompressed in step (`home` is `None`) are freed by
/// their last holder, or recycled by the reader when it is the last.
pub(super) struct Piece {
    bytes: Vec<u8>,
    home: Option<Sender<Vec<u8>>>,
}

impl Piece {
    pub(super) fn new(bytes: Vec<u8>, home: Option<Sender<Vec<u8>>>) -> Piece {
        Piece { bytes, home }
    }
}

impl Deref for Piece {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Piece {
    fn drop(&mut self) {
        if let Some(home) = &self.home {
            // Once that thread has hung up, nothing reads the piece: it is
            // then freed here.
            let _ = home.send(std::mem::take(&mut self.bytes));
        }
    }
}

/// The decompressed pieces whose records may still be pending, numbered
/// from 0 in stream order, and how far their records are held.
#[derive(Default)]
pub(super) struct Decompressed {
    /// Each live piece, and the position of its first byte in the stream.
    pub(super) live: VecDeque<(Arc<Piece>, u64)>,
    /// The number of `live[0]`.
    pub(super) first: u64,
    /// The first record not yet held.
    pub(super) cursor: ChunkAt,
    /// The position after the last piece.
    pub(super) end: u64,
    /// Bytes decompressed so far, including the start of a record no piece
    /// holds yet.
    pub(super) written: u64,
    /// Compressed records decompressed ahead, the reader not there yet.
    pub(super) done: VecDeque<Done>,
}

impl Decompressed {
    /// The piece holding the record at `at`, which must still be live.
    pub(super) fn piece(&self, at: ChunkAt) -> &Arc<Piece> {
        &self.live[(at.chunk - self.first) as usize].0
    }

    /// Removes the pieces before piece number `keep`, and before the first
    /// record not yet held.
    pub(super) fn release_before(&mut self, keep: u64) -> impl Iterator<Item = Arc<Piece>> + '_ {
        let keep = keep.min(self.cursor.chunk);
        let count = keep.saturating_sub(self.first).min(self.live.len() as u64);
        self.first += count;
        self.live.drain(..count as usize).map(|(piece, _)| piece)
    }

    pub(super) fn push(&mut self, piece: Piece) {
        let len = piece.len() as u64;
        self.live.push_back((Arc::new(piece), self.end));
        self.end += len;
    }

    /// The position of the first record not yet held.
    pub(super) fn cursor_position(&self) -> u64 {
        (self.live.get((self.cursor.chunk - self.first) as usize))
            .map_or(self.end, |(_, start)| start + self.cursor.at as u64)
    }
}

impl Inflation {
    /// Where pieces made here go back to when their last holder lets go:
    /// the thread decompressing ahead. In step, the reader recycles them.
    pub(super) fn home(&self) -> Option<Sender<Vec<u8>>> {
        match self {
            Inflation::InStep { .. } => None,
            Inflation::Ahead { released, .. } => Some(released.clone()),
        }
    }

    /// Lets go of a piece the reader no longer needs: one decompressed in
    /// step goes back to the inflater unless records handed on from it
    /// are still kept; one decompressed ahead goes home with its last holder.
    pub(super) fn recycle(&mut self, piece: Arc<Piece>) {
        if let Inflation::InStep { inflater, .. } = self {
            if let Some(mut piece) = Arc::into_inner(piece) {
                inflater.recycle(std::mem::take(&mut piece.bytes));
            }
        }
    }
}

impl Drop for Inflation {
    /// Stops a thread decompressing ahead. It may read the piece it handed
    /// on last (zstd's history) until it sees the stop, so the pieces not
    /// yet taken are kept until it has hung up, however the reader ends
    /// (an error inside [`Core::decompress`] drops the inflation too).
    fn drop(&mut self) {
        if let Inflation::Ahead { pieces, stop, .. } = self {
            stop.store(true, Ordering::Relaxed);
            let handed_on: Vec<Inflated> = pieces.iter().collect();
            drop(handed_on);
        }
    }
}
