//! `record --actions`: iree-compile's action profiler (and, for the IR
//! units, its action log) turned on, and what they wrote kept compact as
//! `actions.bin` once the compile is done; the raw files (hundreds of MB
//! on a large compile) are removed. The executables' sources are dumped
//! into `sources/` too, so that reports can name the executables built
//! more than once.

use std::ffi::OsString;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use crate::actions::{
    ACTIONS_FILE, ActionsFacts, ActionsMode, LOG_FLAG, PROFILE_FLAG, name_units, parse_trace,
};
use crate::executable_sources::{DUMP_SOURCES_FLAG, SOURCES_DIR};
use crate::mlir_timing::iree_compile_command;
use crate::run_dir::RunJson;

use super::options::RecordOptions;
use super::run_json::existing_files;

/// The profiler's file, in the run directory until it is kept compact.
const PROFILE_FILE: &str = "actions-profile.json";
/// The action log's file, likewise.
const LOG_FILE: &str = "actions.log";

/// What the action log needs besides its own flag:
/// - MLIR verifies each op before printing it, and the log prints the IR
///   unit of every action: without `--mlir-print-assume-verified` the log
///   made many-dispatches' compile 12× slower here, with it 2.8× (the IR
///   is verified by the pass manager all the same);
/// - the log is not safe for threads (iree-compile 3.13): threads cut each
///   other's lines, and with both action flags the compile died here with
///   "free(): invalid next size", so the compile runs on one thread.
const LOG_FLAGS: [&str; 2] = ["--mlir-print-assume-verified", "--mlir-disable-threading"];

/// The action log's size and the compile's time measured on a real model
/// (bert-mlm-2l, 2026-12-07, iree-compile 3.13 on 2 busy cores): its log was
/// about 50 times its input's bytes.
const UNITS_COST: &str = "on bert-mlm-2l (a 309 MB input) the action log was 15.5 GB and the \
     compile took 273-413 s against 11-38 s without it (47-54 CPU s against 6.6-8.6)";
/// The log's bytes per byte of input, rounded up from that measurement.
const LOG_BYTES_PER_INPUT_BYTE: u64 = 50;

/// With `--actions=units`, a warning before the compile runs: the log
/// prints the IR unit of every action, which on a real model is many GB
/// and most of the compile's time; with the input's size and the free
/// space where the log goes.
pub(crate) fn warn_of_the_logs_cost(
    command: &[OsString],
    mode: ActionsMode,
    options: &RecordOptions,
) {
    if mode != ActionsMode::Units || options.quiet {
        return;
    }
    let input_bytes: u64 = existing_files(&command[1..])
        .iter()
        .map(|(_, bytes)| bytes)
        .sum();
    let gb = |bytes: u64| bytes as f64 / 1e9;
    let free = free_bytes(&options.output_dir)
        .map(|free| {
            format!(
                "; the disk of {} has {:.1} GB free",
                options.output_dir.display(),
                gb(free)
            )
        })
        .unwrap_or_default();
    eprintln!(
        "compile-perf: warning: --actions=units runs the compile on one thread and logs the IR \
         unit of every action: {UNITS_COST}. This input is {:.2} GB: expect a log of about {:.0} GB{free}. \
         `--actions` (times) costs 1.04-1.2x and names each unit by its op",
        gb(input_bytes),
        gb(input_bytes * LOG_BYTES_PER_INPUT_BYTE),
    );
}

