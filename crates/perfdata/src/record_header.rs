//! The `struct perf_event_header` in front of every record, read and
//! checked before the record is.

use super::byte_order::ByteOrder;
use super::plausible::{is_known_type, is_perf_type};

// The user record types below are perf's own (`tools/perf/util/event.h`);
// linux-perf-data keeps its constants for them private.
/// `PERF_RECORD_FINISHED_ROUND` (perf's `tools/perf/util/event.h`): no record
/// after it is older than the records before the previous one.
pub(super) const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_AUXTRACE`: its payload follows the record, outside its size.
pub(super) const AUXTRACE: u32 = 71;
/// `PERF_RECORD_COMPRESSED`: its body is zstd data.
pub(super) const COMPRESSED: u32 = 81;
/// `PERF_RECORD_COMPRESSED2`: the size of the zstd data, the data, padding.
pub(super) const COMPRESSED2: u32 = 83;
/// Size of `struct perf_event_header`.
pub(super) const HEADER_SIZE: usize = 8;

/// A record's `struct perf_event_header`, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) record_type: u32,
    pub(super) misc: u16,
    pub(super) size: usize,
}

/// What the bytes at the reader hold.
pub(super) enum Next {
    Record(Header),
    /// Not all of the record is there (yet).
    Incomplete,
    Bad(String),
}

/// Reads the record header at the start of `bytes`.
pub(super) fn next_header(bytes: &[u8], order: ByteOrder) -> Next {
    let Some(header) = bytes.get(..HEADER_SIZE) else {
        return Next::Incomplete;
    };
    let record_type = order.u32(header, 0).expect("inside the header");
    let misc = order.u16(header, 4).expect("inside the header");
    let size = usize::from(order.u16(header, 6).expect("inside the header"));
    if !is_known_type(record_type) {
        return Next::Bad(format!(
            "a record has type {record_type}, which neither perf nor the kernel writes"
        ));
    }
    if size < HEADER_SIZE {
        return Next::Bad(format!(
            "a record of type {record_type} states a size of {size} bytes, less than its header"
        ));
    }
    if !is_perf_type(record_type) && size % 8 != 0 {
        return Next::Bad(format!(
            "a record of type {record_type} states a size of {size} bytes; the kernel's \
             records are multiples of 8"
        ));
    }
    if size > bytes.len() {
        return Next::Incomplete;
    }
    Next::Record(Header {
        record_type,
        misc,
        size,
    })
}

/// Where the `payload` bytes of trace data an AUXTRACE record states end,
/// when the record ends at `record_end` and they fit before `data_end`.
pub(super) fn auxtrace_payload_end(
    record_end: usize,
    payload: u64,
    data_end: usize,
) -> Option<usize> {
    usize::try_from(payload)
        .ok()
        .and_then(|payload| record_end.checked_add(payload))
        .filter(|&end| end <= data_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_headers_perf_never_writes_are_refused() {
        let order = ByteOrder { big_endian: false };
        let header = |record_type: u32, size: u16| {
            let mut bytes = record_type.to_le_bytes().to_vec();
            bytes.extend_from_slice(&0u16.to_le_bytes());
            bytes.extend_from_slice(&size.to_le_bytes());
            bytes.resize(64, 0);
            bytes
        };
        assert!(matches!(next_header(&header(9, 48), order), Next::Record(h) if h.size == 48));
        assert!(
            matches!(next_header(&header(81, 19), order), Next::Record(_)),
            "compressed records are not aligned"
        );
        assert!(matches!(
            next_header(&header(9, 72), order),
            Next::Incomplete
        ));
        for (record_type, size, problem) in [
            (0, 48, "type 0"),
            (37, 48, "type 37, which neither perf nor the kernel writes"),
            (0xffff_fff0, 48, "neither perf nor the kernel"),
            (9, 4, "less than its header"),
            (9, 44, "multiples of 8"),
        ] {
            match next_header(&header(record_type, size), order) {
                Next::Bad(reason) => assert!(reason.contains(problem), "{reason}"),
                _ => panic!("type {record_type} size {size} accepted"),
            }
        }
    }
}
