//! The reader's side of a `-z` recording: it takes the pieces of
//! decompressed records from the [inflater](super::inflate), holds their
//! records in perf's order like any other, keeps each piece until no
//! pending record lies in it, and names where each record came from.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender};

use super::chunks::ChunkAt;
use super::inflate::{Inflated, Inflater, zstd_data};
use super::plausible::is_perf_type;
use super::reader::{Core, Stop, hold};
use super::record_header::{Next, next_header};
use super::round_order::{Origin, Place};

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
    },
}

/// The decompressed pieces whose records may still be pending, numbered
/// from 0 in stream order.
#[derive(Default)]
pub(super) struct Decompressed {
    /// Each live piece, and the position of its first byte in the stream.
    live: VecDeque<(Vec<u8>, u64)>,
    /// The number of `live[0]`.
    first: u64,
    /// The position after the last piece.
    end: u64,
    /// Bytes decompressed so far, including the start of a record no piece
    /// holds yet.
    written: u64,
}

impl Decompressed {
    /// The `len` bytes at `at`, which must still be live.
    pub(super) fn get(&self, at: ChunkAt, len: usize) -> &[u8] {
        let (piece, _) = &self.live[(at.chunk - self.first) as usize];
        &piece[at.at..at.at + len]
    }

    /// Removes the pieces before piece number `keep`.
    pub(super) fn release_before(&mut self, keep: u64) -> impl Iterator<Item = Vec<u8>> + '_ {
        let count = keep.saturating_sub(self.first).min(self.live.len() as u64);
        self.first += count;
        self.live.drain(..count as usize).map(|(piece, _)| piece)
    }

    fn push(&mut self, piece: Vec<u8>) -> u64 {
        let number = self.first + self.live.len() as u64;
        let len = piece.len() as u64;
        self.live.push_back((piece, self.end));
        self.end += len;
        number
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

impl Core<'_> {
    /// Holds the event records decompressed from the compressed record at
    /// `offset`, decompressing it here unless a thread does so ahead.
    pub(super) fn decompress(
        &mut self,
        record_type: u32,
        body: &[u8],
        offset: u64,
    ) -> Result<(), Stop> {
        let origin = Origin::Top {
            offset,
            stream: self.stream,
        };
        let input = zstd_data(record_type, body, self.events.rules.order).ok_or_else(|| {
            Stop::Read(format!(
                "the compressed record {origin} states more data than it holds"
            ))
        })?;
        self.compressed_starts
            .push_back((self.decompressed.written, offset));
        let order = self.events.rules.order;
        let mut inflation = self.inflation.take().unwrap_or_else(|| Inflation::InStep {
            inflater: Inflater::new(order),
            arrived: Vec::new(),
        });
        match &mut inflation {
            Inflation::InStep { inflater, arrived } => {
                inflater.inflate(input, offset, &mut |inflated| {
                    arrived.push(inflated);
                    true
                });
                for inflated in arrived.drain(..) {
                    self.take(inflated, offset)?;
                }
            }
            Inflation::Ahead { pieces, .. } => loop {
                let inflated = pieces.recv().map_err(|_| {
                    Stop::Read(format!(
                        "the decompression stopped before the compressed record {origin}"
                    ))
                })?;
                if self.take(inflated, offset)? {
                    break;
                }
            },
        }
        self.inflation = Some(inflation);
        Ok(())
    }

    /// Takes what the inflater handed on for the compressed record at
    /// `offset`; true when that record is done.
    fn take(&mut self, inflated: Inflated, offset: u64) -> Result<bool, Stop> {
        let origin = Origin::Top {
            offset,
            stream: self.stream,
        };
        match inflated {
            Inflated::Piece(piece) => {
                let number = self.decompressed.push(piece);
                self.hold_piece(number)?;
                Ok(false)
            }
            Inflated::Done {
                offset: done,
                written,
            } if done == offset => {
                self.decompressed.written = written;
                Ok(true)
            }
            Inflated::Failed {
                offset: failed,
                reason,
            } if failed == offset => Err(Stop::Read(format!(
                "the zstd data of the compressed record {origin} cannot be decompressed \
                 ({reason})"
            ))),
            Inflated::Done { offset: other, .. } | Inflated::Failed { offset: other, .. } => {
                Err(Stop::Read(format!(
                    "the decompression reached the compressed record at byte {other} while the \
                     reader was at the one {origin}"
                )))
            }
        }
    }

    /// Holds the records of piece number `number`.
    fn hold_piece(&mut self, number: u64) -> Result<(), Stop> {
        let byte_order = self.events.rules.order;
        let index = (number - self.decompressed.first) as usize;
        let (len, start) = {
            let (piece, start) = &self.decompressed.live[index];
            (piece.len(), *start)
        };
        let mut within = 0;
        while within < len {
            let origin = self.decompressed_origin(start + within as u64);
            let Core {
                events,
                order,
                decompressed,
                ..
            } = self;
            let record = &decompressed.live[index].0[within..];
            let header = match next_header(record, byte_order) {
                Next::Record(header) => header,
                Next::Incomplete => {
                    return Err(Stop::Read(format!(
                        "the decompressed record {origin} is cut short"
                    )));
                }
                Next::Bad(reason) => return Err(Stop::Read(format!("{reason} ({origin})"))),
            };
            if !is_perf_type(header.record_type) {
                let place = Place::Decompressed(ChunkAt {
                    chunk: number,
                    at: within,
                });
                hold(events, order, header, &record[..header.size], place, origin)?;
            }
            within += header.size;
        }
        Ok(())
    }

    /// Where the decompressed byte at `position` came from.
    pub(super) fn decompressed_origin(&mut self, position: u64) -> Origin {
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
    pub(super) fn check_decompressed_end(&mut self, end_may_be_cut: bool) -> Result<(), Stop> {
        let end = self.decompressed.end;
        let left = self.decompressed.written - end;
        if left == 0 || end_may_be_cut {
            return Ok(());
        }
        let origin = self.decompressed_origin(end);
        Err(Stop::Read(format!(
            "the decompressed records end inside a record: {left} bytes are left {origin}"
        )))
    }
}
