//! How `diff` writes the runs' facts side by side, above the rows: wall
//! time, CPU time, peak RSS and artifact bytes (medians and ranges, with
//! the change), the outputs' bytes by kind of member, the members that
//! changed, were added or removed; their JSON (`run`, `artifacts`); and the
//! lines of a failed gate's summary about them.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use super::table::{Cell, Colors, Column, Ink, Table, TextFormat, write_table};
use crate::attribute::run_diff::{
    GATE_RUNS, Measure, MeasureDiff, MemberDiff, RunDiff, RunFailure, Spread,
};

/// Members listed in the text table; JSON lists them all.
const TEXT_MEMBERS: usize = 20;

/// Writes the tables of the runs' facts, when the runs said any.
pub(crate) fn write_text(
    run: &RunDiff,
    format: TextFormat,
    colors: Colors,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if run.is_empty() {
        return Ok(());
    }
    write_table(&measure_table(run), format, colors, out)?;
    if !run.kinds.is_empty() {
        writeln!(out)?;
        write_table(&kind_table(run), format, colors, out)?;
    }
    let changed: Vec<&MemberDiff> = run
        .members
        .iter()
        .filter(|member| member.base_bytes != member.new_bytes)
        .collect();
    if !changed.is_empty() {
        writeln!(out)?;
        write_table(&member_table(&changed), format, colors, out)?;
        let count = |test: fn(&MemberDiff) -> bool| run.members.iter().filter(|m| test(m)).count();
        let more = changed.len().saturating_sub(TEXT_MEMBERS);
        writeln!(
            out,
            "{}members: {} added, {} removed, {} changed, {} unchanged{}",
            if format == TextFormat::Markdown {
                "\n"
            } else {
                ""
            },
            count(|m| m.base_bytes.is_none()),
            count(|m| m.new_bytes.is_none()),
            count(|m| m.base_bytes.is_some()
                && m.new_bytes.is_some()
                && m.base_bytes != m.new_bytes),
            count(|m| m.base_bytes == m.new_bytes),
            if more > 0 {
                format!(" ({more} more changed in --format json)")
            } else {
                String::new()
            }
        )?;
    }
    writeln!(out)
}

/// A value of `measure` as the table shows it, without its unit.
fn number(measure: Measure, value: f64) -> String {
    match measure {
        Measure::Wall | Measure::Cpu => format!("{value:.2}"),
        Measure::PeakRss | Measure::PeakAnon => format!("{:.1}", value / f64::from(1 << 20)),
        Measure::ArtifactBytes => format!("{value:.0}"),
    }
}

/// A value of `measure` as the table shows it.
fn shown(measure: Measure, value: f64) -> String {
    let number = number(measure, value);
    match measure {
        Measure::Wall | Measure::Cpu => format!("{number} s"),
        Measure::PeakRss | Measure::PeakAnon => format!("{number} MiB"),
        Measure::ArtifactBytes => number,
    }
}

/// The median, and the range when there are several runs.
fn spread_text(measure: Measure, spread: Option<&Spread>) -> String {
    match spread {
        None => "—".to_owned(),
        Some(spread) if spread.runs.len() > 1 && spread.min() < spread.max() => format!(
            "{} ({}–{})",
            shown(measure, spread.median),
            number(measure, spread.min()),
            number(measure, spread.max())
        ),
        Some(spread) => shown(measure, spread.median),
    }
}

/// A value of a measure in JSON: a number, bytes whole, seconds to the
/// millisecond.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum MeasureValue {
    Seconds(f64),
    Bytes(u64),
}

/// `value` of `measure` in JSON.
fn json_value(measure: Measure, value: f64) -> MeasureValue {
    match measure {
        Measure::Wall | Measure::Cpu => MeasureValue::Seconds((value * 1000.0).round() / 1000.0),
        Measure::PeakRss | Measure::PeakAnon | Measure::ArtifactBytes => {
            MeasureValue::Bytes(value.round() as u64)
        }
    }
}

/// The change from `base` to `new` bytes, in percent; `None` from nothing.
fn bytes_change(base: u64, new: u64) -> Option<f64> {
    (base > 0).then(|| (new as f64 / base as f64 - 1.0) * 100.0)
}

/// `+12.3%`, red or blue when it counts.
fn change_cell(delta_percent: Option<f64>, counts: bool) -> Cell {
    let Some(delta) = delta_percent else {
        return String::new().into();
    };
    Cell {
        text: format!("{delta:+.1}%"),
        color: None,
        ink: (counts && delta != 0.0).then_some(if delta > 0.0 { Ink::Red } else { Ink::Blue }),
    }
}

