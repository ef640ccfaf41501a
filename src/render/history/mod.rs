//! The dashboard of `history html`: one self-contained page (inline SVG
//! and a few lines of script; nothing fetched). For each key, a chart of
//! each measure and of the shares that were flagged or are among the
//! largest (`chart.rs`), over its last N runs, each run judged against the
//! N before it; flagged runs are marked. A click on a point shows the run
//! in the details panel: its identity, time, commit, branch, machine,
//! labels, metrics (flagged, and by which test), the headline of its
//! `report.json` and a link to its run directory's `report.html`. Every
//! text from the store is escaped. The command (`commands/history/`)
//! reads the store, judges the runs and hands them here.

mod chart;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::xml_escape;
use crate::history::metric::{JudgedMetric, Point, is_share, rank, shown_delta, shown_value};
use chart::{ChartPoint, chart};

/// The largest shares of each kind (categories, passes) charted besides
/// the flagged ones.
const TOP_SHARES: usize = 4;

/// What the page says of a run besides what the store keeps of it, found
/// by the command.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RunReport {
    /// The headline of the run's `report.json`, when it has one.
    pub headline: Option<String>,
    /// Whether its run directory has a `report.html` now.
    pub report_html: bool,
}

/// The metrics charted for one key: every measure, and the shares that
/// were flagged in any run or are among the [`TOP_SHARES`] largest of their
/// kind in the newest run; measures first.
fn charted<'a>(points: &'a [Point<'a>]) -> Vec<&'a str> {
    let mut names: Vec<&str> = points
        .iter()
        .flat_map(|point| &point.judged)
        .filter(|judged| !is_share(&judged.metric) || judged.flagged)
        .map(|judged| judged.metric.as_str())
        .collect();
    if let Some(newest) = points.last() {
        for prefix in ["category:", "pass:"] {
            let mut shares: Vec<&JudgedMetric> = newest
                .judged
                .iter()
                .filter(|judged| judged.metric.starts_with(prefix))
                .collect();
            shares.sort_by(|a, b| b.value.total_cmp(&a.value));
            names.extend(
                shares
                    .iter()
                    .take(TOP_SHARES)
                    .map(|judged| judged.metric.as_str()),
            );
        }
    }
    names.sort_by(|a, b| rank(a).cmp(&rank(b)));
    names.dedup();
    names
}

/// The page of each key's trend (`points`, by key, oldest first), the
/// runs judged against the `last` runs before them; `reports` by run
/// identity.
pub(crate) fn page(
    points: &BTreeMap<&str, Vec<Point<'_>>>,
    reports: &BTreeMap<&str, RunReport>,
    last: usize,
) -> String {
    let runs: usize = points.values().map(Vec::len).sum();
    let mut html = String::with_capacity(65536);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>compile-perf history</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>compile-perf history</h1>\n<p class=\"about\">{runs} runs of {} {}, the last {last} \
         of each; each run judged against the {last} runs of its key before it, as \
         <code>history check</code> judges. Click a point for its run.</p>\n{LEGEND}\n\
         <div class=\"layout\">\n<main>\n",
        points.len(),
        if points.len() == 1 { "key" } else { "keys" }
    );
    if points.is_empty() {
        html.push_str("<p>No runs in the store (for this key).</p>\n");
    }
    for (index, (series, points)) in points.iter().enumerate() {
        let key = if series.is_empty() {
            "(no key)"
        } else {
            series
        };
        let _ = write!(
            html,
            "<section class=\"series\" id=\"key-{index}\">\n<h2>{}</h2>\n<div class=\"charts\">\n",
            xml_escape(key)
        );
        for metric in charted(points) {
            let chart_points: Vec<ChartPoint<'_>> = points
                .iter()
                .filter_map(|point| {
                    let judged = point.judged.iter().find(|j| j.metric == metric)?;
                    Some(ChartPoint {
                        identity: &point.run.identity,
                        start_time: &point.run.start_time,
                        judged,
                    })
                })
                .collect();
            let Some(newest) = chart_points.last() else {
                continue;
            };
            let _ = writeln!(
                html,
                "<figure class=\"trend\" data-key=\"{}\" data-metric=\"{}\"><figcaption>{} \
                 <span class=\"newest\">{}</span></figcaption>\n{}</figure>",
                xml_escape(series),
                xml_escape(metric),
                xml_escape(metric),
                xml_escape(&shown_value(metric, newest.judged.value)),
                chart(metric, &chart_points)
            );
        }
        html.push_str("</div>\n</section>\n");
    }
    html.push_str(
        "</main>\n<aside id=\"details\" aria-live=\"polite\">\n<h2>Run</h2>\n\
         <p id=\"details-empty\">Click a point of a chart to see its run here.</p>\n",
    );
    let unknown = RunReport::default();
    for points in points.values() {
        let charted = charted(points);
        for point in points {
            let report = reports.get(point.run.identity.as_str());
            write_details(&mut html, point, &charted, report.unwrap_or(&unknown));
        }
    }
    let _ = write!(
        html,
        "</aside>\n</div>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    );
    html
}

/// The hidden details section of one run, shown by a click on its points.
fn write_details(html: &mut String, point: &Point<'_>, charted: &[&str], report: &RunReport) {
    let run = point.run;
    let flagged: Vec<&JudgedMetric> = point.judged.iter().filter(|j| j.flagged).collect();
    let _ = write!(
        html,
        "<section class=\"run\" data-run=\"{id}\" hidden>\n<h3><code class=\"identity\">{id}</code></h3>\n\
         <p class=\"verdict {}\">{}</p>\n<table class=\"facts\">\n",
        if flagged.is_empty() { "ok" } else { "flagged" },
        match flagged.len() {
            0 => "Nothing flagged against the runs before it.".to_owned(),
            count => format!("FLAGGED: {count} metrics moved beyond noise."),
        },
        id = xml_escape(&run.identity)
    );
    let labels = run
        .labels
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(", ");
    let facts = [
        (
            "identity (SHA-256 of perf.data)",
            Some(run.identity.clone()),
        ),
        ("key", Some(run.series.clone())),
        ("time", Some(run.start_time.clone())),
        ("added", Some(run.added_at.clone())),
        ("commit", run.commit.clone()),
        ("branch", run.branch.clone()),
        ("machine", run.machine.clone()),
        ("labels", (!labels.is_empty()).then_some(labels)),
        ("compiler", run.compiler_version.clone()),
        ("command", Some(run.flags.join(" "))),
    ];
    for (label, value) in facts {
        let _ = writeln!(
            html,
            "<tr><th scope=\"row\">{label}</th><td>{}</td></tr>",
            xml_escape(value.as_deref().unwrap_or("-"))
        );
    }
    if let Some(path) = &run.path {
        let page = Path::new(path).join("report.html");
        let (target, shown) = match report.report_html {
            true => (page.display().to_string(), "report.html"),
            false => (path.clone(), "the run directory (no report.html there now)"),
        };
        let _ = writeln!(
            html,
            "<tr><th scope=\"row\">run directory</th><td><code>{}</code><br><a href=\"{}\">{shown}</a></td></tr>",
            xml_escape(path),
            xml_escape(&file_url(&target))
        );
    }
    html.push_str("</table>\n");
    if let Some(headline) = &report.headline {
        let _ = writeln!(
            html,
            "<p class=\"headline\">report.json: {}</p>",
            xml_escape(headline)
        );
    }
    html.push_str(
        "<table class=\"metrics\">\n<thead><tr><th>metric</th><th>value</th><th>vs previous</th>\
         <th>vs median</th><th>verdict</th></tr></thead>\n<tbody>\n",
    );
    let shown = point
        .judged
        .iter()
        .filter(|j| j.flagged || charted.contains(&j.metric.as_str()));
    for judged in shown {
        let share = is_share(&judged.metric);
        let _ = writeln!(
            html,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}<br><small>{}</small></td></tr>",
            if judged.flagged { "flagged" } else { "ok" },
            xml_escape(&judged.metric),
            xml_escape(&shown_value(&judged.metric, judged.value)),
            xml_escape(&shown_delta(share, judged.delta_previous)),
            xml_escape(&shown_delta(share, judged.delta_median)),
            if judged.flagged { "FLAGGED" } else { "ok" },
            xml_escape(&judged.test)
        );
    }
    html.push_str("</tbody>\n</table>\n</section>\n");
}

