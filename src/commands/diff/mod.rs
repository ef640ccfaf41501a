//! `compile-perf diff BASE NEW`: finds the recordings of each side, reduces
//! each to `report`'s rows, compares the sides against run-to-run noise,
//! writes the table or JSON, draws the differential flamegraphs, and applies
//! the CI gate.

use std::io::Write;
use std::path::{Path, PathBuf};

mod recordings;

use clap::Args;
use hashbrown::HashMap;

use super::args::{ReadingArgs, RulesFileArg, heading, parse_points};
use super::format::{Format, Formats};
use super::{
    ColorChoice, Config, Run, actions_for, finish, load_recording, load_rules, unknown_category,
};
use crate::attribute::comparable::SideRuns;
use crate::attribute::diff::{Diff, Limits, Side, diff, failures};
use crate::attribute::heap::{HeapPeak, heap_peak};
use crate::attribute::heap_diff::compare;
use crate::attribute::rss::compiler_series;
use crate::attribute::run_diff::{Measure, RunMeasures, WallGate, run_failures};
use crate::attribute::runs::{RunRows, run_rows};
use crate::attribute::{Attribution, Classes, Grouping};
use crate::consteval::ConstEval;
use crate::defaults;
use crate::error::{EXIT_DIFFERENT_INPUTS, EXIT_FAILED_RUN, EXIT_REGRESSION, Error};
use crate::output::{Output, write_output};
use crate::profile::{Profile, ReadOptions, SampleFilter};
use crate::render::flamegraph::diff::{DiffStacks, Drawn, FoldedFor, Labels, draw, folded_lines};
use crate::report::breakdown::{attribution_name, scope_words};
use crate::report::diff::{Scope, to_json, write_failures, write_text};
use crate::report::table::TextFormat;
use crate::rss::Resident;
use crate::run_dir::{RunDir, RunFile};
use category_rules::RuleTable;
use perfdata::Input;
use recordings::recordings;

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  How each category's share moved between two sets of runs of `record --repeat`:
    compile-perf diff runs/text runs/bytecode --compiler
  A CI gate: exit 30 on a regression, and draw the change:
    compile-perf diff runs/main runs/pr --fail-on-regression --flamegraph diff.svg
  Two runs of `record --heap`: their live heaps at the RSS peak, and whether they differ:
    compile-perf diff runs/main-heap runs/pr-heap --heap --by pass";

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The base: a perf.data, a run directory of `record`, or a directory of
    /// several runs (every perf.data below it).
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The new side, as BASE.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    #[command(flatten)]
    reading: ReadingArgs,
    /// Output format.
    #[arg(long, default_value = "table", help_heading = heading::OUTPUT,
          value_parser = Formats(&[Format::Table, Format::Markdown, Format::Csv, Format::Json]))]
    format: Format,
    /// What the rows are.
    #[arg(long, value_enum, default_value_t)]
    by: Grouping,
    /// How a sample's self category is chosen, as for `report`.
    #[arg(long, value_enum, default_value_t)]
    attribution: Attribution,
    #[command(flatten)]
    rules: RulesFileArg,
    /// Colour the changes in the table: auto (on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value_t, help_heading = heading::OUTPUT)]
    color: ColorChoice,
    /// The smallest change, in percentage points of the samples, that is flagged.
    #[arg(long, value_name = "PP", default_value_t = defaults::DIFF_THRESHOLD_PP,
          value_parser = parse_points,
          help_heading = heading::GATE)]
    threshold: f64,
    /// Exit 30 when a row's share grew beyond the noise by more than the threshold.
    #[arg(long, help_heading = heading::GATE)]
    fail_on_regression: bool,
    /// Exit 30 when this row (a category id or name with --by category) grew beyond
    /// the noise by more than PP percentage points; `size`, `rss`, `anon` (anonymous
    /// memory) and `wall` limit the runs' facts instead, in percent. Repeatable.
    #[arg(long, value_name = "KEY=PP", value_parser = parse_limit, help_heading = heading::GATE)]
    max_increase: Vec<(String, f64)>,
    /// Let the gate compare runs of different inputs (SHA-256) or compiler flags;
    /// without it the gate refuses them (exit 33). They are warned of either way.
    #[arg(long, help_heading = heading::GATE)]
    allow_different_inputs: bool,
    /// Let `--max-increase wall=PCT` fail on the wall time alone; without it,
    /// a wall time that grew while the CPU time did not is reported as a busy
    /// machine and not counted.
    #[arg(long, help_heading = heading::GATE)]
    flag_wall_alone: bool,
    /// Also draw NEW's stacks coloured by the change to OUT.svg (and BASE's
    /// to OUT-base.svg).
    #[arg(long, value_name = "OUT.svg", help_heading = heading::OUTPUT)]
    flamegraph: Option<PathBuf>,
    /// Keep threads apart in the differential flamegraphs, and every frame:
    /// by default a stack starts at its process and leaves out the thread-pool
    /// and pass-manager frames, so that work that moved between threads
    /// compares as the same frame.
    #[arg(long, requires = "flamegraph", help_heading = heading::OUTPUT)]
    by_thread: bool,
    /// Write to FILE instead of stdout (`-` is stdout).
    #[arg(long, short, value_name = "FILE", help_heading = heading::OUTPUT)]
    output: Option<PathBuf>,
}

