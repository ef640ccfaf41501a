//! Live: the resident set over time of a real iree-compile compile
//! (`memory.json`), its agreement with the peak RSS of `run.json`, and its
//! join with the passes (`report --by pass`, `timeline`). Under `CI=true`
//! these must run.

mod common;

use std::path::Path;

use common::iree::{iree_live_prerequisites, live_lock, record_args, workload, workload_at_scale};
use common::{TempDir, compile_perf};
use serde_json::Value;

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("the file exists")).expect("it is JSON")
}

/// The process of `memory.json` with the highest RSS (the native compiler).
fn largest_process(memory: &Value) -> &Value {
    memory["processes"]
        .as_array()
        .expect("processes")
        .iter()
        .max_by_key(|process| max_rss(process))
        .expect("a process was sampled")
}

fn max_rss(process: &Value) -> u64 {
    process["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sample| sample["rss_bytes"].as_u64().unwrap())
        .max()
        .unwrap_or(0)
}

#[test]
fn a_recorded_compile_has_its_rss_over_time() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("memory");
    // About 5 s under perf on 2 cores.
    let input = workload_at_scale(&dir, "many-dispatches", "0.4");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &[], &input, &[])).expect_code(0, "record");

    let run = json_file(&run_dir.join("run.json"));
    assert!(
        run["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|output| output == "memory.json")
    );
    let perf_command: Vec<&str> = run["perf"]["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap())
        .collect();
    assert!(
        perf_command
            .windows(2)
            .any(|pair| pair == ["-k", "CLOCK_MONOTONIC"]),
        "{perf_command:?}"
    );
    let memory = json_file(&run_dir.join("memory.json"));
    assert_eq!(memory["clock"], "CLOCK_MONOTONIC");
    let compiler = largest_process(&memory);
    assert_eq!(compiler["name"], "iree-compile");
    let samples = compiler["samples"].as_array().unwrap();
    let times: Vec<u64> = samples
        .iter()
        .map(|sample| sample["time_ns"].as_u64().unwrap())
        .collect();
    let span_seconds = (times[times.len() - 1] - times[0]) as f64 / 1e9;
    eprintln!(
        "{} RSS samples over {span_seconds:.2} s; sampler CPU {} s",
        samples.len(),
        memory["sampler_cpu_seconds"]
    );
    assert!(samples.len() >= 50, "{} samples", samples.len());
    assert!(times.windows(2).all(|pair| pair[0] < pair[1]));
    for sample in samples {
        let (rss, anon, file) = (
            sample["rss_bytes"].as_u64().unwrap(),
            sample["anon_bytes"].as_u64().unwrap(),
            sample["file_bytes"].as_u64().unwrap(),
        );
        assert_eq!(anon + file, rss, "{sample}");
    }
    // The sampled maximum agrees with wait4's peak within 5% (samples can
    // miss the top between two of them, never exceed it by much).
    let peak = run["peak_rss_bytes"].as_u64().unwrap() as f64;
    let sampled = max_rss(compiler) as f64;
    eprintln!(
        "sampled max {:.1} MiB, wait4 peak {:.1} MiB",
        sampled / 1048576.0,
        peak / 1048576.0
    );
    assert!(
        (sampled - peak).abs() <= 0.05 * peak,
        "sampled {sampled} against wait4 {peak}"
    );
}
