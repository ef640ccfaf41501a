//! `compile-perf record`: runs a command under `perf record` with settings
//! that work for iree-compile, and keeps what a later reader needs to trust
//! the profile (`run.json`).
//!
//! This is the only module that starts perf. It checks everything it can
//! before recording (perf is there, the kernel lets it profile, the output
//! directory can be written, the command exists), picks the event (hardware
//! cycles where the machine has them, `cpu-clock` where it does not), and
//! runs the command through `compile-perf measure`, a small wrapper that
//! reports the peak RSS of the compile, not of perf.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The hardware event tried first, and the software one used where it fails.
const HARDWARE_EVENT: &str = "cycles";
const FALLBACK_EVENT: &str = "cpu-clock";
/// The page-fault event `--memory` adds: one sample per 64 faults (256 KiB
/// of memory first touched) keeps a multi-GB compile's recording small.
const MEMORY_EVENT: &str = "page-faults/period=64/";
/// The file the `measure` wrapper writes its result to, in the run directory.
const MEASURE_FILE: &str = ".measure.json";
/// Inputs larger than this are listed without a hash.
const MAX_HASHED_INPUT: u64 = 4 << 30;

/// How perf collects call stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CallGraph {
    /// Copy the user stack and unwind it with DWARF CFI (needed for
    /// libIREECompiler, which has no frame pointers).
    Dwarf,
    /// Frame pointers: cheap, but only the leaf is right in iree-compile.
    Fp,
}

/// What to record and how. Defaults are `perf record -z -F 499
/// --call-graph dwarf,65528`.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    pub command: Vec<OsString>,
    pub output_dir: PathBuf,
    /// Replace an existing output directory. Default is to refuse.
    pub force: bool,
    /// Samples per second. Default is 499.
    pub frequency: u32,
    pub call_graph: CallGraph,
    /// Bytes of user stack copied per sample with DWARF. Default is 65528,
    /// with which 99% of stacks reach their thread root.
    pub stack_size: u32,
    /// The event; default is detected.
    pub event: Option<String>,
    /// More arguments for `perf record`, passed through.
    pub perf_args: Vec<String>,
    /// Also sample page faults, for memory by category and pass.
    pub memory: bool,
    /// Record the command this many times, into `run-1` … `run-N` of the
    /// output directory. Default is once, into the directory itself.
    pub repeat: Option<u32>,
}

/// Why recording could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(
        "perf is not installed or does not run ({detail}); on Debian install it with: apt-get install linux-perf"
    )]
    PerfMissing { detail: String },
    #[error(
        "the kernel does not let this user profile (kernel.perf_event_paranoid = {value}); allow it with: sudo sysctl kernel.perf_event_paranoid=1"
    )]
    NotPermitted { value: i64 },
    #[error("{dir} already exists; choose another -o or pass --force to replace it")]
    OutputExists { dir: PathBuf },
    #[error("--force does not replace {dir}: {reason}; nothing was deleted")]
    ForceRefused { dir: PathBuf, reason: ForceRefusal },
    #[error("cannot write the run directory {dir}: {source}")]
    OutputNotWritable {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("command not found: {command}")]
    CommandMissing { command: String },
    #[error("perf record failed ({status}) and left no recording; its messages are above")]
    PerfFailed { status: String },
}

impl RecordError {
    /// The process exit code; see the README's table.
    pub fn exit_code(&self) -> u8 {
        match self {
            RecordError::PerfMissing { .. } => 20,
            RecordError::NotPermitted { .. } => 21,
            RecordError::OutputExists { .. } => 22,
            RecordError::OutputNotWritable { .. } => 23,
            RecordError::CommandMissing { .. } => 24,
            RecordError::PerfFailed { .. } => 25,
            RecordError::ForceRefused { .. } => 26,
        }
    }
}

/// How the recorded command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandExit {
    /// The exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
}

impl CommandExit {
    fn from_status(status: ExitStatus) -> CommandExit {
        use std::os::unix::process::ExitStatusExt;
        CommandExit {
            code: status.code(),
            signal: status.signal(),
        }
    }

    /// The code a shell would report: the exit code, or 128 + the signal.
    pub fn shell_code(&self) -> i32 {
        match (self.code, self.signal) {
            (Some(code), _) => code,
            (None, Some(signal)) => 128 + signal,
            (None, None) => 1,
        }
    }
}

