//! Checks of the header fields linux-perf-data sizes buffers from: the
//! event attributes (`perf_event_attr` and their ids) and the feature
//! sections it parses (the command line and the event descriptions), in a
//! file's header or a pipe stream's header records.

use super::byte_order::{ByteOrder, SECTION_SIZE, Section};

/// Why a file failed the check.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Problem {
    /// The file ends before the parts a reading needs.
    Truncated(String),
    /// A field holds a value perf never writes.
    Corrupt(String),
}

/// The smallest `perf_event_attr` perf ever wrote (`PERF_ATTR_SIZE_VER0`).
pub(super) const MIN_ATTR_SIZE: u64 = 64;
/// Bit number of `HEADER_CMDLINE` in the feature bitmap.
pub(super) const FEATURE_CMDLINE: u32 = 11;
/// Bit number of `HEADER_EVENT_DESC` in the feature bitmap.
pub(super) const FEATURE_EVENT_DESC: u32 = 12;
/// `perf_event_attr` bits: every `sample_type` bit lies below this
/// (`PERF_SAMPLE_MAX`), every `read_format` bit below the next, and the
/// attribute flags below the third (the rest are reserved, and zero).
const SAMPLE_TYPE_END: u64 = 1 << 25;
const READ_FORMAT_END: u64 = 1 << 5;
const ATTR_FLAGS_END: u64 = 1 << 48;
/// The `freq` attribute flag: the period field holds a frequency.
pub(super) const ATTR_FLAG_FREQ: u64 = 1 << 10;

/// One `perf_event_attr` of the header, with its ids.
pub(super) struct Attribute {
    bytes: Vec<u8>,
    ids: Vec<u64>,
}

/// Checks the attribute section (`{attr, ids section}` entries) and every
/// attribute in it; returns them.
pub(super) fn check_attributes(
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

/// `struct perf_header_string_list`: a count, then length-prefixed strings.
pub(super) fn check_string_list(bytes: &[u8], order: ByteOrder) -> Option<()> {
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
pub(super) fn check_event_desc_matches(
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
