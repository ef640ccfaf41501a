//! `compile-perf record --repeat N`: the same compile recorded N times into
//! `DIR/run-1` … `DIR/run-N` (each a complete run directory), then the
//! report of the runs together, with the spread of each category's share
//! from run to run, in `DIR/report.txt` and `DIR/report.json` and on stdout.
//! `DIR/run.json` lists the runs, so that `--force` knows DIR as a run
//! directory and `diff` reads it as one side.

use serde::Serialize;

use crate::categorize::RuleTable;
use crate::cli::Config;
use crate::compare::aggregate::aggregate;
use crate::error::Error;
use crate::output::{Output, write_output};
use crate::record::{self, RecordError, RecordOptions, RunStatus};
use crate::report::table::TextFormat;

/// `DIR/run.json` of repeated runs.
#[derive(Debug, Serialize)]
struct RepeatManifest {
    status: RunStatus,
    /// True once every run and the report of them all are written.
    finished: bool,
    command: Vec<String>,
    /// How many runs were asked for.
    repeat: u32,
    /// The run directories recorded so far.
    runs: Vec<String>,
    outputs: Vec<String>,
    notes: Vec<String>,
}

impl RepeatManifest {
    fn save(&self, options: &RecordOptions) -> Result<(), Error> {
        let dir = &options.output_dir;
        let text = serde_json::to_vec_pretty(self).expect("run.json serializes");
        crate::output::write_file(&dir.join("run.json"), |out| out.write_all(&text)).map_err(
            |source| {
                Error::Record(RecordError::OutputNotWritable {
                    dir: dir.clone(),
                    source,
                })
            },
        )
    }
}

/// Records `options.command` `times` times and reports the runs together.
/// The exit code is the first failing compile's (or 130 after Ctrl-C),
/// which ends the series, else the worst warning of the runs.
pub(crate) fn run(
    config: &Config,
    options: &RecordOptions,
    times: u32,
    rules: &RuleTable,
) -> Result<u8, Error> {
    record::preflight(options)?;
    record::prepare_dir(&options.output_dir, options.force)?;
    let mut manifest = RepeatManifest {
        status: RunStatus::Recording,
        finished: false,
        command: options
            .command
            .iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect(),
        repeat: times,
        runs: Vec::new(),
        outputs: vec!["run.json".to_owned()],
        notes: Vec::new(),
    };
    manifest.save(options)?;
    let mut runs = Vec::new();
    let mut code = 0;
    for index in 1..=times {
        let name = format!("run-{index}");
        eprintln!("compile-perf: run {index} of {times}");
        let recorded = record::record(&RecordOptions {
            output_dir: options.output_dir.join(&name),
            force: false,
            repeat: None,
            ..options.clone()
        })?;
        let failed = recorded.run.interrupted
            || recorded.run.exit.is_some_and(|exit| exit.shell_code() != 0);
        let run_code = crate::report_recording(config, recorded, rules, Some(&mut runs))?;
        manifest.runs.push(name.clone());
        if failed {
            manifest.notes.push(format!(
                "{name} failed (exit {run_code}): the series stopped there"
            ));
            code = run_code;
            break;
        }
        code = code.max(run_code);
        manifest.save(options)?;
    }
    manifest.status = RunStatus::Recorded;
    manifest.save(options)?;

    let report = aggregate(manifest.command.join(" "), &runs);
    let file = |name: &str| Output::File(options.output_dir.join(name));
    write_output(&file("report.txt"), |out| {
        report.write_text(TextFormat::Table, false, out)
    })?;
    write_output(&file("report.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)
    })?;
    manifest
        .outputs
        .extend(["report.txt".to_owned(), "report.json".to_owned()]);
    write_output(&Output::Stdout, |out| {
        report.write_text(TextFormat::Table, crate::stdout_wants_color(), out)
    })?;
    manifest.status = RunStatus::Finished;
    manifest.finished = true;
    manifest.save(options)?;
    let runs = manifest.runs.len();
    eprintln!(
        "compile-perf: {runs} run{} in {}",
        if runs == 1 { " is" } else { "s are" },
        options.output_dir.display()
    );
    Ok(code)
}