/// What the `measure` wrapper reports about the command it ran.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Measured {
    pub exit: CommandExit,
    /// The largest peak resident set of the command and its descendants.
    pub peak_rss_bytes: u64,
}

/// An input file named on the command line.
#[derive(Clone, Debug, Serialize)]
pub struct InputFile {
    pub path: String,
    pub bytes: u64,
    /// Lower-case hex SHA-256; `None` for inputs too large to hash.
    pub sha256: Option<String>,
}

/// The machine the run was on.
#[derive(Clone, Debug, Serialize)]
pub struct Host {
    pub hostname: Option<String>,
    pub cores: usize,
    pub memory_bytes: Option<u64>,
    pub kernel: Option<String>,
}

/// How perf was run.
#[derive(Clone, Debug, Serialize)]
pub struct PerfRun {
    pub version: String,
    pub command: Vec<String>,
    pub event: String,
    /// Why this event: given with --event, or what the detection found.
    pub event_reason: String,
    pub exit: CommandExit,
}

/// Where the run stands; `run.json` says it so that nothing half-made passes
/// for complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// perf is recording.
    Recording,
    /// The recording is complete; the report is being made.
    Recorded,
    /// The recording and the report are complete.
    Finished,
}

/// `run.json`.
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    pub status: RunStatus,
    /// True once everything listed under `outputs` is written.
    pub finished: bool,
    /// True when Ctrl-C stopped the command.
    pub interrupted: bool,
    pub command: Vec<String>,
    pub working_directory: String,
    pub start_time: String,
    pub wall_seconds: Option<f64>,
    pub exit: Option<CommandExit>,
    /// Of the command and its descendants (the compiler), not of perf.
    pub peak_rss_bytes: Option<u64>,
    pub iree_compile_version: Option<String>,
    pub inputs: Vec<InputFile>,
    pub host: Host,
    pub perf: Option<PerfRun>,
    /// Files of the run directory, by role.
    pub outputs: Vec<String>,
    /// Problems met while making the outputs.
    pub notes: Vec<String>,
}

/// A finished recording, ready to be reported on.
pub struct Recorded {
    pub dir: PathBuf,
    pub perf_data: PathBuf,
    pub run: RunRecord,
}

impl Recorded {
    /// Rewrites `run.json`.
    pub fn save(&self) -> Result<(), RecordError> {
        write_run_json(&self.dir, &self.run)
    }
}

/// The checks made before recording: the command exists, perf runs and
/// may profile. Returns perf's version.
pub(crate) fn preflight(options: &RecordOptions) -> Result<String, RecordError> {
    let program = options
        .command
        .first()
        .ok_or_else(|| RecordError::CommandMissing {
            command: String::new(),
        })?;
    if !program_exists(program) {
        return Err(RecordError::CommandMissing {
            command: program.to_string_lossy().into_owned(),
        });
    }
    let perf_version = perf_version()?;
    check_permission()?;
    Ok(perf_version)
}

