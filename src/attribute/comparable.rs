//! Whether the two sides of a `diff` can be compared: a run whose compile
//! failed (a non-zero exit, a signal, Ctrl-C, or its `-o` output not
//! written) says nothing about compile time, and runs of different inputs
//! (by SHA-256) or different compiler flags compare two different compiles.
//! The gate refuses both; without a gate they are warnings.

use std::ffi::OsString;

use crate::artifact::{ArtifactRole, named_outputs};
use crate::run_dir::RunJson;

/// Flags that change what a compile reports or dumps, not what it
/// compiles (by prefix): `record --mlir-timing` adds the first two.
const OBSERVING_FLAGS: [&str; 6] = [
    "--mlir-timing",
    "--mlir-output-format",
    "--mlir-print-",
    "--iree-hal-dump-executable-",
    "--profile-actions-to",
    "--log-actions-to",
];

/// What a run compiled: its inputs and the compiler's flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Compiled {
    /// Each input's SHA-256, or its path and size when it was not hashed.
    inputs: Vec<String>,
    /// The command's arguments without the program, the inputs, `-o` and
    /// the [`OBSERVING_FLAGS`].
    flags: Vec<String>,
}

/// One run of a side that compiled nothing to compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FailedRun {
    /// The recording, as the diff names its runs.
    pub run: String,
    /// What went wrong, in words.
    pub reason: String,
}

/// What a side's runs compiled, and which of them failed.
#[derive(Clone, Debug, Default)]
pub(crate) struct SideRuns {
    pub failed: Vec<FailedRun>,
    /// What each run with a `run.json` compiled, in run order.
    pub compiled: Vec<Compiled>,
}

impl SideRuns {
    /// Adds the run recorded at `run_name`, with its `run.json` if it has one.
    pub(crate) fn add(&mut self, run_name: &str, run: Option<&RunJson>) {
        let Some(run) = run else {
            return;
        };
        if let Some(reason) = failure(run) {
            self.failed.push(FailedRun {
                run: run_name.to_owned(),
                reason,
            });
        }
        self.compiled.push(compiled(run));
    }
}

/// Why `run`'s compile produced nothing to compare; `None` when it finished.
pub(crate) fn failure(run: &RunJson) -> Option<String> {
    if run.interrupted {
        return Some("the compile was interrupted (Ctrl-C)".to_owned());
    }
    if let Some(exit) = run.exit.filter(|exit| exit.failed()) {
        return Some(format!("the compile failed ({exit})"));
    }
    let args: Vec<OsString> = run.command.iter().skip(1).map(OsString::from).collect();
    let declared = named_outputs(&args).file?;
    let written = run.artifacts.iter().any(|artifact| {
        artifact.role == ArtifactRole::Output && artifact.path == declared.to_string_lossy()
    });
    (!written).then(|| {
        format!(
            "the compile did not write its output {}",
            declared.display()
        )
    })
}

/// What `run` compiled.
fn compiled(run: &RunJson) -> Compiled {
    let args: Vec<OsString> = run.command.iter().skip(1).map(OsString::from).collect();
    let named = named_outputs(&args);
    let output_at = named.file_option_at;
    // Runs recorded before the output was left out of the inputs list it
    // when an earlier run had written it.
    let output = named.file.map(|file| file.to_string_lossy().into_owned());
    let flags = run
        .command
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(at, arg)| {
            !output_at.contains(&(at - 1))
                && !run.inputs.iter().any(|input| &input.path == *arg)
                && !OBSERVING_FLAGS.iter().any(|flag| arg.starts_with(flag))
        })
        .map(|(_, arg)| arg.clone())
        .collect();
    let mut inputs: Vec<String> = run
        .inputs
        .iter()
        .filter(|input| output.as_deref() != Some(input.path.as_str()))
        .map(|input| match &input.sha256 {
            Some(sha256) => sha256.clone(),
            None => format!("{} ({} bytes)", input.path, input.bytes),
        })
        .collect();
    inputs.sort_unstable();
    Compiled { inputs, flags }
}

/// Warnings, in words, when the runs did not all compile the same input
/// with the same flags: across the two sides, or within one.
pub(crate) fn mismatches(base: &SideRuns, new: &SideRuns) -> Vec<String> {
    let mut warnings = Vec::new();
    for (label, side) in [("BASE", base), ("NEW", new)] {
        if let Some(first) = side.compiled.first() {
            if side.compiled.iter().any(|run| run.inputs != first.inputs) {
                warnings.push(format!("the runs of {label} compiled different inputs"));
            }
            if side.compiled.iter().any(|run| run.flags != first.flags) {
                warnings.push(format!("the runs of {label} used different compiler flags"));
            }
        }
    }
    if let (Some(base), Some(new)) = (base.compiled.first(), new.compiled.first()) {
        if base.inputs != new.inputs {
            warnings.push(format!(
                "BASE and NEW compiled different inputs (SHA-256 {} against {})",
                short_list(&base.inputs),
                short_list(&new.inputs)
            ));
        }
        if base.flags != new.flags {
            warnings.push(format!(
                "BASE and NEW used different compiler flags ({} against {})",
                flags_only_in(&base.flags, &new.flags),
                flags_only_in(&new.flags, &base.flags)
            ));
        }
    }
    warnings
}

