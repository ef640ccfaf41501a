//! The HTML report: one self-contained page (no network, no files beside
//! it) with a table of contents, the run's facts, the category table, the
//! timeline, the pass table (the rows of `report`), with MLIR's actions the
//! tables of rewrite patterns and IR units (`rows.rs` makes the rows), with
//! `record --heap` the live heap (`heap.rs`), the artifacts and the
//! flamegraphs. It works from an e-mail attachment or a CI artifact.
//!
//! Each flamegraph is its SVG, script and all, in an `<iframe srcdoc>` of
//! its own, so that its search and zoom work and the pages' scripts and ids
//! do not meet. The timeline SVG is inline. Tables are
//! plain HTML, readable without JavaScript: a long one shows its first
//! rows, and a `<details>` below it shows the rest (CSS alone; a browser
//! without `:has()` shows every row). A few lines of script make their
//! columns sortable, every row sorted, the fold kept on the first rows.

use std::fmt::Write as _;

use super::flamegraph::Svg;
use super::xml_escape;
use crate::artifact::{Artifact, outputs};
mod consteval;
mod heap;
mod rows;

use crate::attribute::actions::ActionJoin;
use crate::attribute::heap::HeapPeak;
use crate::attribute::{
    ActionRows, Attribution, Classes, Grouping, group, group_by_actions, percent,
};
use crate::consteval::ConstEval;
use crate::profile::{Profile, SampleFilter};
use rows::{Row, sorted_rows};

/// Symbols or categories listed beside each row.
const TOP_DETAILS: usize = 3;
/// Characters of a function's name shown beside a row (the whole name is
/// in the tooltip).
const NAME_CHARS: usize = 90;
/// A table longer than this many rows is folded…
const FOLD_OVER_ROWS: usize = 30;
/// …to this many rows; a click shows the rest (`STYLE` hides rows from
/// the 26th).
const FOLDED_ROWS: usize = 25;

/// What the page shows, besides the rows it makes itself.
pub(crate) struct HtmlPage<'a> {
    /// The profiled command.
    pub command: String,
    /// The run's facts, as (label, value): compiler version, wall time,
    /// peak RSS, exit…
    pub facts: Vec<(String, String)>,
    /// Flamegraph SVGs, with their captions.
    pub flamegraphs: Vec<(String, Svg)>,
    /// The timeline SVG, when there are samples to draw.
    pub timeline: Option<String>,
    /// How the tables choose a sample's self category.
    pub attribution: Attribution,
    /// The compile's outputs, as `run.json` lists them.
    pub artifacts: Vec<Artifact>,
    /// MLIR's actions on perf's clock, when the run recorded them: the
    /// page then has the tables of patterns and IR units.
    pub actions: Option<&'a ActionJoin>,
    /// The live heap of a run of `record --heap`: the page then has its
    /// section.
    pub heap: Option<&'a HeapPeak>,
    /// The globals const-eval computed: the page then has their section.
    pub consteval: Option<&'a ConstEval>,
}

