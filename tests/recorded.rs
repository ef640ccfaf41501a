//! Tests on the committed recordings of `fakecompiler` (see fixtures/README.md):
//! exact self counts against `perf report`, exact stacks, thread names, inline
//! frames from the separate debug file, pipe mode and multi-event files.
//! They need neither perf nor iree-compile.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

use common::{bin, fixture, repo_root};
use serde_json::Value;

const FAKE_DIR: &str = "tests/fixtures/fakecompiler";

/// Runs compile-perf with `--symfs` at the fixture binary, so the tests pass
/// wherever the checkout lives.
fn compile_perf(args: &[&str]) -> Output {
    let symfs = repo_root().join(FAKE_DIR);
    Command::new(bin())
        .args(args)
        .arg("--symfs")
        .arg(symfs)
        .output()
        .expect("compile-perf runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Accepts success, or a build-id warning about system libraries only: the
/// fixtures were recorded on Debian 12; another libc would differ.
fn assert_usable(output: &Output) {
    let code = output.status.code();
    let err = stderr(output);
    assert!(
        code == Some(0) || (code == Some(11) && !err.contains("fakecompiler has build id")),
        "unexpected exit {code:?}: {err}"
    );
}

fn top_json(recording: &str, extra: &[&str]) -> Value {
    let path = fixture(recording);
    let mut args = vec![
        "top",
        path.to_str().unwrap(),
        "--format",
        "json",
        "-n",
        "1000",
    ];
    args.extend_from_slice(extra);
    let output = compile_perf(&args);
    assert_usable(&output);
    serde_json::from_slice(&output.stdout).expect("top prints JSON")
}

/// `(dso, symbol) -> self samples` of the first event in an
/// `expected/*.perf-report-mangled.txt`.
fn perf_report_counts(recording: &str) -> HashMap<(String, String), u64> {
    let name = recording.trim_end_matches(".perf.data");
    let text =
        std::fs::read_to_string(fixture(&format!("expected/{name}.perf-report-mangled.txt")))
            .expect("expected report exists");
    let mut counts = HashMap::new();
    let mut events_seen = 0;
    for line in text.lines() {
        if line.starts_with("# Samples:") {
            events_seen += 1;
        }
        if events_seen > 1 {
            break;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split_whitespace();
        let count: u64 = fields.next().unwrap().parse().unwrap();
        let dso = fields.next().unwrap().to_owned();
        let _mode = fields.next();
        let symbol = fields.collect::<Vec<_>>().join(" ");
        counts.insert((dso, symbol), count);
    }
    counts
}

/// Self samples per (dso, raw name) from `top --format json`.
fn our_counts(top: &Value) -> HashMap<(String, String), u64> {
    top["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["self_samples"].as_u64().unwrap() > 0)
        .map(|entry| {
            let raw = entry["mangled"]
                .as_str()
                .or(entry["symbol"].as_str())
                .unwrap();
            (
                (entry["dso"].as_str().unwrap().to_owned(), raw.to_owned()),
                entry["self_samples"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn assert_self_counts_match_perf(recording: &str, extra: &[&str]) {
    let expected = perf_report_counts(recording);
    let ours = our_counts(&top_json(recording, extra));
    for ((dso, symbol), count) in &expected {
        if dso != "fakecompiler" {
            continue;
        }
        assert_eq!(
            ours.get(&(dso.clone(), symbol.clone())),
            Some(count),
            "{recording}: self samples of {symbol}"
        );
    }
    // Kernel names depend on the machine's kernel; the totals do not.
    let total = |counts: &HashMap<(String, String), u64>, dso: &str| -> u64 {
        counts
            .iter()
            .filter(|((d, _), _)| d == dso)
            .map(|(_, n)| n)
            .sum()
    };
    assert_eq!(
        total(&ours, "[kernel.kallsyms]"),
        total(&expected, "[kernel.kallsyms]"),
        "{recording}: kernel self samples"
    );
}

#[test]
fn self_counts_equal_perf_report_for_every_recording() {
    assert_self_counts_match_perf("fake-dwarf.perf.data", &[]);
    assert_self_counts_match_perf("fake-fp.perf.data", &[]);
    assert_self_counts_match_perf("fake-pipe.perf.data", &[]);
    assert_self_counts_match_perf("fake-multi-event.perf.data", &["--event", "cpu-clock"]);
    assert_self_counts_match_perf("fake-dwarf-buildid-mmap.perf.data", &[]);
}

#[test]
fn top_json_follows_the_contract() {
    let top = top_json("fake-dwarf.perf.data", &[]);
    assert_eq!(top["samples"], 518);
    assert_eq!(top["event"], "cpu-clock");
    assert_eq!(top["unwind"]["complete"], 517);
    assert_eq!(top["unwind"]["truncated"], 1);
    assert_eq!(top["lost_samples"], 0);
    let first = &top["entries"][0];
    assert_eq!(
        first["symbol"],
        "llvm::detail::IEEEFloat::multiply(llvm::detail::IEEEFloat const&, llvm::RoundingMode, unsigned long)"
    );
    assert_eq!(first["dso"], "fakecompiler");
    assert_eq!(first["self_samples"], 153);
    assert_eq!(first["self_percent"], 29.54);
    let lex = top["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["symbol"] == "mlir::Lexer::lexString(char const*)")
        .unwrap();
    assert_eq!(
        (
            lex["self_samples"].as_u64(),
            lex["inclusive_samples"].as_u64()
        ),
        (Some(128), Some(209))
    );
    let process = &top["processes"][0];
    assert_eq!(process["name"], "fakecompiler");
    assert!(
        process["executable"]
            .as_str()
            .unwrap()
            .ends_with("/fakecompiler")
    );
}

/// Folded lines of a recording, summed by the part after `from` (a frame
/// sequence that every line of interest contains), keyed by thread name.
fn folded_by_suffix(recording: &str, from: &str) -> HashMap<(String, String), u64> {
    let path = fixture(recording);
    let output = compile_perf(&["collapse", path.to_str().unwrap()]);
    assert_usable(&output);
    let mut sums = HashMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let (stack, count) = line.rsplit_once(' ').expect("folded line ends in a count");
        let count: u64 = count.parse().expect("count is a number");
        let thread = stack.split(';').next().unwrap().to_owned();
        if let Some(at) = stack.find(from) {
            *sums.entry((thread, stack[at..].to_owned())).or_insert(0) += count;
        }
    }
    sums
}

#[test]
fn stacks_are_whole_from_the_thread_root_to_the_leaf() {
    let pass = ";main;mlir::PassManager::run(mlir::Operation*);mlir::detail::OpToOpPassAdaptor::run(mlir::Pass*, mlir::Operation*);";
    let main = folded_by_suffix("fake-dwarf.perf.data", ";main;");
    let at = |leaf: &str| {
        main.get(&("fakecompiler".to_owned(), format!("{pass}{leaf}")))
            .copied()
    };
    assert_eq!(at("mlir::Lexer::lexString(char const*)"), Some(128));
    assert_eq!(
        at(
            "mlir::Lexer::lexString(char const*);mlir::Token::getHexStringValue() const;llvm::hexDigitValue(char, unsigned long, unsigned long)"
        ),
        Some(52),
        "the inlined hexDigitValue comes from DWARF in fakecompiler.debug"
    );
    assert_eq!(
        at(
            "mlir::bufferization::OneShotAnalysisState::analyzeSingleOp(mlir::Operation*, mlir::DominanceInfo const&)"
        ),
        Some(52)
    );

    let worker = folded_by_suffix("fake-dwarf.perf.data", "llvm::StdThreadPool::processTasks");
    let pool = "llvm::StdThreadPool::processTasks(llvm::ThreadPoolTaskGroup*, mlir::Operation*);mlir::detail::OpToOpPassAdaptor::run(mlir::Pass*, mlir::Operation*);";
    let at = |leaf: &str| {
        worker
            .get(&("llvm-worker-0".to_owned(), format!("{pool}{leaf}")))
            .copied()
    };
    assert_eq!(
        at(
            "llvm::detail::IEEEFloat::multiply(llvm::detail::IEEEFloat const&, llvm::RoundingMode, unsigned long)"
        ),
        Some(153)
    );
    assert_eq!(
        at(
            "mlir::FoldConstantBase<mlir::arith::ConstantOp>::matchAndRewrite(mlir::arith::ConstantOp, mlir::PatternRewriter&) const"
        ),
        Some(103)
    );
}

#[test]
fn threads_are_named_and_rooted() {
    let path = fixture("fake-dwarf.perf.data");
    let output = compile_perf(&["collapse", path.to_str().unwrap()]);
    let text = String::from_utf8(output.stdout).unwrap();
    let mut per_root: HashMap<String, u64> = HashMap::new();
    for line in text.lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        let root: Vec<&str> = stack.splitn(3, ';').take(2).collect();
        *per_root.entry(root.join(";")).or_insert(0) += count.parse::<u64>().unwrap();
    }
    assert_eq!(per_root.get("fakecompiler;_start"), Some(&261));
    assert_eq!(per_root.get("llvm-worker-0;clone3"), Some(&256));
    assert_eq!(per_root.get("fakecompiler;[truncated]"), Some(&1));
}

#[test]
fn folded_lines_are_unique_and_sorted_frame_by_frame() {
    for recording in ["fake-dwarf.perf.data", "fake-fp.perf.data"] {
        let path = fixture(recording);
        let output = compile_perf(&["collapse", path.to_str().unwrap()]);
        assert_usable(&output);
        let text = String::from_utf8(output.stdout).unwrap();
        let stacks: Vec<Vec<&str>> = text
            .lines()
            .map(|line| line.rsplit_once(' ').unwrap().0.split(';').collect())
            .collect();
        assert!(stacks.len() >= 5, "{recording}: {} lines", stacks.len());
        for pair in stacks.windows(2) {
            assert!(
                pair[0] < pair[1],
                "{recording}: {:?} before {:?}",
                pair[0],
                pair[1]
            );
        }
    }
}

#[test]
fn frame_pointer_stacks_of_code_without_frame_pointers_are_marked_truncated() {
    // fakecompiler has no frame pointers: its `-g` callchains are the leaf
    // and garbage, and none ends in a thread entry function (the README of
    // the fixtures lists them), so none may count as whole.
    let top = top_json("fake-fp.perf.data", &[]);
    assert_eq!(top["samples"], 248);
    assert_eq!(top["unwind"]["complete"], 0);
    assert_eq!(top["unwind"]["truncated"], 248);
}

#[test]
fn pipe_mode_is_read_from_a_file_and_from_stdin() {
    let top = top_json("fake-pipe.perf.data", &[]);
    assert_eq!(top["samples"], 837);
    let symfs = repo_root().join(FAKE_DIR);
    let stdin = std::fs::File::open(fixture("fake-pipe.perf.data")).unwrap();
    let output = Command::new(bin())
        .args(["top", "-", "--format", "json", "-n", "1000", "--symfs"])
        .arg(symfs)
        .stdin(stdin)
        .output()
        .unwrap();
    assert_usable(&output);
    let from_stdin: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(from_stdin["entries"], top["entries"]);
}

#[test]
fn events_are_chosen_by_name_and_the_first_sampling_one_by_default() {
    let default = top_json("fake-multi-event.perf.data", &[]);
    assert_eq!(
        (default["event"].as_str(), default["samples"].as_u64()),
        (Some("cpu-clock"), Some(830))
    );
    let faults = top_json("fake-multi-event.perf.data", &["--event", "page-faults"]);
    assert_eq!(faults["samples"], 9);

    let path = fixture("fake-multi-event.perf.data");
    let output = compile_perf(&["top", path.to_str().unwrap(), "--event", "cycles"]);
    assert_eq!(output.status.code(), Some(9));
    let err = stderr(&output);
    assert!(
        err.contains("cpu-clock") && err.contains("page-faults"),
        "{err}"
    );
}

#[test]
fn build_ids_in_mmap_records_are_checked() {
    // The symfs copy matches the build id stored in the MMAP2 records.
    let top = top_json("fake-dwarf-buildid-mmap.perf.data", &[]);
    assert_eq!(top["entries"][0]["dso"], "fakecompiler");
    assert_eq!(top["entries"][0]["self_samples"], 158);
}

#[test]
fn separate_debug_files_are_found_by_build_id() {
    let scratch = std::env::temp_dir().join(format!("compile-perf-debug-{}", std::process::id()));
    let binary_dir = scratch.join("bin");
    let debug_root = scratch.join("debug");
    let build_id_dir = debug_root.join(".build-id/02");
    std::fs::create_dir_all(&binary_dir).unwrap();
    std::fs::create_dir_all(&build_id_dir).unwrap();
    let fake = repo_root().join(FAKE_DIR);
    std::fs::copy(fake.join("fakecompiler"), binary_dir.join("fakecompiler")).unwrap();
    std::fs::copy(
        fake.join("fakecompiler.debug"),
        build_id_dir.join("e6e725c17e855c8b1ca7d7bd33d725ce3d711f.debug"),
    )
    .unwrap();

    let inlined_samples = |debug_dir: &Path| -> u64 {
        let output = Command::new(bin())
            .args(["top", "--format", "json", "-n", "1000", "-q"])
            .arg(fixture("fake-dwarf-buildid-mmap.perf.data"))
            .arg("--symfs")
            .arg(&binary_dir)
            .arg("--debug-dir")
            .arg(debug_root.join(debug_dir))
            .output()
            .unwrap();
        assert_usable(&output);
        let top: Value = serde_json::from_slice(&output.stdout).unwrap();
        top["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| {
                entry["symbol"] == "llvm::hexDigitValue(char, unsigned long, unsigned long)"
            })
            .map_or(0, |entry| entry["inclusive_samples"].as_u64().unwrap())
    };
    assert_eq!(
        inlined_samples(Path::new("")),
        54,
        "found through .build-id/02/….debug"
    );
    assert_eq!(
        inlined_samples(Path::new("elsewhere")),
        0,
        "no debug file, no inline frames"
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}
