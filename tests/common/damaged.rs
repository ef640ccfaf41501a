//! Running compile-perf on damaged copies of the fixtures: scratch files,
//! `top` on a file or on stdin, the check that an error is one clear line
//! with its exit code and no panic, and the samples a folded file holds.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::bin;

/// Writes `bytes` to a file named `name` in this process's scratch directory.
pub(crate) fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compile-perf-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs `compile-perf ARGS` with nothing on stdin.
pub(crate) fn output_of<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("compile-perf runs")
}

/// `compile-perf top -q -n 3 PATH`.
pub(crate) fn top(path: &Path) -> Output {
    Command::new(bin())
        .args(["top", "-q", "-n", "3"])
        .arg(path)
        .output()
        .expect("compile-perf runs")
}

/// `compile-perf top -q -n 3 -` with `bytes` on stdin.
pub(crate) fn top_stdin(bytes: &[u8]) -> Output {
    let mut child = Command::new(bin())
        .args(["top", "-q", "-n", "3", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("compile-perf runs");
    let mut stdin = child.stdin.take().unwrap();
    // The tool may stop reading early on a bad stream; a broken pipe here is fine.
    let _ = stdin.write_all(bytes);
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Asserts the exit code and that stderr is one clear error line naming `what`.
pub(crate) fn assert_error(output: &Output, code: i32, what: &str) {
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "stderr: {err}");
    let errors: Vec<&str> = err.lines().filter(|line| line.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "one error line expected: {err}");
    assert!(
        errors[0].contains(what),
        "{:?} should mention {what:?}",
        errors[0]
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// The samples a folded file holds: the sum of its counts.
pub(crate) fn folded_samples(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("{} was not written: {error}", path.display()))
        .lines()
        .map(|line| line.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum()
}
