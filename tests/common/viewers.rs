//! The tools that open compile-perf's exports, for the tests: `go tool
//! pprof` (Debian's golang-go), speedscope's JSON schema (from the
//! `speedscope` npm package, installed under the target directory when
//! missing), and headless Chromium. Each is a live prerequisite: missing,
//! a test skips, or fails under `CI=true`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{is_ci, live_prerequisite, run_ok};

/// The speedscope release whose schema the tests validate against.
pub(crate) const SPEEDSCOPE_VERSION: &str = "1.25.0";

/// True when `go tool pprof` runs here (`go` has no `--version`, so the
/// probe is `go tool pprof -h`); a missing one skips, or fails under CI.
pub(crate) fn have_go() -> bool {
    let runs = Command::new("go")
        .args(["tool", "pprof", "-h"])
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stderr).contains("usage"));
    if !runs {
        assert!(
            !is_ci(),
            "live test prerequisite `go tool pprof` is not usable. Under CI=true live tests must run; \
             scripts/test.sh installs golang-go"
        );
        eprintln!("note: skipping live test: `go tool pprof` is not usable (Debian: golang-go)");
    }
    runs
}

/// `go tool pprof ARGS FILE`, which must succeed; its stdout.
pub(crate) fn pprof(args: &[&str], file: &Path) -> String {
    let output = run_ok(
        Command::new("go")
            .args(["tool", "pprof"])
            .args(args)
            .arg(file),
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The samples of `go tool pprof -raw` output: the first value (`samples/count`)
/// of every sample line, added up.
pub(crate) fn raw_sample_total(raw: &str) -> u64 {
    let samples = raw.split_once("\nSamples:\n").map_or("", |(_, rest)| rest);
    let samples = samples.split("\nLocations\n").next().unwrap_or("");
    samples
        .lines()
        .filter_map(|line| {
            let (values, _) = line.split_once(':')?;
            let mut numbers = values.split_whitespace();
            let first = numbers.next()?.parse::<u64>().ok()?;
            numbers.next()?.parse::<u64>().ok()?;
            Some(first)
        })
        .sum()
}

/// speedscope's `file-format-schema.json`, installing the npm package
/// under the target directory when it is not there; `None` (a skip) when
/// npm is missing outside CI.
pub(crate) fn speedscope_schema() -> Option<PathBuf> {
    let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join("speedscope");
    let schema = prefix.join("node_modules/speedscope/dist/release/file-format-schema.json");
    if schema.is_file() {
        return Some(schema);
    }
    if !live_prerequisite("npm") {
        return None;
    }
    run_ok(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
            .arg(&prefix)
            .arg(format!("speedscope@{SPEEDSCOPE_VERSION}")),
    );
    assert!(
        schema.is_file(),
        "npm installed speedscope without {}",
        schema.display()
    );
    Some(schema)
}

/// True when headless Chromium runs here.
pub(crate) fn have_chromium() -> bool {
    live_prerequisite("chromium")
}

/// Headless Chromium on `page` with ARGS, every request it makes sent to a
/// proxy on 127.0.0.1 that records it: returns Chromium's stdout and the
/// requests that reached the proxy (none, for a page that needs no network).
pub(crate) fn chromium(page: &Path, args: &[&str]) -> (String, Vec<String>) {
    let proxy = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = proxy.local_addr().expect("its address").port();
    proxy
        .set_nonblocking(true)
        .expect("a non-blocking listener");
    let output = run_ok(
        Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--hide-scrollbars",
            ])
            .arg(format!("--proxy-server=http://127.0.0.1:{port}"))
            .arg("--proxy-bypass-list=<-loopback>")
            .args(args)
            .arg(format!("file://{}", page.display())),
    );
    let mut requests = Vec::new();
    while let Ok((mut stream, _)) = proxy.accept() {
        use std::io::Read;
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(1)));
        let mut head = [0u8; 512];
        let read = stream.read(&mut head).unwrap_or(0);
        requests.push(
            String::from_utf8_lossy(&head[..read])
                .lines()
                .next()
                .unwrap_or("")
                .to_owned(),
        );
    }
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        requests,
    )
}

/// None of the requests that reached the proxy was for a host the page
/// names: Chromium asks its own services (time, updates, accounts) in the
/// background, but a fetch the page caused would be for a host in it.
pub(crate) fn assert_not_asked(html: &str, requests: &[String]) {
    for request in requests {
        let target = request.split_whitespace().nth(1).unwrap_or("");
        let host = target
            .trim_start_matches("http://")
            .trim_start_matches("https://")
            .split(['/', ':'])
            .next()
            .unwrap_or("");
        assert!(
            host.is_empty() || !html.contains(host),
            "the page asked the network for {request}"
        );
    }
}
