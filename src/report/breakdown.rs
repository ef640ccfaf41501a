//! `compile-perf report`: where the samples went, by category (or by symbol,
//! binary, thread, process or MLIR pass), with a header saying what was
//! profiled and a per-process breakdown. Text, Markdown and CSV share one
//! table; JSON has its own document.

use std::io::Write;

use serde::Serialize;

use super::round2;
use super::table::{Cell, Column, Table, TextFormat, write_table};
use crate::attribute::{
    Attribution, Classes, Detail, Grouped, Grouping, RowKey, RowTotals, UnwindStats, Utilization,
    percent, timeline, unwind_stats,
};
use crate::profile::{Profile, SampleFilter};

/// Symbols listed per row in the text table; JSON lists more.
const TEXT_TOP: usize = 3;
const JSON_TOP: usize = 10;
/// Longest symbol name shown in the text table.
const TEXT_SYMBOL_WIDTH: usize = 70;
/// Time slices behind the utilization figure of `--by thread`.
const UTILIZATION_SLICES: usize = 200;

/// What `report` was asked for.
#[derive(Clone, Debug, Default)]
pub(crate) struct BreakdownOptions {
    pub grouping: Grouping,
    pub attribution: Attribution,
    pub filter: SampleFilter,
}

/// A report, ready to print in any format.
pub(crate) struct Breakdown<'a> {
    profile: &'a Profile,
    classes: &'a Classes<'a>,
    options: BreakdownOptions,
    grouped: Grouped,
    /// Rows sorted by self samples, then inclusive samples.
    order: Vec<RowKey>,
    unwind: UnwindStats,
    /// With `--by thread`: how busy the threads were.
    utilization: Option<Utilization>,
}

/// Groups the profile's samples as `options` say.
pub(crate) fn breakdown<'a>(
    profile: &'a Profile,
    classes: &'a Classes<'a>,
    options: BreakdownOptions,
) -> Breakdown<'a> {
    let grouped = crate::attribute::group(
        profile,
        classes,
        options.grouping,
        options.attribution,
        &options.filter,
    );
    let mut order: Vec<RowKey> = grouped
        .rows
        .iter()
        .filter(|(_, row)| row.self_samples > 0 || options.grouping != Grouping::Symbol)
        .map(|(key, _)| *key)
        .collect();
    order.sort_by(|a, b| {
        let (ra, rb) = (&grouped.rows[a], &grouped.rows[b]);
        (rb.self_samples, rb.inclusive_samples, a).cmp(&(ra.self_samples, ra.inclusive_samples, b))
    });
    let unwind = unwind_stats(profile, &options.filter).0;
    let utilization = (options.grouping == Grouping::Thread)
        .then(|| timeline(profile, classes, &options.filter, UTILIZATION_SLICES).utilization)
        .flatten();
    Breakdown {
        profile,
        classes,
        options,
        grouped,
        order,
        unwind,
        utilization,
    }
}

