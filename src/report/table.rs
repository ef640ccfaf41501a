//! One table algorithm for every text export: aligned text for terminals
//! (with colour swatches when wanted), Markdown and CSV.

use std::io::Write;

/// Whether a table's cells carry their colours (ANSI escapes: swatches,
/// changes) or are plain text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Colors {
    Plain,
    Ansi,
}

/// Text formats of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextFormat {
    Table,
    Markdown,
    Csv,
}

/// A column: its header and whether numbers in it align right.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub header: &'static str,
    pub right: bool,
}

impl Column {
    pub(crate) fn left(header: &'static str) -> Column {
        Column {
            header,
            right: false,
        }
    }

    pub(crate) fn right(header: &'static str) -> Column {
        Column {
            header,
            right: true,
        }
    }
}

/// A cell: its text and, for the first column, an optional `#rrggbb` swatch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cell {
    pub text: String,
    pub color: Option<String>,
    /// The text's colour on a terminal, if any.
    pub ink: Option<Ink>,
}

/// Text colours of the terminal table: growth red, shrinkage blue, as
/// differential flamegraphs colour them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ink {
    Red,
    Blue,
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell {
            text,
            ..Cell::default()
        }
    }
}

/// Rows under columns.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

/// Writes `table` in `format`. `colors` adds 24-bit ANSI swatches (terminal
/// table only).
pub(crate) fn write_table(
    table: &Table,
    format: TextFormat,
    colors: Colors,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        TextFormat::Table => write_aligned(table, colors, out),
        TextFormat::Markdown => write_markdown(table, out),
        TextFormat::Csv => write_csv(table, out),
    }
}

fn width(text: &str) -> usize {
    text.chars().count()
}

fn write_aligned(table: &Table, colors: Colors, out: &mut dyn Write) -> std::io::Result<()> {
    let swatch = |cell: &Cell| -> usize { usize::from(cell.color.is_some()) * 2 };
    let widths: Vec<usize> = table
        .columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            table
                .rows
                .iter()
                .map(|row| width(&row[index].text) + swatch(&row[index]))
                .chain([width(column.header)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let last = table.columns.len() - 1;
    let mut line = String::new();
    for (index, column) in table.columns.iter().enumerate() {
        pad(
            &mut line,
            column.header,
            widths[index],
            column.right,
            index == last,
        );
    }
    writeln!(out, "{}", line.trim_end())?;
    for row in &table.rows {
        line.clear();
        for (index, (column, cell)) in table.columns.iter().zip(row).enumerate() {
            let mut text = String::new();
            if let Some(color) = &cell.color {
                text.push_str(&if colors == Colors::Ansi {
                    ansi_swatch(color)
                } else {
                    "■".to_owned()
                });
                text.push(' ');
            }
            match cell.ink.filter(|_| colors == Colors::Ansi) {
                Some(ink) => text.push_str(&format!(
                    "\x1b[{}m{}\x1b[0m",
                    match ink {
                        Ink::Red => 31,
                        Ink::Blue => 34,
                    },
                    cell.text
                )),
                None => text.push_str(&cell.text),
            }
            let shown = width(&cell.text) + swatch(cell);
            let fill = widths[index].saturating_sub(shown);
            if column.right {
                line.push_str(&" ".repeat(fill));
                line.push_str(&text);
            } else {
                line.push_str(&text);
                if index != last {
                    line.push_str(&" ".repeat(fill));
                }
            }
            if index != last {
                line.push_str("  ");
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

fn pad(line: &mut String, text: &str, width_wanted: usize, right: bool, last: bool) {
    let fill = width_wanted.saturating_sub(width(text));
    if right {
        line.push_str(&" ".repeat(fill));
        line.push_str(text);
    } else {
        line.push_str(text);
        if !last {
            line.push_str(&" ".repeat(fill));
        }
    }
    if !last {
        line.push_str("  ");
    }
}

/// A coloured square in the terminal for `#rrggbb`.
fn ansi_swatch(color: &str) -> String {
    let channel = |at: usize| u8::from_str_radix(&color[at..at + 2], 16).unwrap_or(0);
    format!(
        "\x1b[38;2;{};{};{}m■\x1b[0m",
        channel(1),
        channel(3),
        channel(5)
    )
}

fn write_markdown(table: &Table, out: &mut dyn Write) -> std::io::Result<()> {
    // Characters Markdown (and GitHub's HTML) would read as syntax.
    let escape = |text: &str| {
        text.replace('\\', "\\\\")
            .replace('|', "\\|")
            .replace('*', "\\*")
            .replace('_', "\\_")
            .replace('`', "\\`")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let headers: Vec<&str> = table.columns.iter().map(|column| column.header).collect();
    writeln!(out, "| {} |", headers.join(" | "))?;
    let rule: Vec<&str> = table
        .columns
        .iter()
        .map(|column| if column.right { "---:" } else { "---" })
        .collect();
    writeln!(out, "|{}|", rule.join("|"))?;
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(|cell| escape(&cell.text)).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}

fn write_csv(table: &Table, out: &mut dyn Write) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(table.columns.iter().map(|column| column.header))?;
    for row in &table.rows {
        writer.write_record(row.iter().map(|cell| cell.text.as_str()))?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        Table {
            columns: vec![Column::left("category"), Column::right("self%")],
            rows: vec![
                vec![
                    Cell {
                        text: "Lexer".to_owned(),
                        color: Some("#1f77b4".to_owned()),
                        ink: None,
                    },
                    Cell {
                        text: "12.5%".to_owned(),
                        color: None,
                        ink: Some(Ink::Red),
                    },
                ],
                vec!["a|b, \"c\"".to_owned().into(), "1.0%".to_owned().into()],
                vec!["f<int>_*".to_owned().into(), "0.5%".to_owned().into()],
            ],
        }
    }

    fn render(format: TextFormat, colors: Colors) -> String {
        let mut out = Vec::new();
        write_table(&sample(), format, colors, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_format_renders_the_same_rows() {
        assert_eq!(
            render(TextFormat::Table, Colors::Plain),
            "category  self%\n■ Lexer   12.5%\na|b, \"c\"   1.0%\nf<int>_*   0.5%\n"
        );
        let coloured = render(TextFormat::Table, Colors::Ansi);
        assert!(coloured.contains("\x1b[38;2;31;119;180m■\x1b[0m Lexer"));
        assert!(coloured.contains("\x1b[31m12.5%\x1b[0m\n"), "{coloured:?}");
        assert_eq!(
            render(TextFormat::Markdown, Colors::Plain),
            "| category | self% |\n|---|---:|\n| Lexer | 12.5% |\n| a\\|b, \"c\" | 1.0% |\n| f&lt;int&gt;\\_\\* | 0.5% |\n"
        );
        assert_eq!(
            render(TextFormat::Csv, Colors::Plain),
            "category,self%\nLexer,12.5%\n\"a|b, \"\"c\"\"\",1.0%\nf<int>_*,0.5%\n"
        );
    }
}
