//! Live: `compile-perf record` of the real iree-compile. Under `CI=true` these
//! must run (perf and the venv are installed by scripts/setup.sh).

mod common;

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::iree::{iree_live_prerequisites, live_lock, record_args, workload, workload_at_scale};
use common::{TempDir, compile_perf, iree_compile};
use serde_json::Value;

fn run_json(run_dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(run_dir.join("run.json")).expect("run.json exists"))
        .expect("run.json is JSON")
}

/// True when this machine counts hardware cycles (most VMs do not).
fn hardware_cycles_supported() -> bool {
    let output = Command::new("perf")
        .args(["stat", "-x", ",", "-e", "cycles", "--", "true"])
        .output()
        .expect("perf runs");
    let text = String::from_utf8_lossy(&output.stderr);
    output.status.success() && !text.contains("<not supported>") && !text.contains("<not counted>")
}

#[test]
fn a_recorded_compile_leaves_a_complete_run_directory() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("record");
    let input = workload(&dir, "many-dispatches");
    let run_dir = dir.join("run");
    let run = compile_perf(record_args(&run_dir, &[], &input, &[]));
    run.expect_code(0, "record");
    assert!(
        run.stdout.contains("category"),
        "the category table is printed:\n{}",
        run.stdout
    );

    for name in [
        "perf.data",
        "run.json",
        "report.txt",
        "report.json",
        "report.html",
        "flamegraph.svg",
        "compiler.svg",
        "flamegraph-inverted.svg",
    ] {
        let size = std::fs::metadata(run_dir.join(name)).map_or(0, |meta| meta.len());
        assert!(size > 0, "{name} is missing or empty");
    }
    let json = run_json(&run_dir);
    assert_eq!(json["status"], "finished");
    assert_eq!(json["finished"], true);
    assert_eq!(json["interrupted"], false);
    assert_eq!(json["exit"]["code"], 0);
    let peak_rss = json["peak_rss_bytes"].as_u64().unwrap();
    assert!(
        peak_rss > 50 << 20,
        "peak RSS of the compile: {peak_rss} bytes"
    );
    let wall = json["wall_seconds"].as_f64().unwrap();
    assert!(wall > 0.0);
    assert!(
        json["iree_compile_version"]
            .as_str()
            .unwrap()
            .contains("IREE compiler version")
    );
    assert_eq!(json["inputs"][0]["path"], input.display().to_string());
    assert_eq!(json["inputs"][0]["sha256"].as_str().unwrap().len(), 64);
    // The compile's output, with its members.
    let vmfb = &json["artifacts"][0];
    assert_eq!(
        vmfb["path"],
        run_dir.with_extension("vmfb").display().to_string()
    );
    let kinds: Vec<&str> = vmfb["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("no members: {vmfb:#}"))
        .iter()
        .map(|member| member["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"module") && kinds.contains(&"executable"),
        "{vmfb:#}"
    );
    assert!(json["host"]["cores"].as_u64().unwrap() >= 1);
    assert!(
        json["perf"]["version"]
            .as_str()
            .unwrap()
            .starts_with("perf version")
    );
    assert!(
        json["perf"]["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|arg| arg == "dwarf,65528")
    );

    // The cpu-clock fallback: where the machine has no hardware counters.
    let event = json["perf"]["event"].as_str().unwrap();
    if hardware_cycles_supported() {
        assert_eq!(event, "cycles");
    } else {
        assert_eq!(event, "cpu-clock");
        assert!(
            json["perf"]["event_reason"]
                .as_str()
                .unwrap()
                .contains("not supported")
        );
    }

    let report: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("report.json")).unwrap()).unwrap();
    assert!(report["samples"].as_u64().unwrap() > 100);
    assert!(
        report["command"]
            .as_str()
            .unwrap()
            .starts_with(&iree_compile().display().to_string()),
        "the report names the compile, not the measuring wrapper: {}",
        report["command"]
    );

    // perf records the compile alone (attached to it), not compile-perf's
    // `measure` wrapper around it: no thread of the recording is compile-perf.
    assert!(
        json["perf"]["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|arg| arg == "-p"),
        "{}",
        json["perf"]["command"]
    );
    let folded = compile_perf([
        OsString::from("collapse"),
        run_dir.clone().into_os_string(),
        "-o".into(),
        "-".into(),
    ]);
    folded.expect_code(0, "collapse");
    let threads: std::collections::BTreeSet<&str> = folded
        .stdout
        .lines()
        .filter_map(|line| line.split(';').next())
        .collect();
    assert!(threads.contains("iree-compile"), "{threads:?}");
    assert!(
        !threads
            .iter()
            .any(|thread| thread.starts_with("compile-perf")),
        "the wrapper is in the recording: {threads:?}"
    );
    assert!(
        !run_dir.join(".perf-control").exists() && !run_dir.join(".perf-ack").exists(),
        "perf's control FIFOs are left in the run directory"
    );
}

#[test]
fn a_failing_compile_still_leaves_its_profile_and_passes_on_its_exit_code() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("record-fail");
    let input = dir.join("broken.mlir");
    std::fs::write(&input, "func.func @main( { this is not MLIR\n").unwrap();
    let run_dir = dir.join("run");
    let run = compile_perf(record_args(&run_dir, &[], &input, &[]));
    run.expect_code(1, "record of a failing compile");
    assert!(
        run.stderr.contains("error"),
        "iree-compile's own error shows:\n{}",
        run.stderr
    );
    let json = run_json(&run_dir);
    assert_eq!(json["exit"]["code"], 1);
    assert_eq!(json["finished"], true);
    assert!(run_dir.join("perf.data").exists() && run_dir.join("report.txt").is_file());

    // The failure is loud: on stderr, in report.txt and in run.json's notes,
    // with the compiler's own error line quoted.
    let error_line = run
        .stderr
        .lines()
        .find(|line| line.contains("error:") && !line.starts_with("compile-perf"))
        .expect("iree-compile printed an error line")
        .trim()
        .to_owned();
    let notice = "notice: the compile exited with code 1";
    assert!(run.stderr.contains(notice), "{}", run.stderr);
    let report = std::fs::read_to_string(run_dir.join("report.txt")).unwrap();
    assert!(
        report.contains(notice) && report.contains(&error_line),
        "{report}"
    );
    assert!(
        report.contains("run: ") && report.contains("exit 1"),
        "{report}"
    );
    let notes = json["notes"].to_string();
    assert!(notes.contains("the compile exited with code 1"), "{notes}");
    // No output was written, and run.json says so rather than list none silently.
    assert_eq!(json["artifacts"], serde_json::json!([]));
    assert!(notes.contains(".vmfb was not written"), "{notes}");
    assert!(json["stderr"]["lines"].as_u64() > Some(0), "{json}");

    // A later report of the run directory says so too, from run.json.
    let later = compile_perf([
        OsString::from("report"),
        run_dir.clone().into(),
        "--format".into(),
        "json".into(),
    ]);
    later.expect_code(0, "report of the run directory");
    let later = later.json();
    assert!(
        later["notices"][0]
            .as_str()
            .unwrap()
            .starts_with("the compile exited with code 1")
    );
    assert_eq!(later["run"]["exit"]["code"], 1);
    // The reports read run.json with the type record writes it with: every
    // field comes back as written, but for the file's `kind`, which says
    // which type that is.
    let mut written = run_json(&run_dir);
    let kind = written.as_object_mut().unwrap().remove("kind");
    assert_eq!(kind, Some(Value::from("run")));
    assert_eq!(later["run"], written);
}

#[test]
fn record_refuses_an_existing_directory_and_a_missing_command() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("record-refused");
    let run_dir = dir.join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::write(run_dir.join("keep.txt"), "mine").unwrap();
    let input = dir.join("unused.mlir");
    std::fs::write(&input, "").unwrap();
    let run = compile_perf(record_args(&run_dir, &[], &input, &[]));
    run.expect_code(22, "an existing run directory");
    assert!(run.stderr.contains("already exists") && run.stderr.contains("--force"));
    assert_eq!(
        std::fs::read_to_string(run_dir.join("keep.txt")).unwrap(),
        "mine"
    );

    let run = compile_perf(["record", "-o"].map(OsString::from).into_iter().chain([
        dir.join("other").into(),
        "--".into(),
        "/nonexistent/iree-compile".into(),
    ]));
    run.expect_code(24, "a missing command");
    assert!(
        run.stderr
            .contains("command not found: /nonexistent/iree-compile")
    );
    assert!(!dir.join("other").exists(), "nothing is recorded half-way");

    // perf cannot attach (an option it refuses): the command, started
    // stopped, is killed before it runs, and perf's failure is exit 25.
    let ran = dir.join("ran");
    let run = compile_perf(["record", "-o"].map(OsString::from).into_iter().chain([
        dir.join("unattached").into(),
        "--perf-arg=--no-such-option".into(),
        "--".into(),
        "/usr/bin/touch".into(),
        ran.clone().into(),
    ]));
    run.expect_code(25, "perf refusing an option");
    assert!(run.stderr.contains("before it recorded"), "{}", run.stderr);
    assert!(
        !ran.exists(),
        "the command ran although perf did not record it"
    );
    assert!(
        !dir.join("unattached").join(".perf-control").exists(),
        "perf's control FIFOs are left behind"
    );
}

