//! `compile-perf executables`: which dispatch was slow. The full compile is
//! recorded once while it dumps its executables ([`crate::executables`]),
//! each executable is then compiled alone under perf with a timeout, and
//! every recording is read: wall time, samples, peak RSS, exit, top
//! categories and passes, and a flamegraph. The ranking goes to
//! `DIR/executables.json`, `DIR/executables.txt` and stdout, with the share
//! of the full compile's codegen and serialization the executables account
//! for, and the outliers.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::draw::{FlamegraphRequest, flamegraph_picture, save_flamegraph};
use super::{Config, load_recording, load_rules};
use crate::attribute::{Attribution, Classes, Grouped, Grouping, RowKey, group};
use crate::cache::Cache;
use crate::defaults;
use crate::error::{EXIT_EXECUTABLES_FAILED, Error};
use crate::executables::{
    EXECUTABLES_DIR, ExecutableRun, ExecutableSource, ExecutablesManifest, FULL_COMPILE_DIR,
    SOURCES_DIR, dumped_sources, full_compile_command, record_executables,
};
use crate::output::{Output, write_output};
use crate::perfdata::Input;
use crate::profile::{LoadOptions, Profile, SampleFilter};
use crate::progress::{self, Progress};
use crate::recorder::{
    CallGraph, CommandExit, RatePlan, RateRequest, RecordOptions, Recorded, RunStatus,
    StreamChoice, Streams, prepare_series, record,
};
use crate::report::executables::{
    CategoryShare, ExecutableEntry, ExecutablesJson, Exit, FullCompile, PassShare, Totals, median,
    outliers, share, write_text,
};
use crate::report::run_facts::RunFacts;
use crate::rules::RuleTable;

/// The pass that runs codegen on every executable in a full compile (and
/// on the one executable of `--compile-mode=hal-executable`).
const TRANSLATE_PASS: &str = "TranslateAllExecutablesPass";
/// The pass that turns every executable into its binary (LLVM codegen,
/// linking).
const SERIALIZE_PASS: &str = "SerializeAllExecutablesPass";
/// Categories and passes listed per executable in the JSON.
const JSON_TOP: usize = 5;

/// What `executables` compiles and how.
#[derive(Clone, Debug)]
pub(crate) struct ExecutablesOptions {
    /// The full compile, `iree-compile ARGS…`.
    pub command: Vec<OsString>,
    pub output_dir: PathBuf,
    /// Replace an existing run directory. Default is to refuse.
    pub force: bool,
    /// How long one executable's compile may take. Default is
    /// [`defaults::EXECUTABLE_TIMEOUT_SECONDS`].
    pub timeout: Duration,
    /// Executables compiled at a time. Default is 1.
    pub jobs: usize,
    /// Samples per second. Default is [`defaults::FREQUENCY_HZ`].
    pub frequency: u32,
}

