//! Live: the exports and the HTML report of a real iree-compile compile,
//! read back by the tools that open them. Every export holds the samples
//! `report` counts on the same filters; pprof is labelled and filters by
//! its labels in `go tool pprof`; the Firefox Profiler export has every
//! category of the report; the Chrome trace's outermost pass spans hold
//! every sample with a pass; `record`'s `report.html` opens in headless
//! Chromium with its tables, flamegraphs and timeline, needs no network
//! and is not blank; `push` labels the profile with what `run.json` knows.
//! Under `CI=true` these must run.

mod common;

use std::io::BufReader;
use std::path::Path;

use common::exports::{
    SAMPLE_FORMATS, export, firefox_categories, report_json, sample_total, trace_spans,
};
use common::ingest::push_to_listener;
use common::iree::{iree_live_prerequisites, live_lock, record_args, workload};
use common::viewers::{
    assert_not_asked, chromium, have_chromium, have_go, pprof, raw_sample_total,
};
use common::{TempDir, compile_perf};
use serde_json::Value;

#[test]
fn a_recorded_compile_exports_and_reports_in_html() {
    let _serial = live_lock();
    if !iree_live_prerequisites() || !have_go() || !have_chromium() {
        return;
    }
    let dir = TempDir::new("live-export");
    let input = workload(&dir, "many-dispatches");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &[], &input, &[])).expect_code(0, "record");
    let perf_data = run_dir.join("perf.data");

    for filters in [vec![], vec!["--compiler"]] {
        check_exports(&perf_data, &filters, &dir);
    }
    // The flamegraph of every process and the icicle: the compiler's own
    // picture is the flamegraph's widest root, not drawn a second time.
    let report = report_json(&perf_data, &[], "category");
    check_html(&run_dir.join("report.html"), &report, 2, &dir);

    // `report --format html` of the compiler process alone: the same two
    // pictures, of its samples.
    let page = dir.join("compiler.html");
    compile_perf([
        "report",
        perf_data.to_str().unwrap(),
        "--compiler",
        "--format",
        "html",
        "-q",
        "-o",
        page.to_str().unwrap(),
    ])
    .expect_code(0, "report --format html");
    check_html(
        &page,
        &report_json(&perf_data, &["--compiler"], "category"),
        2,
        &dir,
    );

    check_push_labels(&perf_data, &run_dir, &input, &dir);
}

/// `push` of a run directory's recording: the labels and the time range
/// come from its `run.json`, a label given wins, and the profile sent is
/// the compiler's.
fn check_push_labels(perf_data: &Path, run_dir: &Path, input: &Path, dir: &TempDir) {
    let run: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("run.json")).unwrap()).unwrap();
    let (code, stderr, request) = push_to_listener(
        perf_data,
        &["--app", "iree-compile", "--compiler", "--label", "host=ci"],
        &[],
        "200 OK",
    );
    assert_eq!(code, Some(0), "{stderr}");
    let version = run["iree_compile_version"]
        .as_str()
        .unwrap()
        .split("version ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let input_name = input.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        request.param("name"),
        format!("iree-compile{{compiler_version={version},host=ci,input={input_name}}}")
    );
    let start = run["start_time"].as_str().unwrap();
    let from: u64 = request.param("from").parse().unwrap();
    let until: u64 = request.param("until").parse().unwrap();
    let wall = run["wall_seconds"].as_f64().unwrap();
    assert_eq!(
        until - from,
        wall.ceil() as u64,
        "until is from + the wall time"
    );
    // from is the start, in seconds since the epoch, as `date -d` reads it.
    let date = std::process::Command::new("date")
        .args(["-u", "+%s", "-d", start])
        .output()
        .unwrap();
    let expected: u64 = String::from_utf8_lossy(&date.stdout)
        .trim()
        .parse()
        .unwrap();
    assert_eq!(from, expected, "from is run.json's start_time {start}");
    let profile = dir.join("pushed.pb.gz");
    std::fs::write(&profile, request.form_part("profile")).unwrap();
    let samples = report_json(perf_data, &["--compiler"], "category")["samples"]
        .as_u64()
        .unwrap();
    assert_eq!(raw_sample_total(&pprof(&["-raw"], &profile)), samples);
}

