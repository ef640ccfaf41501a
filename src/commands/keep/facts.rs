//! A run directory read into what the history store keeps ([`StoredRun`]):
//! wall, CPU, peak RSS, page faults and the other processes' load;
//! artifact bytes by kind; category and pass shares with their sample
//! counts (the recording read once, categories by self
//! samples, passes by inclusive samples, as `report` counts them); the
//! compiler's version, the flags, the host; the run's `report.json`; and its
//! identity, the SHA-256 of its `perf.data`. `record --history` hands over
//! the `run.json`, recording and `report.json` it has in memory
//! ([`RunInputs`]) instead of having them read again.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::super::{load_recording, own_recording};
use crate::artifact::outputs;
use crate::attribute::runs::{RunRows, run_rows};
use crate::attribute::{Attribution, Classes, Grouping};
use crate::error::{Error, HistoryError};
use crate::history::metric::{BYTES, CATEGORY, CPU, OTHER_CORES, PAGE_FAULTS, PASS, RSS, WALL};
use crate::history::{Metric, StoredRun};
use crate::profile::{Profile, SampleFilter};
use crate::run_dir::{RunDir, RunJson, series_at};
use category_rules::RuleTable;
use perfdata::{Input, RUN_RECORDING};

/// What `add` and `check` say about a run besides its facts.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tags {
    pub series: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub machine: Option<String>,
    pub labels: BTreeMap<String, String>,
}

/// The run directories `dir` stands for: itself, or each run of a
/// `record --repeat` set.
pub(crate) fn run_dirs(dir: &Path) -> Vec<PathBuf> {
    match series_at(dir) {
        Some(series) => series.runs.iter().map(|name| dir.join(name)).collect(),
        None => vec![dir.to_owned()],
    }
}

/// A run directory as the store reads it: its `run.json`, its recording
/// read as `report` reads it, and its `report.json`. `history add` reads
/// them from the directory ([`read_run`]); `record --history` hands over
/// what it has just written and read.
pub(crate) struct RunInputs<'a> {
    pub dir: &'a Path,
    /// The directory as opened before the recording was read.
    pub run_dir: &'a RunDir,
    pub run: &'a RunJson,
    /// The recording, read with the default event and no allocations;
    /// `None` to read it here (`record --alloc` read the allocations).
    pub profile: Option<&'a Profile>,
    /// The run's `report.json`, as written.
    pub report: Option<String>,
}

/// Reads the run in `dir` into a [`StoredRun`] tagged with `tags`.
pub(crate) fn read_run(dir: &Path, tags: &Tags, rules: &RuleTable) -> Result<StoredRun, Error> {
    let run_dir = RunDir::open(dir);
    let Some(run) = &run_dir.run else {
        return Err(refused(
            dir,
            "no run.json of one recorded run (a run directory of `compile-perf record`)",
        ));
    };
    let inputs = RunInputs {
        dir,
        run_dir: &run_dir,
        run,
        profile: None,
        report: std::fs::read_to_string(dir.join("report.json")).ok(),
    };
    stored_run(inputs, tags, rules)
}

/// The run of `inputs` as the store keeps it, tagged with `tags`; a failed
/// compile is refused.
pub(crate) fn stored_run(
    inputs: RunInputs<'_>,
    tags: &Tags,
    rules: &RuleTable,
) -> Result<StoredRun, Error> {
    let RunInputs { dir, run, .. } = inputs;
    if run.exit.is_some_and(|exit| exit.code != Some(0)) {
        return Err(refused(
            dir,
            "the compile failed: its facts say nothing of its speed",
        ));
    }
    let recording = dir.join(RUN_RECORDING);
    let identity = sha256_of(&recording)
        .map_err(|e| refused(dir, &format!("cannot read {}: {e}", recording.display())))?;
    let read;
    let profile = match inputs.profile {
        Some(profile) => profile,
        None => {
            read = load_recording(
                &Input::Path(recording.clone()),
                &own_recording(false, false),
                inputs.run_dir,
                &SampleFilter::default(),
            )?;
            &read
        }
    };
    let classes = Classes::new(profile, rules);
    let filter = SampleFilter::default();
    let rows = |grouping| {
        run_rows(
            recording.clone(),
            profile,
            &classes,
            grouping,
            Attribution::default(),
            &filter,
            None,
        )
    };
    let categories = rows(Grouping::Category);
    let passes = rows(Grouping::Pass);
    let mut metrics = measures(run, &categories);
    metrics.extend(shares(CATEGORY, &categories, |row| row.self_samples));
    metrics.extend(shares(PASS, &passes, |row| row.inclusive_samples));
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    Ok(StoredRun {
        identity,
        series: tags.series.clone(),
        start_time: run.start_time.clone(),
        added_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        commit: tags.commit.clone(),
        branch: tags.branch.clone(),
        machine: tags.machine.clone().or_else(|| run.host.hostname.clone()),
        labels: tags.labels.clone(),
        path: Some(absolute.display().to_string()),
        compiler_version: run.compiler_version(),
        flags: run.command.clone(),
        host: serde_json::to_string(&run.host).unwrap_or_default(),
        report: inputs.report,
        metrics,
    })
}

