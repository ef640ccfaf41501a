//! `compile-perf top`: the functions the samples landed in (self) and the
//! functions on their stacks (inclusive), as a table or as JSON.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::round2;
use super::table::{cut_to, line_width};
use crate::attribute::{UnwindStats, percent, symbol_totals, unwind_stats};
use crate::profile::{Profile, SampleFilter};

/// One row: a function and its sample counts.
#[derive(Debug, Serialize)]
pub(crate) struct TopEntry {
    /// The demangled name.
    pub symbol: String,
    /// The raw symbol-table name, when it differs from `symbol`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mangled: Option<String>,
    /// The binary's file name, without its directory.
    pub dso: String,
    pub self_samples: u64,
    pub self_percent: f64,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
}

/// One process image (a program run by a pid) and how its stacks unwound.
#[derive(Debug, Serialize)]
pub(crate) struct ProcessEntry {
    pub pid: i32,
    pub name: String,
    /// The executable it exec'd, when the recording shows it.
    pub executable: Option<String>,
    pub samples: u64,
    pub unwind: UnwindJson,
}

/// The JSON document of `top --format json`.
#[derive(Debug, Serialize)]
pub(crate) struct TopReport {
    pub samples: u64,
    pub event: String,
    pub unwind: UnwindJson,
    /// Samples the kernel lost while recording.
    pub lost_samples: u64,
    pub processes: Vec<ProcessEntry>,
    pub entries: Vec<TopEntry>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct UnwindJson {
    pub complete: u64,
    pub truncated: u64,
}

impl From<UnwindStats> for UnwindJson {
    fn from(stats: UnwindStats) -> Self {
        UnwindJson {
            complete: stats.complete,
            truncated: stats.truncated,
        }
    }
}

/// The `limit` functions with the most self samples (then inclusive samples),
/// over the samples `filter` keeps.
pub(crate) fn top_report(profile: &Profile, limit: usize, filter: &SampleFilter) -> TopReport {
    let totals = symbol_totals(profile, filter);
    let samples = profile.samples(filter).map(|(_, count)| count).sum();
    let mut entries: Vec<TopEntry> = totals
        .inclusive_samples
        .iter()
        .map(|(&symbol_id, &inclusive)| {
            let symbol = profile.symbols.get(symbol_id);
            let self_samples = totals.self_samples.get(&symbol_id).copied().unwrap_or(0);
            TopEntry {
                symbol: symbol.name.clone(),
                mangled: symbol.mangled.clone(),
                dso: profile.store.get(symbol.dso).name.clone(),
                self_samples,
                self_percent: round2(percent(self_samples, samples)),
                inclusive_samples: inclusive,
                inclusive_percent: round2(percent(inclusive, samples)),
            }
        })
        .collect();
    entries.sort_by(|a, b| {
        (b.self_samples, b.inclusive_samples, &a.symbol, &a.dso).cmp(&(
            a.self_samples,
            a.inclusive_samples,
            &b.symbol,
            &b.dso,
        ))
    });
    entries.truncate(limit);
    let (unwind, per_process) = unwind_stats(profile, filter);
    let mut processes: Vec<ProcessEntry> = per_process
        .into_iter()
        .map(|(id, stats)| {
            let image = profile.processes.image(id);
            ProcessEntry {
                pid: image.pid,
                name: image.name.clone(),
                executable: image.executable.clone(),
                samples: stats.total(),
                unwind: stats.into(),
            }
        })
        .collect();
    processes.sort_by(|a, b| (b.samples, a.pid).cmp(&(a.samples, b.pid)));
    TopReport {
        samples,
        event: profile.event.clone(),
        unwind: unwind.into(),
        lost_samples: profile.counts.lost.samples(),
        processes,
        entries,
    }
}

/// Writes the report as an aligned text table.
/// The narrowest a symbol is cut to when a line is too narrow for it.
const NARROWEST_SYMBOL: usize = 24;

pub(crate) fn write_table(report: &TopReport, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>7} {:>9} {:>7} {:>9}  {:<24} symbol",
        "self%", "self", "incl%", "incl", "dso"
    )?;
    for entry in &report.entries {
        let line = format!(
            "{:>6.2}% {:>9} {:>6.2}% {:>9}  {:<24} ",
            entry.self_percent,
            entry.self_samples,
            entry.inclusive_percent,
            entry.inclusive_samples,
            entry.dso,
        );
        // The symbol takes the rest of the line width, at least a column's.
        let room = line_width().map_or(usize::MAX, |max| {
            max.saturating_sub(line.chars().count())
                .max(NARROWEST_SYMBOL)
        });
        writeln!(out, "{line}{}", cut_to(&entry.symbol, room))?;
    }
    Ok(())
}

/// Writes the report as pretty JSON.
pub(crate) fn write_json(report: &TopReport, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}
