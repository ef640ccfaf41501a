//! The module printed before and after IREE's `JitGlobalsPass`
//! (`--mlir-print-ir-before/after=iree-consteval-jit-globals`, constants
//! elided) read line by line: no MLIR parser, only the few forms the
//! printer writes at a module's top level and in an initializer.
//!
//! Before the pass, each global that const-eval will compute is a
//! `util.global private @G : TYPE` followed by a `util.initializer` whose
//! body loads its inputs (`arith.constant dense_resource<R> : T` or
//! `util.global.load @H : T`), applies ops and ends in
//! `util.global.store %v, @G`. After it, each global it computed has an
//! initial value (`util.global … @G … = … : TYPE`) and its initializer is
//! gone; what still refers to an input keeps that input in the module.

use hashbrown::{HashMap, HashSet};

use super::{ConstGlobal, Input, InputKind, tensor_bytes};

/// A line that starts the dump of the module before the pass.
pub(super) const BEFORE_HEADER: &str = "// -----// IR Dump Before JitGlobalsPass";
/// A line that starts the dump of the module after the pass.
pub(super) const AFTER_HEADER: &str = "// -----// IR Dump After JitGlobalsPass";

/// One initializer of the module before the pass.
#[derive(Debug, Default)]
struct Initializer {
    inputs: Vec<Input>,
    /// The ops applied, as [`op_kind`] names them, each once, in order.
    ops: Vec<String>,
    /// The globals it stores, with the type stored.
    stores: Vec<(String, String)>,
}

/// The globals const-eval computed: the initializers of `before` whose
/// globals have an initial value in `after`, with the inputs each read and
/// whether `after` still refers to them.
pub(super) fn globals(before: &str, after: &str) -> Vec<ConstGlobal> {
    let maps = affine_maps(before);
    let initializers = initializers(before, &maps);
    let after = module_body(after);
    let evaluated = initialized_globals(after);
    let kept = references(after);
    let mut globals = Vec::new();
    let mut functions_jitted = 0;
    for initializer in initializers {
        let computed: Vec<&(String, String)> = initializer
            .stores
            .iter()
            .filter(|(name, _)| evaluated.contains(name.as_str()))
            .collect();
        if computed.is_empty() {
            continue;
        }
        // IREE names each JIT'd function after the order of the
        // initializers it compiles: jit_eval, jit_eval_0, jit_eval_1, …
        let function = match functions_jitted {
            0 => "jit_eval".to_owned(),
            n => format!("jit_eval_{}", n - 1),
        };
        functions_jitted += 1;
        let inputs: Vec<Input> = initializer
            .inputs
            .iter()
            .map(|input| Input {
                kept: kept.contains(input.name.as_str()),
                ..input.clone()
            })
            .collect();
        for (at, (name, ty)) in computed.into_iter().enumerate() {
            // Inputs not kept are freed once: by the first global stored.
            let freed: u64 = match at {
                0 => inputs
                    .iter()
                    .filter(|input| !input.kept)
                    .filter_map(|input| input.bytes)
                    .sum(),
                _ => 0,
            };
            let bytes = tensor_bytes(ty);
            globals.push(ConstGlobal {
                name: name.clone(),
                function: function.clone(),
                ty: ty.clone(),
                bytes,
                inputs: inputs.clone(),
                ops: initializer.ops.clone(),
                inputs_kept: inputs.iter().all(|input| input.kept),
                added_bytes: bytes.map(|bytes| bytes as i64 - freed as i64),
            });
        }
    }
    globals
}

/// The module's text without its trailing resource section (`{-# … #-}`),
/// whose keys name every resource, used or not.
fn module_body(text: &str) -> &str {
    text.find("\n{-#").map_or(text, |end| &text[..end])
}

/// `#mapN = affine_map<…>` aliases at the top of a dump.
fn affine_maps(text: &str) -> HashMap<&str, &str> {
    text.lines()
        .take_while(|line| !line.starts_with("module"))
        .filter_map(|line| {
            let (alias, map) = line.split_once(" = ")?;
            (alias.starts_with("#map") && map.starts_with("affine_map<")).then_some((alias, map))
        })
        .collect()
}

