//! Live test of samples the kernel lost: a real recording with a ring
//! buffer too small for its samples (`perf record -m 4`, 16 KiB per CPU,
//! with 8 KiB of stack per sample), whose losses compile-perf must count as
//! perf counts them, place in time on the timeline, and warn about.
//!
//! - `lost_samples_are_counted_as_perf_counts_them_and_warned_about`: the
//!   top-level `lost_samples` of `report`, `top`, `timeline` and `diff`
//!   (per side) equals perf's own count of the samples lost (the
//!   `PERF_RECORD_LOST_SAMPLES` records, as `perf script -D` prints them),
//!   the timeline's buckets add up to its `PERF_RECORD_LOST` records, and
//!   the text and the HTML report warn with the count and the share, also
//!   on a run directory whose `run.json` already notes the loss.
//!
//! It needs perf and g++; without them it prints a skip note and returns,
//! and under `CI=true` it fails instead (`common::live_prerequisite`).

mod common;

use std::path::Path;
use std::process::Command;

use common::iree::live_lock;
use common::perf_report::as_u64;
use common::{TempDir, compile_perf, live_prerequisites, run_ok};

/// Two threads each recurse 40 calls deep and spin for about half a second
/// of CPU: deep stacks, so every sample copies the whole 8 KiB of stack.
const SPIN_SOURCE: &str = r#"
#include <pthread.h>
#include <cstdint>
#include <ctime>
volatile uint64_t sink;
__attribute__((noinline)) uint64_t spin(int depth, clock_t end) {
  if (depth > 0) return spin(depth - 1, end) + 1;
  uint64_t x = 1;
  while (clock() < end)
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}
void *worker(void *) { sink = spin(40, clock() + CLOCKS_PER_SEC); return nullptr; }
int main() {
  pthread_t thread;
  pthread_create(&thread, nullptr, worker, nullptr);
  worker(nullptr);
  pthread_join(thread, nullptr);
  return 0;
}
"#;

/// What perf says its recording lost: the sum of the `PERF_RECORD_LOST`
/// records (records dropped, as they happened) and of the
/// `PERF_RECORD_LOST_SAMPLES` records (samples, counted at the end).
#[derive(Debug)]
struct PerfLosses {
    records: u64,
    samples: u64,
}

/// Sums the losses `perf script -D` prints: `PERF_RECORD_LOST: id:N: lost:COUNT`
/// and `PERF_RECORD_LOST_SAMPLES: id:N: lost samples :COUNT`.
fn perf_losses(data: &Path) -> PerfLosses {
    let dump = run_ok(
        Command::new("perf")
            .args(["script", "-D", "--no-inline", "-i"])
            .arg(data),
    );
    let count_after = |line: &str, marker: &str| -> Option<u64> {
        let rest = &line[line.find(marker)? + marker.len()..];
        Some(rest.rsplit(':').next()?.trim().parse().expect("a count"))
    };
    let mut losses = PerfLosses {
        records: 0,
        samples: 0,
    };
    for line in String::from_utf8_lossy(&dump.stdout).lines() {
        if let Some(count) = count_after(line, "PERF_RECORD_LOST_SAMPLES:") {
            losses.samples += count;
        } else if let Some(count) = count_after(line, "PERF_RECORD_LOST:") {
            losses.records += count;
        }
    }
    losses
}