impl Breakdown<'_> {
    /// The samples the report covers.
    pub(crate) fn samples(&self) -> u64 {
        self.grouped.samples
    }

    /// The rows in order, with their keys.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (RowKey, &RowTotals)> {
        self.order.iter().map(|key| (*key, &self.grouped.rows[key]))
    }

    fn label(&self, key: RowKey) -> (String, Option<String>) {
        let profile = self.profile;
        match key {
            RowKey::Category(id) => {
                let category = self.classes.table.category(id);
                (category.name.clone(), Some(category.color.clone()))
            }
            RowKey::Symbol(id) => {
                let symbol = profile.symbols.get(id);
                let category = self.classes.table.category(self.classes.category_of(id));
                (symbol.name.clone(), Some(category.color.clone()))
            }
            RowKey::Dso(id) => (profile.store.get(id).name.clone(), None),
            RowKey::Thread(id) => {
                let thread = profile.processes.thread(id);
                let pid = profile.processes.image(thread.process).pid;
                (format!("{} ({pid}/{})", thread.name, thread.tid), None)
            }
            RowKey::Process(id) => {
                let image = profile.processes.image(id);
                (format!("{} ({})", image.name, image.pid), None)
            }
            RowKey::Pass(id) => (self.classes.passes.name(id).to_owned(), None),
            RowKey::OutsidePass(place) => (place.name().to_owned(), None),
        }
    }

    fn detail_name(&self, detail: Detail) -> String {
        match detail {
            Detail::Symbol(id) => self.profile.symbols.get(id).name.clone(),
            Detail::Category(id) => self.classes.table.category(id).id.clone(),
        }
    }

    fn top_details(&self, row: &RowTotals, limit: usize) -> Vec<(String, u64)> {
        let mut details: Vec<(&Detail, &u64)> = row.details.iter().collect();
        details.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
        details
            .into_iter()
            .take(limit)
            .map(|(detail, &count)| (self.detail_name(*detail), count))
            .collect()
    }

    fn header_lines(&self) -> Vec<String> {
        let profile = self.profile;
        let scope = if self.options.filter.keeps_all() {
            "all processes".to_owned()
        } else {
            let mut parts = Vec::new();
            if self.options.filter.compiler_only {
                parts.push("the compiler process".to_owned());
            }
            parts.extend(
                self.options
                    .filter
                    .names
                    .iter()
                    .map(|name| format!("process {name}")),
            );
            parts.extend(
                self.options
                    .filter
                    .pids
                    .iter()
                    .map(|pid| format!("pid {pid}")),
            );
            parts.join(", ")
        };
        let mut lines = vec![
            format!("command: {}", profile.profiled_command()),
            format!(
                "event: {}, {} samples over {:.2} s, {:.1}% of stacks unwound to a thread root",
                profile.event,
                self.samples(),
                profile.counts.duration_seconds(),
                self.unwind.complete_percent()
            ),
            format!(
                "scope: {scope}; rows: {}; attribution: {}",
                grouping_name(self.options.grouping),
                match self.options.attribution {
                    Attribution::Leaf => "leaf",
                    Attribution::Caller => "caller",
                }
            ),
        ];
        if let Some(utilization) = &self.utilization {
            lines.push(format!(
                "threads: on average {:.2} busy{}; {:.0}% of the time only one thread was busy",
                utilization.mean_busy_threads,
                utilization
                    .cpus
                    .map_or(String::new(), |cpus| format!(" of {cpus} CPUs")),
                utilization.serial_share * 100.0
            ));
        }
        lines
    }

    fn main_table(&self, top_width: usize) -> Table {
        let grouping = self.options.grouping;
        let top_header = match grouping {
            Grouping::Category | Grouping::Dso => "top symbols",
            Grouping::Symbol | Grouping::Thread | Grouping::Process | Grouping::Pass => {
                "top categories"
            }
        };
        let by_pass = grouping == Grouping::Pass;
        let with_pass = matches!(grouping, Grouping::Thread | Grouping::Process);
        let samples = self.samples();
        let in_pass_manager = self.grouped.in_pass_manager;
        let rows = self
            .rows()
            // Rows that would read 0 / 0.0% / 0.0% say nothing.
            .filter(|(_, row)| {
                row.self_samples > 0 || percent(row.inclusive_samples, samples) >= 0.05
            })
            .map(|(key, row)| {
                let (label, color) = self.label(key);
                let top = self
                    .top_details(row, TEXT_TOP)
                    .into_iter()
                    .map(|(name, count)| format!("{} ({count})", shorten(&name, top_width)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut cells = vec![
                    Cell { text: label, color },
                    row.self_samples.to_string().into(),
                    format!("{:.1}%", percent(row.self_samples, samples)).into(),
                    format!("{:.1}%", percent(row.inclusive_samples, samples)).into(),
                ];
                if by_pass {
                    cells.push(match key {
                        RowKey::Pass(_) => {
                            format!("{:.1}%", percent(row.inclusive_samples, in_pass_manager))
                                .into()
                        }
                        _ => String::new().into(),
                    });
                }
                if with_pass {
                    cells.push(self.top_pass(row).into());
                }
                cells.push(top.into());
                cells
            })
            .collect();
        let mut columns = vec![
            Column::left(grouping_name(grouping)),
            Column::right("self"),
            Column::right("self%"),
            Column::right("incl%"),
        ];
        if by_pass {
            columns.push(Column::right("incl% of passes"));
        }
        if with_pass {
            columns.push(Column::left("top pass"));
        }
        columns.push(Column::left(top_header));
        Table { columns, rows }
    }

    /// The pass (or place outside passes) most of a row's self samples were in.
    fn top_pass(&self, row: &RowTotals) -> String {
        row.passes
            .iter()
            .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))
            .map(|(key, _)| self.label(*key).0)
            .unwrap_or_default()
    }

    /// Writes the report as text, Markdown or CSV.
    pub(crate) fn write_text(
        &self,
        format: TextFormat,
        colors: bool,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        if format == TextFormat::Csv {
            return write_table(&self.main_table(usize::MAX), format, false, out);
        }
        let markdown = format == TextFormat::Markdown;
        for line in self.header_lines() {
            if markdown {
                writeln!(out, "- {line}")?;
            } else {
                writeln!(out, "{line}")?;
            }
        }
        writeln!(out)?;
        write_table(&self.main_table(TEXT_SYMBOL_WIDTH), format, colors, out)?;
        let processes = self.process_table();
        if processes.rows.len() > 1 {
            writeln!(out)?;
            write_table(&processes, format, false, out)?;
        }
        Ok(())
    }

    /// Samples per process image, with their top categories.
    fn process_table(&self) -> Table {
        let by_process = crate::attribute::group(
            self.profile,
            self.classes,
            Grouping::Process,
            self.options.attribution,
            &self.options.filter,
        );
        let mut rows: Vec<_> = by_process.rows.iter().collect();
        rows.sort_by(|a, b| (b.1.self_samples, a.0).cmp(&(a.1.self_samples, b.0)));
        let samples = by_process.samples;
        Table {
            columns: vec![
                Column::left("process"),
                Column::right("samples"),
                Column::right("share"),
                Column::left("top categories"),
            ],
            rows: rows
                .into_iter()
                .map(|(key, row)| {
                    let (label, _) = self.label(*key);
                    let top = self
                        .top_details(row, TEXT_TOP)
                        .into_iter()
                        .map(|(name, count)| format!("{name} ({count})"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    vec![
                        label.into(),
                        row.self_samples.to_string().into(),
                        format!("{:.1}%", percent(row.self_samples, samples)).into(),
                        top.into(),
                    ]
                })
                .collect(),
        }
    }

    /// The JSON document.
    pub(crate) fn to_json(&self) -> ReportJson {
        let samples = self.samples();
        let mut categories = Vec::new();
        let mut rows = Vec::new();
        let mut passes = Vec::new();
        for (key, row) in self.rows() {
            let top = self.top_details(row, JSON_TOP);
            if let RowKey::Pass(_) = key {
                passes.push(self.pass_json(key, row));
            } else if let RowKey::Category(id) = key {
                let category = self.classes.table.category(id);
                categories.push(CategoryJson {
                    id: category.id.clone(),
                    name: category.name.clone(),
                    color: category.color.clone(),
                    description: category.description.clone(),
                    self_samples: row.self_samples,
                    self_percent: round2(percent(row.self_samples, samples)),
                    inclusive_samples: row.inclusive_samples,
                    inclusive_percent: round2(percent(row.inclusive_samples, samples)),
                    top_symbols: top
                        .into_iter()
                        .map(|(symbol, self_samples)| SymbolJson {
                            symbol,
                            self_samples,
                        })
                        .collect(),
                });
            } else {
                rows.push(RowJson {
                    top_pass: matches!(self.options.grouping, Grouping::Thread | Grouping::Process)
                        .then(|| self.top_pass(row)),
                    key: self.label(key).0,
                    self_samples: row.self_samples,
                    self_percent: round2(percent(row.self_samples, samples)),
                    inclusive_samples: row.inclusive_samples,
                    inclusive_percent: round2(percent(row.inclusive_samples, samples)),
                    top: top
                        .into_iter()
                        .map(|(name, self_samples)| DetailJson { name, self_samples })
                        .collect(),
                });
            }
        }
        ReportJson {
            command: self.profile.profiled_command(),
            event: self.profile.event.clone(),
            samples,
            duration_seconds: round2(self.profile.counts.duration_seconds()),
            unwind: self.unwind.into(),
            by: grouping_name(self.options.grouping),
            attribution: match self.options.attribution {
                Attribution::Leaf => "leaf",
                Attribution::Caller => "caller",
            },
            categories,
            passes,
            in_pass_manager_samples: (self.options.grouping == Grouping::Pass)
                .then_some(self.grouped.in_pass_manager),
            utilization: self.utilization.map(Into::into),
            memory: None,
            rows,
        }
    }

    /// A pass row and its pass × category split of self samples.
    fn pass_json(&self, key: RowKey, row: &RowTotals) -> PassJson {
        let samples = self.samples();
        let mut split: Vec<(&Detail, &u64)> = row.details.iter().collect();
        split.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
        PassJson {
            name: self.label(key).0,
            self_samples: row.self_samples,
            self_percent: round2(percent(row.self_samples, samples)),
            inclusive_samples: row.inclusive_samples,
            inclusive_percent: round2(percent(row.inclusive_samples, samples)),
            inclusive_percent_of_pass_manager: round2(percent(
                row.inclusive_samples,
                self.grouped.in_pass_manager,
            )),
            categories: split
                .into_iter()
                .filter_map(|(detail, &count)| match detail {
                    Detail::Category(id) => Some(PassCategoryJson {
                        id: self.classes.table.category(*id).id.clone(),
                        self_samples: count,
                        self_percent: round2(percent(count, samples)),
                    }),
                    Detail::Symbol(_) => None,
                })
                .collect(),
        }
    }
}

/// `report --format json`.
#[derive(Debug, Serialize)]
pub(crate) struct ReportJson {
    pub command: String,
    pub event: String,
    pub samples: u64,
    pub duration_seconds: f64,
    pub unwind: super::top::UnwindJson,
    pub by: &'static str,
    pub attribution: &'static str,
    /// With `--by category`: one entry per category, by self samples.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<CategoryJson>,
    /// With `--by pass`: one entry per pass, by self samples.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<PassJson>,
    /// With `--by pass`: compiler-process samples with a pass on their
    /// stack, the base of `inclusive_percent_of_pass_manager`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_pass_manager_samples: Option<u64>,
    /// With `--by thread`: how busy the threads were over time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization: Option<super::timeline_json::UtilizationJson>,
    /// When the recording has a page-fault event: memory by category and pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<super::memory::MemoryJson>,
    /// With any other `--by` (and the places outside passes with `--by
    /// pass`): one entry per row.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<RowJson>,
}

#[derive(Debug, Serialize)]
pub(crate) struct PassJson {
    pub name: String,
    pub self_samples: u64,
    pub self_percent: f64,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    /// Inclusive samples as a share of the samples inside the pass manager.
    pub inclusive_percent_of_pass_manager: f64,
    /// The pass's self samples split by category.
    pub categories: Vec<PassCategoryJson>,
}

#[derive(Debug, Serialize)]
pub(crate) struct PassCategoryJson {
    pub id: String,
    pub self_samples: u64,
    pub self_percent: f64,
}

#[derive(Debug, Serialize)]
pub(crate) struct CategoryJson {
    pub id: String,
    pub name: String,
    pub color: String,
    pub description: String,
    pub self_samples: u64,
    pub self_percent: f64,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    pub top_symbols: Vec<SymbolJson>,
}

#[derive(Debug, Serialize)]
pub(crate) struct SymbolJson {
    pub symbol: String,
    pub self_samples: u64,
}

#[derive(Debug, Serialize)]
pub(crate) struct RowJson {
    pub key: String,
    /// With `--by thread|process`: the pass most self samples were in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_pass: Option<String>,
    pub self_samples: u64,
    pub self_percent: f64,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    pub top: Vec<DetailJson>,
}

#[derive(Debug, Serialize)]
pub(crate) struct DetailJson {
    pub name: String,
    pub self_samples: u64,
}

fn grouping_name(grouping: Grouping) -> &'static str {
    match grouping {
        Grouping::Category => "category",
        Grouping::Symbol => "symbol",
        Grouping::Dso => "dso",
        Grouping::Thread => "thread",
        Grouping::Process => "process",
        Grouping::Pass => "pass",
    }
}

