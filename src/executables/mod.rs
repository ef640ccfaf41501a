//! `compile-perf executables`, the running half: the full compile made to
//! dump its executables (`--iree-hal-dump-executable-sources-to`, read by
//! [`crate::executable_sources`]), the command line that compiles one alone
//! (`--compile-mode=hal-executable` with the user's other flags), and every
//! executable recorded under perf with `record`'s settings and a timeout,
//! as many times as asked (`run.rs`). Reading the recordings is the command's (`commands/executables.rs`).

mod run;

use std::ffi::{OsStr, OsString};
use std::path::Path;

use crate::artifact::named_outputs;
use crate::executable_sources::DUMP_SOURCES_FLAG;

pub(crate) use run::{ExecutableRun, OneRun, Plan, record_executables};

/// The run directory of the full compile, below the run directory.
pub(crate) const FULL_COMPILE_DIR: &str = "full";
/// The directory of the executables' run directories, below the run directory.
pub(crate) const EXECUTABLES_DIR: &str = "executables";

/// Flags of the user's compile that an executable's compile leaves out:
/// the other dumps, and how far and from where the compile goes.
const DROPPED_FLAGS: [&str; 5] = [
    "--iree-hal-dump-executable-",
    "--compile-mode",
    "--compile-from",
    "--compile-to",
    "--output-format",
];

/// The user's compile with the dump of executable sources into `sources`
/// added (a dump flag of the user's own is replaced: iree-compile takes it
/// once), and `-o default_output` when the user gave no `-o` (iree-compile
/// would write the module to stdout, where the table goes).
pub(crate) fn full_compile_command(
    command: &[OsString],
    sources: &Path,
    default_output: &Path,
) -> Vec<OsString> {
    let mut full: Vec<OsString> = command
        .iter()
        .filter(|arg| !starts_with(arg, DUMP_SOURCES_FLAG))
        .cloned()
        .collect();
    let mut flag = OsString::from(format!("{DUMP_SOURCES_FLAG}="));
    flag.push(sources);
    full.push(flag);
    if output_positions(command).is_empty() {
        full.extend(["-o".into(), default_output.into()]);
    }
    full
}

/// The command that compiles `source` alone into `output`: the user's
/// program and flags, without the input, the output, the dumps and the
/// compile mode and phases (see [`DROPPED_FLAGS`]), with
/// `--compile-mode=hal-executable SOURCE -o OUTPUT`. The target flags stay;
/// the executable's own `hal.executable.variant` names its target anyway.
pub(crate) fn executable_command(
    command: &[OsString],
    source: &Path,
    output: &Path,
) -> Vec<OsString> {
    let Some((program, args)) = command.split_first() else {
        return Vec::new();
    };
    let mut dropped = output_positions(command);
    dropped.extend(input_position(command));
    let mut single: Vec<OsString> = vec![program.clone()];
    single.extend(
        args.iter()
            .enumerate()
            .filter(|(index, arg)| {
                !dropped.contains(&(index + 1))
                    && !DROPPED_FLAGS.iter().any(|flag| starts_with(arg, flag))
            })
            .map(|(_, arg)| arg.clone()),
    );
    single.extend([
        "--compile-mode=hal-executable".into(),
        source.into(),
        "-o".into(),
        output.into(),
    ]);
    single
}

/// Positions in `command` (the program at 0) of the output options and
/// their values, as `record` finds the output.
fn output_positions(command: &[OsString]) -> Vec<usize> {
    let args = command.get(1..).unwrap_or_default();
    let at = named_outputs(args).file_option_at;
    at.into_iter().map(|at| at + 1).collect()
}

/// The position of the input in `command`: of the arguments that are not
/// options nor an output option's value, the last that names a file (or
/// `-`, stdin), else the last. iree-compile takes one input, and its flags
/// take their values with `=`.
fn input_position(command: &[OsString]) -> Option<usize> {
    let outputs = output_positions(command);
    let positional: Vec<usize> = (1..command.len())
        .filter(|index| !outputs.contains(index))
        .filter(|&index| {
            let arg = command[index].to_string_lossy();
            arg == "-" || !arg.starts_with('-')
        })
        .collect();
    positional
        .iter()
        .rev()
        .find(|&&index| command[index] == "-" || Path::new(&command[index]).is_file())
        .or(positional.last())
        .copied()
}

fn starts_with(arg: &OsStr, prefix: &str) -> bool {
    arg.to_string_lossy().starts_with(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn an_executable_keeps_the_target_flags_and_drops_input_output_and_dumps() {
        let input = std::env::temp_dir().join("compile-perf-executables-input.mlir");
        std::fs::write(&input, "module {}").expect("temp file");
        let command = args(&[
            "iree-compile",
            "--iree-hal-target-device=local",
            "--iree-hal-dump-executable-binaries-to=bin",
            input.to_str().expect("utf-8 path"),
            "-o",
            "model.vmfb",
            "--iree-llvmcpu-target-cpu=generic",
            "--compile-to=hal",
        ]);
        let single = executable_command(&command, Path::new("e.mlir"), Path::new("e.bin"));
        assert_eq!(
            single,
            args(&[
                "iree-compile",
                "--iree-hal-target-device=local",
                "--iree-llvmcpu-target-cpu=generic",
                "--compile-mode=hal-executable",
                "e.mlir",
                "-o",
                "e.bin",
            ])
        );
        let _ = std::fs::remove_file(input);
    }

    #[test]
    fn the_input_is_the_positional_that_names_a_file_and_outputs_take_every_form() {
        let command = args(&["iree-compile", "--o=x.vmfb", "-", "-o=y"]);
        assert_eq!(input_position(&command), Some(2));
        assert_eq!(output_positions(&command), vec![1, 3]);
        let command = args(&["iree-compile", "-o", "x.vmfb", "m.mlir", "-o", "-"]);
        assert_eq!(input_position(&command), Some(3));
        assert_eq!(output_positions(&command), vec![1, 2, 4, 5]);
        let command = args(&["iree-compile", "model.mlir"]);
        assert_eq!(input_position(&command), Some(1));
    }

    #[test]
    fn the_full_compile_dumps_into_the_run_directory_and_gets_an_output() {
        let command = args(&[
            "iree-compile",
            "m.mlir",
            "--iree-hal-dump-executable-sources-to=mine",
        ]);
        let full = full_compile_command(&command, Path::new("run/sources"), Path::new("run/m"));
        assert_eq!(
            full,
            args(&[
                "iree-compile",
                "m.mlir",
                "--iree-hal-dump-executable-sources-to=run/sources",
                "-o",
                "run/m",
            ])
        );
    }
}
