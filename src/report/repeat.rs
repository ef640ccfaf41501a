//! The report of a series of runs of one compile (`record --repeat`, and
//! `report` of its directory): the runs' facts (wall and CPU time, peak RSS,
//! the peak of anonymous memory and where it fell) run by run with their
//! medians and ranges, then each row's share of all the runs' samples
//! together with the lowest and highest share of a single run; as a table
//! and as JSON.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::breakdown::mebibytes;
use super::table::{Cell, Colors, Column, Table, TextFormat, write_table};
use crate::attribute::run_diff::Spread;
use crate::attribute::series::SeriesTotals;

/// `lowest–highest` of per-run shares.
fn spread(shares: &[f64]) -> String {
    let lowest = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{lowest:.1}–{highest:.1}%")
}

/// `median (min–max)` of a fact, shown by `show`.
fn median_and_range(spread: &Spread, show: impl Fn(f64) -> String) -> String {
    format!(
        "{} ({}–{})",
        show(spread.median),
        show(spread.min()),
        show(spread.max())
    )
}

/// The lines that say what the runs were and how much they agree.
fn header_lines(report: &SeriesTotals) -> Vec<String> {
    let runs = report.runs.len();
    let seconds = |value: f64| format!("{value:.2} s");
    let bytes = |value: f64| mebibytes(value);
    let mut lines = vec![
        format!("command: {}", report.command),
        format!(
            "{runs} runs, {} samples{}; shares are of all the runs' samples together, \
             with the lowest and highest share of a single run",
            report.samples,
            report.cpu_seconds.map_or(String::new(), |seconds| format!(
                ", {seconds:.2} CPU s per run (median)"
            ))
        ),
    ];
    let facts = [
        (
            "wall time",
            report
                .wall_seconds
                .as_ref()
                .map(|s| median_and_range(s, seconds)),
        ),
        (
            "peak RSS",
            report
                .peak_rss_bytes
                .as_ref()
                .map(|s| median_and_range(s, bytes)),
        ),
        (
            "peak anonymous memory",
            report
                .anon_peak_bytes
                .as_ref()
                .map(|s| median_and_range(s, bytes)),
        ),
    ];
    for (what, shown) in facts {
        if let Some(shown) = shown {
            lines.push(format!("{what}: {shown}, median (range) of the runs"));
        }
    }
    if let Some((place, count)) = &report.anon_peak_place {
        let measured = report
            .runs
            .iter()
            .filter(|run| run.anon_peak_place.is_some())
            .count();
        lines.push(if *count == measured {
            format!("anonymous memory peaked in {place} in every run")
        } else {
            format!(
                "anonymous memory peaked in {place} in {count} of {measured} runs: the place \
                 of the peak is not stable from run to run"
            )
        });
    }
    lines
}

/// The runs' facts, one row a run.
fn runs_table(report: &SeriesTotals) -> Table {
    let optional = |value: Option<String>| value.unwrap_or_default().into();
    Table {
        columns: vec![
            Column::left("run"),
            Column::right("samples"),
            Column::right("CPU s"),
            Column::right("wall s"),
            Column::right("peak RSS"),
            Column::right("peak anon"),
            Column::left("anon peak in"),
        ],
        rows: report
            .runs
            .iter()
            .map(|run| {
                vec![
                    run.input.display().to_string().into(),
                    run.samples.to_string().into(),
                    optional(run.cpu_seconds.map(|seconds| format!("{seconds:.2}"))),
                    optional(run.wall_seconds.map(|seconds| format!("{seconds:.2}"))),
                    optional(run.peak_rss_bytes.map(|bytes| mebibytes(bytes as f64))),
                    optional(run.anon_peak_bytes.map(|bytes| mebibytes(bytes as f64))),
                    optional(run.anon_peak_place.clone()),
                ]
            })
            .collect(),
    }
}

