//! `compile-perf timeline`: an SVG of category shares over the course of the
//! compile, one stacked column per time slice in the flamegraph colours,
//! with the compile's phases as a band above, the number of busy threads
//! as a line over the columns, the slices in which the kernel lost samples
//! marked red along the chart's top, and, when the run has a
//! `memory.json`, the compiler's RSS as a second line with its peak marked;
//! with `--heap`, the estimated live heap beside it on the same scale
//! (`timeline_heap.rs`).

use std::fmt::Write;

use hashbrown::HashMap;

use super::timeline_heap;
use super::{TITLE_CHARS, short_command, xml_escape};
use crate::attribute::heap::HeapLine;
use crate::attribute::rss::RssJoin;
use crate::attribute::{Phase, Timeline};
use category_rules::{CategoryId, RuleTable};

const WIDTH: f64 = 1200.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 60.0;
const BAND_TOP: f64 = 66.0;
const BAND_HEIGHT: f64 = 22.0;
const CHART_TOP: f64 = 96.0;
const CHART_HEIGHT: f64 = 320.0;
const LEGEND_ROW: f64 = 18.0;
const LEGEND_COLUMN: f64 = 236.0;
/// The colour of the RSS line and its scale.
const RSS_COLOR: &str = "#08306b";
/// The colour of the marks of lost samples.
const LOST_COLOR: &str = "#d62728";
/// The height of a mark of lost samples, above the chart.
const LOST_MARK_HEIGHT: f64 = 6.0;

/// Colours of the phase band.
fn phase_color(phase: Phase) -> &'static str {
    match phase {
        Phase::Input => "#c6dbef",
        Phase::Flow => "#c7e9c0",
        Phase::Stream => "#fdd0a2",
        Phase::Hal => "#dadaeb",
        Phase::Codegen => "#fcbba1",
        Phase::Vm => "#d9f0a3",
        Phase::Output => "#e0e0e0",
    }
}

