//! The Const-eval section of `report`: the globals const-eval computed at
//! compile time (`consteval.json`), largest addition to the module first,
//! each with its inputs, the ops applied and whether its inputs stay; the
//! header's one-line summary; and `diff`'s globals added, removed or grown
//! between two compiles.

use std::io::Write;

use super::table::{Colors, Column, Table, TextFormat, write_table};
use crate::consteval::{ConstEval, ConstGlobal, Input};

/// Globals listed in the text table; JSON lists every one.
const TEXT_GLOBALS: usize = 10;

/// Bytes as MiB, with a sign when asked.
fn mib(bytes: i64, signed: bool) -> String {
    let value = bytes as f64 / (1024.0 * 1024.0);
    match signed {
        true => format!("{value:+.1} MiB"),
        false => format!("{value:.1} MiB"),
    }
}

/// The header's line: how many globals, what they added, and the largest.
pub(crate) fn summary_line(consteval: &ConstEval) -> String {
    let mut line = format!(
        "const-eval: {} global{} computed at compile time ({}), adding {} to the module",
        consteval.globals.len(),
        if consteval.globals.len() == 1 {
            ""
        } else {
            "s"
        },
        mib(consteval.global_bytes as i64, false),
        mib(consteval.added_bytes, true),
    );
    if let Some(largest) = consteval
        .globals
        .first()
        .filter(|g| g.added_bytes > Some(0))
    {
        line.push_str(&format!(
            "; most by @{} ({}, {} of {})",
            largest.name,
            mib(largest.added_bytes.unwrap_or(0), true),
            largest.ops.join(", "),
            largest
                .inputs
                .iter()
                .map(Input::words)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    line
}

/// Writes the section; nothing without const-eval's globals.
pub(crate) fn write_text(
    consteval: Option<&ConstEval>,
    format: TextFormat,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let Some(consteval) = consteval.filter(|consteval| !consteval.globals.is_empty()) else {
        return Ok(());
    };
    let markdown = format == TextFormat::Markdown;
    writeln!(out)?;
    writeln!(out, "{}const-eval", if markdown { "### " } else { "" })?;
    writeln!(out)?;
    writeln!(out, "{}", summary_line(consteval))?;
    writeln!(out)?;
    write_table(
        &globals_table(&consteval.globals),
        format,
        Colors::Plain,
        out,
    )?;
    let more = consteval.globals.len().saturating_sub(TEXT_GLOBALS);
    if more > 0 {
        writeln!(out, "… {more} more (report --format json lists every one)")?;
    }
    Ok(())
}

fn globals_table(globals: &[ConstGlobal]) -> Table {
    let rows = globals
        .iter()
        .take(TEXT_GLOBALS)
        .map(|global| {
            let inputs = global
                .inputs
                .iter()
                .map(Input::words)
                .collect::<Vec<_>>()
                .join("; ");
            vec![
                format!("@{}", global.name).into(),
                global.ty.clone().into(),
                global
                    .bytes
                    .map_or_else(String::new, |b| b.to_string())
                    .into(),
                global
                    .added_bytes
                    .map_or_else(String::new, |b| format!("{b:+}"))
                    .into(),
                global.ops.join(", ").into(),
                inputs.into(),
                global.function.clone().into(),
            ]
        })
        .collect();
    Table {
        columns: vec![
            Column::left("global"),
            Column::left("type"),
            Column::right("bytes"),
            Column::right("added bytes"),
            Column::left("ops"),
            Column::left("from"),
            Column::left("JIT function"),
        ],
        rows,
    }
}

/// A global of one side of `diff`, or of both.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) struct GlobalChange {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    /// What it added to the module on each side (`None`: not there).
    pub base_added_bytes: Option<i64>,
    pub new_added_bytes: Option<i64>,
    pub ops: Vec<String>,
    pub inputs: Vec<String>,
}

/// The globals added, removed, or whose addition changed, between `base`
/// and `new` (either may have no const-eval), largest change first.
pub(crate) fn changes<'a>(
    base: Option<&'a ConstEval>,
    new: Option<&'a ConstEval>,
) -> Vec<GlobalChange> {
    fn globals(side: Option<&ConstEval>) -> &[ConstGlobal] {
        side.map_or(&[], |consteval| consteval.globals.as_slice())
    }
    let find = |side: Option<&'a ConstEval>, name: &str| {
        globals(side).iter().find(|global| global.name == name)
    };
    let mut names: Vec<&str> = globals(base)
        .iter()
        .chain(globals(new))
        .map(|global| global.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut changes: Vec<GlobalChange> = names
        .into_iter()
        .filter_map(|name| {
            let (old, now) = (find(base, name), find(new, name));
            let added = |global: Option<&ConstGlobal>| global.map(|g| g.added_bytes.unwrap_or(0));
            let (base_added, new_added) = (added(old), added(now));
            if base_added == new_added && old.map(|g| &g.ty) == now.map(|g| &g.ty) {
                return None;
            }
            let shown = now.or(old)?;
            Some(GlobalChange {
                name: name.to_owned(),
                ty: shown.ty.clone(),
                base_added_bytes: base_added,
                new_added_bytes: new_added,
                ops: shown.ops.clone(),
                inputs: shown.inputs.iter().map(Input::words).collect(),
            })
        })
        .collect();
    let moved = |change: &GlobalChange| {
        (change.new_added_bytes.unwrap_or(0) - change.base_added_bytes.unwrap_or(0)).abs()
    };
    changes.sort_by(|a, b| moved(b).cmp(&moved(a)).then_with(|| a.name.cmp(&b.name)));
    changes
}

/// `diff`'s lines for the const-eval globals that changed; nothing when
/// none did.
pub(crate) fn write_changes(
    base: Option<&ConstEval>,
    new: Option<&ConstEval>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let changes = changes(base, new);
    if changes.is_empty() {
        return Ok(());
    }
    let total = |side: Option<&ConstEval>| side.map_or(0, |c| c.added_bytes);
    writeln!(out)?;
    writeln!(
        out,
        "const-eval: {} → {} added to the module ({})",
        mib(total(base), true),
        mib(total(new), true),
        mib(total(new) - total(base), true)
    )?;
    for change in changes.iter().take(TEXT_GLOBALS) {
        let what = match (change.base_added_bytes, change.new_added_bytes) {
            (None, Some(added)) => format!("new global, {}", mib(added, true)),
            (Some(added), None) => format!("gone, was {}", mib(added, true)),
            (Some(old), Some(now)) => format!("{} → {}", mib(old, true), mib(now, true)),
            (None, None) => continue,
        };
        writeln!(
            out,
            "  @{} {}: {what}; {} of {}",
            change.name,
            change.ty,
            change.ops.join(", "),
            change.inputs.join("; ")
        )?;
    }
    let more = changes.len().saturating_sub(TEXT_GLOBALS);
    if more > 0 {
        writeln!(out, "  … {more} more (diff --format json lists every one)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consteval::InputKind;

    fn global(name: &str, added: i64) -> ConstGlobal {
        ConstGlobal {
            name: name.to_owned(),
            function: "jit_eval".to_owned(),
            ty: "tensor<1x768x30522xf32>".to_owned(),
            bytes: Some(added.unsigned_abs()),
            inputs: vec![Input {
                kind: InputKind::Resource,
                name: "torch_tensor_30522_768_torch.float32".to_owned(),
                ty: "tensor<30522x768xf32>".to_owned(),
                bytes: Some(93_763_584),
                kept: true,
            }],
            ops: vec!["reshape".to_owned(), "transpose".to_owned()],
            inputs_kept: true,
            added_bytes: Some(added),
        }
    }

    fn consteval(globals: Vec<ConstGlobal>) -> ConstEval {
        ConstEval {
            added_bytes: globals.iter().filter_map(|g| g.added_bytes).sum(),
            global_bytes: globals.iter().filter_map(|g| g.bytes).sum(),
            globals,
        }
    }

    #[test]
    fn diff_names_the_global_const_eval_added_and_says_nothing_of_the_same_ones() {
        let on = consteval(vec![global("embedding", 93_763_584), global("w", 0)]);
        let changes = changes(None, Some(&on));
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].name, "embedding");
        assert_eq!(
            (changes[0].base_added_bytes, changes[0].new_added_bytes),
            (None, Some(93_763_584))
        );
        let mut text = Vec::new();
        write_changes(None, Some(&on), &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("@embedding tensor<1x768x30522xf32>: new global, +89.4 MiB"),
            "{text}"
        );
        assert!(
            text.contains("transpose of torch_tensor_30522_768_torch.float32"),
            "{text}"
        );
        assert!(super::changes(Some(&on), Some(&on)).is_empty());
        let gone = super::changes(Some(&on), None);
        assert_eq!(gone[0].new_added_bytes, None);
    }

    #[test]
    fn the_summary_names_the_largest_addition_with_its_input() {
        let line = summary_line(&consteval(vec![global("embedding", 93_763_584)]));
        assert_eq!(
            line,
            "const-eval: 1 global computed at compile time (89.4 MiB), adding +89.4 MiB to \
             the module; most by @embedding (+89.4 MiB, reshape, transpose of \
             torch_tensor_30522_768_torch.float32 tensor<30522x768xf32>, kept)"
        );
    }
}