/// Records `options.command` under perf into `options.output_dir`.
pub fn record(options: &RecordOptions) -> Result<Recorded, RecordError> {
    let perf_version = preflight(options)?;
    let dir = &options.output_dir;
    prepare_dir(dir, options.force)?;

    let command: Vec<String> = options
        .command
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let (event, event_reason) = match &options.event {
        Some(event) => (event.clone(), "given with --event".to_owned()),
        None => detect_event(),
    };
    let mut run = RunRecord {
        status: RunStatus::Recording,
        finished: false,
        interrupted: false,
        command: command.clone(),
        working_directory: std::env::current_dir()
            .map(|cwd| cwd.display().to_string())
            .unwrap_or_default(),
        start_time: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        wall_seconds: None,
        exit: None,
        peak_rss_bytes: None,
        iree_compile_version: iree_compile_version(&options.command),
        inputs: input_files(&options.command[1..]),
        host: host(),
        perf: None,
        outputs: vec!["perf.data".to_owned(), "run.json".to_owned()],
        notes: Vec::new(),
    };
    write_run_json(dir, &run)?;

    let perf_data = dir.join("perf.data");
    let measure_file = dir.join(MEASURE_FILE);
    let wrapper = std::env::current_exe().map_err(|source| RecordError::OutputNotWritable {
        dir: dir.clone(),
        source,
    })?;
    let mut perf_args: Vec<OsString> = vec![
        "record".into(),
        "-z".into(),
        "-F".into(),
        options.frequency.to_string().into(),
        "-e".into(),
        event.clone().into(),
        "--call-graph".into(),
        match options.call_graph {
            CallGraph::Dwarf => format!("dwarf,{}", options.stack_size).into(),
            CallGraph::Fp => "fp".into(),
        },
        // -z drops the build-id table; MMAP2 records keep them instead.
        "--buildid-mmap".into(),
    ];
    if options.memory {
        perf_args.extend(["-e".into(), MEMORY_EVENT.into()]);
    }
    perf_args.extend(["-o".into(), perf_data.clone().into()]);
    perf_args.extend(options.perf_args.iter().map(OsString::from));
    perf_args.push("--".into());
    perf_args.push(wrapper.into());
    perf_args.extend([
        "measure".into(),
        "--into".into(),
        measure_file.clone().into(),
        "--".into(),
    ]);
    perf_args.extend(options.command.iter().cloned());

    let interrupted = interrupt_flag();
    let started = Instant::now();
    let status = Command::new("perf")
        .args(&perf_args)
        .status()
        .map_err(|error| RecordError::PerfMissing {
            detail: error.to_string(),
        })?;
    let wall = started.elapsed().as_secs_f64();
    run.wall_seconds = Some(wall);
    run.interrupted = interrupted.load(Ordering::SeqCst);
    match read_measured(&measure_file) {
        Some(measured) => {
            run.exit = Some(measured.exit);
            run.peak_rss_bytes = Some(measured.peak_rss_bytes);
            run.interrupted |= measured.exit.signal == Some(libc::SIGINT);
        }
        None => run.notes.push(
            "the command's exit status and peak RSS were not measured (the wrapper did not finish)"
                .to_owned(),
        ),
    }
    let _ = std::fs::remove_file(&measure_file);
    if run.interrupted {
        run.notes.push(format!(
            "stopped by Ctrl-C after {wall:.1} s: the profile covers the compile up to then"
        ));
    }
    run.perf = Some(PerfRun {
        version: perf_version,
        command: std::iter::once("perf".to_owned())
            .chain(
                perf_args
                    .iter()
                    .map(|arg| arg.to_string_lossy().into_owned()),
            )
            .collect(),
        event,
        event_reason,
        exit: CommandExit::from_status(status),
    });
    let recorded = perf_data.metadata().is_ok_and(|meta| meta.len() > 0);
    if !recorded {
        write_run_json(dir, &run)?;
        return Err(RecordError::PerfFailed {
            status: status.to_string(),
        });
    }
    run.status = RunStatus::Recorded;
    write_run_json(dir, &run)?;
    Ok(Recorded {
        dir: dir.clone(),
        perf_data,
        run,
    })
}

/// Installs the Ctrl-C handler once: Ctrl-C reaches perf and the command
/// (they share the terminal's process group); compile-perf outlives it to
/// report what was recorded.
fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let setter = Arc::clone(&flag);
    // An error means a handler is already installed; the run goes on.
    let _ = ctrlc::set_handler(move || setter.store(true, Ordering::SeqCst));
    flag
}

/// `compile-perf measure`: runs `command`, waits, and writes its exit status
/// and peak RSS to `into`. Returns the shell exit code of the command.
pub fn measure(command: &[OsString], into: &Path) -> std::io::Result<i32> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| std::io::Error::other("no command to run"))?;
    // Ctrl-C (and perf's SIGTERM after it) must end the command, not this
    // wrapper, which reports how the command ended.
    let _ = ctrlc::set_handler(|| {});
    let status = Command::new(program).args(args).status()?;
    let measured = Measured {
        exit: CommandExit::from_status(status),
        peak_rss_bytes: children_peak_rss(),
    };
    let text = serde_json::to_vec(&measured)?;
    crate::output::write_file(into, |out| out.write_all(&text))?;
    Ok(measured.exit.shell_code())
}

