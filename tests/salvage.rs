//! Recordings perf did not finish (killed, or cut inside their records or
//! their trailing feature sections): refused with exit 6 and a hint, and
//! with `--salvage` read up to their last complete record.

mod common;

use std::path::Path;

use common::damaged::{output_of as compile_perf, scratch_file};
use common::fixture;

const FAKE_DWARF_SELF: [(&str, u64); 5] = [
    ("llvm::detail::IEEEFloat::multiply", 153),
    ("mlir::Lexer::lexString", 128),
    ("mlir::FoldConstantBase", 103),
    ("mlir::Token::getHexStringValue", 78),
    (
        "mlir::bufferization::OneShotAnalysisState::analyzeSingleOp",
        52,
    ),
];

/// `top --format json` of `path` (with `--salvage` when asked): the exit
/// code, stderr, the samples read and the self samples of fake-dwarf's functions.
fn salvaged_top(path: &Path, salvage: bool) -> (Option<i32>, String, u64, Vec<u64>) {
    let mut args = vec!["top", "-q", "--format", "json"];
    if salvage {
        args.push("--salvage");
    }
    args.push(path.to_str().unwrap());
    let output = compile_perf(&args);
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    if output.stdout.is_empty() {
        return (output.status.code(), err, 0, Vec::new());
    }
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let self_of = |name: &str| -> u64 {
        json["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|entry| entry["symbol"].as_str().unwrap().starts_with(name))
            .map(|entry| entry["self_samples"].as_u64().unwrap())
            .sum()
    };
    let counts = FAKE_DWARF_SELF
        .iter()
        .map(|(name, _)| self_of(name))
        .collect();
    (
        output.status.code(),
        err,
        json["samples"].as_u64().unwrap(),
        counts,
    )
}

/// Where fake-dwarf's data section ends: its feature sections follow.
fn fake_dwarf_data_end(bytes: &[u8]) -> usize {
    let field = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    field(40) + field(48)
}

#[test]
fn salvage_reads_every_sample_of_a_file_cut_inside_its_feature_sections() {
    let full = std::fs::read(fixture("fake-dwarf.perf.data")).unwrap();
    let data_end = fake_dwarf_data_end(&full);
    let expected: Vec<u64> = FAKE_DWARF_SELF.iter().map(|(_, count)| *count).collect();
    // Inside the feature table, inside the sections, one byte short.
    for cut in [data_end + 8, data_end + 2000, full.len() - 1] {
        let path = scratch_file("cut-in-features.data", &full[..cut]);
        let (code, err, ..) = salvaged_top(&path, false);
        assert_eq!(code, Some(6), "cut at {cut}: {err}");
        assert!(
            err.contains("every record is intact") && err.contains("--salvage"),
            "{err}"
        );
        let (code, err, samples, counts) = salvaged_top(&path, true);
        assert_eq!(code, Some(6), "cut at {cut}: {err}");
        assert!(
            err.contains("warning:") && err.contains("salvaged"),
            "{err}"
        );
        assert_eq!(samples, 518, "cut at {cut}: every sample is read");
        assert_eq!(counts, expected, "cut at {cut}: as perf report counts them");
    }
}

#[test]
fn salvage_reads_an_unfinished_recording_up_to_its_last_complete_record() {
    let full = std::fs::read(fixture("fake-dwarf.perf.data")).unwrap();
    let data_end = fake_dwarf_data_end(&full);
    // What a killed perf record leaves: the header it wrote at the start
    // (data size 0), the records, no feature sections.
    let mut killed = full[..data_end].to_vec();
    killed[48..56].copy_from_slice(&0u64.to_le_bytes());
    let path = scratch_file("killed.data", &killed);
    let (code, err, ..) = salvaged_top(&path, false);
    assert_eq!(code, Some(6), "{err}");
    assert!(
        err.contains("did not finish") && err.contains("--salvage"),
        "{err}"
    );
    let (code, err, samples, counts) = salvaged_top(&path, true);
    assert_eq!(code, Some(6), "{err}");
    assert!(
        err.contains("warning:") && err.contains("salvaged"),
        "{err}"
    );
    assert_eq!(samples, 518, "{err}");
    let expected: Vec<u64> = FAKE_DWARF_SELF.iter().map(|(_, count)| *count).collect();
    assert_eq!(counts, expected);
    // Killed while writing a record: the records before it are read.
    let mut earlier = (0, 518);
    for cut in [data_end - 20, data_end / 2, 2000] {
        let path = scratch_file("killed-mid-record.data", &killed[..cut]);
        let (code, err, samples, _) = salvaged_top(&path, true);
        assert_eq!(code, Some(6), "cut at {cut}: {err}");
        assert!(
            err.contains("last complete record, which ends at byte"),
            "{err}"
        );
        assert!(
            samples <= earlier.1,
            "cut at {cut}: {samples} samples, {earlier:?} before"
        );
        earlier = (cut, samples);
    }
    assert!(earlier.1 < 518);
}
