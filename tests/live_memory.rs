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
fn a_recorded_compile_has_its_rss_over_time_and_the_pass_of_its_peak() {
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

    // Joined with the passes: the peak is named, and its pass's highest
    // RSS is the peak.
    let report = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--by".as_ref(),
        "pass".as_ref(),
        "--compiler".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    report.expect_code(0, "report --by pass");
    let report = report.json();
    let peak = &report["memory_peak"];
    eprintln!("memory_peak: {peak}");
    assert_eq!(peak["bytes"].as_u64().unwrap() as f64, sampled);
    // The peak's RSS, split: anonymous memory and mapped files.
    let (anon, files) = (
        peak["anon_bytes"].as_u64().unwrap(),
        peak["file_bytes"].as_u64().unwrap(),
    );
    assert_eq!(anon + files, peak["bytes"].as_u64().unwrap(), "{peak}");
    assert!(anon > 0 && files > 0, "{peak}");
    let anon_peak = &report["anon_memory_peak"];
    assert!(
        anon_peak["anon_bytes"].as_u64().unwrap() >= anon,
        "{anon_peak}"
    );
    let place = peak["pass"].as_str().unwrap();
    assert!(!place.is_empty());
    let seconds = peak["seconds"].as_f64().unwrap();
    assert!(seconds >= 0.0 && seconds <= report["duration_seconds"].as_f64().unwrap() + 0.1);
    let passes = report["passes"].as_array().unwrap();
    assert!(
        passes
            .iter()
            .all(|pass| pass["rss_max_bytes"].as_u64().is_some()
                && pass["rss_start_bytes"].as_u64().is_some()
                && pass["rss_growth_bytes"].as_i64().is_some())
    );
    if let Some(pass) = passes.iter().find(|pass| pass["name"] == place) {
        assert_eq!(pass["rss_max_bytes"], peak["bytes"], "{pass}");
    }
    let text = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--by".as_ref(),
        "pass".as_ref(),
        "--compiler".as_ref(),
    ]);
    let memory_line = text
        .stdout
        .lines()
        .find(|line| line.starts_with("memory: "))
        .expect("the report has a memory line");
    assert!(
        memory_line.contains(&format!("in {place}")),
        "{memory_line}"
    );
    assert!(text.stdout.contains("RSS start MiB"));

    // The timeline draws the line and marks the peak.
    let timeline = compile_perf([
        "timeline".as_ref(),
        run_dir.as_os_str(),
        "--compiler".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-o".as_ref(),
        "-".as_ref(),
    ]);
    let rss = &timeline.json()["rss"];
    assert!(rss["points"].as_array().unwrap().len() >= 50);
    assert_eq!(rss["peak"]["pass"], place);
    let svg_path = dir.join("timeline.svg");
    compile_perf([
        "timeline".as_ref(),
        run_dir.as_os_str(),
        "--compiler".as_ref(),
        "-o".as_ref(),
        svg_path.as_os_str(),
    ])
    .expect_code(0, "timeline");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.contains(r#"<polyline class="rss""#));
    assert!(svg.contains(r#"<g class="rss-peak">"#));
    assert!(svg.contains(&format!(": {place}")));
    // And so does the timeline of record's HTML report.
    let html = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    assert!(html.contains(r#"<polyline class="rss""#));
}

#[test]
fn const_eval_grows_anonymous_memory_most_in_its_jit_pass() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("memory-const-eval");
    let input = workload(&dir, "const-eval");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &[], &input, &[])).expect_code(0, "record");
    let report = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--by".as_ref(),
        "pass".as_ref(),
        "--compiler".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ])
    .json();
    let mut growth: Vec<(String, i64)> = report["passes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|pass| {
            // A pass of const-eval's JIT seen only on other threads has no
            // span of the main thread's, so no growth of its own.
            let bytes = pass["anon_growth_bytes"].as_i64();
            assert!(bytes.is_some() || pass["nested_in"].is_string(), "{pass}");
            Some((pass["name"].as_str().unwrap().to_owned(), bytes?))
        })
        .collect();
    growth.sort_by_key(|(_, bytes)| -bytes);
    eprintln!(
        "largest anonymous growth: {:?}",
        &growth[..growth.len().min(5)]
    );
    // JitGlobalsPass evaluates the constants at compile time and keeps
    // the results: no other pass grows the compiler's anonymous memory (its
    // heap, not the library's pages) as much.
    assert_eq!(growth[0].0, "JitGlobalsPass", "{growth:?}");
    assert!(growth[0].1 > 8 << 20, "{growth:?}");
}

#[test]
fn a_failed_compile_under_a_shell_names_the_compiler_not_the_shell() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("memory-failed");
    // The compiler refuses the device after parsing its input, which takes
    // f32-literals' decimal literals about 0.5 s here: the memory sampler,
    // which looks for new processes every 100 ms, sees it 20 times or more
    // (hex-constants' 0.1 s gave it 1 to 9 samples in 25 runs, and none in
    // a CI run, which failed).
    // The shell outlives it and exits 3.
    let input = workload(&dir, "f32-literals");
    let run_dir = dir.join("run");
    let script = format!(
        "{} --iree-hal-target-device=no-such-device {} -o {}; exit 3",
        common::iree_compile().display(),
        input.display(),
        dir.join("out.vmfb").display()
    );
    let recorded = compile_perf([
        "record".as_ref(),
        "-q".as_ref(),
        "-o".as_ref(),
        run_dir.as_os_str(),
        "--".as_ref(),
        "sh".as_ref(),
        "-c".as_ref(),
        script.as_ref(),
    ]);
    recorded.expect_code(3, "record of a failing compile");
    let report = compile_perf(["report".as_ref(), run_dir.as_os_str()]);
    // The compiler ran long enough to be sampled: its RSS is the one named.
    let line = report
        .stdout
        .lines()
        .find(|line| line.starts_with("memory: "))
        .unwrap_or_else(|| panic!("no memory line: {}", report.stdout));
    assert!(line.starts_with("memory: RSS of iree-compile ("), "{line}");
    assert!(!line.contains("Python"), "{line}");
    assert!(!report.stdout.contains("RSS of sh "), "{}", report.stdout);
}
