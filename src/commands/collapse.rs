//! `compile-perf collapse`: the recording's stacks as folded lines.

use std::path::PathBuf;

use clap::Args;

use super::args::{InputArgs, heading};
use super::{Config, Reading, Run, finish, leave_to_exit, load_profile};
use crate::error::Error;
use crate::output::write_output;
use crate::profile::ReadOptions;
use crate::report::collapse::write_folded;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str = "  Folded stacks for inferno-flamegraph or flamegraph.pl:
    compile-perf collapse perf.data -o out.folded
  From a pipe-mode recording on stdin:
    compile-perf collapse - -o out.folded";

#[derive(Debug, Args)]
pub(crate) struct CollapseArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    output: Option<PathBuf>,
}

impl CollapseArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.input.reading.quiet;
        Config::new(
            Collapse(self.input.into_reading()),
            self.output,
            quiet,
            None,
        )
    }
}

/// `collapse` of a recording.
#[derive(Debug)]
struct Collapse(Reading);

impl Run for Collapse {
    /// Writes the folded stacks of the samples the filter keeps.
    fn run(&self, config: &Config) -> Result<u8, Error> {
        let reading = &self.0;
        let (profile, run_dir) = load_profile(reading)?;
        write_output(&config.output, |out| {
            write_folded(&profile, &reading.filter, out)
        })?;
        let code = finish(config, &profile, run_dir.run.as_ref());
        leave_to_exit(profile);
        code
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.0.read)
    }
}
