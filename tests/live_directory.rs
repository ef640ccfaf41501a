//! Live tests of perf's directory format (`perf record --threads`: a header
//! file `data` and one stream per CPU, `data.0`, `data.1`, …): plain and
//! zstd directories agree with `perf report` and give the same bytes read
//! with one job and with two, and a report (text, JSON, SVG) the same bytes
//! read in two passes or merged, and of many streams (copies of a
//! recording's) with one job and with several; a cut or damaged stream exits 8 naming the
//! stream and the byte, `--salvage` reads the cut one (exit 6), and one cut
//! after a full compressed record is read with a warning that names perf
//! 6.1's lost zstd tail.
//!
//! They need perf and iree-compile (see `tests/live.rs` for the live-test
//! rules).

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::iree::{iree_compile_argv, iree_live_prerequisites, live_lock, perf_record, workload};
use common::perf_report::{as_u64, compare_with_perf_report};
use common::unwinding::check_compiler_unwinding;
use common::{TempDir, compile_perf};

/// Records workload `name` with `perf record --threads PERF_ARGS` into a
/// directory `perf.data` in `dir`, and returns it.
fn record_directory(dir: &TempDir, name: &str, perf_args: &[&str]) -> PathBuf {
    let input = workload(dir, name);
    let data = dir.join("perf.data");
    let mut args = vec!["--threads"];
    args.extend_from_slice(perf_args);
    perf_record(&data, &args, &iree_compile_argv(dir, &input));
    assert!(data.is_dir(), "perf record --threads writes a directory");
    assert!(data.join("data").is_file(), "with its header file");
    data
}

/// The stream files of a directory recording, largest first.
fn streams_by_size(data: &Path) -> Vec<(PathBuf, u64)> {
    let mut streams: Vec<(PathBuf, u64)> = std::fs::read_dir(data)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("data.")
        })
        .map(|path| {
            let len = std::fs::metadata(&path).unwrap().len();
            (path, len)
        })
        .collect();
    streams.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    streams
}

/// Where the top-level COMPRESSED records (type 81) of a stream file end,
/// and their sizes (little-endian headers: type u32, misc u16, size u16).
fn compressed_record_ends(stream: &[u8]) -> Vec<(usize, usize)> {
    let mut ends = Vec::new();
    let mut at = 0;
    while at + 8 <= stream.len() {
        let record_type = u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
        let size = usize::from(u16::from_le_bytes(
            stream[at + 6..at + 8].try_into().unwrap(),
        ));
        if size < 8 {
            break;
        }
        at += size;
        if record_type == 81 && at <= stream.len() {
            ends.push((at, size));
        }
    }
    ends
}

/// A copy of the directory recording `data` at `to`.
fn copy_directory(data: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(data).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

/// `collapse` of `data` with `FLAG THREADS` (`--jobs`, or its old name
/// `--read-threads`), with no cache.
fn collapsed(data: &Path, flag: &str, threads: &str) -> String {
    let run = compile_perf([
        "collapse".as_ref(),
        data.as_os_str(),
        "--no-cache".as_ref(),
        flag.as_ref(),
        threads.as_ref(),
    ]);
    run.expect_code(0, &format!("collapse {flag} {threads}"));
    run.stdout
}

/// The checks every directory recording passes: perf report's counts, whole
/// stacks, the same bytes with one job and with two (run twice
/// with two, as threads finish in a different order each time).
fn check_directory(data: &Path, label: &str) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let streams = streams_by_size(data);
    assert!(
        streams.len() >= cores.min(2),
        "{label}: one stream per CPU ({} streams on {cores} cores)",
        streams.len()
    );
    let json = compare_with_perf_report(data, label);
    check_compiler_unwinding(&json, label);
    let one = collapsed(data, "--jobs", "1");
    assert!(one.lines().count() > 100, "{label}: collapse has stacks");
    for (attempt, flag) in ["--jobs", "--read-threads"].into_iter().enumerate() {
        assert!(
            collapsed(data, flag, "2") == one,
            "{label}: the same folded stacks with one job and two ({flag}, attempt {attempt})"
        );
    }
}

/// A directory at `to` with the streams of the directory `data` repeated
/// `times` times (as `scripts/scale-curve.sh --repeat` makes them): the
/// same records in many streams, at the same times.
fn repeat_streams(data: &Path, to: &Path, times: usize) -> usize {
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(data.join("data"), to.join("data")).unwrap();
    let mut streams: Vec<PathBuf> = streams_by_size(data).into_iter().map(|(p, _)| p).collect();
    streams.sort();
    let mut count = 0;
    for _ in 0..times {
        for stream in &streams {
            std::fs::copy(stream, to.join(format!("data.{count}"))).unwrap();
            count += 1;
        }
    }
    count
}

