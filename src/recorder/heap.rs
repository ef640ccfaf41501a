//! The heap sampler of `record --heap`: the library found (next to the
//! compile-perf binary, or where `COMPILE_PERF_HEAP_SAMPLER` says), checked
//! to load, and its two marker uprobes added with `perf probe` before the
//! recording and removed after it, also when recording fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::RecordError;
use crate::heap::{ALLOC_EVENT, ALLOC_PROBE, FREE_EVENT, FREE_PROBE, LIBRARY, LIBRARY_VARIABLE};

/// The heap sampler's markers probed for one recording. Dropping it
/// removes the probes it added.
pub(crate) struct HeapProbes {
    /// The library, for `LD_PRELOAD`.
    pub library: PathBuf,
    added: Vec<&'static str>,
}

impl HeapProbes {
    /// Finds the library, checks that it loads, and adds both probes; or
    /// says why not.
    pub(crate) fn add() -> Result<Self, RecordError> {
        let library = find_library()?;
        check_loads(&library)?;
        let mut probes = HeapProbes {
            library,
            added: Vec::new(),
        };
        for (event, definition) in [(ALLOC_EVENT, ALLOC_PROBE), (FREE_EVENT, FREE_PROBE)] {
            if probes.add_one(definition)? {
                probes.added.push(event);
            }
        }
        Ok(probes)
    }

    /// `perf record`'s event arguments: CPU samples of `event` at
    /// `frequency_hz` (as a term of the event: a global -F would sample the
    /// markers by frequency too), every alloc marker with its stack, every
    /// free marker without one.
    pub(crate) fn record_args(event: &str, frequency_hz: u32) -> Vec<String> {
        vec![
            "-e".to_owned(),
            format!("{event}/freq={frequency_hz}/"),
            "-e".to_owned(),
            ALLOC_EVENT.to_owned(),
            "-e".to_owned(),
            format!("{FREE_EVENT}/call-graph=no/"),
            // A burst of sampled allocations (each with its stack) must not
            // overflow the ring buffer.
            "-m".to_owned(),
            "64M".to_owned(),
        ]
    }

    /// Adds the probe of `definition`; false when it exists already.
    fn add_one(&self, definition: &str) -> Result<bool, RecordError> {
        let failed = |detail: String| RecordError::HeapSampler {
            reason: format!(
                "could not add the uprobe `{definition}` to {}: {detail} (uprobes need root or CAP_SYS_ADMIN, a kernel with CONFIG_UPROBE_EVENTS and tracefs)",
                self.library.display()
            ),
        };
        super::probes::add_probe(&self.library, definition).map_err(failed)
    }
}

impl Drop for HeapProbes {
    fn drop(&mut self) {
        // A probe left behind is used by the next `record --heap` (the
        // library's path is the same; a rebuilt library at that path keeps
        // its marker symbols).
        super::probes::delete_probes(&self.added);
    }
}

/// The library: `$COMPILE_PERF_HEAP_SAMPLER`, else `libheap_sampler.so`
/// next to the running binary (where `cargo build --release --workspace`
/// puts both, and pip installs both from the wheel: the venv's `bin/`).
fn find_library() -> Result<PathBuf, RecordError> {
    if let Some(path) = std::env::var_os(LIBRARY_VARIABLE) {
        let path = PathBuf::from(path);
        return match path.is_file() {
            true => Ok(absolute(&path)),
            false => Err(RecordError::HeapSampler {
                reason: format!(
                    "{LIBRARY_VARIABLE} names {}, which is not a file",
                    path.display()
                ),
            }),
        };
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(LIBRARY)));
    match beside {
        Some(path) if path.is_file() => Ok(path),
        _ => Err(RecordError::HeapSampler {
            reason: format!(
                "{LIBRARY} is not next to the compile-perf binary{} and {LIBRARY_VARIABLE} is not set: build it with `cargo build --release --workspace` (or `-p heap-sampler`), or reinstall the compile-perf wheel, which puts it there",
                beside
                    .as_deref()
                    .and_then(Path::parent)
                    .map(|dir| format!(" ({})", dir.display()))
                    .unwrap_or_default()
            ),
        }),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// Runs `/bin/true` with the library preloaded: the dynamic loader says on
/// stderr when it cannot load it (another architecture, not a library,
/// a missing dependency) and runs the program anyway.
fn check_loads(library: &Path) -> Result<(), RecordError> {
    let output = Command::new("/bin/true")
        .env("LD_PRELOAD", library)
        .output()
        .map_err(|error| RecordError::HeapSampler {
            reason: format!(
                "/bin/true did not run to check {}: {error}",
                library.display()
            ),
        })?;
    let message = String::from_utf8_lossy(&output.stderr);
    if output.status.success() && !message.contains("LD_PRELOAD") && !message.contains("ld.so") {
        return Ok(());
    }
    Err(RecordError::HeapSampler {
        reason: format!(
            "{} cannot be preloaded: {}",
            library.display(),
            message.trim()
        ),
    })
}