impl DiffArgs {
    pub(crate) fn into_config(self) -> Config {
        let quiet = self.reading.quiet;
        let diff = DiffOptions {
            base: self.base,
            new: self.new,
            filter: self.reading.filter(),
            read: self.reading.into_read_options(),
            format: self.format,
            grouping: self.by,
            attribution: self.attribution,
            color: self.color,
            threshold_pp: self.threshold,
            limits: Limits {
                fail_on_regression: self.fail_on_regression,
                max_increase: self.max_increase,
            },
            allow_different_inputs: self.allow_different_inputs,
            wall_gate: match self.flag_wall_alone {
                true => WallGate::Alone,
                false => WallGate::WithCpu,
            },
            folded: match self.by_thread {
                true => FoldedFor::ByThread,
                false => FoldedFor::Diff,
            },
            flamegraph: self.flamegraph,
        };
        Config::new(diff, self.output, quiet, self.rules.file)
    }
}

/// What `diff` compares, and how: each side's recordings are read with
/// the same options and filter.
#[derive(Debug)]
struct DiffOptions {
    base: PathBuf,
    new: PathBuf,
    read: ReadOptions,
    filter: SampleFilter,
    /// A table, Markdown, CSV or JSON.
    format: Format,
    grouping: Grouping,
    attribution: Attribution,
    color: ColorChoice,
    /// The smallest change flagged, in percentage points.
    threshold_pp: f64,
    limits: Limits,
    /// Let the gate judge sides of different inputs or flags.
    allow_different_inputs: bool,
    /// Whether the wall time counts without the CPU time (`--flag-wall-alone`).
    wall_gate: WallGate,
    /// How the differential flamegraphs' stacks are folded (`--by-thread`).
    folded: FoldedFor,
    /// Draw NEW's stacks here, and BASE's beside them.
    flamegraph: Option<PathBuf>,
}

impl Run for DiffOptions {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, self)
    }

    fn read_options(&self) -> Option<&ReadOptions> {
        Some(&self.read)
    }
}

