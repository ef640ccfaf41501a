//! Live tests: record real programs with perf on this machine, then check
//! compile-perf against perf itself and against what the recording must say.
//!
//! - `perf_report_agreement_frame_pointer`, `perf_report_agreement_dwarf`:
//!   a real iree-compile compile, recorded with `-g` and with
//!   `-z --call-graph dwarf,65528`. The self counts of the top 20 leaf symbols
//!   equal `perf report`'s, both ways round (see `common::perf_report::compare_with_perf_report`).
//! - `dwarf_unwinding_reaches_thread_roots`: on `dwarf,65528` recordings, at
//!   least 97% of the native compiler process's stacks reach a thread root.
//! - `frame_pointer_callchains_that_reach_thread_entry_functions_are_whole`,
//!   and the `-g` iree-compile recording above: a `-g` stack counts as whole
//!   exactly when `perf script` ends it in a thread entry function
//!   (`__libc_start_call_main`, `start_thread`, ...), and is then never
//!   marked `[truncated]`.
//!
//! Moved and rebuilt binaries are in `live_binaries.rs`, pipe mode in
//! `live_pipe.rs`, `record` in `live_record.rs`; the helpers they share are
//! in `common/`.
//!
//! Each test needs perf and iree-compile from the project venv (or g++). Without
//! them it prints a skip note and returns; under `CI=true` it fails instead
//! (`common::live_prerequisite`). The tests run one at a time, so that each
//! recording has the machine to itself, and record into temp dirs. All use
//! `-e cpu-clock`, because hardware counters are not available in these VMs,
//! and `-N`, so perf does not copy the 335 MB compiler library into ~/.debug.

mod common;

use std::process::Command;
use std::time::Instant;

use common::iree::{iree_compile_argv, iree_live_prerequisites, live_lock, perf_record, workload};
use common::perf_report::{compare_with_perf_report, our_top};
use common::unwinding::{check_compiler_unwinding, check_frame_pointer_roots};
use common::{TempDir, live_prerequisites, run_ok};

/// A program with frame pointers: the main thread and a `pthread_create`d
/// one each spin for about half a second.
const FRAME_POINTER_SOURCE: &str = r#"
#include <pthread.h>
#include <cstdint>
#include <ctime>
volatile uint64_t sink;
__attribute__((noinline)) void spin() {
  const clock_t end = clock() + CLOCKS_PER_SEC / 2;
  uint64_t x = 1;
  while (clock() < end)
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = x;
}
__attribute__((noinline)) void *worker(void *) { spin(); sink = sink + 1; return nullptr; }
int main() {
  pthread_t thread;
  pthread_create(&thread, nullptr, worker, nullptr);
  spin();
  pthread_join(thread, nullptr);
  return 0;
}
"#;

/// The least share of a frame-pointer program's `-g` stacks that must reach
/// a thread entry function (the rest: samples in ld.so before `main`, or in
/// a function's first instructions, before it set up its frame).
const MIN_FRAME_POINTER_COMPLETE: f64 = 95.0;

#[test]
fn frame_pointer_callchains_that_reach_thread_entry_functions_are_whole() {
    let _live = live_lock();
    if !live_prerequisites(&["perf", "g++"]) {
        return;
    }
    let started = Instant::now();
    let dir = TempDir::new("live-fp-roots");
    let source = dir.join("fp.cpp");
    std::fs::write(&source, FRAME_POINTER_SOURCE).unwrap();
    let program = dir.join("fp");
    run_ok(
        Command::new("g++")
            .args(["-O2", "-fno-omit-frame-pointer", "-pthread", "-o"])
            .arg(&program)
            .arg(&source),
    );
    let data = dir.join("fp.perf.data");
    perf_record(&data, &["-g"], &[program.into_os_string()]);
    let label = "perf record -g of a program with frame pointers";
    let share = check_frame_pointer_roots(&data, &our_top(&data), label);
    assert!(
        share >= MIN_FRAME_POINTER_COMPLETE,
        "{label}: only {share:.1}% of stacks reach a thread entry function (need \
         {MIN_FRAME_POINTER_COMPLETE}%); glibc's symbols (Debian: libc6-dbg) name \
         __libc_start_call_main and start_thread"
    );
    eprintln!("took {:.1} s", started.elapsed().as_secs_f64());
}

// ---------------------------------------------------------------- tests

#[test]
fn perf_report_agreement_frame_pointer() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let started = Instant::now();
    let dir = TempDir::new("live-fp");
    let input = workload(&dir, "many-dispatches");
    let data = dir.join("fp.perf.data");
    perf_record(&data, &["-g"], &iree_compile_argv(&dir, &input));
    let label = "perf record -g, many-dispatches";
    let json = compare_with_perf_report(&data, label);
    check_frame_pointer_roots(&data, &json, label);
    eprintln!("took {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn perf_report_agreement_dwarf() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let started = Instant::now();
    let dir = TempDir::new("live-dwarf");
    let input = workload(&dir, "many-dispatches");
    let data = dir.join("dwarf.perf.data");
    perf_record(
        &data,
        &["-z", "--call-graph", "dwarf,65528"],
        &iree_compile_argv(&dir, &input),
    );
    let label = "perf record -z --call-graph dwarf,65528, many-dispatches";
    let json = compare_with_perf_report(&data, label);
    check_compiler_unwinding(&json, label);
    eprintln!("took {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn dwarf_unwinding_reaches_thread_roots() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let started = Instant::now();
    let dir = TempDir::new("live-unwind");
    // const-eval: the compiler also JIT-compiles and runs the constant
    // expressions, with more threads; many-dispatches is covered above.
    let input = workload(&dir, "const-eval");
    let data = dir.join("dwarf.perf.data");
    perf_record(
        &data,
        &["-z", "--call-graph", "dwarf,65528"],
        &iree_compile_argv(&dir, &input),
    );
    check_compiler_unwinding(
        &our_top(&data),
        "perf record -z --call-graph dwarf,65528, const-eval",
    );
    eprintln!("took {:.1} s", started.elapsed().as_secs_f64());
}
