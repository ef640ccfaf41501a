//! The CI gate of `diff`: which rows grew by more than they may
//! (`--fail-on-regression`, `--max-increase KEY=PP`), and the Markdown
//! summary of them.

use std::io::Write;

use super::diff::{Diff, DiffRow};
use crate::report::table::{Column, Table, TextFormat, write_table};

/// Exit code of `diff` when the gate fails.
pub const EXIT_REGRESSION: u8 = 30;

/// What the gate checks.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Fail on any row whose share grew significantly by more than the threshold.
    pub fail_on_regression: bool,
    /// Per-row limits (a category id with `--by category`): fail when that
    /// row's share grew by more than PP points, beyond the noise.
    pub max_increase: Vec<(String, f64)>,
}

impl Limits {
    /// True when any limit is set.
    pub fn is_set(&self) -> bool {
        self.fail_on_regression || !self.max_increase.is_empty()
    }
}

/// A share that grew by more than its limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub name: String,
    /// `self` or `inclusive`.
    pub measure: &'static str,
    pub base_percent: f64,
    pub new_percent: f64,
    pub delta_pp: f64,
    pub limit_pp: f64,
}

/// The shares of `diff` that break `limits`: grown beyond the noise by more
/// than the row's `--max-increase`, or than the threshold with
/// `--fail-on-regression`.
pub fn failures(diff: &Diff, limits: &Limits) -> Vec<Failure> {
    let mut failed = Vec::new();
    for row in &diff.rows {
        let own_limit = limits
            .max_increase
            .iter()
            .rev()
            .find(|(key, _)| *key == row.key)
            .map(|(_, limit)| *limit);
        let Some(limit) = own_limit.or(limits
            .fail_on_regression
            .then_some(diff.judged.threshold_pp))
        else {
            continue;
        };
        for (measure, beyond_noise, base, new, delta) in measures(row) {
            if beyond_noise && delta > limit {
                failed.push(Failure {
                    name: row.name.clone(),
                    measure,
                    base_percent: base,
                    new_percent: new,
                    delta_pp: delta,
                    limit_pp: limit,
                });
            }
        }
    }
    failed
}

/// A row's two measures: name, beyond the noise, base %, new %, change.
fn measures(row: &DiffRow) -> [(&'static str, bool, f64, f64, f64); 2] {
    [
        (
            "self",
            row.beyond_noise[0],
            row.base_self_percent,
            row.new_self_percent,
            row.delta_self_pp,
        ),
        (
            "inclusive",
            row.beyond_noise[1],
            row.base_inclusive_percent,
            row.new_inclusive_percent,
            row.delta_inclusive_pp,
        ),
    ]
}

/// The Markdown summary of a failed gate.
pub fn write_failures(
    failures: &[Failure],
    diff: &Diff,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "### compile-perf diff: {} share{} grew beyond the limit",
        failures.len(),
        if failures.len() == 1 { "" } else { "s" }
    )?;
    writeln!(out)?;
    writeln!(out, "- base: {}", diff.base.name)?;
    writeln!(out, "- new: {}", diff.new.name)?;
    writeln!(out)?;
    let table = Table {
        columns: vec![
            Column::left("row"),
            Column::left("share"),
            Column::right("base"),
            Column::right("new"),
            Column::right("change"),
            Column::right("limit"),
        ],
        rows: failures
            .iter()
            .map(|failure| {
                vec![
                    failure.name.clone().into(),
                    failure.measure.to_owned().into(),
                    format!("{:.2}%", failure.base_percent).into(),
                    format!("{:.2}%", failure.new_percent).into(),
                    format!("{:+.2} pp", failure.delta_pp).into(),
                    format!("{} pp", failure.limit_pp).into(),
                ]
            })
            .collect(),
    };
    write_table(&table, TextFormat::Markdown, false, out)?;
    writeln!(out)?;
    writeln!(out, "{}", diff.method())
}
