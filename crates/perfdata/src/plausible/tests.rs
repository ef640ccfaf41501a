//! Tests of `perfdata::plausible`.

use super::*;
use linux_perf_data::linux_perf_event_reader::RawData;
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use std::path::Path;

/// fake-fp's first record of each of `types`: (type, misc, body, event's parse info).
fn records_of(types: &[RecordType]) -> Vec<(RecordType, u16, Vec<u8>, RecordParseInfo)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fake-fp.perf.data");
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = PerfFileReader::parse_file(file).unwrap();
    let mut found: Vec<(RecordType, u16, Vec<u8>, RecordParseInfo)> = Vec::new();
    while let Some(record) = record_iter.next_record(&mut perf_file).unwrap() {
        let PerfFileRecord::EventRecord { record, .. } = record else {
            continue;
        };
        let wanted = types.contains(&record.record_type);
        if wanted && !found.iter().any(|(kind, ..)| *kind == record.record_type) {
            found.push((
                record.record_type,
                record.misc,
                record.data.as_slice().into_owned(),
                record.parse_info,
            ));
        }
    }
    assert_eq!(found.len(), types.len(), "fake-fp has each kind");
    found
}

/// The check of one record, with the error as the reader reports it.
fn check(kind: RecordType, misc: u16, body: &[u8], info: RecordParseInfo) -> Result<(), String> {
    let rules = RecordRules {
        order: ByteOrder { big_endian: false },
        exact_trailers: true,
    };
    rules
        .check(&RawEventRecord::new(
            kind,
            misc,
            RawData::Single(body),
            info,
        ))
        .map_err(|implausible| implausible.to_string())
}

#[test]
fn each_check_fires_on_a_damaged_copy_of_a_real_record() {
    let kinds = [
        RecordType::SAMPLE,
        RecordType::MMAP2,
        RecordType::COMM,
        RecordType::FORK,
    ];
    let records = records_of(&kinds);
    let put = |body: &[u8], at: usize, bytes: &[u8]| {
        let mut body = body.to_vec();
        body[at..at + bytes.len()].copy_from_slice(bytes);
        body
    };
    let longer = |body: &[u8]| [body, &[0u8; 8][..]].concat();
    for (kind, misc, body, info) in &records {
        assert_eq!(
            check(*kind, *misc, body, *info),
            Ok(()),
            "{kind:?} as recorded"
        );
        let damaged: Vec<(Vec<u8>, &str)> = match *kind {
            RecordType::SAMPLE => vec![
                (
                    longer(body),
                    "but its event's fields (sample_type 0x127) take",
                ),
                // pid and tid follow the ip.
                (put(body, 8, &(-7i32).to_le_bytes()), "process or thread -7"),
                (
                    put(body, 16, &(1u64 << 62).to_le_bytes()),
                    "more than a century",
                ),
            ],
            RecordType::MMAP2 => vec![
                (longer(body), "its size field is wrong"),
                (
                    put(body, 8, &0x55bb_55a2_9001u64.to_le_bytes()),
                    "not at page boundaries",
                ),
                (
                    put(body, 16, &(1u64 << 60).to_le_bytes()),
                    "past the end of user space",
                ),
                (put(body, 56, &9u32.to_le_bytes()), "protection 0x9"),
                (put(body, 64, &[0xbe]), "starts with byte 0xbe"),
            ],
            RecordType::COMM => vec![(longer(body), "a COMM record is")],
            RecordType::FORK => vec![
                (longer(body), "a FORK/EXIT record is"),
                (
                    put(body, 4, &(5i32 << 24).to_le_bytes()),
                    "an id Linux never hands out",
                ),
            ],
            _ => unreachable!("only the kinds asked for"),
        };
        for (body, problem) in damaged {
            let error = check(*kind, *misc, &body, *info).unwrap_err();
            assert!(
                error.contains(problem),
                "{kind:?}: {error:?} lacks {problem:?}"
            );
        }
        if *kind == RecordType::MMAP2 {
            // As perf maps it from /proc/PID/maps for a process it
            // attaches to: the page, at file offset 0.
            let named = |name: &[u8]| {
                let path_end = 64 + body[64..].iter().position(|&b| b == 0).unwrap_or(0) + 1;
                let trailer = &body[path_end.next_multiple_of(8)..];
                let body = put(body, 8, &VSYSCALL_START.to_le_bytes());
                let body = put(&body, 16, &0x1000u64.to_le_bytes());
                let body = put(&body, 24, &0u64.to_le_bytes());
                [&body[..64], name, trailer].concat()
            };
            let vsyscall = named(b"[vsyscall]\0\0\0\0\0\0");
            assert_eq!(check(*kind, *misc, &vsyscall, *info), Ok(()));
            let other = named(b"[vdso]\0\0");
            let error = check(*kind, *misc, &other, *info).unwrap_err();
            assert!(error.contains("past the end of user space"), "{error}");
        }
    }
}