/// The largest peak RSS among the waited-for descendants of this process.
fn children_peak_rss() -> u64 {
    // SAFETY: `getrusage` only writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    // Linux reports ru_maxrss in kilobytes.
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

fn read_measured(path: &Path) -> Option<Measured> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn write_run_json(dir: &Path, run: &RunRecord) -> Result<(), RecordError> {
    let text = serde_json::to_vec_pretty(run).expect("run.json serializes");
    crate::output::write_file(&dir.join("run.json"), |out| out.write_all(&text)).map_err(|source| {
        RecordError::OutputNotWritable {
            dir: dir.to_owned(),
            source,
        }
    })
}

/// True when `program` is a path to a file, or a name found on `PATH`.
fn program_exists(program: &std::ffi::OsStr) -> bool {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

fn perf_version() -> Result<String, RecordError> {
    let output = Command::new("perf")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|error| RecordError::PerfMissing {
            detail: error.to_string(),
        })?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || text.is_empty() {
        // Debian's /usr/bin/perf wrapper fails when no perf matches the kernel.
        return Err(RecordError::PerfMissing {
            detail: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    Ok(text)
}

/// Refuses when `perf_event_paranoid` keeps this user from profiling.
fn check_permission() -> Result<(), RecordError> {
    // SAFETY: `geteuid` has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let value = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()
        .and_then(|text| text.trim().parse::<i64>().ok());
    match value {
        Some(value) if value > 2 && !root => Err(RecordError::NotPermitted { value }),
        _ => Ok(()),
    }
}

/// Makes `dir`. An existing one is refused, unless `force` and
/// [`force_refusal`] lets it be replaced: then a run directory is deleted
/// and made again, and an empty one is used as it is. Every check is made
/// before anything is deleted.
pub(crate) fn prepare_dir(dir: &Path, force: bool) -> Result<(), RecordError> {
    let not_writable = |source| RecordError::OutputNotWritable {
        dir: dir.to_owned(),
        source,
    };
    if !dir.exists() {
        return std::fs::create_dir_all(dir).map_err(not_writable);
    }
    if !force {
        return Err(RecordError::OutputExists {
            dir: dir.to_owned(),
        });
    }
    let canonical = std::fs::canonicalize(dir).map_err(not_writable)?;
    let occupant = occupant(&canonical).map_err(not_writable)?;
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .and_then(|home| std::fs::canonicalize(home).ok());
    force_refusal(&canonical, occupant, cwd.as_deref(), home.as_deref()).map_err(|reason| {
        RecordError::ForceRefused {
            dir: dir.to_owned(),
            reason,
        }
    })?;
    if occupant == Occupant::Run {
        // A symlink to a run directory stays: the directory it names is replaced.
        std::fs::remove_dir_all(&canonical).map_err(not_writable)?;
        std::fs::create_dir(&canonical).map_err(not_writable)?;
    }
    Ok(())
}

/// What `--force` finds at the run directory's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Occupant {
    /// A file, a device or anything else that is not a directory.
    NotADirectory,
    /// An empty directory.
    Empty,
    /// A directory with the `run.json` of a `compile-perf record` run.
    Run,
    /// A directory holding anything else.
    Other,
}

/// Why `--force` does not replace a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ForceRefusal {
    #[error("it is the root directory")]
    Root,
    #[error("it is the home directory or contains it")]
    Home,
    #[error("it is the working directory or contains it")]
    WorkingDirectory,
    #[error("the working directory cannot be found, so it cannot be told apart from it")]
    WorkingDirectoryUnknown,
    #[error("it is not a directory")]
    NotADirectory,
    #[error(
        "it is not empty and has no run.json of compile-perf record, so it is not a run directory"
    )]
    NotARunDirectory,
}

/// Whether `--force` may replace `target`; all paths canonical. Only an
/// empty directory or a run directory may be, and never the root, the home
/// directory, the working directory or a directory that contains one of them.
fn force_refusal(
    target: &Path,
    occupant: Occupant,
    cwd: Option<&Path>,
    home: Option<&Path>,
) -> Result<(), ForceRefusal> {
    if target.parent().is_none() {
        return Err(ForceRefusal::Root);
    }
    if home.is_some_and(|home| home.starts_with(target)) {
        return Err(ForceRefusal::Home);
    }
    match cwd {
        None => return Err(ForceRefusal::WorkingDirectoryUnknown),
        Some(cwd) if cwd.starts_with(target) => return Err(ForceRefusal::WorkingDirectory),
        Some(_) => {}
    }
    match occupant {
        Occupant::NotADirectory => Err(ForceRefusal::NotADirectory),
        Occupant::Other => Err(ForceRefusal::NotARunDirectory),
        Occupant::Empty | Occupant::Run => Ok(()),
    }
}

