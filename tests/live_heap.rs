//! Live: `record --heap`, the heap sampler preloaded into the program.
//! Accuracy on a C++ program of known phases (`tests/heap/phases.cpp`: a
//! 10 MB leak, 200 MB held, 2 GB churned and freed): each phase's live
//! bytes within 10%, the churn never blamed. Safety on a C++ stress program
//! (`tests/heap/stress.cpp`: 16 threads through every wrapped function,
//! a fork and an exec): the same output with the sampler as without. The
//! pass holding the most of a real iree-compile compile (const-eval) at its
//! peak. And a library that is not there stops `record` with exit 29. They
//! need perf and g++ (and iree-compile); under `CI=true` these must run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::iree::{iree_live_prerequisites, live_lock, record_args, workload};
use common::{TempDir, compile_perf, is_ci, live_prerequisites, run_ok};
use serde_json::Value;

/// The heap sampler library, next to the binary (`cargo build --release`
/// builds both); `None` (a skip) when it is not there, except under CI.
fn sampler() -> Option<PathBuf> {
    let library = common::bin().with_file_name("libheap_sampler.so");
    if library.is_file() {
        return Some(library);
    }
    let problem = format!(
        "{} is missing: `cargo build --release` (the workspace's default members) builds it",
        library.display()
    );
    assert!(!is_ci(), "{problem}");
    eprintln!("note: skipping live test: {problem}");
    None
}

/// Compiles `tests/heap/NAME.cpp` into `dir`.
fn program(dir: &TempDir, name: &str) -> PathBuf {
    let source = common::repo_root()
        .join("tests")
        .join("heap")
        .join(format!("{name}.cpp"));
    let program = dir.join(name);
    run_ok(
        Command::new("g++")
            .args(["-O1", "-g", "-pthread", "-o"])
            .arg(&program)
            .arg(source),
    );
    program
}

/// `report RUN --heap --format json ARGS`'s `heap_peak`.
fn heap_peak(run_dir: &Path, args: &[&str]) -> Value {
    let mut all = vec![
        "report".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let run = compile_perf(all);
    run.expect_code(0, "report --heap");
    run.json()["heap_peak"].clone()
}

/// `collapse RUN --heap ARGS`: the live bytes of the stacks through `frame`.
fn live_through(run_dir: &Path, args: &[&str], frame: &str) -> u64 {
    let mut all = vec![
        "collapse".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "-q".as_ref(),
    ];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let run = compile_perf(all);
    run.expect_code(0, "collapse --heap");
    run.stdout
        .lines()
        .filter(|line| line.split(';').any(|name| name.starts_with(frame)))
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<u64>().ok())
        .sum()
}

fn assert_within(what: &str, got: u64, expected: u64, tolerance: f64) {
    let error = (got as f64 - expected as f64).abs() / expected as f64;
    assert!(
        error <= tolerance,
        "{what}: {got} bytes against {expected} expected ({:.1}% off, at most {:.0}%)",
        error * 100.0,
        tolerance * 100.0
    );
}

/// The program's phases, in bytes (`tests/heap/phases.cpp`).
const LEAK: u64 = 10_000_000;
const HOLD: u64 = 200_000_000;

#[test]
fn each_phase_s_live_bytes_are_within_10_percent_and_the_churn_is_not_blamed() {
    let _live = live_lock();
    if !live_prerequisites(&["perf", "g++"]) {
        return;
    }
    let Some(_) = sampler() else { return };
    let dir = TempDir::new("heap-phases");
    let program = program(&dir, "phases");
    let run_dir = dir.join("run");
    // 16 KiB: pieces of 64 KiB and more are sampled with probability
    // ≥ 98%, the 4000-byte ones with 22% (about 11,000 samples in all):
    // the standard errors are about 1% of the leak and of the hold.
    let record = compile_perf(
        ["record", "-q", "--heap", "--heap-rate", "16384", "-o"]
            .map(std::ffi::OsString::from)
            .into_iter()
            .chain([
                run_dir.clone().into_os_string(),
                "--".into(),
                program.into(),
            ]),
    );
    record.expect_code(0, "record --heap");

    let peak = heap_peak(&run_dir, &[]);
    assert_eq!(peak["instant"], "rss_peak", "{peak}");
    let live = peak["live_bytes"].as_u64().unwrap();
    assert_within(
        "live at the RSS peak (held + leaked)",
        live,
        HOLD + LEAK,
        0.10,
    );
    let error = peak["standard_error_bytes"].as_u64().unwrap();
    assert!(
        error > 0 && error < live / 20,
        "standard error {error} of {live}"
    );
    // The churn, after the hold, adds at most one 8 MB piece to the most.
    let most = peak["max_live_bytes"].as_u64().unwrap();
    assert_within("the most live heap", most, HOLD + LEAK, 0.10);
    let end = &peak["at_end"];
    assert_within(
        "live at the end (leaked)",
        end["live_bytes"].as_u64().unwrap(),
        LEAK,
        0.10,
    );
    // The RSS grew by the held and leaked pages.
    let ratio = peak["live_to_anon_growth"].as_f64().unwrap();
    assert!(
        (0.8..=1.2).contains(&ratio),
        "live heap / anonymous growth {ratio}"
    );

    assert_within(
        "hold_phase at the peak",
        live_through(&run_dir, &[], "hold_phase"),
        HOLD,
        0.10,
    );
    assert_within(
        "leak_phase at the peak",
        live_through(&run_dir, &[], "leak_phase"),
        LEAK,
        0.10,
    );
    assert_eq!(
        live_through(&run_dir, &[], "churn_phase"),
        0,
        "churn blamed at the peak"
    );
    let after = ["--at", "1000"];
    assert_within(
        "leak_phase at the end",
        live_through(&run_dir, &after, "leak_phase"),
        LEAK,
        0.10,
    );
    assert_eq!(
        live_through(&run_dir, &after, "hold_phase"),
        0,
        "hold live at the end"
    );
    assert_eq!(
        live_through(&run_dir, &after, "churn_phase"),
        0,
        "churn blamed at the end"
    );
}

