//! `export` and `push` on the committed recordings (`tests/fixtures`): every
//! export holds the samples `report` counts on the same input and filters,
//! as its own viewer reads it (`go tool pprof`, speedscope's schema); and
//! `push` against a listener on 127.0.0.1 started here, which checks the
//! ingest request and reads its profile back with `go tool pprof`.

mod common;

use std::net::TcpListener;
use std::process::Command;

use base64::Engine;
use common::exports::{SAMPLE_FORMATS, export, firefox_categories, report_json, sample_total};
use common::ingest::push_to_listener;
use common::viewers::{have_go, pprof, raw_sample_total, speedscope_schema};
use common::{TempDir, bin, compile_perf, fixture};

const RECORDING: &str = "fake-dwarf.perf.data";

#[test]
fn every_export_holds_the_samples_report_counts() {
    if !have_go() {
        return;
    }
    let dir = TempDir::new("export-totals");
    let input = fixture(RECORDING);
    let pid = report_json(&input, &[], "process")["rows"][0]["key"]
        .as_str()
        .and_then(|key| key.rsplit_once('(')?.1.strip_suffix(')').map(str::to_owned))
        .expect("the process row names its pid");
    for filters in [
        vec![],
        vec!["--pid", pid.as_str()],
        vec!["--process", "fakecompiler"],
    ] {
        let samples = report_json(&input, &filters, "category")["samples"]
            .as_u64()
            .unwrap();
        assert!(samples > 400, "{filters:?}: {samples} samples");
        for format in SAMPLE_FORMATS {
            let path = export(&input, format, &filters, &dir);
            assert_eq!(sample_total(format, &path), samples, "{format} {filters:?}");
        }
    }
}

#[test]
fn pprof_is_labelled_and_filters_by_its_labels() {
    if !have_go() {
        return;
    }
    let dir = TempDir::new("export-pprof");
    let input = fixture(RECORDING);
    let report = report_json(&input, &[], "category");
    let path = export(&input, "pprof", &[], &dir);
    let tags = pprof(&["-tags"], &path);
    for key in ["category", "category_id", "pass", "thread", "process"] {
        assert!(
            tags.contains(&format!(" {key}: Total")),
            "-tags lists {key}:\n{tags}"
        );
    }
    // Every mapping has a range of addresses (`-raw` prints
    // `id: start/limit/offset path`).
    let raw = pprof(&["-raw"], &path);
    let mappings: Vec<&str> = raw
        .split_once("Mappings")
        .expect("a Mappings section")
        .1
        .lines()
        .filter(|line| line.contains(": 0x"))
        .collect();
    assert!(!mappings.is_empty(), "{raw}");
    for mapping in mappings {
        assert!(
            !mapping.contains(": 0x0/0x0/"),
            "a mapping without a range: {mapping}"
        );
    }
    // Each category's self samples, found by its name (as reports show
    // it) and by its id.
    for category in report["categories"].as_array().unwrap() {
        let id = category["id"].as_str().unwrap();
        let name = regex::escape(category["name"].as_str().unwrap());
        for focus in [
            format!("-tagfocus=category=^{name}$"),
            format!("-tagfocus=category_id=^{id}$"),
        ] {
            let raw = pprof(&["-raw", &focus], &path);
            assert_eq!(
                raw_sample_total(&raw),
                category["self_samples"].as_u64().unwrap(),
                "{focus}"
            );
        }
    }
    let top = pprof(&["-top", "-sample_index=samples"], &path);
    let first = report["categories"][0]["top_symbols"][0]["symbol"]
        .as_str()
        .unwrap();
    let short = first.split('(').next().unwrap();
    assert!(top.contains(short), "-top shows {short}:\n{top}");
    // A shorter run of the same program against this one: pprof shows the
    // difference of the two sample counts.
    let other = fixture("fake-rounds.perf.data");
    let other_samples = report_json(&other, &[], "category")["samples"]
        .as_i64()
        .unwrap();
    let other_path = export(&other, "pprof", &[], &dir);
    let diff = pprof(
        &[
            "-top",
            "-sample_index=samples",
            "-diff_base",
            path.to_str().unwrap(),
        ],
        &other_path,
    );
    let change = other_samples - report["samples"].as_i64().unwrap();
    assert!(
        diff.contains(&format!("Showing nodes accounting for {change},")),
        "-diff_base shows {change} samples:\n{diff}"
    );
}

#[test]
fn speedscope_export_follows_the_schema() {
    let Some(schema) = speedscope_schema() else {
        return;
    };
    let dir = TempDir::new("export-speedscope");
    let path = export(&fixture(RECORDING), "speedscope", &[], &dir);
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(schema).unwrap()).unwrap();
    let document: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("speedscope's schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .take(10)
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
    // A file that breaks the schema is caught: the check can fail.
    let mut broken = document.clone();
    broken["profiles"][0]["type"] = "flat".into();
    assert!(!validator.is_valid(&broken));
}

