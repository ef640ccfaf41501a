//! Live: the serialized finding on a real program of known parallelism
//! (`tests/findings/spin.cpp`), recorded with `compile-perf record`: one
//! thread busy for 3 s on a machine of two CPUs or more, before two busy
//! for 1 s, is named, with its seconds and its busy threads; a program of
//! one thread only is not (it could not have run in parallel, as a compile
//! under `--mlir-disable-threading`); two threads busy for 3 s are not, when
//! the machine gave them two CPUs (the program says how much CPU time it
//! got; a run that other work squeezed onto one CPU is done again). (The
//! same finding on IREE's compiles is tested in `tests/live_passes.rs`.)

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{TempDir, compile_perf, live_prerequisites, run_ok};
use serde_json::Value;

/// How long the program keeps its threads busy.
const SECONDS: &str = "3";
/// Two threads ran in parallel when they got at least this many CPU
/// seconds per second of `SECONDS`.
const PARALLEL_CPUS: f64 = 1.6;
/// Runs of the two threads, until the machine gives them two CPUs.
const PARALLEL_TRIES: usize = 3;

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

/// The findings of `report --format json` of the program run on `threads`
/// (then on the threads and seconds of `then`; run `try_number`), and the
/// CPU seconds the program got.
fn findings_of(
    dir: &TempDir,
    program: &Path,
    threads: &str,
    then: &[&str],
    try_number: usize,
) -> (Vec<Value>, f64) {
    let run_dir = dir.join(format!("run-{threads}-{}-{try_number}", then.join("-")));
    let cpu_file = dir.join(format!("cpu-{threads}-{}-{try_number}", then.join("-")));
    let mut args: Vec<OsString> = vec![
        "record".into(),
        "-q".into(),
        "-o".into(),
        run_dir.clone().into(),
        "--".into(),
        program.into(),
        threads.into(),
        SECONDS.into(),
        cpu_file.clone().into(),
    ];
    args.extend(then.iter().map(OsString::from));
    compile_perf(args).expect_code(0, "record of the spinning program");
    let report = compile_perf([
        OsString::from("report"),
        run_dir.into(),
        "--format".into(),
        "json".into(),
        "-q".into(),
    ]);
    report.expect_code(0, "report --format json");
    let findings = report.json()["findings"]
        .as_array()
        .expect("findings")
        .clone();
    let cpu_seconds = std::fs::read_to_string(&cpu_file)
        .expect("the program wrote its CPU seconds")
        .trim()
        .parse()
        .expect("CPU seconds are a number");
    (findings, cpu_seconds)
}

#[test]
fn one_busy_thread_of_two_cpus_is_serialized_and_two_or_one_alone_are_not() {
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

    let (alone, _) = findings_of(&dir, &program, "1", &[], 1);
    println!("one thread only: {alone:#?}");
    assert!(
        alone.iter().all(|finding| finding["kind"] != "serialized"),
        "a program of one thread could not have run in parallel: {alone:?}"
    );
    // One thread for 3 s and two for 1 s take 5 CPU s on a machine that
    // gives them what they ask for; a run squeezed by other work reads
    // serial in pieces, and is done again.
    let asked: f64 = SECONDS.parse::<f64>().expect("seconds") + 2.0;
    let before_two = (1..=PARALLEL_TRIES)
        .map(|try_number| findings_of(&dir, &program, "1", &["2", "1"], try_number))
        .find(|(findings, cpu_seconds)| {
            let given = *cpu_seconds >= 0.9 * asked;
            if !given {
                println!(
                    "one thread then two got {cpu_seconds:.2} CPU s of {asked}: other work took CPU \
                     time from them (findings {findings:?}); again"
                );
            }
            given
        })
        .map(|(findings, _)| findings)
        .unwrap_or_else(|| {
            panic!("in {PARALLEL_TRIES} runs the machine never gave the program the CPUs it asked for")
        });
    println!("one thread, then two: {before_two:#?}");
    let serialized = before_two
        .iter()
        .find(|finding| finding["kind"] == "serialized")
        .unwrap_or_else(|| panic!("no serialized finding on one busy thread: {before_two:?}"));
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

    let seconds: f64 = SECONDS.parse().expect("seconds");
    let parallel = (1..=PARALLEL_TRIES)
        .map(|try_number| findings_of(&dir, &program, "2", &[], try_number))
        .find(|(findings, cpu_seconds)| {
            let given = *cpu_seconds >= PARALLEL_CPUS * seconds;
            if !given {
                println!(
                    "two threads got {cpu_seconds:.2} CPU s in {seconds} s: other work took CPU time from them \
                     (findings {findings:?}); again"
                );
            }
            given
        })
        .map(|(findings, _)| findings)
        .unwrap_or_else(|| {
            panic!("in {PARALLEL_TRIES} runs the machine never gave the two threads two CPUs")
        });
    println!("two threads: {parallel:#?}");
    assert!(
        parallel
            .iter()
            .all(|finding| finding["kind"] != "serialized"),
        "two busy threads of {cpus} CPUs are not serialized: {parallel:?}"
    );
}
