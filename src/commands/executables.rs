//! `compile-perf executables`: which dispatch was slow. The full compile is
//! recorded once while it dumps its executables ([`crate::executables`]),
//! each executable is then compiled alone under perf with a timeout, and
//! every recording is read: wall time, samples, peak RSS, exit, top
//! categories and passes, and a flamegraph. The ranking goes to
//! `DIR/executables.json`, `DIR/executables.txt` and stdout, with the share
//! of the full compile's codegen and serialization the executables account
//! for, and the outliers.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::args::{RulesFileArg, default_run_dir, heading, parse_seconds};
use super::{Config, Run, load_rules};
use crate::defaults;
use crate::error::{EXIT_EXECUTABLES_FAILED, EXIT_INTERRUPTED, Error};
use crate::executable_sources::{ExecutableSource, SOURCES_DIR, alike, dumped_sources};
use crate::executables::{
    EXECUTABLES_DIR, FULL_COMPILE_DIR, Plan, full_compile_command, record_executables,
};
use crate::output::{Output, write_output};
use crate::progress::{self, Progress};
use crate::recorder::{
    CallGraph, RateRequest, RecordOptions, Recorded, prepare_series, record, write_run_json,
};
use crate::report::executables::{ExecutableEntry, write_text};
mod figures;

use crate::run_dir::{ExecutablesRunJson, RatePlan, RunStatus, StreamChoice, Streams};
use figures::{executable_entry, full_figures, ranking};

/// The examples `--help` ends with.
pub(crate) const EXAMPLES: &str =
    "  Each executable of a compile compiled alone under perf, and ranked:
    compile-perf executables -o runs/x -- iree-compile model.mlir -o model.vmfb
  Two at a time, each stopped after 60 s:
    compile-perf executables --jobs 2 --timeout 60 -o runs/x -- iree-compile model.mlir -o m.vmfb";

#[derive(Debug, Args)]
pub(crate) struct ExecutablesArgs {
    /// The run directory. Default is compile-perf-runs/<timestamp>.
    #[arg(long, short, value_name = "DIR", help_heading = heading::OUTPUT)]
    output: Option<PathBuf>,
    /// Replace the run directory if it exists.
    #[arg(long, help_heading = heading::OUTPUT)]
    force: bool,
    /// Seconds one executable's compile may take; then it is stopped
    /// (SIGTERM, SIGKILL 5 s later), and what was recorded is kept.
    #[arg(long, value_name = "SECS", default_value_t = defaults::EXECUTABLE_TIMEOUT_SECONDS,
          value_parser = parse_seconds)]
    timeout: f64,
    /// Executables compiled at a time. Above 1 they share the cores, and
    /// each one's wall time grows with the others'.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Compiles of each executable: its wall time is their median, and the
    /// ranking says which steps of its order are beyond run-to-run noise
    /// (3 at least; 1 leaves the order untested; at most 20).
    #[arg(long, value_name = "N", default_value_t = defaults::EXECUTABLE_REPEAT,
          value_parser = clap::value_parser!(u16).range(1..=20))]
    repeat: u16,
    /// Samples per second.
    #[arg(long = "freq", value_name = "HZ", default_value_t = defaults::FREQUENCY_HZ,
          help_heading = heading::PERF)]
    frequency: u32,
    /// No progress bar on stderr (the line per executable still prints).
    #[arg(long, short, help_heading = heading::OUTPUT)]
    quiet: bool,
    #[command(flatten)]
    rules: RulesFileArg,
    /// The full compile, after `--`: iree-compile ARGS… (flags with `=`).
    #[arg(last = true, required = true, value_name = "IREE_COMPILE")]
    command: Vec<OsString>,
}

impl ExecutablesArgs {
    pub(crate) fn into_config(self) -> Config {
        let executables = ExecutablesOptions {
            command: self.command,
            output_dir: self.output.unwrap_or_else(default_run_dir),
            force: self.force,
            timeout: Duration::from_secs_f64(self.timeout),
            jobs: usize::from(self.jobs),
            repeat: usize::from(self.repeat),
            frequency: self.frequency,
        };
        Config::new(executables, None, self.quiet, self.rules.file)
    }
}