/// Looks at what is at `path` (without following a last symlink, which
/// canonical paths do not have).
fn occupant(path: &Path) -> std::io::Result<Occupant> {
    if !std::fs::symlink_metadata(path)?.is_dir() {
        return Ok(Occupant::NotADirectory);
    }
    if std::fs::read_dir(path)?.next().is_none() {
        return Ok(Occupant::Empty);
    }
    Ok(if is_run_json(&path.join("run.json")) {
        Occupant::Run
    } else {
        Occupant::Other
    })
}

/// The largest `run.json` read to tell a run directory (ours are a few KB).
const MAX_RUN_JSON_BYTES: u64 = 1 << 20;

/// True when `path` is a regular file holding the `run.json` of a run:
/// a JSON object with the `status` and `command` this module writes.
fn is_run_json(path: &Path) -> bool {
    let small_file = std::fs::symlink_metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.len() <= MAX_RUN_JSON_BYTES);
    if !small_file {
        return false;
    }
    let Some(json) = std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
    else {
        return false;
    };
    json["status"].is_string() && json["command"].is_array()
}

/// The hardware event where the machine counts cycles, else `cpu-clock`.
fn detect_event() -> (String, String) {
    let output = Command::new("perf")
        .args(["stat", "-x", ",", "-e", HARDWARE_EVENT, "--", "true"])
        .stdin(Stdio::null())
        .output();
    let supported = output.as_ref().is_ok_and(|output| {
        let text = String::from_utf8_lossy(&output.stderr);
        output.status.success()
            && !text.contains("<not supported>")
            && !text.contains("<not counted>")
    });
    if supported {
        (
            HARDWARE_EVENT.to_owned(),
            "the machine counts hardware cycles".to_owned(),
        )
    } else {
        (
            FALLBACK_EVENT.to_owned(),
            format!(
                "{HARDWARE_EVENT} is not supported here (a VM or container); fell back to {FALLBACK_EVENT}"
            ),
        )
    }
}

/// `iree-compile --version`, when the command is iree-compile.
fn iree_compile_version(command: &[OsString]) -> Option<String> {
    let program = command.first()?;
    let name = Path::new(program).file_name()?.to_string_lossy();
    if !name.starts_with("iree-compile") {
        return None;
    }
    let output = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text.trim();
    (!version.is_empty()).then(|| version.to_owned())
}

/// The existing files among the command's arguments (`--flag=FILE` too).
fn input_files(args: &[OsString]) -> Vec<InputFile> {
    args.iter()
        .filter_map(|arg| {
            let arg = arg.to_string_lossy();
            let path = arg.split_once('=').map_or(&*arg, |(_, value)| value);
            let meta = std::fs::metadata(path).ok().filter(|meta| meta.is_file())?;
            Some(InputFile {
                path: path.to_owned(),
                bytes: meta.len(),
                sha256: (meta.len() <= MAX_HASHED_INPUT)
                    .then(|| sha256_of(Path::new(path)))
                    .flatten(),
            })
        })
        .collect()
}

fn sha256_of(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut buffer).ok()?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Some(crate::binary::hex(&hasher.finalize()))
}