/// The page for the samples `filter` keeps.
pub(crate) fn render(
    page: &HtmlPage,
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
) -> String {
    let rows = |grouping| {
        let grouped = group(
            profile,
            classes,
            grouping,
            page.attribution,
            filter,
            page.actions,
        );
        (
            grouped.samples,
            sorted_rows(profile, classes, &grouped, None),
        )
    };
    let categories = rows(Grouping::Category);
    let passes = rows(Grouping::Pass);
    let samples = categories.0;
    let mut html = String::with_capacity(
        page.flamegraphs
            .iter()
            .map(|(_, svg)| svg.bytes.len() + 4096)
            .sum::<usize>()
            + 65536,
    );
    let title = xml_escape(&page.command);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>compile-perf: {title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>compile-perf report</h1>\n<p class=\"command\"><code>{title}</code></p>\n"
    );
    write_contents(&mut html, page);
    html.push_str("<h2 id=\"facts\">The run</h2>\n<table class=\"facts\">\n");
    for (label, value) in &page.facts {
        let _ = writeln!(
            html,
            "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
            xml_escape(label),
            xml_escape(value)
        );
    }
    html.push_str("</table>\n");
    write_table(
        &mut html,
        "categories",
        "Categories",
        "category",
        &categories.1,
        samples,
    );
    if let Some(timeline) = &page.timeline {
        html.push_str("<h2 id=\"timeline\">Timeline</h2>\n<div class=\"timeline\">\n");
        html.push_str(without_prolog(timeline));
        html.push_str("</div>\n");
    }
    write_table(&mut html, "passes", "Passes", "pass", &passes.1, samples);
    if let Some(heap) = page.heap {
        heap::write_heap(&mut html, heap);
    }
    if let Some(join) = page.actions {
        let action_rows = |rows| {
            let grouped = group_by_actions(profile, classes, page.attribution, join, rows, filter);
            (
                grouped.samples,
                sorted_rows(profile, classes, &grouped, Some(join)),
            )
        };
        let agreement = join.agreement;
        let _ = writeln!(
            html,
            "<p class=\"actions\">MLIR's actions (<code>record --actions</code>): {} intervals on {} \
             threads, on perf's clock; {:.1}% of the main thread's samples in a pass fall in an \
             interval of that pass ({} of {}).</p>",
            join.actions.intervals(),
            join.actions.threads.len(),
            agreement.percent(),
            agreement.agreeing,
            agreement.samples
        );
        for (rows, id, heading, what) in [
            (
                ActionRows::Pattern,
                "patterns",
                "Rewrite patterns",
                "pattern",
            ),
            (ActionRows::Unit, "units", "IR units", "unit"),
        ] {
            let (samples, rows) = action_rows(rows);
            write_table(&mut html, id, heading, what, &rows, samples);
        }
    }
    write_artifacts(&mut html, &page.artifacts);
    consteval::write_consteval(&mut html, page.consteval);
    for (index, (caption, svg)) in page.flamegraphs.iter().enumerate() {
        let document = svg_document(&svg.bytes);
        let _ = write!(
            html,
            "<h2 id=\"flamegraph-{index}\">{}</h2>\n<iframe class=\"flamegraph\" title=\"{}\" style=\"height:{}px\" srcdoc='{}'></iframe>\n",
            xml_escape(caption),
            xml_escape(caption),
            svg.height + 4,
            single_quoted(&document)
        );
    }
    let _ = write!(html, "<script>{SORT_SCRIPT}</script>\n</body>\n</html>\n");
    html
}

/// The table of contents: a link to each section, in the page's order.
fn write_contents(html: &mut String, page: &HtmlPage) {
    let mut sections = vec![("facts".to_owned(), "The run".to_owned())];
    sections.push(("categories".to_owned(), "Categories".to_owned()));
    if page.timeline.is_some() {
        sections.push(("timeline".to_owned(), "Timeline".to_owned()));
    }
    sections.push(("passes".to_owned(), "Passes".to_owned()));
    if page.heap.is_some() {
        sections.push(("heap".to_owned(), "Live heap".to_owned()));
    }
    if page.actions.is_some() {
        sections.push(("patterns".to_owned(), "Rewrite patterns".to_owned()));
        sections.push(("units".to_owned(), "IR units".to_owned()));
    }
    if outputs(&page.artifacts).next().is_some() {
        sections.push(("artifacts".to_owned(), "Artifacts".to_owned()));
    }
    if page
        .consteval
        .is_some_and(|consteval| !consteval.globals.is_empty())
    {
        sections.push(("consteval".to_owned(), "Const-eval".to_owned()));
    }
    for (index, (caption, _)) in page.flamegraphs.iter().enumerate() {
        sections.push((format!("flamegraph-{index}"), caption.clone()));
    }
    html.push_str("<nav class=\"contents\" aria-label=\"contents\"><ul>\n");
    for (id, heading) in sections {
        let _ = writeln!(
            html,
            "<li><a href=\"#{id}\">{}</a></li>",
            xml_escape(&heading)
        );
    }
    html.push_str("</ul></nav>\n");
}

