//! `compile-perf diff BASE NEW`: finds the recordings of each side, reduces
//! each to `report`'s rows, compares the sides against run-to-run noise,
//! writes the table or JSON, draws the differential flamegraphs, and applies
//! the CI gate.

use std::io::Write;
use std::path::{Path, PathBuf};

use hashbrown::HashMap;

use super::{
    ColorChoice, Config, Reading, ReportFormat, finish, load_recording, load_rules,
    unknown_category,
};
use crate::attribute::comparable::SideRuns;
use crate::attribute::diff::{Diff, Limits, Side, diff, failures};
use crate::attribute::rss::compiler_series;
use crate::attribute::run_diff::{Measure, RunMeasures, run_failures};
use crate::attribute::runs::{RunRows, run_rows};
use crate::attribute::{Attribution, Classes, Grouping};
use crate::defaults;
use crate::error::{EXIT_DIFFERENT_INPUTS, EXIT_FAILED_RUN, EXIT_REGRESSION, Error};
use crate::output::{Output, write_output};
use crate::profile::{LoadOptions, Profile};
use crate::render::flamegraph::diff::{DiffStacks, Drawn, FoldedFor, Labels, draw, folded_lines};
use crate::report::breakdown::{attribution_name, grouping_name, scope_words};
use crate::report::diff::{Scope, to_json, write_failures, write_text};
use crate::rss::Resident;
use crate::run_dir::{RunDir, RunFile};
use category_rules::RuleTable;
use perfdata::{Input, RUN_RECORDING, is_perf_directory};

/// Besides `perf.data`, a directory of runs may hold `NAME.perf.data`.
const RECORDING_SUFFIX: &str = ".perf.data";

/// What `diff` compares, and how. The recordings of each side take the
/// place of the input of [`Config::load`], whose other settings they share.
#[derive(Clone, Debug)]
pub(crate) struct DiffOptions {
    pub(crate) base: PathBuf,
    pub(crate) new: PathBuf,
    pub(crate) format: ReportFormat,
    pub(crate) grouping: Grouping,
    pub(crate) attribution: Attribution,
    pub(crate) color: ColorChoice,
    /// The smallest change flagged, in percentage points.
    pub(crate) threshold_pp: f64,
    pub(crate) limits: Limits,
    /// Let the gate judge sides of different inputs or flags.
    pub(crate) allow_different_inputs: bool,
    /// How the differential flamegraphs' stacks are folded (`--by-thread`).
    pub(crate) folded: FoldedFor,
    /// Draw NEW's stacks here, and BASE's beside them.
    pub(crate) flamegraph: Option<PathBuf>,
}

/// Runs `diff`; the exit code is the gate's, or the worst of the runs'
/// summaries.
pub(crate) fn run(config: &Config, reading: &Reading, options: &DiffOptions) -> Result<u8, Error> {
    let rules = load_rules(config.rules_file.as_deref())?;
    let (run_limits, row_limits) = split_limits(&options.limits);
    let limits = if options.grouping == Grouping::Category {
        check_limits(&rules, &row_limits)?
    } else {
        row_limits
    };
    let mut code = 0;
    // Each side's runs, and each run's folded stacks for the flamegraphs.
    let mut read_side = |path: &Path| -> Result<(Side, Vec<HashMap<String, u64>>), Error> {
        let mut runs = Vec::new();
        let mut measures = Vec::new();
        let mut stacks = Vec::new();
        let mut compiled = SideRuns::default();
        for input in recordings(path)? {
            let load = LoadOptions {
                input: Input::Path(input.clone()),
                ..reading.load.clone()
            };
            let run_dir = RunDir::of_recording(&input);
            let profile = load_recording(&load, &run_dir)?;
            let run = run_dir.run.as_ref();
            compiled.add(&input.display().to_string(), run);
            let classes = Classes::new(&profile, &rules);
            let rows = run_rows(
                input,
                &profile,
                &classes,
                options.grouping,
                options.attribution,
                &reading.filter,
            );
            measures.push(run_measures(&rows, &profile, &run_dir));
            runs.push(rows);
            if options.flamegraph.is_some() {
                stacks.push(folded_lines(
                    &profile,
                    &classes,
                    &reading.filter,
                    options.folded,
                ));
            }
            code = code.max(finish(config, &profile, run)?);
        }
        let side = Side {
            name: path.display().to_string(),
            runs,
            measures,
            compiled,
        };
        Ok((side, stacks))
    };
    let (base, base_stacks) = read_side(&options.base)?;
    let (new, new_stacks) = read_side(&options.new)?;
    // Rows too small to change by the smallest limit checked are not tested.
    let floor = limits
        .max_increase
        .iter()
        .map(|(_, limit)| *limit)
        .fold(options.threshold_pp, f64::min);
    let compared = diff(base, new, options.threshold_pp, floor);
    let scope = Scope {
        by: grouping_name(options.grouping),
        attribution: attribution_name(options.attribution),
        processes: scope_words(&reading.filter),
    };
    let colors = options.color.wanted(&config.output);
    write_output(&config.output, |out| match options.format.text() {
        Some(format) => write_text(&compared, &scope, format, colors, out),
        None => {
            serde_json::to_writer_pretty(&mut *out, &to_json(&compared, &scope))?;
            writeln!(out)
        }
    })?;
    if let Some(svg) = &options.flamegraph {
        let stacks = DiffStacks {
            base: &base_stacks,
            new: &new_stacks,
            noise: compared.judged.inclusive_noise,
            threshold_pp: compared.judged.threshold_pp,
        };
        draw_flamegraphs(&compared, &stacks, svg)?;
    }
    if !config.quiet {
        for warning in compared.warnings() {
            eprintln!("compile-perf: warning: {warning}");
        }
    }
    let gated = options.limits.fail_on_regression || !options.limits.max_increase.is_empty();
    if gated {
        if let Some(refusal) = refusal(&compared, options.allow_different_inputs) {
            return Ok(refusal);
        }
    }
    let failed = failures(&compared, &limits);
    let run_failed = run_failures(&compared.run, &run_limits);
    if failed.is_empty() && run_failed.is_empty() {
        return Ok(code);
    }
    // The summary is a diagnostic; the exit code carries the verdict.
    let _ = write_failures(
        &failed,
        &run_failed,
        &compared,
        &mut std::io::stderr().lock(),
    );
    Ok(EXIT_REGRESSION)
}