/// The module's initializers, in order.
fn initializers(before: &str, maps: &HashMap<&str, &str>) -> Vec<Initializer> {
    let body = module_body(before);
    let mut lines = body.lines();
    let mut found = Vec::new();
    while let Some(line) = lines.next() {
        if !line.starts_with("  util.initializer") {
            continue;
        }
        let mut initializer = Initializer::default();
        // The ops at the initializer's own depth, and the region of the
        // last one (a linalg.generic's body) until it closes.
        let mut region: Vec<&str> = Vec::new();
        let mut pending: Option<&str> = None;
        for line in lines.by_ref() {
            if line == "  }" {
                break;
            }
            if line.starts_with("      ") || line.starts_with("    ^") {
                region.push(line.trim());
                continue;
            }
            let op_line = line.trim();
            if let Some(op) = pending.take() {
                push_once(&mut initializer.ops, op_kind(op, &region, maps));
                region.clear();
            }
            if op_line.starts_with('}') {
                continue;
            }
            read_op(op_line, &mut initializer, &mut pending);
        }
        if let Some(op) = pending.take() {
            push_once(&mut initializer.ops, op_kind(op, &region, maps));
        }
        found.push(initializer);
    }
    found
}

/// One op line of an initializer: an input, a store, or an op applied
/// (kept `pending` until its region, if any, has been read).
fn read_op<'a>(line: &'a str, initializer: &mut Initializer, pending: &mut Option<&'a str>) {
    let op = line.split_once(" = ").map_or(line, |(_, op)| op);
    let ty = || line.rsplit_once(" : ").map(|(_, ty)| ty.to_owned());
    if let Some(rest) = op.strip_prefix("arith.constant ") {
        let (kind, name) = match rest.strip_prefix("dense_resource<") {
            Some(rest) => (InputKind::Resource, rest.split('>').next().unwrap_or(rest)),
            None => (InputKind::Inline, ""),
        };
        let ty = ty().unwrap_or_default();
        // A scalar constant is an operand, not an input.
        if ty.starts_with("tensor<") {
            initializer.inputs.push(Input {
                kind,
                name: name.to_owned(),
                bytes: tensor_bytes(&ty),
                ty,
                kept: false,
            });
        }
    } else if let Some(rest) = op.strip_prefix("util.global.load ") {
        let name = rest.trim_start_matches("immutable ");
        let name = name.split_whitespace().next().unwrap_or(name);
        let ty = ty().unwrap_or_default();
        initializer.inputs.push(Input {
            kind: InputKind::Global,
            name: name.trim_start_matches('@').to_owned(),
            bytes: tensor_bytes(&ty),
            ty,
            kept: false,
        });
    } else if let Some(rest) = op.strip_prefix("util.global.store ") {
        if let Some((_, target)) = rest.split_once(", @") {
            let (name, ty) = target.split_once(" : ").unwrap_or((target, ""));
            initializer.stores.push((name.to_owned(), ty.to_owned()));
        }
    } else if !op.starts_with("util.return") && !op.starts_with("tensor.empty") {
        *pending = Some(op);
    }
}

fn push_once(ops: &mut Vec<String>, op: String) {
    if !ops.contains(&op) {
        ops.push(op);
    }
}

/// What an op does, in words a user searches the IR for: `transpose`,
/// `broadcast`, `reshape`, `convert`, `dequantize`, `gather`… or the op's
/// own name.
fn op_kind(op: &str, region: &[&str], maps: &HashMap<&str, &str>) -> String {
    let name = op.split([' ', '(', '<', '{']).next().unwrap_or(op);
    let named = match name {
        "linalg.transpose" => "transpose",
        "linalg.broadcast" => "broadcast",
        "tensor.expand_shape" | "tensor.collapse_shape" | "tensor.reshape" => "reshape",
        "tensor.extract_slice" => "slice",
        "tensor.insert_slice" => "insert",
        "tensor.pad" => "pad",
        "linalg.fill" => "fill",
        "tensor.concat" => "concat",
        "linalg.generic" => return generic_kind(op, region, maps),
        other => other,
    };
    named.to_owned()
}

