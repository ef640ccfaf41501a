//! Checks the structure of a file-mode perf.data before linux-perf-data sees it.
//!
//! linux-perf-data trusts the sizes and counts written in the file: a section
//! that points past the end fails with a bare `UnexpectedEof`, and a count that
//! is too large makes it allocate gigabytes and abort the process, which no
//! `catch_unwind` can stop. This module reads only the header, the event
//! attributes, the feature table and the few feature sections the library
//! parses, and checks every offset, size and count against the file's real
//! length and against what perf writes, first.
//!
//! It also tells a damaged file from one perf did not finish (killed, or cut
//! inside its trailing feature sections), and, when asked to salvage such a
//! file, builds the header linux-perf-data should parse instead: the
//! original one without the missing parts.

use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;

/// Size of the fixed part of a file-mode header (`struct perf_file_header`).
pub(super) const FILE_HEADER_SIZE: u64 = 104;
/// The smallest `perf_event_attr` perf ever wrote (`PERF_ATTR_SIZE_VER0`).
const MIN_ATTR_SIZE: u64 = 64;
/// The largest `perf_event_attr` entry believed (Linux 6.18's is 136 bytes).
const MAX_ATTR_SIZE: u64 = 4096;
/// Size of a `perf_file_section` (offset, size).
const SECTION_SIZE: u64 = 16;
/// Feature sections larger than this are not perf's own; refuse them.
const MAX_PARSED_FEATURE_SECTION: u64 = 256 << 20;
/// perf writes the attributes and their ids between the header and the data
/// section: a few KiB, even with thousands of CPUs.
const MAX_DATA_OFFSET: u64 = 16 << 20;
/// No recording is 256 TiB long: an offset or size past this is a damaged field.
const MAX_FILE_OFFSET: u64 = 1 << 48;
/// Bit number of `HEADER_CMDLINE` in the feature bitmap.
const FEATURE_CMDLINE: u32 = 11;
/// Bit number of `HEADER_EVENT_DESC` in the feature bitmap.
const FEATURE_EVENT_DESC: u32 = 12;
/// `perf_event_attr` bits: every `sample_type` bit lies below this
/// (`PERF_SAMPLE_MAX`), every `read_format` bit below the next, and the
/// attribute flags below the third (the rest are reserved, and zero).
const SAMPLE_TYPE_END: u64 = 1 << 25;
const READ_FORMAT_END: u64 = 1 << 5;
const ATTR_FLAGS_END: u64 = 1 << 48;
/// The `freq` attribute flag: the period field holds a frequency.
const ATTR_FLAG_FREQ: u64 = 1 << 10;

/// Feature bits perf never sets: 0 is reserved, 64 to 127 are unassigned
/// (perf's own end near 34, simpleperf's start at 128).
fn is_unassigned_feature(bit: u32) -> bool {
    bit == 0 || (64..128).contains(&bit)
}

/// Why a file failed the check.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Problem {
    /// The file ends before the parts a reading needs.
    Truncated(String),
    /// A field holds a value perf never writes.
    Corrupt(String),
}

/// Where the records of a checked file lie, and how to read it.
#[derive(Debug)]
pub(super) struct Layout {
    /// File offsets of the records.
    pub data: Range<u64>,
    /// Set when the file is read as a salvage of an unfinished recording.
    pub salvage: Option<Salvage>,
}

/// A file perf did not finish, read as far as it goes.
#[derive(Debug)]
pub(super) struct Salvage {
    /// What is missing, for the warning.
    pub reason: String,
    /// A perf.data header for linux-perf-data to parse instead of the
    /// file's: the header, attributes and ids, then the feature sections
    /// that are complete, with no data section.
    pub header: Vec<u8>,
    /// Whether the last record may be cut (the data section's end is not known).
    pub data_may_be_cut: bool,
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
#[derive(Clone, Copy, Debug)]
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

