//! The report of several runs of one compile (`record --repeat`): each
//! category's share of all the runs' samples together, with the lowest and
//! highest share of a single run, as a table and as JSON.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::table::{Cell, Column, Table, TextFormat, write_table};
use crate::attribute::runs::Aggregate;

/// `lowest–highest` of per-run shares.
fn spread(shares: &[f64]) -> String {
    let lowest = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{lowest:.1}–{highest:.1}%")
}

/// Writes the report of several runs as text, Markdown or CSV.
pub(crate) fn write_text(
    report: &Aggregate,
    format: TextFormat,
    colors: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let table = Table {
        columns: vec![
            Column::left("category"),
            Column::right("self"),
            Column::right("self%"),
            Column::right("runs self%"),
            Column::right("incl%"),
            Column::right("runs incl%"),
        ],
        rows: report
            .categories
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
        return write_table(&table, format, false, out);
    }
    let runs = report.runs.len();
    let lines = [
        format!("command: {}", report.command),
        format!(
            "{runs} runs, {} samples{}; shares are of all the runs' samples together, \
                 with the lowest and highest share of a single run",
            report.samples,
            report.cpu_seconds.map_or(String::new(), |seconds| format!(
                ", {seconds:.2} CPU s per run ({})",
                report
                    .runs
                    .iter()
                    .map(|run| run
                        .cpu_seconds
                        .map_or("?".to_owned(), |seconds| format!("{seconds:.2}")))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        ),
    ];
    for line in lines {
        if format == TextFormat::Markdown {
            writeln!(out, "- {line}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out)?;
    write_table(&table, format, colors, out)
}

/// `record --repeat`'s `report.json`.
#[derive(Debug, Serialize)]
pub(crate) struct AggregateJson<'a> {
    command: &'a str,
    runs: Vec<RunJson<'a>>,
    /// Samples of all the runs together.
    samples: u64,
    /// Samples the kernel lost, of all the runs together.
    lost_samples: u64,
    /// CPU seconds per run, on average.
    cpu_seconds: Option<f64>,
    by: &'static str,
    categories: Vec<CategoryJson<'a>>,
}

#[derive(Debug, Serialize)]
struct RunJson<'a> {
    input: &'a Path,
    samples: u64,
    lost_samples: u64,
    cpu_seconds: Option<f64>,
}

#[derive(Debug, Serialize)]
struct CategoryJson<'a> {
    id: &'a str,
    name: &'a str,
    self_samples: u64,
    self_percent: f64,
    self_percent_runs: &'a [f64],
    inclusive_samples: u64,
    inclusive_percent: f64,
    inclusive_percent_runs: &'a [f64],
}

/// The JSON document of several runs.
pub(crate) fn to_json(report: &Aggregate) -> AggregateJson<'_> {
    AggregateJson {
        command: &report.command,
        runs: report
            .runs
            .iter()
            .map(|run| RunJson {
                input: &run.input,
                samples: run.samples,
                lost_samples: run.lost_samples,
                cpu_seconds: run.cpu_seconds,
            })
            .collect(),
        samples: report.samples,
        lost_samples: report.lost_samples,
        cpu_seconds: report.cpu_seconds,
        by: "category",
        categories: report
            .categories
            .iter()
            .map(|row| CategoryJson {
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
