//! Live: `record --repeat` and `diff` on real iree-compile compiles of
//! small workloads. Under `CI=true` these must run.
//!
//! - hex constants in text against the same model as bytecode: the lexer
//!   row falls, significantly, by the difference of the two reports; the
//!   gate run the other way fails (exit 30); the differential flamegraphs
//!   are well-formed, with red and blue frames, the lexer's blue;
//! - const-eval on against `--iree-opt-const-eval=false`: constant
//!   folding's inclusive share falls by more than 5 points, significantly;
//! - three runs against three runs of one unchanged compile, on three
//!   workloads: nothing is significant and the gate passes;
//! - a failed compile on either side: the gate refuses it (exit 32) and
//!   names the run; other inputs or flags are warned of, and the gate
//!   refuses them (exit 33) unless `--allow-different-inputs`.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::iree::{IREE_FLAGS, iree_live_prerequisites, live_lock, record_args, workload};
use common::{Run, TempDir, compile_perf, iree_compile};
use serde_json::Value;

/// `record --repeat 3` of `input` compiled with `flags`, into `dir`.
fn record_three(dir: &Path, input: &Path, flags: &[&str]) -> PathBuf {
    let mut args: Vec<OsString> = vec![
        "record".into(),
        "--repeat".into(),
        "3".into(),
        "-o".into(),
        dir.into(),
        "--".into(),
        iree_compile().into(),
    ];
    args.extend(IREE_FLAGS.iter().chain(flags).map(OsString::from));
    args.extend([input.into(), "-o".into(), dir.with_extension("vmfb").into()]);
    compile_perf(&args).expect_code(0, &format!("record --repeat 3 into {}", dir.display()));
    dir.to_owned()
}

/// `compile-perf diff BASE NEW -q ARGS`.
fn diff(base: &Path, new: &Path, args: &[&str]) -> Run {
    let mut all: Vec<OsString> = vec!["diff".into(), base.into(), new.into(), "-q".into()];
    all.extend(args.iter().map(OsString::from));
    compile_perf(&all)
}

/// `diff --format json`, which must exit 0.
fn diff_json(base: &Path, new: &Path) -> Value {
    let run = diff(base, new, &["--format", "json"]);
    run.expect_code(0, "diff --format json");
    run.json()
}

/// Whether a diff's JSON has a warning that contains `text`.
fn has_warning(diff: &Value, text: &str) -> bool {
    diff["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|warning| warning.as_str().unwrap().contains(text))
}

/// The row `key` of a diff.
fn row<'a>(diff: &'a Value, key: &str) -> &'a Value {
    diff["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["key"] == key)
        .unwrap_or_else(|| panic!("no row {key} in {diff:#}"))
}

/// A number of a JSON document.
fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"))
}

/// The self and inclusive share of category `id` in a `report.json` (of a
/// run, or of `record --repeat`'s runs together); zero when absent.
fn report_share(report: &Path, id: &str) -> (f64, f64) {
    let json: Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    // A run's report has `categories`; a set's, `rows` by category.
    let rows = match json["rows"].is_array() {
        true => &json["rows"],
        false => &json["categories"],
    };
    rows.as_array()
        .unwrap()
        .iter()
        .find(|category| category["id"] == id)
        .map_or((0.0, 0.0), |category| {
            (
                number(&category["self_percent"]),
                number(&category["inclusive_percent"]),
            )
        })
}