    pub(super) fn u64(self, bytes: &[u8], at: usize) -> Option<u64> {
        let raw: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
        Some(if self.big_endian {
            u64::from_be_bytes(raw)
        } else {
            u64::from_le_bytes(raw)
        })
    }

    fn put_u64(self, bytes: &mut [u8], at: usize, value: u64) {
        let raw = if self.big_endian {
            value.to_be_bytes()
        } else {
            value.to_le_bytes()
        };
        bytes[at..at + 8].copy_from_slice(&raw);
    }

    fn section(self, bytes: &[u8], at: usize) -> Option<Section> {
        Some(Section {
            offset: self.u64(bytes, at)?,
            size: self.u64(bytes, at + 8)?,
        })
    }
}

/// A feature section whose place the table states.
struct FeatureSection {
    bit: u32,
    section: Section,
}

/// Checks the file-mode perf.data in `file`, which is `file_len` bytes long,
/// and says where its records lie. A file perf did not finish is refused,
/// unless `salvage` allows reading what it holds. On success the file
/// position is unspecified; callers seek back.
pub(super) fn check_file_structure<R: Read + Seek>(
    file: &mut R,
    file_len: u64,
    big_endian: bool,
    salvage: bool,
) -> Result<Layout, Problem> {
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
    if !(FILE_HEADER_SIZE..=MAX_DATA_OFFSET).contains(&header_size) {
        return Err(corrupt_field(8, format!("header size {header_size}")));
    }
    let attr_size = field(16);
    let attrs = section(24);
    let data = section(40);
    let event_types = section(56);
    if !(MIN_ATTR_SIZE + SECTION_SIZE..=MAX_ATTR_SIZE).contains(&attr_size) || attr_size % 8 != 0 {
        return Err(corrupt_field(16, format!("attribute size {attr_size}")));
    }
    if data.offset < header_size || data.offset > MAX_DATA_OFFSET {
        return Err(corrupt_field(
            40,
            format!("data section offset {}", data.offset),
        ));
    }
    let data_end = data
        .end()
        .filter(|&end| end <= MAX_FILE_OFFSET)
        .ok_or_else(|| corrupt_field(48, format!("data section size {}", data.size)))?;
    if attrs.offset < header_size
        || attrs.end().is_none_or(|end| end > data.offset)
        || attrs.size % attr_size != 0
    {
        return Err(corrupt_field(
            24,
            format!(
                "attribute section at {} of {} bytes (perf writes it between the header and \
                 the data at {})",
                attrs.offset, attrs.size, data.offset
            ),
        ));
    }
    if data.offset > file_len {
        return Err(Problem::Truncated(format!(
            "the file ends at byte {file_len}, before its records start at byte {}",
            data.offset
        )));
    }
    let mut head = vec![0u8; data.offset as usize];
    read_at(file, 0, &mut head)?;
    let attributes = check_attributes(&head, attrs, attr_size, header_size, order)?;
    check_bounds("event-types section", event_types, file_len)?;
    check_event_types(file, event_types, attr_size, file_len, order)?;

    let features: Vec<u32> = (0..256u32)
        .filter(|bit| field(72 + (bit / 64) as usize * 8) & (1u64 << (bit % 64)) != 0)
        .collect();
    if let Some(bit) = features.iter().find(|&&bit| is_unassigned_feature(bit)) {
        return Err(corrupt_field(
            72,
            format!("feature bitmap (bit {bit} is set, which perf never sets)"),
        ));
    }

    let unfinished = if data.size == 0 {
        Some(Unfinished::Killed)
    } else if data_end > file_len {
        Some(Unfinished::CutInData)
    } else {
        None
    };
    let (sections, cut_in_features) = match unfinished {
        Some(_) => (Vec::new(), None),
        None => feature_sections(file, &features, data_end, file_len, order)?,
    };
    let mut kept = Vec::new();
    for feature in sections {
        let parsed = matches!(feature.bit, FEATURE_CMDLINE | FEATURE_EVENT_DESC);
        if !(parsed || salvage) {
            continue;
        }
        let bytes = read_feature(file, &feature, parsed)?;
        if feature.bit == FEATURE_EVENT_DESC {
            check_event_desc_matches(&bytes, &attributes, order)?;
        } else if feature.bit == FEATURE_CMDLINE {
            check_string_list(&bytes, order).ok_or_else(|| {
                Problem::Corrupt(format!(
                    "feature section {FEATURE_CMDLINE} (the command line) at byte {} has \
                     inconsistent counts",
                    feature.section.offset
                ))
            })?;
        }
        kept.push((feature.bit, bytes));
    }

    let reason = match (unfinished, cut_in_features) {
        (Some(Unfinished::Killed), _) => format!(
            "the header's data size is 0: perf record did not finish writing this file (it was \
             killed, or the machine ran out of memory or disk); its records run from byte {} to \
             the end, byte {file_len}",
            data.offset
        ),
        (Some(Unfinished::CutInData), _) => format!(
            "the data section ends at byte {data_end} but the file has only {file_len} bytes: \
             it was cut inside its records"
        ),
        (None, Some(cut)) => cut,
        (None, None) => {
            return Ok(Layout {
                data: data.offset..data_end,
                salvage: None,
            });
        }
    };
    if !salvage {
        return Err(Problem::Truncated(format!(
            "{reason}; --salvage reads the records it holds"
        )));
    }
    let records_end = match unfinished {
        Some(Unfinished::Killed) => file_len,
        _ => data_end.min(file_len),
    };
    Ok(Layout {
        data: data.offset..records_end,
        salvage: Some(Salvage {
            reason,
            header: salvage_header(head, data.offset, &kept, order),
            data_may_be_cut: unfinished.is_some(),
        }),
    })
}

