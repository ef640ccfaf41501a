//! Recording real iree-compile compiles for the live tests: the workloads of
//! `scripts/workloads.py`, the compiler command line, and `perf record` with
//! the recommended settings.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use serde_json::Value;

use super::{TempDir, compile_perf, iree_compile, live_prerequisites, repo_root, run_ok};

/// The arguments of `compile-perf record RECORD_FLAGS -o RUN_DIR -- iree-compile
/// IREE_FLAGS COMPILE_FLAGS INPUT -o RUN_DIR.vmfb`.
pub(crate) fn record_args(
    run_dir: &Path,
    record_flags: &[&str],
    input: &Path,
    compile_flags: &[&str],
) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["record".into()];
    args.extend(record_flags.iter().map(OsString::from));
    args.extend([
        "-o".into(),
        run_dir.into(),
        "--".into(),
        iree_compile().into(),
    ]);
    args.extend(IREE_FLAGS.iter().chain(compile_flags).map(OsString::from));
    args.extend([
        input.into(),
        "-o".into(),
        run_dir.with_extension("vmfb").into(),
    ]);
    args
}

/// The flags every live iree-compile run uses: a CPU target that any x86-64 has.
pub(crate) const IREE_FLAGS: [&str; 3] = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=generic",
];
/// Serializes the live tests: each compiles with iree-compile under perf, and
/// two at once on two cores would distort both.
pub(crate) fn live_lock() -> MutexGuard<'static, ()> {
    static LIVE: Mutex<()> = Mutex::new(());
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether the tools of an iree-compile recording are here (skip or fail otherwise).
pub(crate) fn iree_live_prerequisites() -> bool {
    live_prerequisites(&[
        OsString::from("perf"),
        OsString::from("python3"),
        OsString::from("nm"),
        iree_compile().into_os_string(),
    ])
}

/// Writes workload `name` (`scripts/workloads.py NAME --scale small`) into `dir`.
pub(crate) fn workload(dir: &TempDir, name: &str) -> PathBuf {
    workload_at_scale(dir, name, "small")
}

/// Writes workload `name` at `scale` (`small`, `default` or a number) into `dir`.
pub(crate) fn workload_at_scale(dir: &TempDir, name: &str, scale: &str) -> PathBuf {
    let out = dir.join(format!("{name}.mlir"));
    run_ok(
        Command::new("python3")
            .arg(repo_root().join("scripts").join("workloads.py"))
            .arg(name)
            .arg("--out")
            .arg(&out)
            .args(["--scale", scale]),
    );
    out
}

/// The command line of one iree-compile compile of `input`, output in `dir`.
pub(crate) fn iree_compile_argv(dir: &TempDir, input: &Path) -> Vec<OsString> {
    let mut argv = vec![iree_compile().into_os_string()];
    argv.extend(IREE_FLAGS.iter().map(OsString::from));
    argv.push(input.into());
    argv.push("-o".into());
    argv.push(dir.join("out.vmfb").into());
    argv
}

