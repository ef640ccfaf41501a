//! `compile-perf record`: records the command under perf (see
//! [`crate::recorder`]), then reads the recording and fills the run
//! directory with the report (text and JSON) and the flamegraphs (all
//! processes, the compiler process, inverted), prints the category table,
//! and marks `run.json` finished.

use std::path::PathBuf;

use super::draw::{FlamegraphRequest, flamegraph_picture, save_flamegraph};
use super::{Config, finish, load_rules, memory_section, stdout_wants_color, write_report};
use crate::attribute::Classes;
use crate::defaults;
use crate::error::Error;
use crate::output::Output;
use crate::perfdata::Input;
use crate::profile::{LoadOptions, SampleFilter};
use crate::recorder::{RecordOptions, Recorded, RunStatus, record};
use crate::report::breakdown::{BreakdownOptions, breakdown};
use crate::report::table::TextFormat;
use crate::rules::RuleTable;

/// Records, then reports. The exit code is the command's when it failed.
pub(crate) fn run(config: &Config, options: &RecordOptions) -> Result<u8, Error> {
    // Rules compile before the compile is recorded: a bad file fails fast.
    let rules = load_rules(config.rules_file.as_deref())?;
    let recorded = record(options)?;
    report_recording(config, recorded, &rules)
}

/// Reads the recording and makes the run directory's reports.
fn report_recording(
    config: &Config,
    mut recorded: Recorded,
    rules: &RuleTable,
) -> Result<u8, Error> {
    let load = LoadOptions {
        input: Input::Path(recorded.perf_data.clone()),
        event: None,
        symfs: Vec::new(),
        debug_roots: vec![PathBuf::from(defaults::DEBUG_ROOT)],
        salvage: false,
    };
    let profile = match crate::profile::load(&load) {
        Ok(profile) => profile,
        Err(error) => {
            recorded
                .run
                .notes
                .push(format!("the recording cannot be read: {error}"));
            recorded.save()?;
            return Err(error);
        }
    };
    let classes = Classes::new(&profile, rules);
    let breakdown = breakdown(&profile, &classes, BreakdownOptions::default());
    let dir = recorded.dir.clone();
    let file = |name: &str| Output::File(dir.join(name));
    let memory = memory_section(&load, &profile, rules, &SampleFilter::default())?;
    let table = Some(TextFormat::Table);
    write_report(
        &file("report.txt"),
        &breakdown,
        memory.clone(),
        table,
        false,
    )?;
    write_report(
        &file("report.json"),
        &breakdown,
        memory.clone(),
        None,
        false,
    )?;
    let mut outputs = vec!["report.txt", "report.json"];
    let drawings = [
        ("flamegraph.svg", false, false, defaults::MIN_WIDTH_PERCENT),
        ("compiler.svg", true, false, defaults::MIN_WIDTH_PERCENT),
        (
            "flamegraph-inverted.svg",
            false,
            true,
            defaults::INVERTED_MIN_WIDTH_PERCENT,
        ),
    ];
    for (name, compiler_only, inverted, min_width) in drawings {
        let request = FlamegraphRequest::whole(file(name), inverted, min_width);
        let filter = SampleFilter {
            compiler_only,
            ..SampleFilter::default()
        };
        let drawn = flamegraph_picture(&request, &filter, &profile, &classes, None)
            .and_then(|picture| save_flamegraph(&request, picture));
        match drawn {
            Ok(()) => outputs.push(name),
            Err(Error::NothingToDraw { reason }) => recorded
                .run
                .notes
                .push(format!("{name} not drawn: {reason}")),
            Err(error) => return Err(error),
        }
    }
    write_report(
        &Output::Stdout,
        &breakdown,
        memory,
        table,
        stdout_wants_color(),
    )?;
    recorded
        .run
        .outputs
        .extend(outputs.iter().map(|name| (*name).to_owned()));
    recorded.run.status = RunStatus::Finished;
    recorded.run.finished = true;
    recorded.save()?;
    eprintln!("compile-perf: the run is in {}", dir.display());

    let summary_code = finish(config, &profile)?;
    let command_code = recorded.run.exit.map_or(0, |exit| exit.shell_code());
    Ok(match (recorded.run.interrupted, command_code) {
        (true, _) => 130,
        (false, 0) => summary_code,
        (false, code) => u8::try_from(code).unwrap_or(1),
    })
}
