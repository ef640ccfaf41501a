//! Const-eval explained by `record`: the flags that make iree-compile print
//! the module around `JitGlobalsPass`, and `consteval.json` made from what
//! it printed.

use std::ffi::OsString;
use std::path::Path;

use super::RecordOptions;
use crate::consteval::{CONSTEVAL_FILE, ConstEval, IR_DIR, with_consteval_flags};
use crate::mlir_timing::iree_compile_command;
use crate::run_dir::RunJson;

/// The command with const-eval's flags, and a note for `run.json` when an
/// iree-compile command could not have them (it prints IR itself, or
/// writes MLIR text). Other programs are left alone, without a note.
pub(super) fn command_with_flags(
    command: Vec<OsString>,
    options: &RecordOptions,
) -> (Vec<OsString>, Option<String>) {
    if !options.consteval {
        return (command, None);
    }
    match with_consteval_flags(&command, &options.output_dir) {
        Ok(with_flags) => (with_flags, None),
        Err(reason) => {
            let compiler = iree_compile_command(&command, "").is_ok();
            let note = compiler.then(|| {
                format!("const-eval is not explained: {reason} (see record --no-consteval)")
            });
            (command, note)
        }
    }
}

/// Reads the module iree-compile printed around `JitGlobalsPass` into
/// `dir`'s [`IR_DIR`] and keeps the globals as [`CONSTEVAL_FILE`]; notes in
/// `run` why there is none.
pub(super) fn keep_consteval(
    dir: &Path,
    command_run: &[OsString],
    note: Option<String>,
    run: &mut RunJson,
) {
    if let Some(note) = note {
        run.notes.push(note);
        return;
    }
    let asked = command_run.iter().any(|arg| {
        arg.to_string_lossy()
            .starts_with("--mlir-print-ir-tree-dir=")
    });
    if !asked {
        return;
    }
    let ir_dir = dir.join(IR_DIR);
    let mut texts = Vec::new();
    read_texts(&ir_dir, &mut texts);
    if texts.is_empty() {
        run.notes.push(
            "const-eval: JitGlobalsPass did not run (const-eval off, or the compile \
             stopped before it), so there is no consteval.json"
                .to_owned(),
        );
        return;
    }
    run.outputs.push(IR_DIR.to_owned());
    let Some(consteval) = ConstEval::from_files(texts.iter().map(String::as_str)) else {
        run.notes.push(format!(
            "const-eval: {IR_DIR} holds no module printed both before and after \
             JitGlobalsPass (the compile stopped in it?), so there is no {CONSTEVAL_FILE}"
        ));
        return;
    };
    let written = crate::output::write_file(&dir.join(CONSTEVAL_FILE), |out| {
        serde_json::to_writer(&mut *out, &consteval)?;
        writeln!(out)
    });
    match written {
        Ok(()) => run.outputs.push(CONSTEVAL_FILE.to_owned()),
        Err(error) => run
            .notes
            .push(format!("const-eval: {CONSTEVAL_FILE} not written: {error}")),
    }
}

/// The text of every file under `dir` (the printer writes one directory
/// per operation printed), in no particular order.
fn read_texts(dir: &Path, texts: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            read_texts(&path, texts);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            texts.push(text);
        }
    }
}
