//! The uprobes of `record --alloc`: added to libc with `perf probe` before
//! the recording and removed after it, also when recording fails.

use std::path::Path;
use std::process::Command;

use crate::alloc::{AllocProbe, LIBC, PROBES};
use crate::error::RecordError;

/// The allocator probes in place for one recording. Dropping it removes
/// the probes it added; probes that were already there (added by the user
/// or left by a run that was killed) are used and left as they were.
pub(crate) struct AllocProbes {
    added: Vec<&'static str>,
}

impl AllocProbes {
    /// Adds every probe of [`PROBES`], or says which one could not be added.
    pub(crate) fn add() -> Result<Self, RecordError> {
        let mut probes = AllocProbes { added: Vec::new() };
        for probe in &PROBES {
            if probes.add_one(probe)? {
                probes.added.push(probe.event);
            }
        }
        Ok(probes)
    }

    /// The perf events to record.
    pub(crate) fn events() -> impl Iterator<Item = &'static str> {
        PROBES.iter().map(|probe| probe.event)
    }

    /// `perf record`'s arguments for every probe: the event, and the filter
    /// that keeps calls asking for at least `min_bytes`; each call kept is
    /// a sample (`-c 1`).
    pub(crate) fn record_args(min_bytes: u64) -> Vec<String> {
        let mut args = Vec::new();
        for probe in &PROBES {
            args.extend([
                "-e".to_owned(),
                probe.event.to_owned(),
                "--filter".to_owned(),
                probe.filter(min_bytes),
            ]);
        }
        // A 64 MiB buffer: with the default, a burst of large allocations
        // (each sample carries its stack) loses samples.
        args.extend(["-c", "1", "-m", "64M"].map(str::to_owned));
        args
    }

    /// Adds `probe`; false when it exists already.
    fn add_one(&self, probe: &AllocProbe) -> Result<bool, RecordError> {
        let failed = |detail: String| RecordError::ProbeFailed {
            definition: probe.definition.to_owned(),
            library: LIBC.to_owned(),
            detail,
        };
        add_probe(Path::new(LIBC), probe.definition).map_err(failed)
    }
}

/// Adds the uprobe `definition` to `binary` (`perf probe -x BINARY -a
/// DEFINITION`): true when added, false when it exists already; else what
/// perf said.
pub(super) fn add_probe(binary: &Path, definition: &str) -> Result<bool, String> {
    let output = Command::new("perf")
        .arg("probe")
        .arg("-x")
        .arg(binary)
        .args(["-a", definition])
        .output()
        .map_err(|error| error.to_string())?;
    if output.status.success() {
        return Ok(true);
    }
    let message = String::from_utf8_lossy(&output.stderr);
    if message.contains("already exists") {
        return Ok(false);
    }
    let detail = message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    Err(if detail.is_empty() {
        format!("perf probe ended with {}", output.status)
    } else {
        detail
    })
}

impl Drop for AllocProbes {
    fn drop(&mut self) {
        // A probe left behind costs nothing until recorded; the next
        // `record --alloc` uses it.
        delete_probes(&self.added);
    }
}

/// Deletes the uprobes `events` (`perf probe -d`), as well as it can.
pub(super) fn delete_probes(events: &[&str]) {
    if events.is_empty() {
        return;
    }
    let mut command = Command::new("perf");
    command.args(["probe", "-q"]);
    for event in events {
        command.args(["-d", event]);
    }
    let _ = command.output();
}
