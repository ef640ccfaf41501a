//! `history` against real stores, without a compiler: a run directory made
//! from a fixture recording, stored in an SQLite file and on a throwaway
//! PostgreSQL cluster (`scripts/postgres.sh`; under `CI=true` it must
//! start). Adding a run twice is a no-op; a `kill -9` inside `add`'s
//! transaction leaves the store without the run, and adding it again stores
//! it whole; a corrupt store, a newer schema, a password in the URL, an
//! unreachable server and a directory that is no run each have their exit
//! code and a message that says what to do. The dashboard (`history
//! html`) of stored runs is one page that loads nothing, with a chart per
//! key and metric whose points are the runs, the flagged ones marked.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::history::{
    Store, assert_self_contained, charts, fixture_run, fixture_run_of, postgres, sqlite, unique_key,
};
use common::{TempDir, bin, compile_perf};
use serde_json::Value;

/// `history show --db DB --key KEY --format json`, which must exit 0.
fn show(store: &Store, key: &str) -> Value {
    let run = compile_perf([
        "history", "show", "--db", &store.db, "--key", key, "--format", "json",
    ]);
    run.expect_code(0, &format!("history show on {}", store.name));
    run.json()
}

fn add(store: &Store, key: &str, dir: &std::path::Path) -> common::Run {
    let dir = dir.display().to_string();
    compile_perf(["history", "add", &dir, "--db", &store.db, "--key", key])
}

/// The kill -9 test and the no-op of adding twice, on one store.
fn kill_inside_add_leaves_the_store_consistent(store: &Store, scratch: &TempDir) {
    let key = unique_key(store.name);
    let run_dir = fixture_run(scratch.path(), &format!("run-{}", store.name), 1.5);
    let mut child = Command::new(bin())
        .args(["history", "add"])
        .arg(&run_dir)
        .args(["--db", &store.db, "--key", &key])
        .env("COMPILE_PERF_HISTORY_TEST_PAUSE", "60")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "{}: add ended before its pause",
            store.name
        );
        if line.contains("paused inside the transaction") {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let after_kill = show(store, &key);
    assert_eq!(
        after_kill["runs"].as_array().unwrap().len(),
        0,
        "{}: a killed add left a run behind: {after_kill:#}",
        store.name
    );
    assert!(after_kill["trends"].as_array().unwrap().is_empty());

    add(store, &key, &run_dir).expect_code(0, "add after the kill");
    let again = add(store, &key, &run_dir);
    again.expect_code(0, "the same run added twice");
    assert!(again.stderr.contains("already has"), "{}", again.stderr);
    let stored = show(store, &key);
    let runs = stored["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{}: {stored:#}", store.name);
    let metrics = runs[0]["metrics"].as_object().unwrap();
    // Wall, CPU, RSS, and the recording's five categories and one pass.
    assert_eq!(metrics.len(), 9, "{}: {metrics:?}", store.name);
    assert_eq!(metrics["wall_seconds"], 1.5);
    assert_eq!(metrics["peak_rss_bytes"], 104857600.0);
    assert!(
        metrics["category:lexer"].as_f64().unwrap() > 30.0,
        "{metrics:?}"
    );
    assert_eq!(runs[0]["path"], run_dir.display().to_string());
}

#[test]
fn a_kill_9_inside_add_leaves_sqlite_without_the_run_and_adding_again_stores_it_once() {
    let scratch = TempDir::new("history-kill-sqlite");
    let store = sqlite(&scratch);
    kill_inside_add_leaves_the_store_consistent(&store, &scratch);
    let check = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])")
        .arg(&store.db)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&check.stdout).trim(), "ok");
}

#[test]
fn a_kill_9_inside_add_leaves_postgres_without_the_run_and_adding_again_stores_it_once() {
    let scratch = TempDir::new("history-kill-postgres");
    let Some(store) = postgres() else { return };
    kill_inside_add_leaves_the_store_consistent(&store, &scratch);
}

