//! The caches (`$XDG_CACHE_HOME/compile-perf`) on the committed recordings:
//! outputs byte for byte the same cold, warm and with `--no-cache`; a
//! compressed stream and the same stream decompressed fold to the same
//! stacks; damaged entries (cut short, a flipped byte, another version's
//! header) are rebuilt with a note and never change a report; `cache info`
//! and `cache clear`. They need neither perf nor iree-compile.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::pipe::pipe_records;
use common::{TempDir, bin, fixture, make_fifo, repo_root};

const FAKE_DIR: &str = "tests/fixtures/fakecompiler";
/// `PERF_RECORD_COMPRESSED`.
const COMPRESSED: u32 = 81;

/// `compile-perf ARGS --symfs FIXTURES` with its caches in `cache_home`.
fn run(cache_home: &Path, args: &[&str]) -> Output {
    let output = Command::new(bin())
        .args(args)
        .arg("--symfs")
        .arg(repo_root().join(FAKE_DIR))
        .env("XDG_CACHE_HOME", cache_home)
        .output()
        .expect("compile-perf runs");
    assert!(
        output.status.success(),
        "compile-perf {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The entries of one kind (`binaries`, `categories`, `recordings`).
fn entries(cache_home: &Path, kind: &str) -> Vec<PathBuf> {
    let dir = cache_home.join("compile-perf").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|listing| listing.flatten().map(|item| item.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// The commands compared, on one recording.
fn commands(path: &str) -> Vec<Vec<&str>> {
    vec![
        vec!["report", path, "--format", "json"],
        vec!["report", path, "--by", "pass"],
        vec!["report", path, "--by", "thread", "--attribution", "caller"],
        vec!["collapse", path],
        vec!["top", path, "-n", "1000", "--format", "json"],
        vec!["timeline", path, "--format", "json", "-o", "-"],
    ]
}

#[test]
fn outputs_are_byte_identical_cold_warm_and_without_the_cache() {
    for name in [
        "fake-dwarf.perf.data",
        "fake-fp.perf.data",
        "fake-multi-event.perf.data",
        "fake-dwarf-buildid-mmap.perf.data",
    ] {
        let home = TempDir::new("cache-identical");
        let path = fixture(name);
        let path = path.to_str().unwrap();
        for args in commands(path) {
            let uncached = run(home.path(), &[args.as_slice(), &["--no-cache"]].concat());
            assert!(
                entries(home.path(), "recordings").is_empty(),
                "--no-cache wrote a cache entry"
            );
            let cold = run(home.path(), &args);
            let warm = run(home.path(), &args);
            assert!(!uncached.stdout.is_empty(), "{name} {args:?}: no output");
            assert!(
                uncached.stdout == cold.stdout && cold.stdout == warm.stdout,
                "{name} {args:?}: the output differs with the cache"
            );
            assert!(
                !entries(home.path(), "recordings").is_empty(),
                "{name} {args:?}: no recording entry"
            );
            assert!(!stderr(&warm).contains("cache entry"), "{}", stderr(&warm));
            // A new recording of known binaries: names and categories from
            // the cache, stacks read again.
            std::fs::remove_dir_all(home.join("compile-perf/recordings")).unwrap();
            let known_binaries = run(home.path(), &args);
            assert!(
                known_binaries.stdout == uncached.stdout,
                "{name} {args:?}: the output differs with only the build-id cache"
            );
            std::fs::remove_dir_all(home.join("compile-perf")).unwrap();
        }
    }
}

#[test]
fn the_multi_event_recording_is_cached_per_event() {
    let home = TempDir::new("cache-events");
    let path = fixture("fake-multi-event.perf.data");
    let path = path.to_str().unwrap();
    let faults = ["collapse", path, "--event", "page-faults"];
    let clock = ["collapse", path, "--event", "cpu-clock"];
    let uncached = (
        run(home.path(), &[&faults[..], &["--no-cache"]].concat()).stdout,
        run(home.path(), &[&clock[..], &["--no-cache"]].concat()).stdout,
    );
    for _ in 0..2 {
        assert_eq!(run(home.path(), &faults).stdout, uncached.0);
        assert_eq!(run(home.path(), &clock).stdout, uncached.1);
    }
    assert_ne!(uncached.0, uncached.1);
    assert_eq!(entries(home.path(), "recordings").len(), 2);
}

/// The pipe-mode stream `compressed` with each PERF_RECORD_COMPRESSED record
/// replaced by the records it holds (one zstd stream runs through them all),
/// as `perf record -o -` without `-z` would have written it.
fn decompressed_stream(compressed: &[u8]) -> Vec<u8> {
    let mut plain = compressed[..16].to_vec();
    let mut context = zstd_safe::DCtx::create();
    let mut space = vec![0u8; 1 << 20];
    for (offset, size, kind) in pipe_records(compressed) {
        let record = &compressed[offset..offset + size];
        if kind != COMPRESSED {
            plain.extend_from_slice(record);
            continue;
        }
        let mut input = zstd_safe::InBuffer::around(&record[8..]);
        while input.pos() < input.src.len() {
            let mut output = zstd_safe::OutBuffer::around(&mut space[..]);
            context
                .decompress_stream(&mut output, &mut input)
                .expect("perf's zstd data decompresses");
            let written = output.pos();
            plain.extend_from_slice(&space[..written]);
        }
    }
    plain
}

#[test]
fn a_compressed_stream_and_the_same_stream_decompressed_fold_alike() {
    let home = TempDir::new("cache-zstd");
    let compressed_path = fixture("fake-pipe.perf.data");
    let compressed = std::fs::read(&compressed_path).unwrap();
    let plain = decompressed_stream(&compressed);
    let plain_records = pipe_records(&plain);
    assert!(plain_records.iter().all(|(_, _, kind)| *kind != COMPRESSED));
    assert!(
        plain.len() > 10 * compressed.len(),
        "decompressed: {} bytes from {}",
        plain.len(),
        compressed.len()
    );
    let plain_path = home.join("plain.perf.data");
    std::fs::write(&plain_path, &plain).unwrap();
    for args in [
        vec!["collapse"],
        vec!["report", "--format", "json"],
        vec!["top", "-n", "1000"],
    ] {
        let of = |path: &Path, cache: &[&str]| {
            let mut full = args.clone();
            full.insert(1, path.to_str().unwrap());
            full.extend_from_slice(cache);
            run(home.path(), &full).stdout
        };
        let zstd = of(&compressed_path, &["--no-cache"]);
        let folded = String::from_utf8_lossy(&zstd).into_owned();
        assert!(folded.lines().count() > 3, "{folded}");
        assert!(zstd == of(&plain_path, &["--no-cache"]), "{args:?} differs");
        // And through the cache, twice.
        assert!(zstd == of(&plain_path, &[]) && zstd == of(&plain_path, &[]));
    }
}

/// Damage done to an entry.
#[derive(Clone, Copy, Debug)]
enum Damage {
    CutShort,
    FlippedByte,
    OtherVersion,
}

fn damage(path: &Path, how: Damage) {
    let mut bytes = std::fs::read(path).unwrap();
    match how {
        // A third of the data after the 48-byte header is cut off.
        Damage::CutShort => bytes.truncate(48 + (bytes.len() - 48) * 2 / 3),
        Damage::FlippedByte => {
            let at = bytes.len() - bytes.len() / 3;
            bytes[at] ^= 0x10;
        }
        // The version field follows magic, format and kind.
        Damage::OtherVersion => bytes[16..22].copy_from_slice(b"9.9.9\0"),
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn damaged_entries_are_rebuilt_with_a_note_and_the_report_stays_right() {
    let home = TempDir::new("cache-damage");
    let path = fixture("fake-dwarf.perf.data");
    let args = ["report", path.to_str().unwrap(), "--format", "json"];
    let expected = run(home.path(), &[&args[..], &["--no-cache"]].concat()).stdout;
    run(home.path(), &args);
    // Every entry the report made: the recording's, each binary's (the
    // program's, libc's…) and the categories'.
    let all: Vec<PathBuf> = ["recordings", "binaries", "categories"]
        .iter()
        .flat_map(|kind| entries(home.path(), kind))
        .collect();
    assert!(all.len() >= 4, "{all:?}");
    for how in [Damage::CutShort, Damage::FlippedByte, Damage::OtherVersion] {
        let intact: Vec<Vec<u8>> = all
            .iter()
            .map(|entry| std::fs::read(entry).unwrap())
            .collect();
        for entry in &all {
            damage(entry, how);
        }
        let after = run(home.path(), &args);
        let said = stderr(&after);
        assert_eq!(after.stdout, expected, "{how:?}");
        let reason = match how {
            Damage::CutShort => "bytes of data",
            Damage::FlippedByte => "checksum",
            Damage::OtherVersion => "another version (compile-perf 9.9.9",
        };
        for (entry, intact) in all.iter().zip(&intact) {
            let note = format!("cache entry {} ignored and rebuilt: ", entry.display());
            let line = said.lines().find(|line| line.contains(&note));
            assert!(
                line.is_some_and(|line| line.contains(reason)),
                "{how:?}: no note on {} in\n{said}",
                entry.display()
            );
            // Rebuilt: the same bytes as before the damage.
            assert_eq!(
                &std::fs::read(entry).unwrap(),
                intact,
                "{how:?} not rebuilt"
            );
        }
        let again = run(home.path(), &args);
        assert!(
            !stderr(&again).contains("cache entry"),
            "{}",
            stderr(&again)
        );
        assert_eq!(again.stdout, expected);
    }
}

#[test]
fn a_recording_read_from_a_fifo_is_not_cached() {
    let home = TempDir::new("cache-fifo");
    let fifo = home.join("perf.fifo");
    make_fifo(&fifo);
    let bytes = std::fs::read(fixture("fake-pipe.perf.data")).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, bytes))
    };
    let through_fifo = run(home.path(), &["collapse", fifo.to_str().unwrap()]);
    writer.join().unwrap().expect("the whole stream was read");
    let from_file = run(
        home.path(),
        &[
            "collapse",
            fixture("fake-pipe.perf.data").to_str().unwrap(),
            "--no-cache",
        ],
    );
    assert_eq!(through_fifo.stdout, from_file.stdout);
    assert!(entries(home.path(), "recordings").is_empty());
}

#[test]
fn a_changed_recording_is_read_again() {
    let home = TempDir::new("cache-stale");
    let path = home.join("perf.data");
    std::fs::copy(fixture("fake-dwarf.perf.data"), &path).unwrap();
    let args = ["collapse", path.to_str().unwrap()];
    let dwarf = run(home.path(), &args).stdout;
    std::fs::copy(fixture("fake-dwarf-buildid-mmap.perf.data"), &path).unwrap();
    let after = run(home.path(), &args);
    assert!(
        stderr(&after).contains("the recording changed since it was cached"),
        "{}",
        stderr(&after)
    );
    let fresh = run(home.path(), &[&args[..], &["--no-cache"]].concat()).stdout;
    assert_eq!(after.stdout, fresh);
    assert_ne!(dwarf, fresh, "the two recordings differ");
}

#[test]
fn cache_info_lists_the_entries_and_clear_removes_them() {
    let home = TempDir::new("cache-info");
    let path = fixture("fake-dwarf.perf.data");
    run(home.path(), &["report", path.to_str().unwrap()]);
    let info = |home: &Path| {
        let output = Command::new(bin())
            .args(["cache", "info"])
            .env("XDG_CACHE_HOME", home)
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let listed = info(home.path());
    let root = home.join("compile-perf");
    assert!(
        listed.starts_with(&format!("cache: {}\n", root.display())),
        "{listed}"
    );
    for kind in ["binaries", "categories", "recordings"] {
        let count = entries(home.path(), kind).len();
        assert!(count >= 1, "{kind}");
        assert!(
            listed.contains(&format!("{kind:<11} {count:>5} entries")),
            "{kind}: {listed}"
        );
    }
    let cleared = Command::new(bin())
        .args(["cache", "clear"])
        .env("XDG_CACHE_HOME", home.path())
        .output()
        .unwrap();
    assert!(cleared.status.success());
    assert!(String::from_utf8_lossy(&cleared.stdout).starts_with("removed "));
    for kind in ["binaries", "categories", "recordings"] {
        assert!(entries(home.path(), kind).is_empty(), "{kind} left");
    }
    assert!(info(home.path()).contains("total           0 entries"));
}
