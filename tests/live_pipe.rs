//! Live tests of pipe mode: `perf record -o - | compile-perf top -` works
//! and gives the report the saved stream gives as a file, which agrees with
//! `perf report`; the same stream cut short exits 7 saying so.
//!
//! They need perf and iree-compile (see `tests/live.rs` for the live-test
//! rules).

mod common;

use std::time::Instant;

use common::TempDir;
use common::iree::{iree_compile_argv, iree_live_prerequisites, live_lock, workload};
use common::perf_report::{as_u64, compare_counts, our_top, perf_report_self};
use common::pipe::{check_cut_streams, record_through_pipe};
use common::unwinding::check_compiler_unwinding;
use serde_json::Value;

/// The pipe-mode checks on one recording: the live pipe exits 0 with samples;
/// the saved stream read as a file gives the same report; it agrees with perf
/// report (`perf_must_read`: else only when perf can read the stream); and cut
/// short it exits 7. Returns the report.
fn check_pipe_mode(perf_args: &[&str], workload_name: &str, perf_must_read: bool) -> Value {
    let dir = TempDir::new("live-pipe");
    let input = workload(&dir, workload_name);
    let saved = dir.join("pipe.perf.data");
    let label = format!("perf record -o - {}, {workload_name}", perf_args.join(" "));
    let live = record_through_pipe(&dir, perf_args, &iree_compile_argv(&dir, &input), &saved);
    live.expect_code(0, &format!("{label} | compile-perf top -"));
    eprintln!("live pipe:\n{}", live.stderr.trim_end());
    let live_json = live.json();
    assert!(
        as_u64(&live_json["samples"], "samples") > 0,
        "no samples from the pipe"
    );

    let started = Instant::now();
    let saved_json = match perf_report_self(&saved) {
        Ok(perf) => compare_counts(&saved, &label, perf, started.elapsed().as_secs_f64()),
        Err(error) if !perf_must_read => {
            // perf 6.1 sometimes fails to decompress its own `-z` pipe streams
            // ("Couldn't decompress data", "failed to process type: 81"),
            // and then reports only part of them: nothing to compare with.
            eprintln!(
                "note: {label}: not compared with perf report, which cannot read it: {error}"
            );
            our_top(&saved)
        }
        Err(error) => panic!("{label}: {error}"),
    };
    assert_eq!(
        saved_json, live_json,
        "{label}: the saved stream read from a file must give the report the live pipe gave"
    );
    check_cut_streams(&saved);
    saved_json
}

#[test]
fn pipe_mode_dwarf_zstd() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let started = Instant::now();
    let json = check_pipe_mode(
        &["-z", "--call-graph", "dwarf,65528"],
        "hex-constants",
        false,
    );
    check_compiler_unwinding(
        &json,
        "perf record -o - -z --call-graph dwarf,65528, hex-constants",
    );
    eprintln!("took {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn pipe_mode_frame_pointer() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let started = Instant::now();
    check_pipe_mode(&["-g"], "f32-literals", true);
    eprintln!("took {:.1} s", started.elapsed().as_secs_f64());
}