#[test]
fn sixteen_threads_a_fork_and_an_exec_run_the_same_with_the_heap_sampler() {
    if !live_prerequisites(&["g++"]) {
        return;
    }
    let Some(library) = sampler() else { return };
    let dir = TempDir::new("heap-stress");
    let program = program(&dir, "stress");
    let plain = run_ok(&mut Command::new(&program));
    let expected = String::from_utf8_lossy(&plain.stdout).into_owned();
    assert!(expected.contains("thread 15 checksum"), "{expected}");
    assert!(expected.contains("forked child exit 0"), "{expected}");
    assert!(expected.contains("exec child ok"), "{expected}");
    assert!(!expected.contains("errors 1"), "{expected}");
    // The default rate, and one that samples almost every allocation (the
    // table of sampled pointers full of entries).
    for rate in ["524288", "256"] {
        let preloaded = run_ok(
            Command::new(&program)
                .env("LD_PRELOAD", &library)
                .env("COMPILE_PERF_HEAP_RATE", rate),
        );
        assert_eq!(
            String::from_utf8_lossy(&preloaded.stdout),
            expected,
            "with the heap sampler at rate {rate}"
        );
    }
}

#[test]
fn record_heap_without_the_library_exits_29_and_makes_no_run() {
    if !live_prerequisites(&["perf"]) {
        return;
    }
    let dir = TempDir::new("heap-missing");
    let run_dir = dir.join("run");
    let output = Command::new(common::bin())
        .env("COMPILE_PERF_HEAP_SAMPLER", dir.join("no-such-library.so"))
        .args(["record", "--heap", "-o"])
        .arg(&run_dir)
        .args(["--", "true"])
        .output()
        .expect("compile-perf runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(29), "{stderr}");
    assert!(
        stderr.contains("no-such-library.so, which is not a file"),
        "{stderr}"
    );
    assert!(!run_dir.exists(), "no run directory is made");
}

#[test]
fn the_pass_holding_the_most_at_the_const_eval_peak_is_named_with_its_bytes() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let Some(_) = sampler() else { return };
    let dir = TempDir::new("heap-const-eval");
    let input = workload(&dir, "const-eval");
    let run_dir = dir.join("run");
    let record = compile_perf(record_args(&run_dir, &["-q", "--heap"], &input, &[]));
    record.expect_code(0, "record --heap of const-eval");
    assert!(
        record.stderr.contains(" --heap\n"),
        "record names report --heap: {}",
        record.stderr
    );
    let peak = heap_peak(&run_dir, &["--compiler"]);
    eprintln!("heap_peak: {peak:#}");
    assert_eq!(peak["instant"], "rss_peak");
    let live = peak["live_bytes"].as_u64().unwrap();
    let pass = peak["pass"].as_str().unwrap_or_default();
    let held = peak["pass_live_bytes"].as_u64().unwrap();
    assert!(!pass.is_empty() && held > 0 && held <= live, "{peak}");
    // The passes' bytes add up to the whole.
    let by_pass: u64 = (peak["by_pass"].as_array().unwrap().iter())
        .map(|place| place["live_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(by_pass, live);
    // Megabytes, not kilobytes, and not more than the RSS.
    let rss = peak["rss_bytes"].as_u64().unwrap();
    assert!(live > 4 << 20 && live < rss, "live {live} of RSS {rss}");
    assert!(peak["live_to_anon_growth"].as_f64().is_some(), "{peak}");
    let text = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--compiler".as_ref(),
        "-q".as_ref(),
    ]);
    text.expect_code(0, "report --heap");
    assert!(
        text.stdout
            .contains(&format!("heap: held most by {pass}: ")),
        "{}",
        text.stdout
    );
}
