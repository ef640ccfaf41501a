//! The reader's side of a `-z` recording: it takes the pieces of
//! decompressed records from the [inflater](super::inflate), holds their
//! records in perf's order like any other, keeps each piece until no
//! pending record lies in it, and names where each record came from.

use std::sync::mpsc::Sender;

use super::chunks::ChunkAt;
use super::inflate::{Inflated, Inflater, zstd_data};
use super::pieces::{Inflation, Piece};
use super::plausible::is_perf_type;
use super::reading::{Core, Rounds, Stop, hold};
use super::record_header::{HEADER_SIZE, Next, next_header};
use super::round_order::{Origin, Place};

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
        self.last_compressed_full = fills_its_record(body.len());
        let order = self.events.rules.order;
        let mut inflation = self.inflation.take().unwrap_or_else(|| Inflation::InStep {
            inflater: Inflater::streaming(order),
            arrived: Vec::new(),
        });
        let home = inflation.home();
        match &mut inflation {
            Inflation::InStep { inflater, arrived } => {
                let mut hand = |inflated| {
                    arrived.push(inflated);
                    true
                };
                if inflater.inflate(input, offset, &mut hand) {
                    inflater.flush(&mut hand);
                }
                for inflated in arrived.drain(..) {
                    self.take(inflated, offset, home.as_ref())?;
                }
            }
            Inflation::Ahead { pieces, .. } => {
                while self.decompressed.done.is_empty() {
                    let inflated = pieces.recv().map_err(|_| {
                        Stop::Read(format!(
                            "the decompression stopped before the compressed record {origin}"
                        ))
                    })?;
                    self.take(inflated, offset, home.as_ref())?;
                }
            }
        }
        self.inflation = Some(inflation);
        match self.decompressed.done.pop_front() {
            Some(done) if done.offset == offset => {
                self.decompressed.written = done.written;
                self.hold_until(done.written)
            }
            other => Err(Stop::Read(format!(
                "the decompression reached the compressed record at byte {} while the reader \
                 was at the one {origin}",
                other.map_or(0, |done| done.offset)
            ))),
        }
    }

    /// Takes what the inflater handed on while the reader is at the
    /// compressed record at `offset`; its pieces go back `home`.
    fn take(
        &mut self,
        inflated: Inflated,
        offset: u64,
        home: Option<&Sender<Vec<u8>>>,
    ) -> Result<(), Stop> {
        match inflated {
            Inflated::Piece { bytes, done } => {
                if !bytes.is_empty() {
                    self.decompressed.push(Piece::new(bytes, home.cloned()));
                }
                self.decompressed.done.extend(done);
                Ok(())
            }
            Inflated::Failed {
                offset: failed,
                reason,
            } => {
                // The whole records before the damage are still handed on.
                self.hold_until(self.decompressed.end)?;
                let origin = Origin::Top {
                    offset: failed,
                    stream: self.stream,
                };
                let reached = if failed == offset {
                    String::new()
                } else {
                    format!(" (the reader was at the one at byte {offset})")
                };
                Err(Stop::Read(format!(
                    "the zstd data of the compressed record {origin} cannot be decompressed \
                     ({reason}){reached}"
                )))
            }
        }
    }

    /// Holds the records from the cursor on that end at stream position
    /// `limit` or before.
    fn hold_until(&mut self, limit: u64) -> Result<(), Stop> {
        let byte_order = self.events.rules.order;
        loop {
            let index = (self.decompressed.cursor.chunk - self.decompressed.first) as usize;
            let Some((piece, start)) = self.decompressed.live.get(index) else {
                return Ok(());
            };
            let within = self.decompressed.cursor.at;
            if within == piece.len() {
                if index + 1 == self.decompressed.live.len() {
                    return Ok(());
                }
                self.decompressed.cursor = ChunkAt {
                    chunk: self.decompressed.cursor.chunk + 1,
                    at: 0,
                };
                continue;
            }
            let position = start + within as u64;
            let origin = self.decompressed_origin(position);
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
            if position + header.size as u64 > limit {
                return Ok(());
            }
            if !is_perf_type(header.record_type) {
                let place = Place::Decompressed(decompressed.cursor);
                hold(events, order, header, &record[..header.size], place, origin)?;
            }
            decompressed.cursor.at += header.size;
        }
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
    /// complete record (a salvaged file may end inside one). Ending inside
    /// one after a full compressed record is perf 6.1's lost zstd tail:
    /// perf splits each drain of the ring buffer into compressed records of
    /// at most 64 KiB and ignores whether zstd's last flush fitted, so when
    /// the last drain fills its last record, what zstd still held (at most
    /// one 128 KiB block of raw data) is never written. A stream of a
    /// `--threads` directory that ends inside a record otherwise is
    /// unfinished too (`perf report` skips its last record as well); a file
    /// that does is corrupt.
    pub(super) fn check_decompressed_end(&mut self, end_may_be_cut: bool) -> Result<(), Stop> {
        let end = self.decompressed.cursor_position();
        let left = self.decompressed.written - end;
        if left == 0 || end_may_be_cut {
            return Ok(());
        }
        let origin = self.decompressed_origin(end);
        if self.last_compressed_full {
            return Err(Stop::Unfinished(format!(
                "perf did not finish writing its zstd data: the last compressed record is \
                 full, and perf 6.1 drops what zstd has not flushed when its last drain fills \
                 its last record; {left} bytes of a record are left {origin}, and at most \
                 zstd's last block (128 KiB of raw data, about two samples with 64 KiB of \
                 stack each) is missing"
            )));
        }
        let reason =
            format!("the decompressed records end inside a record: {left} bytes are left {origin}");
        Err(match self.rounds {
            Rounds::Marked => Stop::Read(reason),
            Rounds::EachRecord => Stop::Unfinished(format!(
                "its last record, which perf did not finish writing, is cut ({reason})"
            )),
        })
    }
}

/// Whether a compressed record whose body is `body_len` bytes has no room
/// for more: perf writes at most `u16::MAX` bytes per record, and fills a
/// record to its end only when zstd had more to flush than fitted.
fn fills_its_record(body_len: usize) -> bool {
    HEADER_SIZE + body_len + 8 > usize::from(u16::MAX)
}
