//! Live: `record --heap`, the heap sampler preloaded into the program.
//! Accuracy on a C++ program of known phases (`tests/heap/phases.cpp`: a
//! 10 MB leak, 200 MB held, 2 GB churned and freed): each phase's live
//! bytes within 10%, the churn never blamed. Safety on a C++ stress program
//! (`tests/heap/stress.cpp`: 16 threads through every wrapped function,
//! a fork and an exec): the same output with the sampler as without. The
//! pass holding the most of a real iree-compile compile (const-eval) at its
//! peak, never IREE's pipeline adaptor in place of the pass it runs; on the
//! same runs, `timeline --heap` (its series at the instant read is
//! `heap_peak`'s), the HTML pages' heap section, and `diff --heap` of two
//! runs (and its refusal of a recording without heap data). And a library
//! that is not there stops `record` with exit 29. They need perf and g++
//! (and iree-compile); under `CI=true` these must run.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::iree::{iree_live_prerequisites, live_lock, record_args, workload};
use common::{TempDir, compile_perf, is_ci, live_prerequisites, run_ok};
use serde_json::Value;

/// The heap sampler library, next to the binary (`cargo build --release`
/// builds both); `None` (a skip) when it is not there, except under CI.
fn sampler() -> Option<PathBuf> {
    let library = common::bin().with_file_name("libheap_sampler.so");
    if library.is_file() {
        return Some(library);
    }
    let problem = format!(
        "{} is missing: `cargo build --release` (the workspace's default members) builds it",
        library.display()
    );
    assert!(!is_ci(), "{problem}");
    eprintln!("note: skipping live test: {problem}");
    None
}

/// Compiles `tests/heap/NAME.cpp` into `dir`.
fn program(dir: &TempDir, name: &str) -> PathBuf {
    let source = common::repo_root()
        .join("tests")
        .join("heap")
        .join(format!("{name}.cpp"));
    let program = dir.join(name);
    run_ok(
        Command::new("g++")
            .args(["-O1", "-g", "-pthread", "-o"])
            .arg(&program)
            .arg(source),
    );
    program
}

/// `report RUN --heap --format json ARGS`'s `heap_peak`.
fn heap_peak(run_dir: &Path, args: &[&str]) -> Value {
    let mut all = vec![
        "report".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let run = compile_perf(all);
    run.expect_code(0, "report --heap");
    run.json()["heap_peak"].clone()
}

/// `collapse RUN --heap ARGS`: the live bytes of the stacks through `frame`.
fn live_through(run_dir: &Path, args: &[&str], frame: &str) -> u64 {
    let mut all = vec![
        "collapse".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "-q".as_ref(),
    ];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let run = compile_perf(all);
    run.expect_code(0, "collapse --heap");
    run.stdout
        .lines()
        .filter(|line| line.split(';').any(|name| name.starts_with(frame)))
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<u64>().ok())
        .sum()
}

fn assert_within(what: &str, got: u64, expected: u64, tolerance: f64) {
    let error = (got as f64 - expected as f64).abs() / expected as f64;
    assert!(
        error <= tolerance,
        "{what}: {got} bytes against {expected} expected ({:.1}% off, at most {:.0}%)",
        error * 100.0,
        tolerance * 100.0
    );
}

/// The program's phases, in bytes (`tests/heap/phases.cpp`).
const LEAK: u64 = 10_000_000;
const HOLD: u64 = 200_000_000;