/// The gate's exit code when it refuses to judge, after saying why on
/// stderr: a failed compile on either side, or sides of different inputs
/// or flags unless they are allowed.
fn refusal(compared: &Diff, allow_different_inputs: bool) -> Option<u8> {
    let failed = compared.failed_runs();
    let (code, reasons, advice) = if !failed.is_empty() {
        (
            EXIT_FAILED_RUN,
            failed,
            "a failed compile has no compile time to judge",
        )
    } else if !compared.mismatches.is_empty() && !allow_different_inputs {
        (
            EXIT_DIFFERENT_INPUTS,
            compared.mismatches.clone(),
            "pass --allow-different-inputs to judge them anyway",
        )
    } else {
        return None;
    };
    let mut stderr = std::io::stderr().lock();
    for reason in reasons {
        let _ = writeln!(stderr, "compile-perf: the gate refuses: {reason}");
    }
    let _ = writeln!(stderr, "compile-perf: {advice}");
    Some(code)
}

/// What a run's `run.json` and `memory.json` say of it, and the CPU
/// seconds of its rows.
fn run_measures(rows: &RunRows, profile: &Profile, run_dir: &RunDir) -> RunMeasures {
    let run = run_dir.run.as_ref();
    let peak_anon_bytes = match &run_dir.rss {
        RunFile::Read(series) => compiler_series(profile, series)
            .and_then(|process| process.peak(Resident::Anonymous))
            .map(|peak| peak.anon_bytes),
        _ => None,
    };
    RunMeasures {
        wall_seconds: run.and_then(|run| run.wall_seconds),
        cpu_seconds: rows.seconds(rows.samples),
        peak_rss_bytes: run.and_then(|run| run.peak_rss_bytes),
        peak_anon_bytes,
        artifacts: run.map_or_else(Vec::new, |run| run.artifacts.clone()),
    }
}

/// The limits on run facts (`--max-increase size|rss|wall=PCT`), and the
/// limits left for the rows.
fn split_limits(limits: &Limits) -> (Vec<(Measure, f64)>, Limits) {
    let mut on_runs = Vec::new();
    let mut on_rows = Vec::new();
    for (key, limit) in &limits.max_increase {
        match Measure::from_gate_key(key) {
            Some(measure) => on_runs.push((measure, *limit)),
            None => on_rows.push((key.clone(), *limit)),
        }
    }
    let rows = Limits {
        max_increase: on_rows,
        ..limits.clone()
    };
    (on_runs, rows)
}

/// With `--by category`, every `--max-increase` must name a category (by
/// id or name); the limits come back keyed by id, as the rows are.
fn check_limits(rules: &RuleTable, limits: &Limits) -> Result<Limits, Error> {
    let max_increase = limits
        .max_increase
        .iter()
        .map(|(key, limit)| {
            let category = rules
                .find(key)
                .ok_or_else(|| unknown_category(rules, key))?;
            Ok((rules.category(category).id.clone(), *limit))
        })
        .collect::<Result<_, Error>>()?;
    Ok(Limits {
        max_increase,
        ..limits.clone()
    })
}

