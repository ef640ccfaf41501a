//! The run directory's `run.json` ([`RunManifest`]): what was run, where,
//! how it ended and what was made, so that nothing half-made passes for
//! complete; and the facts about the inputs and the host that go in it.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::RecordError;
use super::measure::StderrExcerpt;
use super::sizing::{RatePlan, RingBuffer, StreamChoice};
use crate::artifact::Artifact;

/// Inputs larger than this are listed without a hash.
pub(super) const MAX_HASHED_INPUT: u64 = 4 << 30;

/// How the recorded command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CommandExit {
    /// The exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
}

impl std::fmt::Display for CommandExit {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(out, "exit status: {code}"),
            (None, Some(signal)) => write!(out, "signal: {signal}"),
            (None, None) => out.write_str("no exit status"),
        }
    }
}

impl CommandExit {
    pub(crate) fn from_status(status: ExitStatus) -> CommandExit {
        use std::os::unix::process::ExitStatusExt;
        CommandExit {
            code: status.code(),
            signal: status.signal(),
        }
    }

    /// The code a shell would report: the exit code, or 128 + the signal.
    pub(crate) fn shell_code(&self) -> i32 {
        match (self.code, self.signal) {
            (Some(code), _) => code,
            (None, Some(signal)) => 128 + signal,
            (None, None) => 1,
        }
    }
}

/// An input file named on the command line.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct InputFile {
    pub path: String,
    pub bytes: u64,
    /// Lower-case hex SHA-256; `None` for inputs too large to hash.
    pub sha256: Option<String>,
}

/// The machine the run was on.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Host {
    pub hostname: Option<String>,
    pub cores: usize,
    pub memory_bytes: Option<u64>,
    pub kernel: Option<String>,
}

/// How perf was run.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PerfRun {
    pub version: String,
    pub command: Vec<String>,
    pub event: String,
    /// Why this event: given with --event, or what the detection found.
    pub event_reason: String,
    pub exit: CommandExit,
    /// One stream or one per CPU (`--threads`), and why.
    pub streams: StreamChoice,
    /// perf's `-m`, and why.
    pub ring_buffer: RingBuffer,
    /// The frequency and stack size for the data budget, the rate expected
    /// and the rate perf wrote.
    pub data_rate: RatePlan,
    /// The bytes of perf.data (the file, or the directory's files) as
    /// written, after zstd.
    pub written_bytes: u64,
}

/// Where the run stands; `run.json` says it so that nothing half-made passes
/// for complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RunStatus {
    /// perf is recording.
    Recording,
    /// The recording is complete; the report is being made.
    Recorded,
    /// The recording and the report are complete.
    Finished,
}

/// `run.json`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct RunManifest {
    pub status: RunStatus,
    /// True once everything listed under `outputs` is written.
    pub finished: bool,
    /// True when Ctrl-C stopped the command.
    pub interrupted: bool,
    pub command: Vec<String>,
    pub working_directory: String,
    pub start_time: String,
    /// perf's start, the command and perf's writing of the recording.
    pub wall_seconds: Option<f64>,
    /// The command alone, from its start to its exit, timed by the wrapper
    /// under perf: what to compare with the compile run without perf.
    pub command_wall_seconds: Option<f64>,
    pub exit: Option<CommandExit>,
    /// Of the command and its descendants (the compiler), not of perf.
    pub peak_rss_bytes: Option<u64>,
    /// The first and last lines the command wrote to stderr.
    pub stderr: StderrExcerpt,
    pub iree_compile_version: Option<String>,
    pub inputs: Vec<InputFile>,
    pub host: Host,
    pub perf: Option<PerfRun>,
    /// The samples the kernel lost while recording (0 when none); `None`
    /// until the recording has been read.
    pub lost_samples: Option<u64>,
    /// Files of the run directory, by role.
    pub outputs: Vec<String>,
    /// Problems met while making the outputs.
    pub notes: Vec<String>,
    /// The files the compile wrote, found on its command line.
    pub artifacts: Vec<Artifact>,
}

/// `run.json` of a series of runs (`record --repeat`): what ran, how many
/// times it was to run, the runs recorded so far, and where it stands. Its
/// `status` and `command` make the directory a run directory for `--force`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SeriesManifest {
    pub status: RunStatus,
    /// True once every run and the report of them all are written.
    pub finished: bool,
    pub command: Vec<String>,
    /// How many runs were asked for.
    pub repeat: u32,
    /// The run directories recorded, in order.
    pub runs: Vec<String>,
    pub outputs: Vec<String>,
    pub notes: Vec<String>,
}

impl SeriesManifest {
    /// Writes it as `dir/run.json`.
    pub(crate) fn save(&self, dir: &Path) -> Result<(), RecordError> {
        write_run_json(dir, self)
    }
}

/// Writes `run` as `dir/run.json`, replacing the one before.
pub(super) fn write_run_json(dir: &Path, run: &impl Serialize) -> Result<(), RecordError> {
    let text = serde_json::to_vec_pretty(run).expect("run.json serializes");
    crate::output::write_file(&dir.join("run.json"), |out| out.write_all(&text)).map_err(|source| {
        RecordError::OutputNotWritable {
            dir: dir.to_owned(),
            source,
        }
    })
}

/// `iree-compile --version`, when the command is iree-compile.
pub(super) fn iree_compile_version(command: &[OsString]) -> Option<String> {
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
pub(super) fn input_files(args: &[OsString]) -> Vec<InputFile> {
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

pub(super) fn sha256_of(path: &Path) -> Option<String> {
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

pub(super) fn host() -> Host {
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

    #[test]
    fn a_signal_reads_as_128_plus_it() {
        let exit = CommandExit {
            code: None,
            signal: Some(2),
        };
        assert_eq!(exit.shell_code(), 130);
    }
}
