//! Frame labels that fit: inferno cuts a frame's label at its end, which for
//! C++ names is the part that tells functions apart. Each cut label is made
//! again from the frame's full name (its tooltip, left whole) by
//! [`short_name::fit`] in the same room.

use hashbrown::HashMap;
use quick_xml::escape::unescape;

use super::super::xml_escape;
use crate::short_name;

/// Inferno's mark of a cut label.
const CUT_MARK: &str = "..";

/// The SVG with every cut frame label remade from the frame's full name.
pub(crate) fn shorten_labels(svg: Vec<u8>) -> Vec<u8> {
    let text = match String::from_utf8(svg) {
        Ok(text) => text,
        Err(error) => return error.into_bytes(),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(frame) = rest.find("<g><title>") {
        let (before, from_frame) = rest.split_at(frame);
        out.push_str(before);
        let Some(end) = from_frame.find("</g>") else {
            rest = from_frame;
            break;
        };
        let (frame, after) = from_frame.split_at(end);
        out.push_str(&relabel(frame).unwrap_or_else(|| frame.to_owned()));
        rest = after;
    }
    out.push_str(rest);
    out.into_bytes()
}

/// The SVG with `extra` text added to the tooltip of every frame whose
/// name (the tooltip without its counts) is a key of `extra`.
pub(crate) fn extend_tooltips(svg: Vec<u8>, extra: &HashMap<String, String>) -> Vec<u8> {
    if extra.is_empty() {
        return svg;
    }
    let text = match String::from_utf8(svg) {
        Ok(text) => text,
        Err(error) => return error.into_bytes(),
    };
    let open = "<g><title>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(open) {
        let from_title = at + open.len();
        let Some(length) = rest[from_title..].find("</title>") else {
            break;
        };
        let title_end = from_title + length;
        out.push_str(&rest[..title_end]);
        let added = unescape(&rest[from_title..title_end])
            .ok()
            .and_then(|title| extra.get(without_counts(&title)));
        if let Some(added) = added {
            out.push_str(&xml_escape(added));
        }
        rest = &rest[title_end..];
    }
    out.push_str(rest);
    out.into_bytes()
}

/// One frame's `<g>` with its label remade, or `None` when its label was not
/// cut (or the frame is not shaped as inferno draws frames).
fn relabel(frame: &str) -> Option<String> {
    let title_start = "<g><title>".len();
    let title_end = frame.find("</title>")?;
    let text_open = frame.rfind("<text ")?;
    let label_start = text_open + frame[text_open..].find('>')? + 1;
    let label_end = label_start + frame[label_start..].find("</text>")?;
    let label = unescape(&frame[label_start..label_end]).ok()?;
    let room = label.chars().count();
    if !label.ends_with(CUT_MARK) || room <= CUT_MARK.len() {
        return None;
    }
    let title = unescape(&frame[title_start..title_end]).ok()?;
    let name = without_counts(&title);
    let fitted = short_name::fit(name, room);
    Some(format!(
        "{}{}{}",
        &frame[..label_start],
        xml_escape(&fitted),
        &frame[label_end..]
    ))
}

/// `name (12 samples, 1.3%)` (or with a diff's note after the share) → `name`.
fn without_counts(title: &str) -> &str {
    title
        .rfind(" samples, ")
        .and_then(|at| title[..at].rfind(" ("))
        .map_or(title, |at| &title[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_labels_are_remade_from_the_full_name_and_others_are_left() {
        let svg = concat!(
            "<svg><g><title>bool llvm::function_ref&lt;bool (mlir::RegisteredOperationName)&gt;::callback_fn&lt;mlir::FrozenRewritePatternSet::FrozenRewritePatternSet(mlir::RewritePatternSet&amp;&amp;)::$_4&gt;(long, mlir::RegisteredOperationName) (23 samples, 2.54%)</title>",
            "<rect x=\"1%\" y=\"5\" width=\"2.54%\" height=\"15\" fill=\"rgb(1,2,3)\" fg:x=\"1\" fg:w=\"23\"/><text x=\"1.25%\" y=\"15.50\">bool llvm::function_ref&lt;bool (mlir::Regi..</text></g>",
            "<g><title>mlir::Lexer::lexString(char const*) (120 samples, 13.23%)</title><rect/><text x=\"2%\" y=\"9\">mlir::Lexer::lexString(char const*)</text></g>",
            "<g><title>mlir::Lexer::lexString(char const*) (120 samples, 13.23%; base 1%, +12 pp)</title><rect/><text x=\"2%\" y=\"9\">mlir::Lexer::lexStri..</text></g></svg>",
        );
        let out = String::from_utf8(shorten_labels(svg.as_bytes().to_vec())).unwrap();
        assert!(
            out.contains(">…::FrozenRewritePatternSet::$_4 (callback)</text>"),
            "{out}"
        );
        assert!(
            out.contains(">mlir::Lexer::lexString(char const*)</text>"),
            "not cut, not changed"
        );
        assert!(out.contains(">mlir::Lexer::lexString</text>"), "{out}");
        // Tooltips keep the full name.
        assert!(out.contains("<title>bool llvm::function_ref&lt;bool"));
        assert_eq!(out.matches("<g>").count(), 3);
    }

    #[test]
    fn tooltips_of_named_frames_get_their_text() {
        let svg = concat!(
            "<svg><g><title>Canonicalizer (24 samples, 3.04%)</title><rect/></g>",
            "<g><title>CSE (4 samples, 0.5%)</title><rect/></g></svg>",
        );
        let extra = HashMap::from([("Canonicalizer".to_owned(), "; self: a&b 50%".to_owned())]);
        let out = String::from_utf8(extend_tooltips(svg.as_bytes().to_vec(), &extra)).unwrap();
        assert!(
            out.contains("<title>Canonicalizer (24 samples, 3.04%); self: a&amp;b 50%</title>")
        );
        assert!(out.contains("<title>CSE (4 samples, 0.5%)</title>"));
    }
}