#[test]
fn ctrl_c_stops_the_compile_and_keeps_what_was_recorded() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("record-interrupt");
    // About 6 s of compile, so Ctrl-C lands in the middle of it.
    let input = workload_at_scale(&dir, "many-dispatches", "default");
    let run_dir = dir.join("run");
    let mut child = Command::new(common::bin())
        .args(record_args(&run_dir, &[], &input, &[]))
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let the compile get going, then press Ctrl-C (SIGINT to the whole group).
    std::thread::sleep(Duration::from_millis(1500));
    let group = -(child.id() as i32);
    // SAFETY: kill only sends a signal to the process group spawned above.
    unsafe { libc::kill(group, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let json = run_json(&run_dir);
    assert_eq!(json["interrupted"], true);
    assert_eq!(
        json["finished"], true,
        "the report of what was recorded is complete"
    );
    // Other notes may come first (a compile stopped before const-eval ran
    // says there is no consteval.json).
    let notes = json["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|note| note.as_str().unwrap().starts_with("stopped by Ctrl-C")),
        "{notes:?}"
    );
    assert!(run_dir.join("report.json").is_file());
}

#[test]
fn record_names_the_package_when_perf_is_missing_and_refuses_an_unwritable_directory() {
    // No perf on PATH: an empty directory stands for a machine without it.
    let dir = TempDir::new("record-no-perf");
    let empty = dir.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let output = Command::new(common::bin())
        .args(["record", "-o"])
        .arg(dir.join("run"))
        .args(["--", "/bin/true"])
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(20));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("apt-get install linux-perf"), "{err}");
    assert!(!dir.join("run").exists(), "nothing is recorded half-way");

    if !common::live_prerequisite("perf") {
        return;
    }
    let run = compile_perf(["record", "-o", "/proc/compile-perf/run", "--", "/bin/true"]);
    run.expect_code(23, "an output directory that cannot be made");
    assert!(
        run.stderr
            .contains("cannot write the run directory /proc/compile-perf/run")
    );
}