/// Draws `timeline`, titled with the profiled `command`, and the run's
/// facts (from `run.json`) under it when known, with the RSS line when
/// `rss` is given and the live-heap line when `heap` is.
pub(crate) fn render(
    timeline: &Timeline,
    table: &RuleTable,
    command: &str,
    run_facts: Option<&str>,
    rss: Option<&RssJoin>,
    heap: Option<&HeapLine>,
) -> String {
    let title = short_command(command, TITLE_CHARS);
    let plot_width = WIDTH - LEFT - RIGHT;
    let count = timeline.slices.len().max(1);
    let column = plot_width / count as f64;
    let total_seconds = timeline.slice_seconds * count as f64;
    let x_of = |seconds: f64| LEFT + seconds / total_seconds.max(f64::EPSILON) * plot_width;

    // Categories by their total, largest at the bottom of every column.
    let mut totals: HashMap<CategoryId, u64> = HashMap::new();
    for slice in &timeline.slices {
        for (category, samples) in &slice.categories {
            *totals.entry(*category).or_default() += samples;
        }
    }
    let mut order: Vec<(CategoryId, u64)> = totals.into_iter().collect();
    order.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
    let all: u64 = order.iter().map(|(_, samples)| samples).sum();

    let legend_rows = order
        .len()
        .div_ceil((WIDTH / LEGEND_COLUMN) as usize)
        .max(1);
    let height = CHART_TOP + CHART_HEIGHT + 44.0 + legend_rows as f64 * LEGEND_ROW + 12.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="monospace" font-size="12">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="{}" y="22" font-size="16" text-anchor="middle">{}</text>
"##,
        WIDTH / 2.0,
        xml_escape(&title)
    );
    let subtitle = match &timeline.utilization {
        Some(use_) => format!(
            "category shares per {:.2} s; on average {:.2} busy threads{}; {:.0}% of the time on one thread",
            timeline.slice_seconds,
            use_.mean_busy_threads,
            use_.cpus
                .map_or(String::new(), |cpus| format!(" of {cpus} CPUs")),
            use_.serial_share * 100.0
        ),
        None => format!("category shares per {:.2} s", timeline.slice_seconds),
    };
    let subtitle = if timeline.lost_samples > 0 {
        format!(
            "{subtitle}; the kernel lost {} samples (red marks)",
            timeline.lost_samples
        )
    } else {
        subtitle
    };
    let subtitle = match run_facts {
        Some(facts) => format!("{subtitle} — {facts}"),
        None => subtitle,
    };
    let _ = writeln!(
        svg,
        r##"<text x="{}" y="44" text-anchor="middle" fill="#555555">{}</text>"##,
        WIDTH / 2.0,
        xml_escape(&subtitle)
    );

    // The phase band and the boundaries between phases.
    for span in &timeline.phases {
        let (x0, x1) = (x_of(span.start_seconds), x_of(span.end_seconds));
        let _ = writeln!(
            svg,
            r##"<g class="phase"><title>{name}: {:.2}–{:.2} s</title><rect x="{x0:.1}" y="{BAND_TOP}" width="{:.1}" height="{BAND_HEIGHT}" fill="{}" stroke="#ffffff"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{name}</text></g>"##,
            span.start_seconds,
            span.end_seconds,
            (x1 - x0).max(0.5),
            phase_color(span.phase),
            (x0 + x1) / 2.0,
            BAND_TOP + 15.0,
            name = if x1 - x0 > 8.0 * span.phase.name().len() as f64 {
                span.phase.name()
            } else {
                ""
            },
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{x0:.1}" y1="{BAND_TOP}" x2="{x0:.1}" y2="{}" stroke="#888888" stroke-dasharray="3,3"/>"##,
            CHART_TOP + CHART_HEIGHT
        );
    }

    // One stacked column per slice.
    for (index, slice) in timeline.slices.iter().enumerate() {
        if slice.samples == 0 {
            continue;
        }
        let x = LEFT + index as f64 * column;
        let mut y = CHART_TOP + CHART_HEIGHT;
        for (category, _) in &order {
            let Some(&samples) = slice.categories.get(category) else {
                continue;
            };
            let share = samples as f64 / slice.samples as f64;
            let h = share * CHART_HEIGHT;
            y -= h;
            let info = table.category(*category);
            let _ = writeln!(
                svg,
                r#"<rect x="{x:.2}" y="{y:.2}" width="{:.2}" height="{h:.2}" fill="{}"><title>{:.2}–{:.2} s: {} {:.0}% ({samples} samples)</title></rect>"#,
                column + 0.05,
                info.color,
                slice.start_seconds,
                slice.start_seconds + timeline.slice_seconds,
                xml_escape(&info.name),
                share * 100.0,
            );
        }
    }

    draw_losses(&mut svg, timeline, column);

    // Busy threads, on the right axis.
    let busiest = timeline
        .slices
        .iter()
        .filter_map(|slice| slice.busy_threads)
        .fold(1.0f64, f64::max)
        .max(timeline.utilization.and_then(|use_| use_.cpus).unwrap_or(1) as f64)
        .ceil();
    let points: Vec<String> = timeline
        .slices
        .iter()
        .enumerate()
        .filter_map(|(index, slice)| {
            let busy = slice.busy_threads?;
            let x = LEFT + (index as f64 + 0.5) * column;
            let y = CHART_TOP + CHART_HEIGHT - busy.min(busiest) / busiest * CHART_HEIGHT;
            Some(format!("{x:.1},{y:.1}"))
        })
        .collect();
    if !points.is_empty() {
        let _ = writeln!(
            svg,
            r##"<polyline points="{}" fill="none" stroke="#000000" stroke-width="1.5"><title>busy threads</title></polyline>"##,
            points.join(" ")
        );
        for step in 0..=busiest as u32 {
            let y = CHART_TOP + CHART_HEIGHT - step as f64 / busiest * CHART_HEIGHT;
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}">{step}</text>"#,
                WIDTH - RIGHT + 6.0,
                y + 4.0
            );
        }
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" fill="#000000">threads</text>"##,
            WIDTH - RIGHT + 2.0,
            CHART_TOP - 14.0
        );
    }

    draw_memory(&mut svg, rss, heap, &x_of, total_seconds);

    // Axes: share on the left, seconds below.
    let bottom = CHART_TOP + CHART_HEIGHT;
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{CHART_TOP}" width="{plot_width}" height="{CHART_HEIGHT}" fill="none" stroke="#444444"/>"##
    );
    for share in [0, 25, 50, 75, 100] {
        let y = bottom - share as f64 / 100.0 * CHART_HEIGHT;
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{share}%</text>"#,
            LEFT - 6.0,
            y + 4.0
        );
    }
    let ticks = 10;
    for tick in 0..=ticks {
        let seconds = total_seconds * tick as f64 / ticks as f64;
        let x = x_of(seconds);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{bottom}" x2="{x:.1}" y2="{}" stroke="#444444"/><text x="{x:.1}" y="{}" text-anchor="middle">{seconds:.1} s</text>"##,
            bottom + 5.0,
            bottom + 18.0
        );
    }

    // The legend: every category present, with its share of all samples.
    let per_row = (WIDTH / LEGEND_COLUMN) as usize;
    let legend_top = bottom + 32.0;
    let _ = writeln!(svg, r#"<g id="legend">"#);
    for (index, (category, samples)) in order.iter().enumerate() {
        let info = table.category(*category);
        let x = 10.0 + (index % per_row) as f64 * LEGEND_COLUMN;
        let y = legend_top + (index / per_row) as f64 * LEGEND_ROW;
        let _ = writeln!(
            svg,
            r#"<g class="legend-entry" data-category="{}"><rect x="{x}" y="{y}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{} {:.1}%</text></g>"#,
            xml_escape(&info.id),
            info.color,
            x + 16.0,
            y + 10.0,
            xml_escape(&info.name),
            *samples as f64 * 100.0 / all.max(1) as f64
        );
    }
    svg.push_str("</g>\n</svg>\n");
    svg
}

