//! Live, on a real model: const-eval of a BertForMaskedLM with bert-base's
//! vocabulary (30522) and width (768) and two layers (`scripts/models.sh
//! bert-mlm-2l`), whose tied word embedding const-eval transposes into a
//! 93,763,584-byte global while the original stays for the lookup.
//! `record` names that global with its input, op and bytes (in
//! consteval.json, the JSON and text reports), the names of the JIT'd
//! functions are the ones `--iree-consteval-jit-debug` prints, the bytes
//! const-eval added are what the module grew by against
//! `--iree-opt-const-eval=false`, `diff` of off against on names the
//! global, and the JIT's own compile is JitGlobalsPass's
//! (`JitGlobalsPass > …` rows), not the top-level passes'. Under `CI=true`
//! these must run.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use common::iree::{IREE_FLAGS, iree_live_prerequisites, live_lock, real_model, record_args};
use common::{TempDir, compile_perf, iree_compile, run_ok};
use serde_json::Value;

const EMBEDDING_BYTES: u64 = 30522 * 768 * 4;

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(
        &std::fs::read(path)
            .unwrap_or_else(|error| panic!("{} cannot be read: {error}", path.display())),
    )
    .expect("JSON")
}

/// The JIT'd functions `--iree-consteval-jit-debug` prints, by name:
/// their argument types and result type.
fn jit_functions(stderr: &str) -> HashMap<String, (Vec<String>, String)> {
    stderr
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("util.func public @")?;
            let (name, rest) = rest.split_once('(')?;
            let (args, rest) = rest.split_once(") -> ")?;
            let result = rest.trim_end_matches(" {").to_owned();
            let args = args
                .split(", %")
                .filter_map(|arg| arg.split_once(": ").map(|(_, ty)| ty.to_owned()))
                .collect();
            Some((name.to_owned(), (args, result)))
        })
        .collect()
}

