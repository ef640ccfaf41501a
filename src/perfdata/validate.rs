//! Checks the structure of a file-mode perf.data before linux-perf-data sees it.
//!
//! linux-perf-data trusts the sizes and counts written in the file: a section
//! that points past the end fails with a bare `UnexpectedEof`, and a count that
//! is too large makes it allocate gigabytes and abort the process, which no
//! `catch_unwind` can stop. This module reads only the header, the feature
//! table and the few feature sections the library parses, and checks every
//! offset, size and count against the file's real length first.

use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;

/// Size of the fixed part of a file-mode header (`struct perf_file_header`).
pub const FILE_HEADER_SIZE: u64 = 104;
/// The smallest `perf_event_attr` perf ever wrote (`PERF_ATTR_SIZE_VER0`).
const MIN_ATTR_SIZE: u64 = 64;
/// Feature sections larger than this are not perf's own; refuse them.
const MAX_PARSED_FEATURE_SECTION: u64 = 256 << 20;
/// Bit number of `HEADER_CMDLINE` in the feature bitmap.
const FEATURE_CMDLINE: u32 = 11;
/// Bit number of `HEADER_EVENT_DESC` in the feature bitmap.
const FEATURE_EVENT_DESC: u32 = 12;

/// Why a file failed the check.
#[derive(Debug, PartialEq, Eq)]
pub enum Problem {
    /// A section ends past the end of the file.
    Truncated(String),
    /// A field holds a value perf never writes.
    Corrupt(String),
}

/// A `perf_file_section`: where something lives in the file.
#[derive(Clone, Copy, Debug)]
struct Section {
    offset: u64,
    size: u64,
}

impl Section {
    fn end(self) -> Option<u64> {
        self.offset.checked_add(self.size)
    }
}

/// Reads integers of the file's byte order out of a byte slice.
#[derive(Clone, Copy)]
pub(super) struct ByteOrder {
    pub(super) big_endian: bool,
}

impl ByteOrder {
    pub(super) fn u16(self, bytes: &[u8], at: usize) -> Option<u16> {
        let raw: [u8; 2] = bytes.get(at..at + 2)?.try_into().ok()?;
        Some(if self.big_endian {
            u16::from_be_bytes(raw)
        } else {
            u16::from_le_bytes(raw)
        })
    }

    pub(super) fn u32(self, bytes: &[u8], at: usize) -> Option<u32> {
        let raw: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if self.big_endian {
            u32::from_be_bytes(raw)
        } else {
            u32::from_le_bytes(raw)
        })
    }

    fn u64(self, bytes: &[u8], at: usize) -> Option<u64> {
        let raw: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
        Some(if self.big_endian {
            u64::from_be_bytes(raw)
        } else {
            u64::from_le_bytes(raw)
        })
    }

    fn section(self, bytes: &[u8], at: usize) -> Option<Section> {
        Some(Section {
            offset: self.u64(bytes, at)?,
            size: self.u64(bytes, at + 8)?,
        })
    }
}

/// Checks the file-mode perf.data in `file`, which is `file_len` bytes long,
/// and returns where its records lie. On success the file position is
/// unspecified; callers seek back.
pub fn check_file_structure<R: Read + Seek>(
    file: &mut R,
    file_len: u64,
    big_endian: bool,
) -> Result<Range<u64>, Problem> {
    let order = ByteOrder { big_endian };
    if file_len < FILE_HEADER_SIZE {
        return Err(Problem::Truncated(format!(
            "{file_len} bytes is shorter than the {FILE_HEADER_SIZE}-byte header"
        )));
    }
    let mut header = [0u8; FILE_HEADER_SIZE as usize];
    read_at(file, 0, &mut header)?;
    let field = |at| order.u64(&header, at).expect("inside the fixed header");
    let section = |at| order.section(&header, at).expect("inside the fixed header");

    let header_size = field(8);
    if header_size < FILE_HEADER_SIZE || header_size > file_len {
        return Err(Problem::Corrupt(format!(
            "header size {header_size} is not plausible"
        )));
    }
    let attr_size = field(16);
    let attrs = section(24);
    let data = section(40);
    let event_types = section(56);
    if !(MIN_ATTR_SIZE..=4096).contains(&attr_size) {
        return Err(Problem::Corrupt(format!(
            "attribute size {attr_size} is not plausible"
        )));
    }
    if data.size == 0 && file_len > header_size {
        return Err(Problem::Truncated(
            "the header's data size is 0: perf record did not finish writing this file \
             (it was killed, or the disk filled up)"
                .to_owned(),
        ));
    }
    check_bounds("attribute section", attrs, file_len)?;
    check_bounds("data section", data, file_len)?;
    check_bounds("event-types section", event_types, file_len)?;
    check_event_types(file, event_types, attr_size, file_len, order)?;

    let features: Vec<u32> = (0..256u32)
        .filter(|bit| field(72 + (bit / 64) as usize * 8) & (1u64 << (bit % 64)) != 0)
        .collect();
    let table_start = data.end().expect("checked by check_bounds");
    let table = Section {
        offset: table_start,
        size: 16 * features.len() as u64,
    };
    check_bounds("feature table after the data section", table, file_len)?;
    let mut table_bytes = vec![0u8; table.size as usize];
    read_at(file, table.offset, &mut table_bytes)?;
    for (index, &feature) in features.iter().enumerate() {
        let section = order
            .section(&table_bytes, index * 16)
            .expect("inside the table");
        check_bounds(&format!("feature section {feature}"), section, file_len)?;
        let parsed = matches!(feature, FEATURE_CMDLINE | FEATURE_EVENT_DESC);
        if !parsed {
            continue;
        }
        if section.size > MAX_PARSED_FEATURE_SECTION {
            return Err(Problem::Corrupt(format!(
                "feature section {feature} claims {} bytes",
                section.size
            )));
        }
        let mut bytes = vec![0u8; section.size as usize];
        read_at(file, section.offset, &mut bytes)?;
        let checked = if feature == FEATURE_CMDLINE {
            check_string_list(&bytes, order)
        } else {
            check_event_desc(&bytes, order)
        };
        checked.ok_or_else(|| {
            Problem::Corrupt(format!("feature section {feature} has inconsistent counts"))
        })?;
    }
    Ok(data.offset..data.end().expect("checked by check_bounds"))
}

