//! Live: categories on real iree-compile compiles of workloads shaped like
//! the reports that motivated the tool. Under `CI=true` these must run.
//!
//! - dense constants written as hex strings in text keep the MLIR lexer busy;
//!   the same model as MLIR bytecode does not lex at all;
//! - f32 dense literals in text make APFloat the top self category;
//! - const-eval evaluates globals at compile time: constant folding shows on
//!   the inclusive side.
//!
//! The Chrome trace of each nests as trace viewers need it.

mod common;

use common::exports::{assert_trace_nests, export};
use common::iree::{iree_compile_argv, iree_live_prerequisites, live_lock, perf_record, workload};
use common::{TempDir, compile_perf};
use serde_json::Value;

/// Records `name` (small scale) with DWARF stacks, checks that its Chrome
/// trace's pass spans nest, and returns `compile-perf report --format
/// json` of the compiler process.
fn report_of(name: &str) -> Value {
    let dir = TempDir::new(&format!("categories-{name}"));
    let input = workload(&dir, name);
    let data = dir.join("perf.data");
    perf_record(
        &data,
        &["-z", "--call-graph", "dwarf,65528"],
        &iree_compile_argv(&dir, &input),
    );
    let run = compile_perf([
        "report".as_ref(),
        data.as_os_str(),
        "--compiler".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ]);
    run.expect_code(0, name);
    let report = run.json();
    assert_trace_nests(&export(&data, "chrome-trace", &["--compiler"], &dir));
    let shares: Vec<String> = report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|category| {
            format!(
                "{} {}% self, {}% incl",
                category["id"].as_str().unwrap(),
                category["self_percent"],
                category["inclusive_percent"]
            )
        })
        .collect();
    eprintln!(
        "{name}: {} samples; {}",
        report["samples"],
        shares.join("; ")
    );
    // Other counts its self samples only: thread roots, main and _start,
    // on every stack, do not make it 99% inclusive.
    if let Some(other) = report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|category| category["id"] == "other")
    {
        assert_eq!(
            other["inclusive_samples"], other["self_samples"],
            "{name}: Other"
        );
        assert!(other["inclusive_percent"].as_f64() < Some(50.0), "{name}");
    }
    report
}

/// `(self %, inclusive %)` of category `id`, zero when absent.
fn share(report: &Value, id: &str) -> (f64, f64) {
    report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|category| category["id"] == id)
        .map_or((0.0, 0.0), |category| {
            (
                category["self_percent"].as_f64().unwrap(),
                category["inclusive_percent"].as_f64().unwrap(),
            )
        })
}

#[test]
fn hex_constants_in_text_keep_the_lexer_busy_and_bytecode_does_not() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let text = report_of("hex-constants");
    let bytecode = report_of("hex-constants-bytecode");
    let (text_lexer, _) = share(&text, "lexer");
    let (bytecode_lexer, _) = share(&bytecode, "lexer");
    assert!(text_lexer > 2.0, "lexer self share in text: {text_lexer}%");
    assert!(
        bytecode_lexer < 0.5,
        "lexer self share in bytecode: {bytecode_lexer}%"
    );
}

#[test]
fn f32_literals_make_apfloat_the_top_self_category() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let report = report_of("f32-literals");
    assert_eq!(
        report["categories"][0]["id"], "apfloat",
        "categories by self time"
    );
}

#[test]
fn const_eval_shows_folding_on_the_inclusive_side() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let report = report_of("const-eval");
    let (_, folding_inclusive) = share(&report, "folding");
    assert!(
        folding_inclusive > 10.0,
        "folding inclusive share: {folding_inclusive}%"
    );
}
