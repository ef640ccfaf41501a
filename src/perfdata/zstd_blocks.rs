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
