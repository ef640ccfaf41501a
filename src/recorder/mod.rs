//! Recording: runs a command under `perf record` with settings that work
//! for iree-compile, and keeps what a later reader needs to trust the
//! profile (`run.json`).
//!
//! This is the only module that starts perf. It checks everything it can
//! before recording (perf is there, the kernel lets it profile, the output
//! directory can be written, the command exists), picks the event (hardware
//! cycles where the machine has them, `cpu-clock` where it does not), and
//! runs the command through `compile-perf measure`, a small wrapper that
//! reports the peak RSS of the compile, not of perf.

mod actions;
mod artifacts;
mod attach;
mod checks;
mod consteval;
mod heap;
mod machine_load;
pub(crate) mod measure;
mod options;
mod probes;
mod program;
mod rss_sampler;
mod run_json;
mod sizing;
mod status;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

pub(crate) use crate::error::RecordError;
use crate::mlir_timing::{TIMING_FILE, Timers, with_timing_flags};
use crate::rss::{MEMORY_FILE, RssSeries};
use perfdata::RUN_RECORDING;

use crate::run_dir::{CommandExit, PerfRun, RingBuffer, RunJson, RunStatus};
use checks::{check_permission, detect_event, missing_input, perf_version, prepare_dir};
use measure::{MEASURE_FILE, read_measured};
pub(crate) use options::{CallGraph, RecordOptions};
pub(crate) use run_json::write_run_json;
use run_json::{host, input_files, iree_compile_version};
pub(crate) use sizing::RateRequest;
use sizing::{RingHost, raw_bytes_written};

/// The page-fault event `--page-faults` adds: one sample per 64 faults (256 KiB
/// of memory first touched) keeps a multi-GB compile's recording small.
const MEMORY_EVENT: &str = "page-faults/period=64/";

/// A finished recording, ready to be reported on.
pub(crate) struct Recorded {
    pub dir: PathBuf,
    pub perf_data: PathBuf,
    pub run: RunJson,
    /// The command's own wall time, measured by the wrapper (perf's start
    /// and its writing of the recording left out); `None` when the wrapper
    /// did not finish.
    pub command_wall_seconds: Option<f64>,
    /// True when [`record_with_timeout`] stopped the command at its timeout.
    pub timed_out: bool,
}

impl Recorded {
    /// Rewrites `run.json`.
    pub(crate) fn save(&self) -> Result<(), RecordError> {
        write_run_json(&self.dir, &self.run)
    }
}

/// The checks made before recording (the command was found by
/// [`command_to_run`]): for iree-compile, its input files exist; perf runs
/// and may profile. Returns perf's version.
fn preflight(options: &RecordOptions) -> Result<String, RecordError> {
    if let Some(path) = missing_input(&options.command) {
        return Err(RecordError::InputMissing { path });
    }
    let perf_version = perf_version()?;
    check_permission()?;
    Ok(perf_version)
}

/// The command as it runs: its program found ([`program::resolve_program`]);
/// with const-eval's flags, or why not ([`consteval::command_with_flags`]);
/// with `--mlir-timing`, MLIR's timing flags; with `--actions`, the action flags.
fn command_to_run(options: &RecordOptions) -> Result<(Vec<OsString>, Option<String>), RecordError> {
    let mut command = options.command.clone();
    let program = command
        .first_mut()
        .ok_or_else(|| RecordError::CommandMissing {
            command: String::new(),
            looked_in: String::new(),
        })?;
    *program = program::resolve_program(program)?;
    let (mut command, consteval_note) = consteval::command_with_flags(command, options);
    if options.mlir_timing {
        command = with_timing_flags(&command).map_err(|reason| RecordError::CompilerFlags {
            option: "--mlir-timing",
            reason,
        })?;
    }
    if let Some(mode) = options.actions {
        let flags_refused = |reason| RecordError::CompilerFlags {
            option: "--actions",
            reason,
        };
        command = actions::with_action_flags(&command, &options.output_dir, mode)
            .map_err(flags_refused)?;
        actions::warn_of_the_logs_cost(&command, mode, options);
    }
    Ok((command, consteval_note))
}

/// For `record --repeat`: the checks of [`record`], then the series'
/// directory made, replaced or refused as `--force` says.
pub(crate) fn prepare_series(options: &RecordOptions) -> Result<(), RecordError> {
    command_to_run(options)?;
    preflight(options)?;
    prepare_dir(&options.output_dir, options.force)
}

