//! Live: the serialized finding on a real program of known parallelism
//! (`tests/findings/spin.cpp`), recorded with `compile-perf record`: one
//! thread busy for 3 s on a machine of two CPUs or more is named, with its
//! seconds and its busy threads; two threads busy for 3 s are not. (The
//! same finding on IREE's compiles is tested in `tests/live_passes.rs`.)

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{TempDir, compile_perf, live_prerequisites, run_ok};
use serde_json::Value;

/// How long the program keeps its threads busy.
const SECONDS: &str = "3";

/// `tests/findings/spin.cpp`, compiled into `dir`.
fn spin_program(dir: &TempDir) -> PathBuf {
    let program = dir.join("spin");
    run_ok(
        Command::new("g++")
            .args(["-O1", "-g", "-pthread", "-o"])
            .arg(&program)
            .arg(common::repo_root().join("tests/findings/spin.cpp")),
    );
    program
}

/// The findings of `report --format json` of the program run on `threads`.
fn findings_of(dir: &TempDir, program: &Path, threads: &str) -> Vec<Value> {
    let run_dir = dir.join(format!("run-{threads}"));
    let args: Vec<OsString> = vec![
        "record".into(),
        "-q".into(),
        "-o".into(),
        run_dir.clone().into(),
        "--".into(),
        program.into(),
        threads.into(),
        SECONDS.into(),
    ];
    compile_perf(args).expect_code(0, "record of the spinning program");
    let report = compile_perf([
        OsString::from("report"),
        run_dir.into(),
        "--format".into(),
        "json".into(),
        "-q".into(),
    ]);
    report.expect_code(0, "report --format json");
    report.json()["findings"]
        .as_array()
        .expect("findings")
        .clone()
}

#[test]
fn one_busy_thread_of_two_cpus_is_serialized_and_two_are_not() {
    let _live = common::iree::live_lock();
    if !live_prerequisites(&["perf", "g++"]) {
        return;
    }
    let cpus = std::thread::available_parallelism().map_or(1, |cpus| cpus.get());
    if cpus < 2 {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs on two CPUs or more"
        );
        eprintln!("skipped: one CPU, where no work is serialized");
        return;
    }
    let dir = TempDir::new("findings-spin");
    let program = spin_program(&dir);

    let alone = findings_of(&dir, &program, "1");
    println!("one thread: {alone:#?}");
    let serialized = alone
        .iter()
        .find(|finding| finding["kind"] == "serialized")
        .unwrap_or_else(|| panic!("no serialized finding on one busy thread: {alone:?}"));
    let seconds = serialized["seconds"].as_f64().unwrap();
    assert!((2.0..=3.5).contains(&seconds), "{serialized}");
    assert!(
        serialized["busy_threads"].as_f64().unwrap() < 1.25,
        "{serialized}"
    );
    assert!(
        serialized["saving_at_most_seconds"].as_f64().unwrap() > 0.0,
        "{serialized}"
    );
    assert!(
        serialized["place"]
            .as_str()
            .is_some_and(|place| !place.is_empty()),
        "{serialized}"
    );

    let parallel = findings_of(&dir, &program, "2");
    println!("two threads: {parallel:#?}");
    assert!(
        parallel
            .iter()
            .all(|finding| finding["kind"] != "serialized"),
        "two busy threads of {cpus} CPUs are not serialized: {parallel:?}"
    );
}
