//! Live: `compile-perf executables` on real iree-compile compiles. A model
//! of 25 dispatches (`many-dispatches --scale 0.25`) plus one executable
//! that is slow to compile (a chain of 120 transcendental functions, which
//! LLVM expands into a large function) is dumped and compiled executable
//! by executable, twice, each compiled once: the ranking, its JSON
//! contract, the flamegraphs, nested passes listed once, the slowest
//! executable across the two runs, and the executables' codegen against
//! the full compile's. Two jobs at a time rank every executable once, each
//! compiled three times (the default): its median, and the order tested
//! against noise. Executables alike but for their constants are named as
//! duplicates. A tiny timeout, a compile that dumps nothing, and a
//! missing compiler have their defined exit codes.

mod common;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;

use common::iree::{IREE_FLAGS, iree_live_prerequisites, live_lock, workload_at_scale};
use common::{Run, TempDir, compile_perf, iree_compile};
use serde_json::Value;

/// The name of the slow executable: `@slow`'s only dispatch.
const SLOW: &str = "slow_dispatch_0";
/// The executables' samples in `TranslateAllExecutablesPass` against the
/// full compile's, in percent: measured 72–123% here (see
/// docs/executables-and-sizes.md, "Codegen and serialization against the
/// full compile"). The noise it allows is the machine's: samples are CPU
/// time, and the same full compile of this test's model spent 1,010 to
/// 1,523 samples in the pass over ten runs (×1.51; none credited from
/// other threads), as the VM's speed drifts between one compile and the
/// next. The executables, compiled a minute later, meet another speed.
const TRANSLATE_SHARE_RANGE: std::ops::RangeInclusive<f64> = 50.0..=150.0;

/// Appends `@slow`, one elementwise dispatch with `ops` transcendental
/// functions chained, to the MLIR file `model`.
fn append_slow_function(model: &Path, ops: usize) {
    let functions = [
        "math.exp",
        "math.sin",
        "math.tanh",
        "math.log1p",
        "math.cos",
    ];
    let mut text = std::fs::read_to_string(model).expect("the workload was written");
    text.push_str(
        "func.func @slow(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {\n\
         \x20 %e = tensor.empty() : tensor<32x64xf32>\n\
         \x20 %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, \
         affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} \
         ins(%x : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {\n\
         \x20 ^bb0(%a: f32, %o: f32):\n",
    );
    let mut previous = "%a".to_owned();
    for index in 0..ops {
        let function = functions[index % functions.len()];
        text.push_str(&format!(
            "    %v{index} = {function} {previous} : f32\n    %w{index} = arith.addf %v{index}, %a : f32\n"
        ));
        previous = format!("%w{index}");
    }
    text.push_str(&format!(
        "    linalg.yield {previous} : f32\n  }} -> tensor<32x64xf32>\n  return %r : tensor<32x64xf32>\n}}\n"
    ));
    std::fs::write(model, text).expect("the model can be written");
}

/// `compile-perf executables OPTIONS -o DIR -- iree-compile FLAGS MODEL -o DIR.vmfb`.
fn executables(dir: &Path, options: &[&str], model: &Path, extra_flags: &[&str]) -> Run {
    let mut args: Vec<OsString> = vec!["executables".into()];
    args.extend(options.iter().map(OsString::from));
    args.extend(["-o".into(), dir.into(), "--".into(), iree_compile().into()]);
    args.extend(IREE_FLAGS.iter().chain(extra_flags).map(OsString::from));
    args.extend([model.into(), "-o".into(), dir.with_extension("vmfb").into()]);
    compile_perf(args)
}

fn ranking(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("executables.json"))
        .unwrap_or_else(|error| panic!("{}/executables.json: {error}", dir.display()));
    serde_json::from_str(&text).expect("executables.json is JSON")
}

