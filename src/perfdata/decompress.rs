//! The zstd stream of a `-z` recording.
//!
//! perf compresses its records as one zstd stream, flushed (not ended) at
//! the end of each PERF_RECORD_COMPRESSED record, so one decompression
//! context runs over all of them and a record can continue from one
//! compressed record into the next.

use zstd_safe::{DCtx, InBuffer, OutBuffer};

use super::chunks::Chunks;

/// Output space asked for per step; a step writes at most this much more
/// when the chunk has room.
const MIN_OUTPUT: usize = 128 << 10;

/// One zstd decompression context over a recording's compressed records.
pub(super) struct Decompressor {
    context: DCtx<'static>,
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
