//! `executables`' figures: each recording read and summed up (the compiler
//! process's samples, its top categories and passes, its codegen and
//! serialization samples), its flamegraph drawn, and the ranking of them all.

use std::path::Path;

use super::ExecutablesOptions;

/// The pass that runs codegen on every executable in a full compile (and
/// on the one executable of `--compile-mode=hal-executable`).
const TRANSLATE_PASS: &str = "TranslateAllExecutablesPass";
/// The pass that turns every executable into its binary (LLVM codegen,
/// linking).
const SERIALIZE_PASS: &str = "SerializeAllExecutablesPass";
/// Categories and passes listed per executable in the JSON.
const JSON_TOP: usize = 5;
use crate::attribute::{Attribution, Classes, Grouped, Grouping, RowKey, group, joined_passes};
use crate::commands::draw::{FlamegraphRequest, flamegraph_picture, save_flamegraph};
use crate::commands::{load_recording, own_recording};
use crate::defaults;
use crate::error::Error;
use crate::executable_sources::Alike;
use crate::executables::{ExecutableRun, FULL_COMPILE_DIR, OneRun};
use crate::output::Output;
use crate::profile::{Profile, SampleFilter};
use crate::recorder::Recorded;
use crate::report::executables::{
    CategoryShare, ExecutableEntry, ExecutablesJson, Exit, FullCompile, PassShare, Totals,
    duplicates, outliers, share, test_order,
};
use crate::run_dir::{CommandExit, RunDir, RunStatus};
use crate::stats::median;
use category_rules::RuleTable;
use perfdata::Input;

/// The ranking with its totals, outliers, duplicates and the test of its order against
/// noise; `executables` slowest first.
pub(super) fn ranking(
    mut executables: Vec<ExecutableEntry>,
    full_compile: FullCompile,
    alike: Vec<Alike>,
    options: &ExecutablesOptions,
) -> ExecutablesJson {
    let walls: Vec<f64> = executables.iter().map(|entry| entry.wall_seconds).collect();
    let median_wall = median(&walls);
    let sum = |of: fn(&ExecutableEntry) -> u64| executables.iter().map(of).sum::<u64>();
    let (translate, serialize) = (sum(|e| e.translate_samples), sum(|e| e.serialize_samples));
    let totals = Totals {
        count: executables.len(),
        wall_seconds: walls.iter().sum(),
        median_wall_seconds: median_wall,
        samples: sum(|e| e.samples),
        lost_samples: sum(|e| e.lost_samples),
        translate_samples: translate,
        serialize_samples: serialize,
        translate_percent_of_full: (full_compile.translate_samples > 0)
            .then(|| share(translate, full_compile.translate_samples)),
        serialize_percent_of_full: (full_compile.serialize_samples > 0)
            .then(|| share(serialize, full_compile.serialize_samples)),
    };
    let ranking = test_order(&mut executables, options.repeat);
    ExecutablesJson {
        ranking,
        lost_samples: totals.lost_samples + full_compile.lost_samples,
        outliers: outliers(&executables, median_wall),
        duplicates: duplicates(alike, &executables, |file| {
            relative(&options.output_dir, file)
        }),
        executables,
        full_compile,
        totals,
        timeout_seconds: options.timeout.as_secs_f64(),
        jobs: options.jobs,
        frequency_hz: options.frequency,
    }
}

/// What one recording says: the compiler process's samples, its top
/// categories (self) and passes (inclusive, nested passes that do the same
/// work as one entry), and its samples in the
/// codegen and serialization passes.
struct Figures {
    samples: u64,
    /// Of every process.
    lost_samples: u64,
    top_categories: Vec<CategoryShare>,
    top_passes: Vec<PassShare>,
    translate_samples: u64,
    serialize_samples: u64,
}

/// Reads a recording, as `record` reads its own.
fn load(perf_data: &Path) -> Result<Profile, Error> {
    // Its own progress line says which executable is read.
    load_recording(
        &Input::Path(perf_data.to_owned()),
        &own_recording(false, false),
        &RunDir::of_recording(perf_data),
        &SampleFilter::default(),
    )
}

