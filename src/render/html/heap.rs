//! The HTML report's live-heap section, for a run of `record --heap`: the
//! heap at the instant read (when, the live bytes and their standard
//! error, the pass holding the most, what is live until the exit, the
//! comparison with the RSS growth), then the live bytes by pass, by
//! category and by function charged. The figures are `attribute::heap`'s,
//! as the text report's.

use std::fmt::Write as _;

use super::super::xml_escape;
use crate::attribute::heap::{HeapPeak, NamedBytes};
use crate::attribute::percent;

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

fn signed_mib(bytes: i64) -> String {
    format!("{:+.1} MiB", bytes as f64 / f64::from(1 << 20))
}

/// The section's facts, as (label, value).
fn facts(heap: &HeapPeak) -> Vec<(&'static str, String)> {
    let instant = match &*heap.instant {
        "rss_peak" => "the compiler's RSS peak",
        "heap_peak" => "the most live heap (no RSS series)",
        _ => "the time given (--at)",
    };
    let mut facts = vec![
        (
            "instant",
            format!(
                "{instant}, {:.2} s after the first sample, in {} ({})",
                heap.seconds, heap.process, heap.pid
            ),
        ),
        (
            "live heap",
            format!(
                "{} ± {} (standard error of the sampling; {} sampled allocations)",
                mib(heap.live_bytes),
                mib(heap.standard_error_bytes),
                heap.sampled_allocations
            ),
        ),
    ];
    if let Some(pass) = &heap.pass {
        facts.push((
            "held most by",
            format!(
                "{pass}: {} ({:.0}%)",
                mib(heap.pass_live_bytes),
                percent(heap.pass_live_bytes, heap.live_bytes)
            ),
        ));
    }
    facts.push((
        "most live heap",
        format!("{} at {:.2} s", mib(heap.max_live_bytes), heap.max_seconds),
    ));
    let end = &heap.at_end;
    facts.push((
        "live until the exit",
        format!(
            "{} ± {} ({} sampled allocations never freed){}",
            mib(end.live_bytes),
            mib(end.standard_error_bytes),
            end.sampled_allocations,
            end.pass
                .as_ref()
                .map_or(String::new(), |pass| format!("; most by {pass}")),
        ),
    ));
    if let (Some(rss), Some(growth), Some(anon)) = (
        heap.rss_bytes,
        heap.rss_growth_bytes,
        heap.anon_growth_bytes,
    ) {
        let ratio = |ratio: Option<f64>| ratio.map_or("-".to_owned(), |r| format!("{r:.2}"));
        facts.push((
            "against the RSS",
            format!(
                "RSS then {} ({} over its start; anonymous {}): live heap / RSS growth = {}, / \
                 anonymous growth = {}. The RSS also counts mapped library pages; the heap does \
                 not count memory malloc keeps after a free, arena and page rounding, stacks, \
                 mmaps outside malloc.",
                mib(rss),
                signed_mib(growth),
                signed_mib(anon),
                ratio(heap.live_to_rss_growth),
                ratio(heap.live_to_anon_growth),
            ),
        ));
    }
    facts
}

/// One table of names and their live bytes, with their share of `total`.
fn write_bytes_table(
    html: &mut String,
    caption: &str,
    what: &str,
    rows: &[NamedBytes],
    total: u64,
) {
    let _ = writeln!(
        html,
        "<table class=\"heap\">\n<caption>{}</caption>\n<thead><tr><th>{}</th>\
         <th class=\"num\">live MiB</th><th class=\"num\">%</th></tr></thead>\n<tbody>",
        xml_escape(caption),
        xml_escape(what)
    );
    for row in rows {
        let _ = writeln!(
            html,
            "<tr><td title=\"{name}\">{name}</td><td class=\"num\">{:.1}</td><td class=\"num\">{:.1}</td></tr>",
            row.live_bytes as f64 / f64::from(1 << 20),
            percent(row.live_bytes, total),
            name = xml_escape(&row.name),
        );
    }
    html.push_str("</tbody></table>\n");
}

/// Writes the section.
pub(super) fn write_heap(html: &mut String, heap: &HeapPeak) {
    html.push_str("<h2 id=\"heap\">Live heap</h2>\n<table class=\"facts\">\n");
    for (label, value) in facts(heap) {
        let _ = writeln!(
            html,
            "<tr><th scope=\"row\">{label}</th><td>{}</td></tr>",
            xml_escape(&value)
        );
    }
    html.push_str("</table>\n");
    let by_pass: Vec<NamedBytes> = (heap.by_pass.iter())
        .map(|place| NamedBytes {
            name: place.pass.clone(),
            live_bytes: place.live_bytes,
        })
        .collect();
    write_bytes_table(
        html,
        "Live bytes by pass",
        "pass",
        &by_pass,
        heap.live_bytes,
    );
    write_bytes_table(
        html,
        "Live bytes by category (caller attribution)",
        "category",
        &heap.by_category,
        heap.live_bytes,
    );
    write_bytes_table(
        html,
        "Live bytes by function charged (caller attribution)",
        "function",
        &heap.by_function,
        heap.live_bytes,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribute::heap::example_peak;

    #[test]
    fn the_section_states_the_peak_its_error_the_pass_and_the_rss_growth_with_each_table() {
        let mut heap = example_peak(
            100 << 20,
            3 << 20,
            &[
                ("ConstEval<Pass>", 75 << 20),
                ("(parsing the input)", 25 << 20),
            ],
        );
        heap.rss_bytes = Some(400 << 20);
        heap.rss_growth_bytes = Some(200 << 20);
        heap.anon_growth_bytes = Some(125 << 20);
        heap.live_to_rss_growth = Some(0.5);
        heap.live_to_anon_growth = Some(0.8);
        let mut html = String::new();
        write_heap(&mut html, &heap);
        for part in [
            "<h2 id=\"heap\">Live heap</h2>",
            "100.0 MiB ± 3.0 MiB (standard error of the sampling; 10 sampled allocations)",
            "<th scope=\"row\">held most by</th><td>ConstEval&lt;Pass&gt;: 75.0 MiB (75%)</td>",
            "RSS then 400.0 MiB (+200.0 MiB over its start; anonymous +125.0 MiB): live heap / RSS growth = 0.50, / anonymous growth = 0.80",
            "<td title=\"(parsing the input)\">(parsing the input)</td><td class=\"num\">25.0</td><td class=\"num\">25.0</td>",
            "<caption>Live bytes by category (caller attribution)</caption>",
            "<td title=\"Constant folding\">Constant folding</td><td class=\"num\">100.0</td>",
        ] {
            assert!(html.contains(part), "{part} not in {html}");
        }
        assert_eq!(html.matches("<table class=\"heap\">").count(), 3);
    }
}