/// Runs `diff`; the exit code is the gate's, or the worst of the runs'
/// summaries.
fn run(config: &Config, options: &DiffOptions) -> Result<u8, Error> {
    let rules = load_rules(config.rules_file.as_deref())?;
    let (run_limits, row_limits) = split_limits(&options.limits);
    let limits = if options.grouping == Grouping::Category {
        check_limits(&rules, &row_limits)?
    } else {
        row_limits
    };
    let mut code = 0;
    // Each side's runs, and each run's folded stacks for the flamegraphs.
    let mut read_side = |path: &Path| -> Result<(Side, SideExtras), Error> {
        let mut heap_peaks = Vec::new();
        let mut consteval = None;
        let mut runs = Vec::new();
        let mut measures = Vec::new();
        let mut stacks = Vec::new();
        let mut compiled = SideRuns::default();
        for input in recordings(path)? {
            let (recording, run_dir) = (Input::Path(input.clone()), RunDir::of_recording(&input));
            let profile = load_recording(&recording, &options.read, &run_dir, &options.filter)?;
            let run = run_dir.run.as_ref();
            compiled.add(&input.display().to_string(), run);
            let mut classes = Classes::new(&profile, &rules);
            let actions = actions_for(options.grouping, &run_dir, &profile, &mut classes, "diff")?;
            let rows = run_rows(
                input,
                &profile,
                &classes,
                options.grouping,
                options.attribution,
                &options.filter,
                actions.as_ref(),
            );
            measures.push(run_measures(&rows, &profile, &run_dir));
            let computed = run_dir.consteval().0;
            heap_peaks.extend(heap_peak(&profile, &classes, computed.as_ref()));
            consteval = consteval.or(computed);
            runs.push(rows);
            if options.flamegraph.is_some() {
                stacks.push(folded_lines(
                    &profile,
                    &classes,
                    &options.filter,
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
        Ok((side, (stacks, heap_peaks, consteval)))
    };
    let (base, (base_stacks, base_heap, base_consteval)) = read_side(&options.base)?;
    let (new, (new_stacks, new_heap, new_consteval)) = read_side(&options.new)?;
    let (base_consteval, new_consteval) = (base_consteval.as_ref(), new_consteval.as_ref());
    let heap = options
        .read
        .heap
        .and_then(|_| compare(&base_heap, &new_heap));
    if options.read.heap.is_some() && heap.is_none() && !config.quiet {
        eprintln!(
            "compile-perf: warning: a side has no sampled allocation in its compiler: no live heap to compare"
        );
    }
    // Rows too small to change by the smallest limit checked are not tested.
    let floor = limits
        .max_increase
        .iter()
        .map(|(_, limit)| *limit)
        .fold(options.threshold_pp, f64::min);
    let compared = diff(base, new, options.threshold_pp, floor);
    let scope = Scope {
        by: options.grouping.name(),
        attribution: attribution_name(options.attribution),
        processes: scope_words(&options.filter),
    };
    let colors = options.color.wanted(&config.output);
    write_output(&config.output, |out| match options.format.text() {
        Some(format) => {
            write_text(&compared, &scope, format, colors, out)?;
            // A CSV file is the one table.
            if format == TextFormat::Csv {
                return Ok(());
            }
            crate::report::consteval::write_changes(base_consteval, new_consteval, out)?;
            match &heap {
                Some(heap) => {
                    writeln!(out)?;
                    crate::report::heap::write_diff_text(heap, out)
                }
                None => Ok(()),
            }
        }
        None => {
            let mut document = to_json(&compared, &scope);
            document.heap_peak = heap.clone();
            document.consteval = crate::report::consteval::changes(base_consteval, new_consteval);
            serde_json::to_writer_pretty(&mut *out, &document)?;
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
    let run_failed = run_failures(&compared.run, &run_limits, options.wall_gate);
    let wall_limited = run_limits
        .iter()
        .any(|(measure, _)| *measure == Measure::Wall);
    if wall_limited && options.wall_gate == WallGate::WithCpu && !config.quiet {
        if let Some(busy) = compared.run.busy_machine() {
            eprintln!("compile-perf: note: {busy}");
        }
    }
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

/// A side's folded stacks (for the flamegraphs), its runs' live heaps
/// (with `--heap`), and the globals const-eval computed in its first run
/// that has them.
type SideExtras = (Vec<HashMap<String, u64>>, Vec<HeapPeak>, Option<ConstEval>);

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

/// `KEY=PP` of `--max-increase`.
fn parse_limit(text: &str) -> Result<(String, f64), String> {
    let (key, limit) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("{text:?} is not KEY=PP"))?;
    if key.is_empty() {
        return Err(format!("{text:?} names no row before `=`"));
    }
    Ok((key.to_owned(), parse_points(limit)?))
}

#[cfg(test)]
mod tests {
    use super::*;

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