/// The arguments of `perf record` as run.json states them.
fn perf_command(json: &Value) -> Vec<String> {
    json["perf"]["command"]
        .as_array()
        .expect("perf's command line")
        .iter()
        .map(|arg| arg.as_str().unwrap().to_owned())
        .collect()
}

/// The argument after `flag`, and how often `flag` is given.
fn value_of(command: &[String], flag: &str) -> (Option<String>, usize) {
    let at = command.iter().position(|arg| arg == flag);
    let count = command.iter().filter(|arg| *arg == flag).count();
    (at.and_then(|at| command.get(at + 1).cloned()), count)
}

#[test]
fn record_sizes_the_ring_buffer_states_the_rate_and_counts_lost_samples() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("record-sized");
    let input = workload(&dir, "many-dispatches");
    let run_dir = dir.join("run");
    compile_perf(record_args(&run_dir, &[], &input, &[])).expect_code(0, "record");
    let json = run_json(&run_dir);
    let command = perf_command(&json);
    let ring = &json["perf"]["ring_buffer"];
    let pages = ring["pages"].as_u64().expect("compile-perf chose -m");
    assert!(pages.is_power_of_two() && pages >= 128, "{ring:#}");
    assert_eq!(value_of(&command, "-m"), (Some(pages.to_string()), 1));
    assert!(
        ring["reason"].as_str().unwrap().contains("busy core"),
        "{ring:#}"
    );
    let rate = &json["perf"]["data_rate"];
    let expected = rate["frequency_hz"].as_u64().unwrap()
        * rate["bytes_per_sample"].as_u64().unwrap()
        * rate["cores"].as_u64().unwrap();
    assert_eq!(rate["expected_bytes_per_s"].as_u64(), Some(expected));
    assert_eq!(
        value_of(&command, "-F").0,
        Some(rate["frequency_hz"].to_string())
    );
    assert!(
        rate["measured_raw_bytes"].as_u64().unwrap()
            > json["perf"]["written_bytes"].as_u64().unwrap(),
        "perf's raw bytes are more than the zstd bytes written: {rate:#}"
    );
    assert!(json["lost_samples"].is_u64(), "{}", json["lost_samples"]);
    let cores = json["host"]["cores"].as_u64().unwrap();
    let threads = command.iter().any(|arg| arg == "--threads");
    assert_eq!(threads, cores > 1, "{command:?}");
    assert_eq!(run_dir.join("perf.data").is_dir(), cores > 1);
    assert_eq!(
        json["perf"]["streams"]["choice"],
        if cores > 1 { "per-cpu" } else { "one" }
    );
}

