//! perf's zstd streams read three ways: by compile-perf, by an independent
//! decoder (`scripts/zstd-check.py`, python-zstandard's streaming API) and by
//! perf report. compile-perf finds the samples the decoder finds; perf report
//! of the decoder's plain copy agrees with compile-perf's report of the
//! recording, row by row; and the same zstd stream cut into small records,
//! which perf 6.1 stops at ("Couldn't decompress data"), gives compile-perf
//! the same report.
//!
//! They need perf, iree-compile and python-zstandard in the project venv
//! (`scripts/setup.sh`); see `tests/live.rs` for the live-test rules.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use common::iree::{iree_live_prerequisites, live_lock, record_args, workload};
use common::perf_report::{as_u64, compare_counts, our_top, perf_report_self};
use common::{TempDir, compile_perf, is_ci, repo_root, run_ok};
use serde_json::Value;

/// The bytes of compressed data in each record of the cut copy: far below
/// perf's 64 KiB, so that most records end inside a zstd block.
const CUT_RECORD_BYTES: &str = "1000";

/// Whether the project venv's python has `zstandard` (skip or fail otherwise).
fn zstandard_here() -> bool {
    let python = repo_root().join(".venv/bin/python");
    let found = Command::new(&python)
        .args(["-c", "import zstandard"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        let problem = format!("{} cannot import zstandard", python.display());
        assert!(!is_ci(), "{problem}: scripts/setup.sh installs it");
        eprintln!("note: skipping live test: {problem}; scripts/setup.sh installs it");
    }
    found
}

/// `scripts/zstd-check.py RECORDING --json EXTRA…`, which must succeed.
fn zstd_check(recording: &Path, extra: &[&str]) -> Value {
    let scripts = repo_root().join("scripts");
    let output = run_ok(
        Command::new(repo_root().join(".venv/bin/python"))
            .arg(scripts.join("zstd-check.py"))
            .arg(recording)
            .arg("--json")
            .args(extra),
    );
    serde_json::from_slice(&output.stdout).expect("zstd-check.py prints JSON")
}

fn perf_is_6_1() -> bool {
    Command::new("perf")
        .arg("--version")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).starts_with("perf version 6.1"))
}

#[test]
fn zstd_streams_are_read_as_an_independent_decoder_reads_them() {
    let _live = live_lock();
    if !iree_live_prerequisites() || !zstandard_here() {
        return;
    }
    let dir = TempDir::new("live-zstd");
    let input = workload(&dir, "hex-constants");
    let run = dir.join("run");
    compile_perf(record_args(&run, &["-q"], &input, &[])).expect_code(0, "compile-perf record");
    let data = run.join("perf.data");
    let ours = our_top(&data);

    // The decoder finds the samples compile-perf read, stream by stream summed.
    let decoded = zstd_check(&data, &[]);
    eprintln!("zstd-check.py: {decoded}");
    assert_eq!(
        as_u64(&decoded["samples"], "decoder samples"),
        as_u64(&ours["samples"], "samples"),
        "the independent decoder and compile-perf count the same samples"
    );

    // perf report reads the decoder's plain copy whole, and agrees with
    // compile-perf's report of the compressed recording row by row.
    let plain = dir.join("plain.perf.data");
    zstd_check(&data, &["--plain", plain.to_str().expect("UTF-8 path")]);
    let started = Instant::now();
    let perf = perf_report_self(&plain)
        .unwrap_or_else(|error| panic!("perf report of the plain copy: {error}"));
    compare_counts(
        &data,
        "perf report of zstd-check.py's plain copy",
        perf,
        started.elapsed().as_secs_f64(),
    );

    // The same zstd stream cut into small records: most of them complete no
    // output alone. compile-perf reads it to the same report; perf 6.1 stops.
    let cut = dir.join("cut.perf.data");
    zstd_check(
        &data,
        &["--cut", CUT_RECORD_BYTES, cut.to_str().expect("UTF-8 path")],
    );
    let cut_check = zstd_check(&cut, &[]);
    assert_eq!(cut_check["samples"], decoded["samples"], "{cut_check}");
    assert!(
        as_u64(
            &cut_check["records_completing_nothing"],
            "records completing nothing"
        ) > 0,
        "records of {CUT_RECORD_BYTES} bytes end inside zstd blocks: {cut_check}"
    );
    assert_eq!(
        our_top(&cut),
        ours,
        "the zstd stream cut elsewhere gives compile-perf the same report"
    );
    match perf_report_self(&cut) {
        Err(error) => eprintln!("perf report of the cut copy stops, as expected: {error}"),
        Ok(_) if perf_is_6_1() => {
            panic!("perf 6.1 read a stream of records that complete nothing alone")
        }
        Ok(_) => eprintln!("this perf reads records that complete nothing alone"),
    }
}
