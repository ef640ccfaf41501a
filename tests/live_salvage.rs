//! A recording whose `perf record` was killed mid-compile (what is left
//! after the machine ran out of memory): perf never wrote the data size
//! into its header, nor the sections after the records. It is refused with
//! a message that names `--salvage`, and `--salvage` reads it: a plausible
//! report of the compile so far, with a warning and exit code 6.
//!
//! Needs perf and the real iree-compile; skips without them, except under
//! `CI=true`.

mod common;

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::iree::{iree_compile_argv, iree_live_prerequisites, live_lock, workload_at_scale};
use common::{TempDir, compile_perf};

/// perf has recorded part of the compile once the file is this large (about
/// 450 samples of `dwarf,65528` stacks, zstd-compressed).
const RECORDED_ENOUGH: u64 = 2 << 20;

#[test]
fn a_recording_killed_mid_compile_is_refused_then_salvaged() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("live-salvage");
    // many-dispatches at default scale compiles for several seconds here.
    let input = workload_at_scale(&dir, "many-dispatches", "default");
    let data = dir.join("killed.perf.data");
    let mut perf = Command::new("perf")
        .args(["record", "-z", "-F", "499", "-e", "cpu-clock"])
        .args(["--call-graph", "dwarf,65528", "-q", "-o"])
        .arg(&data)
        .arg("--")
        .args(iree_compile_argv(&dir, &input))
        // perf and the compile it starts form one process group, so that
        // the compile can be stopped with it.
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("perf starts");
    let group = perf.id() as libc::pid_t;
    loop {
        let written = std::fs::metadata(&data).map_or(0, |meta| meta.len());
        if written >= RECORDED_ENOUGH {
            break;
        }
        if let Some(status) = perf.try_wait().unwrap() {
            panic!(
                "perf record ended ({status}) after writing {written} bytes, before it could be \
                 killed mid-compile; the workload is too small for this machine"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: plain signal sends to the processes this test started: perf
    // first, as the OOM killer would, then the compile it leaves behind.
    unsafe { libc::kill(perf.id() as libc::pid_t, libc::SIGKILL) };
    let status = perf.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL),
        "perf was killed mid-compile"
    );
    unsafe { libc::killpg(group, libc::SIGKILL) };

    let bytes = std::fs::read(&data).unwrap();
    let data_size = u64::from_le_bytes(bytes[48..56].try_into().unwrap());
    assert_eq!(
        data_size, 0,
        "a killed perf leaves the header's data size at 0"
    );

    let refused = compile_perf(["report".as_ref(), data.as_os_str()]);
    refused.expect_code(6, "a killed recording without --salvage");
    assert!(
        refused.stderr.contains("did not finish") && refused.stderr.contains("--salvage"),
        "{}",
        refused.stderr
    );

    let salvaged = compile_perf([
        "report".as_ref(),
        "--salvage".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        data.as_os_str(),
    ]);
    salvaged.expect_code(6, "a killed recording with --salvage");
    assert!(
        salvaged.stderr.contains("warning:") && salvaged.stderr.contains("salvaged"),
        "{}",
        salvaged.stderr
    );
    let report = salvaged.json();
    let samples = report["samples"].as_u64().unwrap();
    assert!(samples >= 200, "{samples} samples");
    let complete = report["unwind"]["complete"].as_u64().unwrap();
    assert!(
        complete as f64 >= 0.9 * samples as f64,
        "{complete} of {samples} stacks unwound to a thread root"
    );
    let categories = report["categories"].as_array().unwrap();
    let self_of = |id: &str| -> u64 {
        categories
            .iter()
            .filter(|category| category["id"] == id)
            .map(|category| category["self_samples"].as_u64().unwrap())
            .sum()
    };
    let total: u64 = categories
        .iter()
        .map(|category| category["self_samples"].as_u64().unwrap())
        .sum();
    assert_eq!(total, samples, "every sample has a category");
    let named = categories
        .iter()
        .filter(|category| category["self_samples"].as_u64().unwrap() > 0)
        .count();
    assert!(named >= 5, "{named} categories with samples");
    assert!(
        self_of("other") * 5 < samples,
        "{} of {samples} samples in `other`",
        self_of("other")
    );
}
