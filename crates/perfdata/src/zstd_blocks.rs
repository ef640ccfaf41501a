//! zstd's buffer-less decoder (`ZSTD_decompressContinue`), which writes
//! each block straight into the caller's memory instead of into a window
//! buffer of its own that is then copied out: on a `-z` recording that copy
//! was a third of the decompression thread's time.
//!
//! The price is zstd's contiguity rule: a block may refer back into the
//! bytes decoded before it, in the memory they were decoded into, so the
//! caller must leave them in place. When the output moves to another
//! buffer, zstd keeps the previous stretch of output as its history; that
//! stretch must hold at least a window and must not be touched until the
//! next move. [`Inflater`](super::inflate::Inflater) keeps both rules, for
//! the window of the stream's first frame: perf writes one frame and never
//! ends it. A later frame needing a larger window would be refused by zstd
//! as corrupt (it checks every reference against the history it was
//! given), never read out of bounds.

use std::mem::MaybeUninit;
use std::ptr::NonNull;

use zstd_safe::zstd_sys;

/// What a frame header says, as far as the decoder cares.
pub(super) struct FrameInfo {
    /// How far back a block may refer, in bytes.
    pub window: u64,
    /// False for a skippable frame, which holds no data.
    pub holds_data: bool,
}

/// The most a block decodes to (zstd's `ZSTD_BLOCKSIZE_MAX`).
pub(super) const MAX_BLOCK: usize = zstd_sys::ZSTD_BLOCKSIZE_MAX as usize;

/// One buffer-less decompression context, and the bytes of an input step
/// that arrived split over two compressed records.
pub(super) struct BlockDecoder {
    context: NonNull<zstd_sys::ZSTD_DCtx>,
    staged: Vec<u8>,
}

impl BlockDecoder {
    pub(super) fn new() -> BlockDecoder {
        // SAFETY: plain constructor; a null result (out of memory) panics below.
        let context = unsafe { zstd_sys::ZSTD_createDCtx() };
        let context = NonNull::new(context).expect("zstd allocates a decompression context");
        // SAFETY: `context` is a live context.
        unsafe { zstd_sys::ZSTD_decompressBegin(context.as_ptr()) };
        BlockDecoder {
            context,
            staged: Vec::new(),
        }
    }

    /// What the frame header that `input` begins with says; `None` when
    /// `input` does not begin with a whole one.
    pub(super) fn frame_info(input: &[u8]) -> Option<FrameInfo> {
        let mut header = MaybeUninit::<zstd_sys::ZSTD_FrameHeader>::uninit();
        // SAFETY: zstd reads at most `input.len()` bytes of `input` and
        // fills `header` when it returns 0.
        let code = unsafe {
            zstd_sys::ZSTD_getFrameHeader(header.as_mut_ptr(), input.as_ptr().cast(), input.len())
        };
        // Anything else is an error code or the size zstd would need.
        if code != 0 {
            return None;
        }
        // SAFETY: a result of 0 means the header was filled.
        let header = unsafe { header.assume_init() };
        Some(FrameInfo {
            window: header.windowSize,
            holds_data: header.frameType == zstd_sys::ZSTD_FrameType_e::ZSTD_frame,
        })
    }

