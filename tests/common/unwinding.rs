//! How far stacks unwound, checked on compile-perf's `top --format json`:
//! the native compiler process's rate on DWARF recordings, and on `-g`
//! recordings which stacks reach a thread entry function, against `perf
//! script`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::perf_report::as_u64;
use super::symbol_tables::unversioned;
use super::{compile_perf, run_ok, truncate};

/// The least share of the native compiler's samples that must unwind to a root.
pub(crate) const MIN_COMPILER_UNWIND_RATE: f64 = 0.97;
/// Fewer samples than this in the compiler process make its rate meaningless.
pub(crate) const MIN_COMPILER_SAMPLES: u64 = 200;

/// Prints the unwinding rates of `json` (from `top --format json`) and checks
/// that the native compiler process reached a thread root on at least
/// [`MIN_COMPILER_UNWIND_RATE`] of its samples.
pub(crate) fn check_compiler_unwinding(json: &Value, label: &str) {
    let rate = |unwind: &Value, samples: u64| {
        as_u64(&unwind["complete"], "unwind.complete") as f64 / samples.max(1) as f64
    };
    let samples = as_u64(&json["samples"], "samples");
    let mut report = format!(
        "{label}: {samples} samples, {} lost; {:.2}% unwound to a thread root, {} truncated\n",
        as_u64(&json["lost_samples"], "lost_samples"),
        100.0 * rate(&json["unwind"], samples),
        as_u64(&json["unwind"]["truncated"], "unwind.truncated")
    );
    let mut compilers = Vec::new();
    for process in json["processes"].as_array().expect("processes is an array") {
        let process_samples = as_u64(&process["samples"], "process samples");
        let executable = process["executable"].as_str().unwrap_or("");
        let process_rate = rate(&process["unwind"], process_samples);
        let _ = writeln!(
            report,
            "  pid {:<8} {:<14} {process_samples:>6} samples {:>7.2}% unwound  {executable}",
            process["pid"].as_i64().unwrap_or(-1),
            process["name"].as_str().unwrap_or(""),
            100.0 * process_rate
        );
        if executable.ends_with("_mlir_libs/iree-compile") {
            compilers.push((process_samples, process_rate));
        }
    }
    eprintln!("{report}");
    // The compiler is the process that exec'd it. A child it forks (`sh`
    // for iree-lld) is a copy of it until its own exec, so it may show up
    // with a sample or two under the same executable: take the biggest.
    let (process_samples, process_rate) = compilers
        .into_iter()
        .max_by_key(|(samples, _)| *samples)
        .unwrap_or_else(|| panic!("{label}: no process exec'd _mlir_libs/iree-compile:\n{report}"));
    assert!(
        process_samples >= MIN_COMPILER_SAMPLES,
        "{label}: the compiler process has only {process_samples} samples:\n{report}"
    );
    assert!(
        process_rate >= MIN_COMPILER_UNWIND_RATE,
        "{label}: the compiler process unwound only {:.2}% of its stacks to a thread root (need {:.0}%):\n{report}",
        100.0 * process_rate,
        100.0 * MIN_COMPILER_UNWIND_RATE
    );
}

// ---------------------------------------------------------------- thread roots of -g stacks

/// The functions a thread starts in: the list compile-perf reads stacks by
/// (`perf script` names the outermost frame of a whole stack the same way).
const THREAD_ENTRY_FUNCTIONS: &str = include_str!("../../src/profile/thread_entries.txt");

pub(crate) fn is_thread_entry(name: &str) -> bool {
    let name = unversioned(name);
    THREAD_ENTRY_FUNCTIONS.lines().any(|entry| entry == name)
}

/// Per sample, the name `perf script --no-inline` gives its outermost frame.
pub(crate) fn perf_outermost_frames(data: &Path) -> Vec<String> {
    let output = run_ok(
        Command::new("perf")
            .args(["script", "--no-inline", "-F", "comm,tid,ip,sym", "-i"])
            .arg(data),
    );
    String::from_utf8_lossy(&output.stdout)
        .split("\n\n")
        .filter(|sample| !sample.trim().is_empty())
        .map(|sample| {
            // The header line (`comm tid`), then one `\tADDRESS SYMBOL` line
            // per frame; perf prints no frame for a few samples.
            let outermost = sample.lines().skip(1).last().unwrap_or_default().trim();
            let symbol = outermost.split_once(' ').map_or("", |(_, symbol)| symbol);
            symbol.trim().to_owned()
        })
        .collect()
}

/// Checks which stacks of a `-g` recording count as reaching a thread root:
/// exactly the samples whose outermost frame `perf script` names as a thread
/// entry function, and no `[truncated]` marker in `collapse` sits under such
/// a function. `json` is compile-perf's `top --format json` of `data`.
/// Returns the complete share of all samples.
pub(crate) fn check_frame_pointer_roots(data: &Path, json: &Value, label: &str) -> f64 {
    let perf_roots = perf_outermost_frames(data);
    let perf_complete = perf_roots
        .iter()
        .filter(|name| is_thread_entry(name))
        .count() as u64;
    let samples = as_u64(&json["samples"], "samples");
    let complete = as_u64(&json["unwind"]["complete"], "unwind.complete");
    let mut outermost: BTreeMap<&str, u64> = BTreeMap::new();
    for name in &perf_roots {
        *outermost.entry(name.as_str()).or_insert(0) += 1;
    }
    let mut common: Vec<_> = outermost.into_iter().collect();
    common.sort_by_key(|(name, count)| (std::cmp::Reverse(*count), *name));
    let share = 100.0 * complete as f64 / samples.max(1) as f64;
    eprintln!(
        "{label}: {complete} of {samples} samples ({share:.1}%) reach a thread entry function; \
         perf script: {perf_complete} of {}; its most common outermost frames: {:?}",
        perf_roots.len(),
        &common[..common.len().min(8)]
    );
    assert_eq!(
        perf_roots.len() as u64,
        samples,
        "{label}: perf script and compile-perf must see the same samples"
    );
    assert_eq!(
        complete, perf_complete,
        "{label}: compile-perf counts {complete} stacks as whole, perf script ends \
         {perf_complete} in a thread entry function"
    );

    let run = compile_perf(["collapse".as_ref(), data.as_os_str()]);
    run.expect_code(0, &format!("{label}: collapse"));
    for line in run.stdout.lines() {
        let mut frames = line.split(';').skip(1);
        if frames.next() == Some("[truncated]") {
            let root = frames.next().unwrap_or_default();
            assert!(
                !is_thread_entry(root),
                "{label}: a stack that starts at {root} is whole, yet marked truncated: {}",
                truncate(line, 300)
            );
        }
    }
    share
}
