//! Live test of kernel symbols in a `--buildid-mmap` recording (what
//! `record` makes): the kernel's build id is read from its mapping record,
//! `/proc/kallsyms` is read once and kept in the cache by that build id, and
//! a later report names the kernel's frames from the copy, the same as
//! before; a damaged copy is rebuilt with a note. `record` keeps a copy in
//! its run directory, which the reports of the run read.
//!
//! It needs perf (see `tests/live.rs` for the live-test rules).

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::iree::{live_lock, perf_record};
use common::{TempDir, bin, live_prerequisites};

/// `compile-perf top FILE` as JSON, with its caches in `cache_home` and
/// perf's build-id cache in an empty directory (no copy of kallsyms there).
fn top(data: &Path, cache_home: &Path, perf_buildid_dir: &Path) -> (String, String) {
    let output = Command::new(bin())
        .args(["top", "-n", "100000", "--format", "json"])
        .arg(data)
        .env("XDG_CACHE_HOME", cache_home)
        .env("PERF_BUILDID_DIR", perf_buildid_dir)
        .output()
        .expect("compile-perf runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "top failed: {stderr}");
    (String::from_utf8_lossy(&output.stdout).into_owned(), stderr)
}

/// The cache's kernel entries: the kallsyms copy and the names looked up.
fn kernel_entries(cache_home: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dir = cache_home.join("compile-perf/binaries");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|listing| listing.flatten().map(|item| item.path()).collect())
        .unwrap_or_default();
    let named = |prefix: &str| -> Vec<PathBuf> {
        files
            .iter()
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with(prefix))
            })
            .cloned()
            .collect()
    };
    (named("kallsyms-"), named("kernel-"))
}

#[test]
fn kallsyms_is_read_once_and_kept_by_the_kernels_build_id() {
    if !live_prerequisites(&["perf", "dd"]) {
        return;
    }
    let _live = live_lock();
    let dir = TempDir::new("live-kernel");
    let data = dir.join("perf.data");
    // Copying zeros in small blocks spends its time in the kernel.
    let argv: Vec<OsString> = [
        "dd",
        "if=/dev/zero",
        "of=/dev/null",
        "bs=512",
        "count=2000000",
    ]
    .map(OsString::from)
    .to_vec();
    perf_record(&data, &["-z", "--buildid-mmap", "-g"], &argv);
    let (cache_home, no_perf_copy) = (dir.join("cache"), dir.join("perf-buildid"));
    std::fs::create_dir_all(&no_perf_copy).unwrap();

    let (cold, _) = top(&data, &cache_home, &no_perf_copy);
    assert!(
        cold.contains("\"dso\": \"[kernel.kallsyms]\""),
        "no kernel frames in the recording: {cold}"
    );
    let (copies, looked_up) = kernel_entries(&cache_home);
    assert_eq!(
        copies.len(),
        1,
        "one kallsyms copy, by build id: {copies:?}"
    );
    let name = copies[0].file_name().unwrap().to_str().unwrap();
    assert!(
        name.len() == "kallsyms-".len() + 40 + ".bin".len(),
        "named by a 20-byte build id, not the release: {name}"
    );
    assert!(std::fs::metadata(&copies[0]).unwrap().len() > 100_000);

    // Forget the names looked up and the recording's stacks: the kernel's
    // frames are named again, from the copy.
    let forget = |cache_home: &Path| {
        for path in kernel_entries(cache_home).1 {
            std::fs::remove_file(path).unwrap();
        }
        std::fs::remove_dir_all(cache_home.join("compile-perf/recordings")).unwrap();
    };
    assert!(!looked_up.is_empty(), "the kernel's names are cached too");
    forget(&cache_home);
    let (from_copy, stderr) = top(&data, &cache_home, &no_perf_copy);
    assert_eq!(from_copy, cold, "the copy names the frames as kallsyms did");
    assert!(!stderr.contains("cache entry"), "{stderr}");

    // A copy cut short is not trusted: it is rebuilt, with a note.
    let bytes = std::fs::read(&copies[0]).unwrap();
    std::fs::write(&copies[0], &bytes[..bytes.len() / 2]).unwrap();
    forget(&cache_home);
    let (rebuilt, stderr) = top(&data, &cache_home, &no_perf_copy);
    assert_eq!(rebuilt, cold, "a damaged copy changes nothing");
    assert!(
        stderr.contains("kallsyms-") && stderr.contains("rebuilt"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&copies[0]).unwrap(),
        bytes,
        "the copy is whole again"
    );
}

#[test]
fn record_keeps_the_kernels_symbols_beside_its_recording_and_reports_read_them() {
    if !live_prerequisites(&["perf", "dd"]) {
        return;
    }
    let _live = live_lock();
    let dir = TempDir::new("live-kernel-beside");
    let (run_dir, record_cache) = (dir.join("run"), dir.join("record-cache"));
    let no_perf_copy = dir.join("perf-buildid");
    std::fs::create_dir_all(&no_perf_copy).unwrap();
    let recorded = Command::new(bin())
        .args(["record", "-q", "-o"])
        .arg(&run_dir)
        .args([
            "--",
            "dd",
            "if=/dev/zero",
            "of=/dev/null",
            "bs=512",
            "count=2000000",
        ])
        .env("XDG_CACHE_HOME", &record_cache)
        .env("PERF_BUILDID_DIR", &no_perf_copy)
        .output()
        .expect("compile-perf runs");
    assert!(
        recorded.status.success(),
        "record failed: {}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("run.json")).unwrap()).unwrap();
    let copy = (run["outputs"].as_array().unwrap().iter())
        .filter_map(|output| output.as_str())
        .find(|output| output.starts_with("kallsyms-"))
        .unwrap_or_else(|| panic!("run.json lists a kallsyms copy: {run}"))
        .to_owned();
    assert_eq!(
        copy.len(),
        "kallsyms-".len() + 40,
        "named by the kernel's 20-byte build id: {copy}"
    );
    let text = std::fs::read_to_string(run_dir.join(&copy)).unwrap();
    assert!(
        text.len() > 100_000,
        "a whole kallsyms: {} bytes",
        text.len()
    );

    // Every name in the copy marked: a report with empty caches, and no
    // copy in perf's build-id cache, names the kernel's frames from it.
    let marked: String = text
        .lines()
        .map(|line| match line.splitn(3, ' ').collect::<Vec<_>>()[..] {
            [address, kind, name] => format!("{address} {kind} beside_{name}\n"),
            _ => format!("{line}\n"),
        })
        .collect();
    std::fs::write(run_dir.join(&copy), marked).unwrap();
    let (json, _) = top(&run_dir, &dir.join("cache"), &no_perf_copy);
    let kernel_names: Vec<&str> = json
        .lines()
        .filter(|line| line.contains("\"symbol\": \"beside_"))
        .collect();
    assert!(
        !kernel_names.is_empty(),
        "the kernel's frames are named from the run's copy: {json}"
    );
}
