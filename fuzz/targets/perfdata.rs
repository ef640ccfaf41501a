//! Fuzz target: the perf.data reader on arbitrary bytes.
//!
//! The bytes become a file (an in-memory memfd, opened by its
//! `/proc/self/fd` path, as a user's path would be), which goes through the
//! public reader: `Recording::open` (file or pipe mode, detected from the
//! header; a truncated file again with salvage), then every record of `for_each_record`, each field touched. Any
//! `Err` is a correct answer to bad input; a panic that escapes, an abort or a
//! hang is a bug.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::PathBuf;

use perfdata::{Error, Input, Record, Recording};

fn main() {
    let mut memfd = anonymous_file();
    let input = Input::Path(PathBuf::from(format!(
        "/proc/self/fd/{}",
        memfd.as_raw_fd()
    )));
    afl::fuzz_nohook!(|bytes: &[u8]| {
        memfd.set_len(0).expect("a memfd can be emptied");
        std::os::unix::fs::FileExt::write_all_at(&memfd, bytes, 0)
            .expect("a memfd takes the bytes");
        memfd.flush().expect("a memfd flushes");
        read_everything(&input);
    });
}

/// Opens and streams the recording, folding every field it yields into a
/// checksum so that nothing is skipped as unused.
fn read_everything(input: &Input) -> u64 {
    // A file perf did not finish is refused, then read again with
    // `--salvage`, so the salvage path is fuzzed too.
    let opened = match Recording::open(input, false) {
        Err(Error::Truncated { .. }) => Recording::open(input, true),
        other => other,
    };
    let Ok(mut recording) = opened else {
        return 0;
    };
    let mut checksum = recording.info.events.len() as u64;
    let _ = recording.for_each_record(|record| {
        checksum = checksum.wrapping_add(match record {
            Record::Sample(sample) => {
                let chain: u64 = sample
                    .callchain
                    .iter()
                    .flat_map(|chain| (0..chain.len()).filter_map(|index| chain.get(index)))
                    .fold(0, u64::wrapping_add);
                sample.ip ^ sample.time ^ chain ^ sample.user_stack.len() as u64
            }
            Record::Comm { name, .. } => name.len() as u64,
            Record::Fork { pid, tid, .. } => (pid ^ tid) as u64,
            Record::Mmap(mapping) => mapping.start ^ mapping.len ^ mapping.path.len() as u64,
            Record::Lost { count, time, cpu } | Record::LostSamples { count, time, cpu } => {
                count ^ time.unwrap_or(0) ^ u64::from(cpu.unwrap_or(0))
            }
        });
    });
    checksum
}

/// A file that lives in memory only and disappears with the process.
fn anonymous_file() -> File {
    // SAFETY: memfd_create takes a NUL-terminated name and flags, and returns
    // a new file descriptor that nothing else owns, or -1.
    let fd = unsafe { libc::memfd_create(c"compile-perf-fuzz".as_ptr(), 0) };
    assert!(fd >= 0, "memfd_create: {}", std::io::Error::last_os_error());
    // SAFETY: `fd` is open and owned by nothing else.
    unsafe { File::from_raw_fd(fd) }
}