/// stdout of `report DATA --no-cache --jobs JOBS ARGS`, and the SVG it drew
/// when ARGS ask for one at `svg`.
fn report_with_jobs(data: &Path, jobs: &str, args: &[&OsStr], svg: &Path) -> (String, Vec<u8>) {
    let _ = std::fs::remove_file(svg);
    let mut all: Vec<&OsStr> = vec![
        "report".as_ref(),
        data.as_os_str(),
        "--no-cache".as_ref(),
        "-q".as_ref(),
        "--jobs".as_ref(),
        jobs.as_ref(),
    ];
    all.extend_from_slice(args);
    let run = compile_perf(all);
    run.expect_code(0, &format!("report --jobs {jobs} {args:?}"));
    (run.stdout, std::fs::read(svg).unwrap_or_default())
}

#[test]
fn a_report_of_many_streams_is_the_same_bytes_with_one_job_and_with_several() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("live-directory-jobs");
    let data = record_directory(
        &dir,
        "hex-constants",
        &["-z", "--call-graph", "dwarf,65528"],
    );
    let many = dir.join("many.data");
    let streams = repeat_streams(&data, &many, 4);
    assert!(streams >= 8, "{streams} streams: more than the jobs");
    let svg = dir.join("flame.svg");
    let formats: [&[&OsStr]; 3] = [
        &[],
        &["--format".as_ref(), "json".as_ref()],
        &["--flamegraph".as_ref(), svg.as_os_str()],
    ];
    for args in formats {
        // The recording itself: in two passes with one job, merged with two
        // or three (all its streams at once), in two passes with four.
        let first = report_with_jobs(&data, "1", args, &svg);
        for jobs in ["2", "4"] {
            assert!(
                report_with_jobs(&data, jobs, args, &svg) == first,
                "report {args:?} of the recording: the same bytes with --jobs 1 and {jobs}"
            );
        }
        let one = report_with_jobs(&many, "1", args, &svg);
        assert!(one.0.lines().count() > 5, "report {args:?} has rows");
        for jobs in ["2", "3"] {
            assert!(
                report_with_jobs(&many, jobs, args, &svg) == one,
                "report {args:?}: the same bytes with --jobs 1 and --jobs {jobs}"
            );
        }
        if !args.is_empty() && args[0] == "--format" {
            let whole = samples_read(&data, &[], 0, "the recording itself").0;
            let json: serde_json::Value = serde_json::from_str(&one.0).unwrap();
            let repeated = as_u64(&json["samples"], "samples");
            assert_eq!(
                repeated,
                4 * whole,
                "four copies of the streams, four times the samples"
            );
        }
    }
    let (_, drawn) = report_with_jobs(&many, "2", formats[2], &svg);
    assert!(
        drawn.starts_with(b"<?xml") || drawn.starts_with(b"<svg"),
        "an SVG was drawn"
    );
}

#[test]
fn a_threads_directory_with_zstd_agrees_with_perf_report_whatever_the_jobs() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("live-directory-zstd");
    let data = record_directory(
        &dir,
        "hex-constants",
        &["-z", "--call-graph", "dwarf,65528"],
    );
    check_directory(&data, "perf record --threads -z --call-graph dwarf,65528");
}

#[test]
fn a_plain_threads_directory_agrees_with_perf_report_whatever_the_jobs() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("live-directory-plain");
    let data = record_directory(&dir, "hex-constants", &["--call-graph", "dwarf,65528"]);
    check_directory(&data, "perf record --threads --call-graph dwarf,65528");
}

/// Samples a report of `data` counted (`report --format json`), with the
/// flags given, and the exit code it must have.
fn samples_read(data: &Path, flags: &[&str], code: i32, what: &str) -> (u64, String) {
    let mut args: Vec<&OsStr> = vec![
        "report".as_ref(),
        data.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--no-cache".as_ref(),
    ];
    args.extend(flags.iter().map(OsStr::new));
    let run = compile_perf(args);
    run.expect_code(code, what);
    let samples = if code == 0 || code == 6 {
        as_u64(&run.json()["samples"], "samples")
    } else {
        0
    };
    (samples, run.stderr)
}

/// Copies the directory `data` to `cut` with its stream `stream` (whose
/// bytes are `bytes`) cut at each of `ends` in turn, until `report` warns
/// that perf did not finish writing it; returns the samples read and the
/// warning then. Every cut must give fewer samples than the `whole`
/// directory.
fn first_unfinished_cut(
    data: &Path,
    cut: &Path,
    stream: &str,
    bytes: &[u8],
    ends: impl IntoIterator<Item = usize>,
    whole: u64,
) -> Option<(u64, String)> {
    for end in ends {
        let _ = std::fs::remove_dir_all(cut);
        copy_directory(data, cut);
        std::fs::write(cut.join(stream), &bytes[..end]).unwrap();
        let (samples, stderr) = samples_read(cut, &[], 0, "a stream cut after a record");
        assert!(samples < whole, "a cut stream gives fewer samples");
        if stderr.contains("did not finish writing") {
            return Some((samples, stderr));
        }
    }
    None
}

