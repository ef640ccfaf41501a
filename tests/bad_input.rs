//! Damaged and wrong input: each case gets a one-line error and its own exit
//! code, never a panic or an abort, and a cut recording is never passed off
//! as complete. Inputs are the committed fixtures, cut and mutated.
//! Unfinished recordings read with `--salvage` are in `tests/salvage.rs`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::damaged::{
    assert_error, folded_samples, output_of as compile_perf, scratch_file, top, top_stdin,
};
use common::fixture;

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
    body.extend_from_slice(&[0; 24]); // the sample_id fields of the stream's event
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

/// A `-z` recording whose reader stops early while the decompression
/// thread runs ahead: two words of a compressed record of `fake-dwarf`
/// changed (a mutation `mutated_recordings_never_panic_or_abort` made),
/// which decompress into a sample of an impossible process. The thread may
/// still read the piece it handed on last (zstd's history) until it sees
/// the reader stop, so the reader keeps the pieces until the thread is
/// gone; when it dropped them at once, about one run in six crashed
/// (SIGSEGV). Thirty runs.
#[test]
fn a_reader_that_stops_early_keeps_what_the_decompression_thread_reads() {
    let mut bytes = std::fs::read(fixture("fake-dwarf.perf.data")).unwrap();
    bytes[9333..9341].copy_from_slice(&[0x2d, 0x08, 0x93, 0x69, 0x7f, 0xda, 0x81, 0x36]);
    bytes[13241..13249].copy_from_slice(&[0x13, 0xf6, 0xbd, 0xcd, 0xd3, 0xb3, 0x86, 0xdc]);
    let path = scratch_file("stops-early.data", &bytes);
    let path = path.to_str().unwrap();
    for _ in 0..30 {
        let output = compile_perf(&["top", "-q", "-n", "3", "--no-cache", path]);
        assert_error(&output, 8, "an id Linux never hands out");
    }
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

/// byte where reading found the damage, and still write what it read.
#[test]
fn silent_losses_are_corrupt_with_their_offset_and_keep_the_samples_before() {
    let cases = [
        // (fixture, where, what, samples before)
        (
            "corrupt-compressed-size.perf.data",
            "at byte 11782 of the file",
            "a record has type 2751468476",
            124,
        ),
        (
            "corrupt-sample-size.perf.data",
            "at byte 94968 of the file",
            "a SAMPLE record is 32768 bytes long, but its event's fields (sample_type 0x127) take 1072 bytes",
            88,
        ),
        (
            "corrupt-mmap-length.perf.data",
            "at byte 127224 of the file",
            "maps user-space code at 0x55bb55a29000..0x800055bb55a28ff0, past the end of user space",
            118,
        ),
        (
            "corrupt-early-header.perf.data",
            "at byte 424 of the file",
            "a record has type 4294967280, which neither perf nor the kernel writes",
            0,
        ),
    ];
    for (name, offset, problem, samples) in cases {
        let out = scratch_file(&format!("{name}.folded"), b"an older output\n");
        let output = compile_perf(&[
            "collapse".as_ref(),
            "-q".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            fixture(name).as_os_str(),
        ]);
        assert_error(&output, 8, offset);
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.contains(problem), "{name}: {err}");
        assert!(
            err.contains(&format!("the {samples} samples read before it were used")),
            "{name}: {err}"
        );
        assert_eq!(
            folded_samples(&out),
            samples,
            "{name}: the output holds them"
        );
    }
    // What was read is what the undamaged recording holds up to there.
    let partial = scratch_file("partial.folded", b"");
    let full = scratch_file("full.folded", b"");
    for (file, out) in [
        ("corrupt-compressed-size.perf.data", &partial),
        ("fake-dwarf.perf.data", &full),
    ] {
        compile_perf(&[
            "collapse".as_ref(),
            "-q".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            fixture(file).as_os_str(),
        ]);
    }
    let counts = |path: &Path| -> std::collections::HashMap<String, u64> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|line| {
                let (stack, count) = line.rsplit_once(' ').unwrap();
                (stack.to_owned(), count.parse().unwrap())
            })
            .collect()
    };
    let whole = counts(&full);
    for (stack, count) in counts(&partial) {
        assert!(
            whole.get(&stack).is_some_and(|&all| all >= count),
            "{stack} ({count}) is not in the undamaged recording"
        );
    }
}

