//! `history show`: the runs of each key, oldest first, and the trend of each
//! metric over the last N runs: its value, the change against the previous
//! run and against the median of the N before it, and whether `check`
//! would have flagged it. JSON lists the runs under `runs` and the trends
//! under `trends`; the tables show the measures and the categories (the
//! passes when flagged, or all of them with `--all`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::super::Config;
use super::super::format::Format;
use super::judge::points;
use crate::error::Error;
use crate::history::StoredRun;
use crate::history::metric::{
    CATEGORY, JudgedMetric, Point, is_share, rank, shown_delta, shown_value,
};
use crate::output::write_output;
use crate::report::table::{Cell, Colors, Column, Table, write_table};

#[derive(Serialize)]
struct ShowJson<'a> {
    runs: Vec<StoredRunJson<'a>>,
    trends: Vec<TrendJson<'a>>,
}

#[derive(Serialize)]
struct StoredRunJson<'a> {
    identity: &'a str,
    series: &'a str,
    start_time: &'a str,
    added_at: &'a str,
    commit: Option<&'a str>,
    branch: Option<&'a str>,
    machine: Option<&'a str>,
    labels: &'a BTreeMap<String, String>,
    path: Option<&'a str>,
    compiler_version: Option<&'a str>,
    flags: &'a [String],
    metrics: BTreeMap<&'a str, f64>,
}

#[derive(Serialize)]
struct TrendJson<'a> {
    series: &'a str,
    metric: String,
    points: Vec<PointJson<'a>>,
}

#[derive(Serialize)]
struct PointJson<'a> {
    identity: &'a str,
    start_time: &'a str,
    commit: Option<&'a str>,
    #[serde(flatten)]
    judged: JudgedMetric,
}

/// Writes the runs and trends of `runs` (oldest first within a series).
pub(super) fn show(
    config: &Config,
    runs: &[StoredRun],
    last: usize,
    format: Format,
    all: bool,
) -> Result<u8, Error> {
    let points = points(runs, last);
    write_output(&config.output, |out| match format.text() {
        None => {
            serde_json::to_writer_pretty(&mut *out, &show_json(runs, &points))?;
            writeln!(out)
        }
        Some(text) => {
            if runs.is_empty() {
                return writeln!(out, "no runs in the store (for this key)");
            }
            write_table(&table(&points, all), text, Colors::Plain, out)
        }
    })?;
    Ok(0)
}

fn show_json<'a>(
    runs: &'a [StoredRun],
    points: &BTreeMap<&'a str, Vec<Point<'a>>>,
) -> ShowJson<'a> {
    let runs = runs
        .iter()
        .map(|run| StoredRunJson {
            identity: &run.identity,
            series: &run.series,
            start_time: &run.start_time,
            added_at: &run.added_at,
            commit: run.commit.as_deref(),
            branch: run.branch.as_deref(),
            machine: run.machine.as_deref(),
            labels: &run.labels,
            path: run.path.as_deref(),
            compiler_version: run.compiler_version.as_deref(),
            flags: &run.flags,
            metrics: run
                .metrics
                .iter()
                .map(|metric| (metric.name.as_str(), metric.value))
                .collect(),
        })
        .collect();
    let mut trends = Vec::new();
    for (series, points) in points {
        let mut by_metric: BTreeMap<&str, Vec<PointJson<'a>>> = BTreeMap::new();
        for point in points {
            for judged in &point.judged {
                by_metric
                    .entry(judged.metric.as_str())
                    .or_default()
                    .push(PointJson {
                        identity: &point.run.identity,
                        start_time: &point.run.start_time,
                        commit: point.run.commit.as_deref(),
                        judged: judged.clone(),
                    });
            }
        }
        trends.extend(by_metric.into_iter().map(|(metric, points)| TrendJson {
            series,
            metric: metric.to_owned(),
            points,
        }));
    }
    ShowJson { runs, trends }
}

/// Whether a metric's point is a row of the table.
fn in_table(judged: &JudgedMetric, all: bool) -> bool {
    all || judged.flagged
        || !is_share(&judged.metric)
        || (judged.metric.starts_with(CATEGORY) && judged.value >= 1.0)
}

/// A table row's place: its series, its metric's rank, its run's start.
type RowOrder<'a> = (&'a str, (u8, &'a str), &'a str);

fn table(points: &BTreeMap<&str, Vec<Point<'_>>>, all: bool) -> Table {
    let mut rows: Vec<(RowOrder<'_>, Vec<Cell>)> = Vec::new();
    for (series, points) in points {
        for point in points {
            let run = point.run;
            let when = match &run.commit {
                Some(commit) => format!("{} {}", run.start_time, &commit[..commit.len().min(10)]),
                None => run.start_time.clone(),
            };
            for judged in point.judged.iter().filter(|j| in_table(j, all)) {
                let share = is_share(&judged.metric);
                let cells = vec![
                    Cell::from(if series.is_empty() { "-" } else { series }.to_string()),
                    Cell::from(judged.metric.clone()),
                    Cell::from(when.clone()),
                    Cell::from(shown_value(&judged.metric, judged.value)),
                    Cell::from(shown_delta(share, judged.delta_previous)),
                    Cell::from(shown_delta(share, judged.delta_median)),
                    Cell::from(if judged.flagged { "FLAGGED" } else { "" }.to_owned()),
                ];
                rows.push(((series, rank(&judged.metric), &run.start_time), cells));
            }
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let headers = [
        "key",
        "metric",
        "run",
        "value",
        "vs previous",
        "vs median",
        "flagged",
    ];
    Table {
        columns: headers
            .iter()
            .enumerate()
            .map(|(at, header)| match at {
                3..=5 => Column::right(header),
                _ => Column::left(header),
            })
            .collect(),
        rows: rows.into_iter().map(|(_, cells)| cells).collect(),
    }
}
