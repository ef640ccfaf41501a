//! `compile-perf measure` (hidden): the wrapper `record` runs the command
//! through; it attaches perf to the command.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::Error;

/// What `measure` runs and where it writes the result.
#[derive(Clone, Debug)]
pub(crate) struct MeasureOptions {
    pub(crate) command: Vec<OsString>,
    pub(crate) into: PathBuf,
    /// Where to keep MLIR's timing report, taken out of the stderr.
    pub(crate) mlir_timing_into: Option<PathBuf>,
    /// Stop the command after this long. Default is never.
    pub(crate) timeout: Option<std::time::Duration>,
    /// `perf` and its arguments to record the command with; empty: none.
    pub(crate) perf_args: Vec<OsString>,
}

/// Runs the command; its exit code is the result.
pub(crate) fn run(options: &MeasureOptions) -> Result<u8, Error> {
    let code = crate::recorder::measure::measure(
        &options.command,
        &options.into,
        options.mlir_timing_into.as_deref(),
        options.timeout,
        &options.perf_args,
    )
    .map_err(|source| Error::Output {
        target: options.into.display().to_string(),
        source,
    })?;
    Ok(u8::try_from(code).unwrap_or(1))
}