#[test]
fn a_damaged_pipe_stream_is_corrupt_not_cut_short() {
    let mut bytes = std::fs::read(fixture("fake-pipe.perf.data")).unwrap();
    // The 16-bit size of the compressed record at byte 7438, set to 8.
    assert_eq!(
        u32::from_le_bytes(bytes[7438..7442].try_into().unwrap()),
        81
    );
    bytes[7444..7446].copy_from_slice(&8u16.to_le_bytes());
    let output = top_stdin(&bytes);
    assert_error(&output, 8, "of the stream");
    assert!(String::from_utf8_lossy(&output.stdout).contains("fakecompiler"));
}

#[test]
fn a_file_mode_recording_on_stdin_is_not_called_invalid() {
    let bytes = std::fs::read(fixture("fake-dwarf.perf.data")).unwrap();
    let output = top_stdin(&bytes);
    assert_error(&output, 5, "this is a file-mode perf.data recording");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("pass its path"), "{err}");
    assert!(!err.contains("not a perf.data file"), "{err}");
}

/// Self samples of fake-dwarf's functions, as `perf report` counts them
/// (tests/fixtures/README.md).
/// `collapse -q` of `bytes`, saved under `name`: the exit code and stderr.
fn collapse_bytes(name: &str, bytes: &[u8]) -> Output {
    let path = scratch_file(name, bytes);
    compile_perf(&[
        "collapse".as_ref(),
        "-q".as_ref(),
        "-o".as_ref(),
        path.with_extension("folded").as_os_str(),
        path.as_os_str(),
    ])
}

#[test]
fn a_compressed_record_that_does_not_decompress_is_corrupt() {
    let mut bytes = std::fs::read(fixture("fake-dwarf.perf.data")).unwrap();
    // Eight bytes inside the zstd data of the compressed record at byte 20463.
    assert_eq!(
        u32::from_le_bytes(bytes[20463..20467].try_into().unwrap()),
        81
    );
    bytes[20900..20908].copy_from_slice(&0xdead_beef_cafe_babe_u64.to_le_bytes());
    let output = collapse_bytes("bad-zstd.data", &bytes);
    assert_error(
        &output,
        8,
        "the zstd data of the compressed record at byte 20463 of the file cannot be decompressed",
    );
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("the 259 samples read before it were used"),
        "{err}"
    );
}

/// The fake-dwarf fixture's header (its first 632 bytes), and the records
/// its first compressed record (at byte 632, 2417 bytes) holds: it starts
/// the zstd stream, and its records end on a record boundary.
fn fixture_header_and_first_records() -> (Vec<u8>, Vec<u8>) {
    let full = std::fs::read(fixture("fake-dwarf.perf.data")).unwrap();
    let first = &full[632 + 8..632 + 2417];
    let mut context = zstd_safe::DCtx::create();
    let mut records = vec![0u8; 1 << 20];
    let mut output = zstd_safe::OutBuffer::around(&mut records[..]);
    context
        .decompress_stream(&mut output, &mut zstd_safe::InBuffer::around(first))
        .unwrap();
    let decompressed = output.pos();
    records.truncate(decompressed);
    (full[..632].to_vec(), records)
}

/// A recording of the fixture's `header` whose only compressed record holds
/// `zstd`, then a FINISHED_ROUND, and no feature sections.
fn with_one_compressed_record(mut header: Vec<u8>, zstd: &[u8]) -> Vec<u8> {
    header.extend_from_slice(&81u32.to_le_bytes());
    header.extend_from_slice(&0u16.to_le_bytes());
    header.extend_from_slice(&u16::try_from(8 + zstd.len()).unwrap().to_le_bytes());
    header.extend_from_slice(zstd);
    header.extend_from_slice(&[68, 0, 0, 0, 0, 0, 8, 0]); // FINISHED_ROUND
    let data_size = (header.len() - 264) as u64;
    header[48..56].copy_from_slice(&data_size.to_le_bytes());
    header[72..104].fill(0); // no feature sections
    header
}

#[test]
fn decompressed_records_that_end_inside_a_record_are_corrupt() {
    let (header, records) = fixture_header_and_first_records();
    // The same records but the last 100 bytes, compressed alone, as the
    // recording's only compressed record.
    let mut compressed = vec![0u8; 1 << 20];
    let len = zstd_safe::compress(&mut compressed[..], &records[..records.len() - 100], 1).unwrap();
    let bytes = with_one_compressed_record(header, &compressed[..len]);
    let output = collapse_bytes("cut-inside-zstd.data", &bytes);
    assert_error(&output, 8, "the decompressed records end inside a record");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("of the data decompressed from the compressed record at byte 632 of the file"),
        "{err}"
    );
}

