//! `compile-perf top`: the functions with the most samples, self and
//! inclusive.

use std::path::PathBuf;

use clap::Args;
use clap::builder::TypedValueParser;

use super::args::{InputArgs, heading};
use super::format::{Format, Formats, TableOrJson};
use super::{Config, Reading, Run, finish, load_profile};
use crate::defaults;
use crate::error::Error;
use crate::output::write_output;
use crate::profile::ReadOptions;
use crate::report::top::{top_report, write_json, write_table};

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  The 30 functions with the most samples, in the native compiler:
    compile-perf top perf.data --compiler
  The top 50, as JSON:
    compile-perf top perf.data -n 50 --format json";

#[derive(Debug, Args)]
pub(crate) struct TopArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Show this many functions.
    #[arg(long, short = 'n', default_value_t = defaults::TOP_LIMIT)]
    limit: usize,
    /// Output format.
    #[arg(long, value_parser = Formats(&[Format::Table, Format::Json]).try_map(TableOrJson::of),
          default_value = "table", help_heading = heading::OUTPUT)]
    format: TableOrJson,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    output: Option<PathBuf>,
}

impl TopArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.input.reading.quiet;
        let top = Top {
            reading: self.input.into_reading(),
            limit: self.limit,
            format: self.format,
        };
        Config::new(top, self.output, quiet, None)
    }
}

/// What `top` was asked for.
#[derive(Debug)]
struct Top {
    reading: Reading,
    /// How many functions. Default is [`crate::defaults::TOP_LIMIT`].
    limit: usize,
    format: TableOrJson,
}

impl Run for Top {
    /// Lists the top functions of the samples the filter keeps.
    fn run(&self, config: &Config) -> Result<u8, Error> {
        let (profile, run_dir) = load_profile(&self.reading)?;
        let top = top_report(&profile, self.limit, &self.reading.filter);
        write_output(&config.output, |out| match self.format {
            TableOrJson::Json => write_json(&top, out),
            TableOrJson::Table => write_table(&top, out),
        })?;
        finish(config, &profile, run_dir.run.as_ref())
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.reading.read)
    }
}
