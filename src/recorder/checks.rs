//! What `record` checks before it records (the command is found by
//! `program.rs`): perf is there and may profile, iree-compile's inputs
//! exist, the event the machine can count, and the run
//! directory, which `--force` may replace only when it is a run directory
//! or empty (never the root, home or working directory).

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{ForceRefusal, RecordError};

/// The hardware event tried first, and the software one used where it fails.
const HARDWARE_EVENT: &str = "cycles";
const FALLBACK_EVENT: &str = "cpu-clock";

pub(super) fn perf_version() -> Result<String, RecordError> {
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
pub(super) fn check_permission() -> Result<(), RecordError> {
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
pub(super) fn prepare_dir(dir: &Path, force: bool) -> Result<(), RecordError> {
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
/// a JSON object with the `status` and `command` every kind of `run.json`
/// starts with.
fn is_run_json(path: &Path) -> bool {
    let small_file = std::fs::symlink_metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.len() <= MAX_RUN_JSON_BYTES);
    if !small_file {
        return false;
    }
    std::fs::read(path).is_ok_and(|bytes| crate::run_dir::is_run_json(&bytes))
}

/// The hardware event where the machine counts cycles, else `cpu-clock`.
pub(super) fn detect_event() -> (String, String) {
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

/// The first input file of an iree-compile command line that does not
/// exist: an argument that is not an option nor `-o`'s value (`-` is
/// stdin). Other programs' arguments are not checked.
pub(super) fn missing_input(command: &[OsString]) -> Option<String> {
    let program = Path::new(command.first()?).file_name()?.to_string_lossy();
    if !program.starts_with("iree-compile") {
        return None;
    }
    let args = &command[1..];
    let output_at = crate::artifact::named_outputs(args).file_option_at;
    let mut options_ended = false;
    for (at, arg) in args.iter().enumerate() {
        let text = arg.to_string_lossy();
        if text == "--" && !options_ended {
            options_ended = true;
            continue;
        }
        let positional = options_ended || !text.starts_with('-');
        if positional && text != "-" && !output_at.contains(&at) && !Path::new(arg).exists() {
            return Some(text.into_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn command(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_missing_input_of_iree_compile_is_found_and_options_outputs_and_stdin_are_not_inputs() {
        let existing = env!("CARGO_MANIFEST_DIR");
        let checked = |args: &[&str]| missing_input(&command(args));
        assert_eq!(
            checked(&["/v/iree-compile", "--flag", "nope.mlir", "-o", "out.vmfb"]).as_deref(),
            Some("nope.mlir")
        );
        assert_eq!(
            checked(&["iree-compile", existing, "-o", "missing.vmfb"]),
            None
        );
        assert_eq!(checked(&["iree-compile", "-", "-o=missing.vmfb"]), None);
        assert_eq!(
            checked(&["iree-compile", existing, "--", "-x.mlir"]).as_deref(),
            Some("-x.mlir")
        );
        // Other programs' arguments are theirs.
        assert_eq!(checked(&["sh", "-c", "exit 1"]), None);
        assert_eq!(checked(&["python3", "nope.py"]), None);
    }
}
