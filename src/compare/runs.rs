//! The runs of one side of a comparison: which recordings a path names (a
//! perf.data, a run directory, or a directory of several runs), and each
//! recording reduced to `report`'s rows under keys that mean the same in
//! every run (a category id, a demangled symbol, a binary's name, a
//! thread or process by name rather than pid).

use std::path::{Path, PathBuf};

use hashbrown::HashMap;

use crate::attribute::{Classes, RowKey, SampleFilter};
use crate::error::Error;
use crate::profile::Profile;
use crate::report::breakdown::{ReportOptions, breakdown};
use crate::report::collapse::{fold, line};

/// The file name `record` gives a recording.
const RECORDING_NAME: &str = "perf.data";
/// Also taken, in a directory of runs: `NAME.perf.data`.
const RECORDING_SUFFIX: &str = ".perf.data";

/// The recordings `path` names: the file itself; a run directory's
/// `perf.data`; or every `perf.data` (and `*.perf.data`) below a directory,
/// in natural order (`run-2` before `run-10`).
pub fn recordings(path: &Path) -> Result<Vec<PathBuf>, Error> {
    let open_error = |source| Error::Open {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(open_error)?;
    if !metadata.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let own = path.join(RECORDING_NAME);
    if own.is_file() {
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
        if entry.file_type()?.is_dir() {
            collect_recordings(&path, found)?;
            continue;
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if (name == RECORDING_NAME || name.ends_with(RECORDING_SUFFIX)) && path.is_file() {
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

/// One row of one run: its samples, and how to show it.
#[derive(Clone, Debug)]
pub struct RowCounts {
    pub name: String,
    /// The category's colour (`#rrggbb`), for categories and symbols.
    pub color: Option<String>,
    pub self_samples: u64,
    pub inclusive_samples: u64,
}

/// One recording, reduced to rows.
#[derive(Clone, Debug)]
pub struct RunRows {
    pub input: PathBuf,
    /// The samples the rows cover (after the process filters).
    pub samples: u64,
    /// CPU seconds one sample stands for; `None` when the recording cannot
    /// say (a fixed period of an event that is not a clock).
    pub seconds_per_sample: Option<f64>,
    pub rows: HashMap<String, RowCounts>,
    /// The folded stacks (`thread;root;…;leaf` → samples), when asked for.
    pub folded: Option<HashMap<String, u64>>,
}

impl RunRows {
    /// CPU seconds of `samples` samples of this run.
    pub fn seconds(&self, samples: u64) -> Option<f64> {
        self.seconds_per_sample
            .map(|per_sample| per_sample * samples as f64)
    }
}

/// Reduces a loaded recording to `report`'s rows, keyed across runs.
pub fn run_rows(
    input: PathBuf,
    profile: &Profile,
    classes: &Classes<'_>,
    options: &ReportOptions,
    with_folded: bool,
) -> RunRows {
    let report = breakdown(profile, classes, options.clone());
    let mut rows: HashMap<String, RowCounts> = HashMap::new();
    for (key, totals) in report.rows() {
        let (key, name, color) = row_identity(profile, classes, key);
        // Rows that share a key across pids (two threads of one name) add up.
        let row = rows.entry(key).or_insert(RowCounts {
            name,
            color,
            self_samples: 0,
            inclusive_samples: 0,
        });
        row.self_samples += totals.self_samples;
        row.inclusive_samples += totals.inclusive_samples;
    }
    RunRows {
        input,
        samples: report.samples(),
        seconds_per_sample: seconds_per_sample(profile),
        rows,
        folded: with_folded.then(|| folded_stacks(profile, &options.filter)),
    }
}

/// The folded lines of the samples `filter` keeps, merged by text.
fn folded_stacks(profile: &Profile, filter: &SampleFilter) -> HashMap<String, u64> {
    let mut lines: HashMap<String, u64> = HashMap::new();
    for (stack, count) in fold(profile, filter) {
        *lines.entry(line(profile, &stack)).or_insert(0) += count;
    }
    lines
}

/// A row's key across runs, the name to show, and its colour.
fn row_identity(
    profile: &Profile,
    classes: &Classes<'_>,
    key: RowKey,
) -> (String, String, Option<String>) {
    match key {
        RowKey::Category(id) => {
            let category = classes.table.category(id);
            (
                category.id.clone(),
                category.name.clone(),
                Some(category.color.clone()),
            )
        }
        RowKey::Symbol(id) => {
            let name = profile.symbols.get(id).name.clone();
            let color = classes
                .table
                .category(classes.category_of(id))
                .color
                .clone();
            (name.clone(), name, Some(color))
        }
        RowKey::Dso(id) => {
            let name = profile.store.get(id).name.clone();
            (name.clone(), name, None)
        }
        RowKey::Thread(id) => {
            let thread = profile.processes.thread(id);
            let name = format!("{}: {}", process_name(profile, thread.process), thread.name);
            (name.clone(), name, None)
        }
        RowKey::Process(id) => {
            let name = process_name(profile, id);
            (name.clone(), name, None)
        }
        RowKey::Pass(id) => {
            let name = classes.passes.name(id).to_owned();
            (name.clone(), name, None)
        }
        RowKey::Bucket(bucket) => (bucket.name().to_owned(), bucket.name().to_owned(), None),
    }
}

/// A process by its name, and its executable's file name where that
/// differs (the Python launcher and the native compiler are both named
/// `iree-compile`): the same in every run, unlike its pid.
fn process_name(profile: &Profile, id: crate::process::ProcessId) -> String {
    let image = profile.processes.image(id);
    let executable = image
        .executable
        .as_deref()
        .and_then(|path| path.rsplit('/').next());
    match executable {
        Some(file) if file != image.name => format!("{} ({file})", image.name),
        _ => image.name.clone(),
    }
}

/// CPU seconds per sample: the mean period for the clock events (which
/// count nanoseconds), else one over the sampling frequency.
fn seconds_per_sample(profile: &Profile) -> Option<f64> {
    let event = profile
        .info
        .events
        .iter()
        .find(|event| event.name == profile.event)?;
    let counts_nanoseconds = matches!(event.base_name(), "cpu-clock" | "task-clock");
    if counts_nanoseconds && profile.counts.period_total > 0 && profile.counts.samples > 0 {
        return Some(profile.counts.period_total as f64 / profile.counts.samples as f64 / 1e9);
    }
    event.frequency.map(|hz| 1.0 / hz as f64)
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