/// Records the full compile and each executable, then ranks them. The exit
/// code is [`EXIT_EXECUTABLES_FAILED`] when an executable failed, timed out
/// or was not recorded, 130 after Ctrl-C.
pub(crate) fn run(config: &Config, options: &ExecutablesOptions) -> Result<u8, Error> {
    let rules = load_rules(config.rules_file.as_deref())?;
    let dir = &options.output_dir;
    let sources_dir = dir.join(SOURCES_DIR);
    let full_command = full_compile_command(&options.command, &sources_dir, &dir.join("full.vmfb"));
    let settings = RecordOptions {
        command: options.command.clone(),
        output_dir: dir.clone(),
        force: options.force,
        rate: RatePlan::choose(RateRequest {
            frequency: Some(options.frequency),
            stack_size: Some(defaults::STACK_SIZE_BYTES),
            budget_bytes_per_s: defaults::BUDGET_MB_PER_S * 1_000_000,
            call_graph: CallGraph::Dwarf,
            cores: std::thread::available_parallelism().map_or(1, usize::from),
        }),
        call_graph: CallGraph::Dwarf,
        streams: StreamChoice {
            choice: Streams::One,
            reason: "executables: compiles of about a second, one stream each".to_owned(),
        },
        event: None,
        // perf's own lines, twice per executable, would bury the progress;
        // its BPF events take a second per recording here and name nothing
        // of iree-compile.
        perf_args: vec!["-q".to_owned(), "--no-bpf-event".to_owned()],
        memory: false,
        alloc_min_bytes: None,
        repeat: None,
        mlir_timing: false,
        // Its own progress lines say what runs; several records run at once.
        quiet: true,
        status_label: None,
    };
    prepare_series(&RecordOptions {
        command: full_command.clone(),
        ..settings.clone()
    })?;
    let mut manifest = ExecutablesManifest {
        status: RunStatus::Recording,
        finished: false,
        command: lossy(&options.command),
        timeout_seconds: options.timeout.as_secs_f64(),
        jobs: options.jobs,
        executables: Vec::new(),
        outputs: vec!["run.json".to_owned()],
        notes: Vec::new(),
    };
    manifest.save(dir)?;

    let Some((full, sources)) = dump(full_command, &settings, &mut manifest)? else {
        return Ok(130);
    };
    eprintln!(
        "compile-perf: {} executables, compiled one by one ({} at a time, {} s timeout each)",
        sources.len(),
        options.jobs,
        options.timeout.as_secs_f64()
    );
    let progress = Progress::steps(
        progress::shown(config.quiet),
        sources.len() as u64,
        "executables",
    );
    let runs = record_executables(
        dir,
        &sources,
        &settings,
        options.timeout,
        options.jobs,
        &progress,
    );
    drop(progress);
    let interrupted = crate::recorder::interrupt_flag().load(std::sync::atomic::Ordering::SeqCst);
    if runs.len() < sources.len() {
        manifest.notes.push(format!(
            "stopped by Ctrl-C: {} of {} executables were compiled",
            runs.len(),
            sources.len()
        ));
    }

    eprintln!("compile-perf: reading the recordings");
    let full_compile = full_figures(&full, &rules);
    let mut executables: Vec<ExecutableEntry> = runs
        .into_iter()
        .map(|run| {
            manifest.executables.push(run.run_dir.display().to_string());
            executable_entry(dir, run, &rules)
        })
        .collect();
    executables.sort_by(|a, b| {
        b.wall_seconds
            .total_cmp(&a.wall_seconds)
            .then_with(|| a.name.cmp(&b.name))
    });
    let ranking = ranking(executables, full_compile, options);
    let failed = ranking.executables.iter().any(|executable| {
        executable.timed_out
            || executable.exit.is_none_or(|exit| exit.code != Some(0))
            || !executable.notes.is_empty()
    });

    write_output(&Output::File(dir.join("executables.json")), |out| {
        serde_json::to_writer_pretty(&mut *out, &ranking)?;
        writeln!(out)
    })?;
    write_output(&Output::File(dir.join("executables.txt")), |out| {
        write_text(&ranking, out)
    })?;
    write_output(&Output::Stdout, |out| write_text(&ranking, out))?;
    manifest.outputs.extend([
        EXECUTABLES_DIR.to_owned(),
        "executables.json".to_owned(),
        "executables.txt".to_owned(),
    ]);
    manifest.status = RunStatus::Finished;
    manifest.finished = !interrupted;
    manifest.save(dir)?;
    eprintln!("compile-perf: the run is in {}", dir.display());
    Ok(if interrupted {
        130
    } else if failed {
        EXIT_EXECUTABLES_FAILED
    } else {
        0
    })
}

/// Records the full compile into `DIR/full` while it dumps its executables
/// into `DIR/sources`, and reads the dumped sources. `None` after Ctrl-C;
/// an error when nothing was dumped.
fn dump(
    full_command: Vec<OsString>,
    settings: &RecordOptions,
    manifest: &mut ExecutablesManifest,
) -> Result<Option<(Recorded, Vec<ExecutableSource>)>, Error> {
    let dir = &settings.output_dir;
    let sources_dir = dir.join(SOURCES_DIR);
    eprintln!(
        "compile-perf: the full compile, dumping its executables into {}",
        sources_dir.display()
    );
    let full = record(&RecordOptions {
        command: full_command,
        output_dir: dir.join(FULL_COMPILE_DIR),
        force: false,
        ..settings.clone()
    })?;
    manifest
        .outputs
        .extend([FULL_COMPILE_DIR.to_owned(), SOURCES_DIR.to_owned()]);
    let full_exit = full.run.exit;
    if let Some(exit) = full_exit.filter(|exit| exit.shell_code() != 0) {
        manifest.notes.push(format!(
            "the full compile failed (exit {}); the executables it dumped are compiled all the same",
            exit.shell_code()
        ));
    }
    let sources = dumped_sources(&sources_dir).map_err(|source| Error::Open {
        path: sources_dir.clone(),
        source,
    })?;
    if full.run.interrupted {
        manifest
            .notes
            .push("stopped by Ctrl-C during the full compile".to_owned());
        manifest.save(dir)?;
        return Ok(None);
    }
    if sources.is_empty() {
        manifest
            .notes
            .push("the full compile dumped no executables".to_owned());
        manifest.save(dir)?;
        return Err(Error::NoExecutables {
            dir: sources_dir,
            outcome: full_exit.map_or_else(
                || "its exit was not measured".to_owned(),
                |exit| format!("it exited {}", exit.shell_code()),
            ),
        });
    }
    Ok(Some((full, sources)))
}

