//! The ranking of `compile-perf executables`: `executables.json` (the
//! executables slowest first, the full compile they came from, their totals,
//! the outliers, the executables compiled more than once, and whether the
//! order is beyond run-to-run noise) and the table printed from it.

mod duplicates;
mod noise;

use std::io::Write;

use serde::Serialize;

use super::round2;
use super::table::{Cell, Colors, Column, Table, TextFormat, write_table};

use duplicates::duplicate_line;
pub(crate) use duplicates::{Duplicate, duplicates};
pub(crate) use noise::test_order;

/// An executable is an outlier when its compile took more than this many
/// times the median.
pub(crate) const OUTLIER_FACTOR: f64 = 5.0;
/// Categories and passes listed per executable in the table.
const TABLE_TOP: usize = 2;

/// `executables.json`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ExecutablesJson {
    /// Samples the kernel lost, of every recording (the full compile's and
    /// the executables').
    pub lost_samples: u64,
    /// Slowest first.
    pub executables: Vec<ExecutableEntry>,
    /// The compile the executables were dumped from.
    pub full_compile: FullCompile,
    /// The executables together.
    pub totals: Totals,
    pub outliers: Vec<Outlier>,
    /// Executables compiled more than once (alike sources), most first.
    pub duplicates: Vec<Duplicate>,
    /// Whether the order is beyond run-to-run noise.
    pub ranking: RankingNoise,
    /// Seconds each executable's compile was allowed.
    pub timeout_seconds: f64,
    /// Executables compiled at a time.
    pub jobs: usize,
    /// Samples per second of every recording.
    pub frequency_hz: u32,
}

/// One executable compiled alone.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ExecutableEntry {
    /// The `hal.executable`'s symbol.
    pub name: String,
    /// Its compile's wall time (the wrapper's measure; the timeout when it
    /// timed out): the median of its runs.
    pub wall_seconds: f64,
    /// The wall time of each run, in the order they ran.
    pub wall_runs_seconds: Vec<f64>,
    /// Whether its runs are slower than the next executable's beyond
    /// run-to-run noise; `null` for the last, and when either was compiled
    /// once.
    pub beyond_noise_of_next: Option<bool>,
    /// The one-sided p-value of that test (Mann–Whitney, exact).
    pub p_value_vs_next: Option<f64>,
    /// CPU samples of the native compiler process.
    pub samples: u64,
    /// Samples the kernel lost while recording it.
    pub lost_samples: u64,
    /// Peak RSS of the compile (the launcher and the compiler).
    pub peak_rss_bytes: Option<u64>,
    /// How the compile ended; `null` when that was not measured.
    pub exit: Option<Exit>,
    pub timed_out: bool,
    pub top_categories: Vec<CategoryShare>,
    pub top_passes: Vec<PassShare>,
    /// The symbols of its `hal.executable.export` ops.
    pub entry_points: Vec<String>,
    /// Samples in `TranslateAllExecutablesPass` (codegen).
    pub translate_samples: u64,
    /// Samples in `SerializeAllExecutablesPass` (LLVM to objects, linking).
    pub serialize_samples: u64,
    /// The dumped source, relative to the run directory.
    pub source: String,
    /// Its run directory (perf.data, run.json, flamegraph.svg), relative to
    /// the run directory.
    pub run_dir: String,
    /// Its flamegraph, relative to the run directory; `null` when nothing
    /// was drawn.
    pub flamegraph: Option<String>,
    /// What went wrong reading or recording it.
    pub notes: Vec<String>,
}

/// How a compile ended: its exit code, or the signal that ended it.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Exit {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// A category's share of an executable's samples, self.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct CategoryShare {
    pub id: String,
    pub self_percent: f64,
}