fn spread_words(measured: &MeasureDiff) -> String {
    match measured.beyond_spread {
        Some(true) => "beyond the runs' spread".to_owned(),
        Some(false) => {
            let runs = |spread: &Option<Spread>| spread.as_ref().map_or(0, |s| s.runs.len());
            if runs(&measured.base).min(runs(&measured.new)) < GATE_RUNS {
                format!("needs {GATE_RUNS} runs a side to judge")
            } else {
                "within the runs' spread".to_owned()
            }
        }
        None => String::new(),
    }
}

fn measure_table(run: &RunDiff) -> Table {
    Table {
        columns: vec![
            Column::left("run"),
            Column::right("base"),
            Column::right("new"),
            Column::right("change"),
            Column::left("noise"),
        ],
        rows: run
            .measures
            .iter()
            .map(|measured| {
                let measure = measured.measure;
                vec![
                    measure.label().to_owned().into(),
                    spread_text(measure, measured.base.as_ref()).into(),
                    spread_text(measure, measured.new.as_ref()).into(),
                    change_cell(measured.delta_percent, measured.counts()),
                    spread_words(measured).into(),
                ]
            })
            .collect(),
    }
}

fn kind_table(run: &RunDiff) -> Table {
    Table {
        columns: vec![
            Column::left("artifact kind"),
            Column::right("base bytes"),
            Column::right("new bytes"),
            Column::right("change"),
        ],
        rows: run
            .kinds
            .iter()
            .map(|kind| {
                vec![
                    kind.kind.name().to_owned().into(),
                    kind.base_bytes.to_string().into(),
                    kind.new_bytes.to_string().into(),
                    match bytes_change(kind.base_bytes, kind.new_bytes) {
                        Some(delta) => change_cell(Some(delta), true),
                        None => "new".to_owned().into(),
                    },
                ]
            })
            .collect(),
    }
}

fn member_table(changed: &[&MemberDiff]) -> Table {
    let bytes = |value: Option<u64>| value.map_or_else(|| "—".to_owned(), |b| b.to_string());
    Table {
        columns: vec![
            Column::left("member"),
            Column::left("kind"),
            Column::right("base bytes"),
            Column::right("new bytes"),
            Column::right("change"),
        ],
        rows: changed
            .iter()
            .take(TEXT_MEMBERS)
            .map(|member| {
                let change = match (member.base_bytes, member.new_bytes) {
                    (None, _) => "added".to_owned().into(),
                    (_, None) => "removed".to_owned().into(),
                    (Some(base), Some(new)) => change_cell(bytes_change(base, new), true),
                };
                vec![
                    member.name.clone().into(),
                    member.kind.name().to_owned().into(),
                    bytes(member.base_bytes).into(),
                    bytes(member.new_bytes).into(),
                    change,
                ]
            })
            .collect(),
    }
}

/// One measure in JSON, its fields in the order of their names.
#[derive(Debug, Serialize)]
pub(crate) struct MeasureJson {
    /// The median of the base's runs.
    base: Option<MeasureValue>,
    base_runs: Vec<MeasureValue>,
    /// For times and RSS: every run of one side beyond every run of the
    /// other, with enough runs a side.
    #[serde(skip_serializing_if = "Option::is_none")]
    beyond_spread: Option<bool>,
    delta_percent: Option<f64>,
    /// The median of the new side's runs.
    new: Option<MeasureValue>,
    new_runs: Vec<MeasureValue>,
}

/// One member in JSON.
#[derive(Debug, Serialize)]
pub(crate) struct MemberJson {
    name: String,
    kind: &'static str,
    base_bytes: Option<u64>,
    new_bytes: Option<u64>,
}

/// The `run` object: each measure either side has, by its JSON name (in
/// the names' order).
pub(crate) fn run_json(run: &RunDiff) -> BTreeMap<&'static str, MeasureJson> {
    run.measures
        .iter()
        .map(|measured| {
            let measure = measured.measure;
            let median =
                |spread: &Option<Spread>| spread.as_ref().map(|s| json_value(measure, s.median));
            let runs = |spread: &Option<Spread>| {
                spread.as_ref().map_or_else(Vec::new, |s| {
                    s.runs
                        .iter()
                        .map(|&value| json_value(measure, value))
                        .collect()
                })
            };
            let json = MeasureJson {
                base: median(&measured.base),
                base_runs: runs(&measured.base),
                beyond_spread: measured.beyond_spread,
                delta_percent: measured.delta_percent,
                new: median(&measured.new),
                new_runs: runs(&measured.new),
            };
            (measured.measure.json_name(), json)
        })
        .collect()
}