fn number(value: &Value, key: &str) -> f64 {
    value[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {value}"))
}

/// Checks one executable's entry against the JSON contract and the run
/// directory: its fields and their types, its shares, its flamegraph.
fn check_entry(dir: &Path, entry: &Value) {
    let name = entry["name"].as_str().expect("name is a string");
    assert!(number(entry, "wall_seconds") > 0.0, "{entry}");
    assert!(
        entry["samples"].as_u64().is_some_and(|samples| samples > 0),
        "{entry}"
    );
    assert!(
        entry["peak_rss_bytes"]
            .as_u64()
            .is_some_and(|bytes| bytes > 1 << 20),
        "{entry}"
    );
    assert_eq!(entry["exit"]["code"], 0, "{entry}");
    assert!(entry["exit"]["signal"].is_null(), "{entry}");
    assert_eq!(entry["timed_out"], false, "{entry}");
    let categories = entry["top_categories"].as_array().expect("top_categories");
    assert!(!categories.is_empty(), "{entry}");
    let shares: Vec<f64> = categories
        .iter()
        .map(|c| number(c, "self_percent"))
        .collect();
    assert!(shares.windows(2).all(|pair| pair[0] >= pair[1]), "{entry}");
    assert!(shares.iter().sum::<f64>() <= 100.01, "{entry}");
    assert!(
        categories
            .iter()
            .all(|c| c["id"].as_str().is_some_and(|id| !id.is_empty()))
    );
    let passes = entry["top_passes"].as_array().expect("top_passes");
    let chains: Vec<Vec<&str>> = passes
        .iter()
        .map(|p| {
            let chain: Vec<&str> = p["passes"]
                .as_array()
                .expect("passes")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(p["name"].as_str(), Some(chain.join(" > ").as_str()), "{p}");
            chain
        })
        .collect();
    // Nested passes that do the same work are one entry: each pass once,
    // and serialization's two passes (the outer runs only the inner) as one.
    let mut seen = BTreeSet::new();
    assert!(
        chains.iter().flatten().all(|pass| seen.insert(*pass)),
        "a pass listed twice: {entry}"
    );
    assert!(
        chains.contains(&vec![
            "SerializeAllExecutablesPass",
            "SerializeTargetExecutablesPass"
        ]),
        "an executable's compile serializes its one target: {entry}"
    );
    assert!(
        passes
            .iter()
            .all(|p| (0.0..=100.0).contains(&number(p, "inclusive_percent")))
    );
    let entry_points: Vec<&str> = entry["entry_points"]
        .as_array()
        .expect("entry_points")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        !entry_points.is_empty() && entry_points.iter().all(|point| point.starts_with(name)),
        "{entry}"
    );
    let source = std::fs::read_to_string(dir.join(entry["source"].as_str().expect("source")))
        .expect("the dumped source is kept");
    assert!(
        source.contains(&format!("hal.executable public @{name} ")),
        "{name}"
    );
    for point in &entry_points {
        assert!(source.contains(&format!("hal.executable.export public @{point} ")));
    }
    let svg = std::fs::read_to_string(dir.join(entry["flamegraph"].as_str().expect("flamegraph")))
        .expect("the flamegraph is kept");
    assert!(
        svg.starts_with("<?xml") && svg.contains("<svg"),
        "{name}: not an SVG"
    );
    assert!(
        svg.contains("iree-compile"),
        "{name}: the compiler's frames are drawn"
    );
    let run_dir = dir.join(entry["run_dir"].as_str().expect("run_dir"));
    assert!(run_dir.join("perf.data").is_file() && run_dir.join("run.json").is_file());
}

