//! What a newcomer trips over, on the committed recordings: a run directory
//! as input, categories by name in any case, "did you mean" for a mistyped
//! category or pass, the inverted flamegraph's category level, and `record`
//! without `--`.

mod common;

use std::ffi::OsString;
use std::path::Path;

use common::{TempDir, compile_perf, fixture};

/// `compile-perf COMMAND INPUT --symfs fakecompiler -q ARGS`.
fn on(command: &str, input: &Path, args: &[&str]) -> common::Run {
    let mut argv: Vec<OsString> = vec![command.into(), input.into()];
    argv.extend([
        "--symfs".into(),
        fixture("fakecompiler").into(),
        "-q".into(),
    ]);
    argv.extend(args.iter().map(OsString::from));
    compile_perf(argv)
}

#[test]
fn a_run_directory_reads_as_its_perf_data_and_one_without_is_named() {
    let dir = TempDir::new("newcomer-run-dir");
    let run_dir = dir.join("run");
    std::fs::create_dir(&run_dir).unwrap();
    std::fs::copy(fixture("fake-dwarf.perf.data"), run_dir.join("perf.data")).unwrap();
    std::fs::write(
        run_dir.join("run.json"),
        r#"{"wall_seconds": 0.9, "peak_rss_bytes": 10485760, "exit": {"code": 0, "signal": null}}"#,
    )
    .unwrap();
    let from_file = on("report", &fixture("fake-dwarf.perf.data"), &[]);
    from_file.expect_code(0, "report of the file");
    let from_dir = on("report", &run_dir, &[]);
    from_dir.expect_code(0, "report of the run directory");
    // The same table, and run.json's facts in the header.
    let table = |text: &str| {
        text.split_once("category ")
            .map(|(_, rest)| rest.to_owned())
    };
    assert_eq!(table(&from_dir.stdout), table(&from_file.stdout));
    assert!(
        from_dir
            .stdout
            .contains("run: 0.9 s wall, peak RSS 10 MiB, exit 0"),
        "{}",
        from_dir.stdout
    );
    for command in ["flamegraph", "timeline"] {
        let svg = dir.join(format!("{command}.svg"));
        let svg_arg = svg.to_str().unwrap();
        on(command, &run_dir, &["-o", svg_arg]).expect_code(0, command);
        let drawn = std::fs::read_to_string(&svg).unwrap();
        assert!(drawn.starts_with("<?xml"), "{command}");
        assert!(
            drawn.contains("0.9 s wall, peak RSS 10 MiB"),
            "{command}: run.json's facts"
        );
    }

    let empty = dir.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let refused = on("report", &empty, &[]);
    refused.expect_code(3, "a directory without perf.data");
    assert!(
        refused
            .stderr
            .contains("is a directory without a perf.data"),
        "{}",
        refused.stderr
    );
    // A directory of runs points at one of them, and at diff.
    let series = dir.join("series");
    std::fs::create_dir_all(series.join("run-1")).unwrap();
    std::fs::copy(
        fixture("fake-dwarf.perf.data"),
        series.join("run-1/perf.data"),
    )
    .unwrap();
    let refused = on("report", &series, &[]);
    refused.expect_code(3, "a directory of runs");
    assert!(
        refused.stderr.contains("1 run directories are in it")
            && refused.stderr.contains("run-1")
            && refused.stderr.contains("compile-perf diff"),
        "{}",
        refused.stderr
    );
}

#[test]
fn categories_are_taken_by_id_or_name_in_any_case_and_typos_get_suggestions() {
    let dir = TempDir::new("newcomer-category");
    let input = fixture("fake-dwarf.perf.data");
    let mut pictures = Vec::new();
    for (index, wanted) in ["apfloat", "APFloat/APInt", "apfloat/APINT"]
        .iter()
        .enumerate()
    {
        let svg = dir.join(format!("{index}.svg"));
        on(
            "flamegraph",
            &input,
            &["--category", wanted, "-o", svg.to_str().unwrap()],
        )
        .expect_code(0, wanted);
        pictures.push(std::fs::read_to_string(&svg).unwrap());
    }
    assert!(pictures[0].contains("IEEEFloat::multiply"));
    assert_eq!(pictures[0], pictures[1]);
    assert_eq!(pictures[0], pictures[2]);

    let typo = on(
        "flamegraph",
        &input,
        &[
            "--category",
            "lexr",
            "-o",
            dir.join("x.svg").to_str().unwrap(),
        ],
    );
    typo.expect_code(13, "an unknown category");
    assert!(
        typo.stderr.contains("did you mean: Lexer, "),
        "{}",
        typo.stderr
    );
    // Three suggestions, not the whole table.
    let suggested = typo.stderr.split("did you mean: ").nth(1).unwrap();
    assert_eq!(suggested.split('?').next().unwrap().split(", ").count(), 3);
}

#[test]
fn the_inverted_flamegraph_starts_with_the_categories() {
    let dir = TempDir::new("newcomer-inverted");
    let svg = dir.join("inverted.svg");
    on(
        "flamegraph",
        &fixture("fake-dwarf.perf.data"),
        &["--inverted", "-o", svg.to_str().unwrap()],
    )
    .expect_code(0, "flamegraph --inverted");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    // Each category's frame holds its self samples, as report counts them.
    for (category, samples) in [
        ("Lexer", 206),
        ("APFloat/APInt", 153),
        ("Constant folding", 103),
    ] {
        assert!(
            drawn.contains(&format!("<title>[{category}] ({samples} samples,")),
            "{category}"
        );
    }
}

#[test]
fn record_without_double_dash_says_to_put_it_before_the_command() {
    let run = compile_perf(["record", "ls", "-l"]);
    run.expect_code(2, "record ls");
    assert!(
        run.stderr
            .contains("tip: put `--` before the command to record"),
        "{}",
        run.stderr
    );
}
