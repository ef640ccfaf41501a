//! How a diff is written: the table (terminal, Markdown for a pull
//! request, CSV) with the header that says what was compared and how it was
//! judged, and the JSON document.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::diff::{Diff, DiffRow, Side};
use crate::report::round2;
use crate::report::table::{Cell, Column, Ink, Table, TextFormat, write_table};

/// Rows whose shares all read 0.0% and that did not move say nothing in a table.
const SHOWN_PERCENT: f64 = 0.05;

/// How the rows were chosen, for the header.
#[derive(Clone, Debug)]
pub struct Scope {
    /// `category`, `symbol`, …
    pub by: &'static str,
    /// `leaf` or `caller`.
    pub attribution: &'static str,
    /// The processes kept, in words.
    pub processes: String,
}

/// Writes `diff` as text, Markdown or CSV; `colors` puts growth in red and
/// shrinkage in blue on a terminal.
pub fn write_text(
    diff: &Diff,
    scope: &Scope,
    format: TextFormat,
    colors: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let table = table(diff, scope);
    if format == TextFormat::Csv {
        return write_table(&table, format, false, out);
    }
    let markdown = format == TextFormat::Markdown;
    for line in header_lines(diff, scope) {
        if markdown {
            writeln!(out, "- {line}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out)?;
    write_table(&table, format, colors, out)
}

fn side_line(label: &str, side: &Side) -> String {
    let runs = side.runs.len();
    format!(
        "{label}: {} ({} run{}, {} samples{})",
        side.name,
        runs,
        if runs == 1 { "" } else { "s" },
        side.samples(),
        Diff::cpu_seconds(side).map_or(String::new(), |seconds| format!(
            ", {seconds:.2} CPU s{}",
            if runs == 1 { "" } else { " per run" }
        ))
    )
}

fn header_lines(diff: &Diff, scope: &Scope) -> Vec<String> {
    vec![
        side_line("base", &diff.base),
        side_line("new", &diff.new),
        format!(
            "scope: {}; rows: {}; attribution: {}",
            scope.processes, scope.by, scope.attribution
        ),
        format!("significance: {}", diff.method()),
    ]
}

/// `+1.23` / `-4.56`, coloured when the change is significant.
fn delta_cell(delta: f64, significant: bool) -> Cell {
    Cell {
        text: format!("{delta:+.2}"),
        color: None,
        ink: significant.then_some(if delta > 0.0 { Ink::Red } else { Ink::Blue }),
    }
}

fn seconds_cell(seconds: Option<f64>) -> Cell {
    seconds
        .map_or_else(String::new, |seconds| format!("{seconds:.2}"))
        .into()
}

/// Which shares moved significantly, and which way: `self ▲, incl ▼`.
fn significance_text(row: &DiffRow) -> String {
    let arrow = |delta: f64| if delta > 0.0 { "▲" } else { "▼" };
    let mut parts = Vec::new();
    if row.significant_self {
        parts.push(format!("self {}", arrow(row.delta_self_pp)));
    }
    if row.significant_inclusive {
        parts.push(format!("incl {}", arrow(row.delta_inclusive_pp)));
    }
    parts.join(", ")
}

fn table(diff: &Diff, scope: &Scope) -> Table {
    let shown = |row: &&DiffRow| {
        row.significant
            || [
                row.base_self_percent,
                row.new_self_percent,
                row.base_inclusive_percent,
                row.new_inclusive_percent,
            ]
            .iter()
            .any(|&share| share >= SHOWN_PERCENT)
    };
    let rows = diff
        .rows
        .iter()
        .filter(shown)
        .map(|row| {
            vec![
                Cell {
                    text: row.name.clone(),
                    color: row.color.clone(),
                    ink: None,
                },
                format!("{:.1}%", row.base_self_percent).into(),
                format!("{:.1}%", row.new_self_percent).into(),
                delta_cell(row.delta_self_pp, row.significant_self),
                format!("{:.1}%", row.base_inclusive_percent).into(),
                format!("{:.1}%", row.new_inclusive_percent).into(),
                delta_cell(row.delta_inclusive_pp, row.significant_inclusive),
                seconds_cell(row.base_self_seconds),
                seconds_cell(row.new_self_seconds),
                significance_text(row).into(),
            ]
        })
        .collect();
    Table {
        columns: vec![
            Column::left(scope.by),
            Column::right("base self%"),
            Column::right("new self%"),
            Column::right("Δself pp"),
            Column::right("base incl%"),
            Column::right("new incl%"),
            Column::right("Δincl pp"),
            Column::right("base self s"),
            Column::right("new self s"),
            Column::left("significant"),
        ],
        rows,
    }
}

/// `diff --format json`.
#[derive(Debug, Serialize)]
pub struct DiffJson<'a> {
    pub base: SideJson,
    pub new: SideJson,
    pub by: &'static str,
    pub attribution: &'static str,
    pub significance: String,
    pub threshold_pp: f64,
    pub rows: &'a [DiffRow],
}

/// One side in the JSON document.
#[derive(Debug, Serialize)]
pub struct SideJson {
    /// The recordings read.
    pub inputs: Vec<PathBuf>,
    pub runs: usize,
    /// Samples of all runs together.
    pub samples: u64,
    /// CPU seconds per run, on average.
    pub cpu_seconds: Option<f64>,
}

fn side_json(side: &Side) -> SideJson {
    SideJson {
        inputs: side.runs.iter().map(|run| run.input.clone()).collect(),
        runs: side.runs.len(),
        samples: side.samples(),
        cpu_seconds: Diff::cpu_seconds(side).map(round2),
    }
}

/// The JSON document of `diff`.
pub fn to_json<'a>(diff: &'a Diff, scope: &Scope) -> DiffJson<'a> {
    DiffJson {
        base: side_json(&diff.base),
        new: side_json(&diff.new),
        by: scope.by,
        attribution: scope.attribution,
        significance: diff.method(),
        threshold_pp: diff.judged.threshold_pp,
        rows: &diff.rows,
    }
}
