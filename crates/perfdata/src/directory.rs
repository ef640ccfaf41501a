//! perf's directory format (`perf record --threads`): a header file `data`
//! (header, features, and the few records perf's main thread writes) and
//! one record stream per CPU mask (`data.0`, `data.1`, …), each in the
//! kernel's order without FINISHED_ROUND records.
//!
//! Each stream is read on a thread of its own (with its own decompression
//! thread, as a single file is) into [batches](super::batch), and the
//! batches are merged here in time order: by time, then by stream number,
//! each stream's records in its own order. So the records handed on, and every
//! output made from them, do not depend on which thread finishes first, nor
//! on how many read at once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};

use linux_perf_data::linux_perf_event_reader::RawEventRecord;

use super::batch::{Batch, Held};
use super::byte_order::ByteOrder;
use super::events::Events;
use super::mapped::MappedFile;
use super::reader::{ReadEnd, RecordReader, Source};
use super::reading::{Lookahead, Rounds, StreamKind};
use super::record_header::{HEADER_SIZE, Header};
use super::records::{InputEnd, Record};
use super::streams::{EachStream, StreamKey, read_each};
use super::validate::Salvage;

/// The header file of the directory.
pub(super) const HEADER_FILE: &str = "data";
/// Read buffer of a stream that cannot be mapped.
const READ_BUFFER: usize = 32 << 10;

/// Whether `dir` is one of perf's directory-format recordings: it holds a
/// `data` file.
pub fn is_perf_directory(dir: &Path) -> bool {
    dir.join(HEADER_FILE).is_file()
}

/// The stream files of `dir` (`data.N`), in the order of N.
pub(super) fn stream_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut numbered: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let number = name.to_str()?.strip_prefix("data.")?.parse().ok()?;
            Some((number, entry.path()))
        })
        .collect();
    numbered.sort();
    Ok(numbered.into_iter().map(|(_, path)| path).collect())
}

/// One record stream, ready to be read.
struct Stream {
    /// Its file name in the directory (`data`, `data.0`, …), for messages.
    name: String,
    reader: RecordReader,
}

/// A directory-format recording's records, ready to be read once.
pub(super) struct Directory {
    events: Events,
    /// The header file's own records, then the streams in number order.
    streams: Vec<Stream>,
    /// How many streams are read at once. Default is the cores there are.
    threads: usize,
}

impl Directory {
    /// The directory's streams after its header file's records (`header`),
    /// each read as far as it goes with `salvage`. Empty streams (CPUs
    /// that recorded nothing) are left out, as perf leaves them out.
    pub(super) fn open(
        dir: &Path,
        header: RecordReader,
        salvage: bool,
    ) -> Result<Directory, (PathBuf, std::io::Error)> {
        let events = header.events.clone();
        let bytes_read = header.bytes_read.clone();
        let mut streams = vec![Stream {
            name: HEADER_FILE.to_owned(),
            reader: header,
        }];
        for path in stream_files(dir).map_err(|error| (dir.to_owned(), error))? {
            let file = File::open(&path).map_err(|error| (path.clone(), error))?;
            let len = file
                .metadata()
                .map_err(|error| (path.clone(), error))?
                .len();
            if len == 0 {
                continue;
            }
            let source = match MappedFile::new(&file, &(0..len)) {
                Ok(Some(map)) => Source::Mapped(map, 0..len as usize),
                _ => Source::Stream {
                    reader: Box::new(BufReader::with_capacity(READ_BUFFER, file).take(len)),
                    start: 0,
                    kind: StreamKind::FileData { len },
                },
            };
            let mut reader = RecordReader::new(events.clone(), source, salvage);
            reader.rounds = Rounds::EachRecord;
            reader.lookahead = Lookahead::ONE_OF_MANY;
            reader.bytes_read = bytes_read.clone();
            streams.push(Stream {
                name: path
                    .file_name()
                    .map_or_else(String::new, |name| name.to_string_lossy().into_owned()),
                reader,
            });
        }
        Ok(Directory {
            events,
            streams,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
        })
    }

    /// Reads at most `jobs` streams at once, each decompressed ahead of its
    /// reader or not.
    pub(super) fn set_jobs(&mut self, jobs: usize, decompress_ahead: bool) {
        self.threads = jobs.max(1);
        for stream in &mut self.streams {
            stream.reader.lookahead.decompress_ahead = decompress_ahead;
        }
    }

