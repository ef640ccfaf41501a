//! `compile-perf top`: the functions with the most samples, self and
//! inclusive.

use clap::ValueEnum;

use super::{Config, Reading, finish, load_profile};
use crate::error::Error;
use crate::output::write_output;
use crate::report::top::{top_report, write_json, write_table};

/// What `top` was asked for.
#[derive(Clone, Debug)]
pub(crate) struct TopOptions {
    /// How many functions. Default is [`crate::defaults::TOP_LIMIT`].
    pub(crate) limit: usize,
    pub(crate) format: TopFormat,
}

/// Formats of `top`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum TopFormat {
    #[default]
    Table,
    Json,
}

/// Lists the top functions of the samples the filter keeps.
pub(crate) fn run(config: &Config, reading: &Reading, options: &TopOptions) -> Result<u8, Error> {
    let (profile, run_dir) = load_profile(reading)?;
    let top = top_report(&profile, options.limit, &reading.filter);
    write_output(&config.output, |out| match options.format {
        TopFormat::Json => write_json(&top, out),
        TopFormat::Table => write_table(&top, out),
    })?;
    finish(config, &profile, run_dir.run.as_ref())
}