#[test]
fn each_phase_s_live_bytes_are_within_10_percent_and_the_churn_is_not_blamed() {
    let _live = live_lock();
    if !live_prerequisites(&["perf", "g++"]) {
        return;
    }
    let Some(_) = sampler() else { return };
    let dir = TempDir::new("heap-phases");
    let program = program(&dir, "phases");
    let run_dir = dir.join("run");
    // 32 KiB: pieces of 64 KiB and more are sampled with probability
    // ≥ 86%, the 4000-byte ones with 11.5% (about 6,000 samples in all):
    // the standard errors are about 2% of the leak and of the hold. The
    // program's stacks are shallow, and 8 KiB of each is copied: the
    // samples come in bursts, and at 16 KiB with 64 KiB stacks (11,000
    // samples, 700 MB in a fraction of a second) the kernel lost 13% of
    // them, allocations whose frees were then unmatched.
    let record = compile_perf(
        [
            "record",
            "-q",
            "--heap",
            "--heap-rate",
            "32768",
            "--stack-size",
            "8192",
            "-o",
        ]
        .map(std::ffi::OsString::from)
        .into_iter()
        .chain([
            run_dir.clone().into_os_string(),
            "--".into(),
            program.into(),
        ]),
    );
    record.expect_code(0, "record --heap");

    let run: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(
        run["lost_samples"].as_u64(),
        Some(0),
        "the kernel lost none of the allocation samples: {:?}",
        run["notes"]
    );
    let peak = heap_peak(&run_dir, &[]);
    assert_eq!(peak["instant"], "rss_peak", "{peak}");
    let live = peak["live_bytes"].as_u64().unwrap();
    assert_within(
        "live at the RSS peak (held + leaked)",
        live,
        HOLD + LEAK,
        0.10,
    );
    let error = peak["standard_error_bytes"].as_u64().unwrap();
    assert!(
        error > 0 && error < live / 20,
        "standard error {error} of {live}"
    );
    // The churn, after the hold, adds at most one 8 MB piece to the most.
    let most = peak["max_live_bytes"].as_u64().unwrap();
    assert_within("the most live heap", most, HOLD + LEAK, 0.10);
    let end = &peak["at_end"];
    assert_within(
        "live at the end (leaked)",
        end["live_bytes"].as_u64().unwrap(),
        LEAK,
        0.10,
    );
    // The RSS grew by the held and leaked pages.
    let ratio = peak["live_to_anon_growth"].as_f64().unwrap();
    assert!(
        (0.8..=1.2).contains(&ratio),
        "live heap / anonymous growth {ratio}"
    );

    assert_within(
        "hold_phase at the peak",
        live_through(&run_dir, &[], "hold_phase"),
        HOLD,
        0.10,
    );
    assert_within(
        "leak_phase at the peak",
        live_through(&run_dir, &[], "leak_phase"),
        LEAK,
        0.10,
    );
    assert_eq!(
        live_through(&run_dir, &[], "churn_phase"),
        0,
        "churn blamed at the peak"
    );
    let after = ["--at", "1000"];
    assert_within(
        "leak_phase at the end",
        live_through(&run_dir, &after, "leak_phase"),
        LEAK,
        0.10,
    );
    assert_eq!(
        live_through(&run_dir, &after, "hold_phase"),
        0,
        "hold live at the end"
    );
    assert_eq!(
        live_through(&run_dir, &after, "churn_phase"),
        0,
        "churn blamed at the end"
    );
}

#[test]
fn sixteen_threads_a_fork_and_an_exec_run_the_same_with_the_heap_sampler() {
    if !live_prerequisites(&["g++"]) {
        return;
    }
    let Some(library) = sampler() else { return };
    let dir = TempDir::new("heap-stress");
    let program = program(&dir, "stress");
    let plain = run_ok(&mut Command::new(&program));
    let expected = String::from_utf8_lossy(&plain.stdout).into_owned();
    assert!(expected.contains("thread 15 checksum"), "{expected}");
    assert!(expected.contains("forked child exit 0"), "{expected}");
    assert!(expected.contains("exec child ok"), "{expected}");
    assert!(!expected.contains("errors 1"), "{expected}");
    // The default rate, and one that samples almost every allocation (the
    // table of sampled pointers full of entries).
    for rate in ["524288", "256"] {
        let preloaded = run_ok(
            Command::new(&program)
                .env("LD_PRELOAD", &library)
                .env("COMPILE_PERF_HEAP_RATE", rate),
        );
        assert_eq!(
            String::from_utf8_lossy(&preloaded.stdout),
            expected,
            "with the heap sampler at rate {rate}"
        );
    }
}

