//! `compile-perf collapse`: the recording's stacks as folded lines.

use super::{Config, Reading, finish, leave_to_exit, load_profile};
use crate::error::Error;
use crate::output::write_output;
use crate::report::collapse::write_folded;

/// Writes the folded stacks of the samples the filter keeps.
pub(crate) fn run(config: &Config, reading: &Reading) -> Result<u8, Error> {
    let (profile, run_dir) = load_profile(reading)?;
    write_output(&config.output, |out| {
        write_folded(&profile, &reading.filter, out)
    })?;
    let code = finish(config, &profile, run_dir.run.as_ref());
    leave_to_exit(profile);
    code
}