fn write_table(html: &mut String, id: &str, heading: &str, what: &str, rows: &[Row], samples: u64) {
    let top = if matches!(what, "pass" | "pattern" | "unit") {
        "top categories"
    } else {
        "top functions"
    };
    // Every row stays in the one body, where sorting moves them; the CSS
    // hides those past the first rows while the fold is closed.
    let folded = rows.len() > FOLD_OVER_ROWS;
    let _ = write!(
        html,
        "<h2 id=\"{id}\">{heading}</h2>\n{}<table class=\"rows sortable\" id=\"{id}-table\">\n<thead><tr>\
         <th data-type=\"text\">{what}</th><th data-type=\"number\">self</th><th data-type=\"number\">self %</th>\
         <th data-type=\"number\">inclusive</th><th data-type=\"number\">incl %</th><th data-type=\"text\">{top}</th>\
         </tr></thead>\n<tbody>\n",
        if folded { "<div class=\"fold\">\n" } else { "" }
    );
    for row in rows {
        let swatch = row.swatch.as_deref().map_or(String::new(), |color| {
            format!(
                "<span class=\"swatch\" style=\"background:{}\"></span>",
                xml_escape(color)
            )
        });
        let top = row
            .top
            .iter()
            .map(|(shown, whole)| {
                format!(
                    "<span title=\"{}\">{}</span>",
                    xml_escape(whole),
                    xml_escape(shown)
                )
            })
            .collect::<Vec<_>>()
            .join("<br>");
        let _ = writeln!(
            html,
            "<tr><td>{swatch}{}</td><td>{}</td><td>{:.1}%</td><td>{}</td><td>{:.1}%</td><td class=\"top\">{top}</td></tr>",
            xml_escape(&row.name),
            row.self_samples,
            percent(row.self_samples, samples),
            row.inclusive_samples,
            percent(row.inclusive_samples, samples),
        );
    }
    html.push_str("</tbody>\n</table>\n");
    if folded {
        let _ = writeln!(
            html,
            "<details><summary><span class=\"more\">Show the other {} {}</span>\
             <span class=\"less\">Show the first {FOLDED_ROWS} only</span></summary></details>\n</div>",
            rows.len() - FOLDED_ROWS,
            heading.to_lowercase(),
        );
    }
}

/// The Artifacts section: each output's size, and its members by kind
/// with their shares and the largest of each kind.
fn write_artifacts(html: &mut String, artifacts: &[Artifact]) {
    if outputs(artifacts).next().is_none() {
        return;
    }
    html.push_str("<h2 id=\"artifacts\">Artifacts</h2>\n");
    for artifact in outputs(artifacts) {
        let _ = writeln!(
            html,
            "<p><code>{}</code>: {} bytes{}</p>",
            xml_escape(&artifact.path),
            artifact.bytes,
            artifact
                .note
                .as_deref()
                .map_or(String::new(), |note| format!("; {}", xml_escape(note)))
        );
        if artifact.entries.is_none() {
            continue;
        }
        html.push_str(
            "<table class=\"rows artifacts sortable\">\n<thead><tr><th data-type=\"text\">kind</th>\
             <th data-type=\"number\">bytes</th><th data-type=\"number\">share</th>\
             <th data-type=\"number\">members</th><th data-type=\"text\">largest members</th></tr></thead>\n<tbody>\n",
        );
        for total in artifact.by_kind() {
            let largest = artifact
                .largest_of(total.kind, TOP_DETAILS)
                .iter()
                .map(|member| format!("{} ({})", xml_escape(&member.name), member.bytes))
                .collect::<Vec<_>>()
                .join("<br>");
            let _ = writeln!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{:.1}%</td><td>{}</td><td class=\"top\">{largest}</td></tr>",
                total.kind.name(),
                total.bytes,
                percent(total.bytes, artifact.bytes),
                total.members,
            );
        }
        html.push_str("</tbody>\n</table>\n");
    }
}

/// A flamegraph's SVG as the HTML document of an iframe: without the XML
/// prolog, which an HTML parser does not take.
fn svg_document(svg: &[u8]) -> String {
    let text = String::from_utf8_lossy(svg);
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{{margin:0}}</style>\
         </head><body>{}</body></html>",
        without_prolog(&text)
    )
}

/// `text` as the value of an attribute in single quotes: only `&` and `'`
/// need escaping there, where [`xml_escape`] would also escape the SVG's
/// every `"`, `<` and `>` (half as many bytes again).
fn single_quoted(text: &str) -> String {
    text.replace('&', "&amp;").replace('\'', "&#39;")
}

/// `svg` from its `<svg` element on.
fn without_prolog(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |start| &svg[start..])
}

