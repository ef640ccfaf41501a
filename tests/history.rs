//! `history` against real stores, without a compiler: a run directory made
//! from a fixture recording, stored in an SQLite file and on a throwaway
//! PostgreSQL cluster (`scripts/postgres.sh`; under `CI=true` it must
//! start). Adding a run twice is a no-op; a `kill -9` inside `add`'s
//! transaction leaves the store without the run, and adding it again stores
//! it whole; a corrupt store, a newer schema, a password in the URL, an
//! unreachable server and a directory that is no run each have their exit
//! code and a message that says what to do.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::history::{Store, fixture_run, postgres, sqlite, unique_key};
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
