//! `compile-perf executables`, the running half: the full compile made to
//! dump its executables (`--iree-hal-dump-executable-sources-to`), the
//! dumped sources read (each executable's name and the entry points of its
//! `hal.executable.export` ops), the command line that compiles one alone
//! (`--compile-mode=hal-executable` with the user's other flags), and every
//! executable recorded under perf with `record`'s settings and a timeout,
//! as many times as asked (`run.rs`). Reading the recordings is the command's (`commands/executables.rs`).

mod run;
mod twins;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::artifact::named_outputs;

pub(crate) use run::{ExecutableRun, OneRun, Plan, record_executables};
pub(crate) use twins::{Alike, Likeness, alike};

/// The directory below the run directory that the sources are dumped into.
pub(crate) const SOURCES_DIR: &str = "sources";
/// The run directory of the full compile, below the run directory.
pub(crate) const FULL_COMPILE_DIR: &str = "full";
/// The directory of the executables' run directories, below the run directory.
pub(crate) const EXECUTABLES_DIR: &str = "executables";

/// The flag that makes iree-compile dump every executable's source.
const DUMP_SOURCES_FLAG: &str = "--iree-hal-dump-executable-sources-to";
/// Flags of the user's compile that an executable's compile leaves out:
/// the other dumps, and how far and from where the compile goes.
const DROPPED_FLAGS: [&str; 5] = [
    "--iree-hal-dump-executable-",
    "--compile-mode",
    "--compile-from",
    "--compile-to",
    "--output-format",
];

/// One executable that the full compile dumped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ExecutableSource {
    /// The `hal.executable`'s symbol (`main_dispatch_0`), or the file's
    /// name without `module_` and `.mlir` when it has none.
    pub name: String,
    /// The dumped file.
    pub file: PathBuf,
    /// The symbols of its `hal.executable.export` ops, in order.
    pub entry_points: Vec<String>,
}

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

/// The executables dumped into `dir`, in the order of their dispatch
/// numbers (`…_dispatch_2` before `…_dispatch_10`).
pub(crate) fn dumped_sources(dir: &Path) -> std::io::Result<Vec<ExecutableSource>> {
    let mut sources = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(sources),
        Err(error) => return Err(error),
    };
    for entry in entries {
        let file = entry?.path();
        if file.extension().is_none_or(|extension| extension != "mlir") {
            continue;
        }
        let text = std::fs::read_to_string(&file)?;
        let stem = file
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (name, entry_points) = parse_source(&text);
        sources.push(ExecutableSource {
            name: name.unwrap_or_else(|| stem.trim_start_matches("module_").to_owned()),
            file,
            entry_points,
        });
    }
    sources.sort_by_key(|source| natural_key(&source.name));
    Ok(sources)
}

/// The `hal.executable`'s symbol and the symbols of its
/// `hal.executable.export` ops, from a dumped source.
fn parse_source(text: &str) -> (Option<String>, Vec<String>) {
    let symbol_after = |line: &str, op: &str| -> Option<String> {
        let rest = line.trim_start().strip_prefix(op)?;
        let word = rest.split_whitespace().find(|word| word.starts_with('@'))?;
        let symbol = word.trim_start_matches('@').trim_matches('"');
        Some(symbol.to_owned())
    };
    let name = text
        .lines()
        .find_map(|line| symbol_after(line, "hal.executable "));
    let entry_points = text
        .lines()
        .filter_map(|line| symbol_after(line, "hal.executable.export "))
        .collect();
    (name, entry_points)
}

/// Sorts names by their text with each run of digits as a number.
fn natural_key(name: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for character in name.chars() {
        if character.is_ascii_digit() {
            digits.push(character);
        } else {
            if !digits.is_empty() {
                key.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u64::MAX),
                ));
                digits.clear();
            }
            text.push(character);
        }
    }
    let number = if digits.is_empty() {
        0
    } else {
        digits.parse().unwrap_or(u64::MAX)
    };
    key.push((text, number));
    key
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

    #[test]
    fn a_dumped_source_names_its_executable_and_entry_points() {
        let text = "hal.executable public @main_dispatch_3 {\n  hal.executable.variant public @embedded_elf_x86_64 target(<\"llvm-cpu\">) {\n    hal.executable.export public @main_dispatch_3_matmul_32x96x224_f32 ordinal(0) layout(#l) {\n    }\n    hal.executable.export public @second ordinal(1) layout(#l)\n";
        let (name, entry_points) = parse_source(text);
        assert_eq!(name.as_deref(), Some("main_dispatch_3"));
        assert_eq!(
            entry_points,
            ["main_dispatch_3_matmul_32x96x224_f32", "second"]
        );
    }

    #[test]
    fn dispatches_sort_by_number() {
        let mut names = vec!["main_dispatch_10", "main_dispatch_2", "main_dispatch_1"];
        names.sort_by_key(|name| natural_key(name));
        assert_eq!(
            names,
            ["main_dispatch_1", "main_dispatch_2", "main_dispatch_10"]
        );
    }
}