/// How a recording perf did not finish ends.
#[derive(Clone, Copy, Debug)]
enum Unfinished {
    /// The header was never updated: data size 0.
    Killed,
    /// The file ends inside the data section.
    CutInData,
}

fn corrupt_field(at: usize, what: String) -> Problem {
    Problem::Corrupt(format!(
        "the header field at byte {at} holds an implausible {what}"
    ))
}

/// One `perf_event_attr` of the header, with its ids.
struct Attribute {
    bytes: Vec<u8>,
    ids: Vec<u64>,
}

/// Checks the attribute section (`{attr, ids section}` entries) and every
/// attribute in it; returns them.
fn check_attributes(
    head: &[u8],
    attrs: Section,
    attr_size: u64,
    header_size: u64,
    order: ByteOrder,
) -> Result<Vec<Attribute>, Problem> {
    let entries = &head[attrs.offset as usize..(attrs.offset + attrs.size) as usize];
    let attr_bytes = (attr_size - SECTION_SIZE) as usize;
    let mut attributes = Vec::new();
    for (index, entry) in entries.chunks_exact(attr_size as usize).enumerate() {
        let at = attrs.offset + index as u64 * attr_size;
        let bytes = &entry[..attr_bytes];
        check_attribute(bytes, order).map_err(|problem| {
            Problem::Corrupt(format!("the event attribute at byte {at} {problem}"))
        })?;
        let ids = order.section(entry, attr_bytes).expect("inside the entry");
        let inside = ids.offset >= header_size
            && ids.end().is_some_and(|end| end <= head.len() as u64)
            && ids.size % 8 == 0;
        if !inside {
            return Err(Problem::Corrupt(format!(
                "the event attribute at byte {at} puts its {} bytes of ids at byte {}, outside \
                 the space between the header and the data",
                ids.size, ids.offset
            )));
        }
        let ids = head[ids.offset as usize..(ids.offset + ids.size) as usize]
            .chunks_exact(8)
            .map(|id| order.u64(id, 0).expect("8 bytes"))
            .collect();
        attributes.push(Attribute {
            bytes: bytes.to_vec(),
            ids,
        });
    }
    Ok(attributes)
}