#[test]
fn executables_are_ranked_with_flamegraphs_and_the_slowest_stays_the_slowest() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let scratch = TempDir::new("executables");
    let model = workload_at_scale(&scratch, "many-dispatches", "0.25");
    append_slow_function(&model, 120);

    let first = scratch.join("first");
    let run = executables(&first, &["--repeat", "1"], &model, &[]);
    run.expect_code(0, "executables");
    let json = ranking(&first);
    // Its dispatches differ in shapes or ops: none is a duplicate.
    assert_eq!(json["duplicates"], serde_json::json!([]), "{json}");
    assert_eq!(json["ranking"]["runs_each"], 1);
    assert_eq!(json["ranking"]["steps_tested"], 0);
    assert!(
        run.stdout
            .contains("order: the order is not tested against run-to-run noise"),
        "{}",
        run.stdout
    );
    let entries = json["executables"].as_array().expect("executables");
    let dumped = std::fs::read_dir(first.join("sources"))
        .expect("the sources are kept")
        .count();
    assert!(entries.len() >= 20, "{} executables", entries.len());
    assert_eq!(entries.len(), dumped, "every dumped executable is ranked");
    let names: BTreeSet<&str> = entries.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names.len(), entries.len(), "names are unique");
    assert!(names.contains(SLOW));
    for entry in entries {
        check_entry(&first, entry);
    }
    let walls: Vec<f64> = entries.iter().map(|e| number(e, "wall_seconds")).collect();
    assert!(
        walls.windows(2).all(|pair| pair[0] >= pair[1]),
        "slowest first: {walls:?}"
    );

    // The table lists the executables in the JSON's order, then the totals.
    let table_names: Vec<&str> = run
        .stdout
        .lines()
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    let json_names: Vec<&str> = entries.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(table_names, json_names, "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(first.join("executables.txt")).expect("executables.txt"),
        run.stdout
    );

    // The totals add up, and the executables' codegen is the full compile's
    // within the stated range.
    let totals = &json["totals"];
    let sum = |key: &str| entries.iter().filter_map(|e| e[key].as_u64()).sum::<u64>();
    assert_eq!(totals["samples"].as_u64(), Some(sum("samples")));
    assert_eq!(
        totals["translate_samples"].as_u64(),
        Some(sum("translate_samples"))
    );
    assert_eq!(totals["count"].as_u64(), Some(entries.len() as u64));
    let full = &json["full_compile"];
    assert_eq!(full["exit"]["code"], 0);
    let translate_share =
        number(totals, "translate_samples") * 100.0 / number(full, "translate_samples");
    eprintln!(
        "measured: executables' TranslateAllExecutablesPass samples {} of the full compile's {} ({translate_share:.0}%); serialization {} of {}; wall {:.1} s together, full compile {:.1} s",
        totals["translate_samples"],
        full["translate_samples"],
        totals["serialize_samples"],
        full["serialize_samples"],
        number(totals, "wall_seconds"),
        number(full, "wall_seconds"),
    );
    assert!(
        (number(totals, "translate_percent_of_full") - translate_share).abs() < 0.01,
        "{totals}"
    );
    assert!(
        TRANSLATE_SHARE_RANGE.contains(&translate_share),
        "the executables' codegen is {translate_share:.0}% of the full compile's"
    );

    // The slowest executable, when it stands out by 1.5×, is the slowest of
    // a second run too; and it is flagged as an outlier when above 5× the median.
    let second = scratch.join("second");
    executables(&second, &["--repeat", "1"], &model, &[]).expect_code(0, "executables, second run");
    let again = ranking(&second);
    let slowest = |json: &Value, rank: usize| -> (String, f64) {
        let entry = &json["executables"][rank];
        (
            entry["name"].as_str().unwrap_or_default().to_owned(),
            number(entry, "wall_seconds"),
        )
    };
    let ((first_name, first_wall), (_, runner_up)) = (slowest(&json, 0), slowest(&json, 1));
    let (second_name, second_wall) = slowest(&again, 0);
    eprintln!(
        "measured: slowest {first_name} {first_wall:.2} s ({:.1}× the second slowest, {:.1}× the median) then {second_name} {second_wall:.2} s",
        first_wall / runner_up,
        first_wall / number(totals, "median_wall_seconds")
    );
    assert_eq!(first_name, SLOW, "the slow executable is the slowest");
    assert!(
        first_wall >= 1.5 * runner_up,
        "{first_wall} s against {runner_up} s"
    );
    assert_eq!(
        second_name, first_name,
        "the slowest executable stays the slowest"
    );
    let flagged = |json: &Value| {
        json["outliers"]
            .as_array()
            .is_some_and(|outliers| outliers.iter().any(|outlier| outlier["name"] == SLOW))
    };
    let above_five = first_wall > 5.0 * number(totals, "median_wall_seconds");
    assert_eq!(flagged(&json), above_five, "{}", json["outliers"]);
}