#[test]
fn a_full_last_compressed_record_that_ends_inside_a_record_is_perfs_lost_zstd_tail() {
    // perf 6.1 drops what zstd has not flushed when its last drain fills
    // its last 64 KiB compressed record. Built here: the records of the
    // fixture's first compressed record, then the start of a sample that
    // never ends, as one raw zstd block filling a record of 65,535 bytes.
    let (header, mut raw) = fixture_header_and_first_records();
    raw.extend_from_slice(&9u32.to_le_bytes()); // a SAMPLE
    raw.extend_from_slice(&2u16.to_le_bytes());
    raw.extend_from_slice(&65528u16.to_le_bytes());
    let payload = usize::from(u16::MAX) - 8;
    let frame_and_block_headers = 4 + 1 + 1 + 3;
    raw.resize(payload - frame_and_block_headers, 0);
    let mut zstd = 0xFD2F_B528u32.to_le_bytes().to_vec();
    zstd.push(0); // no content size, checksum or dictionary
    zstd.push(7 << 3); // a window of 128 KiB
    // A raw block that is not the last: perf never ends its zstd frame.
    let block = u32::try_from(raw.len()).unwrap() << 3;
    zstd.extend_from_slice(&block.to_le_bytes()[..3]);
    zstd.extend_from_slice(&raw);
    assert_eq!(zstd.len(), payload);
    let bytes = with_one_compressed_record(header, &zstd);
    let output = collapse_bytes("full-last-record.data", &bytes);
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "a warning, not an error: {err}"
    );
    for part in [
        "warning",
        "perf did not finish writing its zstd data: the last compressed record is full",
        "at most zstd's last block (128 KiB of raw data",
    ] {
        assert!(err.contains(part), "{part:?} in {err}");
    }
    let read: u64 = err
        .split("; the ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(" samples before it were read\n"))
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("how many samples were read: {err}"));
    assert!(read > 0, "the samples before it are kept: {err}");
}

#[test]
fn implausible_or_inconsistent_event_attributes_are_corrupt() {
    let full = std::fs::read(fixture("fake-dwarf.perf.data")).unwrap();
    // The header's attribute section is at byte 120; sample_type is 24
    // bytes into the attribute.
    let sample_type = u64::from_le_bytes(full[144..152].try_into().unwrap());
    assert_ne!(sample_type & (1 << 8), 0, "the recording has periods");
    for (value, problem) in [
        (
            0x7fff_ffff_ffff_fff0,
            "the event attribute at byte 120 has sample_type 0x7ffffffffffffff0",
        ),
        (
            sample_type & !(1 << 8), // without PERF_SAMPLE_PERIOD: plausible, but not what was recorded
            "event 0 differs between the header's attribute section and feature section 12",
        ),
    ] {
        let mut bytes = full.clone();
        bytes[144..152].copy_from_slice(&value.to_le_bytes());
        assert_error(&collapse_bytes("bad-attr.data", &bytes), 8, problem);
    }
}

/// The inputs the fuzzer found aborting the process (linux-perf-data sized
/// buffers from unchecked fields: `tests/fixtures/fuzz-found/README.md`):
/// each is now a corrupt recording, exit 8, with one error line.
#[test]
fn inputs_the_fuzzer_found_are_corrupt_not_an_abort() {
    let dir = fixture("fuzz-found");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "data"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 9, "the nine inputs are there");
    for path in names {
        let output = top(&path);
        assert_error(&output, 8, "corrupt perf data");
    }
}

#[test]
fn a_missing_input_file_of_iree_compile_is_refused_before_perf_starts() {
    // A program named iree-compile (true, which never reads its input): the
    // check runs before perf, so perf need not be installed.
    let dir =
        std::env::temp_dir().join(format!("compile-perf-missing-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("iree-compile");
    let _ = std::fs::remove_file(&program);
    std::os::unix::fs::symlink("/bin/true", &program).unwrap();
    let run_dir = dir.join("run");
    let missing = dir.join("no-such-model.mlir");
    let output = compile_perf(&[
        std::ffi::OsStr::new("record"),
        "-o".as_ref(),
        run_dir.as_os_str(),
        "--".as_ref(),
        program.as_os_str(),
        missing.as_os_str(),
        "-o".as_ref(),
        dir.join("out.vmfb").as_os_str(),
    ]);
    assert_error(
        &output,
        28,
        &format!("the input {} does not exist", missing.display()),
    );
    assert!(!run_dir.exists(), "nothing was recorded");
    std::fs::remove_dir_all(&dir).unwrap();
}
