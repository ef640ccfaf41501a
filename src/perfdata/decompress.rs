//! The zstd stream of a `-z` recording, and the reader's compressed
//! records: decompressed into chunks, where their records are held in
//! perf's order like any other.
//!
//! perf compresses its records as one zstd stream, flushed (not ended) at
//! the end of each PERF_RECORD_COMPRESSED record, so one decompression
//! context runs over all of them and a record can continue from one
//! compressed record into the next.

use zstd_safe::{DCtx, InBuffer, OutBuffer};

use super::chunks::Chunks;
use super::plausible::is_perf_type;
use super::reader::{COMPRESSED2, Core, Stop, hold};
use super::record_header::{Next, next_header};
use super::round_order::{Origin, Place};

/// Output space asked for per step; a step writes at most this much more
/// when the chunk has room.
pub(super) const MIN_OUTPUT: usize = 128 << 10;

/// One zstd decompression context over a recording's compressed records.
pub(super) struct Decompressor {
    pub(super) context: DCtx<'static>,
}

impl Decompressor {
    pub(super) fn new() -> Decompressor {
        Decompressor {
            context: DCtx::create(),
        }
    }

    /// Decompresses more of `input` (one compressed record's zstd bytes,
    /// of which `consumed` are done) into `out`. Returns true when the
    /// input is used up and zstd has nothing more to give for it; parse the
    /// records written before the next step, so that only a partial record
    /// is left when a new chunk starts.
    pub(super) fn step(
        &mut self,
        input: &[u8],
        consumed: &mut usize,
        out: &mut Chunks,
    ) -> Result<bool, &'static str> {
        let space = out.space(MIN_OUTPUT);
        let room = space.len();
        let mut source = InBuffer::around(input);
        source.set_pos(*consumed);
        let mut target = OutBuffer::around(space);
        self.context
            .decompress_stream(&mut target, &mut source)
            .map_err(zstd_safe::get_error_name)?;
        let written = target.pos();
        *consumed = source.pos();
        out.commit(written);
        Ok(*consumed == input.len() && written < room)
    }
}

impl Core<'_> {
    /// Decompresses the body of a compressed record at `offset` and holds
    /// the event records completed by it.
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
        let input = if record_type == COMPRESSED2 {
            let order = self.events.rules.order;
            order
                .u64(body, 0)
                .and_then(|len| usize::try_from(len).ok())
                .and_then(|len| body.get(8..8usize.checked_add(len)?))
                .ok_or_else(|| {
                    Stop::Read(format!(
                        "the compressed record {origin} states more data than it holds"
                    ))
                })?
        } else {
            body
        };
        self.compressed_starts
            .push_back((self.decompressed.written(), offset));
        let mut consumed = 0;
        loop {
            let done = self
                .decompressor
                .get_or_insert_with(Decompressor::new)
                .step(input, &mut consumed, &mut self.decompressed)
                .map_err(|error| {
                    Stop::Read(format!(
                        "the zstd data of the compressed record {origin} cannot be decompressed \
                         ({error})"
                    ))
                })?;
            self.hold_decompressed()?;
            if done {
                return Ok(());
            }
        }
    }

    /// Holds the complete records in the decompressed bytes.
    pub(super) fn hold_decompressed(&mut self) -> Result<(), Stop> {
        let order = self.events.rules.order;
        loop {
            let at = self.decompressed.unparsed().0;
            let origin = self.decompressed_origin(self.decompressed.position(at));
            let unparsed = self.decompressed.unparsed().1;
            let header = match next_header(unparsed, order) {
                Next::Record(header) => header,
                Next::Incomplete => return Ok(()),
                Next::Bad(reason) => return Err(Stop::Read(format!("{reason} ({origin})"))),
            };
            if !is_perf_type(header.record_type) {
                let record = &unparsed[..header.size];
                let place = Place::Decompressed(at);
                hold(self.events, &mut self.order, header, record, place, origin)?;
            }
            self.decompressed.consume(header.size);
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
    /// complete record (a salvaged file may end inside one).
    pub(super) fn check_decompressed_end(&mut self, end_may_be_cut: bool) -> Result<(), Stop> {
        let (at, unparsed) = self.decompressed.unparsed();
        if unparsed.is_empty() || end_may_be_cut {
            return Ok(());
        }
        let left = unparsed.len();
        let origin = self.decompressed_origin(self.decompressed.position(at));
        Err(Stop::Read(format!(
            "the decompressed records end inside a record: {left} bytes are left {origin}"
        )))
    }
}