/// Records `options.command` under perf into `options.output_dir`.
pub(crate) fn record(options: &RecordOptions) -> Result<Recorded, RecordError> {
    record_with_timeout(options, None)
}

/// [`record`], with the command stopped after `timeout` of its own wall
/// time: the `measure` wrapper ends it (SIGTERM, then SIGKILL) and perf
/// keeps what it recorded until then.
pub(crate) fn record_with_timeout(
    options: &RecordOptions,
    timeout: Option<Duration>,
) -> Result<Recorded, RecordError> {
    let (command_run, consteval_note) = command_to_run(options)?;
    let perf_version = preflight(options)?;
    let dir = &options.output_dir;
    // The probes first: when they cannot be added, no run directory is made.
    let alloc_probes = options
        .alloc_min_bytes
        .map(|_| probes::AllocProbes::add())
        .transpose()?;
    let heap_probes = (options.heap_rate)
        .map(|_| heap::HeapProbes::add())
        .transpose()?;
    prepare_dir(dir, options.force)?;

    let command: Vec<String> = command_run
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let (event, event_reason) = match (&options.event, options.alloc_min_bytes) {
        (_, Some(min_bytes)) => (
            probes::AllocProbes::events().collect::<Vec<_>>().join(","),
            format!("record --alloc: every call asking for at least {min_bytes} bytes"),
        ),
        (Some(event), None) => (event.clone(), "given with --event".to_owned()),
        (None, None) => detect_event(),
    };
    let mut run = RunJson {
        status: RunStatus::Recording,
        finished: false,
        interrupted: false,
        command: command.clone(),
        working_directory: std::env::current_dir()
            .map(|cwd| cwd.display().to_string())
            .unwrap_or_default(),
        start_time: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        iree_compile_version: iree_compile_version(&command_run),
        inputs: input_files(&command_run[1..]),
        host: host(),
        outputs: vec![RUN_RECORDING.to_owned(), "run.json".to_owned()],
        ..RunJson::default()
    };
    write_run_json(dir, &run)?;

    let perf_data = dir.join(RUN_RECORDING);
    let measure_file = dir.join(MEASURE_FILE);
    let wrapper = std::env::current_exe().map_err(|source| RecordError::OutputNotWritable {
        dir: dir.clone(),
        source,
    })?;
    let ring_buffer = RingBuffer::choose(
        &options.rate,
        RingHost {
            page_bytes: rss_sampler::page_size(),
            memory_bytes: run.host.memory_bytes,
            cpus: run.host.cores,
            mlock_limit_kb: mlock_limit_kb(),
        },
        &options.perf_args,
    );
    let compression = format!("--compression-level={}", crate::defaults::ZSTD_LEVEL);
    let mut perf_args: Vec<OsString> = vec!["record".into(), compression.into()];
    perf_args.extend(
        options
            .streams
            .perf_arg(&options.perf_args)
            .map(OsString::from),
    );
    perf_args.extend(
        ring_buffer
            .perf_args()
            .into_iter()
            .flatten()
            .map(OsString::from),
    );
    match (options.alloc_min_bytes, &heap_probes) {
        (Some(min_bytes), _) => perf_args.extend(
            probes::AllocProbes::record_args(min_bytes)
                .into_iter()
                .map(OsString::from),
        ),
        (None, Some(_)) => perf_args.extend(
            heap::HeapProbes::record_args(&event, options.rate.frequency_hz)
                .into_iter()
                .map(OsString::from),
        ),
        (None, None) => perf_args.extend([
            "-F".into(),
            options.rate.frequency_hz.to_string().into(),
            "-e".into(),
            event.clone().into(),
        ]),
    }
    perf_args.extend([
        "--call-graph".into(),
        match options.call_graph {
            CallGraph::Dwarf => format!("dwarf,{}", options.rate.stack_size_bytes).into(),
            CallGraph::Fp => "fp".into(),
        },
        // Compression drops the build-id table; MMAP2 records keep them instead.
        "--buildid-mmap".into(),
        // The clock of the RSS series (memory.json): one time axis for both.
        "-k".into(),
        crate::rss::MONOTONIC_CLOCK.into(),
    ]);
    if options.page_faults {
        perf_args.extend(["-e".into(), MEMORY_EVENT.into()]);
    }
    perf_args.extend(["-o".into(), perf_data.clone().into()]);
    perf_args.extend(options.perf_args.iter().map(OsString::from));
    // The wrapper runs the command and attaches perf to it, and to nothing else.
    let mut wrapper_args: Vec<OsString> = vec![
        "measure".into(),
        "--into".into(),
        measure_file.clone().into(),
    ];
    let timing_file = dir.join(TIMING_FILE);
    if options.mlir_timing {
        wrapper_args.extend(["--mlir-timing-into".into(), timing_file.clone().into()]);
    }
    if let Some(timeout) = timeout {
        wrapper_args.extend(["--timeout".into(), timeout.as_secs_f64().to_string().into()]);
    }
    for arg in &perf_args {
        let mut option = OsString::from("--perf-arg=");
        option.push(arg);
        wrapper_args.push(option);
    }
    if let (Some(probes), Some(rate)) = (&heap_probes, options.heap_rate) {
        wrapper_args.extend([
            "--preload".into(),
            probes.library.clone().into(),
            "--heap-rate".into(),
            rate.to_string().into(),
        ]);
    }
    wrapper_args.push("--".into());
    wrapper_args.extend(command_run.iter().cloned());

    let interrupted = interrupt_flag();
    let started = Instant::now();
    let started_at = SystemTime::now();
    let wrapper_failed = |error: std::io::Error| RecordError::PerfFailed {
        status: format!(
            "the measure wrapper {} did not start: {error}",
            wrapper.display()
        ),
    };
    let mut running = Command::new(&wrapper)
        .args(&wrapper_args)
        .spawn()
        .map_err(wrapper_failed)?;
    let status_line = status::StatusLine {
        shown: crate::progress::shown(options.quiet),
        label: options.status_label.as_deref(),
        // CPU samples come at -F per second of the compile's CPU time; the
        // allocator's probes do not.
        frequency_hz: options
            .alloc_min_bytes
            .is_none()
            .then_some(options.rate.frequency_hz),
    };
    let status =
        status::wait_with_status(&mut running, &perf_data, status_line).map_err(wrapper_failed)?;
    let wall = started.elapsed().as_secs_f64();
    drop(alloc_probes);
    drop(heap_probes);
    run.wall_seconds = Some(wall);
    run.interrupted = interrupted.load(Ordering::SeqCst);
    let mut command_wall_seconds = None;
    let mut timed_out = false;
    let mut perf_outcome = None;
    match read_measured(&measure_file) {
        Some(measured)
            if measured
                .perf
                .as_ref()
                .is_some_and(|perf| perf.error.is_some()) =>
        {
            perf_outcome = measured.perf;
        }
        Some(measured) => {
            perf_outcome = measured.perf;
            run.exit = Some(measured.exit);
            run.peak_rss_bytes = Some(measured.peak_rss_bytes);
            run.page_faults = measured.page_faults;
            run.other_cores_busy = measured.other_cores_busy;
            command_wall_seconds = measured.wall_seconds;
            run.command_wall_seconds = measured.wall_seconds;
            timed_out = measured.timed_out;
            run.interrupted |= measured.exit.signal == Some(libc::SIGINT);
            run.stderr = measured.stderr;
            if let Some(series) = measured.memory {
                write_memory_json(dir, &series)?;
                run.outputs.push(MEMORY_FILE.to_owned());
            }
        }
        None => run.notes.push(
            "the command's exit status and peak RSS were not measured (the wrapper did not finish)"
                .to_owned(),
        ),
    }
    let _ = std::fs::remove_file(&measure_file);
    // perf's own lines, kept by the wrapper until the status line is gone.
    for line in perf_outcome.iter().flat_map(|perf| &perf.stderr) {
        eprintln!("{line}");
    }
    let mut data_rate = options.rate.clone();
    if let Some(raw_bytes) = perf_outcome
        .as_ref()
        .and_then(|perf| raw_bytes_written(&perf.stderr))
    {
        data_rate.set_measured(raw_bytes, command_wall_seconds.unwrap_or(wall));
    }
    if options.mlir_timing {
        match std::fs::read_to_string(&timing_file) {
            Ok(text) => {
                run.outputs.push(TIMING_FILE.to_owned());
                if let Err(error) = Timers::parse(&text) {
                    run.notes.push(format!(
                        "{TIMING_FILE} is not MLIR's timing report ({error}): it holds the lines \
                         from `[` to `]` of the compile's stderr"
                    ));
                }
            }
            Err(_) => run.notes.push(format!(
                "--mlir-timing: iree-compile printed no timing report, so there is no \
                 {TIMING_FILE} (it prints one when the compile ends)"
            )),
        }
    }
    if let Some(mode) = options.actions {
        actions::keep_actions_of_run(dir, mode, &mut run);
    }
    consteval::keep_consteval(dir, &command_run, consteval_note, &mut run);
    if options.kernel_symbols {
        run.outputs
            .extend(crate::symbolize::keep_kernel_symbols_beside(dir));
    }
    if run.interrupted {
        run.notes.push(format!(
            "stopped by Ctrl-C after {wall:.1} s: the profile covers the compile up to then"
        ));
    }
    if let Some(timeout) = timeout.filter(|_| timed_out) {
        run.notes.push(format!(
            "stopped at the timeout of {} s: the profile covers the compile up to then",
            timeout.as_secs_f64()
        ));
    }
    // After the Ctrl-C and timeout notes, which say why an output may be
    // missing.
    let named = crate::artifact::named_outputs(&options.command[1..]);
    run.artifacts = artifacts::artifacts(&named, started_at, &mut run.notes);
    let perf_exit = perf_outcome.as_ref().and_then(|perf| perf.exit);
    run.perf = Some(PerfRun {
        version: perf_version,
        command: match &perf_outcome {
            Some(perf) if !perf.command.is_empty() => perf.command.clone(),
            _ => std::iter::once("perf".to_owned())
                .chain(
                    perf_args
                        .iter()
                        .map(|arg| arg.to_string_lossy().into_owned()),
                )
                .collect(),
        },
        event,
        event_reason,
        exit: perf_exit.unwrap_or_else(|| CommandExit::from_status(status)),
        streams: options.streams.clone(),
        ring_buffer,
        data_rate,
        written_bytes: recording_bytes(&perf_data),
    });
    if let Some(error) = perf_outcome.and_then(|perf| perf.error) {
        write_run_json(dir, &run)?;
        return Err(match perf_exit {
            None => RecordError::PerfMissing { detail: error },
            Some(_) => RecordError::PerfFailed { status: error },
        });
    }
    let recorded = recording_bytes(&perf_data) > 0;
    if !recorded {
        write_run_json(dir, &run)?;
        return Err(RecordError::PerfFailed {
            status: perf_exit.map_or_else(|| status.to_string(), |exit| exit.to_string()),
        });
    }
    run.status = RunStatus::Recorded;
    write_run_json(dir, &run)?;
    Ok(Recorded {
        dir: dir.clone(),
        perf_data,
        run,
        command_wall_seconds,
        timed_out,
    })
}