#[test]
fn firefox_export_has_the_report_categories_and_threads() {
    let dir = TempDir::new("export-firefox");
    let input = fixture(RECORDING);
    let report = report_json(&input, &[], "category");
    let path = export(&input, "firefox", &[], &dir);
    let names = firefox_categories(&path);
    for category in report["categories"].as_array().unwrap() {
        let name = category["name"].as_str().unwrap();
        assert!(
            names.iter().any(|known| known == name),
            "{name} in {names:?}"
        );
    }
    let threads = report_json(&input, &[], "thread")["rows"]
        .as_array()
        .unwrap()
        .len();
    let profile: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        profile["threads"].as_array().unwrap().len(),
        threads,
        "one thread per thread"
    );
}

#[test]
fn a_filter_that_keeps_nothing_is_refused() {
    let dir = TempDir::new("export-empty");
    let out = dir.join("none.pprof");
    let run = compile_perf([
        "export",
        fixture(RECORDING).to_str().unwrap(),
        "--format",
        "pprof",
        "--pid",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    run.expect_code(14, "export of no samples");
    assert!(
        run.stderr.contains("no samples to export"),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "no file is left behind");
}

#[test]
fn push_sends_the_documented_ingest_request() {
    if !have_go() {
        return;
    }
    let (code, stderr, request) = push_to_listener(
        &fixture(RECORDING),
        &[
            "--app",
            "iree-compile",
            "--label",
            "branch=main",
            "--label",
            "model=small",
        ],
        &[
            ("PYROSCOPE_BASIC_AUTH_USER", "123456"),
            ("PYROSCOPE_BASIC_AUTH_PASSWORD", "glc_secret"),
        ],
        "200 OK",
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("the server answered 200 stored"),
        "{stderr}"
    );
    assert_eq!(request.target.split('?').next(), Some("/ingest"));
    assert_eq!(
        request.param("name"),
        "iree-compile{branch=main,model=small}"
    );
    assert_eq!(request.param("format"), "pprof");
    let from: u64 = request.param("from").parse().unwrap();
    let until: u64 = request.param("until").parse().unwrap();
    assert!(from > 1_600_000_000 && from < until, "{from}..{until}");
    let token = base64::engine::general_purpose::STANDARD.encode("123456:glc_secret");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Basic {token}").as_str())
    );
    assert!(
        request
            .header("content-type")
            .unwrap()
            .starts_with("multipart/form-data")
    );
    let config: serde_json::Value =
        serde_json::from_slice(&request.form_part("sample_type_config")).unwrap();
    assert_eq!(config["cpu"]["units"], "samples");

    let dir = TempDir::new("push");
    let profile = dir.join("pushed.pb.gz");
    std::fs::write(&profile, request.form_part("profile")).unwrap();
    let samples = report_json(&fixture(RECORDING), &[], "category")["samples"]
        .as_u64()
        .unwrap();
    assert_eq!(raw_sample_total(&pprof(&["-raw"], &profile)), samples);
}

#[test]
fn push_of_folded_stacks_sends_them_as_the_body() {
    let (code, stderr, request) = push_to_listener(
        &fixture(RECORDING),
        &["--app", "x", "--format", "folded"],
        &[],
        "200 OK",
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        request.target.contains("format=folded"),
        "{}",
        request.target
    );
    let text = String::from_utf8(request.body).unwrap();
    let total: u64 = text
        .lines()
        .map(|line| line.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    let samples = report_json(&fixture(RECORDING), &[], "category")["samples"]
        .as_u64()
        .unwrap();
    assert_eq!(total, samples);
}

#[test]
fn a_server_that_says_no_is_reported_with_its_answer() {
    let (code, stderr, _) =
        push_to_listener(&fixture(RECORDING), &["--app", "x"], &[], "400 Bad Request");
    assert_eq!(code, Some(31), "{stderr}");
    assert!(
        stderr.contains("the server answered 400: stored"),
        "{stderr}"
    );
}

#[test]
fn a_refused_connection_is_exit_31_and_the_recording_is_unchanged() {
    let dir = TempDir::new("push-refused");
    let input = dir.join("perf.data");
    std::fs::copy(fixture(RECORDING), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = compile_perf([
        "push",
        input.to_str().unwrap(),
        "--url",
        &format!("http://127.0.0.1:{port}"),
        "--app",
        "x",
    ]);
    run.expect_code(31, "push to a closed port");
    assert!(
        run.stderr
            .contains(&format!("push to http://127.0.0.1:{port} failed"))
            && run.stderr.contains("Connection refused"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&input).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing else is written"
    );
}

#[test]
fn half_a_credential_is_refused_before_anything_is_sent() {
    let run = Command::new(bin())
        .args([
            "push",
            fixture(RECORDING).to_str().unwrap(),
            "--url",
            "http://127.0.0.1:9",
            "--app",
            "x",
        ])
        .env("PYROSCOPE_BASIC_AUTH_USER", "123")
        .env_remove("PYROSCOPE_BASIC_AUTH_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(31));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr
            .contains("PYROSCOPE_BASIC_AUTH_USER is set but PYROSCOPE_BASIC_AUTH_PASSWORD is not"),
        "{stderr}"
    );
}

#[test]
fn bad_labels_and_names_are_command_line_errors() {
    for args in [
        ["--app", "a{b}", "--label", "k=v"],
        ["--app", "a", "--label", "9k=v"],
    ] {
        let mut all = vec!["push", "perf.data", "--url", "http://127.0.0.1:9"];
        all.extend(args);
        compile_perf(&all).expect_code(2, "a bad --app or --label");
    }
}