#[test]
fn record_heap_without_the_library_exits_29_and_makes_no_run() {
    if !live_prerequisites(&["perf"]) {
        return;
    }
    let dir = TempDir::new("heap-missing");
    let run_dir = dir.join("run");
    let output = Command::new(common::bin())
        .env("COMPILE_PERF_HEAP_SAMPLER", dir.join("no-such-library.so"))
        .args(["record", "--heap", "-o"])
        .arg(&run_dir)
        .args(["--", "true"])
        .output()
        .expect("compile-perf runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(29), "{stderr}");
    assert!(
        stderr.contains("no-such-library.so, which is not a file"),
        "{stderr}"
    );
    assert!(!run_dir.exists(), "no run directory is made");
}

#[test]
fn the_pass_holding_the_most_at_the_const_eval_peak_is_named_and_every_heap_reading_agrees() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let Some(_) = sampler() else { return };
    let dir = TempDir::new("heap-const-eval");
    let input = workload(&dir, "const-eval");
    let run_dir = dir.join("run");
    let record = compile_perf(record_args(&run_dir, &["-q", "--heap"], &input, &[]));
    record.expect_code(0, "record --heap of const-eval");
    assert!(
        record.stderr.contains(" --heap\n"),
        "record names report --heap: {}",
        record.stderr
    );
    let peak = heap_peak(&run_dir, &["--compiler"]);
    eprintln!("heap_peak: {peak:#}");
    assert_eq!(peak["instant"], "rss_peak");
    let live = peak["live_bytes"].as_u64().unwrap();
    let pass = peak["pass"].as_str().unwrap_or_default();
    let held = peak["pass_live_bytes"].as_u64().unwrap();
    assert!(!pass.is_empty() && held > 0 && held <= live, "{peak}");
    // The passes' bytes add up to the whole.
    let by_pass: u64 = (peak["by_pass"].as_array().unwrap().iter())
        .map(|place| place["live_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(by_pass, live);
    // Megabytes, not kilobytes, and not more than the RSS.
    let rss = peak["rss_bytes"].as_u64().unwrap();
    assert!(live > 4 << 20 && live < rss, "live {live} of RSS {rss}");
    assert!(peak["live_to_anon_growth"].as_f64().is_some(), "{peak}");
    let text = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--compiler".as_ref(),
        "-q".as_ref(),
    ]);
    text.expect_code(0, "report --heap");
    assert!(
        text.stdout
            .contains(&format!("heap: held most by {pass}: ")),
        "{}",
        text.stdout
    );

    names_the_pass_inside_the_pipeline_adaptor(&run_dir, &peak);
    timeline_draws_the_live_heap_of_the_report(&dir, &run_dir, &peak);
    the_html_pages_have_the_heap_section(&dir, &run_dir, pass);
    diff_compares_the_live_heaps_and_refuses_a_run_without_one(&dir, &input, &run_dir);
}

/// The pattern sets that IREE's pipeline adaptor has its pipelines' passes
/// build (`OpPassManager::initialize` calling each pass's
/// `initialize(MLIRContext*)`, on the worker threads, and kept for the
/// compile) are named by that inner pass, not by the adaptor: each inner
/// pass holds at least the live bytes of its initialization's stacks, in
/// `heap_peak` and in `report --heap --by pass` alike. Read at the most
/// live heap, mid-compile (the RSS peak may come at the teardown, when
/// they are freed).
fn names_the_pass_inside_the_pipeline_adaptor(run_dir: &Path, peak: &Value) {
    let at = peak["max_seconds"].as_f64().unwrap().to_string();
    let folded = compile_perf([
        "collapse".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--compiler".as_ref(),
        "--at".as_ref(),
        at.as_ref(),
        "-q".as_ref(),
    ]);
    folded.expect_code(0, "collapse --heap");
    let mut initialized: HashMap<String, u64> = HashMap::new();
    for line in folded.stdout.lines() {
        let Some((stack, bytes)) = line.rsplit_once(' ') else {
            continue;
        };
        let frames: Vec<&str> = stack.split(';').collect();
        let Some(at) = frames
            .iter()
            .position(|frame| frame.starts_with("mlir::OpPassManager::initialize("))
        else {
            continue;
        };
        let Some(pass) = frames[at + 1..].iter().find_map(|frame| {
            let qualified = frame.strip_suffix("::initialize(mlir::MLIRContext*)")?;
            Some(format!("{} (initialize)", qualified.rsplit("::").next()?))
        }) else {
            continue;
        };
        // Under const-eval's JIT, the initialization is the JIT's.
        let jit =
            (frames[..at].iter()).any(|frame| frame.ends_with("JitGlobalsPass::runOnOperation()"));
        let pass = match jit {
            true => format!("JitGlobalsPass > {pass}"),
            false => pass,
        };
        *initialized.entry(pass).or_default() += bytes.parse::<u64>().unwrap();
    }
    // Canonicalization's pattern sets, a few MiB per pipeline clone.
    assert!(
        !initialized.is_empty(),
        "no pass initialization live at {at} s: {}",
        folded.stdout
    );
    let by_pass = |rows: &Value, name_key: &str, bytes_key: &str| -> HashMap<String, u64> {
        (rows.as_array().unwrap().iter())
            .filter_map(|row| Some((row[name_key].as_str()?.to_owned(), row[bytes_key].as_u64()?)))
            .collect()
    };
    let then = heap_peak(run_dir, &["--compiler", "--at", &at]);
    let heap_places = by_pass(&then["by_pass"], "pass", "live_bytes");
    let report = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--compiler".as_ref(),
        "--at".as_ref(),
        at.as_ref(),
        "--by".as_ref(),
        "pass".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ]);
    report.expect_code(0, "report --heap --by pass");
    let rows = by_pass(&report.json()["passes"], "name", "self_samples");
    // Tasks that initialize a pass on another thread while the main thread
    // is in const-eval's JIT are the JIT's, though no JIT frame is on their
    // stack: a pass and its JIT row are compared together.
    let together = |places: &HashMap<String, u64>, pass: &str| {
        let pass = pass.trim_start_matches("JitGlobalsPass > ");
        let get = |name: &str| places.get(name).copied().unwrap_or(0);
        get(pass) + get(&format!("JitGlobalsPass > {pass}"))
    };
    for pass in initialized.keys() {
        let bytes = &together(&initialized, pass);
        for (what, places) in [("heap_peak", &heap_places), ("report --by pass", &rows)] {
            let held = together(places, pass);
            assert!(
                held >= *bytes,
                "{what}: {pass} holds {held} bytes, its initialization {bytes}: {places:?}"
            );
        }
    }
}

