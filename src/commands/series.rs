//! What `record --repeat` and `report` share about a set of runs: each run
//! of the set read into its rows and its facts, then added up.

use std::path::Path;

use super::{Config, finish, load_recording, rss_join};
use crate::attribute::runs::run_rows;
use crate::attribute::series::{Aggregate, SeriesRun, aggregate};
use crate::attribute::{Attribution, Classes, Grouping};
use crate::error::Error;
use crate::profile::{ReadOptions, SampleFilter};
use crate::run_dir::{RunDir, SeriesJson};
use category_rules::RuleTable;
use perfdata::{Input, RUN_RECORDING};

/// How the runs of a set are read and grouped.
pub(crate) struct SeriesReading<'a> {
    /// How every run is read.
    pub read: &'a ReadOptions,
    pub filter: &'a SampleFilter,
    pub grouping: Grouping,
    pub attribution: Attribution,
    pub rules: &'a RuleTable,
}

/// Reads every run of `series` (in `dir`) and adds them up. With
/// `summaries`, each run's closing summary goes to stderr and the exit code
/// is the worst of them; without, it is 0.
pub(crate) fn read_series(
    config: &Config,
    dir: &Path,
    series: &SeriesJson,
    reading: &SeriesReading<'_>,
    summaries: bool,
) -> Result<(Aggregate, u8), Error> {
    let mut runs = Vec::new();
    let mut code = 0;
    for name in &series.runs {
        let run_path = dir.join(name);
        let recording = run_path.join(RUN_RECORDING);
        let run_dir = RunDir::open(&run_path);
        let profile = load_recording(&Input::Path(recording.clone()), reading.read, &run_dir)?;
        let classes = Classes::new(&profile, reading.rules);
        let rows = run_rows(
            recording,
            &profile,
            &classes,
            reading.grouping,
            reading.attribution,
            reading.filter,
        );
        let (rss, _) = rss_join(&run_dir, &profile, &classes, reading.filter);
        let run = run_dir.run.as_ref();
        runs.push(SeriesRun {
            rows,
            wall_seconds: run.and_then(|run| run.wall_seconds),
            peak_rss_bytes: run.and_then(|run| run.peak_rss_bytes),
            anon_peak: rss
                .and_then(|rss| rss.anon_peak)
                .map(|peak| (peak.anon_bytes, peak.place_name)),
        });
        if summaries {
            code = code.max(finish(config, &profile, run)?);
        }
    }
    Ok((aggregate(series.command.join(" "), &runs), code))
}