/// The ranking with its totals and outliers; `executables` slowest first.
fn ranking(
    executables: Vec<ExecutableEntry>,
    full_compile: FullCompile,
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
    ExecutablesJson {
        lost_samples: totals.lost_samples + full_compile.lost_samples,
        outliers: outliers(&executables, median_wall),
        executables,
        full_compile,
        totals,
        timeout_seconds: options.timeout.as_secs_f64(),
        jobs: options.jobs,
        frequency_hz: options.frequency,
    }
}

/// What one recording says: the compiler process's samples, its top
/// categories (self) and passes (inclusive), and its samples in the
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
    load_recording(&LoadOptions {
        input: Input::Path(perf_data.to_owned()),
        event: None,
        symfs: Vec::new(),
        debug_roots: vec![PathBuf::from(defaults::DEBUG_ROOT)],
        salvage: false,
        cache: Cache::from_env(true),
        read_threads: None,
        alloc: false,
        // Its own progress line says which executable is read.
        progress: false,
    })
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
    );
    let passes = group(profile, classes, Grouping::Pass, Attribution::Leaf, &filter);
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
    let top_passes = top(&passes, |row| row.inclusive_samples)
        .filter_map(|(key, count)| match key {
            RowKey::Pass(id) => Some(PassShare {
                name: classes.passes.name(id).to_owned(),
                inclusive_percent: share(count, samples),
            }),
            _ => None,
        })
        .take(JSON_TOP)
        .collect();
    let inclusive = |name: &str| {
        classes
            .passes
            .find_name(name)
            .and_then(|id| passes.rows.get(&RowKey::Pass(id)))
            .map_or(0, |row| row.inclusive_samples)
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
fn full_figures(full: &Recorded, rules: &RuleTable) -> FullCompile {
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

/// One executable's entry: its recording read, its flamegraph drawn into
/// its run directory, and its `run.json` marked finished.
fn executable_entry(dir: &Path, run: ExecutableRun, rules: &RuleTable) -> ExecutableEntry {
    let ExecutableRun {
        source,
        run_dir,
        recorded,
    } = run;
    let mut entry = ExecutableEntry {
        name: source.name,
        wall_seconds: 0.0,
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
        run_dir: run_dir.display().to_string(),
        flamegraph: None,
        notes: Vec::new(),
    };
    let mut recorded = match recorded {
        Ok(recorded) => recorded,
        Err(error) => {
            entry.notes.push(format!("not recorded: {error}"));
            return entry;
        }
    };
    entry.wall_seconds = recorded
        .command_wall_seconds
        .or(recorded.run.wall_seconds)
        .unwrap_or_default();
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
            match draw(&profile, &classes, &recorded, &svg) {
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
    entry
}

/// Draws the compiler process's flamegraph of one executable into `svg`.
fn draw(
    profile: &Profile,
    classes: &Classes<'_>,
    recorded: &Recorded,
    svg: &Path,
) -> Result<(), Error> {
    let facts: Option<RunFacts> = serde_json::to_value(&recorded.run)
        .and_then(serde_json::from_value)
        .ok();
    let request = FlamegraphRequest {
        run_facts: facts.as_ref().map(RunFacts::short_line),
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

fn lossy(command: &[OsString]) -> Vec<String> {
    command
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect()
}
