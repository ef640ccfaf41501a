//! Live, on a real model: the recording's own instrumentation is not the
//! compile's. A BertForMaskedLM with bert-base's vocabulary and width and
//! two layers (`scripts/models.sh bert-mlm-2l`) recorded with `record
//! --actions` spends about a tenth of its samples in MLIR's action profiler
//! writing its events (mostly the kernel's writes under
//! `ActionProfiler::print`). Those samples are set aside from every share
//! and table, counted by kind in the report's header, its JSON and
//! `run.json`; `--with-instrumentation` counts them in the category
//! Instrumentation instead, and then every sample is in a row again. The
//! archive writer's checksum is a hot spot, not papercuts.
//! Recorded with `--heap`, the heap sampler's hooks are set aside alike,
//! and `report --heap` counts its seconds on the clock of `report`'s
//! memory line, with no memory line of its own (allocations are too
//! sparse to place the RSS peak). Under `CI=true` these must run.

mod common;

use common::iree::{iree_live_prerequisites, live_lock, real_model, record_args, report_json};
use common::{TempDir, compile_perf, is_ci};
use serde_json::Value;

/// The self samples of the entry of `list` (`rows`, or `categories` by
/// their `id`) whose `field` is `key`; 0 when there is none.
fn self_samples(json: &Value, list: &str, field: &str, key: &str) -> u64 {
    (json[list].as_array().expect(list).iter())
        .find(|row| row[field] == key)
        .map_or(0, |row| row["self_samples"].as_u64().unwrap())
}

/// The sum of the self samples of every entry of `list`.
fn total(json: &Value, list: &str) -> u64 {
    (json[list].as_array().expect(list).iter())
        .map(|row| row["self_samples"].as_u64().unwrap())
        .sum()
}

#[test]
fn the_action_profilers_writing_is_set_aside_with_its_cost_stated_on_bert() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let Some(model) = real_model("bert-mlm-2l") else {
        return;
    };
    let dir = TempDir::new("instrumentation");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &["-q", "--actions"], &model, &[]))
        .expect_code(0, "record --actions of bert-mlm-2l");

    // run.json states the cost, by kind.
    let run: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("run.json")).unwrap()).unwrap();
    let cost = &run["instrumentation"];
    let profiler = (cost["kinds"].as_array().expect("kinds").iter())
        .find(|kind| kind["kind"] == "action-profiler")
        .unwrap_or_else(|| panic!("the action profiler's samples: {cost:#}"));
    let set_aside = cost["samples"].as_u64().unwrap();
    println!(
        "bert-mlm-2l --actions: {set_aside} samples of instrumentation ({}% of the recording's, \
         {} CPU s), {} of them the action profiler's",
        cost["percent_of_samples"], cost["cpu_seconds"], profiler["samples"]
    );
    assert_eq!(cost["counted"], false);
    // On 2026-12-07 the action profiler was 513 of 5,216 samples (9.8%).
    assert!(
        cost["percent_of_samples"].as_f64().unwrap() >= 2.0,
        "the action profiler's writing is a visible part of the recording: {cost:#}"
    );

    // The report leaves them out of every row and says so.
    let by_category = report_json(&run_dir, &[]);
    assert_eq!(by_category["instrumentation"], *cost);
    let category = |json: &Value| self_samples(json, "categories", "id", "instrumentation");
    assert_eq!(category(&by_category), 0);
    let samples = by_category["samples"].as_u64().unwrap();
    assert_eq!(total(&by_category, "categories"), samples);
    let text = compile_perf(["report".as_ref(), run_dir.as_os_str(), "-q".as_ref()]);
    text.expect_code(0, "report");
    assert!(
        text.stdout.contains(&format!(
            "instrumentation: {set_aside} samples ({:.1}% of the recording's",
            cost["percent_of_samples"].as_f64().unwrap()
        )) && text
            .stdout
            .contains("MLIR's action profiler writing its events (--actions)"),
        "{}",
        text.stdout
    );

    // The archive writer's checksum over the weights is one hot spot of
    // Hashing, outside every pass, not papercuts spread over passes
    // (2026-12-07: llvm::crc32 337 of 407 Hashing samples).
    let findings = by_category["findings"].as_array().expect("findings");
    let crc = (findings.iter())
        .find(|finding| finding["kind"] == "hot_spot" && finding["scope"] == "hashing")
        .unwrap_or_else(|| panic!("no hot spot in Hashing: {findings:#?}"));
    assert!(
        crc["functions"][0]["name"]
            .as_str()
            .unwrap()
            .starts_with("llvm::crc32"),
        "{crc:#}"
    );
    assert_eq!(
        crc["place"]["name"], "(serialization and output)",
        "{crc:#}"
    );
    assert!(
        !(findings.iter())
            .any(|finding| finding["kind"] == "papercuts" && finding["category"] == "hashing"),
        "Hashing is a hot spot, not papercuts: {findings:#?}"
    );

    // Counted, they are one category of their own, and the rows add up to
    // every sample again.
    let counted = report_json(&run_dir, &["--with-instrumentation"]);
    assert_eq!(counted["instrumentation"]["counted"], true);
    assert_eq!(
        counted["samples"].as_u64().unwrap(),
        samples + set_aside,
        "--with-instrumentation counts the samples set aside"
    );
    assert_eq!(category(&counted), set_aside);
    assert_eq!(total(&counted, "categories"), samples + set_aside);

    // The greedy driver's own row no longer holds the profiler's printing:
    // with the instrumentation counted it is larger by some of it.
    let patterns = report_json(&run_dir, &["--by", "pattern", "--compiler"]);
    let patterns_counted = report_json(
        &run_dir,
        &["--by", "pattern", "--compiler", "--with-instrumentation"],
    );
    let driver = "(GreedyPatternRewriteIteration, outside patterns)";
    let (aside, with) = (
        self_samples(&patterns, "rows", "key", driver),
        self_samples(&patterns_counted, "rows", "key", driver),
    );
    println!("{driver}: {aside} samples, {with} with the instrumentation counted");
    assert!(
        aside < with,
        "the driver's row loses the printing set aside"
    );
    assert_eq!(
        total(&patterns, "rows"),
        patterns["samples"].as_u64().unwrap()
    );
}