/// Checks that an unchanged compile's two sets of runs differ in nothing
/// significant, and that the gate passes.
fn assert_nothing_significant(first: &Path, second: &Path, workload: &str) {
    let compared = diff_json(first, second);
    let flagged: Vec<&Value> = compared["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["significant"] == true)
        .collect();
    eprintln!(
        "{workload}, 3 runs against 3: {}",
        compared["significance"].as_str().unwrap()
    );
    assert!(
        flagged.is_empty(),
        "{workload}: same compile, rows flagged: {flagged:#?}"
    );
    diff(first, second, &["--fail-on-regression"]).expect_code(0, "the gate, same compile");
    // The flamegraphs judge frames as the table judges rows: where the table
    // flags nothing, no frame is red or blue, on either side, with three
    // runs a side and (when its table flags nothing too) with one.
    let one_run = |set: &Path| set.join("run-1");
    for (base, new, runs) in [
        (first.to_owned(), second.to_owned(), 3),
        (one_run(first), one_run(second), 1),
    ] {
        let table_flags = diff_json(&base, &new)["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|row| row["significant"] == true);
        if table_flags {
            assert_eq!(runs, 1, "the table of three runs a side flagged nothing");
            eprintln!("{workload}, 1 run a side: the table flags rows; frames are not checked");
            continue;
        }
        let svg = first.with_extension(format!("diff-{runs}.svg"));
        diff(&base, &new, &["--flamegraph", svg.to_str().unwrap()])
            .expect_code(0, "diff --flamegraph, same compile");
        let base_svg = first.with_extension(format!("diff-{runs}-base.svg"));
        let coloured: Vec<Frame> = svg_frames(&svg)
            .into_iter()
            .chain(svg_frames(&base_svg))
            .filter(|frame| is_red(&frame.fill) || is_blue(&frame.fill))
            .collect();
        assert!(
            coloured.is_empty(),
            "{workload}, {runs} run(s) a side: same compile, frames flagged: {coloured:#?}"
        );
    }
}

/// A frame of an SVG flamegraph: its tooltip, fill and width in samples.
#[derive(Debug)]
struct Frame {
    title: String,
    fill: String,
    samples: u64,
}

/// Parses `svg` as XML (it must be well-formed) and returns its frames.
fn svg_frames(svg: &Path) -> Vec<Frame> {
    use quick_xml::events::Event;
    let text = std::fs::read_to_string(svg).unwrap();
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut frames = Vec::new();
    let mut in_title = false;
    let mut title = String::new();
    // The width in samples of the frame's `<g>` being read.
    let mut samples = None;
    loop {
        match reader
            .read_event()
            .unwrap_or_else(|error| panic!("{} is not well-formed: {error}", svg.display()))
        {
            Event::Eof => return frames,
            Event::Start(element) if element.name().as_ref() == b"g" => {
                samples = element
                    .try_get_attribute("data-w")
                    .unwrap()
                    .map(|value| std::str::from_utf8(&value.value).unwrap().parse().unwrap());
            }
            Event::Start(element) if element.name().as_ref() == b"title" => {
                in_title = true;
                title.clear();
            }
            Event::Text(text) if in_title => title.push_str(&text.decode().unwrap()),
            Event::GeneralRef(entity) if in_title => {
                let name = entity.decode().unwrap();
                title.push_str(match name.as_ref() {
                    "lt" => "<",
                    "gt" => ">",
                    "amp" => "&",
                    "quot" => "\"",
                    _ => "?",
                });
            }
            Event::End(element) if element.name().as_ref() == b"title" => in_title = false,
            Event::Empty(element) if element.name().as_ref() == b"rect" => {
                let fill = element
                    .try_get_attribute("fill")
                    .unwrap()
                    .map(|value| String::from_utf8(value.value.to_vec()).unwrap());
                if let (Some(fill), Some(samples)) = (fill, samples.take()) {
                    frames.push(Frame {
                        title: title.clone(),
                        fill,
                        samples,
                    });
                }
            }
            _ => {}
        }
    }
}

/// Red and blue as the differential flamegraph draws them.
fn is_red(fill: &str) -> bool {
    fill.starts_with("rgb(255,") && !fill.ends_with(",255)")
}

fn is_blue(fill: &str) -> bool {
    fill.ends_with(",255)") && !fill.starts_with("rgb(255,")
}

#[test]
fn text_against_bytecode_the_lexer_falls_and_the_gate_catches_the_way_back() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("diff-hex");
    // At the small scale the lexer has 25–48 samples of about 600 a text
    // run, and none in a bytecode run. Its fall once missed the family-wise
    // threshold (p = 4.1e-5) when the share was tested by its difference
    // over the standard error under the pooled share, which loses its power
    // when one side is all zeros; the likelihood ratio keeps it (p < 1e-9
    // on runs of the bench, docs/comparing.md). The noise allowed: the
    // row's spread between runs (its own or the pooled one, the larger) at
    // a family-wise rate of 1e-4.
    let text_input = workload(&dir, "hex-constants");
    let bytecode_input = workload(&dir, "hex-constants-bytecode");
    let text = record_three(&dir.join("text"), &text_input, &[]);
    let again = record_three(&dir.join("text-again"), &text_input, &[]);
    let bytecode = record_three(&dir.join("bytecode"), &bytecode_input, &[]);

    assert_nothing_significant(&text, &again, "hex-constants");

    // Three runs a side: each share is the one of the runs together, as
    // `record --repeat` reports them.
    let compared = diff_json(&text, &bytecode);
    eprintln!("{}", compared["significance"].as_str().unwrap());
    let lexer = row(&compared, "lexer");
    eprintln!("lexer: {lexer}");
    let (base_lexer, _) = report_share(&text.join("report.json"), "lexer");
    let (new_lexer, _) = report_share(&bytecode.join("report.json"), "lexer");
    assert_eq!(number(&lexer["base_self_percent"]), base_lexer);
    assert_eq!(number(&lexer["new_self_percent"]), new_lexer);
    let delta = number(&lexer["delta_self_pp"]);
    assert!(
        (delta - (new_lexer - base_lexer)).abs() < 1e-9,
        "{delta} against {new_lexer} − {base_lexer}"
    );
    assert!(delta < -2.0, "the lexer fell by {delta} points");
    assert_eq!(lexer["significant"], true, "{lexer}");
    assert_eq!(compared["base"]["runs"], 3);
    assert!(number(&compared["base"]["cpu_seconds"]) > 0.1, "{compared}");

    // One run a side: the shares are `report --format json`'s of each recording.
    let (one_text, one_bytecode) = (text.join("run-1"), bytecode.join("run-1").join("perf.data"));
    let compared = diff_json(&one_text, &one_bytecode);
    assert!(
        compared["significance"]
            .as_str()
            .unwrap()
            .contains("only sampling error"),
        "{}",
        compared["significance"]
    );
    let lexer = row(&compared, "lexer");
    let (base_lexer, _) = report_share(&one_text.join("report.json"), "lexer");
    let (new_lexer, _) = report_share(&bytecode.join("run-1").join("report.json"), "lexer");
    assert_eq!(number(&lexer["base_self_percent"]), base_lexer);
    assert_eq!(number(&lexer["new_self_percent"]), new_lexer);
    assert!((number(&lexer["delta_self_pp"]) - (new_lexer - base_lexer)).abs() < 1e-9);

    // Text and bytecode are different inputs: a warning, and the gate
    // refuses them unless allowed.
    assert!(
        has_warning(
            &compared,
            "BASE and NEW compiled different inputs (SHA-256 "
        ),
        "{}",
        compared["warnings"]
    );
    let refused = diff(&bytecode, &text, &["--fail-on-regression"]);
    refused.expect_code(33, "the gate over different inputs");
    assert!(
        refused
            .stderr
            .contains("the gate refuses: BASE and NEW compiled different inputs"),
        "{}",
        refused.stderr
    );

    // The gate, bytecode → text: the lexer grew.
    let allowed = "--allow-different-inputs";
    let gate = diff(&bytecode, &text, &["--fail-on-regression", allowed]);
    gate.expect_code(30, "the gate, bytecode → text");
    // Its self share, its inclusive share or both, as the noise allows.
    assert!(gate.stderr.contains("| Lexer ("), "{}", gate.stderr);
    let limited = diff(&bytecode, &text, &["--max-increase", "lexer=50", allowed]);
    limited.expect_code(0, "a limit above the lexer's growth");
    diff(&bytecode, &text, &["--max-increase", "no-such-category=1"])
        .expect_code(13, "an unknown category");

    // Differential flamegraphs: NEW's stacks, and BASE's beside them.
    let svg = dir.join("diff.svg");
    let drawn = diff(&text, &bytecode, &["--flamegraph", svg.to_str().unwrap()]);
    drawn.expect_code(0, "diff --flamegraph");
    let base_svg = dir.join("diff-base.svg");
    assert!(
        drawn.stderr.contains(base_svg.to_str().unwrap()),
        "{}",
        drawn.stderr
    );
    let new_frames = svg_frames(&svg);
    let base_frames = svg_frames(&base_svg);
    let both = || new_frames.iter().chain(&base_frames);
    assert!(both().any(|frame| is_red(&frame.fill)), "no red frame");
    assert!(both().any(|frame| is_blue(&frame.fill)), "no blue frame");
    // The lexer is on text's stacks only: there, its frames fall to 0%.
    // A frame is coloured only when its fall is beyond the runs' spread,
    // judged frame by frame over three runs a side at a family-wise error
    // rate of 1e-4: in one CI run text's lexer share was 8.5, 14.0 and
    // 15.4%, and lexString's fall of 7.46 pp stayed within it (grey). So:
    // every lexer frame falls, is blue when judged beyond noise, and is
    // never red.
    let lexer_frames: Vec<&Frame> = base_frames
        .iter()
        .filter(|frame| frame.title.starts_with("mlir::Lexer::"))
        .collect();
    assert!(
        !lexer_frames.is_empty(),
        "lexer frames in text's flamegraph"
    );
    for frame in &lexer_frames {
        assert!(
            frame.title.contains("new 0.00%, -"),
            "the lexer falls: {frame:?}"
        );
        assert!(
            !is_red(&frame.fill),
            "a falling frame is never red: {frame:?}"
        );
        let within_noise = frame.title.contains("not significant");
        let moved = frame.title.contains("moved:");
        assert_eq!(
            is_blue(&frame.fill),
            !within_noise && !moved,
            "blue exactly when the fall is beyond noise: {frame:?}"
        );
    }
    let blue: u64 = lexer_frames
        .iter()
        .filter(|frame| is_blue(&frame.fill))
        .map(|frame| frame.samples)
        .sum();
    let all: u64 = lexer_frames.iter().map(|frame| frame.samples).sum();
    println!("lexer frame samples judged beyond noise (blue): {blue} of {all}");
    assert!(
        !new_frames
            .iter()
            .any(|frame| frame.title.starts_with("mlir::Lexer::lex")),
        "bytecode does not lex"
    );
}

#[test]
fn const_eval_off_folding_falls_and_repeated_runs_report_their_spread() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("diff-const-eval");
    let input = workload(&dir, "const-eval");
    let on = record_three(&dir.join("on"), &input, &[]);
    let again = record_three(&dir.join("on-again"), &input, &[]);
    let off = record_three(&dir.join("off"), &input, &["--iree-opt-const-eval=false"]);

    // The report of the runs together: each run's share is its own report's.
    let report: Value =
        serde_json::from_slice(&std::fs::read(on.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["runs"], 3);
    assert_eq!(report["run_facts"].as_array().unwrap().len(), 3);
    // `report DIR` of the set gives the same, and reports it by any grouping.
    let again_json = compile_perf([
        "report".as_ref(),
        on.as_os_str(),
        "-q".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    again_json.expect_code(0, "report of a --repeat directory");
    assert_eq!(again_json.json()["rows"], report["rows"]);
    for by in ["category", "symbol", "dso", "thread", "process", "pass"] {
        let by_json = compile_perf([
            "report".as_ref(),
            on.as_os_str(),
            "-q".as_ref(),
            "--by".as_ref(),
            by.as_ref(),
            "--format".as_ref(),
            "json".as_ref(),
        ]);
        by_json.expect_code(0, &format!("report of a --repeat directory --by {by}"));
        let json = by_json.json();
        assert_eq!(
            (json["runs"].as_u64(), json["by"].as_str()),
            (Some(3), Some(by))
        );
        assert!(
            !json["rows"].as_array().unwrap().is_empty(),
            "--by {by}: {json:#}"
        );
        for facts in json["run_facts"].as_array().unwrap() {
            assert!(facts["wall_seconds"].as_f64().unwrap() > 0.0, "{facts}");
            assert!(facts["anon_peak_bytes"].as_u64().unwrap() > 0, "{facts}");
        }
        let wall = &json["wall_seconds"];
        assert!(
            wall["min"].as_f64() <= wall["median"].as_f64()
                && wall["median"].as_f64() <= wall["max"].as_f64(),
            "{wall}"
        );
    }
    pictures_of_a_set(&on, &dir);
    let folding = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|category| category["id"] == "folding")
        .expect("folding in the report of the runs");
    for (index, share) in folding["inclusive_percent_runs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let run = on.join(format!("run-{}", index + 1)).join("report.json");
        assert_eq!(number(share), report_share(&run, "folding").1, "{run:?}");
    }
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(on.join("run.json")).unwrap()).unwrap();
    assert_eq!(manifest["status"], "finished");
    assert_eq!(manifest["runs"].as_array().unwrap().len(), 3);

    assert_nothing_significant(&on, &again, "const-eval");

    let compared = diff_json(&on, &off);
    let folding = row(&compared, "folding");
    eprintln!("folding: {folding}");
    assert!(
        number(&folding["delta_inclusive_pp"]) < -5.0,
        "folding's inclusive share: {folding}"
    );
    assert_eq!(folding["significant_inclusive"], true, "{folding}");
}

/// `flamegraph` of a set adds its runs up: its folded stacks hold every
/// sample of every run; `--passes-only` is refused; `timeline` draws the run
/// of median wall time and says which.
fn pictures_of_a_set(set: &Path, dir: &TempDir) {
    let folded_total = |folded: &Path| -> u64 {
        std::fs::read_to_string(folded)
            .unwrap()
            .lines()
            .map(|line| line.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum()
    };
    let draw = |input: &Path, name: &str| {
        let (svg, folded) = (
            dir.join(format!("{name}.svg")),
            dir.join(format!("{name}.folded")),
        );
        compile_perf([
            "flamegraph".as_ref(),
            input.as_os_str(),
            "-q".as_ref(),
            "--compiler".as_ref(),
            "-o".as_ref(),
            svg.as_os_str(),
            "--folded-out".as_ref(),
            folded.as_os_str(),
        ])
        .expect_code(0, &format!("flamegraph of {}", input.display()));
        (std::fs::read_to_string(svg).unwrap(), folded_total(&folded))
    };
    let (svg, total) = draw(set, "set");
    assert!(svg.contains("3 runs added up"), "the title says so");
    assert!(
        svg.contains("3 runs: "),
        "the subtitle gives the wall times"
    );
    let runs: u64 = (1..=3)
        .map(|run| draw(&set.join(format!("run-{run}")), &format!("run-{run}")).1)
        .sum();
    assert_eq!(total, runs, "every run's samples are in the set's picture");

    let passes = compile_perf([
        "flamegraph".as_ref(),
        set.as_os_str(),
        "--passes-only".as_ref(),
        "-o".as_ref(),
        dir.join("passes.svg").as_os_str(),
    ]);
    passes.expect_code(14, "--passes-only of a set");
    assert!(passes.stderr.contains("draws one run"), "{}", passes.stderr);

    let timeline = compile_perf([
        "timeline".as_ref(),
        set.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "-o".as_ref(),
        "-".as_ref(),
    ]);
    timeline.expect_code(0, "timeline of a set");
    let chosen = timeline.json()["run_of_set"].as_str().unwrap().to_owned();
    assert!(
        chosen.starts_with("run-") && chosen.contains(", the run of median wall time of 3 runs"),
        "{chosen}"
    );
    assert!(timeline.stderr.contains(&chosen), "{}", timeline.stderr);
}

#[test]
fn three_runs_against_three_of_an_unchanged_compile_flag_nothing() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("diff-same");
    let input = workload(&dir, "many-dispatches");
    let first = record_three(&dir.join("first"), &input, &[]);
    let second = record_three(&dir.join("second"), &input, &[]);
    assert_nothing_significant(&first, &second, "many-dispatches");
}

#[test]
fn the_gate_refuses_a_failed_compile_on_either_side_and_names_it() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("diff-failed");
    let input = workload(&dir, "hex-constants");
    let ok = dir.join("ok");
    compile_perf(record_args(&ok, &[], &input, &[])).expect_code(0, "record of a compile");
    // The same input with a flag iree-compile refuses: the compile exits 1,
    // and `record` keeps the run with the compile's code.
    let failed = dir.join("failed");
    let failing = ["--iree-hal-target-device=no-such-device"];
    let recorded = compile_perf(record_args(&failed, &[], &input, &failing));
    assert_ne!(recorded.code, Some(0), "{}", recorded.stderr);
    assert!(failed.join("run.json").is_file());

    let gate = diff(&ok, &failed, &["--max-increase", "wall=10"]);
    gate.expect_code(32, "the gate over a failed NEW");
    let named = format!(
        "the gate refuses: NEW run {}",
        failed.join("perf.data").display()
    );
    assert!(gate.stderr.contains(&named), "{}", gate.stderr);
    assert!(
        gate.stderr.contains("the compile failed (exit status: "),
        "{}",
        gate.stderr
    );
    let gate = diff(
        &failed,
        &ok,
        &["--fail-on-regression", "--allow-different-inputs"],
    );
    gate.expect_code(32, "the gate over a failed BASE, whatever is allowed");
    assert!(
        gate.stderr.contains("the gate refuses: BASE run "),
        "{}",
        gate.stderr
    );

    // Without a gate the diff is made, and says what failed.
    let compared = diff(&ok, &failed, &["--format", "json"]);
    assert_ne!(compared.code, Some(32), "{}", compared.stderr);
    let json = compared.json();
    let failed_runs = json["new"]["failed_runs"].as_array().unwrap();
    assert_eq!(failed_runs.len(), 1, "{json:#}");
    assert!(
        failed_runs[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("the compile failed")
    );
    assert!(json["base"]["failed_runs"].as_array().unwrap().is_empty());
    // The flags differ too, and say which.
    assert!(
        has_warning(&json, "`--iree-hal-target-device=no-such-device`"),
        "{}",
        json["warnings"]
    );
}
