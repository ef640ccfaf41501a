//! perf attached to the command alone. The command starts stopped (behind
//! `sh -c 'kill -STOP $$; exec "$@"'`, so it is the same process once it
//! runs), perf attaches to it with `-p` (following the processes it starts)
//! and answers a `ping` on its control channel once it records, and only
//! then does the command go on. So the `measure` wrapper, which waits for
//! the command, reads its stderr and samples its RSS, is not recorded, and
//! a recording names no binary of compile-perf's.

use std::ffi::{CString, OsString};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::run_dir::CommandExit;

/// The program and arguments that start a command stopped: `$0` and the
/// command follow them.
pub(super) const STOPPED_START: [&str; 3] = ["/bin/sh", "-c", "kill -STOP $$; exec \"$@\""];
/// How long perf may take to attach and answer before the run is given up.
const ATTACH_LIMIT: Duration = Duration::from_secs(60);
/// How often the wait for a stopped command or perf's answer looks again.
const POLL: Duration = Duration::from_millis(2);
/// The control FIFOs perf reads commands from and acknowledges them on, in
/// the run directory while perf runs.
const CONTROL_FIFO: &str = ".perf-control";
const ACK_FIFO: &str = ".perf-ack";

/// How perf ran, as the `measure` wrapper reports it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct PerfOutcome {
    /// The perf command line as it ran (with `-p` and the control channel).
    pub command: Vec<String>,
    /// How perf ended; `None` when it did not start.
    pub exit: Option<CommandExit>,
    /// Why perf did not record, when it did not.
    pub error: Option<String>,
    /// What perf wrote to stderr, which `record` prints once the command
    /// has ended (so that it does not cut through the status line) and
    /// reads the raw bytes written from.
    #[serde(default)]
    pub stderr: Vec<String>,
}

/// perf, attached and recording.
pub(super) struct AttachedPerf {
    perf: Child,
    stderr: JoinHandle<Vec<String>>,
    control: File,
    command: Vec<String>,
    fifos: [PathBuf; 2],
}

impl AttachedPerf {
    /// Runs `perf PERF_ARGS -p PID` with its control FIFOs in `dir`, and
    /// waits until it records.
    pub(super) fn start(
        perf_args: &[OsString],
        pid: u32,
        dir: &Path,
    ) -> Result<AttachedPerf, PerfOutcome> {
        let fifos = [dir.join(CONTROL_FIFO), dir.join(ACK_FIFO)];
        let mut args: Vec<OsString> = perf_args.to_vec();
        args.extend(["-p".into(), pid.to_string().into(), "--control".into()]);
        let mut channel = OsString::from("fifo:");
        channel.push(&fifos[0]);
        channel.push(",");
        channel.push(&fifos[1]);
        args.push(channel);
        let command: Vec<String> = std::iter::once("perf".to_owned())
            .chain(args.iter().map(|arg| arg.to_string_lossy().into_owned()))
            .collect();
        let failed = |exit: Option<CommandExit>, error: String, stderr: Vec<String>| PerfOutcome {
            command: command.clone(),
            exit,
            error: Some(error),
            stderr,
        };
        let channel = open_channel(&fifos).map_err(|error| {
            failed(
                None,
                format!("its control FIFOs in {}: {error}", dir.display()),
                Vec::new(),
            )
        })?;
        let (mut control, mut ack) = channel;
        let mut perf = match Command::new("perf")
            .args(&args)
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(perf) => perf,
            Err(error) => {
                remove(&fifos);
                return Err(failed(None, error.to_string(), Vec::new()));
            }
        };
        let stderr = read_lines(perf.stderr.take());
        let answered = control
            .write_all(b"ping\n")
            .map_err(|error| error.to_string())
            .and_then(|()| wait_for_ack(&mut ack, &mut perf));
        match answered {
            Ok(()) => Ok(AttachedPerf {
                perf,
                stderr,
                control,
                command,
                fifos,
            }),
            Err(error) => {
                let _ = perf.kill();
                let exit = perf.wait().ok().map(CommandExit::from_status);
                remove(&fifos);
                Err(failed(exit, error, stderr.join().unwrap_or_default()))
            }
        }
    }

    /// Tells perf to stop (the command has ended) and waits for it to
    /// write its recording.
    pub(super) fn finish(mut self) -> PerfOutcome {
        // perf stops by itself once the command's process is gone; `stop`
        // makes sure it does not wait for a process the command left behind.
        let _ = self.control.write_all(b"stop\n");
        let exit = self.perf.wait().ok().map(CommandExit::from_status);
        remove(&self.fifos);
        PerfOutcome {
            command: self.command,
            exit,
            error: None,
            stderr: self.stderr.join().unwrap_or_default(),
        }
    }
}

/// Reads perf's stderr to its end on a thread of its own, so that perf
/// never waits on a full pipe.
fn read_lines(stderr: Option<ChildStderr>) -> JoinHandle<Vec<String>> {
    std::thread::spawn(move || {
        stderr.map_or_else(Vec::new, |stderr| {
            BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
                .collect()
        })
    })
}

/// Makes the two FIFOs and opens them without blocking: the control one to
/// write (and read, so that opening does not wait for perf), the ack one to
/// read.
fn open_channel(fifos: &[PathBuf; 2]) -> std::io::Result<(File, File)> {
    for fifo in fifos {
        match std::fs::remove_file(fifo) {
            Ok(()) => {}
            Err(error) if error.kind() == ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
        let name = CString::new(fifo.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
        // SAFETY: mkfifo reads the NUL-terminated path and nothing else.
        if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    let control = OpenOptions::new().read(true).write(true).open(&fifos[0])?;
    let ack = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifos[1])?;
    Ok((control, ack))
}

/// Waits for perf's `ack` to the `ping`: it has attached and records.
fn wait_for_ack(ack: &mut File, perf: &mut Child) -> Result<(), String> {
    let deadline = Instant::now() + ATTACH_LIMIT;
    let mut answer = Vec::new();
    let mut buffer = [0u8; 64];
    loop {
        match ack.read(&mut buffer) {
            Ok(read) => answer.extend_from_slice(&buffer[..read]),
            Err(error) if error.kind() == ErrorKind::WouldBlock => {}
            Err(error) => return Err(format!("reading its answer: {error}")),
        }
        if answer.starts_with(b"ack") {
            return Ok(());
        }
        if let Ok(Some(status)) = perf.try_wait() {
            return Err(format!("it ended before it recorded, {status}"));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "it did not start recording within {} s",
                ATTACH_LIMIT.as_secs()
            ));
        }
        std::thread::sleep(POLL);
    }
}

/// Waits until process `pid` has stopped itself; false when it ended or
/// vanished instead.
pub(super) fn wait_stopped(pid: u32) -> bool {
    let stat = format!("/proc/{pid}/stat");
    loop {
        let Ok(text) = std::fs::read_to_string(&stat) else {
            return false;
        };
        // The state follows the command name, which is in parentheses and
        // may hold anything.
        match text
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
        {
            Some("T") => return true,
            Some("Z" | "X") | None => return false,
            Some(_) => std::thread::sleep(POLL),
        }
    }
}

fn remove(fifos: &[PathBuf; 2]) {
    for fifo in fifos {
        let _ = std::fs::remove_file(fifo);
    }
}