/// `perf record -e cpu-clock -F 499 -N -q -o OUT PERF_ARGS -- ARGV`, which must
/// succeed. 499 Hz is the recommended rate: at perf's default 4000 Hz a
/// 64 KiB stack copy per sample overflows the ring buffer, and the records
/// the kernel then drops can include a process's exec and mmaps.
pub(crate) fn perf_record(out: &Path, perf_args: &[&str], argv: &[OsString]) {
    let started = Instant::now();
    run_ok(
        Command::new("perf")
            .args(["record", "-e", "cpu-clock", "-F", "499", "-N", "-q", "-o"])
            .arg(out)
            .args(perf_args)
            .arg("--")
            .args(argv),
    );
    let size = std::fs::metadata(out).map(|meta| meta.len()).unwrap_or(0);
    eprintln!(
        "recorded {} with perf record {}: {:.1} MB in {:.1} s",
        out.display(),
        perf_args.join(" "),
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
}

/// Wall seconds per timer name of MLIR's JSON timing tree (what `record
/// --mlir-timing` keeps as `mlir-timing.json`), summed over the timers of
/// each name, a timer inside one of its own name left out; `Total` and
/// `Rest` are not timers of passes and are left out.
pub(crate) fn timer_walls(tree: &Value) -> HashMap<String, f64> {
    timer_seconds(tree, "wall")
}

/// As [`timer_walls`], of MLIR's `user` column: each timer's time on every
/// thread, added up.
pub(crate) fn timer_users(tree: &Value) -> HashMap<String, f64> {
    timer_seconds(tree, "user")
}

fn timer_seconds(tree: &Value, column: &str) -> HashMap<String, f64> {
    let mut seconds = HashMap::new();
    add_timer_seconds(
        tree.as_array().expect("a JSON timing tree"),
        column,
        &mut Vec::new(),
        &mut seconds,
    );
    seconds
}

fn add_timer_seconds(
    timers: &[Value],
    column: &str,
    open: &mut Vec<String>,
    seconds: &mut HashMap<String, f64>,
) {
    for timer in timers {
        let Some(name) = timer["name"].as_str() else {
            continue;
        };
        if name == "Total" || name == "Rest" {
            continue;
        }
        let duration = timer[column]["duration"].as_f64().unwrap();
        let sum = seconds.entry(name.to_owned()).or_insert(0.0);
        if !open.iter().any(|outer| outer == name) {
            *sum += duration;
        }
        open.push(name.to_owned());
        if let Some(children) = timer["passes"].as_array() {
            add_timer_seconds(children, column, open, seconds);
        }
        open.pop();
    }
}

/// The `Total` timer of MLIR's JSON timing tree: the pass manager's wall
/// seconds.
pub(crate) fn timer_total(tree: &Value) -> f64 {
    (tree.as_array().expect("a JSON timing tree").iter())
        .find(|timer| timer["name"] == "Total")
        .and_then(|timer| timer["wall"]["duration"].as_f64())
        .expect("the timing tree has a Total timer")
}

/// A real PyTorch model exported to MLIR by `scripts/models.sh NAME` (into
/// the models cache, with its own venv of torch and transformers). `None`,
/// after a note, when the models venv is not installed here; under
/// `CI=true` (whose scripts/test.sh installs it) it is made or the test
/// fails.
pub(crate) fn real_model(name: &str) -> Option<PathBuf> {
    let home = std::env::var_os("COMPILE_PERF_MODELS")
        .map(PathBuf::from)
        .or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))?;
            Some(cache.join("compile-perf").join("models"))
        })?;
    if !super::is_ci() && !home.join("venv").join("pins.txt").exists() {
        eprintln!(
            "note: skipping live test on a real model: the models venv is not installed \
             (bash scripts/models.sh {name} installs it; under CI=true this is a failure)"
        );
        return None;
    }
    let output = run_ok(
        Command::new("bash")
            .arg(repo_root().join("scripts").join("models.sh"))
            .arg(name),
    );
    let stdout = String::from_utf8(output.stdout).expect("models.sh prints paths");
    let path = PathBuf::from(
        stdout
            .lines()
            .last()
            .expect("models.sh prints the model's path"),
    );
    assert!(path.exists(), "{} is not there", path.display());
    Some(path)
}

/// `report RUN ARGS --format json -q` of a run directory, which must
/// succeed.
pub(crate) fn report_json(run_dir: &Path, args: &[&str]) -> Value {
    let mut all: Vec<OsString> = vec!["report".into(), run_dir.into()];
    all.extend(args.iter().map(OsString::from));
    all.extend(["--format".into(), "json".into(), "-q".into()]);
    let report = compile_perf(all);
    report.expect_code(0, &format!("report {}", args.join(" ")));
    report.json()
}