#[test]
fn the_heap_samplers_hooks_are_set_aside_and_the_heap_counts_on_the_reports_clock() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let library = common::bin().with_file_name("libheap_sampler.so");
    assert!(
        library.is_file() || !is_ci(),
        "{} is missing",
        library.display()
    );
    if !library.is_file() {
        return;
    }
    let Some(model) = real_model("bert-mlm-2l") else {
        return;
    };
    let dir = TempDir::new("instrumentation-heap");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &["-q", "--heap"], &model, &[]))
        .expect_code(0, "record --heap of bert-mlm-2l");

    // The sampler's own code is the instrumentation's (on 2026-12-07: 187
    // of 4,252 samples); its malloc wrapper is the allocator's.
    let samples = report_json(&run_dir, &["--compiler"]);
    let cost = &samples["instrumentation"];
    let hooks = (cost["kinds"].as_array().expect("kinds").iter())
        .find(|kind| kind["kind"] == "heap-sampler")
        .unwrap_or_else(|| panic!("the heap sampler's samples: {cost:#}"));
    println!(
        "bert-mlm-2l --heap: {} samples of the heap sampler's hooks",
        hooks["samples"]
    );
    assert!(hooks["samples"].as_u64().unwrap() > 0);

    // One clock: the RSS peak in report's memory line and in report
    // --heap's heap line are the same instant, counted from the first
    // sample each keeps (a CPU sample, an allocation: milliseconds apart).
    for scope in [&[][..], &["--compiler"][..]] {
        let memory = report_json(&run_dir, scope)["memory_peak"]["seconds"]
            .as_f64()
            .expect("the memory line's peak");
        let mut args = vec!["--heap"];
        args.extend(scope);
        let heap = report_json(&run_dir, &args);
        assert!(
            heap.get("memory_peak").is_none(),
            "report --heap has no memory line: {heap:#}"
        );
        let at = heap["heap_peak"]["seconds"].as_f64().expect("heap seconds");
        println!("{scope:?}: the RSS peak at {memory} s (report), {at} s (report --heap)");
        assert_eq!(heap["heap_peak"]["instant"], "rss_peak");
        assert!(
            (memory - at).abs() <= 0.25,
            "{scope:?}: the RSS peak is at {memory} s in report, {at} s in report --heap"
        );
    }
}

#[test]
fn every_line_of_the_pass_table_of_bert_fits_100_columns() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let Some(model) = real_model("bert-mlm-2l") else {
        return;
    };
    let dir = TempDir::new("instrumentation-width");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &["-q", "--mlir-timing"], &model, &[]))
        .expect_code(0, "record --mlir-timing of bert-mlm-2l");
    // Not a terminal and no COLUMNS: 100 columns. The pass table with the
    // timers and the RSS columns is too wide for it whole, so it comes in
    // parts, each with the passes' names.
    let text = compile_perf([
        "report".as_ref(),
        run_dir.as_os_str(),
        "--by".as_ref(),
        "pass".as_ref(),
        "-q".as_ref(),
    ]);
    text.expect_code(0, "report --by pass");
    let table_start = text
        .stdout
        .lines()
        .position(|line| line.starts_with("pass "))
        .expect("the pass table");
    // The parts, one under another, each after a blank line and headed
    // by `pass`; what follows them (the const-eval sentence and table, the
    // processes) is not the pass table.
    let lines: Vec<&str> = text.stdout.lines().skip(table_start).collect();
    let end = (1..lines.len())
        .find(|&at| {
            lines[at].is_empty()
                && !lines
                    .get(at + 1)
                    .is_some_and(|next| next.starts_with("pass "))
        })
        .unwrap_or(lines.len());
    let table: Vec<&str> = lines[..end]
        .iter()
        .copied()
        .filter(|line| !line.is_empty())
        .collect();
    let widest = table.iter().map(|line| line.chars().count()).max().unwrap();
    println!(
        "bert-mlm-2l's pass table: {} lines, the widest {widest} characters",
        table.len()
    );
    assert!(
        widest <= 100,
        "a line of {widest} characters: {}",
        text.stdout
    );
    let parts = table
        .iter()
        .filter(|line| line.starts_with("pass "))
        .count();
    assert!(parts >= 2, "the table is split with the names in each part");
    assert!(
        table.iter().any(|line| line.contains("timer s"))
            && table.iter().any(|line| line.contains("top categories")),
        "every column is still shown"
    );
}
