//! The recordings a side of `diff` names: a file, a run directory, or every
//! recording below a directory of runs, in natural order.

use std::path::{Path, PathBuf};

use crate::error::Error;
use perfdata::{RUN_RECORDING, is_perf_directory};

/// Besides `perf.data`, a directory of runs may hold `NAME.perf.data`.
const RECORDING_SUFFIX: &str = ".perf.data";

/// The recordings `path` names: the file itself; a run directory's
/// `perf.data`; or every `perf.data` (and `*.perf.data`) below a directory,
/// in natural order (`run-2` before `run-10`).
pub(super) fn recordings(path: &Path) -> Result<Vec<PathBuf>, Error> {
    let open_error = |source| Error::Open {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(open_error)?;
    // A file, or perf's directory format (`perf record --threads`): one recording.
    if !metadata.is_dir() || is_perf_directory(path) {
        return Ok(vec![path.to_owned()]);
    }
    let own = path.join(RUN_RECORDING);
    if own.is_file() || is_perf_directory(&own) {
        return Ok(vec![own]);
    }
    let mut found = Vec::new();
    collect_recordings(path, &mut found).map_err(open_error)?;
    if found.is_empty() {
        return Err(open_error(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no perf.data in this directory or below it",
        )));
    }
    found.sort_by_cached_key(|path| natural_key(path));
    Ok(found)
}

/// Appends the recordings below `dir`; directories reached through
/// symbolic links are not entered (no loops).
fn collect_recordings(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let named_as_recording = name == RUN_RECORDING || name.ends_with(RECORDING_SUFFIX);
        if entry.file_type()?.is_dir() {
            // perf's directory format (`perf record --threads`) is one recording.
            if named_as_recording && is_perf_directory(&path) {
                found.push(path);
            } else {
                collect_recordings(&path, found)?;
            }
            continue;
        }
        if named_as_recording && path.is_file() {
            found.push(path);
        }
    }
    Ok(())
}

/// A sort key that orders the numbers inside a path by value.
fn natural_key(path: &Path) -> Vec<(String, u64)> {
    let text = path.to_string_lossy();
    let mut key = Vec::new();
    let mut rest = text.as_ref();
    while !rest.is_empty() {
        let digits_at = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (word, tail) = rest.split_at(digits_at);
        let digits_end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, tail) = tail.split_at(digits_end);
        key.push((word.to_owned(), digits.parse().unwrap_or(u64::MAX)));
        rest = tail;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_paths_sort_by_value() {
        let mut paths: Vec<PathBuf> = [
            "r/run-10/perf.data",
            "r/run-2/perf.data",
            "r/run-1/perf.data",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        paths.sort_by_cached_key(|path| natural_key(path));
        assert_eq!(
            paths,
            [
                PathBuf::from("r/run-1/perf.data"),
                PathBuf::from("r/run-2/perf.data"),
                PathBuf::from("r/run-10/perf.data")
            ]
        );
    }
}