/// Hashes cut to 12 characters, joined.
fn short_list(inputs: &[String]) -> String {
    if inputs.is_empty() {
        return "none".to_owned();
    }
    inputs
        .iter()
        .map(|input| input.chars().take(12).collect::<String>())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The flags of `these` that `others` lacks, quoted, or "the same flags in
/// another order".
fn flags_only_in(these: &[String], others: &[String]) -> String {
    let only: Vec<String> = these
        .iter()
        .filter(|flag| !others.contains(flag))
        .map(|flag| format!("`{flag}`"))
        .collect();
    if only.is_empty() {
        "no flag of its own".to_owned()
    } else {
        only.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Artifact;
    use crate::run_dir::{CommandExit, InputFile};

    fn run(command: &str, sha256: &str, code: i32, wrote: bool) -> RunJson {
        let mut run = RunJson {
            command: command.split_whitespace().map(str::to_owned).collect(),
            exit: Some(CommandExit {
                code: Some(code),
                signal: None,
            }),
            inputs: vec![InputFile {
                path: "m.mlir".to_owned(),
                bytes: 10,
                sha256: Some(sha256.to_owned()),
            }],
            ..RunJson::default()
        };
        if wrote {
            let mut output = Artifact::vmfb_of(&[("module.fb", 10)], 0);
            output.path = "out.vmfb".to_owned();
            run.artifacts.push(output);
        }
        run
    }

    const COMPILE: &str = "iree-compile m.mlir --flag=1 -o out.vmfb";

    #[test]
    fn a_failed_exit_a_signal_an_interrupt_and_a_missing_output_are_failures() {
        assert_eq!(failure(&run(COMPILE, "aa", 0, true)), None);
        assert_eq!(
            failure(&run(COMPILE, "aa", 1, false)).as_deref(),
            Some("the compile failed (exit status: 1)")
        );
        let mut killed = run(COMPILE, "aa", 0, false);
        killed.exit = Some(CommandExit {
            code: None,
            signal: Some(9),
        });
        assert_eq!(
            failure(&killed).as_deref(),
            Some("the compile failed (signal: 9)")
        );
        let mut interrupted = run(COMPILE, "aa", 0, true);
        interrupted.interrupted = true;
        assert!(failure(&interrupted).unwrap().contains("interrupted"));
        assert_eq!(
            failure(&run(COMPILE, "aa", 0, false)).as_deref(),
            Some("the compile did not write its output out.vmfb")
        );
        // Output to stdout declares no file.
        let to_stdout = run("iree-compile m.mlir -o -", "aa", 0, false);
        assert_eq!(failure(&to_stdout), None);
    }

    #[test]
    fn the_same_input_and_flags_compare_whatever_the_compiler_and_output() {
        let mut base = SideRuns::default();
        base.add("a", Some(&run(COMPILE, "aa", 0, true)));
        let mut new = SideRuns::default();
        // Another build of the compiler, another output, and MLIR's timers
        // (record --mlir-timing) still compile the same.
        let other_compiler = "/new/build/iree-compile --mlir-timing --mlir-output-format=json \
                              m.mlir --flag=1 -o elsewhere.vmfb";
        new.add("b", Some(&run(other_compiler, "aa", 0, false)));
        // A second run finds the first one's output and, recorded before
        // that was fixed, listed it among its inputs.
        let mut second = run(COMPILE, "aa", 0, true);
        second.inputs.push(InputFile {
            path: "out.vmfb".to_owned(),
            bytes: 10,
            sha256: Some("cc".to_owned()),
        });
        base.add("a2", Some(&second));
        assert!(mismatches(&base, &new).is_empty());
        assert_eq!(new.failed.len(), 1, "elsewhere.vmfb was not written");
    }

    #[test]
    fn other_inputs_and_other_flags_are_named() {
        let mut base = SideRuns::default();
        base.add("a", Some(&run(COMPILE, "aaaaaaaaaaaaaaaa", 0, true)));
        let mut new = SideRuns::default();
        new.add(
            "b",
            Some(&run(
                "iree-compile m.mlir --flag=2 -o out.vmfb",
                "bbbbbbbbbbbbbbbb",
                0,
                true,
            )),
        );
        new.add("c", Some(&run(COMPILE, "aaaaaaaaaaaaaaaa", 0, true)));
        assert_eq!(
            mismatches(&base, &new),
            [
                "the runs of NEW compiled different inputs",
                "the runs of NEW used different compiler flags",
                "BASE and NEW compiled different inputs (SHA-256 aaaaaaaaaaaa against bbbbbbbbbbbb)",
                "BASE and NEW used different compiler flags (`--flag=1` against `--flag=2`)",
            ]
        );
    }
}