/// What `executables` compiles and how.
#[derive(Clone, Debug)]
struct ExecutablesOptions {
    /// The full compile, `iree-compile ARGS…`.
    command: Vec<OsString>,
    output_dir: PathBuf,
    /// Replace an existing run directory. Default is to refuse.
    force: bool,
    /// How long one executable's compile may take. Default is
    /// [`defaults::EXECUTABLE_TIMEOUT_SECONDS`].
    timeout: Duration,
    /// Executables compiled at a time. Default is 1.
    jobs: usize,
    /// Compiles of each executable, for the median wall time and the test
    /// of the order against noise. Default is
    /// [`defaults::EXECUTABLE_REPEAT`].
    repeat: usize,
    /// Samples per second. Default is [`defaults::FREQUENCY_HZ`].
    frequency: u32,
}

impl Run for ExecutablesOptions {
    fn run(&self, config: &Config) -> Result<u8, Error> {
        run(config, self)
    }
}

/// Records the full compile and each executable, then ranks them. The exit
/// code is [`EXIT_EXECUTABLES_FAILED`] when an executable failed, timed out
/// or was not recorded, 130 after Ctrl-C.
fn run(config: &Config, options: &ExecutablesOptions) -> Result<u8, Error> {
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
        page_faults: false,
        alloc_min_bytes: None,
        heap_rate: None,
        repeat: None,
        mlir_timing: false,
        actions: None,
        // Its own progress lines say what runs; several records run at once.
        quiet: true,
        status_label: None,
        kernel_symbols: true,
        consteval: true,
    };
    prepare_series(&RecordOptions {
        command: full_command.clone(),
        ..settings.clone()
    })?;
    let mut manifest = ExecutablesRunJson {
        status: RunStatus::Recording,
        finished: false,
        command: lossy(&options.command),
        timeout_seconds: options.timeout.as_secs_f64(),
        jobs: options.jobs,
        executables: Vec::new(),
        outputs: vec!["run.json".to_owned()],
        notes: Vec::new(),
    };
    write_run_json(dir, &manifest)?;

    let Some((full, sources)) = dump(full_command, &settings, &mut manifest)? else {
        return Ok(EXIT_INTERRUPTED);
    };
    let alike = alike(&sources);
    eprintln!(
        "compile-perf: {} executables, compiled one by one ({} at a time, {} times each, {} s timeout each)",
        sources.len(),
        options.jobs,
        options.repeat,
        options.timeout.as_secs_f64()
    );
    let progress = Progress::steps(
        progress::shown(config.quiet),
        sources.len() as u64,
        "executables",
    );
    let plan = Plan {
        settings: &settings,
        timeout: options.timeout,
        repeat: options.repeat,
        jobs: options.jobs,
    };
    let runs = record_executables(dir, &sources, &plan, &progress);
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
            manifest
                .executables
                .extend(run.runs.iter().map(|one| one.run_dir.display().to_string()));
            executable_entry(dir, run, &rules)
        })
        .collect();
    executables.sort_by(|a, b| {
        b.wall_seconds
            .total_cmp(&a.wall_seconds)
            .then_with(|| a.name.cmp(&b.name))
    });
    let ranking = ranking(executables, full_compile, alike, options);
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
    write_run_json(dir, &manifest)?;
    eprintln!("compile-perf: the run is in {}", dir.display());
    Ok(if interrupted {
        EXIT_INTERRUPTED
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
    manifest: &mut ExecutablesRunJson,
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
        write_run_json(dir, manifest)?;
        return Ok(None);
    }
    if sources.is_empty() {
        manifest
            .notes
            .push("the full compile dumped no executables".to_owned());
        write_run_json(dir, manifest)?;
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

fn lossy(command: &[OsString]) -> Vec<String> {
    command
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect()
}