/// The bytes free for an unprivileged writer on the filesystem of `dir`
/// (or of its nearest existing parent).
fn free_bytes(dir: &Path) -> Option<u64> {
    let existing = dir.ancestors().find(|path| path.exists())?;
    let path = std::ffi::CString::new(existing.as_os_str().as_encoded_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stats` is writable
    // memory of the size statvfs fills; it is read only when statvfs says it
    // filled it (0).
    let filled = unsafe { libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) } == 0;
    filled.then(|| {
        // SAFETY: statvfs returned 0, so it initialized `stats`.
        let stats = unsafe { stats.assume_init() };
        stats.f_bavail.saturating_mul(stats.f_frsize)
    })
}

/// `command` with the action flags of `mode` added after the program,
/// writing into `dir`, and the dump of the executables' sources into
/// `dir/sources` unless the command dumps them itself; an error when the
/// program is not iree-compile or the command has an action flag of its
/// own.
pub(crate) fn with_action_flags(
    command: &[OsString],
    dir: &Path,
    mode: ActionsMode,
) -> Result<Vec<OsString>, String> {
    let (program, args) = iree_compile_command(command, "the action flags")?;
    let mut flags = vec![(PROFILE_FLAG, PROFILE_FILE)];
    if mode == ActionsMode::Units {
        flags.push((LOG_FLAG, LOG_FILE));
    }
    let given = |flag: &str| {
        args.iter()
            .any(|arg| arg.to_string_lossy().starts_with(flag))
    };
    let mut added = vec![program.clone()];
    for (flag, file) in flags {
        if let Some(given) = args
            .iter()
            .map(|arg| arg.to_string_lossy())
            .find(|arg| arg.starts_with(flag))
        {
            return Err(format!(
                "the command has {given}: record --actions writes {flag} itself"
            ));
        }
        let mut arg = OsString::from(format!("{flag}="));
        arg.push(dir.join(file));
        added.push(arg);
    }
    if !given(DUMP_SOURCES_FLAG) {
        let mut arg = OsString::from(format!("{DUMP_SOURCES_FLAG}="));
        arg.push(dir.join(SOURCES_DIR));
        added.push(arg);
    }
    if mode == ActionsMode::Units {
        for flag in LOG_FLAGS {
            if !given(flag) {
                added.push(flag.into());
            }
        }
    }
    added.extend(args.iter().cloned());
    Ok(added)
}

/// [`keep_actions`] for `run`: its `actions` and `outputs` on success, a
/// note on failure; `sources` in its `outputs` when the compile dumped
/// executables there.
pub(crate) fn keep_actions_of_run(dir: &Path, mode: ActionsMode, run: &mut RunJson) {
    let dumped =
        std::fs::read_dir(dir.join(SOURCES_DIR)).is_ok_and(|mut entries| entries.next().is_some());
    if dumped {
        run.outputs.push(SOURCES_DIR.to_owned());
    }
    match keep_actions(dir, mode) {
        Ok(facts) => {
            run.outputs.push(ACTIONS_FILE.to_owned());
            run.actions = Some(facts);
        }
        Err(note) => run.notes.push(note),
    }
}

/// Reads what the compiler wrote into `dir`, writes `actions.bin` and
/// removes the raw files. The facts on success; the note to keep in
/// `run.json` when nothing could be kept.
fn keep_actions(dir: &Path, mode: ActionsMode) -> Result<ActionsFacts, String> {
    let profile_path = dir.join(PROFILE_FILE);
    let log_path = dir.join(LOG_FILE);
    let raw_bytes = [&profile_path, &log_path]
        .iter()
        .filter_map(|path| std::fs::metadata(path).ok())
        .map(|meta| meta.len())
        .sum();
    let profile = File::open(&profile_path).map_err(|error| {
        format!("--actions: iree-compile wrote no action profile ({PROFILE_FILE}: {error})")
    })?;
    let parsed = parse_trace(BufReader::with_capacity(1 << 20, profile))
        .map_err(|error| format!("--actions: {PROFILE_FILE} cannot be read: {error}"))?;
    let mut actions = parsed.actions;
    let (units_named, units_unnamed) = match mode {
        ActionsMode::Units => match std::fs::read(&log_path) {
            Ok(log) => name_units(&mut actions, &log),
            Err(_) => (0, 0),
        },
        ActionsMode::Times => (0, 0),
    };
    let bytes = crate::actions::write(&actions)
        .map_err(|error| format!("--actions: {ACTIONS_FILE} cannot be made: {error}"))?;
    std::fs::write(dir.join(ACTIONS_FILE), &bytes)
        .map_err(|error| format!("--actions: {ACTIONS_FILE} cannot be written: {error}"))?;
    let _ = std::fs::remove_file(&profile_path);
    let _ = std::fs::remove_file(&log_path);
    Ok(ActionsFacts {
        mode,
        actions: parsed.begins,
        threads: actions.threads.len() as u64,
        raw_bytes,
        stored_bytes: bytes.len() as u64,
        units_named,
        units_unnamed,
        unpaired: parsed.unpaired + parsed.unreadable_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_go_after_the_program_and_a_given_one_is_refused() {
        let command: Vec<OsString> = ["iree-compile", "m.mlir", "-o", "m.vmfb"]
            .iter()
            .map(OsString::from)
            .collect();
        let added = with_action_flags(&command, Path::new("/r"), ActionsMode::Units).unwrap();
        assert_eq!(added[1], "--profile-actions-to=/r/actions-profile.json");
        assert_eq!(added[2], "--log-actions-to=/r/actions.log");
        assert_eq!(added[3], "--iree-hal-dump-executable-sources-to=/r/sources");
        assert_eq!(
            added[4..6],
            ["--mlir-print-assume-verified", "--mlir-disable-threading"]
        );
        assert_eq!(&added[6..], &command[1..]);
        let times = with_action_flags(&command, Path::new("/r"), ActionsMode::Times).unwrap();
        assert_eq!(times.len(), command.len() + 2);
        // A dump of the user's own is left as it is.
        let mut dumping = command.clone();
        dumping.push("--iree-hal-dump-executable-sources-to=mine".into());
        let times = with_action_flags(&dumping, Path::new("/r"), ActionsMode::Times).unwrap();
        assert_eq!(times.len(), dumping.len() + 1);
        let mut given = command.clone();
        given.push("--profile-actions-to=x.json".into());
        assert!(with_action_flags(&given, Path::new("/r"), ActionsMode::Times).is_err());
        let other = vec![OsString::from("clang")];
        assert!(with_action_flags(&other, Path::new("/r"), ActionsMode::Times).is_err());
    }
}
