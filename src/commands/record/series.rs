//! `record --repeat N`: the command recorded N times into `DIR/run-1` …
//! `DIR/run-N`, each run reported (and kept in the history store with
//! `--history`, by `report_recording`) as it finishes, then the report of the runs together in
//! `DIR/report.txt`, `DIR/report.json` and on stdout, and `DIR/run.json`
//! listing the runs.

use super::super::keep::Keeper;
use super::super::series::{SeriesReading, read_series};
use super::super::{Config, own_recording, stdout_colors};
use super::{attribution_of, failed, report_recording};
use crate::attribute::Grouping;
use crate::error::Error;
use crate::output::{Output, write_output};
use crate::profile::SampleFilter;
use crate::recorder::{RecordOptions, prepare_series, record, write_run_json};
use crate::report::repeat;
use crate::report::table::{Colors, TextFormat};
use crate::run_dir::{RunStatus, SeriesJson};
use category_rules::RuleTable;

/// Records `options.command` `times` times and reports the runs together.
/// The exit code is the first failing compile's (or 130 after Ctrl-C),
/// which ends the series, else the worst warning of the runs.
pub(super) fn run_series(
    config: &Config,
    options: &RecordOptions,
    times: u32,
    rules: &RuleTable,
    keeper: &mut Keeper,
) -> Result<u8, Error> {
    let dir = &options.output_dir;
    prepare_series(options)?;
    let mut series = SeriesJson {
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
    write_run_json(dir, &series)?;
    let (mut code, mut any_failed) = (0, false);
    for index in 1..=times {
        let name = format!("run-{index}");
        eprintln!("compile-perf: run {index} of {times}");
        let recorded = record(&RecordOptions {
            output_dir: dir.join(&name),
            force: false,
            repeat: None,
            status_label: Some(format!("run {index}/{times}")),
            ..options.clone()
        })?;
        let failed = failed(&recorded);
        let run_code = report_recording(
            config,
            recorded,
            rules,
            true,
            options.alloc_min_bytes.is_some(),
            keeper,
        )?;
        series.runs.push(name.clone());
        if failed {
            series.notes.push(format!(
                "{name} failed (exit {run_code}): the series stopped there"
            ));
            (code, any_failed) = (run_code, true);
            break;
        }
        code = code.max(run_code);
        write_run_json(dir, &series)?;
    }
    series.status = RunStatus::Recorded;
    write_run_json(dir, &series)?;

    // The runs are read again for the report of the set (their caches are
    // warm): the same report as `report DIR` gives.
    let alloc = options.alloc_min_bytes.is_some();
    let read = own_recording(crate::progress::shown(config.quiet), alloc);
    let reading = SeriesReading {
        read: &read,
        filter: &SampleFilter::default(),
        grouping: Grouping::Category,
        attribution: attribution_of(alloc),
        rules,
    };
    let (report, _) = read_series(config, dir, &series, &reading, false)?;
    let by = Grouping::Category.name();
    let file = |name: &str| Output::File(dir.join(name));
    write_output(&file("report.txt"), |out| {
        repeat::write_text(&report, by, TextFormat::Table, Colors::Plain, out)
    })?;
    write_output(&file("report.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, &repeat::to_json(&report, by))?;
        writeln!(out)
    })?;
    series
        .outputs
        .extend(["report.txt".to_owned(), "report.json".to_owned()]);
    write_output(&Output::Stdout, |out| {
        repeat::write_text(&report, by, TextFormat::Table, stdout_colors(), out)
    })?;
    series.status = RunStatus::Finished;
    series.finished = true;
    write_run_json(dir, &series)?;
    let recorded = series.runs.len();
    eprintln!(
        "compile-perf: {recorded} run{} in {}",
        if recorded == 1 { " is" } else { "s are" },
        dir.display()
    );
    Ok(keeper.exit_code(code, any_failed))
}