/// Sums up the compiler process of a recording.
fn figures(profile: &Profile, classes: &Classes<'_>) -> Figures {
    let filter = compiler_only();
    let categories = group(
        profile,
        classes,
        Grouping::Category,
        Attribution::Leaf,
        &filter,
        None,
    );
    let passes = group(
        profile,
        classes,
        Grouping::Pass,
        Attribution::Leaf,
        &filter,
        None,
    );
    let samples = categories.samples;
    let top_categories = top(&categories, |row| row.self_samples)
        .filter_map(|(key, count)| match key {
            RowKey::Category(id) => Some(CategoryShare {
                id: classes.table.category(id).id.clone(),
                self_percent: share(count, samples),
            }),
            _ => None,
        })
        .take(JSON_TOP)
        .collect();
    let top_passes = joined_passes(profile, classes, &filter)
        .into_iter()
        .take(JSON_TOP)
        .map(|entry| {
            let passes: Vec<String> = entry
                .passes
                .iter()
                .map(|&pass| classes.passes.name(pass).to_owned())
                .collect();
            PassShare {
                name: passes.join(" > "),
                passes,
                inclusive_percent: share(entry.inclusive_samples, samples),
            }
        })
        .collect();
    // The samples with the pass on their own stack: thread-pool work
    // credited to it differs between a full compile and one executable's.
    let inclusive = |name: &str| {
        classes
            .passes
            .find_name(name)
            .and_then(|id| passes.rows.get(&RowKey::Pass(id)))
            .map_or(0, |row| {
                row.inclusive_samples - row.credited_inclusive_samples
            })
    };
    Figures {
        samples,
        lost_samples: profile.counts.lost.samples(),
        top_categories,
        top_passes,
        translate_samples: inclusive(TRANSLATE_PASS),
        serialize_samples: inclusive(SERIALIZE_PASS),
    }
}

/// The rows of `grouped` by `count`, largest first (ties by key).
fn top(
    grouped: &Grouped,
    count: fn(&crate::attribute::RowTotals) -> u64,
) -> impl Iterator<Item = (RowKey, u64)> {
    let mut rows: Vec<(RowKey, u64)> = grouped
        .rows
        .iter()
        .map(|(key, row)| (*key, count(row)))
        .filter(|(_, count)| *count > 0)
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    rows.into_iter()
}

fn compiler_only() -> SampleFilter {
    SampleFilter {
        compiler_only: true,
        ..SampleFilter::default()
    }
}

/// The full compile's figures; a recording that cannot be read gives zeros
/// and a note in its run directory.
pub(super) fn full_figures(full: &Recorded, rules: &RuleTable) -> FullCompile {
    let read =
        load(&full.perf_data).map(|profile| figures(&profile, &Classes::new(&profile, rules)));
    let (samples, lost_samples, translate, serialize) = match read {
        Ok(figures) => (
            figures.samples,
            figures.lost_samples,
            figures.translate_samples,
            figures.serialize_samples,
        ),
        Err(error) => {
            eprintln!(
                "compile-perf: warning: the full compile's recording cannot be read: {error}"
            );
            (0, 0, 0, 0)
        }
    };
    FullCompile {
        wall_seconds: full.command_wall_seconds.or(full.run.wall_seconds),
        exit: full.run.exit.map(exit_of),
        samples,
        lost_samples,
        translate_samples: translate,
        serialize_samples: serialize,
        run_dir: FULL_COMPILE_DIR.to_owned(),
    }
}

