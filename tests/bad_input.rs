//! Damaged and wrong input: each case gets a one-line error and its own exit
//! code, never a panic or an abort, and a cut recording is never passed off
//! as complete. Inputs are the committed fixtures, cut and mutated.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compile-perf-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn top(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_compile-perf"))
        .args(["top", "-q", "-n", "3"])
        .arg(path)
        .output()
        .expect("compile-perf runs")
}

fn top_stdin(bytes: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_compile-perf"))
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
fn assert_error(output: &Output, code: i32, what: &str) {
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

#[test]
fn an_empty_file_is_named_empty() {
    assert_error(&top(&scratch_file("empty.data", b"")), 4, "empty");
    assert_error(&top_stdin(b""), 4, "empty");
}

#[test]
fn random_bytes_are_not_perf_data() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    assert_error(
        &top(&scratch_file("random.data", &bytes)),
        5,
        "not a perf.data file",
    );
    assert_error(&top_stdin(&bytes), 5, "not a perf.data file");
}

#[test]
fn a_nonexistent_path_cannot_be_opened() {
    assert_error(&top(Path::new("/nonexistent/perf.data")), 3, "cannot open");
}

#[test]
fn a_file_truncated_anywhere_is_reported_truncated() {
    for name in ["fake-dwarf.perf.data", "fake-rounds.perf.data"] {
        let full = std::fs::read(fixture(name)).unwrap();
        let step = full.len() / 97;
        for cut in (1..full.len())
            .step_by(step)
            .chain([8, 16, 104, full.len() - 1])
        {
            let path = scratch_file("cut.data", &full[..cut]);
            assert_error(&top(&path), 6, "truncated");
        }
    }
}

#[test]
fn a_pipe_stream_cut_short_says_so_and_keeps_what_was_read() {
    let full = std::fs::read(fixture("fake-pipe.perf.data")).unwrap();
    let step = full.len() / 53;
    for cut in (1..full.len())
        .step_by(step)
        .chain([full.len() - 8, full.len() - 1])
    {
        let output = top_stdin(&full[..cut]);
        assert_error(&output, 7, "cut short");
        let path = scratch_file("cut-pipe.data", &full[..cut]);
        if cut < 16 {
            // Too short to tell a pipe stream from a file: truncated either way.
            assert_error(&top(&path), 6, "truncated");
        } else {
            assert_error(&top(&path), 7, "cut short");
        }
    }
    // What was read before the cut is still reported, with the error.
    let half = top_stdin(&full[..full.len() / 2]);
    assert!(String::from_utf8_lossy(&half.stdout).contains("fakecompiler"));
}

/// The header records of the pipe fixture, up to its first data record.
fn pipe_header_records() -> Vec<u8> {
    let full = std::fs::read(fixture("fake-pipe.perf.data")).unwrap();
    let mut at = 16;
    loop {
        let record_type = u32::from_le_bytes(full[at..at + 4].try_into().unwrap());
        let size = u16::from_le_bytes(full[at + 6..at + 8].try_into().unwrap()) as usize;
        // PERF_RECORD_HEADER_ATTR (64) and HEADER_FEATURE (80) describe the stream.
        if record_type != 64 && record_type != 80 {
            return full[..at].to_vec();
        }
        at += size;
    }
}

#[test]
fn an_mmap2_record_with_an_impossible_build_id_is_corrupt_not_a_crash() {
    let mut stream = pipe_header_records();
    let mut body = Vec::new();
    body.extend_from_slice(&1u32.to_le_bytes()); // pid
    body.extend_from_slice(&1u32.to_le_bytes()); // tid
    body.extend_from_slice(&0x40_0000u64.to_le_bytes()); // address
    body.extend_from_slice(&0x1000u64.to_le_bytes()); // length
    body.extend_from_slice(&0u64.to_le_bytes()); // file offset
    body.push(21); // build id length: one more than a build id can have
    body.extend_from_slice(&[0; 3]);
    body.extend_from_slice(&[0xab; 20]);
    body.extend_from_slice(&5u32.to_le_bytes()); // PROT_READ | PROT_EXEC
    body.extend_from_slice(&2u32.to_le_bytes()); // MAP_PRIVATE
    body.extend_from_slice(b"/bin/x\0\0");
    body.extend_from_slice(&[0; 40]); // sample_id fields
    let misc: u16 = (1 << 14) | 2; // PERF_RECORD_MISC_MMAP_BUILD_ID, user mode
    stream.extend_from_slice(&10u32.to_le_bytes()); // PERF_RECORD_MMAP2
    stream.extend_from_slice(&misc.to_le_bytes());
    stream.extend_from_slice(&((8 + body.len()) as u16).to_le_bytes());
    stream.extend_from_slice(&body);
    stream.extend_from_slice(&68u32.to_le_bytes()); // PERF_RECORD_FINISHED_ROUND
    stream.extend_from_slice(&0u16.to_le_bytes());
    stream.extend_from_slice(&8u16.to_le_bytes());
    assert_error(&top_stdin(&stream), 8, "build id");
}

#[test]
fn mutated_recordings_never_panic_or_abort() {
    let allowed = [0, 5, 6, 7, 8];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    for name in [
        "fake-dwarf.perf.data",
        "fake-pipe.perf.data",
        "fake-fp.perf.data",
        "fake-rounds.perf.data",
    ] {
        let original = std::fs::read(fixture(name)).unwrap();
        for _ in 0..60 {
            let mut bytes = original.clone();
            for _ in 0..1 + next(4) {
                let at = next(bytes.len() - 8);
                let word = (next(usize::MAX) as u64).to_le_bytes();
                bytes[at..at + 8].copy_from_slice(&word);
            }
            let output = top(&scratch_file("mutated.data", &bytes));
            let err = String::from_utf8_lossy(&output.stderr);
            let code = output.status.code();
            assert!(
                code.is_some_and(|code| allowed.contains(&code) || code == 10 || code == 11),
                "{name}: exit {code:?} (a signal means a crash): {err}"
            );
            assert!(!err.contains("panicked"), "{name}: {err}");
        }
    }
}