/// `twin-dispatches` at its small scale: two identical dispatches, which
/// iree-compile merges into one executable, two alike but for their
/// constants, which it codegens one by one, and one of other ops.
/// `executables` names the two as one group, with the sum of their
/// compiles alone, and neither the merged executable nor the other.
#[test]
fn executables_alike_but_for_constants_are_named_as_duplicates() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let scratch = TempDir::new("executables-twins");
    let model = workload_at_scale(&scratch, "twin-dispatches", "small");
    let dir = scratch.join("run");
    executables(&dir, &["--repeat", "1"], &model, &[]).expect_code(0, "executables");
    let json = ranking(&dir);
    let entries = json["executables"].as_array().expect("executables");
    let (twins, others): (Vec<&Value>, Vec<&Value>) = entries.iter().partition(|entry| {
        let source = dir.join(entry["source"].as_str().expect("source"));
        std::fs::read_to_string(source)
            .expect("the dumped source is kept")
            .contains("arith.subf")
    });
    assert_eq!((twins.len(), others.len()), (2, 2), "{json}");
    let name = |entry: &&Value| entry["name"].as_str().expect("name").to_owned();
    let twin_names: BTreeSet<String> = twins.iter().map(name).collect();

    let duplicates = json["duplicates"].as_array().expect("duplicates");
    assert_eq!(duplicates.len(), 1, "{json}");
    let group = &duplicates[0];
    assert_eq!(group["likeness"], "but_for_constants");
    let members: BTreeSet<String> = group["executables"]
        .as_array()
        .expect("its executables")
        .iter()
        .map(|member| member.as_str().expect("a name").to_owned())
        .collect();
    assert_eq!(members, twin_names);
    for source in group["sources"].as_array().expect("its sources") {
        assert!(
            dir.join(source.as_str().expect("a path")).is_file(),
            "{source}"
        );
    }
    let walls: Vec<f64> = twins
        .iter()
        .map(|entry| number(entry, "wall_seconds"))
        .collect();
    let sum: f64 = walls.iter().sum();
    let slowest = walls.iter().copied().fold(0.0, f64::max);
    assert!(
        (number(group, "wall_seconds") - sum).abs() < 0.02,
        "{group} against {walls:?}"
    );
    assert!(
        (number(group, "repeated_wall_seconds") - (sum - slowest)).abs() < 0.02,
        "{group} against {walls:?}"
    );
    let text = std::fs::read_to_string(dir.join("executables.txt")).expect("executables.txt");
    assert!(
        text.contains("duplicated: 2 executables the same but for constants ("),
        "{text}"
    );
}

#[test]
fn an_executable_past_its_timeout_is_stopped_and_ranked_as_timed_out() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let scratch = TempDir::new("executables-timeout");
    let model = scratch.join("slow.mlir");
    std::fs::write(&model, "").expect("scratch file");
    append_slow_function(&model, 120);
    let dir = scratch.join("run");
    let run = executables(&dir, &["--timeout", "0.5"], &model, &[]);
    run.expect_code(41, "executables with a timeout shorter than the compile");
    let json = ranking(&dir);
    let entry = &json["executables"][0];
    assert_eq!(entry["name"], SLOW);
    assert_eq!(entry["timed_out"], true, "{entry}");
    assert!(entry["exit"]["code"].is_null(), "{entry}");
    assert_eq!(entry["exit"]["signal"], 15, "stopped with SIGTERM: {entry}");
    let wall = number(entry, "wall_seconds");
    assert!(wall >= 0.5, "stopped at the timeout, not before: {wall} s");
    assert_eq!(json["outliers"][0]["name"], SLOW);
    assert!(run.stdout.contains("timeout"), "{}", run.stdout);
    let notes = std::fs::read_to_string(
        dir.join(entry["run_dir"].as_str().unwrap_or_default())
            .join("run.json"),
    )
    .expect("the executable's run.json");
    assert!(notes.contains("stopped at the timeout of 0.5 s"), "{notes}");
}

#[test]
fn a_compile_that_dumps_no_executables_exits_40() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let scratch = TempDir::new("executables-none");
    let model = scratch.join("slow.mlir");
    std::fs::write(&model, "").expect("scratch file");
    append_slow_function(&model, 1);
    let dir = scratch.join("run");
    let run = executables(&dir, &[], &model, &["--compile-to=input"]);
    run.expect_code(40, "executables of a compile that stops before the HAL");
    assert!(
        run.stderr.contains("dumped no executables"),
        "{}",
        run.stderr
    );
    assert!(
        dir.join("run.json").is_file(),
        "the run directory says what happened"
    );
}

