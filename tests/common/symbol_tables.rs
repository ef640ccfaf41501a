//! Symbol tables read with `nm` (and `/proc/kallsyms` for the kernel), to
//! tell when perf and compile-perf name one address differently (`cfree`
//! and `free`).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Symbol name (without `@VERSION`) → addresses, for one DSO.
pub(crate) type SymbolTable = HashMap<String, BTreeSet<u64>>;

pub(crate) fn unversioned(name: &str) -> &str {
    name.split('@').next().unwrap_or(name)
}

/// The addresses of every defined symbol in the files of `dso`, from `nm`
/// (`.symtab` and `.dynsym`, and the separate debug file perf may have used),
/// or from `/proc/kallsyms` for the kernel.
pub(crate) fn symbol_table(
    dso: &str,
    paths: Option<&BTreeSet<PathBuf>>,
) -> Result<SymbolTable, String> {
    let mut table = SymbolTable::new();
    if dso == "[kernel.kallsyms]" {
        let text = std::fs::read_to_string("/proc/kallsyms")
            .map_err(|error| format!("cannot read /proc/kallsyms: {error}"))?;
        add_nm_lines(&mut table, &text);
        if table.values().flatten().all(|&address| address == 0) {
            return Err("/proc/kallsyms hides addresses".to_owned());
        }
        return Ok(table);
    }
    let paths = paths.ok_or_else(|| format!("perf report -v names no file for {dso}"))?;
    for path in paths {
        let mut files = vec![path.clone()];
        if let Some(debug) = debug_file_by_build_id(path) {
            files.push(debug);
        }
        for file in &files {
            for dynamic in [false, true] {
                let mut nm = Command::new("nm");
                if dynamic {
                    nm.arg("-D");
                }
                // A file without one of the tables makes nm fail; the other may still do.
                if let Ok(output) = nm.arg("--defined-only").arg(file).output() {
                    add_nm_lines(&mut table, &String::from_utf8_lossy(&output.stdout));
                }
            }
        }
    }
    if table.is_empty() {
        return Err(format!("nm finds no symbols in {paths:?}"));
    }
    Ok(table)
}

/// Adds `ADDRESS TYPE NAME` lines (nm and /proc/kallsyms) to `table`.
pub(crate) fn add_nm_lines(table: &mut SymbolTable, text: &str) {
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (Some(address), Some(_kind), Some(name)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if let Ok(address) = u64::from_str_radix(address, 16) {
            table
                .entry(unversioned(name).to_owned())
                .or_default()
                .insert(address);
        }
    }
}

/// `/usr/lib/debug/.build-id/xx/yyyy.debug` of `path`, if it exists.
pub(crate) fn debug_file_by_build_id(path: &Path) -> Option<PathBuf> {
    let id = build_id(path).filter(|id| id.len() >= 2)?;
    let hex = hex(&id);
    let debug = PathBuf::from(format!(
        "/usr/lib/debug/.build-id/{}/{}.debug",
        &hex[..2],
        &hex[2..]
    ));
    debug.is_file().then_some(debug)
}

/// The GNU build id of an ELF file.
pub(crate) fn build_id(path: &Path) -> Option<Vec<u8>> {
    use object::Object;
    let file = File::open(path).ok()?;
    // SAFETY: the file is a library or test binary that nothing modifies while
    // this short-lived read-only map exists.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    let elf = object::File::parse(&*map).ok()?;
    elf.build_id().ok()?.map(<[u8]>::to_vec)
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}
