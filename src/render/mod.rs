//! Pictures: flamegraph SVGs, laid out and written here, coloured by
//! category or by change, the timeline of categories over the compile, the
//! HTML report that holds them with the tables, and the history's
//! dashboard page.
//!
//! `flamegraph/` draws the category and differential flamegraphs (its
//! `mod.rs` says which file does what), `timeline_svg.rs` the timeline (with
//! the live heap of `timeline_heap.rs`), `html/` the HTML report,
//! `history/` the page of `history html` with its trend charts.

pub(crate) mod flamegraph;
pub(crate) mod history;
pub(crate) mod html;
mod timeline_heap;
pub(crate) mod timeline_svg;

/// Titles longer than this are cut.
const TITLE_CHARS: usize = 110;

/// `text` made safe inside SVG text and attribute values.
pub(crate) fn xml_escape(text: &str) -> String {
    Escaped(text).to_string()
}

/// Text written safe inside SVG text and attribute values (`&`, `<`, `>`
/// and `"` as entities), with no copy made first.
struct Escaped<'t>(&'t str);

impl std::fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                _ => "&quot;",
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// A command line for a picture's title: paths without their directories,
/// `--long` flags counted rather than listed (the inputs and the output stay
/// visible), cut to `max_chars` with `…`.
pub(crate) fn short_command(command: &str, max_chars: usize) -> String {
    let file_name = |word: &str| word.rsplit('/').next().unwrap_or(word).to_owned();
    let mut words = command.split_whitespace();
    let mut kept: Vec<String> = words.next().map(file_name).into_iter().collect();
    let mut flags = 0;
    for word in words {
        if word.starts_with("--") {
            flags += 1;
        } else {
            kept.push(file_name(word));
        }
    }
    if flags > 0 {
        kept.push(format!("[+{flags} flags]"));
    }
    let short = kept.join(" ");
    if short.chars().count() <= max_chars {
        return short;
    }
    short
        .chars()
        .take(max_chars.saturating_sub(1))
        .collect::<String>()
        + "…"
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_is_escaped_for_svg() {
        assert_eq!(
            super::xml_escape(r#"a<b> & "c" 'd'"#),
            "a&lt;b&gt; &amp; &quot;c&quot; 'd'"
        );
    }

    #[test]
    fn titles_keep_program_inputs_and_output_and_count_flags() {
        assert_eq!(
            super::short_command(
                "/v/bin/iree-compile --a=1 --b /m/model.mlir -o /m/model.vmfb",
                80
            ),
            "iree-compile model.mlir -o model.vmfb [+2 flags]"
        );
        assert_eq!(
            super::short_command("/a/b/iree-compile x.mlir", 10),
            "iree-comp…"
        );
    }
}
