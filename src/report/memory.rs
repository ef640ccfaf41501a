//! Memory growth by category and by pass, from a `page-faults` event that
//! `record --page-faults` adds: every fault first touches a 4 KiB page, so faults
//! × the event's period × 4 KiB is the memory the compile touched, charged
//! to the code that touched it. Shown beside the compile's peak RSS.

use std::io::Write;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::table::{Cell, Colors, Column, Table, TextFormat, write_table};
use crate::attribute::{Attribution, Classes, Grouping, RowKey, group};
use crate::profile::{Profile, SampleFilter};
use category_rules::RuleTable;

/// The page size of x86-64 Linux.
pub(crate) const PAGE_SIZE: u64 = 4096;
/// Base names of the page-fault events.
const FAULT_EVENTS: [&str; 3] = ["page-faults", "faults", "minor-faults"];
/// Rows shown per table.
const ROWS: usize = 12;

/// The page-fault event of a recording, other than the one being reported.
pub(crate) fn fault_event(profile: &Profile) -> Option<String> {
    profile
        .info
        .events
        .iter()
        .find(|event| {
            event.is_sampling
                && event.name != profile.event
                && FAULT_EVENTS.contains(&event.base_name())
        })
        .map(|event| event.name.clone())
}

/// Bytes first touched, in all and by category and pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MemoryJson {
    pub event: String,
    /// Faults each sample stands for.
    pub period: u64,
    pub page_size: u64,
    pub samples: u64,
    /// Samples the kernel lost while recording (of every event).
    pub lost_samples: u64,
    pub bytes: u64,
    /// The compile's peak RSS, from run.json, when known.
    pub peak_rss_bytes: Option<u64>,
    /// Whose the faults are: the faulting function's (`leaf`) or, with
    /// `--attribution caller`, the first caller that is not an allocator,
    /// copy routine or kernel code (`caller`).
    pub attribution: Cow<'static, str>,
    pub categories: Vec<MemoryRow>,
    pub passes: Vec<MemoryRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MemoryRow {
    pub name: String,
    pub bytes: u64,
    pub percent: f64,
}

/// Groups the page-fault samples of `faults` (a profile of the fault
/// event), charged as `attribution` says.
pub(crate) fn memory_report(
    faults: &Profile,
    rules: &RuleTable,
    filter: &SampleFilter,
    peak_rss_bytes: Option<u64>,
    attribution: Attribution,
) -> MemoryJson {
    let period = faults
        .info
        .events
        .iter()
        .find(|event| event.name == faults.event)
        .and_then(|event| event.period)
        .unwrap_or(1);
    let bytes_per_sample = period * PAGE_SIZE;
    let classes = Classes::new(faults, rules);
    let rows = |grouping: Grouping| -> (u64, Vec<MemoryRow>) {
        let grouped = group(faults, &classes, grouping, attribution, filter, None);
        let mut rows: Vec<(RowKey, u64)> = grouped
            .rows
            .iter()
            .filter(|(_, row)| row.self_samples > 0)
            .map(|(key, row)| (*key, row.self_samples))
            .collect();
        rows.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
        let total = grouped.samples;
        let named = rows
            .into_iter()
            .map(|(key, samples)| MemoryRow {
                name: match key {
                    RowKey::Category(id) => rules.category(id).id.clone(),
                    place => classes.place_name(place).unwrap_or_default().to_owned(),
                },
                bytes: samples * bytes_per_sample,
                percent: super::round2(crate::attribute::percent(samples, total)),
            })
            .collect();
        (total, named)
    };
    let (samples, categories) = rows(Grouping::Category);
    let (_, passes) = rows(Grouping::Pass);
    MemoryJson {
        event: faults.event.clone(),
        period,
        page_size: PAGE_SIZE,
        samples,
        lost_samples: faults.counts.lost.samples(),
        bytes: samples * bytes_per_sample,
        peak_rss_bytes,
        attribution: match attribution {
            Attribution::Leaf => "leaf",
            Attribution::Caller => "caller",
        }
        .into(),
        categories,
        passes,
    }
}

/// Memory is in MiB everywhere.
fn mebibytes(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// Writes the memory section as text or Markdown.
pub(crate) fn write_text(
    memory: &MemoryJson,
    format: TextFormat,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "memory first touched: {} ({} {} samples x {} faults x {} B pages; attribution: {}){}",
        mebibytes(memory.bytes),
        memory.samples,
        memory.event,
        memory.period,
        memory.page_size,
        memory.attribution,
        memory.peak_rss_bytes.map_or(String::new(), |peak| format!(
            "; peak RSS of the compile: {}",
            mebibytes(peak)
        ))
    )?;
    for (title, rows) in [("category", &memory.categories), ("pass", &memory.passes)] {
        let table = Table {
            columns: vec![
                Column::left(title),
                Column::right("touched"),
                Column::right("share"),
            ],
            rows: rows
                .iter()
                .take(ROWS)
                .map(|row| -> Vec<Cell> {
                    vec![
                        row.name.clone().into(),
                        mebibytes(row.bytes).into(),
                        format!("{:.1}%", row.percent).into(),
                    ]
                })
                .collect(),
        };
        writeln!(out)?;
        write_table(&table, format, Colors::Plain, out)?;
    }
    Ok(())
}
