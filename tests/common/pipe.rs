//! Pipe-mode recordings for the live tests: `perf record -o -` piped into
//! compile-perf (and saved on the way), the records of a saved stream, and
//! the same stream cut short in several ways.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::perf_report::ALL;
use super::{Run, TempDir, compile_perf_with_stdin};

/// `PERF_RECORD_FINISHED_ROUND`.
pub(crate) const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_LOST_SAMPLES`: perf 6.x appends these after its last
/// FINISHED_ROUND when the kernel lost samples.
pub(crate) const LOST_SAMPLES: u32 = 13;
/// Records `argv` with `perf record -o - PERF_ARGS`, piped into
/// `compile-perf top - --format json` through a tee that saves the stream to
/// `saved`. Returns compile-perf's run; perf must succeed.
pub(crate) fn record_through_pipe(
    dir: &TempDir,
    perf_args: &[&str],
    argv: &[OsString],
    saved: &Path,
) -> Run {
    let started = Instant::now();
    let perf_log = dir.join("perf-record.log");
    let mut perf = Command::new("perf")
        .args(["record", "-e", "cpu-clock", "-F", "499", "-N", "-q"])
        .args(perf_args)
        .args(["-o", "-", "--"])
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(File::create(&perf_log).unwrap())
        .spawn()
        .expect("perf runs");
    let mut tool = Command::new(super::bin())
        .args(["top", "-", "--format", "json", "-n", ALL])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("compile-perf runs");
    let mut from_perf = perf.stdout.take().unwrap();
    let mut to_tool = tool.stdin.take().unwrap();
    let mut copy = File::create(saved).unwrap();
    let tee = std::thread::spawn(move || {
        let mut buffer = vec![0; 1 << 16];
        let mut tool_open = true;
        loop {
            let read = from_perf.read(&mut buffer).expect("read perf's stream");
            if read == 0 {
                break;
            }
            copy.write_all(&buffer[..read]).expect("save the stream");
            // Keep draining perf even if the tool stopped reading.
            tool_open = tool_open && to_tool.write_all(&buffer[..read]).is_ok();
        }
        // Dropping `to_tool` ends compile-perf's input.
    });
    let output = tool.wait_with_output().expect("compile-perf finishes");
    tee.join().expect("the tee thread");
    let perf_status = perf.wait().expect("perf finishes");
    assert!(
        perf_status.success(),
        "perf record -o - failed ({perf_status}):\n{}",
        std::fs::read_to_string(&perf_log).unwrap_or_default()
    );
    let size = std::fs::metadata(saved).map(|meta| meta.len()).unwrap_or(0);
    eprintln!(
        "recorded through a pipe with perf record -o - {}: {:.1} MB in {:.1} s",
        perf_args.join(" "),
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    super::Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `(offset, size, type)` of each record of a pipe-mode stream; panics unless
/// the records fill the stream exactly.
pub(crate) fn pipe_records(bytes: &[u8]) -> Vec<(usize, usize, u32)> {
    assert!(
        bytes.len() >= 16 && &bytes[..8] == b"PERFILE2",
        "not a perf stream"
    );
    let header_size = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
    assert_eq!(header_size, 16, "not a pipe-mode stream");
    let mut records = Vec::new();
    let mut offset = 16;
    while offset + 8 <= bytes.len() {
        let kind = u32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap());
        let size = u16::from_le_bytes(bytes[offset + 6..offset + 8].try_into().unwrap()) as usize;
        assert!(size >= 8, "record of size {size} at {offset}");
        records.push((offset, size, kind));
        offset += size;
    }
    assert_eq!(
        offset,
        bytes.len(),
        "the stream does not end at a record end"
    );
    records
}

/// Whether a stream of `records` ends as perf ends a complete one: with a
/// FINISHED_ROUND, followed only by LOST_SAMPLES records.
pub(crate) fn looks_complete(records: &[(usize, usize, u32)]) -> bool {
    records
        .iter()
        .rev()
        .find(|(_, _, kind)| *kind != LOST_SAMPLES)
        .is_some_and(|(_, _, kind)| *kind == FINISHED_ROUND)
}

/// The complete stream in `saved`, cut short in several ways and piped in,
/// makes compile-perf exit 7 and say that it was cut short.
pub(crate) fn check_cut_streams(saved: &Path) {
    let bytes = std::fs::read(saved).unwrap();
    let records = pipe_records(&bytes);
    assert!(
        looks_complete(&records),
        "perf ends a complete stream with FINISHED_ROUND (then LOST_SAMPLES, if any); \
         the last records are {:?}",
        &records[records.len().saturating_sub(5)..]
    );
    let middle = records
        .iter()
        .find(|(offset, size, _)| offset + size > bytes.len() / 2)
        .unwrap();
    let mut cuts = vec![
        ("inside a record in the middle", middle.0 + middle.1 / 2),
        ("inside the last record", bytes.len() - 1),
    ];
    // At record boundaries. A stream that stops right after a FINISHED_ROUND
    // (perf writes one after every flush) looks complete, so cut where it
    // does not: in the middle, and as late as possible.
    let cut_at = |index: &usize| !looks_complete(&records[..*index]);
    if let Some(index) = (records.len() / 2..records.len()).find(cut_at) {
        cuts.push(("at a record boundary in the middle", records[index].0));
    }
    if let Some(index) = (1..records.len()).rev().find(cut_at) {
        cuts.push((
            "at the last record boundary that can be told from the end",
            records[index].0,
        ));
    }
    for (where_, cut) in cuts {
        let run = compile_perf_with_stdin(["top", "-", "-n", "5"], &bytes[..cut]);
        let what = format!("stream cut {where_} (after {cut} of {} bytes)", bytes.len());
        run.expect_code(7, &what);
        assert!(
            run.stderr.contains("cut short"),
            "{what}: stderr must say the stream was cut short:\n{}",
            run.stderr
        );
        eprintln!(
            "{what}: exit 7, {}",
            run.stderr.lines().last().unwrap_or("")
        );
    }
}
