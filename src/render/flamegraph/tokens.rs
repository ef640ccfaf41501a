//! What inferno reads: each frame's name as a short token (`_` and a few
//! base-62 digits, in the names' sort order), and the names put back in the
//! SVG it writes. A deep stack's folded line of full C++ names is many
//! kilobytes (66 MB for 4,300 stacks of `examples/model.mlir`); its tokens
//! are a few hundred bytes, and inferno reads and merges them in a fraction
//! of the time. Tooltips get the full name again, and labels are made from
//! it in the room inferno gave the frame.

use std::borrow::Cow;

use hashbrown::HashMap;
use quick_xml::escape::escape;

use super::super::xml_escape;
use super::depth::{Drawn, Hidden};
use crate::fold::{TRUNCATED_FRAME, frame_name};
use crate::profile::Profile;
use crate::short_name;
use crate::symbolize::SymbolId;

/// The first character of every token: "all", inferno's root, is not one.
const TOKEN_MARK: char = '_';
/// Digits in ASCII order, so that tokens of one width sort as their ranks.
const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Every frame name of a picture, by rank (byte order), and the tokens
/// that stand for them.
pub(super) struct FrameNames {
    by_rank: Vec<String>,
    width: usize,
    /// Each symbol's rank, by symbol index (`u32::MAX` if not drawn).
    symbol_rank: Vec<u32>,
    /// Ranks of the names that are not symbols: threads, the truncation
    /// marker, a depth limit's markers, an icicle's category frames.
    other_rank: HashMap<String, u32>,
    /// The names of the depth limit's marker frames.
    markers: Vec<String>,
}

