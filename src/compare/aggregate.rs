//! The report of several runs of one compile (`record --repeat`): each
//! category's share of all the runs' samples together, and how far the runs
//! spread around it.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::runs::RunRows;
use crate::attribute::percent;
use crate::report::round2;
use crate::report::table::{Cell, Column, Table, TextFormat, write_table};

/// One row of the aggregate.
#[derive(Clone, Debug, Serialize)]
pub struct AggregateRow {
    pub id: String,
    pub name: String,
    #[serde(skip)]
    pub color: Option<String>,
    pub self_samples: u64,
    /// Of all the runs' samples together.
    pub self_percent: f64,
    /// Run by run.
    pub self_percent_runs: Vec<f64>,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    pub inclusive_percent_runs: Vec<f64>,
}

/// One run in the aggregate.
#[derive(Clone, Debug, Serialize)]
pub struct AggregateRun {
    pub input: PathBuf,
    pub samples: u64,
    pub cpu_seconds: Option<f64>,
}

/// The report of several runs (JSON as it is written).
#[derive(Clone, Debug, Serialize)]
pub struct Aggregate {
    pub command: String,
    pub runs: Vec<AggregateRun>,
    pub samples: u64,
    /// CPU seconds per run, on average.
    pub cpu_seconds: Option<f64>,
    pub by: &'static str,
    /// By self share of all the samples, then inclusive share.
    pub categories: Vec<AggregateRow>,
}

/// Adds up `runs` (rows by category) of `command`.
pub fn aggregate(command: String, runs: &[RunRows]) -> Aggregate {
    let samples: u64 = runs.iter().map(|run| run.samples).sum();
    let mut keys: Vec<&String> = runs.iter().flat_map(|run| run.rows.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut categories: Vec<AggregateRow> = keys
        .into_iter()
        .map(|key| {
            let shown = runs
                .iter()
                .find_map(|run| run.rows.get(key))
                .expect("a key comes from some run");
            let per_run = |inclusive: bool| -> Vec<u64> {
                runs.iter()
                    .map(|run| {
                        run.rows.get(key).map_or(0, |row| {
                            if inclusive {
                                row.inclusive_samples
                            } else {
                                row.self_samples
                            }
                        })
                    })
                    .collect()
            };
            let shares = |counts: &[u64]| -> Vec<f64> {
                counts
                    .iter()
                    .zip(runs)
                    .map(|(&count, run)| round2(percent(count, run.samples)))
                    .collect()
            };
            let (own, inclusive) = (per_run(false), per_run(true));
            let (own_total, inclusive_total) = (own.iter().sum(), inclusive.iter().sum());
            AggregateRow {
                id: key.clone(),
                name: shown.name.clone(),
                color: shown.color.clone(),
                self_samples: own_total,
                self_percent: round2(percent(own_total, samples)),
                self_percent_runs: shares(&own),
                inclusive_samples: inclusive_total,
                inclusive_percent: round2(percent(inclusive_total, samples)),
                inclusive_percent_runs: shares(&inclusive),
            }
        })
        .collect();
    categories.sort_by(|a, b| {
        (b.self_samples, b.inclusive_samples, &a.id).cmp(&(
            a.self_samples,
            a.inclusive_samples,
            &b.id,
        ))
    });
    let cpu_seconds = runs
        .iter()
        .map(|run| run.seconds(run.samples))
        .sum::<Option<f64>>()
        .map(|total| round2(total / runs.len().max(1) as f64));
    Aggregate {
        command,
        runs: runs
            .iter()
            .map(|run| AggregateRun {
                input: run.input.clone(),
                samples: run.samples,
                cpu_seconds: run.seconds(run.samples).map(round2),
            })
            .collect(),
        samples,
        cpu_seconds,
        by: "category",
        categories,
    }
}

/// `lowest–highest` of per-run shares.
fn spread(shares: &[f64]) -> String {
    let lowest = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{lowest:.1}–{highest:.1}%")
}

impl Aggregate {
    /// Writes the aggregate as text, Markdown or CSV.
    pub fn write_text(
        &self,
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
            rows: self
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
        let runs = self.runs.len();
        let lines = [
            format!("command: {}", self.command),
            format!(
                "{runs} runs, {} samples{}; shares are of all the runs' samples together, \
                 with the lowest and highest share of a single run",
                self.samples,
                self.cpu_seconds.map_or(String::new(), |seconds| format!(
                    ", {seconds:.2} CPU s per run ({})",
                    self.runs
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
}
