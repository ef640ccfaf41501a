//! Executables the full compile built more than once, with the seconds
//! their compiles alone took, and the line the summary gives each group.

use serde::Serialize;

use super::{ExecutableEntry, round2};
use crate::executable_sources::{Alike, Likeness, diff_command, listed_names};

/// Executables the full compile built more than once: sources alike once
/// symbols and SSA names are renamed, or but for constants' values.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Duplicate {
    pub likeness: Likeness,
    pub executables: Vec<String>,
    /// Their dumped sources, in the run directory.
    pub sources: Vec<String>,
    /// Their wall seconds compiled alone, together.
    pub wall_seconds: f64,
    /// Of those, all but the slowest one's: what building the shape once
    /// would leave out, at most.
    pub repeated_wall_seconds: f64,
}

/// The groups of `alike` executables with the wall seconds of their
/// compiles alone (an executable not compiled counts none), each source
/// named by `in_run_dir`.
pub(crate) fn duplicates(
    alike: Vec<Alike>,
    executables: &[ExecutableEntry],
    in_run_dir: impl Fn(&std::path::Path) -> String,
) -> Vec<Duplicate> {
    alike
        .into_iter()
        .map(|group| {
            let walls: Vec<f64> = group
                .names
                .iter()
                .map(|name| {
                    executables
                        .iter()
                        .find(|entry| entry.name == *name)
                        .map_or(0.0, |entry| entry.wall_seconds)
                })
                .collect();
            let wall_seconds: f64 = walls.iter().sum();
            let slowest = walls.iter().copied().fold(0.0, f64::max);
            Duplicate {
                likeness: group.likeness,
                executables: group.names,
                sources: group.files.iter().map(|file| in_run_dir(file)).collect(),
                wall_seconds: round2(wall_seconds),
                repeated_wall_seconds: round2(wall_seconds - slowest),
            }
        })
        .collect()
}

/// `duplicated: N executables LIKENESS (names): seconds; see: diff A B`.
pub(super) fn duplicate_line(duplicate: &Duplicate) -> String {
    let see = diff_command(&duplicate.sources).map_or_else(String::new, |diff| {
        format!("; see, in the run directory: {diff}")
    });
    format!(
        "duplicated: {} executables {} ({}), each codegen'd on its own: {:.1} s compiled alone, {:.1} s of it beyond the slowest one{see}",
        duplicate.executables.len(),
        duplicate.likeness.words(),
        listed_names(&duplicate.executables),
        duplicate.wall_seconds,
        duplicate.repeated_wall_seconds,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::executables::tests::entry;

    #[test]
    fn duplicates_sum_their_compiles_and_name_what_repeats() {
        let executables = [
            entry("a", 1.0, Some(0), false),
            entry("b", 2.0, Some(0), false),
            entry("c", 0.5, Some(0), false),
        ];
        let names = ["a", "b", "c", "not_compiled", "e", "f", "g"];
        let alike = Alike {
            likeness: Likeness::ButForConstants,
            names: names.iter().map(|name| (*name).to_owned()).collect(),
            files: names
                .iter()
                .map(|name| std::path::PathBuf::from(format!("/run dir/sources/{name}.mlir")))
                .collect(),
        };
        let found = duplicates(vec![alike], &executables, |file| {
            file.strip_prefix("/run dir")
                .unwrap_or(file)
                .display()
                .to_string()
        });
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].wall_seconds, found[0].repeated_wall_seconds),
            (3.5, 1.5)
        );
        assert_eq!(found[0].sources[0], "sources/a.mlir");
        assert_eq!(
            duplicate_line(&found[0]),
            "duplicated: 7 executables the same but for constants (a, b, c, not_compiled, e, f and 1 more), \
             each codegen'd on its own: 3.5 s compiled alone, 1.5 s of it beyond the slowest one; \
             see, in the run directory: diff sources/a.mlir sources/b.mlir"
        );
    }
}
