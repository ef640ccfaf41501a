//! `compile-perf rules`: the category rule table in effect.

use clap::ValueEnum;

use super::{Config, load_rules};
use crate::error::Error;
use crate::output::write_output;
use crate::report::rules::write_rules;
use crate::report::table::TextFormat;

/// What `rules` was asked for.
#[derive(Clone, Debug)]
pub(crate) struct RulesOptions {
    pub(crate) format: RulesFormat,
}

/// Formats of `rules`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum RulesFormat {
    #[default]
    Table,
    Markdown,
}

/// Writes the built-in table, extended by `--rules`.
pub(crate) fn run(config: &Config, options: &RulesOptions) -> Result<u8, Error> {
    let rules = load_rules(config.rules_file.as_deref())?;
    let format = match options.format {
        RulesFormat::Table => TextFormat::Table,
        RulesFormat::Markdown => TextFormat::Markdown,
    };
    write_output(&config.output, |out| write_rules(&rules, format, out))?;
    Ok(0)
}
