//! The report as text: a header saying what was profiled, the rows as one
//! table (aligned text, Markdown or CSV), and the samples per process.

use std::io::Write;

use super::{Breakdown, TEXT_TOP, attribution_name, grouping_name, scope_words};
use crate::attribute::{Grouping, RowKey, percent};
use crate::report::table::{Cell, Column, Table, TextFormat, write_table};

/// Longest symbol name shown in the text table.
const TEXT_SYMBOL_WIDTH: usize = 70;

impl Breakdown<'_> {
    fn header_lines(&self) -> Vec<String> {
        let profile = self.profile;
        let scope = scope_words(&self.options.filter);
        let mut lines = vec![format!("command: {}", profile.profiled_command())];
        if let Some(run) = &self.run {
            lines.push(format!("run: {}", run.summary_line()));
        }
        lines.extend([
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
                attribution_name(self.options.attribution)
            ),
        ]);
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
        lines.extend(
            self.notices
                .iter()
                .map(|notice| format!("notice: {notice}")),
        );
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
                    Cell {
                        text: label,
                        color,
                        ink: None,
                    },
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
