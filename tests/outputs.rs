//! Outputs never destroy what is at their path. For every option that writes
//! a file (`collapse -o`, `flamegraph -o`, `timeline -o`, `report
//! --flamegraph`, `flamegraph --folded-out`), on the committed DWARF
//! recording: `/dev/null` takes the output and stays a device, `/dev/full`
//! is exit 1 and stays a device, a FIFO's reader gets the whole output, and a
//! symlink stays a link while its target is replaced.
//!
//! Live (needs perf): `record --force` replaces only an empty directory or a
//! previous run directory, and deletes nothing when it refuses.

mod common;

use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Run, TempDir, compile_perf, fixture, make_fifo};

/// One option that writes a file, as a command line writing to `path`.
struct Writer {
    name: &'static str,
    /// The command line; its other outputs go to `aside`.
    args: fn(path: &Path, aside: &Path) -> Vec<OsString>,
}

/// `compile-perf COMMAND RECORDING --symfs … -q` followed by `rest`.
fn on_recording(command: &str, rest: &[&OsStr]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        command.into(),
        fixture("fake-dwarf.perf.data").into(),
        "--symfs".into(),
        fixture("fakecompiler").into(),
        "-q".into(),
    ];
    args.extend(rest.iter().map(|arg| arg.to_os_string()));
    args
}

const WRITERS: [Writer; 5] = [
    Writer {
        name: "collapse -o",
        args: |path, _| on_recording("collapse", &["-o".as_ref(), path.as_os_str()]),
    },
    Writer {
        name: "flamegraph -o",
        args: |path, _| on_recording("flamegraph", &["-o".as_ref(), path.as_os_str()]),
    },
    Writer {
        name: "timeline -o",
        args: |path, _| on_recording("timeline", &["-o".as_ref(), path.as_os_str()]),
    },
    Writer {
        name: "report --flamegraph",
        args: |path, _| on_recording("report", &["--flamegraph".as_ref(), path.as_os_str()]),
    },
    Writer {
        name: "flamegraph --folded-out",
        args: |path, aside| {
            let svg = aside.join("folded-out.svg");
            on_recording(
                "flamegraph",
                &[
                    "--folded-out".as_ref(),
                    path.as_os_str(),
                    "-o".as_ref(),
                    svg.as_os_str(),
                ],
            )
        },
    },
];

/// What `writer` writes to a new regular file.
fn expected_output(writer: &Writer, scratch: &TempDir) -> Vec<u8> {
    let path = scratch.join("expected");
    compile_perf((writer.args)(&path, scratch.path()))
        .expect_code(0, &format!("{} to a new file", writer.name));
    let bytes = std::fs::read(&path).unwrap();
    assert!(!bytes.is_empty(), "{} wrote nothing", writer.name);
    bytes
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_char_device())
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn dev_null_takes_every_output_and_stays_a_device() {
    let aside = TempDir::new("outputs-null");
    for writer in &WRITERS {
        compile_perf((writer.args)(Path::new("/dev/null"), aside.path()))
            .expect_code(0, &format!("{} /dev/null", writer.name));
        assert!(
            is_char_device(Path::new("/dev/null")),
            "{} left /dev/null a character device",
            writer.name
        );
    }
}

#[test]
fn dev_full_is_exit_1_naming_it_and_stays_a_device() {
    let aside = TempDir::new("outputs-full");
    for writer in &WRITERS {
        let run = compile_perf((writer.args)(Path::new("/dev/full"), aside.path()));
        run.expect_code(1, &format!("{} /dev/full", writer.name));
        assert!(
            run.stderr
                .contains("cannot write /dev/full: No space left on device"),
            "{}: {}",
            writer.name,
            run.stderr
        );
        assert!(
            is_char_device(Path::new("/dev/full")),
            "{} left /dev/full a character device",
            writer.name
        );
    }
}

#[test]
fn a_fifo_reader_receives_the_whole_output_and_the_fifo_stays() {
    for writer in &WRITERS {
        let scratch = TempDir::new("outputs-fifo");
        let expected = expected_output(writer, &scratch);
        let dir = TempDir::new("outputs-fifo-dir");
        let fifo = dir.join("pipe");
        make_fifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut received = Vec::new();
                File::open(&fifo)
                    .unwrap()
                    .read_to_end(&mut received)
                    .unwrap();
                received
            })
        };
        // A writer of our own, opened as the reader opens and closed after
        // the run: the reader sees the end even if the run never wrote.
        let held_open = OpenOptions::new().write(true).open(&fifo).unwrap();
        let run = compile_perf((writer.args)(&fifo, scratch.path()));
        drop(held_open);
        let received = reader.join().unwrap();
        run.expect_code(0, &format!("{} to a FIFO", writer.name));
        assert!(
            received == expected,
            "{}: the reader got {} bytes, a file gets {}",
            writer.name,
            received.len(),
            expected.len()
        );
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo(),
            "{} left the FIFO a FIFO",
            writer.name
        );
        assert_eq!(names_in(dir.path()), ["pipe"], "{}", writer.name);
    }
}

