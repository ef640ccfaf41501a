//! The flamegraph SVG, written here from laid-out frames (`layout.rs`):
//! the title and subtitle; the controls (Reset Zoom, Search, the share a
//! search matched, the details line with the tooltip of the frame under
//! the pointer); one `<g>` per frame with its tooltip, its rectangle in the
//! fill the caller chose and its label fitted by [`short_name::fit`]; the
//! legend; and the script of `flamegraph.js`, which makes the controls
//! work. Sizes, font and background are inferno's defaults, so that the
//! pictures look as they did when inferno drew them.

use std::fmt::{self, Write as _};

use super::color::Rgb;
use super::layout::Frame;
use crate::render::Escaped;
use crate::short_name;

pub(super) const IMAGE_WIDTH: usize = 1200;
/// The text's size, in pixels, and a character's width, in font sizes.
const FONT_SIZE: usize = 12;
const FONT_WIDTH: f64 = 0.59;
/// A frame's height, with the gap of [`FRAME_GAP`] pixels above it.
const FRAME_HEIGHT: usize = 16;
const FRAME_GAP: usize = 1;
/// Room left and right of the frames, in pixels.
const SIDE_PAD: usize = 10;
/// A label starts this many pixels right of its frame's left edge.
const LABEL_PAD: f64 = 3.0;
/// The background, a gradient from top to bottom.
const BACKGROUND: [&str; 2] = ["#eeeeee", "#eeeeb0"];
/// Legend layout, in pixels.
const LEGEND_ROW_HEIGHT: usize = 18;
const LEGEND_COLUMN_WIDTH: usize = 236;
/// The zoom, the search and the details line.
const SCRIPT: &str = include_str!("flamegraph.js");
/// The controls' and the frames' style.
const STYLE: &str = "text{font-family:monospace;font-size:12px}\
#title{text-anchor:middle;font-size:17px}#subtitle{text-anchor:middle}\
#unzoom{cursor:pointer}#search{text-anchor:end;opacity:0.1;cursor:pointer}\
#search:hover,#search.show{opacity:1}#matched{text-anchor:end}\
#frames>g:hover{stroke:black;stroke-width:0.5;cursor:pointer}.hide{display:none}";

/// One entry of the legend: a category, or a shade of a differential
/// flamegraph's colour scale.
pub(super) struct LegendEntry {
    id: String,
    name: String,
    color: String,
    /// The self share, or the inclusive one for a category only on stacks.
    figure: String,
}

impl LegendEntry {
    /// An entry with a swatch of `color` (any SVG colour) and its text.
    pub(super) fn new(id: &str, name: &str, color: &str, figure: &str) -> LegendEntry {
        LegendEntry {
            id: id.to_owned(),
            name: name.to_owned(),
            color: color.to_owned(),
            figure: figure.to_owned(),
        }
    }
}

/// What a picture shows besides its frames.
pub(super) struct Page<'a> {
    pub(super) title: &'a str,
    pub(super) subtitle: &'a str,
    /// What a frame's count is: samples, or bytes with `--alloc`.
    pub(super) count_name: &'a str,
    /// An icicle: the root on top, the frames on it below it.
    pub(super) inverted: bool,
    pub(super) legend: &'a [LegendEntry],
    /// The legend's tooltip.
    pub(super) legend_description: &'a str,
}

/// A picture's SVG document and its height in pixels.
pub(crate) struct Svg {
    pub bytes: Vec<u8>,
    pub height: usize,
}

/// How one frame is drawn.
pub(super) struct FrameLook<'a> {
    /// The frame's full name (the root's is not drawn: it is `all`).
    pub(super) name: &'a str,
    pub(super) fill: Rgb,
    /// Added in the tooltip's parentheses after the share (a diff's change).
    pub(super) note: String,
    /// Added after the parentheses (a pass's split by category).
    pub(super) suffix: &'a str,
}

/// The sizes of one picture, in pixels.
struct Geometry {
    inverted: bool,
    /// From the top to the root (or, in an icicle, to the frames' top).
    top: usize,
    /// Below the frames.
    bottom: usize,
    /// The frames' picture without the legend.
    frames_height: usize,
}

impl Geometry {
    fn new(inverted: bool, deepest: usize) -> Geometry {
        // The title and the subtitle, and in an icicle the details line.
        let (top, bottom) = if inverted {
            (FONT_SIZE * 6 + 4, FONT_SIZE + 10)
        } else {
            (FONT_SIZE * 5, FONT_SIZE * 2 + 10)
        };
        Geometry {
            inverted,
            top,
            bottom,
            frames_height: top + (deepest + 1) * FRAME_HEIGHT + bottom,
        }
    }

