//! One trend chart of `history html`: an inline SVG of one metric of one
//! key over its runs, oldest left, each run a point that carries the run's
//! identity (`data-run`) for the page's script, flagged runs drawn as red
//! diamonds, the others as blue circles. Every text is escaped here.

use std::fmt::Write as _;

use crate::history::metric::{JudgedMetric, shown_value};
use crate::render::xml_escape;

/// The chart's size and the room left for the axis labels, in pixels.
const WIDTH: f64 = 380.0;
const HEIGHT: f64 = 150.0;
const LEFT: f64 = 74.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 24.0;
/// A point's radius; a diamond's half diagonal is a little more.
const RADIUS: f64 = 4.5;
const DIAMOND: f64 = 6.5;

/// One run of the chart: its identity, when it began, and its metric
/// judged against the runs before it.
pub(super) struct ChartPoint<'a> {
    pub identity: &'a str,
    pub start_time: &'a str,
    pub judged: &'a JudgedMetric,
}

/// The SVG of `metric` over `points` (oldest first, not empty).
pub(super) fn chart(metric: &str, points: &[ChartPoint<'_>]) -> String {
    let values: Vec<f64> = points.iter().map(|point| point.judged.value).collect();
    let (low, high) = range(&values);
    let x = |at: usize| match points.len() {
        1 => LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        count => LEFT + (WIDTH - LEFT - RIGHT) * at as f64 / (count - 1) as f64,
    };
    let y = |value: f64| TOP + (HEIGHT - TOP - BOTTOM) * (high - value) / (high - low);
    let mut svg = String::with_capacity(1024 + points.len() * 400);
    let _ = writeln!(
        svg,
        "<svg class=\"chart\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        xml_escape(&format!("{metric} over {} runs", points.len()))
    );
    let bottom = HEIGHT - BOTTOM;
    let _ = writeln!(
        svg,
        "<path class=\"axis\" d=\"M{LEFT} {TOP}V{bottom}H{}\"/>",
        WIDTH - RIGHT
    );
    for (value, anchor_y) in [(high, TOP + 4.0), (low, bottom)] {
        let _ = writeln!(
            svg,
            "<text class=\"tick\" x=\"{}\" y=\"{anchor_y:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 4.0,
            xml_escape(&shown_value(metric, value))
        );
    }
    let first = points.first().map_or("", |point| day(point.start_time));
    let last = points.last().map_or("", |point| day(point.start_time));
    let _ = writeln!(
        svg,
        "<text class=\"tick\" x=\"{LEFT}\" y=\"{}\">{}</text>",
        HEIGHT - 6.0,
        xml_escape(first)
    );
    if points.len() > 1 {
        let _ = writeln!(
            svg,
            "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            WIDTH - RIGHT,
            HEIGHT - 6.0,
            xml_escape(last)
        );
    }
    let line: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(at, value)| format!("{:.1},{:.1}", x(at), y(*value)))
        .collect();
    let _ = writeln!(
        svg,
        "<polyline class=\"trend\" points=\"{}\"/>",
        line.join(" ")
    );
    for (at, point) in points.iter().enumerate() {
        let (cx, cy) = (x(at), y(point.judged.value));
        let judged = point.judged;
        let label = format!(
            "{}: {} on {}{}",
            &point.identity[..point.identity.len().min(12)],
            shown_value(metric, judged.value),
            point.start_time,
            if judged.flagged { ", FLAGGED" } else { "" }
        );
        let attributes = format!(
            "data-run=\"{}\" data-metric=\"{}\" tabindex=\"0\" role=\"button\" aria-label=\"{}\"",
            xml_escape(point.identity),
            xml_escape(metric),
            xml_escape(&label)
        );
        let shape = if judged.flagged {
            format!(
                "<path class=\"point flagged\" d=\"M{cx:.1} {:.1}l{DIAMOND} {DIAMOND}l-{DIAMOND} {DIAMOND}l-{DIAMOND} -{DIAMOND}z\" {attributes}>",
                cy - DIAMOND
            )
        } else {
            format!(
                "<circle class=\"point\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{RADIUS}\" {attributes}>"
            )
        };
        let end = if judged.flagged {
            "</path>"
        } else {
            "</circle>"
        };
        let _ = writeln!(
            svg,
            "{shape}<title>{}</title>{end}",
            xml_escape(&format!("{label}\n{}", judged.test))
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The values' range with a margin, never empty.
fn range(values: &[f64]) -> (f64, f64) {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let margin = match high - low {
        spread if spread > 0.0 => spread * 0.08,
        _ if low != 0.0 => low.abs() * 0.05,
        _ => 1.0,
    };
    (low - margin, high + margin)
}

/// The date of an RFC 3339 time.
fn day(time: &str) -> &str {
    time.get(..10).unwrap_or(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(value: f64, flagged: bool) -> JudgedMetric {
        JudgedMetric {
            metric: "wall_seconds".to_owned(),
            value,
            previous: None,
            median: None,
            delta_previous: None,
            delta_median: None,
            flagged,
            test: "IQR fence <&>".to_owned(),
        }
    }

    #[test]
    fn each_run_is_a_point_with_its_identity_and_a_flagged_one_a_diamond() {
        let values = [judged(2.0, false), judged(2.2, false), judged(9.0, true)];
        let ids = ["aaaa", "bbbb", "cccc"];
        let points: Vec<ChartPoint<'_>> = values
            .iter()
            .zip(ids)
            .map(|(judged, identity)| ChartPoint {
                identity,
                start_time: "2026-12-03T10:00:00Z",
                judged,
            })
            .collect();
        let svg = chart("wall_seconds", &points);
        assert_eq!(svg.matches("<circle class=\"point\"").count(), 2);
        assert_eq!(svg.matches("<path class=\"point flagged\"").count(), 1);
        for id in ids {
            assert_eq!(svg.matches(&format!("data-run=\"{id}\"")).count(), 1);
        }
        assert!(svg.contains("IQR fence &lt;&amp;&gt;"), "{svg}");
        assert!(!svg.contains("<&>"));
        // The highest value is drawn highest (the smallest y).
        let flagged = svg.split("class=\"point flagged\" d=\"M").nth(1).unwrap();
        let top: f64 = flagged.split([' ', 'l']).nth(1).unwrap().parse().unwrap();
        for circle in svg.split("cy=\"").skip(1) {
            let cy: f64 = circle[..circle.find('"').unwrap()].parse().unwrap();
            assert!(top + DIAMOND < cy - 50.0, "{top} against {cy}");
        }
    }

    #[test]
    fn one_value_or_equal_values_still_have_a_range() {
        assert_eq!(range(&[0.0]), (-1.0, 1.0));
        let (low, high) = range(&[4.0, 4.0]);
        assert!(low < 4.0 && high > 4.0);
    }
}
