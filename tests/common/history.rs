//! The history tests' stores: an SQLite file, and a throwaway PostgreSQL
//! cluster (`scripts/postgres.sh`, on a Unix socket, stopped when dropped),
//! or the server `COMPILE_PERF_TEST_POSTGRES` names. PostgreSQL follows the
//! live-test rule: skipped with a note where it cannot start, a failure
//! under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{TempDir, is_ci, repo_root};

/// A store to run the history tests against.
pub(crate) struct Store {
    /// `sqlite` or `postgres`, for messages.
    pub name: &'static str,
    /// What `--db` takes.
    pub db: String,
    cluster: Option<PathBuf>,
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(dir) = &self.cluster {
            let _ = Command::new("bash")
                .arg(repo_root().join("scripts").join("postgres.sh"))
                .arg("stop")
                .arg(dir)
                .output();
        }
    }
}

/// A new SQLite file in `dir`.
pub(crate) fn sqlite(dir: &TempDir) -> Store {
    Store {
        name: "sqlite",
        db: dir.join("history.db").display().to_string(),
        cluster: None,
    }
}

/// A PostgreSQL store: `COMPILE_PERF_TEST_POSTGRES`, else a new cluster;
/// `None` (with a note) when none can be had, which fails under CI.
pub(crate) fn postgres() -> Option<Store> {
    if let Ok(url) = std::env::var("COMPILE_PERF_TEST_POSTGRES") {
        return Some(Store {
            name: "postgres",
            db: url,
            cluster: None,
        });
    }
    static CLUSTERS: AtomicUsize = AtomicUsize::new(0);
    // Under /tmp itself, which the postgres user can reach (a socket path
    // has at most 107 bytes).
    let dir = PathBuf::from(format!(
        "/tmp/compile-perf-pg-{}-{}",
        std::process::id(),
        CLUSTERS.fetch_add(1, Ordering::Relaxed)
    ));
    let started = Command::new("bash")
        .arg(repo_root().join("scripts").join("postgres.sh"))
        .arg("start")
        .arg(&dir)
        .output()
        .expect("bash runs");
    if !started.status.success() {
        let why = String::from_utf8_lossy(&started.stderr);
        assert!(
            !is_ci(),
            "scripts/postgres.sh could not start a cluster: {why}; under CI=true the PostgreSQL tests must run"
        );
        eprintln!("note: skipping the PostgreSQL half: scripts/postgres.sh failed: {why}");
        return None;
    }
    Some(Store {
        name: "postgres",
        db: String::from_utf8_lossy(&started.stdout).trim().to_owned(),
        cluster: Some(dir),
    })
}

/// A unique key for one test's runs, so that tests can share a server.
pub(crate) fn unique_key(test: &str) -> String {
    format!(
        "test={test}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    )
}

/// A run directory made from a fixture recording (`fake-dwarf.perf.data`)
/// and a `run.json` written here, in `dir/name`.
pub(crate) fn fixture_run(dir: &Path, name: &str, wall_seconds: f64) -> PathBuf {
    fixture_run_of(
        dir,
        name,
        "fake-dwarf.perf.data",
        wall_seconds,
        "2026-01-01T00:00:00Z",
    )
}

/// A run directory made from the fixture recording `fixture` (its
/// identity: runs of different fixtures are different runs) and a
/// `run.json` of a compile that began at `start_time`, in `dir/name`.
pub(crate) fn fixture_run_of(
    dir: &Path,
    name: &str,
    fixture: &str,
    wall_seconds: f64,
    start_time: &str,
) -> PathBuf {
    let run = dir.join(name);
    std::fs::create_dir_all(&run).unwrap();
    std::fs::copy(super::fixture(fixture), run.join("perf.data")).unwrap();
    let json = serde_json::json!({
        "status": "finished",
        "finished": true,
        "command": ["iree-compile", "in.mlir", "-o", "out.vmfb"],
        "start_time": start_time,
        "command_wall_seconds": wall_seconds,
        "exit": {"code": 0, "signal": null},
        "peak_rss_bytes": 104857600u64,
        "host": {"hostname": "ci", "cores": 2}
    });
    std::fs::write(run.join("run.json"), json.to_string()).unwrap();
    run
}

/// One chart of `history html`'s page: its key, its metric, and its points
/// in order, each as its run's identity and whether it is marked flagged.
#[derive(Debug)]
pub(crate) struct Chart {
    pub key: String,
    pub metric: String,
    pub points: Vec<(String, bool)>,
}

/// The charts of a dashboard page, in the page's order.
pub(crate) fn charts(html: &str) -> Vec<Chart> {
    html.split("<figure class=\"trend\"")
        .skip(1)
        .map(|figure| {
            let figure = &figure[..figure.find("</figure>").expect("a closed figure")];
            let points = figure
                .split("class=\"point")
                .skip(1)
                .map(|point| {
                    let flagged = point.starts_with(" flagged\"");
                    (attribute(point, "data-run"), flagged)
                })
                .collect();
            Chart {
                key: unescape(&attribute(figure, "data-key")),
                metric: unescape(&attribute(figure, "data-metric")),
                points,
            }
        })
        .collect()
}

/// The value of the first `name="…"` in `text`.
fn attribute(text: &str, name: &str) -> String {
    let start = text
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name} in {text}"))
        + name.len()
        + 2;
    text[start..start + text[start..].find('"').unwrap()].to_owned()
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Fails unless the page loads nothing: no script, style, image or frame
/// from a URL, and every link a `file://` link or an anchor on the page.
pub(crate) fn assert_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    for opener in [
        "src=", "srcset=", "action=", "poster=", "url(", "@import", "<link",
    ] {
        assert!(
            !lower.contains(opener),
            "the page loads something: {opener}"
        );
    }
    for (at, _) in lower.match_indices("href=") {
        let value = lower[at + 5..].trim_start_matches(['"', '\'']);
        assert!(
            value.starts_with("file:///") || value.starts_with('#'),
            "a link off the machine: {}",
            &lower[at..(at + 80).min(lower.len())]
        );
    }
}
