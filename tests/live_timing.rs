//! Live: MLIR's pass timers joined with the samples, and the pass-level
//! flamegraph. One real compile is recorded with `record --mlir-timing`;
//! `report --by pass` must carry, for every pass with a timer, exactly the
//! wall seconds `mlir-timing.json` itself gives that timer (summed over its
//! timers, a timer inside one of its own name left out), and list every
//! other timer; `flamegraph --passes-only` must draw no pass-manager frame,
//! and each pass's frames must hold its `report --by pass` inclusive samples.

mod common;

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;

use common::iree::{
    iree_live_prerequisites, live_lock, record_args, timer_users, timer_walls, workload,
};
use common::{TempDir, compile_perf};
use serde_json::Value;

/// Whether the timer `timer` may be the stack pass `class`, by the name rules
/// of docs/timers-and-actions.md ("How a timer finds its pass"): the same name, the name after `::`, or the name with `Pass`
/// added.
fn names_match(timer: &str, class: &str) -> bool {
    timer == class || timer.ends_with(&format!("::{class}")) || timer == format!("{class}Pass")
}

/// The mangled names of the venv's libIREECompiler.so (`nm`).
fn library_symbols() -> String {
    let lib = std::fs::read_dir(common::repo_root().join(".venv").join("lib"))
        .unwrap()
        .map(|python| {
            python
                .unwrap()
                .path()
                .join("site-packages/iree/compiler/_mlir_libs/libIREECompiler.so")
        })
        .find(|lib| lib.is_file())
        .expect("the venv has libIREECompiler.so");
    let nm = common::run_ok(std::process::Command::new("nm").arg(&lib));
    String::from_utf8_lossy(&nm.stdout).into_owned()
}

/// Whether the library declares `class` a pass timed as `timer`: it has
/// `…::<timer>Base<…::<class>>::getName() const`, mangled.
fn declared(symbols: &str, timer: &str, class: &str) -> bool {
    let base = format!("{}{timer}BaseI", timer.len() + 4);
    let end = format!("{}{class}EE7getNameEv", class.len());
    symbols
        .lines()
        .any(|line| line.contains(&base) && line.ends_with(&end))
}

/// `NAME (N samples, P%)…` tooltips of an SVG: samples per name, summed.
fn svg_frame_samples(svg: &str) -> HashMap<String, u64> {
    let mut samples = HashMap::new();
    for title in svg.split("<title>").skip(1) {
        let title = &title[..title.find("</title>").unwrap()];
        let Some(at) = title.find(" samples, ") else {
            continue;
        };
        let open = title[..at].rfind(" (").unwrap();
        let count: u64 = title[open + 2..at].replace(',', "").parse().unwrap();
        let name = title[..open].replace("&apos;", "'").replace("&amp;", "&");
        *samples.entry(name).or_insert(0) += count;
    }
    samples
}