#[test]
fn lost_samples_are_counted_as_perf_counts_them_and_warned_about() {
    let _live = live_lock();
    if !live_prerequisites(&["perf", "g++"]) {
        return;
    }
    let dir = TempDir::new("live-lost");
    let source = dir.join("spin.cpp");
    std::fs::write(&source, SPIN_SOURCE).unwrap();
    let program = dir.join("spin");
    run_ok(
        Command::new("g++")
            .args(["-O1", "-pthread", "-o"])
            .arg(&program)
            .arg(&source),
    );
    // A run directory: the recording and a run.json that notes the loss, as
    // `record` writes it.
    let run_dir = dir.join("run");
    std::fs::create_dir(&run_dir).unwrap();
    let data = run_dir.join("perf.data");
    run_ok(
        Command::new("perf")
            .args(["record", "-m", "4", "-F", "4999", "-e", "cpu-clock"])
            .args(["--call-graph", "dwarf,8192", "-k", "CLOCK_MONOTONIC"])
            .args(["-N", "-q", "-o"])
            .arg(&data)
            .arg("--")
            .arg(&program),
    );
    let perf = perf_losses(&data);
    assert!(
        perf.records > 0 && perf.samples > 0,
        "the recording lost nothing ({perf:?}): this test needs one that did, and a 16 KiB \
         ring buffer (-m 4) for 8 KiB samples at 4999 Hz lost 10-20% of them on this machine"
    );
    eprintln!("perf says: {perf:?}");

    let report = compile_perf([
        "report".into(),
        "--format".into(),
        "json".into(),
        data.clone().into_os_string(),
    ]);
    let report = report.expect_code(0, "report --format json").json();
    assert_eq!(
        as_u64(&report["lost_samples"], "report lost_samples"),
        perf.samples
    );
    let top = compile_perf([
        "top".into(),
        "--format".into(),
        "json".into(),
        data.clone().into_os_string(),
    ]);
    let top = top.expect_code(0, "top --format json").json();
    assert_eq!(
        as_u64(&top["lost_samples"], "top lost_samples"),
        perf.samples
    );

    let timeline_json = dir.join("timeline.json");
    compile_perf([
        "timeline".into(),
        "--format".into(),
        "json".into(),
        "-o".into(),
        timeline_json.clone().into_os_string(),
        data.clone().into_os_string(),
    ])
    .expect_code(0, "timeline --format json");
    let timeline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&timeline_json).unwrap()).unwrap();
    assert_eq!(
        as_u64(&timeline["lost_samples"], "timeline lost_samples"),
        perf.samples
    );
    let buckets = timeline["buckets"].as_array().expect("buckets");
    let per_bucket: Vec<u64> = buckets
        .iter()
        .map(|bucket| as_u64(&bucket["lost_samples"], "a bucket's lost_samples"))
        .collect();
    assert_eq!(
        per_bucket.iter().sum::<u64>(),
        perf.records,
        "the buckets' losses add up to the PERF_RECORD_LOST records: {per_bucket:?}"
    );
    assert!(
        per_bucket.iter().filter(|&&lost| lost > 0).count() > 1,
        "losses spread over the compile, not piled in one bucket: {per_bucket:?}"
    );
    let svg = dir.join("timeline.svg");
    compile_perf([
        "timeline".into(),
        "-o".into(),
        svg.clone().into_os_string(),
        data.clone().into_os_string(),
    ])
    .expect_code(0, "timeline");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        svg.matches(r#"class="lost""#).count(),
        per_bucket.iter().filter(|&&lost| lost > 0).count(),
        "one red mark per bucket with losses"
    );

    let diff = compile_perf([
        "diff".into(),
        "--format".into(),
        "json".into(),
        data.clone().into_os_string(),
        data.clone().into_os_string(),
    ]);
    let diff = diff.expect_code(0, "diff --format json").json();
    for side in ["base", "new"] {
        assert_eq!(as_u64(&diff[side]["lost_samples"], side), perf.samples);
    }
    assert_eq!(as_u64(&diff["lost_samples"], "diff"), 2 * perf.samples);

    // The text report warns with the count and the share of the samples
    // taken, in the report itself, even where run.json noted the loss.
    let samples = as_u64(&report["samples"], "samples");
    let share = perf.samples as f64 * 100.0 / (samples + perf.samples) as f64;
    let warning = format!(
        "warning: the kernel lost {} samples while recording ({share:.1}% of the samples taken)",
        perf.samples
    );
    let noted = format!(
        r#"{{"notes": ["the kernel lost {} samples while recording"]}}"#,
        perf.samples
    );
    std::fs::write(run_dir.join("run.json"), noted).unwrap();
    let text = compile_perf(["report".into(), run_dir.clone().into_os_string()]);
    let text = text.expect_code(0, "report RUN_DIR");
    assert!(
        text.stdout.lines().any(|line| line.starts_with(&warning)),
        "the report warns ({warning}):\n{}",
        text.stdout
    );
    assert!(
        !text.stderr.contains("warning: the kernel lost"),
        "record warned then, so stderr does not again:\n{}",
        text.stderr
    );
    let page = dir.join("report.html");
    compile_perf([
        "report".into(),
        "--format".into(),
        "html".into(),
        "-o".into(),
        page.clone().into_os_string(),
        run_dir.into_os_string(),
    ])
    .expect_code(0, "report --format html");
    let page = std::fs::read_to_string(&page).unwrap();
    let words = warning.trim_start_matches("warning: ");
    assert!(page.contains(words), "the HTML report warns ({words})");
}