fn read_at<R: Read + Seek>(file: &mut R, offset: u64, buf: &mut [u8]) -> Result<(), Problem> {
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(buf))
        .map_err(|error| Problem::Truncated(format!("reading at offset {offset}: {error}")))
}

fn check_bounds(what: &str, section: Section, file_len: u64) -> Result<(), Problem> {
    match section.end() {
        Some(end) if end <= file_len => Ok(()),
        Some(end) => Err(Problem::Truncated(format!(
            "the {what} ends at byte {end} but the file has only {file_len} bytes"
        ))),
        None => Err(Problem::Corrupt(format!(
            "the {what} has an impossible size"
        ))),
    }
}

/// The old `event_types` section: `{attr, ids section}` entries.
fn check_event_types<R: Read + Seek>(
    file: &mut R,
    event_types: Section,
    attr_size: u64,
    file_len: u64,
    order: ByteOrder,
) -> Result<(), Problem> {
    if event_types.size == 0 {
        return Ok(());
    }
    let entry_size = attr_size + 16;
    if event_types.size > MAX_PARSED_FEATURE_SECTION {
        return Err(Problem::Corrupt(
            "the event-types section is too large".to_owned(),
        ));
    }
    let mut bytes = vec![0u8; event_types.size as usize];
    read_at(file, event_types.offset, &mut bytes)?;
    for entry in bytes.chunks_exact(entry_size as usize) {
        let ids = order
            .section(entry, attr_size as usize)
            .expect("inside the entry");
        check_bounds("event id list", ids, file_len)?;
    }
    Ok(())
}

/// `struct perf_header_string_list`: a count, then length-prefixed strings.
fn check_string_list(bytes: &[u8], order: ByteOrder) -> Option<()> {
    let count = order.u32(bytes, 0)? as usize;
    let mut at = 4;
    for _ in 0..count {
        at = skip_string(bytes, at, order)?;
    }
    Some(())
}

/// `HEADER_EVENT_DESC`: `{nr, attr_size, {attr, nr_ids, string, ids[nr_ids]}[nr]}`.
fn check_event_desc(bytes: &[u8], order: ByteOrder) -> Option<()> {
    let count = order.u32(bytes, 0)? as usize;
    let attr_size = order.u32(bytes, 4)? as usize;
    if attr_size < MIN_ATTR_SIZE as usize {
        return None;
    }
    let mut at = 8usize;
    for _ in 0..count {
        at = at.checked_add(attr_size)?;
        let id_count = order.u32(bytes, at)? as usize;
        at = skip_string(bytes, at + 4, order)?;
        at = at.checked_add(id_count.checked_mul(8)?)?;
        if at > bytes.len() {
            return None;
        }
    }
    Some(())
}

/// Skips a `perf_header_string` (u32 length, then the bytes) starting at `at`.
fn skip_string(bytes: &[u8], at: usize, order: ByteOrder) -> Option<usize> {
    let len = order.u32(bytes, at)? as usize;
    let end = (at + 4).checked_add(len)?;
    (end <= bytes.len()).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn header(data: (u64, u64), features: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"PERFILE2");
        for value in [104u64, 136, 104, 0, data.0, data.1, 0, 0, features, 0, 0, 0] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn data_past_the_end_is_truncation() {
        let bytes = header((104, 1000), 0);
        let len = bytes.len() as u64;
        let problem = check_file_structure(&mut Cursor::new(bytes), len, false).unwrap_err();
        assert!(matches!(problem, Problem::Truncated(ref m) if m.contains("data section")));
    }

    #[test]
    fn huge_cmdline_count_is_refused_before_allocation() {
        let mut bytes = header((104, 8), 1 << FEATURE_CMDLINE);
        bytes.extend_from_slice(&[0u8; 8]); // the data section
        let section_offset = bytes.len() as u64 + 16;
        bytes.extend_from_slice(&section_offset.to_le_bytes());
        bytes.extend_from_slice(&4u64.to_le_bytes());
        bytes.extend_from_slice(&u32::MAX.to_le_bytes()); // 4 billion strings in 4 bytes
        let len = bytes.len() as u64;
        let problem = check_file_structure(&mut Cursor::new(bytes), len, false).unwrap_err();
        assert!(matches!(problem, Problem::Corrupt(ref m) if m.contains("section 11")));
    }

    #[test]
    fn zero_data_size_means_perf_did_not_finish() {
        let mut bytes = header((104, 0), 0);
        bytes.extend_from_slice(&[0u8; 64]);
        let len = bytes.len() as u64;
        let problem = check_file_structure(&mut Cursor::new(bytes), len, false).unwrap_err();
        assert!(matches!(problem, Problem::Truncated(ref m) if m.contains("did not finish")));
    }
}
