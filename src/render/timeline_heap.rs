//! The live-heap line of `timeline --heap`: the compiler's estimated live
//! heap after each sampled allocation and free, drawn as steps on the
//! timeline's memory scale, with its standard error as a band around it and
//! the instant `report --heap` reads marked with its bytes.

use std::fmt::Write;

use super::xml_escape;
use crate::attribute::heap::HeapLine;

/// The colour of the live-heap line and its band.
const HEAP_COLOR: &str = "#7a0177";
/// What the line and the band are, for the memory legend.
pub(super) const LEGEND: &str = "live heap (solid; band: ± 1 standard error)";

/// The highest the line and its band reach, in bytes.
pub(super) fn top(line: &HeapLine) -> Option<u64> {
    (line.points.iter())
        .map(|&(_, bytes, error)| bytes.saturating_add(error))
        .chain([line.at.1.saturating_add(line.at.2)])
        .max()
}

/// The points drawn: at most one per half pixel, the highest of those that
/// fall in it (a peak is never smoothed away), then each held until the
/// next as a step.
fn drawn_points(
    line: &HeapLine,
    x_of: &dyn Fn(f64) -> f64,
    total_seconds: f64,
) -> Vec<(f64, u64, u64)> {
    let mut kept: Vec<(f64, u64, u64)> = Vec::new();
    for &(seconds, bytes, error) in (line.points.iter()).filter(|point| point.0 <= total_seconds) {
        let x = x_of(seconds);
        match kept.last_mut() {
            Some(last) if (x - last.0).abs() < 0.5 => {
                if bytes > last.1 {
                    *last = (last.0, bytes, error);
                }
            }
            _ => kept.push((x, bytes, error)),
        }
    }
    let mut steps = Vec::with_capacity(kept.len() * 2);
    for (index, &(x, bytes, error)) in kept.iter().enumerate() {
        steps.push((x, bytes, error));
        if let Some(next) = kept.get(index + 1) {
            steps.push((next.0, bytes, error));
        }
    }
    steps
}

/// Draws `line` with `x_of` and `y_of`, the band first, then the line and
/// the mark of the instant read.
pub(super) fn draw(
    svg: &mut String,
    line: &HeapLine,
    x_of: &dyn Fn(f64) -> f64,
    y_of: &dyn Fn(u64) -> f64,
    total_seconds: f64,
) {
    let steps = drawn_points(line, x_of, total_seconds);
    let name = xml_escape(&line.process);
    let pid = line.pid;
    let upper = (steps.iter()).map(|&(x, bytes, error)| (x, bytes.saturating_add(error)));
    let lower = (steps.iter().rev()).map(|&(x, bytes, error)| (x, bytes.saturating_sub(error)));
    let band: Vec<String> = (upper.chain(lower))
        .map(|(x, bytes)| format!("{x:.1},{:.1}", y_of(bytes)))
        .collect();
    let drawn: Vec<String> = (steps.iter())
        .map(|&(x, bytes, _)| format!("{x:.1},{:.1}", y_of(bytes)))
        .collect();
    let _ = writeln!(
        svg,
        r##"<polygon class="heap-error" points="{}" fill="{HEAP_COLOR}" fill-opacity="0.18" stroke="none"><title>± 1 standard error of the sampling</title></polygon>"##,
        band.join(" ")
    );
    let _ = writeln!(
        svg,
        r##"<polyline class="heap" points="{}" fill="none" stroke="{HEAP_COLOR}" stroke-width="2"><title>estimated live heap of {name} ({pid})</title></polyline>"##,
        drawn.join(" ")
    );
    let (seconds, bytes, error, instant) = line.at;
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    let at = match instant {
        "rss_peak" => "at the RSS peak",
        "heap_peak" => "at its most",
        _ => "at the time given",
    };
    let label = format!(
        "live heap {at}: {:.1} MiB ± {:.1} MiB at {seconds:.2} s",
        mib(bytes),
        mib(error)
    );
    let (x, y) = (x_of(seconds.min(total_seconds)), y_of(bytes));
    let _ = writeln!(
        svg,
        r##"<g class="heap-at"><title>{label}</title><circle cx="{x:.1}" cy="{y:.1}" r="4" fill="{HEAP_COLOR}"/></g>"##,
        label = xml_escape(&label)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(points: Vec<(f64, u64, u64)>) -> HeapLine {
        HeapLine {
            pid: 7,
            process: "iree-compile".to_owned(),
            points,
            at: (1.0, 300, 10, "rss_peak"),
        }
    }

    #[test]
    fn points_in_one_half_pixel_keep_the_highest_and_each_is_held_as_a_step() {
        let x_of = |seconds: f64| seconds * 100.0;
        let heap = line(vec![
            (0.0, 100, 1),
            (0.001, 500, 2),
            (0.002, 200, 3),
            (1.0, 300, 10),
            (5.0, 0, 0),
        ]);
        // 5.0 s is past the chart's end: left out.
        let steps = drawn_points(&heap, &x_of, 2.0);
        assert_eq!(
            steps,
            [(0.0, 500, 2), (100.0, 500, 2), (100.0, 300, 10)],
            "{steps:?}"
        );
        assert_eq!(top(&heap), Some(502));
    }

    #[test]
    fn the_line_its_band_and_the_instant_read_are_drawn_with_their_bytes() {
        let heap = line(vec![(0.0, 0, 0), (1.0, 300 << 20, 2 << 20)]);
        let mut svg = String::new();
        draw(
            &mut svg,
            &heap,
            &|s: f64| s * 10.0,
            &|bytes: u64| bytes as f64,
            2.0,
        );
        assert!(svg.contains(r#"class="heap-error""#), "{svg}");
        assert!(
            svg.contains(r#"class="heap" points="0.0,0.0 10.0,0.0 10.0,314572800.0""#),
            "{svg}"
        );
        assert!(
            svg.contains("live heap at the RSS peak: 0.0 MiB ± 0.0 MiB at 1.00 s"),
            "{svg}"
        );
    }
}
