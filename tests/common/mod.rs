//! Helpers shared by the integration tests (`mod common;`): where the binary,
//! the repository and the fixtures are; scratch directories that clean up
//! after themselves; running `compile-perf`; and the rule for live tests
//! (tests that need perf, a compiler or the IREE venv on this machine).
//!
//! The live-test rule: when a tool is missing, a live test prints a skip note
//! and returns, so `cargo test` works on any machine. Under `CI=true` a
//! missing tool fails the test instead, so CI can never pass by skipping.

// Each test crate uses only some of these helpers.
#![allow(dead_code)]

pub(crate) mod damaged;
pub(crate) mod exports;
pub(crate) mod history;
pub(crate) mod ingest;
pub(crate) mod iree;
pub(crate) mod perf_report;
pub(crate) mod pipe;
pub(crate) mod symbol_tables;
pub(crate) mod unwinding;
pub(crate) mod viewers;

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `compile-perf` binary that cargo built for these tests.
pub(crate) fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_compile-perf"))
}

/// The repository root (where `Cargo.toml` is).
pub(crate) fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fixtures`, which holds the committed recordings and binaries.
pub(crate) fn fixtures_dir() -> PathBuf {
    repo_root().join("tests").join("fixtures")
}

/// A file under `tests/fixtures`.
pub(crate) fn fixture(name: &str) -> PathBuf {
    fixtures_dir().join(name)
}

/// The project venv's `iree-compile` (made by `scripts/setup.sh`).
pub(crate) fn iree_compile() -> PathBuf {
    repo_root().join(".venv").join("bin").join("iree-compile")
}

/// True when running under CI (`CI=true`, as CI services set it; `1` also counts).
pub(crate) fn is_ci() -> bool {
    std::env::var("CI")
        .map(|value| value.eq_ignore_ascii_case("true") || value == "1")
        .unwrap_or(false)
}

/// Checks that `tool` (a name on `PATH` or a path) runs here, for a live test.
///
/// Returns true when it does. When it does not: under CI this panics (the
/// test fails); elsewhere it prints a skip note and returns false, and the
/// test should return. For `perf`, it also checks that perf may record.
pub(crate) fn live_prerequisite(tool: impl AsRef<OsStr>) -> bool {
    let tool = tool.as_ref();
    let problem = match probe(tool) {
        Ok(()) => return true,
        Err(problem) => problem,
    };
    let tool = tool.to_string_lossy();
    if is_ci() {
        panic!(
            "live test prerequisite `{tool}` is not usable: {problem}. Under CI=true live tests must run; \
             scripts/test.sh installs what they need"
        );
    }
    eprintln!(
        "note: skipping live test: `{tool}` is not usable ({problem}); \
         scripts/test.sh installs what live tests need; under CI=true this is a failure"
    );
    false
}

/// Checks every tool in `tools` with [`live_prerequisite`]; true when all run.
pub(crate) fn live_prerequisites<S: AsRef<OsStr>>(tools: &[S]) -> bool {
    tools.iter().all(live_prerequisite)
}

fn probe(tool: &OsStr) -> Result<(), String> {
    let version = Command::new(tool)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run it: {error}"))?;
    if !version.status.success() {
        return Err(format!(
            "`--version` failed ({}): {}",
            version.status,
            String::from_utf8_lossy(&version.stderr).trim()
        ));
    }
    if Path::new(tool).file_name() == Some(OsStr::new("perf")) {
        // perf may be installed but not allowed to record (perf_event_paranoid).
        let scratch = TempDir::new("perf-probe");
        let output = scratch.join("probe.data");
        let record = Command::new(tool)
            .args(["record", "-q", "-N", "-e", "cpu-clock", "-o"])
            .arg(&output)
            .args(["--", "true"])
            .stdin(Stdio::null())
            .output()
            .map_err(|error| format!("cannot run `perf record`: {error}"))?;
        if !record.status.success() {
            return Err(format!(
                "`perf record -e cpu-clock -- true` failed ({}): {}",
                record.status,
                String::from_utf8_lossy(&record.stderr).trim()
            ));
        }
    }
    Ok(())
}

/// A scratch directory under the system temp dir, removed when dropped.
///
/// It is kept (and its path printed) when the test is panicking, so a failed
/// live test leaves its recordings behind for inspection, and also whenever
/// `COMPILE_PERF_KEEP_TEMP` is set.
pub(crate) struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `$TMPDIR/compile-perf-<label>-<pid>-<n>`, empty.
    pub(crate) fn new(label: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "compile-perf-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|error| panic!("cannot create {}: {error}", path.display()));
        TempDir { path }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// A path inside the directory.
    pub(crate) fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.path.join(relative)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("COMPILE_PERF_KEEP_TEMP").is_some() {
            eprintln!("note: kept {} for inspection", self.path.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// The outcome of one `compile-perf` run.
#[derive(Debug)]
pub(crate) struct Run {
    /// The exit code; `None` when a signal ended the process.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Panics with the whole output unless the exit code is `code`.
    pub(crate) fn expect_code(&self, code: i32, what: &str) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "{what}: expected exit code {code}\n--- stderr ---\n{}\n--- stdout (first 4000 bytes) ---\n{}",
            self.stderr,
            truncate(&self.stdout, 4000)
        );
        self
    }

    /// stdout parsed as JSON (for `top --format json`).
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not JSON ({error})\n--- stderr ---\n{}\n--- stdout (first 4000 bytes) ---\n{}",
                self.stderr,
                truncate(&self.stdout, 4000)
            )
        })
    }
}

/// Runs `compile-perf ARGS` with no input on stdin.
pub(crate) fn compile_perf<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let output = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("compile-perf runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `compile-perf ARGS` with `input` on stdin (for `-`). The tool may stop
/// reading early; a broken pipe on our side is not an error.
pub(crate) fn compile_perf_with_stdin<I, S>(args: I, input: &[u8]) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("compile-perf runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let output = std::thread::scope(|scope| {
        scope.spawn(move || {
            let _ = stdin.write_all(input);
            // Dropping stdin closes the pipe: end of input.
        });
        child.wait_with_output().expect("compile-perf finishes")
    });
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Makes a FIFO at `path`, in place of whatever file is there.
pub(crate) fn make_fifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    run_ok(Command::new("mkfifo").arg(path));
}

/// Runs `command` to completion and panics, showing its output, unless it succeeds.
pub(crate) fn run_ok(command: &mut Command) -> std::process::Output {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({})\n--- stderr ---\n{}\n--- stdout (first 4000 bytes) ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr),
        truncate(&String::from_utf8_lossy(&output.stdout), 4000)
    );
    output
}

/// The first `max` bytes of `text` (at a char boundary), marked when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes more)", &text[..end], text.len() - end)
}
