//! `report`, `flamegraph` and `rules` on the committed recordings: category
//! totals, every format and `--by`, caller attribution, user rule files, and
//! the SVG (well-formed, legend matching the report) with its failure cases.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{bin, fixture, make_fifo};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compile-perf-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs compile-perf on the DWARF fixture with `args` after the subcommand.
fn on_fixture(command: &str, args: &[&str]) -> Output {
    Command::new(bin())
        .arg(command)
        .arg(fixture("fake-dwarf.perf.data"))
        .arg("--symfs")
        .arg(fixture("fakecompiler"))
        .arg("-q")
        .args(args)
        .output()
        .expect("compile-perf runs")
}

fn success(output: Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn report_json(args: &[&str]) -> Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_str(&success(on_fixture("report", &all))).unwrap()
}

/// `id -> (self, inclusive)` of a category report.
fn category_samples(report: &Value) -> HashMap<String, (u64, u64)> {
    report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|category| {
            (
                category["id"].as_str().unwrap().to_owned(),
                (
                    category["self_samples"].as_u64().unwrap(),
                    category["inclusive_samples"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

#[test]
fn categories_follow_the_known_time_split() {
    let report = report_json(&[]);
    assert_eq!(report["samples"], 518);
    let samples = category_samples(&report);
    assert_eq!(
        samples["lexer"].0,
        128 + 78,
        "lexString and getHexStringValue"
    );
    assert_eq!(samples["apfloat"], (153, 153));
    assert_eq!(samples["folding"], (103, 103));
    assert_eq!(samples["bufferization"], (52, 52));
    let self_total: u64 = samples.values().map(|(own, _)| own).sum();
    assert_eq!(self_total, 518, "self shares add up to every sample");

    let first = &report["categories"][0];
    assert_eq!(first["id"], "lexer");
    assert_eq!(first["name"], "Lexer");
    assert!(first["color"].as_str().unwrap().starts_with('#'));
    assert_eq!(first["self_percent"], 39.77);
    assert_eq!(
        first["top_symbols"][0]["symbol"],
        "mlir::Lexer::lexString(char const*)"
    );
    assert_eq!(first["top_symbols"][0]["self_samples"], 128);
}

#[test]
fn caller_attribution_charges_kernel_interrupts_to_the_compiler_code_below() {
    let leaf = category_samples(&report_json(&[]));
    let caller = category_samples(&report_json(&["--attribution", "caller"]));
    assert_eq!(caller["lexer"].0, leaf["lexer"].0 + 3);
    assert_eq!(caller.get("kernel").map_or(0, |(own, _)| *own), 0);
    assert_eq!(
        caller["lexer"].1, leaf["lexer"].1,
        "inclusive does not change"
    );
}

#[test]
fn rows_can_be_threads_processes_symbols_and_binaries() {
    let threads = report_json(&["--by", "thread"]);
    let rows: Vec<(String, u64)> = threads["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["key"].as_str().unwrap().to_owned(),
                row["self_samples"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 2);
    // A thread reads `process: thread (pid/tid)`, as `diff` names it
    // without the pids.
    assert!(
        rows[0].0.starts_with("fakecompiler: fakecompiler (7497/") && rows[0].1 == 262,
        "{rows:?}"
    );
    assert!(
        rows[1].0.starts_with("fakecompiler: llvm-worker-0 (7497/") && rows[1].1 == 256,
        "{rows:?}"
    );
    assert_eq!(threads["rows"][1]["top"][0]["name"], "apfloat");

    let symbols = report_json(&["--by", "symbol"]);
    assert_eq!(
        symbols["rows"][0]["key"],
        "llvm::detail::IEEEFloat::multiply(llvm::detail::IEEEFloat const&, llvm::RoundingMode, unsigned long)"
    );
    let dsos = report_json(&["--by", "dso"]);
    assert_eq!(dsos["rows"][0]["key"], "fakecompiler");
    assert_eq!(dsos["rows"][0]["self_samples"], 514);
    let processes = report_json(&["--by", "process", "--pid", "7497"]);
    assert_eq!(processes["rows"][0]["self_samples"], 518);
    assert_eq!(processes["rows"][0]["key"], "fakecompiler (7497)");
    let nobody = report_json(&["--pid", "1"]);
    assert_eq!(nobody["samples"], 0);
}

#[test]
fn text_markdown_and_csv_show_the_same_rows() {
    let table = success(on_fixture("report", &[]));
    assert!(
        table.starts_with("command: ./fakecompiler 250\n"),
        "{table}"
    );
    assert!(table.contains("event: cpu-clock, 518 samples"));
    let lexer_line = table.lines().find(|line| line.contains("Lexer")).unwrap();
    assert!(
        lexer_line.contains("206") && lexer_line.contains("39.8%"),
        "{lexer_line}"
    );
    assert!(
        lexer_line.contains("mlir::Lexer::lexString (128)"),
        "{lexer_line}"
    );
    assert!(!table.contains('\x1b'), "no colour codes when piped");
    let colored = success(on_fixture("report", &["--color", "always"]));
    assert!(
        colored.contains("\x1b[38;2;31;119;180m"),
        "the lexer swatch in its colour"
    );

    let markdown = success(on_fixture("report", &["--format", "markdown"]));
    assert!(markdown.contains("| category | self | self% | incl% | top symbols |"));
    assert!(markdown.contains("| Lexer | 206 | 39.8% |"));
    let csv = success(on_fixture("report", &["--format", "csv"]));
    assert!(csv.starts_with("category,self,self%,incl%,top symbols\n"));
    assert!(csv.contains("\nLexer,206,39.8%,"));
}

#[test]
fn a_rules_file_renames_adds_and_takes_precedence() {
    let rules = scratch("rules.toml");
    std::fs::write(
        &rules,
        "[[category]]\nid = \"tokens\"\nname = \"Token decoding\"\ncolor = \"#000000\"\n\n[[rule]]\ncategory = \"tokens\"\nsymbol = '^mlir::Token::'\nexamples = [\"fakecompiler mlir::Token::getHexStringValue() const\"]\n",
    )
    .unwrap();
    let report = report_json(&["--rules", rules.to_str().unwrap()]);
    let samples = category_samples(&report);
    assert_eq!(samples["tokens"].0, 78);
    assert_eq!(samples["lexer"].0, 128);

    std::fs::write(&rules, "[[rule]]\ncategory = \"lexer\"\nsymbol = \"(\"\n").unwrap();
    let output = on_fixture("report", &["--rules", rules.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(12));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("rules.toml:3:10: bad regex"), "{err}");

    let listing = Command::new(bin())
        .args(["rules", "--format", "markdown"])
        .output()
        .unwrap();
    let listing = success(listing);
    assert!(listing.contains("| lexer | Lexer |"), "{listing}");
    assert!(listing.contains("Rules, first match wins"));
    assert!(
        listing.contains("| 1 | kernel |"),
        "the kernel rule is tried first"
    );
}

/// Runs `rules --rules FILE` and returns its stderr, which must come with exit 12.
fn refused_rules(file: &Path) -> String {
    let output = Command::new(bin())
        .arg("rules")
        .arg("--rules")
        .arg(file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(12),
        "{}: {stderr}",
        file.display()
    );
    assert!(output.stdout.is_empty(), "no table is printed");
    stderr
}

#[test]
fn a_rules_file_with_a_mistake_in_its_table_is_refused_with_its_place() {
    let cases = [
        (
            "twice.toml",
            "[[category]]\nid = \"mine\"\ncolor = \"#000000\"\n\n[[category]]\nid = \"mine\"\ncolor = \"#ffffff\"\n",
            "twice.toml:6:6: category \"mine\" is already defined at line 2 of this file",
        ),
        (
            "empty-id.toml",
            "[[category]]\nid = \"\"\ncolor = \"#000000\"\n",
            "empty-id.toml:2:6: a category id must not be empty",
        ),
        (
            "no-pattern.toml",
            "[[rule]]\ncategory = \"lexer\"\n",
            "no-pattern.toml:2:12: this rule has no `symbol`, `dso` or `space` to match on",
        ),
        (
            "example.toml",
            "[[rule]]\ncategory = \"lexer\"\nsymbol = '^mlir::Token::'\nexamples = [\"fakecompiler mlir::Token::getHexStringValue() const\", \"fakecompiler main\"]\n",
            "example.toml:4:68: the rule does not match its example \"fakecompiler main\"",
        ),
    ];
    for (name, text, expected) in cases {
        let file = scratch(name);
        std::fs::write(&file, text).unwrap();
        let stderr = refused_rules(&file);
        assert!(stderr.contains(expected), "{name}: {stderr}");
    }

    // Without the mistake, the same rule reports the fixture: a no-pattern
    // rule would have taken all 518 samples.
    let fixed = scratch("fixed.toml");
    std::fs::write(
        &fixed,
        "[[rule]]\ncategory = \"lexer\"\nsymbol = '^mlir::Token::'\nexamples = [\"fakecompiler mlir::Token::getHexStringValue() const\"]\n",
    )
    .unwrap();
    let report = report_json(&["--rules", fixed.to_str().unwrap()]);
    assert_eq!(category_samples(&report)["lexer"].0, 128 + 78);
}

#[test]
fn a_rules_file_longer_than_16_mib_is_refused_before_it_fills_memory() {
    let too_long = "longer than 16 MiB, the most a rules file may have";
    let stderr = refused_rules(Path::new("/dev/zero"));
    assert!(
        stderr.contains("/dev/zero") && stderr.contains(too_long),
        "{stderr}"
    );

    let huge = scratch("huge.toml");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((16 << 20) + 1)
        .unwrap();
    assert!(refused_rules(&huge).contains(too_long));

    // A FIFO whose writer never stops.
    let fifo = scratch("endless.toml");
    make_fifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let mut pipe = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let comments = "# a comment line, again and again\n".repeat(1000);
            // Ends when the reader closes the FIFO (EPIPE).
            while pipe.write_all(comments.as_bytes()).is_ok() {}
        })
    };
    assert!(refused_rules(&fifo).contains(too_long));
    writer.join().unwrap();
}

/// `(category id, colour)` of each legend entry of an SVG, checking that the
/// whole document is well-formed XML.
fn legend_of(svg: &str) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_str(svg);
    let mut legend = Vec::new();
    let mut current = None;
    loop {
        match reader.read_event().expect("the SVG is well-formed XML") {
            quick_xml::events::Event::Eof => return legend,
            quick_xml::events::Event::Start(element) | quick_xml::events::Event::Empty(element) => {
                let attribute = |name: &[u8]| {
                    element
                        .try_get_attribute(name)
                        .unwrap()
                        .map(|value| String::from_utf8(value.value.to_vec()).unwrap())
                };
                if let Some(category) = attribute(b"data-category") {
                    current = Some(category);
                } else if element.name().as_ref() == b"rect" {
                    if let Some(category) = current.take() {
                        legend.push((category, attribute(b"fill").unwrap()));
                    }
                }
            }
            _ => {}
        }
    }
}

#[test]
fn the_flamegraph_is_well_formed_and_its_legend_matches_the_report() {
    let svg_path = scratch("flame.svg");
    let folded_path = scratch("flame.folded");
    success(on_fixture(
        "flamegraph",
        &[
            "-o",
            svg_path.to_str().unwrap(),
            "--folded-out",
            folded_path.to_str().unwrap(),
        ],
    ));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let legend = legend_of(&svg);
    let report = report_json(&[]);
    let expected: Vec<(String, String)> = report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|category| {
            (
                category["id"].as_str().unwrap().to_owned(),
                category["color"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(legend, expected);
    assert!(svg.contains("<text id=\"title\""), "the title is there");
    for control in ["zoom", "resetZoom", "search", "resetSearch"] {
        assert!(
            svg.contains(&format!("function {control}(")),
            "the script's {control} is there"
        );
    }
    for id in ["unzoom", "search", "matched", "details"] {
        assert!(
            svg.contains(&format!("<text id=\"{id}\"")),
            "the control {id} is there"
        );
    }
    let lexer_color = &expected[0].1;
    let (r, g, b) = (
        u8::from_str_radix(&lexer_color[1..3], 16).unwrap(),
        u8::from_str_radix(&lexer_color[3..5], 16).unwrap(),
        u8::from_str_radix(&lexer_color[5..7], 16).unwrap(),
    );
    let lex_frame = svg
        .split("<title>")
        .find(|frame| frame.starts_with("mlir::Lexer::lexString(char const*) ("))
        .expect("a lexString frame");
    assert!(
        lex_frame.contains(&format!("fill=\"rgb({r},{g},{b})\"")),
        "{lex_frame}"
    );
    let folded = std::fs::read_to_string(&folded_path).unwrap();
    let total: u64 = folded
        .lines()
        .map(|line| line.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 518);
}

#[test]
fn a_category_flamegraph_keeps_only_stacks_with_that_category() {
    let svg_path = scratch("lexer.svg");
    let folded_path = scratch("lexer.folded");
    success(on_fixture(
        "flamegraph",
        &[
            "-o",
            svg_path.to_str().unwrap(),
            "--category",
            "lexer",
            "--inverted",
            "--folded-out",
            folded_path.to_str().unwrap(),
        ],
    ));
    let folded = std::fs::read_to_string(&folded_path).unwrap();
    assert!(
        folded
            .lines()
            .all(|line| line.contains("mlir::Lexer::") || line.contains("mlir::Token::"))
    );
    let total: u64 = folded
        .lines()
        .map(|line| line.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 209, "lexer's inclusive samples");
    legend_of(&std::fs::read_to_string(&svg_path).unwrap());
}

/// The `height` of an SVG's root element and its frames' `total_samples`.
fn height_and_total(svg: &str) -> (u64, u64) {
    let value = |prefix: &str| {
        let start = svg.find(prefix).unwrap() + prefix.len();
        svg[start..start + svg[start..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    (value(" height=\""), value("total_samples=\""))
}

#[test]
fn a_depth_limit_cuts_deep_stacks_under_a_marker_and_keeps_every_sample() {
    let draw = |depth: &str, inverted: bool| {
        let svg_path = scratch(&format!("depth-{depth}-{inverted}.svg"));
        let mut args = vec!["-o", svg_path.to_str().unwrap(), "--max-depth", depth];
        if inverted {
            args.push("--inverted");
        }
        success(on_fixture("flamegraph", &args));
        std::fs::read_to_string(&svg_path).unwrap()
    };
    // The fixture's stacks are at most 12 functions deep: `auto` (at least
    // 64 frames) draws them whole, as `all` does.
    assert_eq!(draw("auto", false), draw("all", false));
    let (whole, cut) = (draw("all", false), draw("3", false));
    let ((whole_height, whole_total), (cut_height, cut_total)) =
        (height_and_total(&whole), height_and_total(&cut));
    assert_eq!(cut_total, whole_total, "every sample is still counted");
    assert_eq!(cut_total, 518);
    assert!(
        cut_height < whole_height,
        "{cut_height} px against {whole_height} px"
    );
    assert!(!whole.contains("deeper frame"));
    assert!(
        cut.contains(" deeper frame"),
        "a marker stands for the frames cut"
    );
    legend_of(&cut);
    let icicle = draw("3", true);
    assert_eq!(height_and_total(&icicle).1, 518);
    assert!(
        icicle.contains(" outer frame"),
        "an icicle cuts the outer callers"
    );
    assert!(!icicle.contains(" deeper frame"));

    let svg_path = scratch("never-deep.svg");
    let output = on_fixture(
        "flamegraph",
        &["-o", svg_path.to_str().unwrap(), "--max-depth", "0"],
    );
    assert_eq!(output.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&output.stderr).contains("`auto`, `all` or a number"));
    assert!(!svg_path.exists());
}

#[test]
fn bad_flamegraph_requests_fail_cleanly_and_leave_no_file() {
    let svg_path = scratch("never.svg");
    let output = on_fixture(
        "flamegraph",
        &["-o", svg_path.to_str().unwrap(), "--category", "nope"],
    );
    assert_eq!(output.status.code(), Some(13));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no category \"nope\""));
    assert!(!svg_path.exists());

    let unwritable = Path::new("/nonexistent-dir/out.svg");
    let output = on_fixture("flamegraph", &["-o", unwritable.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot write /nonexistent-dir/out.svg")
    );

    let output = on_fixture(
        "flamegraph",
        &["-o", svg_path.to_str().unwrap(), "--pid", "1"],
    );
    assert_eq!(output.status.code(), Some(14));
    assert!(!svg_path.exists());
    let leftovers: Vec<_> = std::fs::read_dir(svg_path.parent().unwrap())
        .unwrap()
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_name().to_string_lossy().contains(".partial-"))
        .collect();
    assert!(leftovers.is_empty(), "no partial files are left behind");
}

/// `report --by pass` of a run directory with a `mlir-timing.json`: a file
/// that is not MLIR's timing report is a notice, not a failure; a report's
/// timers that no pass on the stacks has are listed, not dropped (the
/// fixture's fake compiler has no MLIR passes).
#[test]
fn mlir_timing_beside_the_recording_is_joined_or_named_as_unreadable() {
    let dir = common::TempDir::new("report-mlir-timing");
    std::fs::copy(fixture("fake-dwarf.perf.data"), dir.join("perf.data")).unwrap();
    let report = |format: &str| {
        Command::new(bin())
            .args([
                "report", "--by", "pass", "--format", format, "-q", "--symfs",
            ])
            .arg(fixture("fakecompiler"))
            .arg(dir.join("perf.data"))
            .output()
            .expect("compile-perf runs")
    };
    std::fs::write(dir.join("mlir-timing.json"), "[\n{\"oops\"").unwrap();
    let text = success(report("table"));
    assert!(
        text.contains("mlir-timing.json is not MLIR's timing report"),
        "{text}"
    );
    std::fs::write(
        dir.join("mlir-timing.json"),
        concat!(
            "[\n",
            "{\"user\": {\"duration\": 0.5}, \"wall\": {\"duration\": 0.25}, \"name\": \"'func.func' Pipeline\", \"passes\": [\n",
            "  {\"user\": {\"duration\": 0.5}, \"wall\": {\"duration\": 0.125}, \"name\": \"CSEPass\", \"passes\": [\n",
            "  {}]},\n",
            "{}]},\n",
            "{\"user\": {\"duration\": 1.0}, \"wall\": {\"duration\": 0.75}, \"name\": \"Total\"}\n",
            "]\n"
        ),
    )
    .unwrap();
    let json: Value = serde_json::from_str(&success(report("json"))).unwrap();
    assert_eq!(json["mlir_timing_total_wall_seconds"], 0.75);
    let only: Vec<(&str, &str, f64)> = json["timer_only"]
        .as_array()
        .unwrap()
        .iter()
        .map(|timer| {
            (
                timer["name"].as_str().unwrap(),
                timer["kind"].as_str().unwrap(),
                timer["timer_wall_seconds"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        only,
        [
            ("'func.func' Pipeline", "pipeline", 0.25),
            ("CSEPass", "pass", 0.125)
        ]
    );
    let csv = success(report("csv"));
    assert!(
        csv.contains("timer with no pass frame on the stacks,kind,timers,timer s"),
        "{csv}"
    );
    assert!(csv.contains("CSEPass,pass,1,0.125"), "{csv}");
}

#[test]
fn rows_of_actions_need_a_run_recorded_with_actions() {
    for by in ["pattern", "unit"] {
        let output = on_fixture("report", &["--by", by]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(15), "--by {by}: {stderr}");
        assert!(
            stderr.contains(&format!("report --by {by} needs MLIR's actions"))
                && stderr.contains("record --actions"),
            "--by {by} says what is missing and how to record it: {stderr}"
        );
    }
}
