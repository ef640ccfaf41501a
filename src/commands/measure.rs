//! `compile-perf measure` (hidden): the wrapper `record` runs the command
//! through; it attaches perf to the command.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;

use super::args::parse_seconds;
use super::{Config, Run};
use crate::error::Error;

#[derive(Debug, Args)]
pub(crate) struct MeasureArgs {
    /// Where to write the result (JSON).
    #[arg(long, value_name = "FILE")]
    into: PathBuf,
    /// Keep MLIR's timing report (the lines from `[` to `]` on the
    /// command's stderr) in FILE instead of passing it through.
    #[arg(long, value_name = "FILE")]
    mlir_timing_into: Option<PathBuf>,
    /// Stop the command after SECS seconds (SIGTERM, then SIGKILL).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    timeout: Option<f64>,
    /// Record the command with `perf ARG…` (`record` and its options, once
    /// each, in order; `-p` and a control channel are added): perf records
    /// the command alone, not this wrapper.
    #[arg(long = "perf-arg", value_name = "ARG", allow_hyphen_values = true)]
    perf_args: Vec<OsString>,
    /// Preload this library into the command (`record --heap`'s heap
    /// sampler), before any `LD_PRELOAD` it has.
    #[arg(long, value_name = "LIBRARY")]
    preload: Option<OsString>,
    /// The heap sampler's rate (mean bytes between samples).
    #[arg(long, value_name = "BYTES", requires = "preload")]
    heap_rate: Option<u64>,
    /// The command to run, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

impl MeasureArgs {
    pub(crate) fn into_config(self) -> Config {
        let measure = MeasureOptions {
            command: self.command,
            into: self.into,
            mlir_timing_into: self.mlir_timing_into,
            timeout: self.timeout.map(std::time::Duration::from_secs_f64),
            perf_args: self.perf_args,
            env: preload_env(self.preload, self.heap_rate),
        };
        Config::new(measure, None, false, None)
    }
}

/// What `measure` runs and where it writes the result.
#[derive(Debug)]
struct MeasureOptions {
    command: Vec<OsString>,
    into: PathBuf,
    /// Where to keep MLIR's timing report, taken out of the stderr.
    mlir_timing_into: Option<PathBuf>,
    /// Stop the command after this long. Default is never.
    timeout: Option<std::time::Duration>,
    /// `perf` and its arguments to record the command with; empty: none.
    perf_args: Vec<OsString>,
    /// Set in the command's environment. Default is nothing.
    env: Vec<(OsString, OsString)>,
}

/// `LD_PRELOAD` with `library` first (the user's own preloads after it),
/// and the heap sampler's rate.
fn preload_env(library: Option<OsString>, rate: Option<u64>) -> Vec<(OsString, OsString)> {
    let Some(library) = library else {
        return Vec::new();
    };
    let mut preload = library;
    if let Some(theirs) = std::env::var_os("LD_PRELOAD").filter(|theirs| !theirs.is_empty()) {
        preload.push(":");
        preload.push(theirs);
    }
    let mut env = vec![(OsString::from("LD_PRELOAD"), preload)];
    if let Some(rate) = rate {
        env.push((crate::heap::RATE_VARIABLE.into(), rate.to_string().into()));
    }
    env
}

impl Run for MeasureOptions {
    /// Runs the command; its exit code is the result.
    fn run(&self, _config: &Config) -> Result<u8, Error> {
        run(self)
    }
}

fn run(options: &MeasureOptions) -> Result<u8, Error> {
    let code = crate::recorder::measure::measure(
        &options.command,
        &options.into,
        options.mlir_timing_into.as_deref(),
        options.timeout,
        &options.perf_args,
        &options.env,
    )
    .map_err(|source| Error::Output {
        target: options.into.display().to_string(),
        source,
    })?;
    Ok(u8::try_from(code).unwrap_or(1))
}
