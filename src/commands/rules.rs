//! `compile-perf rules`: the category rule table in effect.

use clap::Args;

use super::args::{RulesFileArg, heading};
use super::format::{Format, Formats};
use super::{Config, Run, load_rules};
use crate::error::Error;
use crate::output::write_output;
use crate::report::rules::write_rules;
use crate::report::table::TextFormat;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  The built-in category rules, first match wins:
    compile-perf rules
  Extended by a file of your own, as Markdown:
    compile-perf rules --rules my-rules.toml --format markdown";

#[derive(Debug, Args)]
pub(crate) struct RulesArgs {
    #[command(flatten)]
    rules: RulesFileArg,
    /// Output format.
    #[arg(long, value_parser = Formats(&[Format::Table, Format::Markdown]),
          default_value = "table", help_heading = heading::OUTPUT)]
    format: Format,
}

impl RulesArgs {
    pub(crate) fn into_config(self) -> Config {
        let format = self.format.text().unwrap_or(TextFormat::Table);
        Config::new(Rules { format }, None, false, self.rules.file)
    }
}

/// What `rules` was asked for.
#[derive(Debug)]
struct Rules {
    format: TextFormat,
}

impl Run for Rules {
    /// Writes the built-in table, extended by `--rules`.
    fn run(&self, config: &Config) -> Result<u8, Error> {
        let rules = load_rules(config.rules_file.as_deref())?;
        write_output(&config.output, |out| write_rules(&rules, self.format, out))?;
        Ok(0)
    }
}