/// The bytes of the recording at `path`: a perf.data file, or the
/// directory perf's `--threads` writes (`data`, `data.0`, …); 0 when there
/// is none.
fn recording_bytes(path: &Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::read_dir(path)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|entry| entry.metadata().ok())
                    .filter(|meta| meta.is_file())
                    .map(|meta| meta.len())
                    .sum()
            })
            .unwrap_or(0),
        Ok(meta) => meta.len(),
        Err(_) => 0,
    }
}

/// `perf_event_mlock_kb`, which limits the ring buffers of a user without
/// privilege; `None` for root, whom the kernel lets lock more (it is
/// CAP_IPC_LOCK that lifts the limit).
fn mlock_limit_kb() -> Option<u64> {
    // SAFETY: `geteuid` reads the process's effective user id and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return None;
    }
    std::fs::read_to_string("/proc/sys/kernel/perf_event_mlock_kb")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .or(Some(516))
}

/// Writes the RSS series to `memory.json` in `dir`.
fn write_memory_json(dir: &Path, series: &RssSeries) -> Result<(), RecordError> {
    let path = dir.join(MEMORY_FILE);
    crate::output::write_file(&path, |out| {
        serde_json::to_writer(&mut *out, series)?;
        writeln!(out)
    })
    .map_err(|source| RecordError::OutputNotWritable {
        dir: dir.to_owned(),
        source,
    })
}

/// Installs the Ctrl-C handler once and returns the flag it sets: Ctrl-C
/// reaches perf and the command (they share the terminal's process group);
/// compile-perf outlives it to report what was recorded. The flag stays set:
/// a series of recordings stops at the first Ctrl-C.
pub(crate) fn interrupt_flag() -> &'static AtomicBool {
    static INTERRUPTED: AtomicBool = AtomicBool::new(false);
    static HANDLER: Once = Once::new();
    HANDLER.call_once(|| {
        // An error means another handler is installed; the run goes on.
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    });
    &INTERRUPTED
}