/// Checks one `perf_event_attr` (`bytes` long, of which its own size field
/// says how many are used) for values the kernel refuses; the error
/// completes a sentence about the attribute.
pub(super) fn check_attribute(bytes: &[u8], order: ByteOrder) -> Result<(), String> {
    let field = |at| order.u64(bytes, at);
    let size = order.u32(bytes, 4).map(u64::from);
    let Some(size) =
        size.filter(|&size| (MIN_ATTR_SIZE..=bytes.len() as u64).contains(&size) && size % 8 == 0)
    else {
        return Err(format!(
            "states a size of {:?} bytes in a {}-byte entry",
            size,
            bytes.len()
        ));
    };
    let value = |at: usize| field(at).filter(|_| at as u64 + 8 <= size).unwrap_or(0);
    let (period, sample_type, read_format, flags) = (value(16), value(24), value(32), value(40));
    if sample_type >= SAMPLE_TYPE_END {
        return Err(format!(
            "has sample_type {sample_type:#x}, with bits no kernel defines"
        ));
    }
    if read_format >= READ_FORMAT_END {
        return Err(format!(
            "has read_format {read_format:#x}, with bits no kernel defines"
        ));
    }
    if flags >= ATTR_FLAGS_END {
        return Err(format!("has flags {flags:#x}, with reserved bits set"));
    }
    let period_limit = if flags & ATTR_FLAG_FREQ != 0 {
        i32::MAX as u64
    } else {
        i64::MAX as u64
    };
    if period > period_limit {
        return Err(format!("has a sampling period or frequency of {period}"));
    }
    if size >= 96 {
        let stack = u64::from(order.u32(bytes, 88).unwrap_or(0));
        if stack % 8 != 0 || stack > u64::from(u16::MAX) {
            return Err(format!("copies {stack} bytes of user stack per sample"));
        }
    }
    Ok(())
}

/// The feature sections the table after the data states, checked, and the
/// reason the file is cut when some of them (or the table) run past its end.
fn feature_sections<R: Read + Seek>(
    file: &mut R,
    features: &[u32],
    table_start: u64,
    file_len: u64,
    order: ByteOrder,
) -> Result<(Vec<FeatureSection>, Option<String>), Problem> {
    let table = Section {
        offset: table_start,
        size: SECTION_SIZE * features.len() as u64,
    };
    let table_end = table.end().expect("both are small");
    if table_end > file_len {
        let cut = format!(
            "the file ends at byte {file_len}, inside the table of header sections after its \
             records (which ends at byte {table_end}); every record is intact"
        );
        return Ok((Vec::new(), Some(cut)));
    }
    let mut table_bytes = vec![0u8; table.size as usize];
    read_at(file, table.offset, &mut table_bytes)?;
    let mut sections = Vec::new();
    let mut cut = None;
    for (index, &bit) in features.iter().enumerate() {
        let section = order
            .section(&table_bytes, index * SECTION_SIZE as usize)
            .expect("inside the table");
        let end = section
            .end()
            .filter(|&end| section.offset >= table_end && end <= MAX_FILE_OFFSET);
        let Some(end) = end else {
            return Err(Problem::Corrupt(format!(
                "the table entry at byte {} puts feature section {bit} at byte {} with {} \
                 bytes, outside the part of the file after the table",
                table.offset + index as u64 * SECTION_SIZE,
                section.offset,
                section.size
            )));
        };
        if end > file_len {
            cut.get_or_insert(format!(
                "the file ends at byte {file_len}, inside the header sections perf writes \
                 after the records (feature section {bit} ends at byte {end}); every record \
                 is intact"
            ));
            continue;
        }
        sections.push(FeatureSection { bit, section });
    }
    Ok((sections, cut))
}

/// The bytes of a feature section inside the file; one that is `parsed`
/// here must not be larger than perf's own ever are.
fn read_feature<R: Read + Seek>(
    file: &mut R,
    feature: &FeatureSection,
    parsed: bool,
) -> Result<Vec<u8>, Problem> {
    let section = feature.section;
    if parsed && section.size > MAX_PARSED_FEATURE_SECTION {
        return Err(Problem::Corrupt(format!(
            "feature section {} claims {} bytes",
            feature.bit, section.size
        )));
    }
    let mut bytes = vec![0u8; section.size as usize];
    read_at(file, section.offset, &mut bytes)?;
    Ok(bytes)
}