/// The `artifacts` list: every member, the largest change first.
pub(crate) fn artifacts_json(run: &RunDiff) -> Vec<MemberJson> {
    run.members
        .iter()
        .map(|member| MemberJson {
            name: member.name.clone(),
            kind: member.kind.name(),
            base_bytes: member.base_bytes,
            new_bytes: member.new_bytes,
        })
        .collect()
}

/// A run fact's row of the failed gate's table: what, base, new, change, limit.
pub(crate) fn failure_row(failure: &RunFailure) -> Vec<Cell> {
    vec![
        failure.measure.label().to_owned().into(),
        shown(failure.measure, failure.base).into(),
        shown(failure.measure, failure.new).into(),
        format!("{:+.2}%", failure.delta_percent).into(),
        format!("{}%", failure.limit_percent).into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Artifact;
    use crate::attribute::run_diff::{RunMeasures, run_diff};

    fn run(wall: f64, members: &[(&str, u64)]) -> RunMeasures {
        RunMeasures {
            wall_seconds: Some(wall),
            cpu_seconds: None,
            peak_rss_bytes: Some(100 << 20),
            peak_anon_bytes: Some(40 << 20),
            artifacts: vec![Artifact::vmfb_of(members, 0)],
        }
    }

    #[test]
    fn the_runs_facts_show_medians_ranges_kinds_and_members() {
        let linked = [("module.fb", 100), ("m_linked_embedded_elf_x86_64.so", 800)];
        let separate = [
            ("module.fb", 120),
            ("main_dispatch_0_embedded_elf_x86_64.so", 500),
            ("main_dispatch_1_embedded_elf_x86_64.so", 500),
        ];
        let base: Vec<RunMeasures> = [2.0, 2.2, 2.1].map(|wall| run(wall, &linked)).into();
        let new: Vec<RunMeasures> = [3.0, 3.3, 3.1].map(|wall| run(wall, &separate)).into();
        let compared = run_diff(&base, &new);
        let mut text = Vec::new();
        write_text(&compared, TextFormat::Table, Colors::Plain, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let words = |start: &str| -> Vec<String> {
            let line = text.lines().find(|line| line.starts_with(start)).unwrap();
            line.split_whitespace().map(str::to_owned).collect()
        };
        assert_eq!(
            words("wall time"),
            [
                "wall",
                "time",
                "2.10",
                "s",
                "(2.00–2.20)",
                "3.10",
                "s",
                "(3.00–3.30)",
                "+47.6%",
                "beyond",
                "the",
                "runs'",
                "spread"
            ]
        );
        assert_eq!(
            words("peak RSS")[2..],
            [
                "100.0", "MiB", "100.0", "MiB", "+0.0%", "within", "the", "runs'", "spread"
            ]
        );
        assert_eq!(words("artifact bytes")[2..], ["900", "1120", "+24.4%"]);
        assert_eq!(words("executable"), ["executable", "800", "1000", "+25.0%"]);
        assert_eq!(
            words("m_linked"),
            ["m_linked", "executable", "800", "—", "removed"]
        );
        assert_eq!(
            words("main_dispatch_0"),
            ["main_dispatch_0", "executable", "—", "500", "added"]
        );
        assert!(
            text.contains("\nmembers: 2 added, 1 removed, 1 changed, 0 unchanged\n"),
            "{text}"
        );
        let json = run_json(&compared);
        assert_eq!(json["artifact_bytes"].base, Some(MeasureValue::Bytes(900)));
        assert_eq!(
            json["wall_seconds"].new_runs,
            [3.0, 3.3, 3.1].map(MeasureValue::Seconds)
        );
        assert_eq!(json["wall_seconds"].beyond_spread, Some(true));
        assert_eq!(
            serde_json::to_string(&json["wall_seconds"]).unwrap(),
            r#"{"base":2.1,"base_runs":[2.0,2.2,2.1],"beyond_spread":true,"delta_percent":47.62,"new":3.1,"new_runs":[3.0,3.3,3.1]}"#
        );
        let members = serde_json::to_value(artifacts_json(&compared)).unwrap();
        assert_eq!(
            members[0],
            serde_json::json!({"name": "m_linked", "kind": "executable", "base_bytes": 800, "new_bytes": null})
        );
    }
}