/// A red mark above each slice in which the kernel lost samples, as wide
/// as the slice, its count in its title.
fn draw_losses(svg: &mut String, timeline: &Timeline, column: f64) {
    for (index, slice) in timeline.slices.iter().enumerate() {
        if slice.lost == 0 {
            continue;
        }
        let _ = writeln!(
            svg,
            r#"<rect class="lost" x="{:.2}" y="{:.1}" width="{:.2}" height="{LOST_MARK_HEIGHT}" fill="{LOST_COLOR}"><title>{:.2}–{:.2} s: the kernel lost {} samples</title></rect>"#,
            LEFT + index as f64 * column,
            CHART_TOP - LOST_MARK_HEIGHT,
            column.max(1.0),
            slice.start_seconds,
            slice.start_seconds + timeline.slice_seconds,
            slice.lost,
        );
    }
}

/// The memory lines over the columns on one scale from 0 to the highest
/// of them (the scale in the RSS colour inside the chart's left edge): the
/// RSS and its anonymous part, and the live heap; and what each line is.
fn draw_memory(
    svg: &mut String,
    rss: Option<&RssJoin>,
    heap: Option<&HeapLine>,
    x_of: &dyn Fn(f64) -> f64,
    total_seconds: f64,
) {
    let rss_top = rss.and_then(|rss| rss.line.iter().map(|(_, bytes, _)| *bytes).max());
    let heap_top = heap.and_then(timeline_heap::top);
    let Some(top) = rss_top.into_iter().chain(heap_top).max() else {
        return;
    };
    let scale = (top as f64).max(1.0);
    let bottom = CHART_TOP + CHART_HEIGHT;
    let y_of = |bytes: u64| bottom - bytes as f64 / scale * (CHART_HEIGHT - 16.0);
    if let Some(rss) = rss {
        draw_rss(svg, rss, x_of, &y_of, total_seconds);
    }
    if let Some(heap) = heap {
        timeline_heap::draw(svg, heap, x_of, &y_of, total_seconds);
    }
    let mib = |bytes: f64| bytes / f64::from(1 << 20);
    for fraction in [0.5, 1.0] {
        let bytes = (scale * fraction) as u64;
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" fill="{RSS_COLOR}" font-weight="bold">{:.0} MiB</text>"##,
            LEFT + 4.0,
            y_of(bytes) - 3.0,
            mib(bytes as f64)
        );
    }
    let legend = match (rss.is_some(), heap.is_some()) {
        (true, true) => format!(
            "RSS (dashed), anonymous (dotted), {}",
            timeline_heap::LEGEND
        ),
        (true, false) => "RSS (dashed), anonymous (dotted)".to_owned(),
        _ => timeline_heap::LEGEND.to_owned(),
    };
    let _ = writeln!(
        svg,
        r##"<text class="memory-legend" x="{:.1}" y="{:.1}" fill="{RSS_COLOR}" font-weight="bold">{}</text>"##,
        LEFT + 4.0,
        bottom - 4.0,
        xml_escape(&legend)
    );
}

