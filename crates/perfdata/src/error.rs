//! The errors of opening and reading a recording, each a kind of input a
//! user can give: not there, empty, not perf's, cut or damaged. The app
//! maps each to its exit code.

use std::path::PathBuf;

/// Why a recording cannot be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input path could not be opened.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The path given.
        path: PathBuf,
        /// Why it cannot be opened.
        source: std::io::Error,
    },
    /// The input is a directory without a recording in it.
    #[error(
        "{dir} is a directory without a perf.data; give a recording or a run directory of compile-perf record{hint}"
    )]
    NoRecordingInDirectory {
        /// The directory given.
        dir: PathBuf,
        /// What else the directory holds that helps, such as runs of `record --repeat`.
        hint: String,
    },
    /// The input has no bytes at all.
    #[error("{input}: the file is empty; perf record writes nothing there when it fails to start")]
    Empty {
        /// The input's name.
        input: String,
    },
    /// The input does not start like any perf.data file.
    #[error("{input}: not a perf.data file ({reason})")]
    NotPerfData {
        /// The input's name.
        input: String,
        /// What is wrong with its start.
        reason: String,
    },
    /// A file-mode perf.data arrived through a pipe, which cannot seek to
    /// the sections at its end.
    #[error(
        "{input}: this is a file-mode perf.data recording, which can only be read from a file: pass its path (a recording made with `perf record -o -` can come through a pipe)"
    )]
    FileModeStream {
        /// The input's name.
        input: String,
    },
    /// A file-mode perf.data whose sections point past its end.
    #[error("{input}: the file is truncated: {reason}")]
    Truncated {
        /// The input's name.
        input: String,
        /// Where the file ends and what is missing.
        reason: String,
    },
    /// A pipe-mode stream that ended before perf finished writing it.
    #[error(
        "{input}: the perf stream was cut short after {bytes} bytes ({reason}); {samples} samples were read before the cut, the rest of the recording is missing"
    )]
    StreamCutShort {
        /// The input's name.
        input: String,
        /// The bytes the stream had.
        bytes: u64,
        /// Where it stopped.
        reason: &'static str,
        /// The samples read before the cut (and used).
        samples: u64,
    },
    /// Records that cannot be decoded.
    #[error("{input}: corrupt perf data: {reason}")]
    Corrupt {
        /// The input's name.
        input: String,
        /// What is damaged, and where.
        reason: String,
    },
}