    /// The bytes of records in all the streams.
    pub(super) fn bytes_to_read(&self) -> Option<u64> {
        (self.streams.iter())
            .map(|stream| stream.reader.bytes_to_read())
            .sum()
    }

    /// Counts the bytes every stream reads in `counter`.
    pub(super) fn count_progress_in(&mut self, counter: &Arc<AtomicU64>) {
        for stream in &mut self.streams {
            stream.reader.bytes_read = counter.clone();
        }
    }

    /// The counter of the bytes read, which every stream adds to.
    pub(super) fn bytes_read(&self) -> Arc<AtomicU64> {
        self.streams[0].reader.bytes_read.clone()
    }

    /// How many record streams there are: the header file's and the
    /// `data.N` files that hold records.
    pub(super) fn stream_count(&self) -> usize {
        self.streams.len()
    }

    /// Reads each stream on its own, at most `jobs` at once (see
    /// [`read_each`]), and says how the recording ended, as
    /// [`Self::for_each`] would.
    pub(super) fn for_each_stream<T, K: Send>(
        &mut self,
        jobs: usize,
        each: &EachStream<
            impl Fn(u32) -> T + Sync,
            impl Fn(&mut T, StreamKey, Record<'_>) + Sync,
            impl Fn(T) -> K + Sync,
        >,
        salvaged: Option<&Salvage>,
    ) -> (Vec<K>, InputEnd) {
        let names: Vec<String> = self.streams.iter().map(|s| s.name.clone()).collect();
        let readers = self.streams.iter_mut().map(|s| &mut s.reader).collect();
        let (states, ends) = read_each(readers, jobs, each).into_iter().unzip();
        (states, input_end(&names, ends, salvaged))
    }

    /// Hands every record of every stream to `handle`, in time order, and
    /// says how the recording ended; `salvaged` is what the header file
    /// lacks, when it was salvaged.
    pub(super) fn for_each(
        &mut self,
        mut handle: impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
        salvaged: Option<&Salvage>,
    ) -> InputEnd {
        let gate = Gate::new(self.threads.max(1));
        let names: Vec<String> = self.streams.iter().map(|s| s.name.clone()).collect();
        let (ends, refused) = std::thread::scope(|scope| {
            let mut batches = Vec::with_capacity(self.streams.len());
            for stream in &mut self.streams {
                let (send, receive) = sync_channel(1);
                let gate = &gate;
                let reader = &mut stream.reader;
                let order = self.events.rules.order;
                scope.spawn(move || read_stream(reader, order, &send, gate));
                batches.push(receive);
            }
            merge(&self.events, &batches, &mut handle)
        });
        if let Some(reason) = refused {
            return InputEnd::Corrupt { reason };
        }
        input_end(&names, ends, salvaged)
    }
}

/// Lets at most a set number of streams be read at once.
struct Gate {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Gate {
    fn new(permits: usize) -> Gate {
        Gate {
            free: Mutex::new(permits),
            freed: Condvar::new(),
        }
    }