#[test]
fn a_cut_or_damaged_stream_is_named_with_its_byte_and_a_cut_one_salvaged() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    let dir = TempDir::new("live-directory-damaged");
    let data = record_directory(
        &dir,
        "hex-constants",
        &["-z", "--call-graph", "dwarf,65528"],
    );
    let (whole, _) = samples_read(&data, &[], 0, "the whole directory");
    let (largest, len) = streams_by_size(&data).remove(0);
    let stream = largest.file_name().unwrap().to_string_lossy().into_owned();

    // Cut in the middle: a record runs past the end of the stream.
    let cut = dir.join("cut.perf.data");
    copy_directory(&data, &cut);
    let cut_stream = cut.join(&stream);
    let bytes = std::fs::read(&cut_stream).unwrap();
    std::fs::write(&cut_stream, &bytes[..len as usize / 2 + 3]).unwrap();
    let (_, stderr) = samples_read(&cut, &[], 8, "a cut stream");
    assert!(
        stderr.contains(&stream) && stderr.contains("byte"),
        "the message names the stream {stream} and the byte: {stderr}"
    );
    let (salvaged, stderr) = samples_read(&cut, &["--salvage"], 6, "a cut stream, salvaged");
    assert!(
        salvaged > whole / 4 && salvaged < whole,
        "salvaged {salvaged} of {whole} samples: the records before the cut, not all"
    );
    assert!(
        stderr.contains("salvaged") && stderr.contains(&stream),
        "the warning names the stream: {stderr}"
    );

    // A damaged record header in the middle of the stream (damage inside a
    // sample's stack bytes cannot be told from data, for perf neither): a
    // COMPRESSED record that states a size of 4 bytes.
    let damaged = dir.join("damaged.perf.data");
    copy_directory(&data, &damaged);
    let damaged_stream = damaged.join(&stream);
    let mut bytes = std::fs::read(&damaged_stream).unwrap();
    let boundaries = compressed_record_ends(&bytes);
    let (at, _) = boundaries[boundaries.len() / 2];
    bytes[at..at + 8].copy_from_slice(&[81, 0, 0, 0, 0, 0, 4, 0]);
    std::fs::write(&damaged_stream, &bytes).unwrap();
    let (_, stderr) = samples_read(&damaged, &[], 8, "a damaged stream");
    assert!(
        stderr.contains(&stream) && stderr.contains("byte"),
        "the message names the stream {stream} and the byte: {stderr}"
    );

    // Cut at the end of a compressed record: where the records decompressed
    // so far end inside a sample (records span compressed records), the
    // stream is unfinished: every record before it is read, with a warning
    // and exit 0.
    let bytes = std::fs::read(data.join(&stream)).unwrap();
    let ends = boundaries.iter().skip(boundaries.len() / 2).take(40);
    let (samples, stderr) = first_unfinished_cut(
        &data,
        &dir.join("unfinished.perf.data"),
        &stream,
        &bytes,
        ends.map(|&(end, _)| end),
        whole,
    )
    .expect("a cut after some compressed record ends in a sample");
    assert!(
        stderr.contains(&stream) && samples > whole / 4,
        "the warning names the stream, and the samples before it were read ({samples} of \
         {whole}): {stderr}"
    );

    // A garbled header file: the directory is not perf's.
    let garbled = dir.join("garbled.perf.data");
    copy_directory(&data, &garbled);
    std::fs::write(garbled.join("data"), b"not a perf.data header at all").unwrap();
    samples_read(&garbled, &[], 5, "a garbled header file");
}

#[test]
fn a_stream_cut_after_a_full_compressed_record_is_perfs_lost_zstd_tail() {
    let _live = live_lock();
    if !iree_live_prerequisites() {
        return;
    }
    // perf drains half its ring buffer at a time; at `-m 4096` (16 MiB) a
    // drain fills several compressed records of 65,535 bytes, perf 6.1's
    // largest. A stream that ends in one, inside a sample, is what perf
    // leaves when it drops the end of its zstd data (at most zstd's last
    // block), and the warning says so.
    let dir = TempDir::new("live-directory-zstd-tail");
    let data = record_directory(
        &dir,
        "hex-constants",
        &["-z", "--call-graph", "dwarf,65528", "-m", "4096"],
    );
    let (whole, _) = samples_read(&data, &[], 0, "the whole directory");
    let (largest, _) = streams_by_size(&data).remove(0);
    let stream = largest.file_name().unwrap().to_string_lossy().into_owned();
    let bytes = std::fs::read(&largest).unwrap();
    let boundaries = compressed_record_ends(&bytes);
    let full_ends: Vec<usize> = boundaries[..boundaries.len() - 1]
        .iter()
        .filter(|&&(_, size)| size == usize::from(u16::MAX))
        .map(|&(end, _)| end)
        .collect();
    assert!(
        !full_ends.is_empty(),
        "{stream} has full compressed records"
    );
    let (samples, stderr) = first_unfinished_cut(
        &data,
        &dir.join("tail.perf.data"),
        &stream,
        &bytes,
        full_ends.iter().skip(full_ends.len() / 2).take(20).copied(),
        whole,
    )
    .expect("a cut after some full record ends in a sample");
    for part in [
        stream.as_str(),
        "perf did not finish writing its zstd data: the last compressed record is full",
        "at most zstd's last block (128 KiB of raw data",
    ] {
        assert!(stderr.contains(part), "{part:?} in {stderr}");
    }
    assert!(samples > 0, "the samples before it were read: {stderr}");
}
