//! Const-eval explained: the globals IREE's `JitGlobalsPass` computed at
//! compile time (`consteval.json` of `record`), each with the JIT'd
//! function, its inputs, the ops applied, its type and bytes, whether its
//! inputs stay in the module, and so the bytes it added to the module. The
//! flags that make iree-compile print the module around the pass (constants
//! elided, into a directory of the run), and the one type the recorder
//! writes and the reports and `diff` read.

mod parse;

use std::ffi::OsString;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The globals' file in the run directory.
pub(crate) const CONSTEVAL_FILE: &str = "consteval.json";
/// The directory, in the run directory, that iree-compile prints the module
/// into before and after `JitGlobalsPass`.
pub(crate) const IR_DIR: &str = "consteval-ir";
/// The pass's argument, as `--mlir-print-ir-before` takes it.
const PASS_ARGUMENT: &str = "iree-consteval-jit-globals";
/// Elements and resource strings longer than this are elided in the
/// printed module: the weights are not printed, their names and types are.
const ELIDE_LARGER_THAN: u32 = 16;
/// Flags that print IR or elide it: when the command has one, the printed
/// module is the user's, and record adds none of its own.
const PRINTING_FLAGS: [&str; 3] = ["--mlir-print-ir", "--mlir-elide-", "--mlir-print-debuginfo"];
/// Flags after which the compile writes MLIR as text, where the elision
/// flags would elide the output's own constants.
const TEXT_OUTPUT_FLAGS: [&str; 3] = ["--compile-to", "--output-format", "--compile-mode"];

/// Where an input of a global comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum InputKind {
    /// A constant of the module (`dense_resource<NAME>`): a weight.
    Resource,
    /// Another global (`util.global.load @NAME`).
    Global,
    /// A constant written inline (a splat, or small).
    Inline,
}

/// One input of a global's initializer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Input {
    pub kind: InputKind,
    /// The resource's or global's name; empty for an inline constant.
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    /// `None` for a type whose size is not static.
    pub bytes: Option<u64>,
    /// Whether the module still refers to it after the pass: then it stays
    /// in the compiled module beside the global.
    pub kept: bool,
}

impl Input {
    /// How the input reads: its name (or `inline constant`) and type, and
    /// `kept` when the module still holds it.
    pub(crate) fn words(&self) -> String {
        let name = match self.kind {
            InputKind::Inline => "inline constant".to_owned(),
            InputKind::Global => format!("@{}", self.name),
            InputKind::Resource => self.name.clone(),
        };
        let kept = if self.kept { ", kept" } else { "" };
        format!("{name} {}{kept}", self.ty)
    }
}

/// One global const-eval computed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ConstGlobal {
    pub name: String,
    /// The JIT'd function that computed it, as `--iree-consteval-jit-debug`
    /// names it.
    pub function: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub bytes: Option<u64>,
    pub inputs: Vec<Input>,
    /// The ops applied to the inputs, each once, in order (`reshape`,
    /// `transpose`, `broadcast`, `dequantize`, or the op's name).
    pub ops: Vec<String>,
    /// Every input stays in the module.
    pub inputs_kept: bool,
    /// The global's bytes less those of the inputs it frees (negative when
    /// it is smaller than they were).
    pub added_bytes: Option<i64>,
}

/// What const-eval did in one compile: `consteval.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ConstEval {
    /// Largest `added_bytes` first.
    pub globals: Vec<ConstGlobal>,
    /// The sum of the globals' `added_bytes`.
    pub added_bytes: i64,
    /// The sum of the globals' bytes.
    pub global_bytes: u64,
}

impl ConstEval {
    /// Reads the module as printed `before` and `after` the pass.
    pub(crate) fn from_dumps(before: &str, after: &str) -> ConstEval {
        let mut globals = parse::globals(before, after);
        globals.sort_by(|a, b| {
            (b.added_bytes.unwrap_or(0), &a.name).cmp(&(a.added_bytes.unwrap_or(0), &b.name))
        });
        ConstEval {
            added_bytes: globals.iter().filter_map(|g| g.added_bytes).sum(),
            global_bytes: globals.iter().filter_map(|g| g.bytes).sum(),
            globals,
        }
    }

    /// The dumps in `texts` told apart by their first line: the module
    /// before the pass and after it; `None` when either is missing.
    pub(crate) fn from_files<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<ConstEval> {
        let (mut before, mut after) = (None, None);
        for text in texts {
            if text.starts_with(parse::BEFORE_HEADER) {
                before = Some(text);
            } else if text.starts_with(parse::AFTER_HEADER) {
                after = Some(text);
            }
        }
        Some(ConstEval::from_dumps(before?, after?))
    }
}