    /// Decodes the next step of `input` into `target`, taking its bytes
    /// off `input`; a step that `input` does not complete waits, staged,
    /// for the next compressed record's data. A step is a frame header, a
    /// block header or a block; only a block writes, at most
    /// [`MAX_BLOCK`] bytes.
    ///
    /// # Safety
    ///
    /// During each call zstd may read what earlier calls wrote since the
    /// output last moved (a call writing elsewhere than right after the
    /// previous output), and the stretch written before that move, which
    /// must hold at least a window. Those bytes must be where they were
    /// written, unchanged, whenever a call runs; between calls zstd reads
    /// nothing.
    pub(super) unsafe fn step(
        &mut self,
        input: &mut &[u8],
        target: &mut [MaybeUninit<u8>],
    ) -> Result<Step, &'static str> {
        // SAFETY: `self.context` is a live context.
        let mut need = unsafe { zstd_sys::ZSTD_nextSrcSizeToDecompress(self.context.as_ptr()) };
        if need == 0 {
            if input.is_empty() {
                return Ok(Step::NeedInput);
            }
            // A frame ended and another follows: it starts afresh.
            // SAFETY: `self.context` is a live context.
            unsafe { zstd_sys::ZSTD_decompressBegin(self.context.as_ptr()) };
            // SAFETY: as above.
            need = unsafe { zstd_sys::ZSTD_nextSrcSizeToDecompress(self.context.as_ptr()) };
        }
        let step: &[u8] = if self.staged.is_empty() && input.len() >= need {
            let (step, rest) = input.split_at(need);
            *input = rest;
            step
        } else {
            let missing = need - self.staged.len();
            if input.len() < missing {
                self.staged.extend_from_slice(input);
                *input = &[];
                return Ok(Step::NeedInput);
            }
            self.staged.extend_from_slice(&input[..missing]);
            *input = &input[missing..];
            &self.staged
        };
        // SAFETY: `step` is exactly the size zstd asked for; `target` is
        // writable memory of its length; the history stays in place (the
        // caller's promise).
        let code = unsafe {
            zstd_sys::ZSTD_decompressContinue(
                self.context.as_ptr(),
                target.as_mut_ptr().cast(),
                target.len(),
                step.as_ptr().cast(),
                step.len(),
            )
        };
        self.staged.clear();
        if is_error(code) {
            return Err(zstd_safe::get_error_name(code));
        }
        Ok(Step::Wrote(code))
    }
}

/// What one step did.
pub(super) enum Step {
    /// It wrote this many bytes (0 for a header) to the start of the target.
    Wrote(usize),
    /// The input ran out before the step's end.
    NeedInput,
}

impl Drop for BlockDecoder {
    fn drop(&mut self) {
        // SAFETY: the context is live and dropped once.
        unsafe { zstd_sys::ZSTD_freeDCtx(self.context.as_ptr()) };
    }
}

fn is_error(code: usize) -> bool {
    // SAFETY: a pure function of its argument.
    unsafe { zstd_sys::ZSTD_isError(code) != 0 }
}

#[cfg(test)]
mod tests {
    //! Each `unsafe` block's precondition, exercised: the context made,
    //! restarted and freed; a frame header read from too few, wrong and
    //! right bytes; blocks decoded in place with the history kept (the
    //! promise of `step`'s callers, which these tests keep), a step split
    //! over inputs, and references past the history refused.

    use super::*;
    use crate::test_random::xorshift;

    /// Random bytes, then the same bytes again after `gap` random bytes: a
    /// frame whose later blocks refer `len + gap` bytes back.
    fn repeated_after(len: usize, gap: usize, seed: u64) -> Vec<u8> {
        let mut next = xorshift(seed);
        let mut random = |count: usize| (0..count).map(|_| next() as u8).collect::<Vec<_>>();
        let start = random(len);
        let mut data = start.clone();
        data.extend(random(gap));
        data.extend(start);
        data
    }

    fn compress(plain: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(zstd_safe::compress_bound(plain.len()));
        zstd_safe::compress(&mut out, plain, 3).expect("zstd compresses");
        out
    }

    /// Lines of text that compress into real (not raw) blocks.
    fn text(lines: usize) -> Vec<u8> {
        (0..lines)
            .flat_map(|line| format!("line {line} holds {}\n", line * 7 % 1000).into_bytes())
            .collect()
    }

    /// Decodes `frames` into one buffer, contiguously, handing the input
    /// over in pieces of `piece` bytes.
    fn decode_in_place(frames: &[u8], plain_len: usize, piece: usize) -> Vec<u8> {
        let mut decoder = BlockDecoder::new();
        let mut out = vec![MaybeUninit::<u8>::uninit(); plain_len + MAX_BLOCK];
        let mut written = 0;
        for mut input in frames.chunks(piece) {
            while !input.is_empty() {
                // SAFETY: every block is written right after the previous
                // output, in the one buffer, which nothing else touches.
                let step = unsafe { decoder.step(&mut input, &mut out[written..]) };
                match step.expect("a valid frame decodes") {
                    Step::Wrote(count) => written += count,
                    Step::NeedInput => break,
                }
            }
        }
        out.truncate(written);
        // SAFETY: the first `written` bytes were written by zstd.
        out.into_iter()
            .map(|byte| unsafe { byte.assume_init() })
            .collect()
    }