/// A header for linux-perf-data describing the complete parts of an
/// unfinished file: `head` (header, attributes and ids, up to the data
/// section at `data_offset`) with a data size of 0, then a feature table
/// and the `kept` feature sections.
fn salvage_header(
    mut head: Vec<u8>,
    data_offset: u64,
    kept: &[(u32, Vec<u8>)],
    order: ByteOrder,
) -> Vec<u8> {
    order.put_u64(&mut head, 48, 0);
    let mut bitmap = [0u64; 4];
    for (bit, _) in kept {
        bitmap[(bit / 64) as usize] |= 1 << (bit % 64);
    }
    for (word, bits) in bitmap.iter().enumerate() {
        order.put_u64(&mut head, 72 + 8 * word, *bits);
    }
    let table_start = data_offset as usize;
    let mut next = table_start + SECTION_SIZE as usize * kept.len();
    head.resize(next, 0);
    for (index, (_, bytes)) in kept.iter().enumerate() {
        let entry = table_start + index * SECTION_SIZE as usize;
        order.put_u64(&mut head, entry, next as u64);
        order.put_u64(&mut head, entry + 8, bytes.len() as u64);
        next += bytes.len();
    }
    for (_, bytes) in kept {
        head.extend_from_slice(bytes);
    }
    head
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
    let entry_size = attr_size + SECTION_SIZE;
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
/// linux-perf-data takes the events from here, perf from the header's
/// attribute section: both must describe the same events.
fn check_event_desc_matches(
    bytes: &[u8],
    attributes: &[Attribute],
    order: ByteOrder,
) -> Result<(), Problem> {
    let inconsistent = || {
        Problem::Corrupt(format!(
            "feature section {FEATURE_EVENT_DESC} (the event descriptions) has inconsistent \
             counts"
        ))
    };
    let differs = |index: usize| {
        Problem::Corrupt(format!(
            "event {index} differs between the header's attribute section and feature section \
             {FEATURE_EVENT_DESC} (the event descriptions): one of them is damaged"
        ))
    };
    let count = order.u32(bytes, 0).ok_or_else(inconsistent)? as usize;
    let attr_size = order.u32(bytes, 4).ok_or_else(inconsistent)? as usize;
    if (attr_size as u64) < MIN_ATTR_SIZE {
        return Err(inconsistent());
    }
    if count != attributes.len() {
        return Err(Problem::Corrupt(format!(
            "the header lists {} events but feature section {FEATURE_EVENT_DESC} (the event \
             descriptions) lists {count}",
            attributes.len()
        )));
    }
    let mut at = 8usize;
    for (index, attribute) in attributes.iter().enumerate() {
        let attr = bytes
            .get(at..at.checked_add(attr_size).ok_or_else(inconsistent)?)
            .ok_or_else(inconsistent)?;
        at += attr_size;
        let id_count = order.u32(bytes, at).ok_or_else(inconsistent)? as usize;
        at = skip_string(bytes, at + 4, order).ok_or_else(inconsistent)?;
        let ids_end = id_count
            .checked_mul(8)
            .and_then(|len| at.checked_add(len))
            .filter(|&end| end <= bytes.len())
            .ok_or_else(inconsistent)?;
        let ids = bytes[at..ids_end]
            .chunks_exact(8)
            .map(|id| order.u64(id, 0).expect("8 bytes"));
        at = ids_end;
        let common = attr.len().min(attribute.bytes.len());
        if attr[..common] != attribute.bytes[..common] || !ids.eq(attribute.ids.iter().copied()) {
            return Err(differs(index));
        }
    }
    Ok(())
}

/// Checks the body of a pipe stream's `PERF_RECORD_HEADER_FEATURE` record (a
/// feature id, then the section) where linux-perf-data would size a buffer
/// from its counts: the command line and the event descriptions.
pub(super) fn check_pipe_feature(body: &[u8], order: ByteOrder) -> Result<(), String> {
    let Some(feature) = order.u64(body, 0) else {
        return Err("is too short to name its feature".to_owned());
    };
    // perf numbers features 0 to 255, as bits of the file header's bitmap.
    let Some(feature_bit) = u32::try_from(feature).ok().filter(|&bit| bit < 256) else {
        return Err(format!("names feature {feature}, which perf never writes"));
    };
    let section = &body[8..];
    let consistent = match feature_bit {
        FEATURE_CMDLINE => check_string_list(section, order),
        FEATURE_EVENT_DESC => check_event_desc_layout(section, order),
        _ => Some(()),
    };
    consistent.ok_or_else(|| format!("(feature {feature}) has counts that do not fit its size"))
}

/// `HEADER_EVENT_DESC`'s layout alone: every count fits in the bytes.
fn check_event_desc_layout(bytes: &[u8], order: ByteOrder) -> Option<()> {
    let count = order.u32(bytes, 0)? as usize;
    let attr_size = order.u32(bytes, 4)? as usize;
    if (attr_size as u64) < MIN_ATTR_SIZE {
        return None;
    }
    let mut at = 8usize;
    for _ in 0..count {
        at = at
            .checked_add(attr_size)
            .filter(|&end| end <= bytes.len())?;
        let id_count = order.u32(bytes, at)? as usize;
        at = skip_string(bytes, at + 4, order)?;
        at = id_count
            .checked_mul(8)
            .and_then(|len| at.checked_add(len))
            .filter(|&end| end <= bytes.len())?;
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

    const ORDER: ByteOrder = ByteOrder { big_endian: false };

    /// A header with one 128-byte cpu-clock attribute at 104 and no ids,
    /// then `data` as (offset, size).
    fn header(data: (u64, u64), features: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"PERFILE2");
        for value in [
            104u64, 144, 104, 144, data.0, data.1, 0, 0, features, 0, 0, 0,
        ] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        let mut attr = vec![0u8; 128];
        attr[4..8].copy_from_slice(&128u32.to_le_bytes());
        attr[16..24].copy_from_slice(&499u64.to_le_bytes());
        attr[40..48].copy_from_slice(&ATTR_FLAG_FREQ.to_le_bytes());
        bytes.extend_from_slice(&attr);
        bytes.extend_from_slice(&104u64.to_le_bytes()); // ids: none, at 104
        bytes.extend_from_slice(&0u64.to_le_bytes());
        assert_eq!(bytes.len(), 248);
        bytes
    }

    fn check(bytes: Vec<u8>, salvage: bool) -> Result<Layout, Problem> {
        let len = bytes.len() as u64;
        check_file_structure(&mut Cursor::new(bytes), len, false, salvage)
    }

    #[test]
    fn data_past_the_end_is_truncation_that_salvage_reads() {
        let mut bytes = header((248, 1000), 0);
        bytes.extend_from_slice(&[0u8; 16]);
        let problem = check(bytes.clone(), false).unwrap_err();
        assert!(
            matches!(problem, Problem::Truncated(ref m) if m.contains("data section") && m.contains("--salvage")),
            "{problem:?}"
        );
        let layout = check(bytes, true).unwrap();
        assert_eq!(layout.data, 248..264);
        assert!(layout.salvage.unwrap().data_may_be_cut);
    }

    #[test]
    fn huge_cmdline_count_is_refused_before_allocation() {
        let mut bytes = header((248, 8), 1 << FEATURE_CMDLINE);
        bytes.extend_from_slice(&[0u8; 8]); // the data section
        let section_offset = bytes.len() as u64 + 16;
        bytes.extend_from_slice(&section_offset.to_le_bytes());
        bytes.extend_from_slice(&4u64.to_le_bytes());
        bytes.extend_from_slice(&u32::MAX.to_le_bytes()); // 4 billion strings in 4 bytes
        let problem = check(bytes, false).unwrap_err();
        assert!(matches!(problem, Problem::Corrupt(ref m) if m.contains("section 11")));
    }

    #[test]
    fn zero_data_size_means_perf_did_not_finish() {
        let mut bytes = header((248, 0), 1 << FEATURE_CMDLINE);
        bytes.extend_from_slice(&[0u8; 64]);
        let problem = check(bytes.clone(), false).unwrap_err();
        assert!(matches!(problem, Problem::Truncated(ref m) if m.contains("did not finish")));
        let layout = check(bytes, true).unwrap();
        assert_eq!(layout.data, 248..312);
        let salvage = layout.salvage.unwrap();
        assert_eq!(salvage.header.len(), 248, "no feature table");
        assert_eq!(ORDER.u64(&salvage.header, 72), Some(0), "no features");
    }

    #[test]
    fn a_file_cut_inside_its_feature_sections_keeps_the_complete_ones() {
        let features = (1u64 << FEATURE_CMDLINE) | (1 << 13);
        let mut bytes = header((248, 8), features);
        bytes.extend_from_slice(&[7u8; 8]); // the data section
        let first = bytes.len() as u64 + 32;
        let cmdline = [1u32.to_le_bytes(), 4u32.to_le_bytes()].concat();
        let cmdline = [cmdline, b"abc\0".to_vec()].concat();
        for section in [
            (first, cmdline.len() as u64),
            (first + cmdline.len() as u64, 100),
        ] {
            bytes.extend_from_slice(&section.0.to_le_bytes());
            bytes.extend_from_slice(&section.1.to_le_bytes());
        }
        bytes.extend_from_slice(&cmdline);
        bytes.extend_from_slice(&[0u8; 10]); // 10 of the second section's 100 bytes
        let problem = check(bytes.clone(), false).unwrap_err();
        assert!(
            matches!(problem, Problem::Truncated(ref m) if m.contains("every record is intact"))
        );
        let layout = check(bytes, true).unwrap();
        assert_eq!(layout.data, 248..256);
        let salvage = layout.salvage.unwrap();
        assert!(!salvage.data_may_be_cut);
        let header = salvage.header;
        assert_eq!(ORDER.u64(&header, 72), Some(1 << FEATURE_CMDLINE));
        assert_eq!(ORDER.u64(&header, 48), Some(0), "no data section");
        assert_eq!(ORDER.u64(&header, 248), Some(264), "the table entry");
        assert_eq!(&header[264..], &cmdline[..]);
    }

    #[test]
    fn implausible_header_and_attribute_fields_are_corrupt() {
        let base = header((248, 0), 0);
        for (at, what) in [
            (8, "header size"),
            (40, "data section offset"),
            (48, "data section size"),
            (24, "attribute section"),
            (80, "feature bitmap"),
        ] {
            let mut bytes = base.clone();
            ORDER.put_u64(&mut bytes, at, 0x7fff_ffff_ffff_fff0);
            bytes.extend_from_slice(&[0u8; 8]);
            let problem = check(bytes, false).unwrap_err();
            assert!(
                matches!(problem, Problem::Corrupt(ref m) if m.contains(what)),
                "{at}: {problem:?}"
            );
        }
        for (at, what) in [
            (104 + 24, "sample_type"),
            (104 + 32, "read_format"),
            (104 + 40, "flags"),
            (104 + 16, "frequency"),
            (104, "size"),
        ] {
            let mut bytes = base.clone();
            ORDER.put_u64(&mut bytes, at, 0xdead_beef_cafe_babe);
            bytes.extend_from_slice(&[0u8; 8]);
            let problem = check(bytes, false).unwrap_err();
            assert!(
                matches!(problem, Problem::Corrupt(ref m) if m.contains(what) && m.contains("byte 104")),
                "{at}: {problem:?}"
            );
        }
    }
}