/// A `file://` URL of an absolute path, every byte but the unreserved
/// ones and `/` percent-encoded.
fn file_url(path: &str) -> String {
    let mut url = String::from("file://");
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                url.push(char::from(byte));
            }
            _ => {
                let _ = write!(url, "%{byte:02X}");
            }
        }
    }
    url
}

/// What the two shapes of point mean.
const LEGEND: &str = "<p class=\"legend\"><svg width=\"14\" height=\"14\" aria-hidden=\"true\">\
<circle class=\"point\" cx=\"7\" cy=\"7\" r=\"4.5\"/></svg> a run, within noise \
<svg width=\"16\" height=\"16\" aria-hidden=\"true\"><path class=\"point flagged\" d=\"M8 1.5l6.5 6.5l-6.5 6.5l-6.5 -6.5z\"/></svg> \
a run flagged against the runs before it (the IQR fence for measures, the quasi-binomial \
test for shares) <span class=\"selected-note\">(outlined: the run shown)</span></p>";

/// The page's style.
const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.5em}h2{font-size:1.2em;margin:1.2em 0 .4em}h3{font-size:1em}\
.layout{display:flex;gap:1.5em;align-items:flex-start}main{flex:1 1 auto;min-width:0}\
aside{flex:0 0 30em;position:sticky;top:.5em;max-height:96vh;overflow:auto;border:1px solid #ccc;padding:.2em 1em 1em}\
.charts{display:flex;flex-wrap:wrap;gap:.8em}\
figure.trend{margin:0;border:1px solid #e3e3e3;padding:.3em}\
figcaption{font-size:.85em;font-weight:600}.newest{font-weight:400;color:#555}\
svg.chart .axis{fill:none;stroke:#999}svg .tick{font-size:10px;fill:#555}\
svg .trend{fill:none;stroke:#9ab;stroke-width:1.5}\
.point{fill:#2a6db0;stroke:#fff;stroke-width:1;cursor:pointer}\
.point.flagged{fill:#d62728}.point.selected{stroke:#000;stroke-width:2.5}\
.point:focus{outline:none;stroke:#000;stroke-width:2}\
table{border-collapse:collapse;font-size:.85em}\
th,td{padding:.2em .5em;text-align:left;vertical-align:top;border-bottom:1px solid #ddd}\
td{overflow-wrap:anywhere}code.identity{font-size:.8em;overflow-wrap:anywhere}\
.verdict.flagged,tr.flagged td{color:#b00}small{color:#666}\
.legend svg{vertical-align:middle}";

/// A click (or Enter) on a point shows its run's section and outlines the
/// run's points in every chart.
const SCRIPT: &str = "(function(){\
var panel=document.getElementById('details'),empty=document.getElementById('details-empty');\
var points=document.querySelectorAll('.point[data-run]');\
function show(id){panel.querySelectorAll('section.run').forEach(function(s){s.hidden=s.dataset.run!==id;});\
empty.hidden=true;points.forEach(function(p){p.classList.toggle('selected',p.dataset.run===id);});}\
points.forEach(function(p){p.addEventListener('click',function(){show(p.dataset.run);});\
p.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();show(p.dataset.run);}});});\
})();";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_path_becomes_a_file_url_with_odd_bytes_encoded() {
        assert_eq!(
            file_url("/runs/a b/#1/report.html"),
            "file:///runs/a%20b/%231/report.html"
        );
    }
}