    #[test]
    fn a_frame_header_is_read_only_from_whole_header_bytes() {
        let frame = compress(&repeated_after(1000, 1000, 1));
        let info = BlockDecoder::frame_info(&frame).expect("a whole header");
        assert!(info.holds_data);
        assert!(info.window >= 1024, "{}", info.window);
        assert!(BlockDecoder::frame_info(&[]).is_none());
        assert!(BlockDecoder::frame_info(&frame[..3]).is_none());
        assert!(BlockDecoder::frame_info(b"not a zstd frame at all").is_none());
        // A skippable frame: its magic number, its size, its bytes.
        let mut skippable = 0x184D_2A50u32.to_le_bytes().to_vec();
        skippable.extend(4u32.to_le_bytes());
        skippable.extend(b"skip");
        let info = BlockDecoder::frame_info(&skippable).expect("a skippable header");
        assert!(!info.holds_data);
    }

    #[test]
    fn blocks_decode_in_place_whole_or_in_pieces_and_frames_follow_frames() {
        let plain = repeated_after(200_000, 150_000, 2);
        let frame = compress(&plain);
        for piece in [frame.len(), 64 << 10, 1000, 7, 1] {
            assert!(
                decode_in_place(&frame, plain.len(), piece) == plain,
                "{piece}"
            );
        }
        // A second frame after the first starts afresh.
        let second = b"the second frame".repeat(100);
        let mut frames = frame.clone();
        frames.extend(compress(&second));
        let mut both = plain.clone();
        both.extend(&second);
        assert!(decode_in_place(&frames, both.len(), 4096) == both);
    }

    #[test]
    fn damage_and_references_past_the_history_are_refused() {
        let plain = repeated_after(200_000, 300_000, 3);
        let frame = compress(&plain);
        // A damaged block header (the reserved block type): zstd's error,
        // not a crash.
        let text = text(20_000);
        let mut damaged = compress(&text);
        // SAFETY: zstd reads at most `damaged.len()` bytes of it.
        let header_len =
            unsafe { zstd_sys::ZSTD_frameHeaderSize(damaged.as_ptr().cast(), damaged.len()) };
        damaged[header_len] |= 0b110;
        let mut decoder = BlockDecoder::new();
        let mut out = vec![MaybeUninit::<u8>::uninit(); text.len() + MAX_BLOCK];
        let mut input = &damaged[..];
        let mut written = 0;
        let refused = loop {
            // SAFETY: as in `decode_in_place`: contiguous, untouched output.
            match unsafe { decoder.step(&mut input, &mut out[written..]) } {
                Ok(Step::Wrote(count)) => written += count,
                Ok(Step::NeedInput) => break None,
                Err(reason) => break Some(reason),
            }
        };
        assert!(refused.is_some(), "damage went unnoticed");
        // Each block into a buffer of its own: zstd's history is then the
        // previous block alone, and the repeat refers further back than
        // that. Every buffer is kept until the end, so a wrong read would
        // still be of live memory; zstd refuses instead.
        let mut decoder = BlockDecoder::new();
        let mut buffers: Vec<Vec<MaybeUninit<u8>>> = Vec::new();
        let mut input = &frame[..];
        let refused = loop {
            buffers.push(vec![MaybeUninit::uninit(); MAX_BLOCK]);
            let target = buffers.last_mut().expect("just pushed");
            // SAFETY: no buffer is touched or freed while the decoder
            // lives; only the window rule is broken, which zstd checks.
            match unsafe { decoder.step(&mut input, target) } {
                Ok(Step::Wrote(_)) => {}
                Ok(Step::NeedInput) => break None,
                Err(reason) => break Some(reason),
            }
        };
        assert!(
            refused.is_some_and(|reason| reason.contains("orrupt")),
            "{refused:?}"
        );
    }
}