#[test]
fn a_corrupt_store_or_a_newer_schema_is_refused_with_its_exit_code() {
    let scratch = TempDir::new("history-bad-store");
    let corrupt = scratch.join("corrupt.db");
    std::fs::write(&corrupt, vec![b'x'; 4096]).unwrap();
    let corrupt = corrupt.display().to_string();
    let run = compile_perf(["history", "show", "--db", &corrupt]);
    run.expect_code(50, "a corrupt store");
    assert!(
        run.stderr.contains("file is not a database"),
        "{}",
        run.stderr
    );

    let store = sqlite(&scratch);
    let key = unique_key("newer");
    add(&store, &key, &fixture_run(scratch.path(), "run", 1.0)).expect_code(0, "add");
    let bumped = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('INSERT INTO schema_version VALUES (99)'); c.commit()")
        .arg(&store.db)
        .status()
        .unwrap();
    assert!(bumped.success());
    let run = compile_perf(["history", "show", "--db", &store.db]);
    run.expect_code(51, "a store of a newer schema");
    assert!(
        run.stderr.contains("schema version 99, newer than"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("upgrade compile-perf"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_password_in_the_url_and_an_unreachable_server_are_refused_with_exit_50() {
    let run = compile_perf([
        "history",
        "show",
        "--db",
        "postgres://ci:hunter2@127.0.0.1:1/h",
    ]);
    run.expect_code(50, "a password in the URL");
    assert!(
        run.stderr.contains("PGPASSWORD or a .pgpass"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("hunter2"),
        "the password is repeated: {}",
        run.stderr
    );

    let run = compile_perf(["history", "show", "--db", "postgres://ci@127.0.0.1:1/h"]);
    run.expect_code(50, "an unreachable server");
    assert!(run.stderr.contains("Connection refused"), "{}", run.stderr);
}

#[test]
fn a_directory_without_a_run_is_not_added() {
    let scratch = TempDir::new("history-no-run");
    let store = sqlite(&scratch);
    let run = add(&store, "model=x", scratch.path());
    run.expect_code(52, "a directory without run.json");
    assert!(run.stderr.contains("no run.json"), "{}", run.stderr);
    let run = compile_perf([
        "history",
        "check",
        &scratch.path().display().to_string(),
        "--db",
        &store.db,
    ]);
    run.expect_code(52, "check of a directory without run.json");
}

#[test]
fn check_without_history_says_so_and_passes() {
    let scratch = TempDir::new("history-empty");
    let store = sqlite(&scratch);
    let dir = fixture_run(scratch.path(), "run", 1.0);
    let run = compile_perf([
        "history",
        "check",
        &dir.display().to_string(),
        "--db",
        &store.db,
        "--key",
        "model=x",
    ]);
    run.expect_code(0, "check without history");
    assert!(
        run.stdout.contains("no earlier runs of model=x"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_dashboard_charts_each_metric_of_each_key_with_every_run_and_marks_the_flagged() {
    let scratch = TempDir::new("history-html");
    let store = sqlite(&scratch);
    // Four runs of one key, the last three times as slow as the others
    // (by its wall time alone: a busy machine, not flagged) and with three
    // times the peak RSS (flagged by the fallback fence), and one run of
    // another key.
    let fixtures = [
        "fake-dwarf.perf.data",
        "fake-fp.perf.data",
        "fake-rounds.perf.data",
        "fake-dwarf-buildid-mmap.perf.data",
    ];
    let walls = [1.0, 1.04, 0.97, 3.0];
    let mut dirs = Vec::new();
    for (at, (fixture, wall)) in fixtures.iter().zip(walls).enumerate() {
        let start = format!("2026-12-0{}T10:00:00Z", at + 1);
        let dir = fixture_run_of(scratch.path(), &format!("a-{at}"), fixture, wall, &start);
        if at == 3 {
            // Its peak RSS tripled too.
            let path = dir.join("run.json");
            let mut json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            json["peak_rss_bytes"] = serde_json::json!(314_572_800u64);
            std::fs::write(&path, json.to_string()).unwrap();
        }
        let shown = dir.display().to_string();
        compile_perf([
            "history",
            "add",
            &shown,
            "--db",
            &store.db,
            "--key",
            "model=a",
            "--commit",
            &format!("c0ffee{at}"),
            "--label",
            "note=<b>&\"x\"",
        ])
        .expect_code(0, "add");
        dirs.push(dir);
    }
    // The last run has a report, whose page is linked and whose JSON
    // (kept in the store) gives the run's headline.
    std::fs::write(dirs[3].join("report.html"), "<html></html>").unwrap();
    let other = fixture_run_of(
        scratch.path(),
        "b-0",
        "fake-multi-event.perf.data",
        2.0,
        "2026-12-01T09:00:00Z",
    );
    // Its report.json as `record` writes it: the page reads its headline.
    let report = compile_perf([
        "report".as_ref(),
        other.join("perf.data").as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ]);
    report.expect_code(0, "report of b");
    std::fs::write(other.join("report.json"), &report.stdout).unwrap();
    let report = report.json();
    let top = &report["categories"][0];
    let headline = format!(
        "report.json: {} samples; event {}; top categories: {} {:.1}%",
        report["samples"],
        report["event"].as_str().unwrap(),
        top["name"].as_str().unwrap(),
        top["self_percent"].as_f64().unwrap()
    );
    add(&store, "model=b", &other).expect_code(0, "add b");

    let page = scratch.join("dashboard.html");
    let page_arg = page.display().to_string();
    compile_perf(["history", "html", "-o", &page_arg, "--db", &store.db])
        .expect_code(0, "history html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(!html.contains("<b>&"), "a label not escaped");
    assert!(
        html.contains("note=&lt;b&gt;&amp;&quot;x&quot;"),
        "the label"
    );

    // The trends `history show` judges are the oracle: one chart per key
    // and measure, and per flagged share; each point a run, in order, the
    // flagged ones marked.
    let shown = show(&store, "model=a");
    let identities: Vec<&str> = shown["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["identity"].as_str().unwrap())
        .collect();
    assert_eq!(identities.len(), 4);
    let charts = charts(&html);
    let mut seen = std::collections::BTreeSet::new();
    for chart in &charts {
        assert!(
            seen.insert((chart.key.clone(), chart.metric.clone())),
            "two charts of {} {}",
            chart.key,
            chart.metric
        );
    }
    for key in ["model=a", "model=b"] {
        for trend in show(&store, key)["trends"].as_array().unwrap() {
            let metric = trend["metric"].as_str().unwrap();
            let points = trend["points"].as_array().unwrap();
            let flagged = points.iter().any(|point| point["flagged"] == true);
            let chart = charts.iter().find(|c| c.key == key && c.metric == metric);
            let Some(chart) = chart else {
                assert!(
                    metric.contains(':') && !metric.starts_with("bytes") && !flagged,
                    "{key} {metric} has no chart"
                );
                continue;
            };
            let expected: Vec<(String, bool)> = points
                .iter()
                .map(|point| {
                    (
                        point["identity"].as_str().unwrap().to_owned(),
                        point["flagged"] == true,
                    )
                })
                .collect();
            assert_eq!(chart.points, expected, "{key} {metric}");
        }
    }
    let wall = charts
        .iter()
        .find(|c| c.key == "model=a" && c.metric == "wall_seconds")
        .expect("the wall-time chart");
    // The last run's wall time tripled while its CPU time (the same
    // recording's samples) did not move: the machine's load, not marked.
    let marked: Vec<bool> = wall.points.iter().map(|(_, flagged)| *flagged).collect();
    assert_eq!(marked, [false, false, false, false]);
    assert_eq!(wall.points[3].0, identities[3]);
    let rss = charts
        .iter()
        .find(|c| c.key == "model=a" && c.metric == "peak_rss_bytes")
        .expect("the peak-RSS chart");
    let marked: Vec<bool> = rss.points.iter().map(|(_, flagged)| *flagged).collect();
    assert_eq!(marked, [false, false, false, true]);
    assert!(
        charts
            .iter()
            .any(|c| c.key == "model=b" && c.metric == "cpu_seconds"),
        "the other key's charts"
    );

    // A details section per run, with its facts and its link.
    for (at, identity) in identities.iter().enumerate() {
        let start = html
            .find(&format!(
                "<section class=\"run\" data-run=\"{identity}\" hidden>"
            ))
            .unwrap_or_else(|| panic!("no details of {identity}"));
        let details = &html[start..start + html[start..].find("</section>").unwrap()];
        assert!(details.contains(&format!("c0ffee{at}")), "{details}");
        assert!(details.contains("2026-12-0"), "{details}");
        let link = match at {
            3 => format!("href=\"file://{}/report.html\"", dirs[at].display()),
            _ => format!("href=\"file://{}\"", dirs[at].display()),
        };
        assert!(details.contains(&link), "{link} in {details}");
        if at == 3 {
            assert!(details.contains("FLAGGED: "), "{details}");
            assert!(details.contains("fallback fence"), "{details}");
        }
    }
    assert!(
        html.contains(&headline),
        "the headline of the kept report.json: {headline}"
    );
}