    /// The top of a frame at `depth`.
    fn frame_y(&self, depth: usize) -> usize {
        if self.inverted {
            self.top + depth * FRAME_HEIGHT
        } else {
            self.frames_height - self.bottom - (depth + 1) * FRAME_HEIGHT + FRAME_GAP
        }
    }

    /// The baseline of the details line: below the frames, or above an
    /// icicle's.
    fn details_y(&self) -> usize {
        if self.inverted {
            self.top - FONT_SIZE
        } else {
            self.frames_height - self.bottom / 2
        }
    }
}

/// The SVG of `frames` (the root first: `layout::lay_out` and the
/// differential flamegraph's walk give them so), each drawn as `look` says.
pub(super) fn write_svg<'a, K>(
    page: &Page<'_>,
    frames: &[Frame<K>],
    look: impl Fn(&Frame<K>) -> FrameLook<'a>,
) -> Svg {
    let mut svg = String::with_capacity(4096 + frames.len() * 300);
    let height = write_document(&mut svg, page, frames, look).expect("a String takes every write");
    Svg {
        bytes: svg.into_bytes(),
        height,
    }
}

/// Writes the document; returns its height.
fn write_document<'a, K>(
    svg: &mut String,
    page: &Page<'_>,
    frames: &[Frame<K>],
    look: impl Fn(&Frame<K>) -> FrameLook<'a>,
) -> Result<usize, fmt::Error> {
    let total: u64 = frames
        .iter()
        .filter(|frame| frame.depth == 0)
        .map(|frame| frame.width)
        .sum();
    let deepest = frames.iter().map(|frame| frame.depth).max().unwrap_or(0);
    let geometry = Geometry::new(page.inverted, deepest);
    let per_row = IMAGE_WIDTH / LEGEND_COLUMN_WIDTH;
    let legend_height = 12 + page.legend.len().div_ceil(per_row) * LEGEND_ROW_HEIGHT;
    let height = geometry.frames_height + legend_height;
    let right = IMAGE_WIDTH - SIDE_PAD;
    writeln!(svg, r#"<?xml version="1.0" standalone="no"?>"#)?;
    writeln!(
        svg,
        r#"<svg version="1.1" width="{IMAGE_WIDTH}" height="{height}" viewBox="0 0 {IMAGE_WIDTH} {height}" xmlns="http://www.w3.org/2000/svg">"#
    )?;
    writeln!(
        svg,
        r#"<defs><linearGradient id="background" y1="0" y2="1" x1="0" x2="0"><stop stop-color="{}" offset="5%"/><stop stop-color="{}" offset="95%"/></linearGradient></defs>"#,
        BACKGROUND[0], BACKGROUND[1]
    )?;
    writeln!(svg, r#"<style type="text/css">{STYLE}</style>"#)?;
    writeln!(
        svg,
        r#"<rect x="0" y="0" width="100%" height="{}" fill="url(#background)"/>"#,
        geometry.frames_height
    )?;
    let line = |id: &str, x: &str, y: usize, text: &str| {
        format!(
            r#"<text id="{id}" x="{x}" y="{y}">{}</text>"#,
            Escaped(text)
        )
    };
    writeln!(svg, "{}", line("title", "50%", FONT_SIZE * 2, page.title))?;
    writeln!(
        svg,
        "{}",
        line("subtitle", "50%", FONT_SIZE * 4, page.subtitle)
    )?;
    writeln!(
        svg,
        "{}",
        line("details", &SIDE_PAD.to_string(), geometry.details_y(), " ")
    )?;
    writeln!(
        svg,
        r#"<text id="unzoom" class="hide" x="{SIDE_PAD}" y="{}">Reset Zoom</text>"#,
        FONT_SIZE * 2
    )?;
    writeln!(
        svg,
        "{}",
        line("search", &right.to_string(), FONT_SIZE * 2, "Search")
    )?;
    writeln!(
        svg,
        "{}",
        line(
            "matched",
            &right.to_string(),
            geometry.frames_height - geometry.bottom / 2,
            " "
        )
    )?;
    writeln!(
        svg,
        r#"<svg id="frames" x="{SIDE_PAD}" width="{}" total_samples="{total}" data-count-name="{}" data-char-width="{:.4}" data-label-offset="{:.4}">"#,
        IMAGE_WIDTH - 2 * SIDE_PAD,
        Escaped(page.count_name),
        char_width_percent(),
        100.0 * LABEL_PAD / IMAGE_WIDTH as f64,
    )?;
    for frame in frames {
        write_frame(svg, &geometry, page.count_name, total, frame, &look(frame))?;
    }
    writeln!(svg, "</svg>")?;
    write_legend(svg, page, geometry.frames_height, per_row)?;
    writeln!(
        svg,
        "<script type=\"text/ecmascript\"><![CDATA[\n{SCRIPT}]]></script>"
    )?;
    writeln!(svg, "</svg>")?;
    Ok(height)
}

/// One character's width, in percent of the picture's width.
fn char_width_percent() -> f64 {
    100.0 * FONT_SIZE as f64 * FONT_WIDTH / IMAGE_WIDTH as f64
}

/// A frame's `<g>`: its first sample and width in samples (for the
/// script), its tooltip, its rectangle and its label.
fn write_frame<K>(
    svg: &mut String,
    geometry: &Geometry,
    count_name: &str,
    total: u64,
    frame: &Frame<K>,
    look: &FrameLook<'_>,
) -> fmt::Result {
    let percent_per_sample = 100.0 / total as f64;
    let x = frame.start as f64 * percent_per_sample;
    let width = (frame.start + frame.width) as f64 * percent_per_sample - x;
    let y = geometry.frame_y(frame.depth);
    let (name, share) = if frame.depth == 0 {
        ("all", "100%".to_owned())
    } else {
        (
            look.name,
            format!("{:.2}%", frame.width as f64 * percent_per_sample),
        )
    };
    write!(
        svg,
        r#"<g data-s="{}" data-w="{}"><title>{} ({} {count_name}, {share}{}){}</title>"#,
        frame.start,
        frame.width,
        Escaped(name),
        thousands(frame.width),
        Escaped(&look.note),
        Escaped(look.suffix),
    )?;
    // The root is named in its tooltip only, as inferno drew it.
    let fitting = if frame.depth == 0 {
        0
    } else {
        (width / char_width_percent()).trunc() as usize
    };
    writeln!(
        svg,
        r#"<rect x="{x:.4}%" y="{y}" width="{width:.4}%" height="{}" fill="{}"/><text x="{:.4}%" y="{:.2}">{}</text></g>"#,
        FRAME_HEIGHT - FRAME_GAP,
        look.fill,
        x + 100.0 * LABEL_PAD / IMAGE_WIDTH as f64,
        y as f64 + 3.0 + (FRAME_HEIGHT - FRAME_GAP) as f64 / 2.0,
        Escaped(&label(name, fitting)),
    )
}

/// The label of a frame named `name` with room for `fitting` characters:
/// the name when it fits, else [`short_name::fit`] in that room, and
/// nothing in less than 3 characters' room.
fn label(name: &str, fitting: usize) -> std::borrow::Cow<'_, str> {
    if fitting < 3 {
        "".into()
    } else if name.len() < fitting {
        name.into()
    } else {
        short_name::fit(name, fitting).into()
    }
}

/// The legend below the frames, `per_row` entries a row, with
/// `description` as its tooltip.
fn write_legend(svg: &mut String, page: &Page<'_>, top: usize, per_row: usize) -> fmt::Result {
    write!(
        svg,
        r#"<g id="legend" font-size="12"><title>{}</title>"#,
        Escaped(page.legend_description)
    )?;
    for (index, entry) in page.legend.iter().enumerate() {
        let x = SIDE_PAD + (index % per_row) * LEGEND_COLUMN_WIDTH;
        let y = top + 6 + (index / per_row) * LEGEND_ROW_HEIGHT;
        let text = if entry.figure.is_empty() {
            entry.name.clone()
        } else {
            format!("{} {}", entry.name, entry.figure)
        };
        write!(
            svg,
            r#"<g class="legend-entry" data-category="{}"><rect x="{x}" y="{y}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text></g>"#,
            Escaped(&entry.id),
            Escaped(&entry.color),
            x + 16,
            y + 10,
            Escaped(&text),
        )?;
    }
    writeln!(svg, "</g>")
}

/// `1234567` → `1,234,567`.
fn thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut grouped = String::with_capacity(digits.len() * 4 / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(key: char, depth: usize, start: u64, width: u64) -> Frame<char> {
        Frame {
            key,
            depth,
            start,
            width,
        }
    }

    /// The SVG of a root of 1,200 samples with `a` (900, and `b` on it)
    /// and a long C++ name (300), checked to be well-formed XML.
    fn drawn(inverted: bool, legend: &[LegendEntry]) -> String {
        let long = "bool llvm::function_ref<bool (mlir::RegisteredOperationName)>::callback_fn<mlir::FrozenRewritePatternSet::FrozenRewritePatternSet(mlir::RewritePatternSet&&)::$_4>(long, mlir::RegisteredOperationName)";
        let frames = [
            frame('/', 0, 0, 1200),
            frame('a', 1, 0, 900),
            frame('b', 2, 0, 4),
            frame('c', 1, 900, 300),
        ];
        let page = Page {
            title: "t & u",
            subtitle: "s",
            count_name: "samples",
            inverted,
            legend,
            legend_description: "d",
        };
        let svg = write_svg(&page, &frames, |frame| FrameLook {
            name: match frame.key {
                'c' => long,
                'a' => "a<int>",
                _ => "b",
            },
            fill: Rgb { r: 1, g: 2, b: 3 },
            note: if frame.key == 'b' {
                "; base 1.00%".to_owned()
            } else {
                String::new()
            },
            suffix: if frame.key == 'a' { "; self: 9" } else { "" },
        });
        assert_eq!(svg.height, if inverted { 194 } else { 154 });
        let svg = String::from_utf8(svg.bytes).unwrap();
        let mut reader = quick_xml::Reader::from_str(&svg);
        while reader.read_event().expect("well-formed XML") != quick_xml::events::Event::Eof {}
        svg
    }

    #[test]
    fn each_frame_has_its_tooltip_place_fill_and_fitted_label() {
        let svg = drawn(false, &[]);
        // Frames 2 deep: 60 px above them, 34 below, the legend's 12.
        assert!(svg.contains(r#"width="1200" height="154" viewBox="0 0 1200 154""#));
        assert!(svg.contains(r#"<text id="title" x="50%" y="24">t &amp; u</text>"#));
        assert!(svg.contains(
            r#"total_samples="1200" data-count-name="samples" data-char-width="0.5900""#
        ));
        assert!(svg.contains(concat!(
            r#"<g data-s="0" data-w="1200"><title>all (1,200 samples, 100%)</title>"#,
            r#"<rect x="0.0000%" y="93" width="100.0000%" height="15" fill="rgb(1,2,3)"/>"#,
            r#"<text x="0.2500%" y="103.50"></text></g>"#
        )));
        assert!(svg.contains(concat!(
            r#"<g data-s="0" data-w="900"><title>a&lt;int&gt; (900 samples, 75.00%); self: 9</title>"#,
            r#"<rect x="0.0000%" y="77" width="75.0000%""#
        )));
        // 4 samples of 1,200 are 0.33%: no room for a label.
        assert!(svg.contains(concat!(
            r#"<g data-s="0" data-w="4"><title>b (4 samples, 0.33%; base 1.00%)</title>"#,
            r#"<rect x="0.0000%" y="61" width="0.3333%" height="15" fill="rgb(1,2,3)"/><text x="0.2500%" y="71.50"></text></g>"#
        )));
        // 25% of the width is 42 characters: the C++ name is shortened to
        // what tells it apart, not cut at its end.
        assert!(
            svg.contains(r#"<rect x="75.0000%" y="77" width="25.0000%" height="15" fill="rgb(1,2,3)"/><text x="75.2500%" y="87.50">…::FrozenRewritePatternSet::$_4 (callback)</text></g>"#),
            "{svg}"
        );
        assert!(svg.contains("function search("), "the script is in");
    }

    #[test]
    fn an_icicle_hangs_from_the_top_and_the_legend_makes_room() {
        let legend: Vec<LegendEntry> = (0..6)
            .map(|index| LegendEntry::new(&format!("c{index}"), "n", "#010203", "1%"))
            .collect();
        let svg = drawn(true, &legend);
        // 76 px above the frames, 22 below, 12 and two legend rows.
        assert!(svg.contains(r#"height="194""#), "{svg}");
        assert!(svg.contains(r#"<rect x="0.0000%" y="76" width="100.0000%""#));
        assert!(svg.contains(r#"<rect x="0.0000%" y="92" width="75.0000%""#));
        assert!(svg.contains(r#"<text id="details" x="10" y="64"> </text>"#));
        assert!(svg.contains(r#"data-category="c5"><rect x="10" y="170""#));
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
