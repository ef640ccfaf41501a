//! `compile-perf export`: the samples the filters keep, in another tool's
//! format: pprof, the Firefox Profiler, speedscope, Chrome's trace viewer
//! (the pass spans), or folded stacks as `collapse` writes them.

use clap::ValueEnum;

use super::{Config, Reading, finish, rules_and_profile};
use crate::attribute::Classes;
use crate::error::Error;
use crate::export::pprof::PprofFacts;
use crate::export::{Samples, chrome_trace, firefox, pprof, speedscope};
use crate::output::write_output;
use crate::report::collapse::write_folded;
use crate::run_dir::RunJson;

/// What `export` was asked for.
#[derive(Clone, Debug)]
pub(crate) struct ExportOptions {
    pub(crate) format: ExportFormat,
}

/// The formats of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportFormat {
    /// Gzipped profile.proto, labelled by category, pass, thread and process (go tool pprof, Pyroscope).
    Pprof,
    /// The Firefox Profiler's processed format (profiler.firefox.com).
    Firefox,
    /// speedscope's JSON format (speedscope.app), one profile per thread.
    Speedscope,
    /// Trace Event JSON of the pass spans (Perfetto, chrome://tracing).
    ChromeTrace,
    /// Folded stacks, as `collapse` writes them (inferno, FlameGraph).
    Folded,
}

/// Writes the export.
pub(crate) fn run(
    config: &Config,
    reading: &Reading,
    options: &ExportOptions,
) -> Result<u8, Error> {
    let (rules, profile, run_dir) = rules_and_profile(config, reading)?;
    let filter = &reading.filter;
    let classes = Classes::new(&profile, &rules);
    let samples = Samples::new(&profile, &classes, filter);
    if samples.total == 0 {
        return Err(Error::NothingToDraw {
            reason: "no samples to export (check --pid, --process and --compiler)".to_owned(),
        });
    }
    let start = run_dir.run.as_ref().and_then(RunJson::start_unix_nanos);
    write_output(&config.output, |out| match options.format {
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
