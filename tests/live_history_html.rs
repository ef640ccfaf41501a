//! Live: `record --history` on real iree-compile compiles, and the
//! dashboard of the runs it kept, in headless Chromium. Four quick runs of
//! one small workload:
//!
//! - one with `--history` and a corrupt store: the store's exit code (50),
//!   the run directory intact, and `history add` of it afterwards works;
//! - two with `--repeat 2 --history`: each run added as it finishes, with
//!   its key, commit and label, and `history show --format json` lists all
//!   three;
//! - `history html` of the store loads in Chromium with no page error and
//!   no request the page made (Chromium's own background requests to its
//!   services are not the page's), and a click on a point shows that run's
//!   identity, and only it, in the details panel.
//!
//! Under `CI=true` this must run.

mod common;

use std::ffi::OsString;
use std::path::Path;

use common::history::{assert_self_contained, charts};
use common::iree::{iree_live_prerequisites, live_lock, record_args, workload};
use common::viewers::{assert_not_asked, chromium, have_chromium};
use common::{TempDir, compile_perf};

/// Collects the page's errors from its first script on.
const CATCH_ERRORS: &str = "<script>window.pageErrors=[];\
window.addEventListener('error',function(e){window.pageErrors.push(e.message);});</script>";

/// Clicks the second point of the first chart, as a user would, and writes
/// the run it carries, what the details panel then shows and the page's
/// errors into `<pre id="click-result">`.
const CLICK_A_POINT: &str = "<script>window.addEventListener('load',function(){\
var point=document.querySelectorAll('figure.trend')[0].querySelectorAll('.point[data-run]')[1];\
point.dispatchEvent(new MouseEvent('click',{bubbles:true}));\
var out=document.createElement('pre');out.id='click-result';\
out.textContent='clicked '+point.getAttribute('data-run')+' errors '+window.pageErrors.length+': '\
+window.pageErrors.join(' | ')+' shown: '+document.getElementById('details').innerText.replace(/\\s+/g,' ');\
document.body.appendChild(out);});</script>";

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// `record RECORD_FLAGS -o DIR -- iree-compile … INPUT`.
fn record(dir: &Path, flags: &[&str], input: &Path) -> common::Run {
    compile_perf(record_args(dir, flags, input, &[]))
}

#[test]
fn recorded_runs_go_to_the_store_and_the_dashboard_shows_the_one_clicked() {
    let _serial = live_lock();
    if !iree_live_prerequisites() || !have_chromium() {
        return;
    }
    let dir = TempDir::new("live-history-html");
    let input = workload(&dir, "many-dispatches");
    let db = dir.join("history.db").display().to_string();
    let corrupt = dir.join("corrupt.db");
    std::fs::write(&corrupt, vec![b'x'; 4096]).unwrap();
    let corrupt = corrupt.display().to_string();
    let key = "model=many-dispatches";

    // A store that cannot be opened: the run is kept, the exit code is 50.
    let kept = dir.join("kept");
    let run = record(
        &kept,
        &["--history", "--db", &corrupt, "--key", key],
        &input,
    );
    run.expect_code(50, "record --history into a corrupt store");
    assert!(
        run.stderr.contains("file is not a database") && run.stderr.contains("the run is kept in"),
        "{}",
        run.stderr
    );
    assert!(
        kept.join("report.html").is_file(),
        "the run directory is whole"
    );
    let mut add = os(&["history", "add"]);
    add.push(kept.clone().into());
    add.extend(os(&["--db", &db, "--key", key]));
    compile_perf(&add).expect_code(0, "history add of the kept run");

    // Two runs of a series, each added as it finishes.
    let series = dir.join("series");
    let run = record(
        &series,
        &[
            "--repeat",
            "2",
            "--history",
            "--db",
            &db,
            "--key",
            key,
            "--commit",
            "abc123",
            "--label",
            "ci=yes",
        ],
        &input,
    );
    run.expect_code(0, "record --repeat 2 --history");
    assert_eq!(
        run.stderr.matches("compile-perf: history: added").count(),
        2,
        "{}",
        run.stderr
    );
    let shown = compile_perf(os(&[
        "history", "show", "--db", &db, "--key", key, "--format", "json",
    ]));
    shown.expect_code(0, "history show");
    let json = shown.json();
    let runs = json["runs"].as_array().unwrap();
    let paths: Vec<&str> = runs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    let expected = [kept.clone(), series.join("run-1"), series.join("run-2")];
    assert_eq!(
        paths,
        expected
            .iter()
            .map(|p| p.to_str().unwrap())
            .collect::<Vec<_>>()
    );
    for run in &runs[1..] {
        assert_eq!(run["commit"], "abc123");
        assert_eq!(run["labels"]["ci"], "yes");
        assert!(run["metrics"]["wall_seconds"].as_f64().unwrap() > 0.0);
    }
    let identities: Vec<&str> = runs
        .iter()
        .map(|r| r["identity"].as_str().unwrap())
        .collect();

    // The dashboard: self-contained, every run a point of each measure.
    let page = dir.join("dashboard.html");
    compile_perf(os(&[
        "history",
        "html",
        "-o",
        page.to_str().unwrap(),
        "--db",
        &db,
    ]))
    .expect_code(0, "history html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    let charts = charts(&html);
    let wall = charts
        .iter()
        .find(|c| c.metric == "wall_seconds")
        .expect("a wall-time chart");
    let on_chart: Vec<&str> = wall.points.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(on_chart, identities);

    let (dom, requests) = chromium(&page, &["--dump-dom", "--virtual-time-budget=5000"]);
    assert_not_asked(&html, &requests);
    assert!(dom.contains("id=\"details-empty\""), "the details panel");

    let clicking = dir.join("dashboard-clicked.html");
    let injected = html
        .replacen("<head>", &format!("<head>{CATCH_ERRORS}"), 1)
        .replace("</body>", &format!("{CLICK_A_POINT}</body>"));
    std::fs::write(&clicking, injected).unwrap();
    let (dom, requests) = chromium(&clicking, &["--dump-dom", "--virtual-time-budget=5000"]);
    assert_not_asked(&html, &requests);
    let start = dom
        .find("id=\"click-result\">")
        .expect("the click's result");
    let result = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let first_chart = &charts[0];
    let clicked = &first_chart.points[1].0;
    assert!(
        result.contains(&format!("clicked {clicked} errors 0: ")),
        "{result}"
    );
    let shown = result.split(" shown: ").nth(1).unwrap_or("");
    assert!(shown.contains(clicked.as_str()), "{result}");
    assert!(shown.contains("Run "), "{result}");
    for other in identities.iter().filter(|id| *id != clicked) {
        assert!(!shown.contains(other), "{other} shown too: {result}");
    }
    assert!(!shown.contains("Click a point"), "{result}");
}
