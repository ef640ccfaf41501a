//! One table algorithm for every text export: aligned text for terminals
//! (with colour swatches when wanted, fitted to the line width), Markdown
//! and CSV.

use std::io::Write;
use std::sync::OnceLock;

/// The widest an aligned table's lines may be, set once by the command for
/// where its output goes ([`set_line_width`]); unset, a table is as wide as
/// its cells.
static LINE_WIDTH: OnceLock<usize> = OnceLock::new();

/// The narrowest the first column, which names the rows, is cut to when a
/// table is too wide.
const NARROWEST_NAME_COLUMN: usize = 40;
/// The narrowest any other text column is cut to.
const NARROWEST_TEXT_COLUMN: usize = 16;

/// Fits every aligned table this process writes into `width` columns
/// (the first call wins): text columns are cut, with `…`, widest first.
pub(crate) fn set_line_width(width: usize) {
    let _ = LINE_WIDTH.set(width);
}

/// The line width set by [`set_line_width`], if any.
pub(crate) fn line_width() -> Option<usize> {
    LINE_WIDTH.get().copied()
}

/// `text` cut to `max` characters, the last one `…` when it was cut.
pub(crate) fn cut_to(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if width(text) <= max {
        return text.into();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…").into()
}

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
#[derive(Clone, Copy, Debug)]
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
        TextFormat::Table => write_aligned(table, colors, line_width(), out),
        TextFormat::Markdown => write_markdown(table, out),
        TextFormat::Csv => write_csv(table, out),
    }
}

fn width(text: &str) -> usize {
    text.chars().count()
}

/// Narrows the widest text (left-aligned) columns of `widths`, one
/// character at a time, until the line fits `max` or every text column is
/// down to its header or its narrowest ([`NARROWEST_NAME_COLUMN`] for the
/// first, [`NARROWEST_TEXT_COLUMN`] for the others). Numbers are never cut:
/// a table of many number columns stays wider than `max`, and
/// [`write_aligned`] splits it.
fn fit_widths(columns: &[Column], widths: &mut [usize], max: usize) {
    while line_of(widths) > max {
        let widest = columns
            .iter()
            .zip(widths.iter())
            .enumerate()
            .filter(|(index, (column, width))| !column.right && **width > narrowest(*index, column))
            .max_by_key(|(index, (_, width))| (**width, *index))
            .map(|(index, _)| index);
        match widest {
            Some(index) => widths[index] -= 1,
            None => return,
        }
    }
}

/// The narrowest the text column `column` at `index` of a table is cut to:
/// its header, or [`NARROWEST_NAME_COLUMN`] for the first (the rows'
/// names), [`NARROWEST_TEXT_COLUMN`] for the others.
fn narrowest(index: usize, column: &Column) -> usize {
    let floor = match index {
        0 => NARROWEST_NAME_COLUMN,
        _ => NARROWEST_TEXT_COLUMN,
    };
    floor.max(width(column.header))
}

/// The room a cell's colour swatch takes (`■ `).
fn swatch(cell: &Cell) -> usize {
    usize::from(cell.color.is_some()) * 2
}

/// The width of a line of columns of `widths`, two spaces apart.
fn line_of(widths: &[usize]) -> usize {
    widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)
}

/// Writes `table` aligned. Wider than `max_width` even with its text
/// columns cut to their narrowest, it is written as several tables one
/// under another, each with the first column (the rows' names) and as many
/// of the next columns as fit, as a terminal wraps a wide listing.
fn write_aligned(
    table: &Table,
    colors: Colors,
    max_width: Option<usize>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let natural: Vec<usize> = table
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
    let all: Vec<usize> = (0..table.columns.len()).collect();
    let Some(max) = max_width else {
        return write_columns(table, &all, &natural, colors, out);
    };
    let mut fitted = natural.clone();
    fit_widths(&table.columns, &mut fitted, max);
    if line_of(&fitted) <= max {
        return write_columns(table, &all, &fitted, colors, out);
    }
    for (part, group) in column_groups(&table.columns, &natural, max)
        .iter()
        .enumerate()
    {
        if part > 0 {
            writeln!(out)?;
        }
        let columns: Vec<Column> = group.iter().map(|&index| table.columns[index]).collect();
        let mut widths: Vec<usize> = group.iter().map(|&index| natural[index]).collect();
        fit_widths(&columns, &mut widths, max);
        write_columns(table, group, &widths, colors, out)?;
    }
    Ok(())
}

/// The columns of a table too wide for `max` split into groups that fit
/// (each with its text columns at their narrowest), every group starting
/// with the first column; a column too wide alone gets a group of its own.
fn column_groups(columns: &[Column], natural: &[usize], max: usize) -> Vec<Vec<usize>> {
    let least = |index: usize| match columns[index].right {
        true => natural[index],
        false => natural[index].min(narrowest(index, &columns[index])),
    };
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group = vec![0];
    for index in 1..columns.len() {
        let widths: Vec<usize> = group.iter().chain([&index]).map(|&i| least(i)).collect();
        if line_of(&widths) > max && group.len() > 1 {
            groups.push(std::mem::replace(&mut group, vec![0]));
        }
        group.push(index);
    }
    groups.push(group);
    groups
}

/// Writes the columns `indices` of `table` (header, then rows) at `widths`
/// (one per index).
fn write_columns(
    table: &Table,
    indices: &[usize],
    widths: &[usize],
    colors: Colors,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let last = indices.len() - 1;
    let mut line = String::new();
    for (at, &index) in indices.iter().enumerate() {
        let column = &table.columns[index];
        pad(
            &mut line,
            column.header,
            widths[at],
            column.right,
            at == last,
        );
    }
    writeln!(out, "{}", line.trim_end())?;
    for row in &table.rows {
        line.clear();
        for (at, &index) in indices.iter().enumerate() {
            let (column, cell) = (&table.columns[index], &row[index]);
            let mut text = String::new();
            let room = widths[at].saturating_sub(swatch(cell));
            let cell_text = cut_to(&cell.text, room);
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
                    cell_text
                )),
                None => text.push_str(&cell_text),
            }
            let shown = width(&cell_text) + swatch(cell);
            let fill = widths[at].saturating_sub(shown);
            if column.right {
                line.push_str(&" ".repeat(fill));
                line.push_str(&text);
            } else {
                line.push_str(&text);
                if at != last {
                    line.push_str(&" ".repeat(fill));
                }
            }
            if at != last {
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
mod tests;
