//! `compile-perf export`: the samples the filters keep, in another tool's
//! format: pprof, the Firefox Profiler, speedscope, Chrome's trace viewer
//! (the pass spans), or folded stacks as `collapse` writes them.

use std::path::PathBuf;

use clap::Args;
use clap::builder::TypedValueParser;

use super::args::{InputArgs, RulesFileArg, heading};
use super::format::{Format, Formats};
use super::{Config, Reading, Run, finish, page_actions, rules_and_profile};
use crate::attribute::Classes;
use crate::error::Error;
use crate::export::pprof::PprofFacts;
use crate::export::{Samples, chrome_trace, firefox, pprof, speedscope};
use crate::output::write_output;
use crate::profile::ReadOptions;
use crate::report::collapse::write_folded;
use crate::run_dir::RunJson;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  pprof, with categories and passes as labels (go tool pprof):
    compile-perf export perf.data --format pprof -o cpu.pb.gz --compiler
  The pass spans as a Chrome trace (Perfetto):
    compile-perf export runs/example --format chrome-trace -o passes.trace.json";

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The format to write.
    #[arg(long, help_heading = heading::OUTPUT,
          value_parser = Formats(&[Format::Pprof, Format::Firefox, Format::Speedscope,
                                   Format::ChromeTrace, Format::Folded])
                         .try_map(ExportFormat::of))]
    format: ExportFormat,
    /// The file to write (`-` is stdout).
    #[arg(long, short, value_name = "OUT", help_heading = heading::OUTPUT)]
    output: PathBuf,
    #[command(flatten)]
    rules: RulesFileArg,
}

impl ExportArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.input.reading.quiet;
        let export = Export {
            reading: self.input.into_reading(),
            format: self.format,
        };
        Config::new(export, Some(self.output), quiet, self.rules.file)
    }
}

/// The formats `export` writes. Every match over it names each one, so a
/// format added to [`Format`] is a compile error in [`ExportFormat::of`],
/// never written silently as another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExportFormat {
    Pprof,
    Firefox,
    Speedscope,
    ChromeTrace,
    Folded,
}

impl ExportFormat {
    /// `format` as `export` writes it, or why it does not.
    fn of(format: Format) -> Result<ExportFormat, String> {
        match format {
            Format::Pprof => Ok(ExportFormat::Pprof),
            Format::Firefox => Ok(ExportFormat::Firefox),
            Format::Speedscope => Ok(ExportFormat::Speedscope),
            Format::ChromeTrace => Ok(ExportFormat::ChromeTrace),
            Format::Folded => Ok(ExportFormat::Folded),
            Format::Table
            | Format::Markdown
            | Format::Csv
            | Format::Json
            | Format::Html
            | Format::Svg => Err(format!("export does not write {}", format.name())),
        }
    }
}

/// What `export` was asked for.
#[derive(Debug)]
struct Export {
    reading: Reading,
    format: ExportFormat,
}

impl Run for Export {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, &self.reading, self.format)
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.reading.read)
    }
}

/// Writes the export.
fn run(config: &Config, reading: &Reading, format: ExportFormat) -> Result<u8, Error> {
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let filter = &reading.filter;
    let mut classes = Classes::new(&profile, &rules);
    let (actions, actions_notice) = page_actions(&run_dir, &profile, &mut classes);
    if let Some(notice) = actions_notice.filter(|_| !config.quiet) {
        eprintln!("compile-perf: notice: {notice}");
    }
    let samples = Samples::new(&profile, &classes, filter, actions.as_ref());
    if samples.total == 0 {
        return Err(Error::NothingToDraw {
            reason: "no samples to export (check --pid, --process and --compiler)".to_owned(),
        });
    }
    let start = run_dir.run.as_ref().and_then(RunJson::start_unix_nanos);
    write_output(&config.output, |out| match format {
        ExportFormat::Pprof => pprof::write(
            &samples,
            &PprofFacts {
                start_unix_nanos: start,
            },
            out,
        ),
        ExportFormat::Firefox => firefox::write(&samples, start, out),
        ExportFormat::Speedscope => speedscope::write(&samples, out),
        ExportFormat::ChromeTrace => chrome_trace::write(&samples, out),
        ExportFormat::Folded => write_folded(&profile, filter, out),
    })?;
    finish(config, &profile, run_dir.run.as_ref())
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    #[derive(Parser)]
    struct Line {
        #[command(flatten)]
        args: ExportArgs,
    }

    #[test]
    fn each_format_export_offers_parses_into_its_own_variant() {
        let command = Line::command();
        let offered = command
            .get_arguments()
            .find(|arg| arg.get_id() == "format")
            .map(|arg| arg.get_possible_values())
            .unwrap_or_default();
        let parsed: Vec<ExportFormat> = offered
            .iter()
            .map(|value| {
                let line = [
                    "export",
                    "perf.data",
                    "--format",
                    value.get_name(),
                    "-o",
                    "out",
                ];
                Line::try_parse_from(line).map(|line| line.args.format)
            })
            .collect::<Result<_, _>>()
            .unwrap();
        use ExportFormat::*;
        assert_eq!(parsed, [Pprof, Firefox, Speedscope, ChromeTrace, Folded]);
        assert!(
            Line::try_parse_from(["export", "perf.data", "--format", "json", "-o", "out"]).is_err()
        );
    }
}