/// The recordings `path` names: the file itself; a run directory's
/// `perf.data`; or every `perf.data` (and `*.perf.data`) below a directory,
/// in natural order (`run-2` before `run-10`).
fn recordings(path: &Path) -> Result<Vec<PathBuf>, Error> {
    let open_error = |source| Error::Open {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(open_error)?;
    // A file, or perf's directory format (`perf record --threads`): one recording.
    if !metadata.is_dir() || is_perf_directory(path) {
        return Ok(vec![path.to_owned()]);
    }
    let own = path.join(RUN_RECORDING);
    if own.is_file() || is_perf_directory(&own) {
        return Ok(vec![own]);
    }
    let mut found = Vec::new();
    collect_recordings(path, &mut found).map_err(open_error)?;
    if found.is_empty() {
        return Err(open_error(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no perf.data in this directory or below it",
        )));
    }
    found.sort_by_cached_key(|path| natural_key(path));
    Ok(found)
}

/// Appends the recordings below `dir`; directories reached through
/// symbolic links are not entered (no loops).
fn collect_recordings(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let named_as_recording = name == RUN_RECORDING || name.ends_with(RECORDING_SUFFIX);
        if entry.file_type()?.is_dir() {
            // perf's directory format (`perf record --threads`) is one recording.
            if named_as_recording && is_perf_directory(&path) {
                found.push(path);
            } else {
                collect_recordings(&path, found)?;
            }
            continue;
        }
        if named_as_recording && path.is_file() {
            found.push(path);
        }
    }
    Ok(())
}

/// A sort key that orders the numbers inside a path by value.
fn natural_key(path: &Path) -> Vec<(String, u64)> {
    let text = path.to_string_lossy();
    let mut key = Vec::new();
    let mut rest = text.as_ref();
    while !rest.is_empty() {
        let digits_at = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (word, tail) = rest.split_at(digits_at);
        let digits_end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, tail) = tail.split_at(digits_end);
        key.push((word.to_owned(), digits.parse().unwrap_or(u64::MAX)));
        rest = tail;
    }
    key
}

/// The last two parts of a path, enough to tell the sides apart in a title.
fn short_path(path: &str) -> String {
    let parts: Vec<&str> = path.trim_end_matches('/').rsplit('/').take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// `OUT.svg` → `OUT-base.svg`: where BASE's stacks are drawn.
fn base_picture_path(path: &Path) -> PathBuf {
    let stem = path.file_stem().map_or_else(
        || "flamegraph".into(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    let name = match path.extension() {
        Some(extension) => format!("{stem}-base.{}", extension.to_string_lossy()),
        None => format!("{stem}-base"),
    };
    path.with_file_name(name)
}

/// Draws NEW's stacks to `path` and BASE's beside it, coloured by the
/// change, and names the second file on stderr.
fn draw_flamegraphs(compared: &Diff, stacks: &DiffStacks<'_>, path: &Path) -> Result<(), Error> {
    let (base_name, new_name) = (
        short_path(&compared.base.name),
        short_path(&compared.new.name),
    );
    let labels = Labels {
        title: format!("compile-perf diff: {new_name} (new) vs {base_name} (base)"),
        base: base_name,
        new: new_name,
    };
    let base_path = base_picture_path(path);
    for (drawn, target) in [
        (Drawn::New, path.to_owned()),
        (Drawn::Base, base_path.clone()),
    ] {
        let output = Output::File(target);
        let svg = draw(stacks, drawn, &labels, defaults::MIN_WIDTH_PERCENT).ok_or_else(|| {
            Error::NothingToDraw {
                reason: "a side has no samples (check --pid, --process and --compiler)".to_owned(),
            }
        })?;
        write_output(&output, |out| out.write_all(&svg.bytes))?;
    }
    eprintln!(
        "compile-perf: base's stacks, coloured the same way: {}",
        base_path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_paths_sort_by_value() {
        let mut paths: Vec<PathBuf> = [
            "r/run-10/perf.data",
            "r/run-2/perf.data",
            "r/run-1/perf.data",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        paths.sort_by_cached_key(|path| natural_key(path));
        assert_eq!(
            paths,
            [
                PathBuf::from("r/run-1/perf.data"),
                PathBuf::from("r/run-2/perf.data"),
                PathBuf::from("r/run-10/perf.data")
            ]
        );
    }

    #[test]
    fn base_pictures_go_beside_the_new_one() {
        assert_eq!(
            base_picture_path(Path::new("out/diff.svg")),
            PathBuf::from("out/diff-base.svg")
        );
        assert_eq!(
            base_picture_path(Path::new("diff")),
            PathBuf::from("diff-base")
        );
        assert_eq!(short_path("/tmp/runs/main/"), "runs/main");
        assert_eq!(short_path("main"), "main");
    }
}