/// `name` without its parameter list and return type (as perf prints
/// names), cut to `width` characters with `…` when longer.
fn shorten(name: &str, width: usize) -> String {
    let name = without_signature(name);
    if name.chars().count() <= width {
        return name.to_owned();
    }
    let mut short: String = name.chars().take(width.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// `ret ns::f<T>(args) const` → `ns::f<T>`; names without a parameter list
/// come back whole.
fn without_signature(name: &str) -> &str {
    let mut depth = 0i32;
    let mut last_open = None;
    let mut last_space = None;
    for (at, c) in name.char_indices() {
        match c {
            '<' | '(' | '[' => {
                if depth == 0 && c == '(' {
                    last_open = Some(at);
                }
                depth += 1;
            }
            '>' | ')' | ']' => depth -= 1,
            ' ' if depth == 0 => last_space = Some(at),
            _ => {}
        }
    }
    let Some(open) = last_open.filter(|&open| open > 0 && name.ends_with([')', 't'])) else {
        return name;
    };
    let start = last_space
        .filter(|&space| space < open)
        .map_or(0, |space| space + 1);
    &name[start..open]
}

#[cfg(test)]
mod tests {
    use super::without_signature;

    #[test]
    fn signatures_and_return_types_are_dropped() {
        let cases = [
            (
                "llvm::APInt::tcCompare(unsigned long const*, unsigned long const*, unsigned int)",
                "llvm::APInt::tcCompare",
            ),
            (
                "mlir::Token::getHexStringValue[abi:cxx11]() const",
                "mlir::Token::getHexStringValue[abi:cxx11]",
            ),
            (
                "(anonymous namespace)::TensorLiteralParser::parseElement()",
                "(anonymous namespace)::TensorLiteralParser::parseElement",
            ),
            (
                "bool llvm::function_ref<bool (mlir::RegisteredOperationName)>::callback_fn<F>(long, mlir::RegisteredOperationName)",
                "llvm::function_ref<bool (mlir::RegisteredOperationName)>::callback_fn<F>",
            ),
            ("malloc", "malloc"),
            ("foo::operator()(int) const", "foo::operator()"),
        ];
        for (name, short) in cases {
            assert_eq!(without_signature(name), short, "{name}");
        }
    }
}