/// The page's style.
const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1250px}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}\
p.command code{font-size:.9em;word-break:break-all}\
table{border-collapse:collapse;font-size:.85em}\
th,td{padding:.2em .6em;text-align:left;vertical-align:top;border-bottom:1px solid #ddd}\
table.rows td:nth-child(n+2):nth-child(-n+5){text-align:right;font-variant-numeric:tabular-nums}\
table.rows th{cursor:pointer;background:#f3f3f3;position:sticky;top:0}\
td.top{color:#555;max-width:40em;overflow-wrap:anywhere}\
table.artifacts td:nth-child(5){text-align:left}\
.swatch{display:inline-block;width:.9em;height:.9em;margin-right:.4em;vertical-align:-.1em;border:1px solid #8888}\
iframe.flamegraph{width:1210px;border:1px solid #ccc}\
nav.contents ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.2em 1.4em}\
.fold:not(:has(details[open])) tbody tr:nth-child(n+26){display:none}\
.fold summary{cursor:pointer;color:#036;margin:.4em 0}\
details[open] .more,details:not([open]) .less{display:none}\
.timeline svg{max-width:100%;height:auto}";

/// Sorting by a click on a column's header; the tables read the same without it.
const SORT_SCRIPT: &str = "document.querySelectorAll('table.sortable').forEach(function(table){\
table.querySelectorAll('th').forEach(function(th,column){th.addEventListener('click',function(){\
var body=table.tBodies[0],rows=Array.from(body.rows),number=th.dataset.type==='number';\
var down=th.dataset.order!=='desc';th.dataset.order=down?'desc':'asc';\
rows.sort(function(a,b){var x=a.cells[column].textContent,y=b.cells[column].textContent;\
var order=number?parseFloat(y)-parseFloat(x):x.localeCompare(y);return down?order:-order;});\
rows.forEach(function(row){body.appendChild(row);});});});});";

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(count: usize) -> Vec<Row> {
        (0..count)
            .map(|index| Row {
                swatch: None,
                name: format!("Pass{index}"),
                self_samples: (count - index) as u64,
                inclusive_samples: (count - index) as u64,
                top: vec![("Parser (1)".to_owned(), "Parser".to_owned())],
            })
            .collect()
    }

    #[test]
    fn a_long_table_shows_its_first_rows_and_folds_the_rest_in_one_body() {
        let mut html = String::new();
        write_table(&mut html, "passes", "Passes", "pass", &rows(130), 1000);
        assert_eq!(html.matches("<tbody>").count(), 1, "one body to sort");
        assert_eq!(html.matches("<tr><td>").count(), 130, "every row is there");
        assert!(
            html.contains(
                "<div class=\"fold\">\n<table class=\"rows sortable\" id=\"passes-table\">"
            )
        );
        assert!(html.contains("Show the other 105 passes"), "{html}");
        assert!(html.ends_with("</details>\n</div>\n"));
        assert!(
            STYLE.contains(&format!("tr:nth-child(n+{})", FOLDED_ROWS + 1)),
            "the style hides the rows after the first {FOLDED_ROWS}"
        );
        assert!(
            SORT_SCRIPT.contains("table.tBodies[0]"),
            "sorting moves every row"
        );
    }

    #[test]
    fn a_short_table_is_not_folded() {
        let mut html = String::new();
        write_table(
            &mut html,
            "categories",
            "Categories",
            "category",
            &rows(FOLD_OVER_ROWS),
            100,
        );
        assert!(!html.contains("details"));
        assert!(!html.contains("class=\"fold\""));
        assert_eq!(html.matches("<tr><td>").count(), FOLD_OVER_ROWS);
    }

    #[test]
    fn the_contents_link_every_section_in_the_pages_order() {
        let page = HtmlPage {
            command: "iree-compile x.mlir".to_owned(),
            facts: Vec::new(),
            flamegraphs: vec![
                (
                    "Flamegraph".to_owned(),
                    Svg {
                        bytes: Vec::new(),
                        height: 0,
                    },
                ),
                (
                    "Icicle".to_owned(),
                    Svg {
                        bytes: Vec::new(),
                        height: 0,
                    },
                ),
            ],
            timeline: Some("<svg></svg>".to_owned()),
            attribution: Attribution::Leaf,
            artifacts: Vec::new(),
            actions: None,
            heap: None,
            consteval: None,
        };
        let mut html = String::new();
        write_contents(&mut html, &page);
        let links: Vec<&str> = html
            .split("href=\"#")
            .skip(1)
            .map(|rest| &rest[..rest.find('"').unwrap()])
            .collect();
        assert_eq!(
            links,
            [
                "facts",
                "categories",
                "timeline",
                "passes",
                "flamegraph-0",
                "flamegraph-1"
            ]
        );
    }

    #[test]
    fn a_flamegraph_document_in_single_quotes_escapes_only_ampersands_and_apostrophes() {
        let document = "<svg a=\"1\"><title>f(int&amp;) 'q'</title></svg>";
        let quoted = single_quoted(document);
        assert_eq!(
            quoted,
            "<svg a=\"1\"><title>f(int&amp;amp;) &#39;q&#39;</title></svg>"
        );
        assert!(!quoted.contains('\''));
        assert_eq!(quoted.replace("&#39;", "'").replace("&amp;", "&"), document);
    }
}