/// What a `linalg.generic` does, from its indexing maps and its body.
fn generic_kind(op: &str, region: &[&str], maps: &HashMap<&str, &str>) -> String {
    let body: Vec<&str> = region
        .iter()
        .filter(|line| !line.starts_with('^') && !line.starts_with('}'))
        .map(|line| line.split_once(" = ").map_or(*line, |(_, op)| op))
        .collect();
    let has = |prefix: &str| body.iter().any(|op| op.starts_with(prefix));
    const CASTS: [&str; 8] = [
        "arith.extf",
        "arith.truncf",
        "arith.sitofp",
        "arith.uitofp",
        "arith.fptosi",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
    ];
    let casts = CASTS.iter().any(|cast| has(cast));
    if has("tensor.extract") {
        return "gather".to_owned();
    }
    if casts
        && (has("arith.sitofp") || has("arith.uitofp"))
        && (has("arith.mulf") || has("arith.subf"))
    {
        return "dequantize".to_owned();
    }
    if casts && body.len() <= 2 {
        return "convert".to_owned();
    }
    if body.len() != 1 || !body[0].starts_with("linalg.yield") {
        return "elementwise".to_owned();
    }
    // A body that only yields its input moves data: the input's map says how.
    let input_map = indexing_maps(op, maps).into_iter().next();
    match input_map.map(map_shape) {
        Some(MapShape::Permutation) => "transpose",
        Some(MapShape::Broadcast) => "broadcast",
        _ => "copy",
    }
    .to_owned()
}

/// The `indexing_maps = [...]` of a `linalg.generic`, each resolved from
/// its alias.
fn indexing_maps<'a>(op: &'a str, maps: &HashMap<&str, &'a str>) -> Vec<&'a str> {
    let Some(start) = op.find("indexing_maps = [") else {
        return Vec::new();
    };
    let rest = &op[start + "indexing_maps = [".len()..];
    let mut found = Vec::new();
    let mut depth = 0;
    let mut from = 0;
    for (at, c) in rest.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' | ']' if depth == 0 => {
                let map = rest[from..at].trim();
                found.push(maps.get(map).copied().unwrap_or(map));
                from = at + 1;
                if c == ']' {
                    break;
                }
            }
            _ => {}
        }
    }
    found
}

#[derive(Debug, PartialEq)]
enum MapShape {
    Identity,
    Permutation,
    Broadcast,
    Other,
}

/// An `affine_map<(d0, d1) -> (d1, d0)>` as data movement.
fn map_shape(map: &str) -> MapShape {
    let inner = map.trim_start_matches("affine_map<").trim_end_matches('>');
    let Some((dims, results)) = inner.split_once(" -> ") else {
        return MapShape::Other;
    };
    let list = |text: &str| -> Vec<String> {
        text.trim_matches(|c| c == '(' || c == ')')
            .split(',')
            .map(|item| item.trim().to_owned())
            .filter(|item| !item.is_empty())
            .collect()
    };
    let (dims, results) = (list(dims), list(results));
    if !results.iter().all(|result| dims.contains(result)) {
        return MapShape::Other;
    }
    if results.len() < dims.len() {
        MapShape::Broadcast
    } else if results == dims {
        MapShape::Identity
    } else {
        MapShape::Permutation
    }
}

/// The globals that have an initial value: `util.global … @G {attributes}
/// = VALUE : TYPE`.
fn initialized_globals(module: &str) -> HashSet<&str> {
    module
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("  util.global ")?;
            let (_, named) = rest.split_once('@')?;
            let end = named.find([' ', ':']).unwrap_or(named.len());
            let (name, mut rest) = named.split_at(end);
            if let Some(attributes) = rest.strip_prefix(" {") {
                rest = after_closing_brace(attributes)?;
            }
            rest.starts_with(" = ").then_some(name)
        })
        .collect()
}

/// What follows the `}` that closes a `{` just before `text`.
fn after_closing_brace(text: &str) -> Option<&str> {
    let mut depth = 1;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[at + 1..]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every resource and global the module still refers to, outside the
/// declarations of globals themselves.
fn references(module: &str) -> HashSet<&str> {
    let mut found = HashSet::new();
    for line in module.lines() {
        let mut rest = line;
        while let Some(at) = rest.find("dense_resource<") {
            rest = &rest[at + "dense_resource<".len()..];
            found.insert(rest.split('>').next().unwrap_or(rest));
        }
        if line.starts_with("  util.global ") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find('@') {
            rest = &rest[at + 1..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.'))
                .unwrap_or(rest.len());
            found.insert(&rest[..end]);
        }
    }
    found
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