/// The store's refusal of the run in `dir`, and why.
fn refused(dir: &Path, reason: &str) -> Error {
    HistoryError::Run {
        dir: dir.to_owned(),
        reason: reason.to_owned(),
    }
    .into()
}

/// Wall, CPU, RSS, page faults, the other processes' load and the
/// outputs' bytes, those known.
fn measures(run: &RunJson, categories: &RunRows) -> Vec<Metric> {
    let measure = |name: &str, value: f64| Metric {
        name: name.to_owned(),
        value,
        samples: None,
        total: None,
    };
    let mut metrics = Vec::new();
    if let Some(wall) = run.command_wall_seconds.or(run.wall_seconds) {
        metrics.push(measure(WALL, wall));
    }
    if let Some(cpu) = categories.seconds(categories.samples) {
        metrics.push(measure(CPU, cpu));
    }
    if let Some(rss) = run.peak_rss_bytes {
        metrics.push(measure(RSS, rss as f64));
    }
    if let Some(faults) = run.page_faults {
        metrics.push(measure(PAGE_FAULTS, faults as f64));
    }
    if let Some(cores) = run.other_cores_busy {
        metrics.push(measure(OTHER_CORES, cores));
    }
    let outputs: Vec<_> = outputs(&run.artifacts).collect();
    if !outputs.is_empty() {
        let total: u64 = outputs.iter().map(|artifact| artifact.bytes).sum();
        metrics.push(measure(BYTES, total as f64));
        let mut by_kind: BTreeMap<&str, u64> = BTreeMap::new();
        for kind in outputs.iter().flat_map(|artifact| artifact.by_kind()) {
            *by_kind.entry(kind.kind.name()).or_default() += kind.bytes;
        }
        for (kind, bytes) in by_kind {
            metrics.push(measure(&format!("{BYTES}:{kind}"), bytes as f64));
        }
    }
    metrics
}

/// Each row's share of the run's samples, with its count.
fn shares(
    prefix: &str,
    rows: &RunRows,
    count: impl Fn(&crate::attribute::runs::RowCounts) -> u64,
) -> Vec<Metric> {
    let total = rows.samples;
    let mut metrics: Vec<Metric> = rows
        .rows
        .iter()
        .filter(|(_, row)| count(row) > 0)
        .map(|(key, row)| Metric {
            name: format!("{prefix}{key}"),
            value: crate::attribute::percent(count(row), total),
            samples: Some(count(row) as i64),
            total: Some(total as i64),
        })
        .collect();
    metrics.sort_by(|a, b| a.name.cmp(&b.name));
    metrics
}

/// The SHA-256 of a file (or of every file of perf's `--threads`
/// directory, in name order), lower-case hex.
fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut files = vec![path.to_owned()];
    if path.is_dir() {
        files = std::fs::read_dir(path)?
            .map(|entry| entry.map(|entry| entry.path()))
            .collect::<std::io::Result<_>>()?;
        files.sort();
    }
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 20];
    for file in files {
        let mut file = std::fs::File::open(file)?;
        loop {
            let read = file.read(&mut buffer)?;
            if read == 0 {
                break;
            }
            hasher.update(&buffer[..read]);
        }
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}
