//! Reads a recording: a file-mode perf.data, perf's directory format
//! (`perf record --threads`) or a pipe-mode stream, plain or
//! zstd-compressed.
//!
//! It is compile-perf's only reader of recordings. It validates the
//! structure (`validate`), lets linux-perf-data parse the header, reads the
//! records itself (`reader`: in place from a memory map (`mapped`) or a
//! stream, each top-level record acted on and each round handed on in
//! order by `reading`, zstd decompressed with one context by `inflate`
//! (on a thread ahead of the reader for a mapped file) into the `pieces`
//! that `decompress` reads, each record checked by `plausible`; the
//! streams of a directory read in parallel and merged by `directory`, or
//! each read on its own, as many at once as the caller's jobs, by
//! `streams`), and
//! turns them into the few plain [`Record`]s the pipeline needs. It knows
//! nothing about processes, unwinding or symbols.

mod batch;
mod byte_order;
mod chunks;
mod convert;
mod decompress;
mod directory;
mod error;
mod events;
mod header_fields;
mod inflate;
mod mapped;
mod open;
mod pieces;
mod plausible;
mod reader;
mod reading;
mod record_header;
mod records;
mod round_order;
mod streams;
#[cfg(test)]
mod test_random;
mod validate;
mod zstd_blocks;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use linux_perf_data::linux_perf_event_reader::RawEventRecord;

use convert::deliver;
use directory::Directory;
pub use directory::is_perf_directory;
pub use error::Error;
use reader::{ReadEnd, RecordReader};
pub use records::RUN_RECORDING;
pub use records::{
    EventInfo, HeaderBuildId, Input, InputEnd, Mapping, Record, RecordingInfo, Sample, SampleMode,
    UserRegs,
};
pub use streams::{EachStream, StreamKey};

/// An opened recording, ready to stream its records.
pub struct Recording {
    /// What the header says.
    pub info: RecordingInfo,
    input: String,
    reader: Reader,
    /// What a salvaged file lacks, and whether its records may end inside one.
    salvaged: Option<validate::Salvage>,
}

enum Reader {
    Records(RecordReader),
    /// perf's directory format: the streams, merged in time order.
    Directory(Box<Directory>),
}

impl Recording {
    /// How many threads the reading may keep busy (at least 1): how many
    /// streams of a directory-format recording are read at once, and, at
    /// 1, that zstd records are decompressed on the reading thread rather
    /// than ahead of it on a thread of their own. Default is the cores
    /// there are. The records, and so every output, are the same whatever
    /// the number.
    pub fn set_jobs(&mut self, jobs: usize) {
        let decompress_ahead = jobs > 1;
        match &mut self.reader {
            Reader::Records(records) => records.lookahead.decompress_ahead = decompress_ahead,
            Reader::Directory(directory) => directory.set_jobs(jobs, decompress_ahead),
        }
    }

    /// How many record streams the recording has: one for a file or a
    /// pipe; for perf's directory format, its header file and each
    /// `data.N` file that holds records.
    pub fn stream_count(&self) -> usize {
        match &self.reader {
            Reader::Records(_) => 1,
            Reader::Directory(directory) => directory.stream_count(),
        }
    }

