//! `--format`: one type for every command's output formats ([`Format`]);
//! each command's `--format` accepts the ones it lists ([`Formats`]), and
//! help, man pages and completions show those alone.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use crate::report::table::TextFormat;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Table,
    Markdown,
    Csv,
    Json,
    Html,
    Svg,
    Pprof,
    Firefox,
    Speedscope,
    ChromeTrace,
    Folded,
}

impl Format {
    /// Its name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Markdown => "markdown",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Html => "html",
            Format::Svg => "svg",
            Format::Pprof => "pprof",
            Format::Firefox => "firefox",
            Format::Speedscope => "speedscope",
            Format::ChromeTrace => "chrome-trace",
            Format::Folded => "folded",
        }
    }

    /// What it is, for the formats whose name does not say.
    fn help(self) -> Option<&'static str> {
        match self {
            Format::Html => Some(
                "One self-contained page: the run's facts, the category and pass tables, the \
                 flamegraphs and the timeline",
            ),
            Format::Pprof => Some(
                "Gzipped profile.proto, labelled by category, pass, thread and process (go tool \
                 pprof, Pyroscope)",
            ),
            Format::Firefox => {
                Some("The Firefox Profiler's processed format (profiler.firefox.com)")
            }
            Format::Speedscope => {
                Some("speedscope's JSON format (speedscope.app), one profile per thread")
            }
            Format::ChromeTrace => {
                Some("Trace Event JSON of the pass spans (Perfetto, chrome://tracing)")
            }
            Format::Folded => {
                Some("Folded stacks, as `collapse` writes them (inferno, FlameGraph)")
            }
            Format::Table | Format::Markdown | Format::Csv | Format::Json | Format::Svg => None,
        }
    }

    /// The text format of a table; `None` for every other format.
    pub(crate) fn text(self) -> Option<TextFormat> {
        match self {
            Format::Table => Some(TextFormat::Table),
            Format::Markdown => Some(TextFormat::Markdown),
            Format::Csv => Some(TextFormat::Csv),
            Format::Json
            | Format::Html
            | Format::Svg
            | Format::Pprof
            | Format::Firefox
            | Format::Speedscope
            | Format::ChromeTrace
            | Format::Folded => None,
        }
    }

    fn possible_value(self) -> PossibleValue {
        let value = PossibleValue::new(self.name());
        match self.help() {
            Some(help) => value.help(help),
            None => value,
        }
    }
}

/// The formats of a command that writes a table or its JSON (`top`,
/// `history check`). Every match over it names both, so a format added to
/// [`Format`] is a compile error in [`TableOrJson::of`], never written
/// silently as a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TableOrJson {
    Table,
    Json,
}

impl TableOrJson {
    /// `format` as a table or JSON, or why it is neither; for `--format`'s
    /// parser: `Formats(&[Format::Table, Format::Json]).try_map(TableOrJson::of)`.
    pub(crate) fn of(format: Format) -> Result<TableOrJson, String> {
        match format {
            Format::Table => Ok(TableOrJson::Table),
            Format::Json => Ok(TableOrJson::Json),
            Format::Markdown
            | Format::Csv
            | Format::Html
            | Format::Svg
            | Format::Pprof
            | Format::Firefox
            | Format::Speedscope
            | Format::ChromeTrace
            | Format::Folded => Err(format!("{} is neither a table nor JSON", format.name())),
        }
    }
}

/// The formats of one command's `--format`: clap's value parser for it,
/// which takes their names and no other.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Formats(pub &'static [Format]);

impl TypedValueParser for Formats {
    type Value = Format;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Format, clap::Error> {
        let name = PossibleValuesParser::new(self.0.iter().map(|format| format.name()))
            .parse_ref(command, arg, value)?;
        // The parser above took one of the names listed.
        Ok(self
            .0
            .iter()
            .copied()
            .find(|format| format.name() == name)
            .unwrap_or(Format::Table))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|format| format.possible_value()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format.
    const ALL: [Format; 11] = [
        Format::Table,
        Format::Markdown,
        Format::Csv,
        Format::Json,
        Format::Html,
        Format::Svg,
        Format::Pprof,
        Format::Firefox,
        Format::Speedscope,
        Format::ChromeTrace,
        Format::Folded,
    ];

    #[test]
    fn every_format_has_its_own_name() {
        let mut names: Vec<&str> = ALL.iter().map(|format| format.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
    }

    #[test]
    fn a_command_takes_only_the_formats_it_lists() {
        let parser = Formats(&[Format::Table, Format::Json]);
        let command = clap::Command::new("top");
        let parse = |name: &str| parser.parse_ref(&command, None, OsStr::new(name));
        assert_eq!(parse("json").ok(), Some(Format::Json));
        assert_eq!(parse("table").ok(), Some(Format::Table));
        for refused in ["pprof", "markdown", "Json", ""] {
            assert!(parse(refused).is_err(), "{refused}");
        }
        let listed: Vec<String> = parser
            .possible_values()
            .map(|values| values.map(|value| value.get_name().to_owned()).collect())
            .unwrap_or_default();
        assert_eq!(listed, ["table", "json"]);
    }

    #[test]
    fn a_table_or_json_is_only_a_table_or_json_and_keeps_the_names_listed() {
        let taken: Vec<Format> = ALL
            .into_iter()
            .filter(|format| TableOrJson::of(*format).is_ok())
            .collect();
        assert_eq!(taken, [Format::Table, Format::Json]);
        assert_eq!(TableOrJson::of(Format::Json), Ok(TableOrJson::Json));
        let parser = Formats(&[Format::Table, Format::Json]).try_map(TableOrJson::of);
        let command = clap::Command::new("top");
        let parse = |name: &str| parser.parse_ref(&command, None, OsStr::new(name));
        assert_eq!(parse("table").ok(), Some(TableOrJson::Table));
        assert!(parse("csv").is_err());
        let listed: Vec<String> = parser
            .possible_values()
            .map(|values| values.map(|value| value.get_name().to_owned()).collect())
            .unwrap_or_default();
        assert_eq!(listed, ["table", "json"]);
    }
}
