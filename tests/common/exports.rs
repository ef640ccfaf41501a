//! Reading compile-perf's exports back in the tests: each format's sample
//! total, and `report`'s count on the same input and filters to hold them to.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::viewers::{pprof, raw_sample_total};
use super::{TempDir, compile_perf};

/// The export formats that carry every sample.
pub(crate) const SAMPLE_FORMATS: [&str; 4] = ["pprof", "firefox", "speedscope", "folded"];

/// `report --format json INPUT FILTERS`, parsed.
pub(crate) fn report_json(input: &Path, filters: &[&str], by: &str) -> Value {
    let mut args = vec!["report".to_owned(), input.display().to_string()];
    args.extend(["--format", "json", "--by", by, "-q"].map(str::to_owned));
    args.extend(filters.iter().map(|filter| (*filter).to_owned()));
    let run = compile_perf(&args);
    run.expect_code(0, "report --format json");
    run.json()
}

/// `export INPUT --format FORMAT FILTERS -o DIR/NAME`; the file written.
pub(crate) fn export(input: &Path, format: &str, filters: &[&str], dir: &TempDir) -> PathBuf {
    let stem = input
        .file_stem()
        .map_or(String::new(), |stem| stem.to_string_lossy().into_owned());
    let out = dir.join(format!(
        "{stem}-{}.{format}",
        filters.join("_").replace(['-', '/'], "")
    ));
    let mut args = vec![
        "export".to_owned(),
        input.display().to_string(),
        "--format".to_owned(),
        format.to_owned(),
        "-q".to_owned(),
        "-o".to_owned(),
        out.display().to_string(),
    ];
    args.extend(filters.iter().map(|filter| (*filter).to_owned()));
    compile_perf(&args).expect_code(0, &format!("export --format {format}"));
    out
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("the export exists"))
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()))
}

/// The samples in an export, counted the way its viewer counts them.
pub(crate) fn sample_total(format: &str, path: &Path) -> u64 {
    match format {
        "pprof" => raw_sample_total(&pprof(&["-raw"], path)),
        "speedscope" => json_file(path)["profiles"]
            .as_array()
            .expect("profiles")
            .iter()
            .map(|profile| {
                // Each sample weighs the CPU time it stands for, in the
                // profile's unit: the same for every sample of a recording.
                let weights = profile["weights"].as_array().expect("weights");
                let unit = profile["unit"].as_str().expect("unit");
                assert!(matches!(unit, "nanoseconds" | "none"), "unit {unit}");
                let first = weights.first().and_then(Value::as_u64).expect("a weight");
                assert!(unit == "nanoseconds" || first == 1, "{unit}: {first}");
                assert!(
                    weights.iter().all(|weight| weight.as_u64() == Some(first)),
                    "one weight per sample"
                );
                weights.len() as u64
            })
            .sum(),
        "firefox" => json_file(path)["threads"]
            .as_array()
            .expect("threads")
            .iter()
            .map(|thread| {
                let samples = &thread["samples"];
                match samples["weight"].as_array() {
                    Some(weights) => weights.iter().map(|weight| weight.as_u64().unwrap()).sum(),
                    None => samples["length"].as_u64().expect("a sample count"),
                }
            })
            .sum(),
        "folded" => std::fs::read_to_string(path)
            .expect("folded stacks")
            .lines()
            .map(|line| {
                line.rsplit_once(' ')
                    .and_then(|(_, count)| count.parse::<u64>().ok())
                    .unwrap_or_else(|| panic!("not a folded line: {line}"))
            })
            .sum(),
        other => panic!("no sample total for {other}"),
    }
}

/// The category names of a Firefox Profiler export.
pub(crate) fn firefox_categories(path: &Path) -> Vec<String> {
    json_file(path)["meta"]["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .map(|category| category["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// The pass spans of a Chrome trace: (name, depth, samples) of each `X` event.
pub(crate) fn trace_spans(path: &Path) -> Vec<(String, u64, u64)> {
    assert_trace_nests(path);
    json_file(path)["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|event| event["ph"] == "X")
        .map(|event| {
            assert!(
                event["dur"].as_f64().unwrap() > 0.0,
                "a span lasts: {event}"
            );
            (
                event["name"].as_str().unwrap().to_owned(),
                event["args"]["depth"].as_u64().unwrap(),
                event["args"]["samples"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Checks that the spans of the Chrome trace at `path` nest on each thread
/// as trace viewers need them: every span starts at or after the end of
/// the one before at its depth or shallower, or lies inside it; a parent
/// comes before a child that starts with it; each carries its CPU time.
pub(crate) fn assert_trace_nests(path: &Path) {
    // Microseconds written as decimals: ends computed from start and
    // length may differ in the last place.
    const SLACK: f64 = 1e-3;
    let trace = json_file(path);
    // The start, end and depth of the spans open on each (pid, tid).
    type Open = Vec<(f64, f64, u64)>;
    let mut open: std::collections::HashMap<(i64, i64), Open> = std::collections::HashMap::new();
    let mut spans = 0;
    for event in trace["traceEvents"].as_array().expect("traceEvents") {
        if event["ph"] != "X" {
            continue;
        }
        spans += 1;
        let thread = (
            event["pid"].as_i64().unwrap(),
            event["tid"].as_i64().unwrap(),
        );
        let start = event["ts"].as_f64().unwrap();
        let end = start + event["dur"].as_f64().unwrap();
        let depth = event["args"]["depth"].as_u64().unwrap();
        assert!(
            event["args"]["cpu_seconds"]
                .as_f64()
                .is_some_and(|s| s > 0.0),
            "a span's CPU time: {event}"
        );
        let stack = open.entry(thread).or_default();
        while let Some(&(_, last_end, _)) = stack.last() {
            if last_end <= start + SLACK {
                stack.pop();
            } else {
                break;
            }
        }
        if let Some(&(parent_start, parent_end, parent_depth)) = stack.last() {
            assert!(
                end <= parent_end + SLACK && parent_depth < depth,
                "{event} overlaps the span from {parent_start} to {parent_end} \
                 (depth {parent_depth}) partly, or comes after its child"
            );
        }
        stack.push((start, end, depth));
    }
    assert!(spans > 0, "the trace has spans");
}