/// Every export of `perf_data` with `filters` against `report`.
fn check_exports(perf_data: &Path, filters: &[&str], dir: &TempDir) {
    let report = report_json(perf_data, filters, "category");
    let samples = report["samples"].as_u64().unwrap();
    assert!(samples > 200, "{filters:?}: {samples} samples");
    for format in SAMPLE_FORMATS {
        let path = export(perf_data, format, filters, dir);
        assert_eq!(sample_total(format, &path), samples, "{format} {filters:?}");
    }

    let pprof_file = export(perf_data, "pprof", filters, dir);
    let tags = pprof(&["-tags"], &pprof_file);
    for key in ["category", "pass", "thread"] {
        assert!(
            tags.contains(&format!(" {key}: Total")),
            "-tags lists {key}:\n{tags}"
        );
    }
    let top = &report["categories"][0];
    let id = top["id"].as_str().unwrap();
    let focused = pprof(
        &["-raw", &format!("-tagfocus=category_id=^{id}$")],
        &pprof_file,
    );
    assert_eq!(
        raw_sample_total(&focused),
        top["self_samples"].as_u64().unwrap(),
        "{id}"
    );
    let by_pass = report_json(perf_data, filters, "pass");
    let pass = by_pass["passes"]
        .as_array()
        .unwrap()
        .iter()
        // A pass's report row counts thread-pool work credited to it, which
        // the `pass` label (the stack's innermost pass) does not: compare a
        // pass nothing was credited to.
        .find(|pass| {
            !pass["name"].as_str().unwrap().starts_with('(')
                && pass["credited_samples"].as_u64() == Some(0)
        })
        .expect("a pass on the stacks with no credited samples");
    // Pass names such as `Canonicalizer (initialize)` hold regex syntax.
    let name = pass["name"].as_str().unwrap();
    let focus = format!("-tagfocus=pass=^{}$", regex::escape(name));
    let focused = pprof(&["-raw", &focus], &pprof_file);
    assert_eq!(
        raw_sample_total(&focused),
        pass["self_samples"].as_u64().unwrap(),
        "{name}"
    );

    let firefox = firefox_categories(&export(perf_data, "firefox", filters, dir));
    for category in report["categories"].as_array().unwrap() {
        let name = category["name"].as_str().unwrap();
        assert!(
            firefox.iter().any(|known| known == name),
            "{name} in {firefox:?}"
        );
    }

    let trace = export(perf_data, "chrome-trace", filters, dir);
    let spans = trace_spans(&trace);
    let outermost: u64 = spans
        .iter()
        .filter(|(_, depth, _)| *depth == 0)
        .map(|(.., n)| n)
        .sum();
    // Spans are made from the stacks: without the thread-pool samples the
    // report credits to a pass.
    let credited_to_passes: u64 = by_pass["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pass| pass["credited_samples"].as_u64().unwrap())
        .sum();
    let with_pass = by_pass["in_pass_manager_samples"].as_u64().unwrap() - credited_to_passes;
    assert_eq!(
        outermost, with_pass,
        "the outermost spans hold every sample with a pass"
    );
    assert!(
        spans.iter().any(|(span, ..)| span == name),
        "{name} has spans"
    );
}

/// Clicks a frame in each flamegraph of the page, then its "Reset Zoom",
/// and writes how many were clicked, how many of the clicked frames then
/// filled the width and got their width back after the reset, and the
/// errors the frames raised into `<pre id="click-result">`.
const CLICK_EVERY_FLAMEGRAPH: &str = "window.addEventListener('load',function(){\
var errors=[],clicked=0,zoomed=0,reset_=0;\
document.querySelectorAll('iframe.flamegraph').forEach(function(frame){\
var w=frame.contentWindow;w.addEventListener('error',function(e){errors.push(e.message);});\
var rects=w.document.querySelectorAll('#frames g rect');\
var target=rects[Math.min(3,rects.length-1)];\
if(!target){return;}var drawn=target.getAttribute('width');\
target.dispatchEvent(new w.MouseEvent('click',{bubbles:true}));clicked++;\
if(target.getAttribute('width')==='100.0000%'){zoomed++;}\
var reset=w.document.getElementById('unzoom');\
if(reset){reset.dispatchEvent(new w.MouseEvent('click',{bubbles:true}));}\
if(target.getAttribute('width')===drawn){reset_++;}});\
var out=document.createElement('pre');out.id='click-result';\
out.textContent='clicked '+clicked+' zoomed '+zoomed+' reset '+reset_+' errors '+errors.length+': '+errors.join(' | ');\
document.body.appendChild(out);});";

/// Counts the pass table's rows a reader sees with the fold closed, after a
/// click on its first header (a sort by name), and with the fold open, and
/// writes them, with whether the rows are in the sorted order, into
/// `<pre id="fold-result">`.
const COUNT_FOLDED_ROWS: &str = "window.addEventListener('load',function(){\
var table=document.getElementById('passes-table'),rows=table.tBodies[0].rows;\
function seen(){var n=0;for(var i=0;i<rows.length;i++){if(rows[i].getClientRects().length)n++;}return n;}\
var closed=seen();table.querySelector('th').click();var sorted=seen(),ordered=true;\
for(var i=1;i<rows.length;i++){if(rows[i-1].cells[0].textContent.localeCompare(rows[i].cells[0].textContent)>0)ordered=false;}\
var fold=table.parentNode.querySelector('details');if(fold){fold.open=true;}var open=seen();\
var out=document.createElement('pre');out.id='fold-result';\
out.textContent='closed '+closed+' sorted '+sorted+' open '+open+' of '+rows.length+' ordered '+ordered;\
document.body.appendChild(out);});";

/// The HTML report at `page`, opened in headless Chromium.
fn check_html(page: &Path, report: &Value, flamegraphs: usize, dir: &TempDir) {
    let html = std::fs::read_to_string(page).expect("the HTML report");
    assert!(html.len() > 100_000, "{} bytes", html.len());
    assert_no_remote_references(&html);
    // The contents first, then the run, the categories, the timeline near
    // the top, the pass table, and the flamegraphs last.
    let sections = [
        "<nav class=\"contents\"",
        "<h2 id=\"facts\"",
        "<h2 id=\"categories\"",
        "<h2 id=\"timeline\"",
        "<h2 id=\"passes\"",
        "<h2 id=\"flamegraph-0\"",
    ];
    let at: Vec<usize> = sections
        .iter()
        .map(|section| html.find(section).unwrap_or_else(|| panic!("{section}")))
        .collect();
    assert!(
        at.is_sorted(),
        "sections in this order: {sections:?} at {at:?}"
    );
    // No flamegraph as tall as the launcher's deep stacks made them (5,300
    // to 6,100 px): they are cut with a marker.
    for height in html.split("style=\"height:").skip(1) {
        let px: f64 = height[..height.find("px").unwrap()].parse().unwrap();
        assert!(px < 2500.0, "a flamegraph {px} px tall");
    }

    let (dom, requests) = chromium(page, &["--dump-dom", "--virtual-time-budget=5000"]);
    assert_not_asked(&html, &requests);
    let table = section(&dom, "id=\"categories-table\"", "</table>");
    for category in report["categories"].as_array().unwrap() {
        let name = category["name"].as_str().unwrap();
        assert!(
            table.contains(&format!("</span>{name}</td>")),
            "{name} in the category table"
        );
    }
    assert!(dom.contains("id=\"passes-table\""), "the pass table");
    let frames = dom.matches("<iframe class=\"flamegraph\"").count();
    assert_eq!(frames, flamegraphs, "flamegraphs");
    let frames_drawn = dom.matches("data-w=").count();
    assert!(frames_drawn > 100, "{frames_drawn} flamegraph frames");
    assert!(
        section(&dom, "class=\"timeline\"", "</div>").contains("<svg"),
        "the timeline SVG"
    );

    // A click on a frame of every flamegraph, then on "Reset Zoom", as a
    // user would click: the frame fills the width, then has its own back,
    // and no frame raises a page error.
    let clicking = dir.join("report-clicked.html");
    std::fs::write(
        &clicking,
        html.replace(
            "</body>",
            &format!("<script>{CLICK_EVERY_FLAMEGRAPH}{COUNT_FOLDED_ROWS}</script></body>"),
        ),
    )
    .unwrap();
    let (dom, _) = chromium(&clicking, &["--dump-dom", "--virtual-time-budget=5000"]);
    let result = section(&dom, "id=\"click-result\">", "</pre>");
    assert!(
        result.contains(&format!(
            "clicked {flamegraphs} zoomed {flamegraphs} reset {flamegraphs} errors 0:"
        )),
        "clicks on the flamegraphs: {result}"
    );
    // The pass table of a real compile (about 130 passes) shows 25 rows
    // until its fold is opened; a sort sorts every row and the fold keeps
    // the first 25 of the new order.
    let passes = html
        .split("id=\"passes-table\"")
        .nth(1)
        .and_then(|table| table.split("</table>").next())
        .map_or(0, |table| table.matches("<tr><td>").count());
    let folded = section(&dom, "id=\"fold-result\">", "</pre>");
    assert!(passes > 30, "{passes} passes");
    assert_eq!(
        folded,
        format!("id=\"fold-result\">closed 25 sorted 25 open {passes} of {passes} ordered true"),
    );

    let shot = dir.join("report.png");
    let (_, requests) = chromium(
        page,
        &[
            "--window-size=1280,2400",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    assert_not_asked(&html, &requests);
    let (colored, colors) = screenshot_ink(&shot);
    assert!(
        colored > 0.05 && colors > 20,
        "{colored:.3} of the pixels coloured, {colors} colours"
    );
}

/// The text of `dom` from `start` to the next `end`.
fn section<'a>(dom: &'a str, start: &str, end: &str) -> &'a str {
    let from = dom
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in the page"));
    let to = dom[from..].find(end).map_or(dom.len(), |at| from + at);
    &dom[from..to]
}

/// No attribute or style of the page, nor of the flamegraph documents in
/// it, loads anything from http(s) or a protocol-relative URL. (The SVGs'
/// namespace names and comments are no references.)
fn assert_no_remote_references(html: &str) {
    let unescaped = html
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
        .to_ascii_lowercase();
    let openers = [
        "src=", "href=", "srcset=", "action=", "poster=", "data=", "url(", "@import",
    ];
    for opener in openers {
        for (at, _) in unescaped.match_indices(opener) {
            let value = unescaped[at + opener.len()..].trim_start_matches([' ', '"', '\'']);
            assert!(
                !(value.starts_with("http:")
                    || value.starts_with("https:")
                    || value.starts_with("//")),
                "a remote reference: {}",
                &unescaped[at..(at + 80).min(unescaped.len())]
            );
        }
    }
}

/// The share of pixels that are not white, and how many colours there are.
fn screenshot_ink(png_path: &Path) -> (f64, usize) {
    let file = std::fs::File::open(png_path).expect("the screenshot");
    let mut reader = png::Decoder::new(BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("its pixels");
    let channels = info.color_type.samples();
    let mut colors = std::collections::HashSet::new();
    let mut colored = 0usize;
    let count = pixels.len() / channels;
    for pixel in pixels.chunks(channels) {
        let rgb = [pixel[0], pixel[1 % channels], pixel[2 % channels]];
        if rgb.iter().any(|&channel| channel < 240) {
            colored += 1;
        }
        colors.insert(rgb);
    }
    (colored as f64 / count as f64, colors.len())
}
