//! Reads the records of a recording, in place and in perf's order: from a
//! memory-mapped file or from a stream (a pipe, or a file that cannot be
//! mapped), plain or zstd-compressed (`-z`).
//!
//! linux-perf-data copies every record into a buffer of its own (with DWARF
//! stack copies, a zero-filled 64 KiB buffer and a 64 KiB copy per sample),
//! and skips what it cannot make sense of. Here records are parsed where
//! they lie with linux-perf-event-reader, the record layer linux-perf-data is
//! built on: in the mapped file, in the chunks a stream is read into, or in
//! the pieces the zstd decompression writes (on a thread of its own, ahead
//! of the reader, for a mapped file). They are ordered as perf orders them: by time,
//! each FINISHED_ROUND releasing what no later record can precede. Every
//! record is checked first ([`plausible`](super::plausible)); the first one
//! that is not what perf writes ends the reading, after the records before
//! it are handed on.

use std::collections::VecDeque;
use std::io::Read;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::channel;

use linux_perf_data::linux_perf_event_reader::RawEventRecord;

use super::chunks::Chunks;
use super::events::Events;
use super::mapped::MappedFile;
use super::pieces::Decompressed;
use super::reading::{Bytes, Core, InPiece, Lookahead, Rounds, Stop, StreamKind};
use super::round_order::RoundOrder;

/// How a reading ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ReadEnd {
    /// Every record up to the end of the data.
    Complete,
    /// A pipe stream that stopped before perf finished writing it.
    CutShort { bytes: u64, reason: &'static str },
    /// The record stream is damaged; the reason says where and how.
    Corrupt(String),
    /// A salvaged file ends in a record perf did not finish writing; the
    /// records before byte `read_to` were read.
    Salvaged { read_to: u64 },
    /// The data ends inside its last record, which perf did not finish
    /// writing (a stream of a `--threads` directory, or zstd data whose end
    /// perf 6.1 dropped); every record before it was read.
    Unfinished(String),
}

/// Where the records come from.
pub(super) enum Source {
    /// The data section (byte range) of a mapped file.
    Mapped(MappedFile, Range<usize>),
    /// A pipe-mode stream after its header records, or the data section of
    /// a file that cannot be mapped; `start` is the offset of its first byte.
    Stream {
        reader: Box<dyn Read + Send>,
        start: u64,
        kind: StreamKind,
    },
}

/// The records of one recording, ready to be read once.
pub(super) struct RecordReader {
    pub(super) events: Events,
    pub(super) source: Option<Source>,
    /// Whether the data may end inside a record (a salvaged file whose
    /// data section's end is not known).
    pub(super) end_may_be_cut: bool,
    pub(super) rounds: Rounds,
    pub(super) lookahead: Lookahead,
    /// Bytes of top-level records read so far (shared by the streams of a
    /// directory), for a progress display.
    pub(super) bytes_read: Arc<AtomicU64>,
}

impl RecordReader {
    pub(super) fn new(events: Events, source: Source, end_may_be_cut: bool) -> RecordReader {
        RecordReader {
            events,
            source: Some(source),
            end_may_be_cut,
            rounds: Rounds::Marked,
            lookahead: Lookahead::WHOLE_FILE,
            bytes_read: Arc::default(),
        }
    }

    /// The bytes of records there are to read, when known (not of a pipe).
    pub(super) fn bytes_to_read(&self) -> Option<u64> {
        match self.source.as_ref()? {
            Source::Mapped(_, data) => Some(data.len() as u64),
            Source::Stream {
                kind: StreamKind::FileData { len },
                ..
            } => Some(*len),
            Source::Stream { .. } => None,
        }
    }

    /// Hands every event record, with the index of its event, to `handle`
    /// in perf's order, and says how the records ended. `handle` refuses a
    /// record by returning why; that ends the reading as corrupt.
    pub(super) fn for_each(
        &mut self,
        mut handle: impl FnMut(usize, RawEventRecord<'_>, InPiece<'_>) -> Result<(), String>,
    ) -> ReadEnd {
        let Some(source) = self.source.take() else {
            return ReadEnd::Complete;
        };
        let stream = matches!(
            source,
            Source::Stream {
                kind: StreamKind::Pipe,
                ..
            }
        );
        let mut core = Core {
            events: &self.events,
            order: RoundOrder::default(),
            inflation: None,
            decompressed: Decompressed::default(),
            compressed_starts: VecDeque::new(),
            last_compressed_full: false,
            ended_with_round: false,
            stream,
            rounds: self.rounds,
            lookahead: self.lookahead,
            bytes_read: &self.bytes_read,
        };
        let end_may_be_cut = self.end_may_be_cut;
        let (read, stream_chunks, map) = match source {
            Source::Mapped(map, data) => {
                let read = std::thread::scope(|scope| {
                    let (tell, told) = channel();
                    let keeper_data = data.clone();
                    let map = &map;
                    let page_step = self.lookahead.page_step;
                    scope.spawn(move || map.keep_pages_near_reader(keeper_data, page_step, told));
                    core.read_mapped(map.bytes(), data, end_may_be_cut, tell, &mut handle)
                });
                (read, None, Some(map))
            }
            Source::Stream {
                reader,
                start,
                kind,
            } => {
                let mut chunks = Chunks::new();
                let read = core.read_stream(
                    reader,
                    start,
                    kind,
                    end_may_be_cut,
                    &mut chunks,
                    &mut handle,
                );
                (read, Some(chunks), None)
            }
        };
        let bytes = Bytes {
            map: map.as_ref().map(MappedFile::bytes),
            stream: stream_chunks.as_ref(),
        };
        let stop = match read {
            Ok(()) => core.check_decompressed_end(end_may_be_cut).err(),
            Err(stop) => Some(stop),
        };
        if let Some(Stop::HandOn(reason)) = stop {
            return ReadEnd::Corrupt(reason);
        }
        if let Err(Stop::HandOn(reason)) = core.hand_on_all(&bytes, &mut handle) {
            return ReadEnd::Corrupt(reason);
        }
        match stop {
            None => ReadEnd::Complete,
            Some(Stop::Read(reason) | Stop::HandOn(reason)) => ReadEnd::Corrupt(reason),
            Some(Stop::CutShort { bytes, reason }) => ReadEnd::CutShort { bytes, reason },
            Some(Stop::Salvaged { read_to }) => ReadEnd::Salvaged { read_to },
            Some(Stop::Unfinished(reason)) => ReadEnd::Unfinished(reason),
        }
    }
}