/// A pass's share of an executable's samples, inclusive; or the share of
/// passes nested in each other that do the same work (the outer's samples
/// are nearly all in the inner, and the inner's in the outer), listed once.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PassShare {
    /// The passes joined with ` > `, outermost first.
    pub name: String,
    /// The passes, outermost first: one, or those doing the same work.
    pub passes: Vec<String>,
    pub inclusive_percent: f64,
}

/// The full compile, recorded with the dump.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct FullCompile {
    pub wall_seconds: Option<f64>,
    pub exit: Option<Exit>,
    /// CPU samples of the native compiler process.
    pub samples: u64,
    /// Samples the kernel lost while recording it.
    pub lost_samples: u64,
    /// Samples in `TranslateAllExecutablesPass` (codegen).
    pub translate_samples: u64,
    /// Samples in `SerializeAllExecutablesPass` (LLVM to objects, linking).
    pub serialize_samples: u64,
    pub run_dir: String,
}

/// The executables' codegen samples, alone, against the full compile's
/// (percent), when they add up to it: measured at 72–123% on five
/// workloads, where one full compile's codegen alone moved by 1.5× over
/// ten runs, as the machine's speed drifts (docs/executables-and-sizes.md).
const CODEGEN_EXPECTED_PERCENT: std::ops::RangeInclusive<f64> = 50.0..=150.0;

/// The executables together.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Totals {
    pub count: usize,
    pub wall_seconds: f64,
    pub median_wall_seconds: f64,
    pub samples: u64,
    pub lost_samples: u64,
    pub translate_samples: u64,
    pub serialize_samples: u64,
    /// Their codegen samples against the full compile's, in percent; `null`
    /// when the full compile has none.
    pub translate_percent_of_full: Option<f64>,
    /// Their serialization samples against the full compile's, in percent;
    /// `null` when the full compile has none.
    pub serialize_percent_of_full: Option<f64>,
}

/// Whether the order of the ranking is beyond run-to-run noise: each step
/// from one executable to the next tested on their runs' wall times.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct RankingNoise {
    /// Compiles asked of each executable (`--repeat`).
    pub runs_each: usize,
    /// Steps from one executable to the next with two runs or more on both
    /// sides.
    pub steps_tested: usize,
    /// Of those, the steps beyond noise.
    pub steps_beyond_noise: usize,
    /// The one-sided p-value at or under which a step is beyond noise.
    pub alpha: f64,
    /// What the ranking's order can be trusted for, in a sentence.
    pub statement: String,
}

/// An executable that stands out.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Outlier {
    pub name: String,
    pub reason: String,
}

/// The executables that timed out, failed, or took more than
/// [`OUTLIER_FACTOR`] times the median; `executables` slowest first.
pub(crate) fn outliers(executables: &[ExecutableEntry], median_wall: f64) -> Vec<Outlier> {
    executables
        .iter()
        .filter_map(|executable| {
            let exit_code = executable
                .exit
                .map(|exit| exit.code.unwrap_or(128 + exit.signal.unwrap_or(0)));
            let reason = if executable.timed_out {
                format!("timed out after {:.1} s", executable.wall_seconds)
            } else if exit_code.is_some_and(|code| code != 0) {
                format!("failed (exit {})", exit_code.unwrap_or_default())
            } else if median_wall > 0.0 && executable.wall_seconds > OUTLIER_FACTOR * median_wall {
                format!(
                    "{:.1}× the median wall time ({:.2} s)",
                    executable.wall_seconds / median_wall,
                    median_wall
                )
            } else {
                return None;
            };
            Some(Outlier {
                name: executable.name.clone(),
                reason,
            })
        })
        .collect()
}

