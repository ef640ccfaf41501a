//! Live: progress on a terminal. `record --repeat 2` and `executables` run
//! under `script` (util-linux), whose pseudo-terminal is their stderr, draw
//! their progress there (the status line with `run k/N`, the executables'
//! `k/N` bar); the same commands with stderr in a file draw nothing, and
//! `-q` draws nothing on the terminal either. Under `CI=true` these must run.

mod common;

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use common::iree::{IREE_FLAGS, iree_live_prerequisites, live_lock, record_args};
use common::{TempDir, bin, compile_perf, iree_compile, live_prerequisite};

/// A model of two small dispatches: a compile of about a second.
const TINY_MODEL: &str = "func.func @main(%a: tensor<256xf32>, %b: tensor<256x256xf32>) \
-> (tensor<256xf32>, tensor<256x256xf32>) {
  %0 = math.exp %a : tensor<256xf32>
  %1 = math.tanh %b : tensor<256x256xf32>
  return %0, %1 : tensor<256xf32>, tensor<256x256xf32>
}
";

/// Runs `compile-perf ARGS` under `script`, so that its stderr is a
/// terminal, and returns what the terminal showed (stdout and stderr).
fn on_a_terminal(args: &[OsString], dir: &TempDir) -> String {
    let command = std::iter::once(bin().as_os_str().to_owned())
        .chain(args.iter().cloned())
        .map(|arg| shell_quote(&arg.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ");
    let typescript = dir.join("typescript");
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command"])
        .arg(&command)
        .arg(&typescript)
        .env("COLUMNS", "160")
        .output()
        .expect("script runs");
    assert!(
        output.status.success(),
        "{command} on a terminal: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&std::fs::read(&typescript).expect("the typescript")).into_owned()
}

fn shell_quote(arg: &str) -> String {
    format!("'{}'", arg.replace('\'', r"'\''"))
}

fn model(dir: &TempDir) -> std::path::PathBuf {
    let path = dir.join("tiny.mlir");
    std::fs::write(&path, TINY_MODEL).unwrap();
    path
}

fn prerequisites() -> bool {
    iree_live_prerequisites() && live_prerequisite("script")
}

#[test]
fn record_repeat_shows_its_status_line_on_a_terminal_only() {
    let _serial = live_lock();
    if !prerequisites() {
        return;
    }
    let dir = TempDir::new("progress-record");
    let input = model(&dir);

    let shown = on_a_terminal(
        &record_args(&dir.join("shown"), &["--repeat", "2"], &input, &[]),
        &dir,
    );
    for run in ["run 1/2:", "run 2/2:"] {
        assert!(shown.contains(run), "{run} on the terminal:\n{shown}");
    }
    assert!(shown.contains("MB written, compile RSS"), "{shown}");

    let quiet = on_a_terminal(
        &record_args(&dir.join("quiet"), &["--repeat", "2", "-q"], &input, &[]),
        &dir,
    );
    assert!(!quiet.contains("MB written"), "-q draws nothing:\n{quiet}");

    let piped = compile_perf(record_args(
        &dir.join("piped"),
        &["--repeat", "2"],
        &input,
        &[],
    ));
    piped.expect_code(0, "record --repeat 2, stderr in a file");
    assert!(
        !piped.stderr.contains("MB written") && !piped.stderr.contains("run 1/2:"),
        "no status line off a terminal:\n{}",
        piped.stderr
    );
    // The series' own lines are there either way.
    assert!(
        piped.stderr.contains("compile-perf: run 2 of 2"),
        "{}",
        piped.stderr
    );
}

#[test]
fn executables_counts_its_executables_on_a_terminal_only() {
    let _serial = live_lock();
    if !prerequisites() {
        return;
    }
    let dir = TempDir::new("progress-executables");
    let input = model(&dir);
    let args = |out: &Path, quiet: bool| -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["executables".into(), "-o".into(), out.into()];
        if quiet {
            args.push("-q".into());
        }
        args.extend(["--".into(), iree_compile().into()]);
        args.extend(IREE_FLAGS.iter().map(OsString::from));
        args.extend([input.clone().into(), "-o".into(), dir.join("m.vmfb").into()]);
        args
    };

    let shown = on_a_terminal(&args(&dir.join("shown"), false), &dir);
    assert!(
        shown.contains("executables, ~"),
        "the executables' bar on the terminal:\n{shown}"
    );
    assert!(shown.contains("compile-perf: executable 1 of"), "{shown}");

    let piped = compile_perf(args(&dir.join("piped"), false));
    piped.expect_code(0, "executables, stderr in a file");
    assert!(
        !piped.stderr.contains("executables, ~"),
        "no bar off a terminal:\n{}",
        piped.stderr
    );
    assert!(
        piped.stderr.contains("compile-perf: executable 1 of"),
        "{}",
        piped.stderr
    );

    let quiet = on_a_terminal(&args(&dir.join("quiet"), true), &dir);
    assert!(
        !quiet.contains("executables, ~"),
        "-q draws no bar:\n{quiet}"
    );
}
