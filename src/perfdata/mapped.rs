//! Reads the records of an uncompressed file-mode perf.data in place, from a
//! memory map, in time order.
//!
//! linux-perf-data copies every record into a buffer of its own; with DWARF
//! stack copies that is a zero-filled 64 KiB buffer and a 64 KiB copy per
//! sample, most of the cost of reading a large recording. Here the records
//! are parsed where they lie with linux-perf-event-reader, the record layer
//! linux-perf-data is built on, and ordered as perf orders them: by time,
//! each FINISHED_ROUND releasing what no later record can precede. Pages
//! behind the reader leave the process's memory, so a large file never stays
//! resident. Compressed and simpleperf files, and events that need per-event
//! id parsing, keep linux-perf-data's own reader.

use std::fs::File;
use std::ops::Range;

use hashbrown::HashMap;
use linux_perf_data::linux_perf_event_reader::{
    RawData, RawEventRecord, RecordParseInfo, RecordType,
};
use linux_perf_data::{Endianness, Feature, PerfFile};
use std::sync::mpsc::{Receiver, Sender, channel};

use memmap2::{Advice, Mmap, UncheckedAdvice};

use super::corrupt;
use super::validate::ByteOrder;
use crate::error::Error;

/// `PERF_RECORD_FINISHED_ROUND` (perf's `tools/perf/util/event.h`): no record
/// after it is older than the records before the previous one.
const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_COMPRESSED` and `PERF_RECORD_COMPRESSED2`.
const COMPRESSED_TYPES: [u32; 2] = [81, 83];
/// Size of `struct perf_event_header`.
const HEADER_SIZE: usize = 8;
/// Pages are mapped ahead of the reader, and dropped behind it, in steps of
/// this many bytes.
const PAGE_STEP: usize = 8 << 20;

/// A record's place in perf's order: its time (records without one first),
/// then its position in the file.
type SortKey = (Option<u64>, usize);

/// Where the reader is, as offsets in the mapping: it has reached
/// `reached`, and needs nothing before `needed`.
struct ReaderAt {
    reached: usize,
    needed: usize,
}

/// A record read but not yet handed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    key: SortKey,
    attr_index: usize,
    header: Header,
}

/// A record's `struct perf_event_header`, checked against the data section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    record_type: u32,
    misc: u16,
    size: usize,
}

/// Puts records in perf's time order. perf writes each CPU's buffer in
/// turn, so records arrive out of order, and marks with FINISHED_ROUND the
/// points after which no record is older than anything before the previous
/// mark: a round's records can be handed on once the next round has ended.
#[derive(Default)]
struct RoundOrder {
    pending: Vec<Pending>,
    /// The latest key seen before the last FINISHED_ROUND.
    previous_round_max: Option<SortKey>,
    max_seen: Option<SortKey>,
}

impl RoundOrder {
    fn push(&mut self, record: Pending) {
        self.max_seen = self.max_seen.max(Some(record.key));
        self.pending.push(record);
    }

    /// At a FINISHED_ROUND: the records no later record can precede, in order.
    fn finish_round(&mut self) -> std::vec::Drain<'_, Pending> {
        self.pending.sort_unstable_by_key(|record| record.key);
        let limit = self.previous_round_max;
        let ready = self
            .pending
            .partition_point(|record| Some(record.key) <= limit);
        self.previous_round_max = self.max_seen;
        self.pending.drain(..ready)
    }

    /// At the end: every record left, in order.
    fn finish(mut self) -> Vec<Pending> {
        self.pending.sort_unstable_by_key(|record| record.key);
        self.pending
    }

    /// The data offset of the earliest record still held.
    fn oldest_offset(&self) -> Option<usize> {
        self.pending.iter().map(|record| record.key.1).min()
    }
}

/// The data section of a file-mode perf.data, mapped.
pub struct MappedRecords {
    map: Mmap,
    data: Range<usize>,
    order: ByteOrder,
    /// Per event, how its records are laid out.
    parse_infos: Vec<RecordParseInfo>,
    /// Which event a record id belongs to; empty with a single event.
    event_of_id: HashMap<u64, usize>,
}

impl MappedRecords {
    /// Maps `file` for reading the records in `data` (byte offsets), or
    /// `None` when linux-perf-data's reader must do it: compressed or
    /// simpleperf files, and events whose record ids lie at different places.
    pub fn new(
        file: &File,
        data: Range<u64>,
        perf_file: &PerfFile,
    ) -> std::io::Result<Option<MappedRecords>> {
        let features = perf_file.features();
        if features.has_feature(Feature::COMPRESSED)
            || features.has_feature(Feature::SIMPLEPERF_META_INFO)
        {
            return Ok(None);
        }
        let endian = perf_file.endian();
        let attributes = perf_file.event_attributes();
        let parse_infos: Vec<RecordParseInfo> = attributes
            .iter()
            .map(|attribute| RecordParseInfo::new(&attribute.attr, endian))
            .collect();
        let Some(first) = parse_infos.first() else {
            return Ok(None);
        };
        if parse_infos
            .iter()
            .any(|info| info.id_parse_info != first.id_parse_info)
        {
            return Ok(None);
        }
        let event_of_id = if attributes.len() > 1 {
            attributes
                .iter()
                .enumerate()
                .flat_map(|(index, attribute)| {
                    attribute.event_ids.iter().map(move |&id| (id, index))
                })
                .collect()
        } else {
            HashMap::new()
        };
        // SAFETY: the mapping is read-only and private. The structure check
        // has confirmed that the data section lies inside the file; a file
        // shortened by another process while it is read would fault, as any
        // mapped file would.
        let map = unsafe { Mmap::map(file) }?;
        let (Ok(start), Ok(end)) = (usize::try_from(data.start), usize::try_from(data.end)) else {
            return Ok(None);
        };
        if end > map.len() || start > end {
            return Ok(None);
        }
        Ok(Some(MappedRecords {
            map,
            data: start..end,
            order: ByteOrder {
                big_endian: endian == Endianness::BigEndian,
            },
            parse_infos,
            event_of_id,
        }))
    }

    /// Hands every event record of `input`, with the index of its event, to
    /// `handle` in time order. Stops at the first error `handle` returns; a
    /// record that does not fit the data section is [`Error::Corrupt`].
    pub fn for_each(
        &self,
        input: &str,
        handle: impl FnMut(usize, RawEventRecord<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        std::thread::scope(|scope| {
            let (tell, told) = channel();
            scope.spawn(move || self.keep_pages_near_reader(told));
            self.read_records(input, handle, tell)
        })
    }

    fn read_records(
        &self,
        input: &str,
        mut handle: impl FnMut(usize, RawEventRecord<'_>) -> Result<(), Error>,
        tell_pages: Sender<ReaderAt>,
    ) -> Result<(), Error> {
        let data = &self.map[self.data.clone()];
        let mut order = RoundOrder::default();
        let mut next_step = PAGE_STEP;
        let mut offset = 0;
        while offset < data.len() {
            let header = self
                .header(data, offset)
                .map_err(|problem| corrupt(input, problem))?;
            let Header {
                record_type, size, ..
            } = header;
            if record_type == FINISHED_ROUND {
                for record in order.finish_round() {
                    handle(record.attr_index, self.record_at(data, &record))?;
                }
                if offset >= next_step {
                    next_step = offset + PAGE_STEP;
                    let needed = order.oldest_offset().unwrap_or(offset);
                    // The page keeper stops only when this function returns.
                    let _ = tell_pages.send(ReaderAt {
                        reached: self.data.start + offset,
                        needed: self.data.start + needed,
                    });
                }
            } else if COMPRESSED_TYPES.contains(&record_type) {
                return Err(corrupt(
                    input,
                    format!(
                        "a compressed record at data offset {offset} in a file whose header \
                         announces no compression"
                    ),
                ));
            } else if !RecordType(record_type).is_user_type() {
                let attr_index = self.event_of(&self.record(data, offset, header, 0));
                let time = self.record(data, offset, header, attr_index).timestamp();
                order.push(Pending {
                    key: (time, offset),
                    attr_index,
                    header,
                });
            }
            offset += size;
        }
        for record in order.finish() {
            handle(record.attr_index, self.record_at(data, &record))?;
        }
        Ok(())
    }

    /// Runs beside the reader: maps the next steps of pages before the
    /// reader gets there, so it does not fault them in one at a time, and
    /// drops the pages it no longer needs, so a large file never stays
    /// resident (they stay in the page cache). Ends when the reader does.
    fn keep_pages_near_reader(&self, told: Receiver<ReaderAt>) {
        let mut mapped = self.data.start;
        let mut released = 0;
        let mut map_ahead = |reached: usize| {
            let end = (reached + 2 * PAGE_STEP).min(self.data.end);
            if end > mapped {
                // Best effort: kernels before 5.14 lack MADV_POPULATE_READ.
                let _ = self
                    .map
                    .advise_range(Advice::PopulateRead, mapped, end - mapped);
                mapped = end;
            }
        };
        map_ahead(self.data.start);
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

    /// The header of the record at `offset`.
    fn header(&self, data: &[u8], offset: usize) -> Result<Header, String> {
        let header = data.get(offset..offset + HEADER_SIZE).ok_or_else(|| {
            format!(
                "the record header at data offset {offset} runs past the end of the data section"
            )
        })?;
        let field = |at| self.order.u16(header, at).expect("inside the header");
        let record_type = self.order.u32(header, 0).expect("inside the header");
        let (misc, size) = (field(4), usize::from(field(6)));
        if size < HEADER_SIZE {
            return Err(format!(
                "the record at data offset {offset} states a size of {size} bytes"
            ));
        }
        if offset + size > data.len() {
            return Err(format!(
                "the record at data offset {offset} runs past the end of the data section"
            ));
        }
        Ok(Header {
            record_type,
            misc,
            size,
        })
    }

    /// The event `record` belongs to, by its id; the first when it has none.
    fn event_of(&self, record: &RawEventRecord<'_>) -> usize {
        if self.event_of_id.is_empty() {
            return 0;
        }
        record
            .id()
            .and_then(|id| self.event_of_id.get(&id).copied())
            .unwrap_or(0)
    }

    /// The record at `offset`, parsed in place as one of event `attr_index`.
    fn record<'a>(
        &self,
        data: &'a [u8],
        offset: usize,
        header: Header,
        attr_index: usize,
    ) -> RawEventRecord<'a> {
        RawEventRecord::new(
            RecordType(header.record_type),
            header.misc,
            RawData::Single(&data[offset + HEADER_SIZE..offset + header.size]),
            self.parse_infos[attr_index],
        )
    }

    /// The record `pending` refers to.
    fn record_at<'a>(&self, data: &'a [u8], pending: &Pending) -> RawEventRecord<'a> {
        self.record(data, pending.key.1, pending.header, pending.attr_index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linux_perf_data::{PerfFileReader, PerfFileRecord};
    use std::io::{BufReader, Seek, SeekFrom};
    use std::path::Path;

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

    fn by_linux_perf_data(path: &Path) -> Seen {
        let file = File::open(path).unwrap();
        let PerfFileReader {
            mut perf_file,
            mut record_iter,
        } = PerfFileReader::parse_file(BufReader::new(file)).unwrap();
        let mut records = Vec::new();
        while let Some(record) = record_iter.next_record(&mut perf_file).unwrap() {
            if let PerfFileRecord::EventRecord { attr_index, record } = record {
                records.push(seen(attr_index, &record));
            }
        }
        records
    }

    fn mapped(path: &Path) -> Option<MappedRecords> {
        let file = File::open(path).unwrap();
        let len = file.metadata().unwrap().len();
        let data = super::super::validate::check_file_structure(&mut &file, len, false).unwrap();
        (&file).seek(SeekFrom::Start(0)).unwrap();
        let reader = PerfFileReader::parse_file(BufReader::new(file.try_clone().unwrap())).unwrap();
        MappedRecords::new(&file, data, &reader.perf_file).unwrap()
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    #[test]
    fn records_come_in_the_order_and_with_the_events_linux_perf_data_gives() {
        for name in ["fake-fp.perf.data", "fake-rounds.perf.data"] {
            let path = fixture(name);
            let expected = by_linux_perf_data(&path);
            let events: std::collections::BTreeSet<usize> =
                expected.iter().map(|record| record.0).collect();
            assert!(expected.len() > 100, "{name} has records");
            let mut records = Vec::new();
            mapped(&path)
                .expect("an uncompressed perf.data is read in place")
                .for_each("fixture", |attr_index, record| {
                    records.push(seen(attr_index, &record));
                    Ok(())
                })
                .unwrap();
            assert!(records == expected, "{name}: same records, same order");
            if name == "fake-rounds.perf.data" {
                assert_eq!(events.len(), 2, "both events have records");
            }
        }
    }

    /// After perf's example (`tools/perf/util/ordered-events.c`): two CPUs,
    /// three rounds; a round is handed on only when the next one has ended,
    /// and equal times keep file order (the 4 of round two waits).
    #[test]
    fn rounds_are_handed_on_one_round_late_in_time_order() {
        let mut order = RoundOrder::default();
        let mut offset = 0;
        let mut push = |order: &mut RoundOrder, time: u64| {
            offset += 8;
            order.push(Pending {
                key: (Some(time), offset),
                attr_index: 0,
                header: Header {
                    record_type: 9,
                    misc: 0,
                    size: 8,
                },
            });
        };
        let times = |records: Vec<Pending>| -> Vec<u64> {
            records.iter().map(|record| record.key.0.unwrap()).collect()
        };
        for time in [1, 2, 2, 3, 4] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), Vec::<u64>::new());
        for time in [3, 4, 5, 6, 7] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), [1, 2, 2, 3, 3, 4]);
        assert_eq!(order.oldest_offset(), Some(56));
        for time in [6, 8, 9] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), [4, 5, 6, 6, 7]);
        assert_eq!(times(order.finish()), [8, 9]);
    }

    #[test]
    fn compressed_recordings_are_left_to_linux_perf_data() {
        for name in ["fake-dwarf.perf.data", "fake-multi-event.perf.data"] {
            assert!(mapped(&fixture(name)).is_none(), "{name}");
        }
    }
}