fn host() -> Host {
    let memory_bytes = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        });
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.trim().to_owned())
    };
    Host {
        hostname: read("/proc/sys/kernel/hostname"),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        memory_bytes,
        kernel: read("/proc/sys/kernel/osrelease"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_found_in_plain_and_flag_arguments_and_hashed() {
        let dir = std::env::temp_dir().join(format!("compile-perf-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let model = dir.join("model.mlir");
        std::fs::write(&model, b"abc").unwrap();
        let args: Vec<OsString> = vec![
            model.clone().into(),
            format!("--iree-input-file={}", model.display()).into(),
            "-o".into(),
            dir.join("missing.vmfb").into(),
        ];
        let inputs = input_files(&args);
        assert_eq!(inputs.len(), 2);
        assert_eq!(inputs[0].bytes, 3);
        assert_eq!(
            inputs[0].sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The decision for `target` from a working directory of
    /// `/work/project/build` and a home of `/home/user`.
    fn decide(target: &str, occupant: Occupant) -> Result<(), ForceRefusal> {
        force_refusal(
            Path::new(target),
            occupant,
            Some(Path::new("/work/project/build")),
            Some(Path::new("/home/user")),
        )
    }

    #[test]
    fn force_replaces_only_run_directories_and_empty_ones() {
        for occupant in [Occupant::Run, Occupant::Empty] {
            assert_eq!(decide("/work/project/build/runs/m1", occupant), Ok(()));
            assert_eq!(decide("/tmp/run", occupant), Ok(()));
            assert_eq!(decide("/home/user/runs/m1", occupant), Ok(()));
            // Beside the working directory, not above it.
            assert_eq!(decide("/work/project/other", occupant), Ok(()));
        }
        assert_eq!(
            decide("/tmp/run", Occupant::Other),
            Err(ForceRefusal::NotARunDirectory)
        );
        assert_eq!(
            decide("/tmp/run", Occupant::NotADirectory),
            Err(ForceRefusal::NotADirectory)
        );
    }

    #[test]
    fn force_never_replaces_the_root_home_or_working_directory_even_as_a_run_directory() {
        for occupant in [
            Occupant::Run,
            Occupant::Empty,
            Occupant::Other,
            Occupant::NotADirectory,
        ] {
            assert_eq!(decide("/", occupant), Err(ForceRefusal::Root));
            assert_eq!(decide("/home/user", occupant), Err(ForceRefusal::Home));
            assert_eq!(decide("/home", occupant), Err(ForceRefusal::Home));
            // `.`, then `..` and the directories above it.
            for above in ["/work/project/build", "/work/project", "/work"] {
                assert_eq!(
                    decide(above, occupant),
                    Err(ForceRefusal::WorkingDirectory),
                    "{above}"
                );
            }
        }
    }

    #[test]
    fn force_refuses_when_the_working_directory_is_unknown_and_checks_without_a_home() {
        assert_eq!(
            force_refusal(Path::new("/tmp/run"), Occupant::Run, None, None),
            Err(ForceRefusal::WorkingDirectoryUnknown)
        );
        let cwd = Some(Path::new("/srv"));
        assert_eq!(
            force_refusal(Path::new("/tmp/run"), Occupant::Run, cwd, None),
            Ok(())
        );
        assert_eq!(
            force_refusal(Path::new("/"), Occupant::Empty, cwd, None),
            Err(ForceRefusal::Root)
        );
        // A name that only starts like the working directory is not above it.
        assert_eq!(
            force_refusal(Path::new("/sr"), Occupant::Empty, cwd, None),
            Ok(())
        );
    }

    #[test]
    fn a_run_directory_is_told_by_its_run_json() {
        let dir =
            std::env::temp_dir().join(format!("compile-perf-occupant-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(occupant(&dir).unwrap(), Occupant::Empty);
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        assert_eq!(occupant(&dir).unwrap(), Occupant::Other);
        // Some other tool's run.json is not ours.
        std::fs::write(dir.join("run.json"), r#"{"name": "other"}"#).unwrap();
        assert_eq!(occupant(&dir).unwrap(), Occupant::Other);
        std::fs::write(dir.join("run.json"), "not json").unwrap();
        assert_eq!(occupant(&dir).unwrap(), Occupant::Other);
        std::fs::remove_file(dir.join("run.json")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("run.json")).unwrap();
        assert_eq!(occupant(&dir).unwrap(), Occupant::Other);
        std::fs::remove_file(dir.join("run.json")).unwrap();
        std::fs::write(
            dir.join("run.json"),
            r#"{"status": "finished", "command": ["/bin/true"]}"#,
        )
        .unwrap();
        assert_eq!(occupant(&dir).unwrap(), Occupant::Run);
        assert_eq!(
            occupant(&dir.join("notes.txt")).unwrap(),
            Occupant::NotADirectory
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_signal_reads_as_128_plus_it() {
        let exit = CommandExit {
            code: None,
            signal: Some(2),
        };
        assert_eq!(exit.shell_code(), 130);
    }
}
