//! `history check`'s verdict written out: each run of the run directory
//! judged against the last N runs of its key (the run itself left out when
//! it is already stored); exit 30, as `diff`'s gate, when any metric of any
//! run is flagged.

use serde::Serialize;

use super::super::Config;
use super::judge::{Rules, judge};
use crate::error::{EXIT_REGRESSION, Error};
use crate::history::StoredRun;
use crate::history::metric::{CATEGORY, JudgedMetric, is_share, shown_delta, shown_value};
use crate::stats::multiple::{CATEGORY_FAMILY_ALPHA, FAMILY_ALPHA};

use crate::output::write_output;
use crate::report::table::{Cell, Colors, Column, Table, TextFormat, write_table};

use super::super::format::TableOrJson;

#[derive(Serialize)]
struct CheckJson<'a> {
    series: &'a str,
    flagged: bool,
    runs: Vec<RunCheckJson>,
}

#[derive(Serialize)]
struct RunCheckJson {
    path: Option<String>,
    identity: String,
    history_runs: usize,
    flagged: bool,
    metrics: Vec<JudgedMetric>,
}

/// Judges each of `runs` against the last `last` of `history` (oldest
/// first) and writes the verdicts; 30 when any is flagged.
pub(super) fn check(
    config: &Config,
    history: &[StoredRun],
    runs: &[StoredRun],
    last: usize,
    rules: &Rules,
    format: TableOrJson,
) -> Result<u8, Error> {
    let series = runs.first().map(|run| run.series.as_str()).unwrap_or("");
    let mut checked = Vec::new();
    for run in runs {
        let earlier: Vec<&StoredRun> = history
            .iter()
            .filter(|old| old.identity != run.identity)
            .collect();
        let earlier = &earlier[earlier.len().saturating_sub(last)..];
        let judged = judge(earlier, run, rules);
        checked.push((run, earlier.len(), judged));
    }
    let flagged = checked
        .iter()
        .any(|(_, _, judged)| judged.iter().any(|j| j.flagged));
    write_output(&config.output, |out| match format {
        TableOrJson::Json => {
            let json = CheckJson {
                series,
                flagged,
                runs: checked
                    .iter()
                    .map(|(run, count, judged)| RunCheckJson {
                        path: run.path.clone(),
                        identity: run.identity.clone(),
                        history_runs: *count,
                        flagged: judged.iter().any(|j| j.flagged),
                        metrics: judged.clone(),
                    })
                    .collect(),
            };
            serde_json::to_writer_pretty(&mut *out, &json)?;
            writeln!(out)
        }
        TableOrJson::Table => {
            for (run, count, judged) in &checked {
                let path = run.path.as_deref().unwrap_or("(run)");
                let key = if series.is_empty() {
                    "(no key)"
                } else {
                    series
                };
                if judged.is_empty() {
                    writeln!(
                        out,
                        "{path}: no earlier runs of {key} in the store: nothing to judge against"
                    )?;
                    continue;
                }
                writeln!(out, "{path} against {count} earlier runs of {key}:")?;
                write_table(&table(judged), TextFormat::Table, Colors::Plain, out)?;
                let shares: Vec<&JudgedMetric> =
                    judged.iter().filter(|j| is_share(&j.metric)).collect();
                let flagged_shares = shares.iter().filter(|j| j.flagged).count();
                let categories = shares
                    .iter()
                    .filter(|j| j.metric.starts_with(CATEGORY))
                    .count();
                writeln!(
                    out,
                    "{categories} category and {} pass shares tested (likelihood ratio, Holm-corrected \
                     in two families, categories at a family-wise rate of {CATEGORY_FAMILY_ALPHA} and passes \
                     at {FAMILY_ALPHA}; at least {} pp and beyond the share's own noise): {} flagged\n",
                    shares.len() - categories,
                    rules.threshold_pp,
                    flagged_shares
                )?;
            }
            writeln!(
                out,
                "{}",
                match flagged {
                    true => "history check: FLAGGED: a metric moved beyond noise (exit 30)",
                    false => "history check: passed: nothing moved beyond noise",
                }
            )
        }
    })?;
    Ok(if flagged { EXIT_REGRESSION } else { 0 })
}

/// The measures, and the shares that were flagged.
fn table(judged: &[JudgedMetric]) -> Table {
    let columns = ["metric", "value", "median", "vs median", "verdict", "test"];
    let rows = judged
        .iter()
        .filter(|j| j.flagged || !is_share(&j.metric))
        .map(|j| {
            let share = is_share(&j.metric);
            vec![
                Cell::from(j.metric.clone()),
                Cell::from(shown_value(&j.metric, j.value)),
                Cell::from(
                    j.median
                        .map_or(String::new(), |m| shown_value(&j.metric, m)),
                ),
                Cell::from(shown_delta(share, j.delta_median)),
                Cell::from(if j.flagged { "FLAGGED" } else { "ok" }.to_owned()),
                Cell::from(j.test.clone()),
            ]
        })
        .collect();
    Table {
        columns: columns
            .iter()
            .enumerate()
            .map(|(at, header)| match at {
                1..=3 => Column::right(header),
                _ => Column::left(header),
            })
            .collect(),
        rows,
    }
}