/// Writes the ranking as a table, then the totals and the outliers.
pub(crate) fn write_text(ranking: &ExecutablesJson, out: &mut dyn Write) -> std::io::Result<()> {
    let repeated = ranking.ranking.runs_each > 1;
    let mut columns = vec![Column::left("executable"), Column::right("wall s")];
    if repeated {
        columns.extend([Column::right("runs s"), Column::left("next")]);
    }
    columns.extend([
        Column::right("samples"),
        Column::right("peak MiB"),
        Column::left("exit"),
        Column::left("top categories (self)"),
        Column::left("top passes (incl)"),
        Column::left("entry point"),
    ]);
    let table = Table {
        columns,
        rows: ranking
            .executables
            .iter()
            .map(|executable| row(executable, repeated))
            .collect(),
    };
    write_table(&table, TextFormat::Table, Colors::Plain, out)?;
    let totals = &ranking.totals;
    let full = &ranking.full_compile;
    let seconds = |samples: u64| samples as f64 / f64::from(ranking.frequency_hz.max(1));
    writeln!(out)?;
    let runs = if repeated {
        format!(
            ", {} runs each (wall s: their median)",
            ranking.ranking.runs_each
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{} executables compiled alone ({} at a time{runs}): {:.1} s of wall time together, median {:.2} s; {} samples",
        totals.count, ranking.jobs, totals.wall_seconds, totals.median_wall_seconds, totals.samples
    )?;
    writeln!(out, "order: {}", ranking.ranking.statement)?;
    writeln!(
        out,
        "full compile: {} wall, {} samples; codegen (TranslateAllExecutablesPass) {} samples ({:.1} s CPU), serialization (SerializeAllExecutablesPass) {} ({:.1} s CPU)",
        full.wall_seconds
            .map_or_else(|| "unmeasured".to_owned(), |wall| format!("{wall:.1} s")),
        full.samples,
        full.translate_samples,
        seconds(full.translate_samples),
        full.serialize_samples,
        seconds(full.serialize_samples)
    )?;
    let of_full = |percent: Option<f64>| {
        percent.map_or_else(
            || "the full compile has none".to_owned(),
            |percent| format!("{percent:.0}% of the full compile's"),
        )
    };
    writeln!(
        out,
        "the executables alone: codegen {} samples ({}), serialization {} ({}; the full compile serializes the executables linked into one)",
        totals.translate_samples,
        of_full(totals.translate_percent_of_full),
        totals.serialize_samples,
        of_full(totals.serialize_percent_of_full)
    )?;
    if let Some(note) = codegen_note(totals.translate_percent_of_full) {
        writeln!(out, "note: {note}")?;
    }
    if ranking.outliers.is_empty() {
        writeln!(
            out,
            "outliers: none (none timed out or failed, none above {OUTLIER_FACTOR}× the median)"
        )?;
    }
    for outlier in &ranking.outliers {
        writeln!(out, "outlier: {}: {}", outlier.name, outlier.reason)?;
    }
    if ranking.duplicates.is_empty() {
        writeln!(
            out,
            "duplicated: none (no two sources alike once names are renamed, nor but for constants)"
        )?;
    }
    for duplicate in &ranking.duplicates {
        writeln!(out, "{}", duplicate_line(duplicate))?;
    }
    Ok(())
}

/// What to say when the executables' codegen alone is not within
/// [`CODEGEN_EXPECTED_PERCENT`] of the full compile's.
fn codegen_note(percent_of_full: Option<f64>) -> Option<String> {
    let percent = percent_of_full.filter(|percent| !CODEGEN_EXPECTED_PERCENT.contains(percent))?;
    Some(format!(
        "the executables' codegen is {percent:.0}% of the full compile's, outside the {}–{}% \
         seen when they add up to it: the ranking compares them compiled alone, not as the full \
         compile runs them (set-up repeated for each executable counts in)",
        CODEGEN_EXPECTED_PERCENT.start(),
        CODEGEN_EXPECTED_PERCENT.end()
    ))
}

/// One executable's row; with `repeated`, the spread of its runs and how
/// it stands against the next.
fn row(executable: &ExecutableEntry, repeated: bool) -> Vec<Cell> {
    let exit = match executable.exit {
        _ if executable.timed_out => "timeout".to_owned(),
        Some(Exit {
            code: Some(code), ..
        }) => code.to_string(),
        Some(Exit {
            signal: Some(signal),
            ..
        }) => format!("signal {signal}"),
        _ => "?".to_owned(),
    };
    let categories = executable
        .top_categories
        .iter()
        .take(TABLE_TOP)
        .map(|share| format!("{} {:.0}%", share.id, share.self_percent))
        .collect::<Vec<_>>()
        .join(", ");
    let passes = executable
        .top_passes
        .iter()
        .take(TABLE_TOP)
        .map(|share| format!("{} {:.0}%", share.name, share.inclusive_percent))
        .collect::<Vec<_>>()
        .join(", ");
    let mut cells: Vec<Cell> = vec![
        executable.name.clone().into(),
        format!("{:.2}", executable.wall_seconds).into(),
    ];
    if repeated {
        let walls = &executable.wall_runs_seconds;
        let low = walls.iter().copied().fold(f64::INFINITY, f64::min);
        let high = walls.iter().copied().fold(0.0, f64::max);
        let next = match executable.beyond_noise_of_next {
            Some(true) => ">",
            Some(false) => "≈",
            None => "",
        };
        cells.extend([format!("{low:.2}–{high:.2}").into(), next.to_owned().into()]);
    }
    cells.extend([
        executable.samples.to_string().into(),
        executable
            .peak_rss_bytes
            .map_or_else(String::new, |bytes| {
                format!("{:.0}", bytes as f64 / 1048576.0)
            })
            .into(),
        exit.into(),
        categories.into(),
        passes.into(),
        executable.entry_points.join(", ").into(),
    ]);
    cells
}

/// `part` of `whole` in percent, two decimals; 0 for an empty whole.
pub(crate) fn share(part: u64, whole: u64) -> f64 {
    round2(crate::attribute::percent(part, whole))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn entry(
        name: &str,
        wall_seconds: f64,
        exit: Option<i32>,
        timed_out: bool,
    ) -> ExecutableEntry {
        ExecutableEntry {
            name: name.to_owned(),
            wall_seconds,
            wall_runs_seconds: vec![wall_seconds],
            beyond_noise_of_next: None,
            p_value_vs_next: None,
            samples: 0,
            lost_samples: 0,
            peak_rss_bytes: None,
            exit: exit.map(|code| Exit {
                code: Some(code),
                signal: None,
            }),
            timed_out,
            top_categories: Vec::new(),
            top_passes: Vec::new(),
            entry_points: Vec::new(),
            translate_samples: 0,
            serialize_samples: 0,
            source: String::new(),
            run_dir: String::new(),
            flamegraph: None,
            notes: Vec::new(),
        }
    }

    #[test]
    fn codegen_outside_the_expected_band_is_noted() {
        assert_eq!(codegen_note(Some(91.0)), None);
        assert_eq!(codegen_note(None), None);
        assert_eq!(codegen_note(Some(136.0)), None);
        let note = codegen_note(Some(164.0)).expect("164% is outside");
        assert!(
            note.starts_with(
                "the executables' codegen is 164% of the full compile's, outside the 50–150%"
            ),
            "{note}"
        );
        assert!(codegen_note(Some(42.0)).is_some());
    }

    #[test]
    fn outliers_are_the_slow_the_failed_and_the_timed_out() {
        let executables = [
            entry("slow", 5.1, Some(0), false),
            entry("stopped", 4.0, None, true),
            entry("broken", 0.5, Some(1), false),
            entry("just_under", 5.0, Some(0), false),
            entry("usual", 1.0, Some(0), false),
        ];
        let found = outliers(&executables, 1.0);
        let found: Vec<(&str, &str)> = found
            .iter()
            .map(|outlier| (outlier.name.as_str(), outlier.reason.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("slow", "5.1× the median wall time (1.00 s)"),
                ("stopped", "timed out after 4.0 s"),
                ("broken", "failed (exit 1)"),
            ]
        );
    }
}