/// `timeline --heap`: the JSON's live-heap series, whose point at the
/// instant read and whose mark are `heap_peak`'s live bytes; the SVG's line.
fn timeline_draws_the_live_heap_of_the_report(dir: &TempDir, run_dir: &Path, peak: &Value) {
    let json_path = dir.join("timeline.json");
    let timeline = compile_perf([
        "timeline".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--compiler".as_ref(),
        "-q".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-o".as_ref(),
        json_path.as_os_str(),
    ]);
    timeline.expect_code(0, "timeline --heap --format json");
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let heap = &document["heap"];
    let live = peak["live_bytes"].as_u64().unwrap();
    assert_eq!(
        heap["at"]["live_bytes"].as_u64(),
        Some(live),
        "{}",
        heap["at"]
    );
    assert_eq!(
        heap["at"]["standard_error_bytes"],
        peak["standard_error_bytes"]
    );
    assert_eq!(heap["pid"], peak["pid"]);
    let at = heap["at"]["seconds"].as_f64().unwrap();
    let points = heap["points"].as_array().unwrap();
    assert!(points.len() > 10, "{} points", points.len());
    // The series' value at the instant read. Times are rounded to the
    // millisecond, so it is the last point of an earlier millisecond or one
    // of the points of the instant's own.
    let at_seconds = |point: &Value| point[0].as_f64().unwrap();
    let before = (points.iter())
        .take_while(|point| at_seconds(point) < at - 0.0005)
        .last();
    let candidates: Vec<u64> = (before.into_iter())
        .chain(
            points
                .iter()
                .filter(|point| (at_seconds(point) - at).abs() < 0.0005),
        )
        .map(|point| point[1].as_u64().unwrap())
        .collect();
    assert!(
        candidates.contains(&live),
        "the series about {at} s: {candidates:?}, heap_peak: {live}"
    );
    assert_eq!(
        heap["max"]["live_bytes"].as_u64(),
        peak["max_live_bytes"].as_u64()
    );
    // The same time axis as the RSS line.
    assert!(
        document["rss"]["points"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    );

    let svg_path = dir.join("timeline.svg");
    let drawn = compile_perf([
        "timeline".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "-q".as_ref(),
        "-o".as_ref(),
        svg_path.as_os_str(),
    ]);
    drawn.expect_code(0, "timeline --heap");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    for mark in [
        r#"class="heap""#,
        r#"class="heap-error""#,
        r#"class="rss""#,
        "live heap (solid",
    ] {
        assert!(svg.contains(mark), "{mark} not in the timeline");
    }
}

/// `report --heap --format html` and record's own `report.html`: the live
/// heap section with the pass that holds the most.
fn the_html_pages_have_the_heap_section(dir: &TempDir, run_dir: &Path, pass: &str) {
    let page_path = dir.join("heap.html");
    let page = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--heap".as_ref(),
        "--compiler".as_ref(),
        "-q".as_ref(),
        "--format".as_ref(),
        "html".as_ref(),
        "-o".as_ref(),
        page_path.as_os_str(),
    ]);
    page.expect_code(0, "report --heap --format html");
    let recorded = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    for (what, html) in [
        (
            "report --heap --format html",
            std::fs::read_to_string(&page_path).unwrap(),
        ),
        ("record's report.html", recorded),
    ] {
        for part in [
            "<h2 id=\"heap\">Live heap</h2>",
            "href=\"#heap\"",
            "standard error of the sampling",
            "live until the exit",
            "live heap / RSS growth",
            "Live bytes by category",
            r#"class="heap""#,
        ] {
            assert!(html.contains(part), "{what}: {part} missing");
        }
        let held = format!("<th scope=\"row\">held most by</th><td>{pass}: ");
        assert!(html.contains(&held), "{what}: {held} missing");
    }
}