/// `command` with the flags that print the module around `JitGlobalsPass`
/// into `dir`/[`IR_DIR`], constants elided; `Err` with the reason when
/// they are not added: the program is not iree-compile, it prints or
/// elides IR itself, or writes MLIR text that elision would change.
pub(crate) fn with_consteval_flags(
    command: &[OsString],
    dir: &Path,
) -> Result<Vec<OsString>, String> {
    let (program, args) = crate::mlir_timing::iree_compile_command(command, "const-eval's flags")?;
    let given = |flags: &[&str]| {
        args.iter()
            .map(|arg| arg.to_string_lossy())
            .find(|arg| flags.iter().any(|flag| arg.starts_with(flag)))
    };
    if let Some(flag) = given(&PRINTING_FLAGS) {
        return Err(format!("the command prints IR itself ({flag})"));
    }
    if let Some(flag) = given(&TEXT_OUTPUT_FLAGS) {
        return Err(format!(
            "the command has {flag}: eliding constants could change what it writes"
        ));
    }
    let mut tree = OsString::from("--mlir-print-ir-tree-dir=");
    tree.push(dir.join(IR_DIR));
    let mut added = vec![
        program.clone(),
        format!("--mlir-print-ir-before={PASS_ARGUMENT}").into(),
        format!("--mlir-print-ir-after={PASS_ARGUMENT}").into(),
        tree,
        format!("--mlir-elide-elementsattrs-if-larger={ELIDE_LARGER_THAN}").into(),
        format!("--mlir-elide-resource-strings-if-larger={ELIDE_LARGER_THAN}").into(),
    ];
    added.extend(args.iter().cloned());
    Ok(added)
}

/// The bytes of a `tensor<AxBxT>` type; `None` when a dimension is dynamic
/// or the element type has no known size.
pub(crate) fn tensor_bytes(ty: &str) -> Option<u64> {
    let inner = ty.strip_prefix("tensor<")?.strip_suffix('>')?;
    let inner = inner.split(", ").next()?;
    let mut parts: Vec<&str> = inner.split('x').collect();
    let element = parts.pop()?;
    let bits: u64 = match element {
        "i1" | "i8" | "si8" | "ui8" => 8,
        "i4" | "si4" | "ui4" => 4,
        "f16" | "bf16" | "i16" | "si16" | "ui16" => 16,
        "f32" | "i32" | "si32" | "ui32" | "index" => 32,
        "f64" | "i64" | "si64" | "ui64" | "complex<f32>" => 64,
        "complex<f64>" => 128,
        other if other.starts_with("f8") => 8,
        _ => return None,
    };
    let mut elements: u64 = 1;
    for dim in parts {
        elements = elements.checked_mul(dim.parse().ok()?)?;
    }
    Some((elements * bits).div_ceil(8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_bytes_count_elements_by_their_width() {
        assert_eq!(tensor_bytes("tensor<30522x768xf32>"), Some(93_763_584));
        assert_eq!(tensor_bytes("tensor<1x768x30522xf32>"), Some(93_763_584));
        assert_eq!(tensor_bytes("tensor<3x5xi4>"), Some(8));
        assert_eq!(tensor_bytes("tensor<f32>"), Some(4));
        assert_eq!(tensor_bytes("tensor<?x4xf32>"), None);
        assert_eq!(tensor_bytes("!hal.device"), None);
    }

    #[test]
    fn flags_are_added_after_the_program_and_refused_where_they_would_change_the_output() {
        let command: Vec<OsString> = ["iree-compile", "m.mlir", "-o", "m.vmfb"]
            .map(OsString::from)
            .to_vec();
        let added = with_consteval_flags(&command, Path::new("/run")).unwrap();
        assert_eq!(added[0], "iree-compile");
        assert!(added.contains(&OsString::from(
            "--mlir-print-ir-tree-dir=/run/consteval-ir"
        )));
        assert_eq!(&added[added.len() - 3..], &command[1..]);
        let text = [&command[..], &["--compile-to=flow".into()]].concat();
        assert!(with_consteval_flags(&text, Path::new("/run")).is_err());
        let printing = [&command[..], &["--mlir-print-ir-after-all".into()]].concat();
        assert!(with_consteval_flags(&printing, Path::new("/run")).is_err());
        let python: Vec<OsString> = vec!["python3".into(), "c.py".into()];
        assert!(with_consteval_flags(&python, Path::new("/run")).is_err());
    }
}
