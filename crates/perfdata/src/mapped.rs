//! A file-mode perf.data mapped into memory, so that its records are read
//! in place ([`Core::read_mapped`]), with a helper that maps pages ahead of
//! the reader and releases them behind it: a large file never stays
//! resident.

use std::fs::File;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, Sender, channel, sync_channel};
use std::thread::Scope;

use linux_perf_data::linux_perf_event_reader::RawEventRecord;
use memmap2::{Advice, Mmap, UncheckedAdvice};

use super::inflate::inflate_ahead;
use super::pieces::Inflation;
use super::reading::{Bytes, Core, InPiece, Rounds, Stop};
use super::record_header::{
    COMPRESSED, COMPRESSED2, FINISHED_ROUND, Next, auxtrace_payload_end, next_header,
};
use super::round_order::{Origin, Place};

/// Where the reader is, as offsets in the mapping: it has reached
/// `reached`, and needs nothing before `needed`.
pub(super) struct ReaderAt {
    pub(super) reached: usize,
    pub(super) needed: usize,
}

/// A whole file, mapped read-only.
pub(super) struct MappedFile {
    pub(super) map: Mmap,
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
    pub(super) fn keep_pages_near_reader(
        &self,
        data: Range<usize>,
        page_step: usize,
        told: Receiver<ReaderAt>,
    ) {
        let mut mapped = data.start;
        let mut released = 0;
        let mut map_ahead = |reached: usize| {
            let end = (reached + 2 * page_step).min(data.end);
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
            let end = at.needed & !(page_step - 1);
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

impl Core<'_> {
    /// Reads the records of the data section `data` of a mapped file.
    pub(super) fn read_mapped(
        &mut self,
        map: &[u8],
        data: Range<usize>,
        end_may_be_cut: bool,
        tell_pages: Sender<ReaderAt>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        std::thread::scope(|scope| {
            let read =
                self.read_mapped_records(map, data, end_may_be_cut, tell_pages, scope, handle);
            // The decompression thread stops once the reader lets go of it.
            self.inflation = None;
            read
        })
    }

    fn read_mapped_records<'scope, 'map>(
        &mut self,
        map: &'map [u8],
        data: Range<usize>,
        end_may_be_cut: bool,
        tell_pages: Sender<ReaderAt>,
        scope: &'scope Scope<'scope, 'map>,
        handle: &mut impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
    ) -> Result<(), Stop> {
        let bytes = Bytes {
            map: Some(map),
            stream: None,
        };
        let order = self.events.rules.order;
        let page_step = self.lookahead.page_step;
        let mut next_step = data.start + page_step;
        let mut offset = data.start;
        while offset < data.end {
            let origin = Origin::Top {
                offset: offset as u64,
                stream: false,
            };
            let header = match next_header(&map[offset..data.end], order) {
                Next::Record(header) => header,
                Next::Incomplete if end_may_be_cut => {
                    return Err(Stop::Salvaged {
                        read_to: offset as u64,
                    });
                }
                Next::Bad(_) if end_may_be_cut && map[offset..data.end].iter().all(|&b| b == 0) => {
                    return Err(Stop::Salvaged {
                        read_to: offset as u64,
                    });
                }
                Next::Incomplete => {
                    return Err(Stop::Read(format!(
                        "the record {origin} runs past the end of the data section at byte {}",
                        data.end
                    )));
                }
                Next::Bad(reason) => return Err(Stop::Read(format!("{reason} ({origin})"))),
            };
            if matches!(header.record_type, COMPRESSED | COMPRESSED2)
                && self.inflation.is_none()
                && self.lookahead.decompress_ahead
            {
                let (pieces, arrive) = sync_channel(self.lookahead.pieces);
                let (released, take_back) = channel();
                let stop = Arc::new(AtomicBool::new(false));
                let compressed = offset..data.end;
                let told = stop.clone();
                scope.spawn(move || inflate_ahead(map, compressed, order, pieces, take_back, told));
                self.inflation = Some(Inflation::Ahead {
                    pieces: arrive,
                    released,
                    stop,
                });
            }
            let record = &map[offset..offset + header.size];
            let place = Place::File(offset);
            let payload = self.top_level(header, record, place, offset as u64, &bytes, handle)?;
            offset += header.size;
            if payload > 0 {
                offset = auxtrace_payload_end(offset, payload, data.end).ok_or_else(|| {
                    Stop::Read(format!(
                        "the AUXTRACE record {origin} states {payload} bytes of trace data, \
                         past the end of the data section"
                    ))
                })?;
            }
            let round_ended =
                header.record_type == FINISHED_ROUND || self.rounds == Rounds::EachRecord;
            if round_ended && offset >= next_step {
                next_step = offset + page_step;
                let needed = self
                    .order
                    .oldest(|place| match place {
                        Place::File(offset) => Some(*offset),
                        _ => None,
                    })
                    .unwrap_or(offset);
                // The page keeper stops only when this function returns.
                let _ = tell_pages.send(ReaderAt {
                    reached: offset,
                    needed,
                });
            }
        }
        Ok(())
    }
}
