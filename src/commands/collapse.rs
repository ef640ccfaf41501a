//! `compile-perf collapse`: the recording's stacks as folded lines.

use super::{Config, finish, leave_to_exit, load_profile, run_facts};
use crate::error::Error;
use crate::output::write_output;
use crate::report::collapse::write_folded;

/// Writes the folded stacks of the samples the filter keeps.
pub(crate) fn run(config: &Config) -> Result<u8, Error> {
    let profile = load_profile(config)?;
    write_output(&config.output, |out| {
        write_folded(&profile, &config.filter, out)
    })?;
    let code = finish(config, &profile, run_facts(config).as_ref());
    leave_to_exit(profile);
    code
}