/// The RSS line over the columns (dashed) and its anonymous part (dotted),
/// with the peak marked and named.
fn draw_rss(
    svg: &mut String,
    rss: &RssJoin,
    x_of: &dyn Fn(f64) -> f64,
    y_of: &dyn Fn(u64) -> f64,
    total_seconds: f64,
) {
    let points = |bytes_of: fn(&(f64, u64, u64)) -> u64| -> String {
        rss.line
            .iter()
            .filter(|(seconds, _, _)| *seconds <= total_seconds)
            .map(|point| format!("{:.1},{:.1}", x_of(point.0), y_of(bytes_of(point))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let all = points(|point| point.1);
    let anon = points(|point| point.2);
    let _ = writeln!(
        svg,
        r##"<polyline points="{all}" fill="none" stroke="#ffffff" stroke-width="5" stroke-opacity="0.8"/><polyline class="rss" points="{all}" fill="none" stroke="{RSS_COLOR}" stroke-width="2.5" stroke-dasharray="8,3"><title>RSS of {name} ({pid})</title></polyline>"##,
        name = xml_escape(&rss.name),
        pid = rss.pid,
    );
    let _ = writeln!(
        svg,
        r##"<polyline class="rss-anon" points="{anon}" fill="none" stroke="{RSS_COLOR}" stroke-width="2" stroke-dasharray="2,3"><title>anonymous memory of {name} ({pid}): the RSS without mapped files</title></polyline>"##,
        name = xml_escape(&rss.name),
        pid = rss.pid,
    );
    let mib = |bytes: f64| bytes / f64::from(1 << 20);
    if let Some(peak) = &rss.peak {
        let (x, y) = (x_of(peak.seconds.min(total_seconds)), y_of(peak.bytes));
        let label = format!(
            "peak {:.0} MiB at {:.2} s: {}{}",
            mib(peak.bytes as f64),
            peak.seconds,
            peak.place_name,
            peak.phase
                .map_or(String::new(), |phase| format!(" ({})", phase.name()))
        );
        let anchor = if x > LEFT + (WIDTH - LEFT - RIGHT) / 2.0 {
            "end"
        } else {
            "start"
        };
        let shift = if anchor == "end" { -8.0 } else { 8.0 };
        let _ = writeln!(
            svg,
            r##"<g class="rss-peak"><title>{label}</title><circle cx="{x:.1}" cy="{y:.1}" r="5" fill="{RSS_COLOR}"/><rect x="{:.1}" y="{:.1}" width="{:.1}" height="16" fill="#ffffff" fill-opacity="0.85"/><text x="{:.1}" y="{:.1}" text-anchor="{anchor}" fill="{RSS_COLOR}" font-weight="bold">{label}</text></g>"##,
            if anchor == "end" {
                x + shift - 7.3 * label.chars().count() as f64
            } else {
                x + shift
            },
            y + 2.0,
            7.3 * label.chars().count() as f64,
            x + shift,
            y + 14.0,
            label = xml_escape(&label),
        );
    }
}
