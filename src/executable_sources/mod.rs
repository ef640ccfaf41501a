//! The executables a compile dumped (`--iree-hal-dump-executable-sources-to`,
//! by `record --actions` and `executables` into the run directory's
//! `sources/`): each source's executable and entry points, and which of
//! them are alike (`twins.rs`). The one reading the recorder's dumps, the
//! run directory, the findings and `executables` share.

mod twins;

use std::path::{Path, PathBuf};

pub(crate) use twins::{Alike, Likeness, alike, diff_command, listed_names};

/// The directory below the run directory that the sources are dumped into.
pub(crate) const SOURCES_DIR: &str = "sources";

/// The flag that makes iree-compile dump every executable's source.
pub(crate) const DUMP_SOURCES_FLAG: &str = "--iree-hal-dump-executable-sources-to";

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
    /// The source, as dumped (read once, for its names and for [`alike`]).
    pub text: String,
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
            text,
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