#[test]
fn mlir_timing_joins_report_by_pass_and_the_pass_flamegraph_matches_it() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("timing");
    let input = workload(&dir, "many-dispatches");
    let run_dir = dir.join("run");
    let record = compile_perf(record_args(&run_dir, &["--mlir-timing"], &input, &[]));
    record.expect_code(0, "record --mlir-timing");
    assert!(
        !record.stderr.contains("\"wall\": {\"duration\""),
        "the timing report is kept out of the terminal"
    );

    // The run directory keeps the report MLIR printed.
    let timing_text = std::fs::read_to_string(run_dir.join("mlir-timing.json")).unwrap();
    let timing: Value = serde_json::from_str(&timing_text).unwrap();
    let run: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("run.json")).unwrap()).unwrap();
    let outputs: Vec<&str> = run["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|output| output.as_str().unwrap())
        .collect();
    assert!(outputs.contains(&"mlir-timing.json"), "{outputs:?}");
    let command: Vec<&str> = run["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap())
        .collect();
    assert_eq!(
        command[1..4],
        [
            "--mlir-timing",
            "--mlir-timing-display=tree",
            "--mlir-output-format=json"
        ]
    );
    let walls = timer_walls(&timing);
    let users = timer_users(&timing);
    assert!(walls.len() > 50, "{} timer names", walls.len());

    // report --by pass: each timer's own seconds, and no timer dropped.
    let report = compile_perf([
        OsString::from("report"),
        run_dir.clone().into(),
        "--by".into(),
        "pass".into(),
        "--format".into(),
        "json".into(),
        "-q".into(),
    ]);
    report.expect_code(0, "report --by pass --format json");
    let json = report.json();
    let passes = json["passes"].as_array().unwrap();
    let mut joined = HashSet::new();
    let mut symbols: Option<String> = None;
    let mut seconds_per_sample = Vec::new();
    let mut most_runs = 0;
    for pass in passes {
        let name = pass["name"].as_str().unwrap();
        let inclusive = pass["inclusive_samples"].as_u64().unwrap();
        let cpu = pass["cpu_seconds"].as_f64().unwrap();
        seconds_per_sample.push(cpu / inclusive as f64);
        match pass["timer_wall_seconds"].as_f64() {
            Some(wall) => {
                let runs = pass["timer_runs"].as_u64().unwrap();
                assert!(runs >= 1, "{name}: {pass}");
                most_runs = most_runs.max(runs);
                let timer = pass["timer_name"].as_str().unwrap();
                if !names_match(timer, name) {
                    let symbols = symbols.get_or_insert_with(library_symbols);
                    assert!(
                        declared(symbols, timer, name),
                        "{timer} is not {name}'s timer"
                    );
                }
                let own = walls[timer];
                assert!(
                    (wall - own).abs() < 0.000051,
                    "{name}: report {wall} s, mlir-timing.json {own} s"
                );
                let user = pass["timer_user_seconds"].as_f64().unwrap();
                assert!(
                    (user - users[timer]).abs() < 0.000051 && user >= wall - 0.0001,
                    "{name}: user {user} s, mlir-timing.json {} s",
                    users[timer]
                );
                // Both seconds are rounded to 0.1 ms in the JSON.
                // The timer times the pass's runs under const-eval's JIT
                // too (`JitGlobalsPass > name`): the ratio counts them.
                if own > 0.0 {
                    let ratio = pass["cpu_per_wall"].as_f64().unwrap();
                    let nested = passes
                        .iter()
                        .find(|other| other["name"] == format!("JitGlobalsPass > {name}"))
                        .map_or(0.0, |other| other["cpu_seconds"].as_f64().unwrap());
                    let timed = pass["timer_cpu_seconds"].as_f64().unwrap();
                    assert!((timed - (cpu + nested)).abs() < 0.0002, "{name}: {pass}");
                    let expected = timed / wall;
                    assert!(
                        (ratio - expected).abs() <= 0.01 + 0.01 * expected,
                        "{name}: ratio {ratio}, {timed} s / {wall} s"
                    );
                    let per_user = pass["cpu_per_user"].as_f64().unwrap();
                    let expected = timed / user;
                    assert!(
                        (per_user - expected).abs() <= 0.01 + 0.01 * expected,
                        "{name}: CPU per user second {per_user}, {timed} s / {user} s"
                    );
                }
                joined.insert(timer.to_owned());
            }
            None => {
                let symbols = symbols.get_or_insert_with(library_symbols);
                let untaken = walls.keys().find(|timer| {
                    (names_match(timer, name) || declared(symbols, timer, name))
                        && !passes
                            .iter()
                            .any(|other| other["timer_name"].as_str() == Some(timer))
                });
                assert!(
                    untaken.is_none(),
                    "{name} has the timer {untaken:?}, which no pass took"
                );
            }
        }
    }
    assert!(joined.len() >= 10, "{} passes joined", joined.len());
    // Some pass (the canonicalizer, above all) runs many times.
    assert!(most_runs > 1, "no pass ran more than once");
    let unjoined = passes
        .iter()
        .filter(|pass| pass["timer_wall_seconds"].is_null());
    eprintln!(
        "passes with no timer: {:?}",
        unjoined.map(|pass| &pass["name"]).collect::<Vec<_>>()
    );
    assert!(joined.contains("TranslateAllExecutablesPass"), "{joined:?}");
    // Every sample is one sampling period.
    let (low, high) = seconds_per_sample
        .iter()
        .fold((f64::MAX, 0.0f64), |(low, high), &s| {
            (low.min(s), high.max(s))
        });
    assert!(
        high - low < 0.0002 && low > 0.0,
        "{low}..{high} s per sample"
    );
    let timer_only: Vec<&Value> = json["timer_only"].as_array().unwrap().iter().collect();
    for timer in &timer_only {
        let name = timer["name"].as_str().unwrap();
        let wall = timer["timer_wall_seconds"].as_f64().unwrap();
        assert!((wall - walls[name]).abs() < 0.000051, "{name}");
        assert!(!joined.contains(name));
    }
    let listed: HashSet<&str> = timer_only
        .iter()
        .map(|timer| timer["name"].as_str().unwrap())
        .chain(joined.iter().map(String::as_str))
        .collect();
    let dropped: Vec<&String> = walls
        .keys()
        .filter(|name| !listed.contains(name.as_str()))
        .collect();
    assert!(
        dropped.is_empty(),
        "timers neither joined nor listed: {dropped:?}"
    );
    assert!(
        timer_only.iter().any(|timer| timer["kind"] == "pipeline"
            && timer["name"] == "'hal.executable.variant' Pipeline"),
        "nested pipelines are listed"
    );

    // The text table has the columns and the timers with no pass frame.
    let text = compile_perf([
        OsString::from("report"),
        run_dir.clone().into(),
        "--by".into(),
        "pass".into(),
        "-q".into(),
    ]);
    text.expect_code(0, "report --by pass");
    assert!(text.stdout.contains("timer s") && text.stdout.contains("CPU/user"));
    // Too wide for 100 columns whole, the table comes in parts, each
    // headed by `pass`; `runs` is a column of one of them.
    let headers: Vec<&str> = (text.stdout.lines())
        .filter(|line| line.starts_with("pass "))
        .flat_map(|line| line.split("  ").map(str::trim))
        .collect();
    assert!(headers.contains(&"runs"), "{}", text.stdout);
    assert!(
        text.stdout
            .contains("timer with no pass frame on the stacks")
    );

    // flamegraph --passes-only: pass frames only, each holding its
    // inclusive samples.
    let svg_path = dir.join("passes.svg");
    let folded_path = dir.join("passes.folded");
    compile_perf([
        OsString::from("flamegraph"),
        run_dir.clone().into(),
        "--passes-only".into(),
        "--min-width".into(),
        "0".into(),
        "-o".into(),
        svg_path.clone().into(),
        "--folded-out".into(),
        folded_path.clone().into(),
        "-q".into(),
    ])
    .expect_code(0, "flamegraph --passes-only");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    for plumbing in [
        "OpToOpPassAdaptor",
        "runPipeline",
        "function_ref",
        "runOnOperation",
    ] {
        assert!(!svg.contains(plumbing), "{plumbing} is drawn");
    }
    let names: HashSet<&str> = passes
        .iter()
        .map(|pass| pass["name"].as_str().unwrap())
        .collect();
    let (mut distinct, mut drawn): (HashMap<String, u64>, HashMap<String, u64>) =
        Default::default();
    for line in std::fs::read_to_string(&folded_path).unwrap().lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        let count: u64 = count.parse().unwrap();
        let frames: Vec<&str> = stack.split(';').collect();
        for frame in &frames {
            assert!(
                names.contains(frame) || (frames.len() == 1 && frame.starts_with('(')),
                "{frame} is neither a pass nor a place outside passes"
            );
            *drawn.entry((*frame).to_owned()).or_insert(0) += count;
        }
        for frame in frames.iter().collect::<HashSet<_>>() {
            *distinct.entry((*frame).to_owned()).or_insert(0) += count;
        }
    }
    for pass in passes {
        let name = pass["name"].as_str().unwrap();
        // The picture draws each sample where its own stack is: without
        // the thread-pool work the report credits to the pass.
        let on_own_stack = pass["inclusive_samples"].as_u64().unwrap()
            - pass["credited_inclusive_samples"].as_u64().unwrap();
        assert_eq!(
            distinct.get(name).copied(),
            Some(on_own_stack).filter(|&samples| samples > 0),
            "{name}: samples with it on their drawn stack"
        );
    }
    // The SVG draws what the folded lines say: every frame of a name, summed.
    let in_svg = svg_frame_samples(&svg);
    for (name, samples) in &drawn {
        assert_eq!(in_svg.get(name), Some(samples), "{name} in the SVG");
    }
    let nested = drawn
        .iter()
        .filter(|(name, samples)| distinct[*name] != **samples);
    eprintln!(
        "{} passes joined with timers, {} timers only; passes drawn inside themselves: {:?}",
        joined.len(),
        timer_only.len(),
        nested.map(|(name, _)| name).collect::<Vec<_>>()
    );
}

#[test]
fn mlir_timing_needs_iree_compile() {
    let dir = TempDir::new("timing-refused");
    let run_dir = dir.join("run");
    let run = compile_perf([
        OsString::from("record"),
        "--mlir-timing".into(),
        "-o".into(),
        run_dir.clone().into(),
        "--".into(),
        "true".into(),
    ]);
    run.expect_code(2, "record --mlir-timing -- true");
    assert!(
        run.stderr.contains("true is not iree-compile"),
        "{}",
        run.stderr
    );
    assert!(!run_dir.exists(), "nothing was recorded");
}