impl FrameNames {
    /// The names of every frame of `stacks` (their depth markers too), with
    /// `extra` names (frames the caller adds to lines, such as an icicle's
    /// categories).
    pub(super) fn new(profile: &Profile, stacks: &[(Drawn<'_>, u64)], extra: &[String]) -> Self {
        let mut symbols: Vec<usize> = stacks
            .iter()
            .flat_map(|(drawn, _)| drawn.stack.symbols.iter().map(|symbol| symbol.index()))
            .collect();
        symbols.sort_unstable();
        symbols.dedup();
        let mut markers: Vec<String> = stacks
            .iter()
            .filter_map(|(drawn, _)| drawn.hidden.map(Hidden::name))
            .collect();
        markers.sort_unstable();
        markers.dedup();
        let mut others: Vec<&str> = stacks.iter().map(|(drawn, _)| drawn.stack.thread).collect();
        others.push(TRUNCATED_FRAME);
        others.extend(markers.iter().map(String::as_str));
        others.extend(extra.iter().map(String::as_str));
        let entries: Vec<(Cow<'_, str>, Option<usize>)> = symbols
            .iter()
            .map(|&index| {
                let symbol = SymbolId::new(index);
                (frame_name(&profile.symbols.get(symbol).name), Some(index))
            })
            .chain(others.into_iter().map(|name| (frame_name(name), None)))
            .collect();
        let mut names = Self::from_entries(entries);
        names.markers = markers;
        names
    }

    /// The names of the depth limit's marker frames in the lines.
    pub(super) fn markers(&self) -> &[String] {
        &self.markers
    }

    /// The names of `entries`, each with its symbol's index or `None` for
    /// the names that are not symbols.
    fn from_entries(mut entries: Vec<(Cow<'_, str>, Option<usize>)>) -> Self {
        entries.sort_unstable();
        let symbols = entries.iter().filter_map(|(_, symbol)| *symbol).max();
        let mut by_rank: Vec<String> = Vec::new();
        let mut symbol_rank = vec![u32::MAX; symbols.map_or(0, |last| last + 1)];
        let mut other_rank = HashMap::new();
        for (name, symbol) in entries {
            if by_rank.last().map(String::as_str) != Some(name.as_ref()) {
                by_rank.push(name.clone().into_owned());
            }
            let rank = (by_rank.len() - 1) as u32;
            match symbol {
                Some(index) => symbol_rank[index] = rank,
                None => {
                    other_rank.insert(name.into_owned(), rank);
                }
            }
        }
        let mut width = 1;
        while DIGITS.len().pow(width as u32) < by_rank.len() {
            width += 1;
        }
        Self {
            by_rank,
            width,
            symbol_rank,
            other_rank,
            markers: Vec::new(),
        }
    }

    fn push_token(&self, line: &mut String, rank: u32) {
        line.push(TOKEN_MARK);
        let mut digits = [0u8; 8];
        let mut rest = rank as usize;
        for digit in digits[..self.width].iter_mut().rev() {
            *digit = DIGITS[rest % DIGITS.len()];
            rest /= DIGITS.len();
        }
        line.push_str(std::str::from_utf8(&digits[..self.width]).expect("ASCII digits"));
    }

    fn push_other(&self, line: &mut String, name: &str) {
        let rank = self.other_rank[frame_name(name).as_ref()];
        self.push_token(line, rank);
    }

    fn token(&self, rank: u32) -> String {
        let mut token = String::with_capacity(1 + self.width);
        self.push_token(&mut token, rank);
        token
    }

    /// The token of `symbol`'s frame; `None` when no line here has it.
    pub(super) fn symbol_token(&self, symbol: SymbolId) -> Option<String> {
        let rank = *self.symbol_rank.get(symbol.index())?;
        (rank != u32::MAX).then(|| self.token(rank))
    }

    /// The token of a frame that is not a symbol (a thread, the truncation
    /// marker, a depth marker, one of the `extra` names); `None` when no
    /// line here has it.
    pub(super) fn other_token(&self, name: &str) -> Option<String> {
        let rank = *self.other_rank.get(frame_name(name).as_ref())?;
        Some(self.token(rank))
    }

    /// The folded line of `drawn` in tokens, with its depth marker (on top,
    /// or for an icicle's outer frames below them), `leaf_frame` (one of
    /// the `extra` names) on top, and its count.
    pub(super) fn line(&self, drawn: &Drawn<'_>, count: u64, leaf_frame: Option<&str>) -> String {
        let stack = &drawn.stack;
        let mut line = String::with_capacity((stack.symbols.len() + 4) * (self.width + 2) + 12);
        self.push_other(&mut line, stack.thread);
        if stack.truncated {
            line.push(';');
            self.push_other(&mut line, TRUNCATED_FRAME);
        }
        let marker = drawn.hidden.map(|hidden| (hidden.outer(), hidden.name()));
        if let Some((true, name)) = &marker {
            line.push(';');
            self.push_other(&mut line, name);
        }
        for symbol in &stack.symbols {
            line.push(';');
            self.push_token(&mut line, self.symbol_rank[symbol.index()]);
        }
        if let Some((false, name)) = &marker {
            line.push(';');
            self.push_other(&mut line, name);
        }
        if let Some(name) = leaf_frame {
            line.push(';');
            self.push_other(&mut line, name);
        }
        line.push(' ');
        line.push_str(&count.to_string());
        line
    }

    /// The token lines of `stacks`, in byte order (which is the order of
    /// their names frame by frame).
    pub(super) fn lines(&self, stacks: &[(Drawn<'_>, u64)]) -> Vec<String> {
        let mut lines: Vec<String> = stacks
            .iter()
            .map(|(drawn, count)| self.line(drawn, *count, None))
            .collect();
        lines.sort_unstable();
        lines
    }

    /// The name a token stands for.
    fn name_of(&self, token: &str) -> Option<&str> {
        let digits = token.strip_prefix(TOKEN_MARK)?;
        if digits.len() != self.width {
            return None;
        }
        let mut rank = 0usize;
        for byte in digits.bytes() {
            rank = rank * DIGITS.len() + DIGITS.iter().position(|&digit| digit == byte)?;
        }
        self.by_rank.get(rank).map(String::as_str)
    }

    /// inferno's SVG of token lines with every frame's tooltip and label
    /// made from its name: the label is the name when it fits in the
    /// frame, else [`short_name::fit`] in the room inferno's cut label has,
    /// else nothing (as inferno does for frames narrower than 3 characters).
    /// `char_width_percent` is one character's width in percent of the
    /// picture (inferno's font size × font width ÷ image width × 100).
    pub(super) fn restore(&self, svg: Vec<u8>, char_width_percent: f64) -> Vec<u8> {
        let text = match String::from_utf8(svg) {
            Ok(text) => text,
            Err(error) => return error.into_bytes(),
        };
        let total =
            attribute(&text, "total_samples=\"").and_then(|value| value.parse::<u64>().ok());
        let Some(total) = total else {
            return text.into_bytes();
        };
        let percent_per_sample = 100.0 / total as f64;
        let mut out = String::with_capacity(text.len() * 4);
        let mut rest = text.as_str();
        while let Some(start) = rest.find("<g><title>") {
            let (before, frame) = rest.split_at(start);
            out.push_str(before);
            let Some(end) = frame.find("</g>") else {
                rest = frame;
                break;
            };
            let (frame, after) = frame.split_at(end);
            match self.restore_frame(frame, percent_per_sample, char_width_percent) {
                Some(restored) => out.push_str(&restored),
                None => out.push_str(frame),
            }
            rest = after;
        }
        out.push_str(rest);
        out.into_bytes()
    }

    /// One frame's `<g>` with its name put back, or `None` when it holds no
    /// token (inferno's root, "all").
    fn restore_frame(
        &self,
        frame: &str,
        percent_per_sample: f64,
        char_width_percent: f64,
    ) -> Option<String> {
        let title_start = "<g><title>".len();
        let title_end = frame.find("</title>")?;
        let title = &frame[title_start..title_end];
        let token_end = title.find(' ')?;
        let name = self.name_of(&title[..token_end])?;
        let x: u64 = attribute(frame, "fg:x=\"")?.parse().ok()?;
        let w: u64 = attribute(frame, "fg:w=\"")?.parse().ok()?;
        // inferno's arithmetic, to the same rounding.
        let width_percent = (x + w) as f64 * percent_per_sample - x as f64 * percent_per_sample;
        let fitchars = (width_percent / char_width_percent).trunc() as usize;
        let label = label(name, fitchars);
        let text_open = frame.rfind("<text ")?;
        let label_start = text_open + frame[text_open..].find('>')? + 1;
        let label_end = label_start + frame[label_start..].find("</text>")?;
        Some(format!(
            "{}{}{}{}{}",
            &frame[..title_start],
            escape(name),
            &frame[title_start + token_end..label_start],
            label,
            &frame[label_end..]
        ))
    }
}

/// The label of a frame `fitchars` characters wide named `name`, escaped
/// as inferno escapes a label (with `'` as `&apos;`) and as
/// [`labels`](super::labels) escapes one it remade (without).
fn label(name: &str, fitchars: usize) -> Cow<'_, str> {
    if fitchars < 3 {
        return "".into();
    }
    if name.len() < fitchars {
        return escape(name);
    }
    // The room of inferno's cut label: fitchars - 2 characters and "..".
    let room = name.chars().take(fitchars - 2).count() + 2;
    xml_escape(&short_name::fit(name, room)).into()
}

/// The value of the first attribute starting `prefix` (`name="`) in `text`.
fn attribute<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    let start = text.find(prefix)? + prefix.len();
    let end = start + text[start..].find('"')?;
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use inferno::flamegraph::Options;
    use inferno::flamegraph::color::{Color, PaletteMap};

    use super::*;
    use crate::render::flamegraph::labels::shorten_labels;

    /// inferno's picture of folded `lines`, coloured by `palette`.
    fn inferno_svg(lines: &[String], palette: &mut PaletteMap, min_width: f64) -> Vec<u8> {
        let mut options = Options::default();
        options.min_width = min_width;
        options.deterministic = true;
        options.no_sort = true;
        options.palette_map = Some(palette);
        let mut svg = Vec::new();
        inferno::flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), &mut svg)
            .unwrap();
        svg
    }

    /// Names none of which is a prefix of another (where a full line's `;`
    /// and a token line's order could differ), with characters XML
    /// escapes, and long C++ names that get cut.
    const NAMES: [&str; 7] = [
        "main",
        "worker",
        "g<a&b>",
        "h'q\"",
        "mlir::detail::OpToOpPassAdaptor::run(mlir::Pass*, mlir::Operation*, mlir::AnalysisManager, bool, unsigned int)",
        "bool llvm::function_ref<bool (mlir::RegisteredOperationName)>::callback_fn<mlir::FrozenRewritePatternSet::FrozenRewritePatternSet(mlir::RewritePatternSet&&)::$_4>(long, mlir::RegisteredOperationName)",
        "mlir::Lexer::lexString(char const*)",
    ];

    /// A deterministic spread of stacks over [`NAMES`], merged and sorted
    /// as folded lines are.
    fn stacks() -> Vec<(Vec<&'static str>, u64)> {
        let mut random = crate::test_random::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut next = move |bound: u64| random() % bound;
        let mut merged: HashMap<Vec<&str>, u64> = HashMap::new();
        for _ in 0..500 {
            let depth = 1 + next(9) as usize;
            let frames = std::iter::once(NAMES[next(2) as usize])
                .chain((0..depth).map(|_| NAMES[2 + next(NAMES.len() as u64 - 2) as usize]))
                .collect();
            *merged.entry(frames).or_insert(0) += 1 + next(40) * next(2);
        }
        let mut stacks: Vec<_> = merged.into_iter().collect();
        stacks.sort();
        stacks
    }

    #[test]
    fn token_lines_draw_the_picture_full_names_draw() {
        let stacks = stacks();
        let names =
            FrameNames::from_entries(NAMES.iter().map(|&name| (name.into(), None)).collect());
        let (mut palette, mut token_palette) = (PaletteMap::default(), PaletteMap::default());
        for (index, name) in NAMES.iter().enumerate() {
            let shade = 40 * index as u8;
            let color = Color {
                r: shade,
                g: 255 - shade,
                b: 128,
            };
            token_palette.insert(names.other_token(name).unwrap(), color);
            palette.insert(name, color);
        }
        let full_lines: Vec<String> = stacks
            .iter()
            .map(|(frames, count)| format!("{} {count}", frames.join(";")))
            .collect();
        let token_lines: Vec<String> = stacks
            .iter()
            .map(|(frames, count)| {
                let tokens: Vec<String> = frames
                    .iter()
                    .map(|name| names.other_token(name).unwrap())
                    .collect();
                format!("{} {count}", tokens.join(";"))
            })
            .collect();
        assert!(token_lines.is_sorted(), "token lines sort as the names do");
        let char_width_percent = {
            let options = Options::default();
            100.0 * options.font_size as f64 * options.font_width / 1200.0
        };
        for min_width in [0.1, 1.0, 4.0] {
            let full = shorten_labels(inferno_svg(&full_lines, &mut palette.clone(), min_width));
            let tokens = names.restore(
                inferno_svg(&token_lines, &mut token_palette.clone(), min_width),
                char_width_percent,
            );
            let (full, tokens) = (
                String::from_utf8(full).unwrap(),
                String::from_utf8(tokens).unwrap(),
            );
            assert!(full.contains("&lt;a&amp;b&gt;"), "the case is covered");
            let differ = full.bytes().zip(tokens.bytes()).position(|(a, b)| a != b);
            assert!(
                differ.is_none() && tokens.len() == full.len(),
                "at {min_width}% the pictures differ from byte {differ:?}: {:?} against {:?}",
                differ.map(|at| &full[at.saturating_sub(300)..(at + 200).min(full.len())]),
                differ.map(|at| &tokens[at.saturating_sub(300)..(at + 200).min(tokens.len())]),
            );
        }
    }
}