#[test]
fn a_missing_compiler_exits_24() {
    let scratch = TempDir::new("executables-missing");
    let dir = scratch.join("run");
    let run = compile_perf([
        "executables".as_ref(),
        "-o".as_ref(),
        dir.as_os_str(),
        "--".as_ref(),
        scratch.join("no-such-iree-compile").as_os_str(),
        "model.mlir".as_ref(),
    ]);
    run.expect_code(24, "executables with a compiler that is not there");
    assert!(run.stderr.contains("command not found"), "{}", run.stderr);
    assert!(!dir.exists(), "nothing is made before the checks pass");
}

#[test]
fn two_jobs_at_a_time_rank_every_executable_once_and_test_the_order_against_noise() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let scratch = TempDir::new("executables-jobs");
    let model = workload_at_scale(&scratch, "many-dispatches", "small");
    append_slow_function(&model, 120);
    let dir = scratch.join("run");
    let run = executables(&dir, &["--jobs", "2"], &model, &[]);
    run.expect_code(0, "executables --jobs 2");
    let json = ranking(&dir);
    assert_eq!(json["jobs"], 2);
    let entries = json["executables"].as_array().expect("executables");
    let mut names: Vec<&str> = entries.iter().filter_map(|e| e["name"].as_str()).collect();
    names.sort_unstable();
    let mut dumped: Vec<String> = std::fs::read_dir(dir.join("sources"))
        .expect("the sources are kept")
        .filter_map(|entry| entry.ok())
        .map(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .trim_start_matches("module_")
                .trim_end_matches(".mlir")
                .to_owned()
        })
        .collect();
    dumped.sort_unstable();
    assert_eq!(names, dumped, "each dumped executable is ranked once");
    for entry in entries {
        check_entry(&dir, entry);
        check_runs(&dir, entry);
    }

    // Three runs each by default: the order is tested step by step, and
    // says which steps are within noise.
    let order = &json["ranking"];
    eprintln!(
        "measured: {} of {} steps beyond noise; walls {}",
        order["steps_beyond_noise"],
        order["steps_tested"],
        entries
            .iter()
            .map(|e| format!("{}: {}", e["name"], e["wall_runs_seconds"]))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(order["runs_each"], 3);
    assert_eq!(
        order["steps_tested"].as_u64(),
        Some(entries.len() as u64 - 1)
    );
    let marks: Vec<&Value> = entries.iter().map(|e| &e["beyond_noise_of_next"]).collect();
    let beyond = marks.iter().filter(|mark| **mark == true).count();
    assert_eq!(order["steps_beyond_noise"].as_u64(), Some(beyond as u64));
    assert!(marks.last().is_some_and(|mark| mark.is_null()));
    // The slow executable (3–4 s against about 0.5 s) is first, beyond
    // noise; ten alike executables are not all apart.
    assert_eq!(entries[0]["name"], SLOW);
    assert_eq!(entries[0]["beyond_noise_of_next"], true, "{}", entries[0]);
    assert!(
        beyond < entries.len() - 1,
        "alike executables within noise of each other: {order}"
    );
    let statement = order["statement"].as_str().expect("statement");
    assert!(
        statement.starts_with(&format!(
            "{beyond} of {} steps of the order are beyond run-to-run noise",
            entries.len() - 1
        )),
        "{statement}"
    );
    assert!(
        run.stdout.contains(&format!("order: {statement}")),
        "{}",
        run.stdout
    );
    let slow_row = run
        .stdout
        .lines()
        .find(|line| line.starts_with(SLOW))
        .expect("the slow executable's row");
    assert!(slow_row.contains(" > "), "{slow_row}");
}

/// Checks an executable's three runs: their wall times, the median, and
/// their run directories.
fn check_runs(dir: &Path, entry: &Value) {
    let walls: Vec<f64> = entry["wall_runs_seconds"]
        .as_array()
        .expect("wall_runs_seconds")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(walls.len(), 3, "{entry}");
    let mut sorted = walls.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(
        number(entry, "wall_seconds"),
        sorted[1],
        "the median: {entry}"
    );
    let name = entry["name"].as_str().expect("name");
    for run in 1..=3 {
        let run_dir = dir
            .join("executables")
            .join(name)
            .join(format!("run-{run}"));
        let run_json = std::fs::read_to_string(run_dir.join("run.json")).expect("run.json");
        assert!(run_json.contains("\"finished\": true"), "{run_json}");
    }
    let shown = entry["run_dir"].as_str().expect("run_dir");
    assert!(
        shown.starts_with(&format!("executables/{name}/run-")),
        "{entry}"
    );
}
