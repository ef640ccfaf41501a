//! `compile-perf measure`, the wrapper `record` runs the command through
//! inside perf: it runs the command, waits, and writes its exit status and
//! the peak RSS of the command (not of perf) to a file in the run directory.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::run_json::CommandExit;

/// The file the `measure` wrapper writes its result to, in the run directory.
pub(crate) const MEASURE_FILE: &str = ".measure.json";

/// What the `measure` wrapper reports about the command it ran.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Measured {
    pub exit: CommandExit,
    /// The largest peak resident set of the command and its descendants.
    pub peak_rss_bytes: u64,
}

/// `compile-perf measure`: runs `command`, waits, and writes its exit status
/// and peak RSS to `into`. Returns the shell exit code of the command.
pub(crate) fn measure(command: &[OsString], into: &Path) -> std::io::Result<i32> {
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

pub(crate) fn read_measured(path: &Path) -> Option<Measured> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}
