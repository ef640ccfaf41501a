//! What `record --repeat`, `report`, `flamegraph` and `timeline` share
//! about a series of runs: each run of the series read into its rows and its
//! facts, then added up; the run directories; the line that says what the
//! set is; the run of median wall time.

use std::path::{Path, PathBuf};

use super::{Config, actions_for, finish, load_recording, rss_join};
use crate::attribute::run_diff::Spread;
use crate::attribute::runs::run_rows;
use crate::attribute::series::{SeriesRun, SeriesTotals, add_up};
use crate::attribute::{Attribution, Classes, Grouping};
use crate::error::Error;
use crate::profile::{ReadOptions, SampleFilter};
use crate::run_dir::{RunDir, SeriesJson};
use category_rules::RuleTable;
use perfdata::{Input, RUN_RECORDING};

/// How the runs of a series are read and grouped.
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
) -> Result<(SeriesTotals, u8), Error> {
    let mut runs = Vec::new();
    let mut code = 0;
    for SeriesRunDir {
        dir: run_dir,
        recording,
        ..
    } in series_run_dirs(dir, series)
    {
        let profile = load_recording(
            &Input::Path(recording.clone()),
            reading.read,
            &run_dir,
            reading.filter,
        )?;
        let mut classes = Classes::new(&profile, reading.rules);
        let actions = actions_for(reading.grouping, &run_dir, &profile, &mut classes, "report")?;
        let rows = run_rows(
            recording,
            &profile,
            &classes,
            reading.grouping,
            reading.attribution,
            reading.filter,
            actions.as_ref(),
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
    Ok((add_up(series.command.join(" "), &runs), code))
}

/// One run of a series: its directory, opened, and its recording.
pub(crate) struct SeriesRunDir {
    pub name: String,
    pub dir: RunDir,
    pub recording: PathBuf,
}

/// The runs of `series` (in `dir`), in order.
pub(crate) fn series_run_dirs(dir: &Path, series: &SeriesJson) -> Vec<SeriesRunDir> {
    series
        .runs
        .iter()
        .map(|name| {
            let path: PathBuf = dir.join(name);
            SeriesRunDir {
                name: name.clone(),
                dir: RunDir::open(&path),
                recording: path.join(RUN_RECORDING),
            }
        })
        .collect()
}

/// What a picture of the series says under its title: how many runs, and
/// their wall times.
pub(crate) fn series_line(runs: &[SeriesRunDir]) -> String {
    let walls = Spread::of(runs.iter().filter_map(wall_seconds).collect());
    match walls {
        Some(walls) if walls.runs.len() == runs.len() => format!(
            "{} runs: {:.1}–{:.1} s wall, median {:.1} s",
            runs.len(),
            walls.min(),
            walls.max(),
            walls.median
        ),
        _ => format!("{} runs", runs.len()),
    }
}

/// The run of median wall time (the faster of the two middle ones for an
/// even count); the first run when wall times are not known.
pub(crate) fn median_run(runs: &[SeriesRunDir]) -> Option<&SeriesRunDir> {
    let mut timed: Vec<(&SeriesRunDir, f64)> = runs
        .iter()
        .filter_map(|run| Some((run, wall_seconds(run)?)))
        .collect();
    if timed.len() < runs.len() {
        return runs.first();
    }
    timed.sort_by(|a, b| a.1.total_cmp(&b.1));
    timed
        .get(timed.len().saturating_sub(1) / 2)
        .map(|(run, _)| *run)
}

fn wall_seconds(run: &SeriesRunDir) -> Option<f64> {
    run.dir.run.as_ref()?.wall_seconds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_dir::RunJson;

    fn runs(walls: &[Option<f64>]) -> Vec<SeriesRunDir> {
        walls
            .iter()
            .enumerate()
            .map(|(at, wall)| SeriesRunDir {
                name: format!("run-{}", at + 1),
                dir: RunDir {
                    run: Some(RunJson {
                        wall_seconds: *wall,
                        ..RunJson::default()
                    }),
                    ..RunDir::default()
                },
                recording: PathBuf::from(format!("run-{}/perf.data", at + 1)),
            })
            .collect()
    }

    #[test]
    fn the_median_run_is_the_middle_one_by_wall_time() {
        let odd = runs(&[Some(9.0), Some(7.0), Some(8.0)]);
        assert_eq!(median_run(&odd).unwrap().name, "run-3");
        assert_eq!(series_line(&odd), "3 runs: 7.0–9.0 s wall, median 8.0 s");
        let even = runs(&[Some(9.0), Some(7.0), Some(8.0), Some(10.0)]);
        assert_eq!(median_run(&even).unwrap().name, "run-3");
        let untimed = runs(&[Some(9.0), None]);
        assert_eq!(median_run(&untimed).unwrap().name, "run-1");
        assert_eq!(series_line(&untimed), "2 runs");
        assert!(median_run(&[]).is_none());
    }
}