#[test]
fn const_eval_s_transposed_embedding_is_named_and_the_jit_s_compile_is_its_pass_s() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let Some(model) = real_model("bert-mlm-2l") else {
        return;
    };
    let dir = TempDir::new("consteval");
    let (on, off) = (dir.join("on"), dir.join("off"));
    compile_perf(record_args(&on, &["-q", "--mlir-timing"], &model, &[]))
        .expect_code(0, "record, const-eval on");
    compile_perf(record_args(
        &off,
        &["-q"],
        &model,
        &["--iree-opt-const-eval=false"],
    ))
    .expect_code(0, "record, const-eval off");

    // The global, named with its bytes, type, input and op.
    let consteval = json_file(&on.join("consteval.json"));
    let globals = consteval["globals"].as_array().unwrap();
    let embedding = globals
        .iter()
        .find(|global| global["type"] == "tensor<1x768x30522xf32>")
        .unwrap_or_else(|| panic!("no transposed embedding: {consteval:#}"));
    assert_eq!(embedding["bytes"], EMBEDDING_BYTES);
    assert_eq!(embedding["added_bytes"], EMBEDDING_BYTES);
    assert_eq!(embedding["inputs_kept"], true);
    let input = &embedding["inputs"][0];
    assert_eq!(input["type"], "tensor<30522x768xf32>", "{embedding:#}");
    assert_eq!(input["kind"], "resource");
    assert_eq!(input["bytes"], EMBEDDING_BYTES);
    assert!(
        embedding["ops"]
            .as_array()
            .unwrap()
            .contains(&"transpose".into()),
        "{embedding:#}"
    );
    let name = embedding["name"].as_str().unwrap();
    assert_eq!(globals[0]["name"], name, "the largest addition comes first");
    let report = compile_perf(["report".as_ref(), on.as_os_str(), "--format=json".as_ref()]);
    report.expect_code(0, "report --format json");
    assert_eq!(report.json()["consteval"], consteval);
    let text = compile_perf(["report".as_ref(), on.as_os_str()]);
    text.expect_code(0, "report");
    assert!(
        text.stdout.contains(&format!(
            "most by @{name} (+89.4 MiB, reshape, transpose of {}",
            input["name"].as_str().unwrap()
        )),
        "{}",
        text.stdout
    );

    // What const-eval added is what the module grew by, within 1%.
    let size = |run: &Path| std::fs::metadata(run.with_extension("vmfb")).unwrap().len() as i64;
    let grown = size(&on) - size(&off);
    let added = consteval["added_bytes"].as_i64().unwrap();
    assert!(
        (grown - added).abs() * 100 <= grown,
        "the module grew by {grown} bytes, const-eval says it added {added}"
    );

    // diff of off against on names the global.
    let diff = compile_perf([
        "diff".as_ref(),
        off.as_os_str(),
        on.as_os_str(),
        "-q".as_ref(),
        "--format=json".as_ref(),
    ]);
    let changes = &diff.json()["consteval"];
    assert_eq!(changes[0]["name"], name, "{changes:#}");
    assert_eq!(changes[0]["base_added_bytes"], Value::Null);
    assert_eq!(changes[0]["new_added_bytes"], EMBEDDING_BYTES);

    // The JIT'd functions are named as the compiler names them.
    let jit_debug = run_ok(
        Command::new(iree_compile())
            .args(IREE_FLAGS)
            .arg("--iree-consteval-jit-debug")
            .arg(&model)
            .arg("-o")
            .arg(dir.join("debug.vmfb")),
    );
    let functions = jit_functions(&String::from_utf8_lossy(&jit_debug.stderr));
    assert_eq!(functions.len(), globals.len(), "{functions:?}");
    for global in globals {
        let function = global["function"].as_str().unwrap();
        let (args, result) = functions
            .get(function)
            .unwrap_or_else(|| panic!("no {function} in the JIT's output: {functions:?}"));
        assert_eq!(result, global["type"].as_str().unwrap(), "{function}");
        let inputs: Vec<&str> = global["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|input| input["kind"] != "inline")
            .map(|input| input["type"].as_str().unwrap())
            .collect();
        assert_eq!(args, &inputs, "{function}'s arguments against {global:#}");
    }

    // The JIT's compile is JitGlobalsPass's: its passes are rows of their
    // own, some found on other threads while the main thread was in it.
    let passes = compile_perf([
        "report".as_ref(),
        on.as_os_str(),
        "--by=pass".as_ref(),
        "--format=json".as_ref(),
    ]);
    let passes = passes.json();
    let rows = passes["passes"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|row| row["name"] == name);
    let jit = row("JitGlobalsPass").expect("a JitGlobalsPass row");
    let nested: Vec<&Value> = rows
        .iter()
        .filter(|row| row["nested_in"] == "JitGlobalsPass")
        .collect();
    assert!(
        nested
            .iter()
            .any(|row| row["name"] == "JitGlobalsPass > ApplyPatternsPass"),
        "{nested:#?}"
    );
    let nested_self: u64 = nested
        .iter()
        .map(|row| row["self_samples"].as_u64().unwrap())
        .sum();
    let nested_credited: u64 = nested
        .iter()
        .map(|row| row["credited_samples"].as_u64().unwrap())
        .sum();
    assert!(nested_credited > 0, "no JIT work found on other threads");
    let jit_inclusive = jit["inclusive_samples"].as_u64().unwrap();
    assert!(
        jit_inclusive >= jit["self_samples"].as_u64().unwrap() + nested_self,
        "JitGlobalsPass's inclusive samples hold its passes' ({jit_inclusive} against {nested_self})"
    );
    for row in rows.iter().filter(|row| row["nested_in"].is_null()) {
        assert!(
            !row["name"].as_str().unwrap().contains(" > "),
            "a top-level pass with a nested name: {row:#}"
        );
    }
}
