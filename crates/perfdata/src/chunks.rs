//! Bytes that records are parsed from in place and that must live until the
//! records are handed on: a stream's bytes (a pipe, or a file that cannot
//! be mapped), read into large chunks that are recycled once no pending record lies in them.
//!
//! A record never straddles two chunks: when the last chunk is too full to
//! take more, the unparsed tail (at most part of one record) moves to the
//! start of the next chunk. That is the only copy a record's bytes see here.

use std::collections::VecDeque;

/// Bytes per chunk: room for many records (a DWARF sample is up to 64 KiB),
/// so that moving a partial record to a new chunk is rare, and small enough
/// that a recycled chunk is still in the CPU's cache when it is read into
/// again.
const CHUNK_BYTES: usize = 1 << 20;
/// Recycled chunks kept for reuse beyond the live ones.
const SPARE_CHUNKS: usize = 2;

/// Where a record lies: which chunk (numbered from 0 in stream order), and
/// the byte in it. Orders like the stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct ChunkAt {
    pub(super) chunk: u64,
    pub(super) at: usize,
}

struct Chunk {
    bytes: Box<[u8]>,
    /// Bytes written so far.
    filled: usize,
    /// Position of `bytes[0]` in the whole stream.
    start: u64,
}

/// A stream of bytes kept in chunks, with a cursor at the first byte not yet
/// parsed into a record.
pub(super) struct Chunks {
    live: VecDeque<Chunk>,
    /// The number of `live[0]`.
    first: u64,
    spare: Vec<Box<[u8]>>,
    /// In the last chunk: where the unparsed bytes start.
    parsed: usize,
}

impl Chunks {
    pub(super) fn new() -> Chunks {
        Chunks {
            live: VecDeque::new(),
            first: 0,
            spare: Vec::new(),
            parsed: 0,
        }
    }

    /// Free space of at least `min` bytes at the end of the stream, to write
    /// into and then [`commit`](Self::commit). `min` must be well below a
    /// chunk's size.
    pub(super) fn space(&mut self, min: usize) -> &mut [u8] {
        let fits = self
            .live
            .back()
            .is_some_and(|last| last.bytes.len() - last.filled >= min);
        if !fits {
            self.open_chunk();
        }
        let last = self.live.back_mut().expect("a chunk is open");
        &mut last.bytes[last.filled..]
    }

    /// Marks `n` more bytes of the space as written.
    pub(super) fn commit(&mut self, n: usize) {
        let last = self.live.back_mut().expect("space() opened a chunk");
        last.filled += n;
    }

    /// The bytes not yet parsed, and where they start.
    pub(super) fn unparsed(&self) -> (ChunkAt, &[u8]) {
        let at = ChunkAt {
            chunk: self.first + self.live.len().saturating_sub(1) as u64,
            at: self.parsed,
        };
        let bytes = self
            .live
            .back()
            .map_or(&[][..], |last| &last.bytes[self.parsed..last.filled]);
        (at, bytes)
    }

    /// Marks the first `n` unparsed bytes as parsed.
    pub(super) fn consume(&mut self, n: usize) {
        self.parsed += n;
    }

    /// The `len` bytes at `at`, which must still be live.
    pub(super) fn get(&self, at: ChunkAt, len: usize) -> &[u8] {
        let chunk = &self.live[(at.chunk - self.first) as usize];
        &chunk.bytes[at.at..at.at + len]
    }

    /// The position of `at` in the whole stream.
    pub(super) fn position(&self, at: ChunkAt) -> u64 {
        let start = self
            .live
            .get(at.chunk.wrapping_sub(self.first) as usize)
            .map_or(0, |chunk| chunk.start);
        start + at.at as u64
    }

    /// Recycles the chunks before chunk number `keep`; the last chunk always stays.
    pub(super) fn release_before(&mut self, keep: u64) {
        while self.first < keep && self.live.len() > 1 {
            let chunk = self.live.pop_front().expect("more than one chunk");
            self.first += 1;
            if self.spare.len() < SPARE_CHUNKS {
                self.spare.push(chunk.bytes);
            }
        }
    }

    /// The number of the last chunk, which holds the unparsed bytes.
    pub(super) fn last_chunk(&self) -> u64 {
        self.first + self.live.len().saturating_sub(1) as u64
    }

    /// Starts a new chunk and moves the unparsed bytes of the last one into it.
    fn open_chunk(&mut self) {
        let mut bytes = self
            .spare
            .pop()
            .unwrap_or_else(|| vec![0; CHUNK_BYTES].into_boxed_slice());
        let (start, filled) = match self.live.back() {
            Some(last) => {
                let tail = &last.bytes[self.parsed..last.filled];
                bytes[..tail.len()].copy_from_slice(tail);
                (last.start + self.parsed as u64, tail.len())
            }
            None => (0, 0),
        };
        self.live.push_back(Chunk {
            bytes,
            filled,
            start,
        });
        self.parsed = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_record_moves_to_the_next_chunk_and_old_chunks_are_recycled() {
        let mut chunks = Chunks::new();
        let space = chunks.space(16);
        assert_eq!(space.len(), CHUNK_BYTES);
        space[..CHUNK_BYTES - 8].fill(1);
        space[CHUNK_BYTES - 8..].copy_from_slice(b"partial!");
        chunks.commit(CHUNK_BYTES);
        chunks.consume(CHUNK_BYTES - 8);
        let first = ChunkAt { chunk: 0, at: 0 };
        // A write that does not fit opens chunk 1, starting with the tail.
        chunks.space(16)[..4].copy_from_slice(b"more");
        chunks.commit(4);
        let (at, unparsed) = chunks.unparsed();
        assert_eq!(at, ChunkAt { chunk: 1, at: 0 });
        assert_eq!(unparsed, b"partial!more");
        assert_eq!(chunks.position(at), CHUNK_BYTES as u64 - 8);
        assert_eq!(chunks.get(first, 2), [1, 1], "chunk 0 stays until released");
        chunks.release_before(1);
        assert_eq!(chunks.last_chunk(), 1);
        assert_eq!(chunks.get(at, 12), b"partial!more");
    }
}
