//! A file-mode perf.data mapped into memory, so that its records can be
//! read in place, with a helper that maps pages ahead of the reader and
//! releases them behind it: a large file never stays resident.

use std::fs::File;
use std::ops::Range;
use std::sync::mpsc::Receiver;

use memmap2::{Advice, Mmap, UncheckedAdvice};

use super::reader::PAGE_STEP;

/// Where the reader is, as offsets in the mapping: it has reached
/// `reached`, and needs nothing before `needed`.
pub(super) struct ReaderAt {
    pub(super) reached: usize,
    pub(super) needed: usize,
}

/// A whole file, mapped read-only.
pub(super) struct MappedFile {
    map: Mmap,
}

impl MappedFile {
    /// Maps `file`, whose records lie at `data`; `None` when the range is
    /// not inside the mapping.
    pub(super) fn new(file: &File, data: &Range<u64>) -> std::io::Result<Option<MappedFile>> {
        // SAFETY: the mapping is read-only and private. The structure check
        // has confirmed that the data section lies inside the file; a file
        // shortened by another process while it is read would fault, as any
        // mapped file would.
        let map = unsafe { Mmap::map(file) }?;
        let inside = usize::try_from(data.end).is_ok_and(|end| end <= map.len());
        Ok(inside.then_some(MappedFile { map }))
    }

    pub(super) fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Runs beside the reader of `data`: maps the next steps of pages
    /// before the reader gets there, so it does not fault them in one at a
    /// time, and drops the pages it no longer needs (they stay in the page
    /// cache). Ends when the reader stops telling where it is.
    pub(super) fn keep_pages_near_reader(&self, data: Range<usize>, told: Receiver<ReaderAt>) {
        let mut mapped = data.start;
        let mut released = 0;
        let mut map_ahead = |reached: usize| {
            let end = (reached + 2 * PAGE_STEP).min(data.end);
            if end > mapped {
                // Best effort: kernels before 5.14 lack MADV_POPULATE_READ.
                let _ = self
                    .map
                    .advise_range(Advice::PopulateRead, mapped, end - mapped);
                mapped = end;
            }
        };
        map_ahead(data.start);
        for at in told {
            map_ahead(at.reached);
            let end = at.needed & !(PAGE_STEP - 1);
            if end > released {
                // SAFETY: MADV_DONTNEED on a read-only file mapping only
                // drops page table entries; a later read faults the same
                // file contents back in.
                let _ = unsafe {
                    self.map.unchecked_advise_range(
                        UncheckedAdvice::DontNeed,
                        released,
                        end - released,
                    )
                };
                released = end;
            }
        }
    }
}
