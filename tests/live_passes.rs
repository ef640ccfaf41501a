//! Live: pass attribution against the compiler's own timers. A real compile
//! with `--iree-opt-const-eval=false --mlir-disable-threading` is recorded
//! with `compile-perf record`, and run again with `--mlir-timing`. For every
//! pass above 2% of mlir-timing's `root`, compile-perf's inclusive share of
//! the samples inside the pass manager must agree within 5 percentage points
//! or 30% relative, whichever is larger. The README explains the passes
//! listed in [`EXPLAINED`], whose timers and stacks measure different things.

mod common;

use std::collections::HashMap;
use std::ffi::OsString;
use std::process::Command;

use common::iree::{IREE_FLAGS, iree_live_prerequisites, live_lock, workload_at_scale};
use common::{TempDir, compile_perf, iree_compile};

/// The flags that make mlir-timing comparable with CPU samples.
const SERIAL: [&str; 2] = ["--iree-opt-const-eval=false", "--mlir-disable-threading"];
/// Passes whose mlir-timing share does not measure CPU time in the pass; see
/// the README ("Passes: compile-perf and mlir-timing").
const EXPLAINED: [&str; 1] = ["ConfigureTargetExecutableVariants"];
/// mlir-timing entries that are pass-manager structure, not passes.
fn is_structure(name: &str) -> bool {
    name == "root"
        || name == "Total"
        || name.ends_with("Pipeline")
        || name.starts_with("Pipeline Collection")
        || name.contains("Parser")
}

/// A pass name with its namespace and a trailing `Pass` removed: mlir-timing
/// prints a pass's argument-free name (`CanonicalizerPass`), stacks its
/// class (`Canonicalizer`).
fn normalized(name: &str) -> String {
    let name = name.rsplit("::").next().unwrap_or(name);
    name.strip_suffix("Pass").unwrap_or(name).to_owned()
}

/// `(name, share of root in %)` of every line of mlir-timing's list display.
fn mlir_timing(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter_map(|line| {
            let open = line.find('(')?;
            let close = line.find("%)")?;
            let share: f64 = line[open + 1..close].trim().parse().ok()?;
            Some((line[close + 2..].trim().to_owned(), share))
        })
        .collect()
}

#[test]
fn pass_shares_agree_with_mlir_timing() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("passes");
    let input = workload_at_scale(&dir, "many-dispatches", "default");
    let compile = |extra: &[&str]| -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec![iree_compile().into()];
        argv.extend(
            IREE_FLAGS
                .iter()
                .chain(&SERIAL)
                .chain(extra)
                .map(OsString::from),
        );
        argv.push(input.clone().into());
        argv.push("-o".into());
        argv.push(dir.join("out.vmfb").into());
        argv
    };

    let timing = Command::new(&compile(&[])[0])
        .args(&compile(&["--mlir-timing", "--mlir-timing-display=list"])[1..])
        .output()
        .expect("iree-compile runs");
    assert!(
        timing.status.success(),
        "{}",
        String::from_utf8_lossy(&timing.stderr)
    );
    let timers = mlir_timing(&String::from_utf8_lossy(&timing.stderr));
    assert!(timers.len() > 20, "mlir-timing printed its list");

    let run_dir = dir.join("run");
    let mut args: Vec<OsString> = vec![
        "record".into(),
        "-o".into(),
        run_dir.clone().into(),
        "--".into(),
    ];
    args.extend(compile(&[]));
    compile_perf(args).expect_code(0, "record");
    let report = compile_perf([
        "report".into(),
        run_dir.join("perf.data").into_os_string(),
        OsString::from("--by"),
        "pass".into(),
        "--compiler".into(),
        "--format".into(),
        "json".into(),
        "-q".into(),
    ]);
    report.expect_code(0, "report --by pass");
    let json = report.json();
    assert!(json["in_pass_manager_samples"].as_u64().unwrap() > 1000);
    let mut ours: HashMap<String, f64> = HashMap::new();
    for pass in json["passes"].as_array().unwrap() {
        let share = pass["inclusive_percent_of_pass_manager"].as_f64().unwrap();
        let entry = ours
            .entry(normalized(pass["name"].as_str().unwrap()))
            .or_insert(0.0);
        *entry = entry.max(share);
    }

    let mut table = String::new();
    let mut failures = Vec::new();
    for (name, share) in timers
        .iter()
        .filter(|(name, share)| *share > 2.0 && !is_structure(name))
    {
        let key = normalized(name);
        let mine = ours.get(&key).copied().unwrap_or(0.0);
        let allowed = 5.0f64.max(0.3 * share);
        let agrees = (mine - share).abs() <= allowed;
        let explained = EXPLAINED.contains(&key.as_str());
        let verdict = match (agrees, explained) {
            (true, _) => "ok",
            (false, true) => "explained",
            (false, false) => "DISAGREES",
        };
        table.push_str(&format!(
            "{name:<55} mlir-timing {share:5.1}%  stacks {mine:5.1}%  {verdict}\n"
        ));
        if !agrees && !explained {
            failures.push(name.clone());
        }
    }
    eprintln!("{table}");
    assert!(
        failures.is_empty(),
        "passes disagreeing with mlir-timing: {failures:?}\n{table}"
    );
}
