//! How `diff` is written: the table (terminal, Markdown for a pull
//! request, CSV) with the header that says what was compared and how it was
//! judged, the JSON document, and the Markdown summary of a failed gate.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::round2;
use super::run_diff::{self, MemberJson};
use super::table::{Cell, Colors, Column, Ink, Table, TextFormat, write_table};
use crate::attribute::diff::{Diff, DiffRow, Failure, Side};
use crate::attribute::run_diff::RunFailure;

/// Rows whose shares all read 0.0% and that did not move say nothing in a table.
const SHOWN_PERCENT: f64 = 0.05;

/// How the rows were chosen, for the header.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    /// `category`, `symbol`, …
    pub by: &'static str,
    /// `leaf` or `caller`.
    pub attribution: &'static str,
    /// The processes kept, in words.
    pub processes: String,
}

/// Writes `diff` as text, Markdown or CSV; `colors` puts growth in red and
/// shrinkage in blue on a terminal.
pub(crate) fn write_text(
    diff: &Diff,
    scope: &Scope,
    format: TextFormat,
    colors: Colors,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let table = table(diff, scope);
    if format == TextFormat::Csv {
        return write_table(&table, format, Colors::Plain, out);
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
    run_diff::write_text(&diff.run, format, colors, out)?;
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
    .into_iter()
    .chain(
        diff.warnings()
            .into_iter()
            .map(|warning| format!("warning: {warning}")),
    )
    .collect()
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
pub(crate) struct DiffJson<'a> {
    /// Samples the kernel lost, of both sides together (each side's are
    /// in it).
    lost_samples: u64,
    base: SideJson<'a>,
    new: SideJson<'a>,
    by: &'static str,
    attribution: &'static str,
    significance: String,
    threshold_pp: f64,
    /// Why the sides may not compare like with like (other inputs or flags),
    /// and the runs whose compile failed, in words.
    warnings: Vec<String>,
    /// The runs' facts: `wall_seconds`, `cpu_seconds`, `peak_rss_bytes`,
    /// `artifact_bytes`, each `{base, new, delta_percent, …}`.
    run: BTreeMap<&'static str, run_diff::MeasureJson>,
    /// The outputs' members matched across the sides.
    artifacts: Vec<MemberJson>,
    rows: Vec<DiffRowJson<'a>>,
    /// With `--heap`: the sides' live heaps at their instants read compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) heap_peak: Option<crate::attribute::heap_diff::HeapPeakDiff>,
    /// The globals const-eval computed that one side has and the other
    /// not, or whose addition to the module changed: largest change first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) consteval: Vec<crate::report::consteval::GlobalChange>,
}

/// One side in the JSON document.
#[derive(Debug, Serialize)]
struct SideJson<'a> {
    /// The recordings read.
    inputs: Vec<&'a Path>,
    runs: usize,
    /// Samples of all runs together.
    samples: u64,
    /// Samples the kernel lost, of all runs together.
    lost_samples: u64,
    /// CPU seconds per run, the median of the runs.
    cpu_seconds: Option<f64>,
    /// The runs whose compile failed: `{run, reason}`.
    failed_runs: Vec<FailedRunJson<'a>>,
}

/// A run whose compile failed, in the JSON document.
#[derive(Debug, Serialize)]
struct FailedRunJson<'a> {
    run: &'a str,
    reason: &'a str,
}

/// One row in the JSON document.
#[derive(Debug, Serialize)]
struct DiffRowJson<'a> {
    key: &'a str,
    name: &'a str,
    base_self_percent: f64,
    new_self_percent: f64,
    delta_self_pp: f64,
    base_inclusive_percent: f64,
    new_inclusive_percent: f64,
    delta_inclusive_pp: f64,
    base_self_seconds: Option<f64>,
    new_self_seconds: Option<f64>,
    significant: bool,
    significant_self: bool,
    significant_inclusive: bool,
    p_value_self: f64,
    p_value_inclusive: f64,
}

fn side_json(side: &Side) -> SideJson<'_> {
    SideJson {
        inputs: side.runs.iter().map(|run| run.input.as_path()).collect(),
        runs: side.runs.len(),
        samples: side.samples(),
        lost_samples: side.lost_samples(),
        cpu_seconds: Diff::cpu_seconds(side).map(round2),
        failed_runs: side
            .compiled
            .failed
            .iter()
            .map(|failed| FailedRunJson {
                run: &failed.run,
                reason: &failed.reason,
            })
            .collect(),
    }
}

/// The JSON document of `diff`.
pub(crate) fn to_json<'a>(diff: &'a Diff, scope: &Scope) -> DiffJson<'a> {
    DiffJson {
        heap_peak: None,
        consteval: Vec::new(),
        lost_samples: diff.base.lost_samples() + diff.new.lost_samples(),
        base: side_json(&diff.base),
        new: side_json(&diff.new),
        by: scope.by,
        attribution: scope.attribution,
        significance: diff.method(),
        threshold_pp: diff.judged.threshold_pp,
        warnings: diff.warnings(),
        run: run_diff::run_json(&diff.run),
        artifacts: run_diff::artifacts_json(&diff.run),
        rows: diff
            .rows
            .iter()
            .map(|row| DiffRowJson {
                key: &row.key,
                name: &row.name,
                base_self_percent: row.base_self_percent,
                new_self_percent: row.new_self_percent,
                delta_self_pp: row.delta_self_pp,
                base_inclusive_percent: row.base_inclusive_percent,
                new_inclusive_percent: row.new_inclusive_percent,
                delta_inclusive_pp: row.delta_inclusive_pp,
                base_self_seconds: row.base_self_seconds,
                new_self_seconds: row.new_self_seconds,
                significant: row.significant,
                significant_self: row.significant_self,
                significant_inclusive: row.significant_inclusive,
                p_value_self: row.p_value_self,
                p_value_inclusive: row.p_value_inclusive,
            })
            .collect(),
    }
}

/// The Markdown summary of a failed gate: the run facts, then the shares,
/// that grew beyond their limits.
pub(crate) fn write_failures(
    failures: &[Failure],
    run_failures: &[RunFailure],
    diff: &Diff,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let counted = |count: usize, what: &str| {
        (count > 0).then(|| format!("{count} {what}{}", if count == 1 { "" } else { "s" }))
    };
    let what: Vec<String> = [
        counted(failures.len(), "share"),
        counted(run_failures.len(), "run fact"),
    ]
    .into_iter()
    .flatten()
    .collect();
    writeln!(
        out,
        "### compile-perf diff: {} grew beyond the limit",
        what.join(" and ")
    )?;
    writeln!(out)?;
    writeln!(out, "- base: {}", diff.base.name)?;
    writeln!(out, "- new: {}", diff.new.name)?;
    writeln!(out)?;
    let share_rows = failures.iter().map(|failure| -> Vec<Cell> {
        vec![
            format!("{} ({})", failure.name, failure.measure).into(),
            format!("{:.2}%", failure.base_percent).into(),
            format!("{:.2}%", failure.new_percent).into(),
            format!("{:+.2} pp", failure.delta_pp).into(),
            format!("{} pp", failure.limit_pp).into(),
        ]
    });
    let table = Table {
        columns: vec![
            Column::left("grew"),
            Column::right("base"),
            Column::right("new"),
            Column::right("change"),
            Column::right("limit"),
        ],
        rows: run_failures
            .iter()
            .map(run_diff::failure_row)
            .chain(share_rows)
            .collect(),
    };
    write_table(&table, TextFormat::Markdown, Colors::Plain, out)?;
    writeln!(out)?;
    writeln!(out, "{}", diff.method())
}
