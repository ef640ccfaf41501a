//! The pieces of decompressed records of a `-z` recording, as the reader
//! holds them: where the decompression runs, and which pieces may still hold
//! records not yet handed on.

use std::collections::VecDeque;
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

/// The decompressed pieces whose records may still be pending, numbered
/// from 0 in stream order, and how far their records are held.
#[derive(Default)]
pub(super) struct Decompressed {
    /// Each live piece, and the position of its first byte in the stream.
    pub(super) live: VecDeque<(Vec<u8>, u64)>,
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
    /// The `len` bytes at `at`, which must still be live.
    pub(super) fn get(&self, at: ChunkAt, len: usize) -> &[u8] {
        let (piece, _) = &self.live[(at.chunk - self.first) as usize];
        &piece[at.at..at.at + len]
    }

    /// Removes the pieces before piece number `keep`, and before the first
    /// record not yet held.
    pub(super) fn release_before(&mut self, keep: u64) -> impl Iterator<Item = Vec<u8>> + '_ {
        let keep = keep.min(self.cursor.chunk);
        let count = keep.saturating_sub(self.first).min(self.live.len() as u64);
        self.first += count;
        self.live.drain(..count as usize).map(|(piece, _)| piece)
    }

    pub(super) fn push(&mut self, piece: Vec<u8>) {
        let len = piece.len() as u64;
        self.live.push_back((piece, self.end));
        self.end += len;
    }

    /// The position of the first record not yet held.
    pub(super) fn cursor_position(&self) -> u64 {
        (self.live.get((self.cursor.chunk - self.first) as usize))
            .map_or(self.end, |(_, start)| start + self.cursor.at as u64)
    }
}

impl Inflation {
    /// Gives a piece back to the inflater, for reuse.
    pub(super) fn recycle(&mut self, piece: Vec<u8>) {
        match self {
            Inflation::InStep { inflater, .. } => inflater.recycle(piece),
            // The inflater may have stopped; the piece is then dropped.
            Inflation::Ahead { released, .. } => drop(released.send(piece)),
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