    /// Reads each record stream on its own instead of merged, at most
    /// `jobs` at once (on as many threads, this one among them), as `each`
    /// says: each of a stream's records, in the stream's order, with its
    /// [`StreamKey`], into the stream's state. Returns what is kept of
    /// each stream, in stream order, and how the recording ended. Sorting
    /// the records by their keys gives one time order, the same for every
    /// `jobs`.
    pub fn for_each_stream<T, K: Send>(
        &mut self,
        jobs: usize,
        each: &EachStream<
            impl Fn(u32) -> T + Sync,
            impl Fn(&mut T, StreamKey, Record<'_>) + Sync,
            impl Fn(T) -> K + Sync,
        >,
    ) -> (Vec<K>, InputEnd) {
        let records = match &mut self.reader {
            Reader::Records(records) => records,
            Reader::Directory(directory) => {
                let salvaged = self.salvaged.as_ref();
                return directory.for_each_stream(jobs, each, salvaged);
            }
        };
        let mut read = streams::read_each(vec![records], jobs, each);
        let (state, end) = read.pop().expect("one stream, one state");
        (vec![state], self.input_end(end))
    }

    /// Counts the bytes read in `counter` (as [`Self::progress`] gives it),
    /// for one progress display of more than one reading.
    pub fn count_progress_in(&mut self, counter: &Arc<AtomicU64>) {
        match &mut self.reader {
            Reader::Records(records) => records.bytes_read = counter.clone(),
            Reader::Directory(directory) => directory.count_progress_in(counter),
        }
    }

    /// How far the reading has gone, for a progress display: a counter of
    /// the record bytes read, which goes up while [`Self::for_each_record`]
    /// runs, and the bytes there are to read (not known of a pipe).
    pub fn progress(&self) -> (Arc<AtomicU64>, Option<u64>) {
        match &self.reader {
            Reader::Records(records) => (records.bytes_read.clone(), records.bytes_to_read()),
            Reader::Directory(directory) => (directory.bytes_read(), directory.bytes_to_read()),
        }
    }

    /// Streams every record to `handle`, in time order, and says how the input ended.
    pub fn for_each_record(
        &mut self,
        mut handle: impl FnMut(Record<'_>),
    ) -> Result<InputEnd, Error> {
        self.for_each_event(|attr_index, record| deliver(attr_index, &record, &mut handle))
    }

    /// Hands every event record, with the index of its event, to `handle`
    /// in time order; `handle` refuses a record by saying why.
    fn for_each_event(
        &mut self,
        mut handle: impl FnMut(usize, RawEventRecord<'_>) -> Result<(), String>,
    ) -> Result<InputEnd, Error> {
        let records = match &mut self.reader {
            Reader::Records(records) => records,
            Reader::Directory(directory) => {
                return Ok(directory.for_each(handle, self.salvaged.as_ref()));
            }
        };
        let end = records.for_each(|attr_index, record, _| handle(attr_index, record));
        Ok(self.input_end(end))
    }

    /// How the recording ended, from how its one stream ended.
    fn input_end(&self, end: ReadEnd) -> InputEnd {
        match (end, &self.salvaged) {
            (ReadEnd::Complete, None) => InputEnd::Complete,
            (ReadEnd::Complete, Some(salvage)) => InputEnd::Salvaged {
                reason: match salvage.data_may_be_cut {
                    true => format!("{}; all of its records were read", salvage.reason),
                    false => salvage.reason.clone(),
                },
            },
            (ReadEnd::Salvaged { read_to }, salvage) => InputEnd::Salvaged {
                reason: format!(
                    "{}; it was read up to its last complete record, which ends at byte \
                     {read_to}",
                    salvage
                        .as_ref()
                        .map_or("the file is cut", |salvage| &salvage.reason)
                ),
            },
            (ReadEnd::CutShort { bytes, reason }, _) => InputEnd::CutShort { bytes, reason },
            (ReadEnd::Unfinished(reason), _) => InputEnd::Unfinished { reason },
            (ReadEnd::Corrupt(reason), _) => InputEnd::Corrupt { reason },
        }
    }
}

fn corrupt(input: &str, reason: impl std::fmt::Display) -> Error {
    Error::Corrupt {
        input: input.to_owned(),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::io::{BufReader, Read, Seek, SeekFrom};
    use std::path::{Path, PathBuf};

    use linux_perf_data::{PerfFileReader, PerfFileRecord};

    use super::events::Events;
    use super::reader::Source;
    use super::reading::StreamKind;
    use super::*;

    /// (event, type, misc, time, body) of every event record, in the order given.
    type Seen = Vec<(usize, u32, u16, Option<u64>, Vec<u8>)>;

    fn seen(
        attr_index: usize,
        record: &RawEventRecord<'_>,
    ) -> (usize, u32, u16, Option<u64>, Vec<u8>) {
        (
            attr_index,
            record.record_type.0,
            record.misc,
            record.timestamp(),
            record.data.as_slice().into_owned(),
        )
    }

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(name)
    }

    fn by_linux_perf_data(path: &Path) -> Seen {
        let file = BufReader::new(File::open(path).unwrap());
        let PerfFileReader {
            mut perf_file,
            mut record_iter,
        } = if path.to_string_lossy().contains("pipe") {
            PerfFileReader::parse_pipe(file).unwrap()
        } else {
            PerfFileReader::parse_file(file).unwrap()
        };
        let mut records = Vec::new();
        while let Some(record) = record_iter.next_record(&mut perf_file).unwrap() {
            if let PerfFileRecord::EventRecord { attr_index, record } = record {
                records.push(seen(attr_index, &record));
            }
        }
        records
    }

    /// Compares the records of the recordings listed in
    /// `COMPILE_PERF_COMPARE` (paths separated by `:`) with linux-perf-data's,
    /// by digest: for checking real recordings, too large to commit.
    /// `COMPILE_PERF_COMPARE=run/perf.data cargo test --release --lib -- --ignored`
    #[test]
    #[ignore = "needs COMPILE_PERF_COMPARE=FILE[:FILE…]"]
    fn recordings_named_in_the_environment_read_as_linux_perf_data_reads_them() {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let digest = |seen: (usize, u32, u16, Option<u64>, Vec<u8>)| {
            let mut hasher = DefaultHasher::new();
            seen.hash(&mut hasher);
            hasher.finish()
        };
        let paths = std::env::var("COMPILE_PERF_COMPARE")
            .expect("COMPILE_PERF_COMPARE names the recordings to compare");
        for path in paths.split(':').map(Path::new) {
            let pipe = byte_order::ByteOrder { big_endian: false }
                .u64(&std::fs::read(path).unwrap()[..16], 8)
                == Some(16);
            let file = BufReader::new(File::open(path).unwrap());
            let PerfFileReader {
                mut perf_file,
                mut record_iter,
            } = if pipe {
                PerfFileReader::parse_pipe(file).unwrap()
            } else {
                PerfFileReader::parse_file(file).unwrap()
            };
            let mut expected = Vec::new();
            while let Some(record) = record_iter.next_record(&mut perf_file).unwrap() {
                if let PerfFileRecord::EventRecord { attr_index, record } = record {
                    expected.push(digest(seen(attr_index, &record)));
                }
            }
            let mut recording = Recording::open(&Input::Path(path.to_owned()), false).unwrap();
            let mut records = Vec::new();
            let end = recording
                .for_each_event(|attr_index, record| {
                    records.push(digest(seen(attr_index, &record)));
                    Ok(())
                })
                .unwrap();
            assert_eq!(end, InputEnd::Complete, "{}", path.display());
            assert_eq!(records.len(), expected.len(), "{}", path.display());
            let first_difference = records.iter().zip(&expected).position(|(a, b)| a != b);
            assert_eq!(
                first_difference,
                None,
                "{}: same records, same order",
                path.display()
            );
            eprintln!("{}: {} records, identical", path.display(), records.len());
        }
    }

    fn read_all(recording: &mut Recording) -> Seen {
        let mut records = Vec::new();
        let end = recording
            .for_each_event(|attr_index, record| {
                records.push(seen(attr_index, &record));
                Ok(())
            })
            .unwrap();
        assert_eq!(end, InputEnd::Complete);
        records
    }

    /// A file's records read as a stream, as when the file cannot be mapped.
    fn streamed(path: &Path) -> Recording {
        let mut recording = Recording::open(&Input::Path(path.to_owned()), false).unwrap();
        let mut file = File::open(path).unwrap();
        let len = file.metadata().unwrap().len();
        let layout = validate::check_file_structure(&mut file, len, false, false).unwrap();
        file.seek(SeekFrom::Start(layout.data.start)).unwrap();
        let data_len = layout.data.end - layout.data.start;
        let parsed = PerfFileReader::parse_file(BufReader::new(File::open(path).unwrap())).unwrap();
        let source = Source::Stream {
            reader: Box::new(file.take(data_len)),
            start: layout.data.start,
            kind: StreamKind::FileData { len: data_len },
        };
        recording.reader = Reader::Records(RecordReader::new(
            Events::new(&parsed.perf_file),
            source,
            false,
        ));
        recording
    }

    #[test]
    fn a_file_read_as_streams_gives_its_records_with_keys_in_their_order() {
        for name in [
            "fake-rounds.perf.data",
            "fake-dwarf.perf.data",
            "fake-pipe.perf.data",
        ] {
            let path = fixture(name);
            let mut recording = Recording::open(&Input::Path(path.clone()), false).unwrap();
            let mut samples = Vec::new();
            recording
                .for_each_record(|record| {
                    if let Record::Sample(sample) = record {
                        samples.push((sample.time, sample.tid, sample.ip));
                    }
                })
                .unwrap();
            let mut recording = Recording::open(&Input::Path(path), false).unwrap();
            assert_eq!(recording.stream_count(), 1, "{name}: one stream");
            let each = EachStream {
                start: |stream| (stream, Vec::new()),
                visit: |(_, seen): &mut (u32, Vec<_>), key: StreamKey, record: Record<'_>| {
                    if let Record::Sample(sample) = record {
                        seen.push((key, (sample.time, sample.tid, sample.ip)));
                    }
                },
                finish: |state| state,
            };
            let (streams, end) = recording.for_each_stream(2, &each);
            assert_eq!(end, InputEnd::Complete, "{name}");
            let [(0, seen)] = &streams[..] else {
                panic!("{name}: one stream, numbered 0");
            };
            assert!(seen.len() > 100, "{name} has samples");
            assert!(
                seen.windows(2).all(|pair| pair[0].0 < pair[1].0),
                "{name}: keys rise in the stream's order"
            );
            assert!(
                seen.iter()
                    .all(|(key, sample)| key.time == sample.0 && key.stream == 0),
                "{name}: a sample's key has its time"
            );
            let read: Vec<_> = seen.iter().map(|(_, sample)| *sample).collect();
            assert!(read == samples, "{name}: the same samples as read merged");
        }
    }

    #[test]
    fn records_come_in_the_order_and_with_the_events_linux_perf_data_gives() {
        for name in [
            "fake-fp.perf.data",
            "fake-rounds.perf.data",
            "fake-dwarf.perf.data",
            "fake-dwarf-buildid-mmap.perf.data",
            "fake-multi-event.perf.data",
            "fake-pipe.perf.data",
        ] {
            let path = fixture(name);
            let expected = by_linux_perf_data(&path);
            assert!(expected.len() > 100, "{name} has records");
            let mut recording = Recording::open(&Input::Path(path.clone()), false).unwrap();
            assert!(
                read_all(&mut recording) == expected,
                "{name}: same records, same order"
            );
            if !name.contains("pipe") {
                assert!(
                    read_all(&mut streamed(&path)) == expected,
                    "{name}, read as a stream: same records, same order"
                );
            }
            let events: std::collections::BTreeSet<usize> =
                expected.iter().map(|record| record.0).collect();
            let expected_events = if name.contains("rounds") || name.contains("multi") {
                2
            } else {
                1
            };
            assert_eq!(
                events.len(),
                expected_events,
                "{name}: every event has records"
            );
        }
    }
}
