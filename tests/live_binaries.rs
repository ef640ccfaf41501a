//! Live test of binaries that moved or changed: a small C++ program recorded
//! with `-g`, then moved (exit 10, `name+0x…` frames), found again with
//! `--symfs` (exit 0), and rebuilt with another build id (exit 11).
//!
//! It needs perf and g++ (see `tests/live.rs` for the live-test rules).

mod common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use common::iree::{live_lock, perf_record};
use common::perf_report::{ALL, our_self_counts, perf_report_self};
use common::symbol_tables::{build_id, hex};
use common::{TempDir, compile_perf, live_prerequisites, run_ok};
use serde_json::Value;

/// A program with two hot functions, for the moved-binary test.
const SPIN_SOURCE: &str = r#"
#include <cstdint>
#include <ctime>
namespace livetest {
__attribute__((noinline)) uint64_t spin_alpha(uint64_t n) {
  uint64_t x = n;
  for (uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}
__attribute__((noinline)) uint64_t spin_beta(uint64_t n) {
  uint64_t x = n;
  for (uint64_t i = 0; i < n; ++i) x ^= (x << 13) ^ (x >> 7) ^ i;
  return x;
}
}  // namespace livetest
volatile uint64_t sink;
int main() {
  // Half a second of CPU time: about 2000 samples at perf's default 4 kHz.
  const clock_t end = clock() + CLOCKS_PER_SEC / 2;
  while (clock() < end) {
    sink += livetest::spin_alpha(1000000);
    sink += livetest::spin_beta(1000000);
  }
  return 0;
}
"#;
const ALPHA: &str = "_ZN8livetest10spin_alphaEm";
const BETA: &str = "_ZN8livetest9spin_betaEm";
const OTHER_BUILD_ID: &str = "0123456789abcdef0123456789abcdef01234567";

fn build_spin(source: &Path, program: &Path, build_id_flag: &str) {
    run_ok(
        Command::new("g++")
            .args(["-O2", "-fomit-frame-pointer", build_id_flag, "-o"])
            .arg(program)
            .arg(source),
    );
}

/// Self counts of the entries of `dso` in `json`, by raw name.
fn self_counts_of(json: &Value, dso: &str) -> BTreeMap<String, u64> {
    our_self_counts(json)
        .into_iter()
        .filter(|((d, _), _)| d == dso)
        .map(|((_, symbol), samples)| (symbol, samples))
        .collect()
}

/// `compile-perf top DATA --format json [EXTRA...]` of every symbol.
fn top_json_run(data: &Path, extra: &[&Path]) -> common::Run {
    let mut args: Vec<OsString> = vec!["top".into(), data.into()];
    args.extend(["--format", "json", "-n", ALL].map(OsString::from));
    for dir in extra {
        args.push("--symfs".into());
        args.push(dir.into());
    }
    compile_perf(args)
}

/// All samples of `dso` are shown as `dso+0x…`, and their total is `total`.
fn assert_unresolved_only(json: &Value, dso: &str, total: u64, what: &str) {
    let counts = self_counts_of(json, dso);
    let named: Vec<_> = counts
        .keys()
        .filter(|symbol| !symbol.starts_with(&format!("{dso}+0x")))
        .collect();
    assert!(
        named.is_empty(),
        "{what}: frames of {dso} must show as {dso}+0x…, but some have names: {named:?}"
    );
    assert_eq!(
        counts.values().sum::<u64>(),
        total,
        "{what}: the samples of {dso} (as {dso}+0x…) must add up to perf's: {counts:?}"
    );
}

#[test]
fn moved_binary_and_build_id_mismatch() {
    let _live = live_lock();
    if !live_prerequisites(&["perf", "g++"]) {
        return;
    }
    let started = Instant::now();
    let dir = TempDir::new("live-moved");
    let build = dir.join("build");
    let moved = dir.join("moved");
    std::fs::create_dir_all(&build).unwrap();
    std::fs::create_dir_all(&moved).unwrap();
    let source = build.join("spin.cpp");
    std::fs::write(&source, SPIN_SOURCE).unwrap();
    let program = build.join("spin");
    build_spin(&source, &program, "-Wl,--build-id");
    let recorded_id = hex(&build_id(&program).expect("g++ -Wl,--build-id writes a build id"));
    let data = dir.join("spin.perf.data");
    perf_record(&data, &["-g"], &[program.clone().into_os_string()]);

    // What perf says while the binary is in place is what we must say once it is found.
    let perf: BTreeMap<String, u64> = perf_report_self(&data)
        .unwrap_or_else(|error| panic!("{error}"))
        .into_iter()
        .filter(|((dso, _), _)| dso == "spin")
        .map(|((_, symbol), samples)| (symbol, samples))
        .collect();
    let perf_total: u64 = perf.values().sum();
    for hot in [ALPHA, BETA] {
        assert!(
            perf.get(hot).copied().unwrap_or(0) >= 100,
            "the program should spend its time in {hot}; perf report says {perf:?}"
        );
    }
    let program_shown = program.display().to_string();

    // (a) The binary moved away: exit 10, a warning that names the recorded
    // path, and its frames as spin+0x….
    std::fs::rename(&program, moved.join("spin")).unwrap();
    let run = top_json_run(&data, &[]);
    run.expect_code(10, "binary moved away");
    assert!(
        run.stderr.contains("warning") && run.stderr.contains(&program_shown),
        "a moved binary needs a warning naming {program_shown}:\n{}",
        run.stderr
    );
    assert_unresolved_only(&run.json(), "spin", perf_total, "binary moved away");

    // (b) --symfs where it now lives: found by build id, exit 0, perf's counts.
    let found = |what: &str| {
        let run = top_json_run(&data, &[moved.as_path()]);
        run.expect_code(0, what);
        // (A warning about samples the kernel lost may appear; none about the binary.)
        assert!(
            !run.stderr
                .lines()
                .any(|line| line.contains("warning") && line.contains("spin")),
            "{what}: no warning about the binary expected:\n{}",
            run.stderr
        );
        let json = run.json();
        assert_eq!(
            self_counts_of(&json, "spin"),
            perf,
            "{what}: self counts of spin differ from perf report's"
        );
        let names: Vec<&str> = json["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|entry| entry["symbol"].as_str())
            .collect();
        for name in [
            "livetest::spin_alpha(unsigned long)",
            "livetest::spin_beta(unsigned long)",
        ] {
            assert!(
                names.contains(&name),
                "{what}: {name} missing from {names:?}"
            );
        }
    };
    found("--symfs to the moved binary");

    // (c) Another build at the recorded path: exit 11, a warning with the file
    // and both build ids, and its symbols not used.
    build_spin(
        &source,
        &program,
        &format!("-Wl,--build-id=0x{OTHER_BUILD_ID}"),
    );
    let run = top_json_run(&data, &[]);
    run.expect_code(11, "another build at the recorded path");
    for needle in [program_shown.as_str(), OTHER_BUILD_ID, recorded_id.as_str()] {
        assert!(
            run.stderr.contains(needle),
            "a build-id mismatch warning must name {needle}:\n{}",
            run.stderr
        );
    }
    assert_unresolved_only(
        &run.json(),
        "spin",
        perf_total,
        "another build at the recorded path",
    );

    // (b again) --symfs still wins over the wrong build at the recorded path.
    found("--symfs to the moved binary, another build at the recorded path");
    eprintln!("took {:.1} s", started.elapsed().as_secs_f64());
}