    fn enter(&self) {
        let mut free = self
            .free
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        while *free == 0 {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        *free -= 1;
    }

    fn leave(&self) {
        *self
            .free
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) += 1;
        self.freed.notify_one();
    }
}

/// What a stream's thread hands to the merge.
enum Message {
    Batch(Batch),
    End(ReadEnd),
}

/// Reads one stream into batches, entering `gate` for the reading and
/// leaving it while a full batch waits for the merge.
fn read_stream(
    reader: &mut RecordReader,
    order: ByteOrder,
    send: &SyncSender<Message>,
    gate: &Gate,
) {
    let mut batch = Batch::new();
    let mut last_time = 0;
    gate.enter();
    let end = reader.for_each(|attr_index, record, in_piece| {
        let body = match in_piece {
            Some((piece, at)) => batch.keep(piece, at, HEADER_SIZE + record.data.len()),
            None => batch.copy(&record, order),
        };
        last_time = record.timestamp().unwrap_or(last_time);
        batch.records.push(Held {
            body,
            record_type: record.record_type.0,
            misc: record.misc,
            attr_index,
            time: last_time,
        });
        if batch.is_full() {
            gate.leave();
            let sent = send.send(Message::Batch(std::mem::replace(&mut batch, Batch::new())));
            gate.enter();
            sent.map_err(|_| "the merge of the streams stopped".to_owned())?;
        }
        Ok(())
    });
    gate.leave();
    if !batch.records.is_empty() {
        let _ = send.send(Message::Batch(batch));
    }
    let _ = send.send(Message::End(end));
}

/// The batch a stream's merge is in, and its next record.
struct Head {
    batch: Batch,
    next: usize,
}

/// Merges the streams' batches in time order into `handle`. Returns how
/// each stream ended, and why `handle` refused a record, if it did (then
/// the merge stopped there).
fn merge(
    events: &Events,
    batches: &[Receiver<Message>],
    handle: &mut impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
) -> (Vec<ReadEnd>, Option<String>) {
    let mut ends: Vec<Option<ReadEnd>> = (0..batches.len()).map(|_| None).collect();
    let next_head = |stream: usize, ends: &mut Vec<Option<ReadEnd>>| loop {
        match batches[stream].recv() {
            Ok(Message::Batch(batch)) if batch.records.is_empty() => {}
            Ok(Message::Batch(batch)) => break Some(Head { batch, next: 0 }),
            Ok(Message::End(end)) => {
                ends[stream] = Some(end);
                break None;
            }
            Err(_) => {
                ends[stream] = Some(ReadEnd::Corrupt(
                    "its reader stopped before the end".to_owned(),
                ));
                break None;
            }
        }
    };
    let mut heads: Vec<Option<Head>> = (0..batches.len())
        .map(|stream| next_head(stream, &mut ends))
        .collect();
    let mut order: BinaryHeap<Reverse<(u64, usize)>> = heads
        .iter()
        .enumerate()
        .filter_map(|(stream, head)| {
            let head = head.as_ref()?;
            Some(Reverse((head.batch.records[head.next].time, stream)))
        })
        .collect();
    while let Some(Reverse((_, stream))) = order.pop() {
        let Some(head) = heads[stream].as_mut() else {
            continue;
        };
        let held = &head.batch.records[head.next];
        let body = head.batch.body(held);
        let header = Header {
            record_type: held.record_type,
            misc: held.misc,
            size: HEADER_SIZE + body.len(),
        };
        if let Err(reason) = handle(
            held.attr_index,
            events.record(header, body, held.attr_index),
        ) {
            return (Vec::new(), Some(reason));
        }
        head.next += 1;
        if head.next == head.batch.records.len() {
            heads[stream] = next_head(stream, &mut ends);
        }
        if let Some(head) = &heads[stream] {
            order.push(Reverse((head.batch.records[head.next].time, stream)));
        }
    }
    let ends = ends
        .into_iter()
        .map(|end| end.unwrap_or(ReadEnd::Complete))
        .collect();
    (ends, None)
}

/// How the whole recording ended, from how each stream (`names`) ended:
/// the first damaged stream makes it corrupt; salvaged streams and a
/// salvaged header file make it salvaged; streams whose last record perf
/// did not finish make it unfinished.
fn input_end(names: &[String], ends: Vec<ReadEnd>, salvaged: Option<&Salvage>) -> InputEnd {
    let mut salvage_reasons: Vec<String> = salvaged.map(|s| s.reason.clone()).into_iter().collect();
    let mut unfinished = Vec::new();
    for (name, end) in names.iter().zip(ends) {
        match end {
            ReadEnd::Complete => {}
            ReadEnd::Unfinished(reason) => {
                unfinished.push(format!("in its stream {name}, {reason}"));
            }
            ReadEnd::Corrupt(reason) => {
                return InputEnd::Corrupt {
                    reason: format!("in its stream {name}, {reason}"),
                };
            }
            ReadEnd::CutShort { bytes, reason } => {
                return InputEnd::Corrupt {
                    reason: format!("its stream {name} ends after {bytes} bytes: {reason}"),
                };
            }
            ReadEnd::Salvaged { read_to } => salvage_reasons.push(format!(
                "its stream {name} is cut; it was read up to its last complete record, which \
                 ends at byte {read_to}"
            )),
        }
    }
    if !salvage_reasons.is_empty() {
        salvage_reasons.extend(unfinished);
        InputEnd::Salvaged {
            reason: salvage_reasons.join("; "),
        }
    } else if !unfinished.is_empty() {
        InputEnd::Unfinished {
            reason: unfinished.join("; "),
        }
    } else {
        InputEnd::Complete
    }
}