#[test]
fn a_symlink_stays_and_its_target_is_replaced() {
    for writer in &WRITERS {
        let scratch = TempDir::new("outputs-link");
        let expected = expected_output(writer, &scratch);
        let dir = TempDir::new("outputs-link-dir");
        std::fs::write(dir.join("target.out"), "old contents\n").unwrap();
        symlink("target.out", dir.join("link.out")).unwrap();
        compile_perf((writer.args)(&dir.join("link.out"), scratch.path()))
            .expect_code(0, &format!("{} to a symlink", writer.name));
        assert!(
            dir.join("link.out").is_symlink(),
            "{} left the link a link",
            writer.name
        );
        assert_eq!(
            std::fs::read_link(dir.join("link.out")).unwrap(),
            Path::new("target.out")
        );
        assert!(
            std::fs::read(dir.join("target.out")).unwrap() == expected,
            "{} replaced the link's target with its output",
            writer.name
        );
        assert_eq!(
            names_in(dir.path()),
            ["link.out", "target.out"],
            "{}",
            writer.name
        );
    }
}

/// Runs `compile-perf record -o TARGET --force -- /bin/true` in `cwd`.
fn record_forced(cwd: &Path, target: impl AsRef<OsStr>) -> Run {
    let output = Command::new(common::bin())
        .args(["record", "--force", "-o"])
        .arg(target)
        .args(["--", "/bin/true"])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .expect("compile-perf runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Panics unless `run` is the refusal of `--force` for `reason`.
fn expect_refused(run: &Run, what: &str, reason: &str) {
    run.expect_code(26, what);
    assert!(
        run.stderr.contains("--force does not replace")
            && run.stderr.contains(reason)
            && run.stderr.contains("nothing was deleted"),
        "{what}: {}",
        run.stderr
    );
}

/// Every file and symlink under `dir`, relative, with its contents (a
/// link's: its target).
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            let contents = if kind.is_dir() {
                pending.push(path);
                continue;
            } else if kind.is_symlink() {
                std::fs::read_link(&path)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                std::fs::read(&path).unwrap()
            };
            files.push((path.strip_prefix(dir).unwrap().to_owned(), contents));
        }
    }
    files.sort();
    files
}

#[test]
fn record_force_refuses_the_working_directory_and_above_and_what_is_not_a_run() {
    if !common::live_prerequisite("perf") {
        return;
    }
    let scratch = TempDir::new("outputs-force-refused");
    let cwd = scratch.join("work");
    std::fs::create_dir_all(cwd.join("sub")).unwrap();
    std::fs::write(cwd.join("sentinel.txt"), "keep me").unwrap();
    std::fs::write(cwd.join("sub/nested.txt"), "and me").unwrap();
    // A run.json of ours does not make the working directory replaceable.
    std::fs::write(
        cwd.join("run.json"),
        r#"{"status": "finished", "command": ["/bin/true"]}"#,
    )
    .unwrap();
    let other = scratch.join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    std::fs::write(scratch.join("file.txt"), "a file").unwrap();
    symlink(&cwd, scratch.join("link-to-work")).unwrap();
    let before = tree(scratch.path());

    let working = "it is the working directory or contains it";
    expect_refused(&record_forced(&cwd, "."), "-o .", working);
    expect_refused(&record_forced(&cwd, ".."), "-o ..", working);
    expect_refused(
        &record_forced(&cwd, scratch.path()),
        "-o the parent",
        working,
    );
    expect_refused(
        &record_forced(&cwd, "../link-to-work"),
        "-o a symlink to the working directory",
        working,
    );
    expect_refused(
        &record_forced(&cwd, "../other"),
        "-o a directory that is not a run",
        "it is not empty and has no run.json of compile-perf record",
    );
    expect_refused(
        &record_forced(&cwd, "../file.txt"),
        "-o a file",
        "it is not a directory",
    );
    assert_eq!(tree(scratch.path()), before, "nothing was deleted");
}

#[test]
fn record_force_replaces_an_empty_directory_and_a_previous_run() {
    if !common::live_prerequisite("perf") {
        return;
    }
    let scratch = TempDir::new("outputs-force-accepted");
    let cwd = scratch.join("work");
    std::fs::create_dir(&cwd).unwrap();
    let run_dir = scratch.join("run");
    std::fs::create_dir(&run_dir).unwrap();

    record_forced(&cwd, "../run").expect_code(0, "-o an empty directory");
    let finished = |dir: &Path| {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("run.json")).unwrap()).unwrap();
        // perf.data is a file, or with one stream per CPU a directory.
        json["finished"] == true && dir.join("perf.data").exists()
    };
    assert!(finished(&run_dir), "the empty directory holds the run");

    std::fs::write(run_dir.join("leftover.txt"), "from before").unwrap();
    record_forced(&cwd, "../run").expect_code(0, "-o a previous run directory");
    assert!(finished(&run_dir), "the new run is there");
    assert!(
        !run_dir.join("leftover.txt").exists(),
        "the previous run was deleted first"
    );
    assert_eq!(names_in(scratch.path()), ["run", "work"]);
}