/// One executable's entry: the wall times of its runs, and one recording
/// read (the median run's, or the one that failed), its flamegraph drawn
/// into its run directory; every run's `run.json` marked finished.
pub(super) fn executable_entry(
    dir: &Path,
    run: ExecutableRun,
    rules: &RuleTable,
) -> ExecutableEntry {
    let ExecutableRun { source, mut runs } = run;
    let walls: Vec<f64> = runs.iter().filter_map(OneRun::wall_seconds).collect();
    let mut entry = ExecutableEntry {
        name: source.name,
        wall_seconds: median(&walls),
        wall_runs_seconds: walls,
        beyond_noise_of_next: None,
        p_value_vs_next: None,
        samples: 0,
        lost_samples: 0,
        peak_rss_bytes: None,
        exit: None,
        timed_out: false,
        top_categories: Vec::new(),
        top_passes: Vec::new(),
        entry_points: source.entry_points,
        translate_samples: 0,
        serialize_samples: 0,
        source: relative(dir, &source.file),
        run_dir: String::new(),
        flamegraph: None,
        notes: Vec::new(),
    };
    let Some(shown) = shown_run(&runs) else {
        entry.notes.push("not compiled".to_owned());
        return entry;
    };
    for (at, one) in runs.iter_mut().enumerate() {
        match &mut one.recorded {
            Err(error) => entry.notes.push(format!("not recorded: {error}")),
            Ok(recorded) if at == shown => {
                entry.run_dir = one.run_dir.display().to_string();
                read_shown(dir, recorded, rules, &mut entry);
            }
            Ok(recorded) => {
                recorded.run.status = RunStatus::Finished;
                recorded.run.finished = true;
                if let Err(error) = recorded.save() {
                    entry.notes.push(format!("run.json not updated: {error}"));
                }
            }
        }
    }
    if entry.run_dir.is_empty() {
        entry.run_dir = runs[shown].run_dir.display().to_string();
    }
    entry
}

/// The run whose recording an entry shows: the last when it did not
/// succeed (runs stop at the first that fails), else the median one by
/// wall time (the lower of the middle two); `None` without runs.
fn shown_run(runs: &[OneRun]) -> Option<usize> {
    let last = runs.len().checked_sub(1)?;
    if !runs[last].succeeded() {
        return Some(last);
    }
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|&a, &b| {
        let wall = |at: usize| runs[at].wall_seconds().unwrap_or_default();
        wall(a).total_cmp(&wall(b)).then(a.cmp(&b))
    });
    Some(order[last / 2])
}

/// Fills `entry` from the recording it shows: its exit, peak RSS and
/// figures, and its flamegraph; marks its `run.json` finished.
fn read_shown(dir: &Path, recorded: &mut Recorded, rules: &RuleTable, entry: &mut ExecutableEntry) {
    entry.peak_rss_bytes = recorded.run.peak_rss_bytes;
    entry.exit = recorded.run.exit.map(exit_of);
    entry.timed_out = recorded.timed_out;
    match load(&recorded.perf_data) {
        Ok(profile) => {
            let classes = Classes::new(&profile, rules);
            let figures = figures(&profile, &classes);
            entry.samples = figures.samples;
            entry.lost_samples = figures.lost_samples;
            entry.top_categories = figures.top_categories;
            entry.top_passes = figures.top_passes;
            entry.translate_samples = figures.translate_samples;
            entry.serialize_samples = figures.serialize_samples;
            let svg = recorded.dir.join("flamegraph.svg");
            match draw(&profile, &classes, recorded, &svg) {
                Ok(()) => {
                    entry.flamegraph = Some(relative(dir, &svg));
                    recorded.run.outputs.push("flamegraph.svg".to_owned());
                }
                Err(error) => recorded
                    .run
                    .notes
                    .push(format!("flamegraph.svg not drawn: {error}")),
            }
        }
        Err(error) => entry
            .notes
            .push(format!("the recording cannot be read: {error}")),
    }
    recorded.run.status = RunStatus::Finished;
    recorded.run.finished = true;
    if let Err(error) = recorded.save() {
        entry.notes.push(format!("run.json not updated: {error}"));
    }
}

/// Draws the compiler process's flamegraph of one executable into `svg`.
fn draw(
    profile: &Profile,
    classes: &Classes<'_>,
    recorded: &Recorded,
    svg: &Path,
) -> Result<(), Error> {
    let request = FlamegraphRequest {
        run_facts: Some(recorded.run.short_line()),
        ..FlamegraphRequest::whole(
            Output::File(svg.to_owned()),
            false,
            defaults::MIN_WIDTH_PERCENT,
        )
    };
    let picture = flamegraph_picture(&request, &compiler_only(), profile, classes, None)?;
    save_flamegraph(&request, picture).map(drop)
}

fn exit_of(exit: CommandExit) -> Exit {
    Exit {
        code: exit.code,
        signal: exit.signal,
    }
}

/// `path` relative to `dir` when it is below it.
fn relative(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir).unwrap_or(path).display().to_string()
}
