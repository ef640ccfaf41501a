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

use super::byte_order::{ByteOrder, SECTION_SIZE, Section};
use super::header_fields::{
    FEATURE_CMDLINE, FEATURE_EVENT_DESC, MIN_ATTR_SIZE, Problem, check_attributes,
    check_event_desc_matches, check_string_list,
};

/// Size of the fixed part of a file-mode header (`struct perf_file_header`).
pub(super) const FILE_HEADER_SIZE: u64 = 104;
/// The largest `perf_event_attr` entry believed (Linux 6.18's is 136 bytes).
const MAX_ATTR_SIZE: u64 = 4096;
/// Feature sections larger than this are not perf's own; refuse them.
const MAX_PARSED_FEATURE_SECTION: u64 = 256 << 20;
/// perf writes the attributes and their ids between the header and the data
/// section: a few KiB, even with thousands of CPUs.
const MAX_DATA_OFFSET: u64 = 16 << 20;
/// No recording is 256 TiB long: an offset or size past this is a damaged field.
const MAX_FILE_OFFSET: u64 = 1 << 48;

/// Feature bits perf never sets: 0 is reserved, 64 to 127 are unassigned
/// (perf's own end near 34, simpleperf's start at 128).
fn is_unassigned_feature(bit: u32) -> bool {
    bit == 0 || (64..128).contains(&bit)
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

#[cfg(test)]
mod tests;