/// `diff --heap` of two runs: `heap_peak` with both sides, the change and
/// the test; of a recording without heap data: refused, exit 9.
fn diff_compares_the_live_heaps_and_refuses_a_run_without_one(
    dir: &TempDir,
    input: &Path,
    run_dir: &Path,
) {
    let again = dir.join("again");
    let record = compile_perf(record_args(&again, &["-q", "--heap"], input, &[]));
    record.expect_code(0, "record --heap of const-eval again");
    let base = heap_peak(run_dir, &[]);
    let new = heap_peak(&again, &[]);
    let diff = compile_perf([
        "diff".as_ref(),
        run_dir.as_os_str(),
        again.as_os_str(),
        "--heap".as_ref(),
        "--by".as_ref(),
        "pass".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ]);
    diff.expect_code(0, "diff --heap");
    let compared = diff.json()["heap_peak"].clone();
    eprintln!("diff heap_peak: {compared:#}");
    let (base_live, new_live) = (
        base["live_bytes"].as_i64().unwrap(),
        new["live_bytes"].as_i64().unwrap(),
    );
    assert_eq!(compared["base"]["live_bytes"].as_i64(), Some(base_live));
    assert_eq!(compared["new"]["live_bytes"].as_i64(), Some(new_live));
    assert_eq!(compared["delta_bytes"].as_i64(), Some(new_live - base_live));
    let (base_error, new_error) = (
        base["standard_error_bytes"].as_f64().unwrap(),
        new["standard_error_bytes"].as_f64().unwrap(),
    );
    let combined = base_error.hypot(new_error);
    assert!(
        (compared["standard_error_bytes"].as_f64().unwrap() - combined).abs() <= 1.0,
        "{compared}"
    );
    let z = (new_live - base_live) as f64 / combined;
    assert_eq!(
        compared["beyond_error"].as_bool(),
        Some(z.abs() > 1.96),
        "{compared}"
    );
    assert!(compared["test"].as_str().unwrap().contains("z test"));
    let passes: u64 = (compared["by_pass"].as_array().unwrap().iter())
        .map(|change| change["new_live_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(
        passes as i64, new_live,
        "by_pass adds up to new's live bytes"
    );

    let text = compile_perf([
        "diff".as_ref(),
        run_dir.as_os_str(),
        again.as_os_str(),
        "--heap".as_ref(),
        "-q".as_ref(),
    ]);
    text.expect_code(0, "diff --heap");
    assert!(text.stdout.contains("heap: change "), "{}", text.stdout);

    let without = compile_perf([
        "diff".as_ref(),
        run_dir.as_os_str(),
        common::fixture("fake-dwarf.perf.data").as_os_str(),
        "--heap".as_ref(),
        "-q".as_ref(),
    ]);
    without.expect_code(9, "diff --heap of a recording without heap data");
    assert!(
        without.stderr.contains("fake-dwarf.perf.data")
            && without
                .stderr
                .contains("the heap sampler's markers of `record --heap`"),
        "{}",
        without.stderr
    );
}
