//! compile-perf: profiles of iree-compile, from perf.data to answers.
//!
//! The pipeline runs one way:
//! [`perfdata`] reads records → [`process`] tracks processes and mappings →
//! [`unwind`] turns samples into frames → [`stacks`] interns them →
//! [`symbolize`] names each unique frame once → [`attribute`] totals →
//! [`report`] writes. [`binary`] finds and maps the ELF files.

pub mod attribute;
pub mod binary;
pub mod cli;
pub mod error;
pub mod perfdata;
pub mod process;
pub mod profile;
pub mod report;
pub mod stacks;
pub mod symbolize;
pub mod unwind;

use std::fs::File;
use std::io::{BufWriter, Write};

use cli::{Action, Config, Output, TopFormat};
use error::Error;
use perfdata::InputEnd;

/// Runs one command; returns the exit code its warnings call for.
pub fn run(config: &Config) -> Result<u8, Error> {
    let profile = profile::load(&config.load)?;
    write_output(config, |out| match config.action {
        Action::Collapse => report::collapse::write_folded(&profile, out),
        Action::Top { limit, format } => {
            let top = report::top::top_report(&profile, limit);
            match format {
                TopFormat::Table => report::top::write_table(&top, out),
                TopFormat::Json => report::top::write_json(&top, out),
            }
        }
    })?;

    let summary = report::summary::summarize(&profile);
    let mut stderr = std::io::stderr().lock();
    let shown = if config.quiet {
        report::summary::Summary {
            lines: Vec::new(),
            ..summary
        }
    } else {
        summary
    };
    // The summary is a diagnostic; failing to print it must not fail the run.
    let _ = report::summary::write_summary(&shown, &mut stderr);

    if let InputEnd::CutShort { bytes, reason } = profile.input_end {
        return Err(Error::StreamCutShort {
            input: profile.input_name.clone(),
            bytes,
            reason,
            samples: profile.counts.samples,
        });
    }
    Ok(shown.exit_code)
}

/// Hands `write` a buffered writer for the configured output, and flushes it.
fn write_output(
    config: &Config,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    let (target, result) = match &config.output {
        Output::Stdout => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            (
                "stdout".to_owned(),
                write(&mut out).and_then(|()| out.flush()),
            )
        }
        Output::File(path) => {
            let target = path.display().to_string();
            let result = File::create(path).and_then(|file| {
                let mut out = BufWriter::new(file);
                write(&mut out)?;
                out.flush()
            });
            (target, result)
        }
    };
    result.map_err(|source| Error::Output { target, source })
}
