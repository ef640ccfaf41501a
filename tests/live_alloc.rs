//! Live: `record --alloc` on a real iree-compile compile of `hex-constants`,
//! whose 128 MiB of constants are allocated while the input is parsed: the
//! bytes asked for come out under the parser, the probes are gone after,
//! and `flamegraph --alloc` counts bytes. Under `CI=true` these must run.

mod common;

use common::iree::{iree_live_prerequisites, live_lock, record_args, workload_at_scale};
use common::{TempDir, compile_perf};
use serde_json::Value;

/// `report RUN --alloc --compiler --format json ARGS`.
fn alloc_report(run_dir: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec![
        "report".as_ref(),
        run_dir.as_os_str(),
        "--alloc".as_ref(),
        "--compiler".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let run = compile_perf(all);
    run.expect_code(0, "report --alloc");
    run.json()
}

fn inclusive(rows: &Value, key: &str, name: &str) -> f64 {
    rows.as_array()
        .unwrap()
        .iter()
        .find(|row| row[key] == name)
        .and_then(|row| row["inclusive_percent"].as_f64())
        .unwrap_or(0.0)
}

#[test]
fn the_parser_asks_for_most_bytes_of_hex_constants() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("alloc");
    // 128 MiB of hex constants: the full scale, which the issue describes.
    let input = workload_at_scale(&dir, "hex-constants", "1");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &["--alloc"], &input, &[])).expect_code(0, "record --alloc");

    let probes = std::process::Command::new("perf")
        .args(["probe", "-l"])
        .output()
        .expect("perf probe runs");
    let listed = String::from_utf8_lossy(&probes.stdout);
    assert!(
        !listed.contains("probe_libc:malloc"),
        "record --alloc removed its probes: {listed}"
    );

    let by_category = alloc_report(&run_dir, &[]);
    assert_eq!(
        by_category["attribution"], "caller",
        "--alloc charges callers"
    );
    let bytes = by_category["samples"].as_u64().unwrap();
    // Every call asking for at least 4 KiB: the constants alone are 128 MiB.
    assert!(bytes > 128 << 20, "{bytes} bytes asked for");
    let categories = &by_category["categories"];
    let parser = inclusive(categories, "id", "parser");
    assert!(
        parser >= 40.0,
        "the parser asked for {parser}% of the bytes"
    );
    // Every stack ends in the allocator (malloc/free: 100%); the uniquer
    // that stores the parsed constants runs under the parser, so its share
    // includes the parser's. Every other category asks for less.
    for category in categories.as_array().unwrap() {
        let id = category["id"].as_str().unwrap();
        if ["parser", "malloc", "uniquing"].contains(&id) {
            continue;
        }
        let share = category["inclusive_percent"].as_f64().unwrap();
        assert!(
            share < parser,
            "{id} asked for {share}% of the bytes, the parser {parser}%"
        );
    }

    // The top functions of each category are the ones that asked, not the
    // allocator or a container growing for its owner. (What stays in the
    // allocator's and the containers' own rows had no other code on its
    // stack to charge.)
    for category in categories.as_array().unwrap() {
        let id = category["id"].as_str().unwrap();
        if ["malloc", "adt"].contains(&id) {
            continue;
        }
        for top in category["top_symbols"].as_array().unwrap() {
            let symbol = top["symbol"].as_str().unwrap();
            assert!(
                !["malloc", "operator new", "_int_malloc", "realloc", "calloc"]
                    .iter()
                    .any(|allocator| symbol.starts_with(allocator))
                    && !symbol.contains("::grow("),
                "{id}'s top function is plumbing: {symbol}"
            );
        }
    }

    let by_pass = alloc_report(&run_dir, &["--by", "pass"]);
    let rows = &by_pass["rows"];
    let parsing = inclusive(rows, "key", "(parsing the input)");
    let (largest_key, largest) = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["key"].clone(),
                row["inclusive_percent"].as_f64().unwrap(),
            )
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert_eq!(
        largest_key, "(parsing the input)",
        "the largest requester is {largest_key} ({largest}%), parsing has {parsing}%"
    );

    let svg = dir.join("alloc.svg");
    compile_perf([
        "flamegraph".as_ref(),
        run_dir.as_os_str(),
        "--alloc".as_ref(),
        "-o".as_ref(),
        svg.as_os_str(),
        "-q".as_ref(),
    ])
    .expect_code(0, "flamegraph --alloc");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains(" bytes, "), "the flamegraph counts bytes");
}

#[test]
fn report_alloc_of_a_recording_without_probes_names_its_events() {
    let recording = common::fixture("fake-dwarf.perf.data");
    let run = compile_perf(["report".as_ref(), recording.as_os_str(), "--alloc".as_ref()]);
    run.expect_code(9, "report --alloc without probes");
}

#[test]
fn record_alloc_without_the_right_to_add_probes_exits_27_and_makes_no_run() {
    if !common::live_prerequisites(&["perf", "setpriv"]) {
        return;
    }
    let dir = TempDir::new("alloc-refused");
    let run_dir = dir.join("run");
    let uid = std::process::Command::new("id")
        .arg("-u")
        .output()
        .expect("id runs");
    let mut command = std::process::Command::new(if uid.stdout.trim_ascii() == b"0" {
        "setpriv"
    } else {
        "env"
    });
    // As root, run as nobody, who may not write tracefs; any other user
    // cannot add uprobes either.
    if uid.stdout.trim_ascii() == b"0" {
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
    }
    let output = command
        .arg(common::bin())
        .args(["record", "--alloc", "-o"])
        .arg(&run_dir)
        .args(["--", "true"])
        .output()
        .expect("compile-perf runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(27), "{stderr}");
    assert!(
        stderr.contains("could not add the uprobe `malloc size=%di:u64`"),
        "{stderr}"
    );
    assert!(!run_dir.exists(), "no run directory is made");
}
