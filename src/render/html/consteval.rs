//! The Const-eval section of the HTML page: the globals const-eval
//! computed, largest addition to the module first, with their inputs, the
//! ops applied and the JIT'd function.

use std::fmt::Write as _;

use super::xml_escape;
use crate::consteval::{ConstEval, Input};

/// Writes the section; nothing without const-eval's globals.
pub(super) fn write_consteval(html: &mut String, consteval: Option<&ConstEval>) {
    let Some(consteval) = consteval.filter(|consteval| !consteval.globals.is_empty()) else {
        return;
    };
    let mib = |bytes: f64| bytes / (1024.0 * 1024.0);
    let _ = writeln!(
        html,
        "<h2 id=\"consteval\">Const-eval</h2>\n<p>{} globals computed at compile time \
         ({:.1} MiB), adding {:+.1} MiB to the module.</p>",
        consteval.globals.len(),
        mib(consteval.global_bytes as f64),
        mib(consteval.added_bytes as f64)
    );
    html.push_str(
        "<table class=\"rows consteval sortable\">\n<thead><tr><th data-type=\"text\">global</th>\
         <th data-type=\"text\">type</th><th data-type=\"number\">bytes</th>\
         <th data-type=\"number\">added bytes</th><th data-type=\"text\">ops</th>\
         <th data-type=\"text\">from</th><th data-type=\"text\">JIT function</th></tr></thead>\n<tbody>\n",
    );
    for global in &consteval.globals {
        let inputs = global
            .inputs
            .iter()
            .map(|input| xml_escape(&Input::words(input)))
            .collect::<Vec<_>>()
            .join("<br>");
        let _ = writeln!(
            html,
            "<tr><td>@{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"top\">{inputs}</td><td>{}</td></tr>",
            xml_escape(&global.name),
            xml_escape(&global.ty),
            global
                .bytes
                .map_or_else(String::new, |bytes| bytes.to_string()),
            global
                .added_bytes
                .map_or_else(String::new, |bytes| format!("{bytes:+}")),
            xml_escape(&global.ops.join(", ")),
            xml_escape(&global.function),
        );
    }
    html.push_str("</tbody>\n</table>\n");
}
