//! Tests of the file-structure checks on headers built byte by byte.

use super::*;
use crate::header_fields::ATTR_FLAG_FREQ;
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
    assert!(matches!(problem, Problem::Truncated(ref m) if m.contains("every record is intact")));
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