#[test]
fn a_users_mmap_pages_is_respected_and_the_budget_lowers_the_frequency() {
    let _serial = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("record-budget");
    let input = workload(&dir, "many-dispatches");
    let run_dir = dir.join("run");
    // 1 MB/s is below anything 499 Hz gives: -F and then the stack fall to
    // their lowest; 8 pages of ring buffer may lose samples, which are counted.
    let flags = [
        "--budget",
        "1",
        "--streams=one",
        "--perf-arg=-m",
        "--perf-arg=8",
    ];
    compile_perf(record_args(&run_dir, &flags, &input, &[])).expect_code(0, "record");
    let json = run_json(&run_dir);
    let command = perf_command(&json);
    assert_eq!(value_of(&command, "-m"), (Some("8".to_owned()), 1));
    assert_eq!(json["perf"]["ring_buffer"]["pages"], Value::Null);
    assert_eq!(value_of(&command, "-F").0.as_deref(), Some("99"));
    assert!(
        command.iter().any(|arg| arg == "dwarf,16384"),
        "{command:?}"
    );
    assert!(!command.iter().any(|arg| arg == "--threads"), "{command:?}");
    let choice = json["perf"]["data_rate"]["choice"].as_str().unwrap();
    assert!(
        choice.starts_with("-F lowered from 499 to 99 Hz"),
        "{choice}"
    );
    assert!(json["lost_samples"].is_u64(), "{}", json["lost_samples"]);
    assert!(run_dir.join("perf.data").is_file());

    // An explicit --freq wins over the budget.
    let given = dir.join("given");
    compile_perf(record_args(
        &given,
        &["--budget", "1", "--freq", "199"],
        &input,
        &[],
    ))
    .expect_code(0, "record --freq");
    let command = perf_command(&run_json(&given));
    assert_eq!(value_of(&command, "-F").0.as_deref(), Some("199"));
}