/// Writes the report of several runs as text, Markdown or CSV; `by` names
/// the rows (`category`, `pass`, …).
pub(crate) fn write_text(
    report: &SeriesTotals,
    by: &'static str,
    format: TextFormat,
    colors: Colors,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let table = Table {
        columns: vec![
            Column::left(by),
            Column::right("self"),
            Column::right("self%"),
            Column::right("runs self%"),
            Column::right("incl%"),
            Column::right("runs incl%"),
        ],
        rows: report
            .rows
            .iter()
            .filter(|row| row.self_samples > 0 || row.inclusive_percent >= 0.05)
            .map(|row| {
                vec![
                    Cell {
                        text: row.name.clone(),
                        color: row.color.clone(),
                        ink: None,
                    },
                    row.self_samples.to_string().into(),
                    format!("{:.1}%", row.self_percent).into(),
                    spread(&row.self_percent_runs).into(),
                    format!("{:.1}%", row.inclusive_percent).into(),
                    spread(&row.inclusive_percent_runs).into(),
                ]
            })
            .collect(),
    };
    if format == TextFormat::Csv {
        return write_table(&table, format, Colors::Plain, out);
    }
    for line in header_lines(report) {
        if format == TextFormat::Markdown {
            writeln!(out, "- {line}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out)?;
    write_table(&runs_table(report), format, Colors::Plain, out)?;
    writeln!(out)?;
    write_table(&table, format, colors, out)
}

/// The report of a series of runs as JSON (`record --repeat`'s `report.json`).
#[derive(Debug, Serialize)]
pub(crate) struct SeriesTotalsJson<'a> {
    command: &'a str,
    /// How many runs.
    runs: usize,
    /// Each run's facts.
    run_facts: Vec<SeriesRunFactsJson<'a>>,
    /// Samples of all the runs together.
    samples: u64,
    /// Samples the kernel lost, of all the runs together.
    lost_samples: u64,
    /// CPU seconds per run: the median of the runs.
    cpu_seconds: Option<f64>,
    wall_seconds: Option<SpreadJson>,
    peak_rss_bytes: Option<SpreadJson>,
    anon_peak_bytes: Option<SpreadJson>,
    /// Where most runs' anonymous peak fell, and in how many.
    anon_peak_place: Option<PlaceJson<'a>>,
    by: &'static str,
    rows: Vec<SeriesRowJson<'a>>,
}

#[derive(Debug, Serialize)]
struct SpreadJson {
    median: f64,
    min: f64,
    max: f64,
}

impl From<&Spread> for SpreadJson {
    fn from(spread: &Spread) -> SpreadJson {
        let round = |value: f64| (value * 1000.0).round() / 1000.0;
        SpreadJson {
            median: round(spread.median),
            min: round(spread.min()),
            max: round(spread.max()),
        }
    }
}

#[derive(Debug, Serialize)]
struct PlaceJson<'a> {
    pass: &'a str,
    runs: usize,
}

#[derive(Debug, Serialize)]
struct SeriesRunFactsJson<'a> {
    input: &'a Path,
    samples: u64,
    lost_samples: u64,
    cpu_seconds: Option<f64>,
    wall_seconds: Option<f64>,
    peak_rss_bytes: Option<u64>,
    anon_peak_bytes: Option<u64>,
    anon_peak_pass: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct SeriesRowJson<'a> {
    id: &'a str,
    name: &'a str,
    self_samples: u64,
    self_percent: f64,
    self_percent_runs: &'a [f64],
    inclusive_samples: u64,
    inclusive_percent: f64,
    inclusive_percent_runs: &'a [f64],
}

/// The JSON document of several runs; `by` names the rows.
pub(crate) fn to_json<'a>(report: &'a SeriesTotals, by: &'static str) -> SeriesTotalsJson<'a> {
    SeriesTotalsJson {
        command: &report.command,
        runs: report.runs.len(),
        run_facts: report
            .runs
            .iter()
            .map(|run| SeriesRunFactsJson {
                input: &run.input,
                samples: run.samples,
                lost_samples: run.lost_samples,
                cpu_seconds: run.cpu_seconds,
                wall_seconds: run
                    .wall_seconds
                    .map(|seconds| (seconds * 1000.0).round() / 1000.0),
                peak_rss_bytes: run.peak_rss_bytes,
                anon_peak_bytes: run.anon_peak_bytes,
                anon_peak_pass: run.anon_peak_place.as_deref(),
            })
            .collect(),
        samples: report.samples,
        lost_samples: report.lost_samples,
        cpu_seconds: report.cpu_seconds,
        wall_seconds: report.wall_seconds.as_ref().map(Into::into),
        peak_rss_bytes: report.peak_rss_bytes.as_ref().map(Into::into),
        anon_peak_bytes: report.anon_peak_bytes.as_ref().map(Into::into),
        anon_peak_place: report
            .anon_peak_place
            .as_ref()
            .map(|(pass, runs)| PlaceJson { pass, runs: *runs }),
        by,
        rows: report
            .rows
            .iter()
            .map(|row| SeriesRowJson {
                id: &row.id,
                name: &row.name,
                self_samples: row.self_samples,
                self_percent: row.self_percent,
                self_percent_runs: &row.self_percent_runs,
                inclusive_samples: row.inclusive_samples,
                inclusive_percent: row.inclusive_percent,
                inclusive_percent_runs: &row.inclusive_percent_runs,
            })
            .collect(),
    }
}
