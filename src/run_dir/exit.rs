//! How a command that a run directory records ended: the compile, or perf.

use std::process::ExitStatus;

use serde::{Deserialize, Serialize};

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

    /// True for a non-zero code or a signal.
    pub(crate) fn failed(&self) -> bool {
        self.code != Some(0) || self.signal.is_some()
    }
}
