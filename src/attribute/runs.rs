//! The runs of a comparison, each reduced to `report`'s rows under keys
//! that mean the same in every run and every build (a category id, a
//! demangled symbol, a binary's file name, a thread or process by name
//! rather than pid), with the CPU seconds a sample stands for; and several
//! runs of one compile added up, with each run's share (`record --repeat`).

use std::path::PathBuf;

use hashbrown::HashMap;

use super::{Attribution, Classes, Grouping, RowKey, group, percent, round2};
use crate::process::ProcessId;
use crate::profile::{Profile, SampleFilter};

/// One row of one run: its samples, and how to show it.
#[derive(Clone, Debug)]
pub(crate) struct RowCounts {
    pub name: String,
    /// The category's colour (`#rrggbb`), for categories and symbols.
    pub color: Option<String>,
    pub self_samples: u64,
    pub inclusive_samples: u64,
}

/// One recording, reduced to rows.
#[derive(Clone, Debug)]
pub(crate) struct RunRows {
    pub input: PathBuf,
    /// The samples the rows cover (after the process filters).
    pub samples: u64,
    /// Samples the kernel lost while recording it (of every process).
    pub lost_samples: u64,
    /// CPU seconds one sample stands for; `None` when the recording cannot
    /// say (a fixed period of an event that is not a clock).
    pub seconds_per_sample: Option<f64>,
    pub rows: HashMap<String, RowCounts>,
}

impl RunRows {
    /// CPU seconds of `samples` samples of this run.
    pub(crate) fn seconds(&self, samples: u64) -> Option<f64> {
        self.seconds_per_sample
            .map(|per_sample| per_sample * samples as f64)
    }
}

/// Reduces a loaded recording to `report`'s rows (the same grouping, and
/// the same rows: a symbol only with self samples), keyed across runs.
pub(crate) fn run_rows(
    input: PathBuf,
    profile: &Profile,
    classes: &Classes<'_>,
    grouping: Grouping,
    attribution: Attribution,
    filter: &SampleFilter,
) -> RunRows {
    let grouped = group(profile, classes, grouping, attribution, filter);
    let mut rows: HashMap<String, RowCounts> = HashMap::new();
    for (key, totals) in &grouped.rows {
        if grouping == Grouping::Symbol && totals.self_samples == 0 {
            continue;
        }
        let (key, name, color) = row_identity(profile, classes, *key);
        // Rows that share a key across pids (two threads of one name) add up.
        let row = rows.entry(key).or_insert(RowCounts {
            name,
            color,
            self_samples: 0,
            inclusive_samples: 0,
        });
        row.self_samples += totals.self_samples;
        row.inclusive_samples += totals.inclusive_samples;
    }
    RunRows {
        input,
        samples: grouped.samples,
        lost_samples: profile.counts.lost.samples(),
        seconds_per_sample: seconds_per_sample(profile),
        rows,
    }
}

/// A row's key across runs, the name to show, and its colour.
fn row_identity(
    profile: &Profile,
    classes: &Classes<'_>,
    key: RowKey,
) -> (String, String, Option<String>) {
    match key {
        RowKey::Category(id) => {
            let category = classes.table.category(id);
            (
                category.id.clone(),
                category.name.clone(),
                Some(category.color.clone()),
            )
        }
        RowKey::Symbol(id) => {
            let name = profile.symbols.get(id).name.clone();
            let color = classes
                .table
                .category(classes.category_of(id))
                .color
                .clone();
            (name.clone(), name, Some(color))
        }
        RowKey::Dso(id) => {
            let name = profile.store.get(id).name.clone();
            (name.clone(), name, None)
        }
        RowKey::Thread(id) => {
            let thread = profile.processes.thread(id);
            let name = format!("{}: {}", process_name(profile, thread.process), thread.name);
            (name.clone(), name, None)
        }
        RowKey::Process(id) => {
            let name = process_name(profile, id);
            (name.clone(), name, None)
        }
        RowKey::Pass(id) => {
            let name = classes.passes.name(id).to_owned();
            (name.clone(), name, None)
        }
        RowKey::OutsidePass(place) => (place.name().to_owned(), place.name().to_owned(), None),
    }
}

/// A process by its name, and its executable's file name where that
/// differs (the Python launcher and the native compiler are both named
/// `iree-compile`): the same in every run, unlike its pid.
fn process_name(profile: &Profile, id: ProcessId) -> String {
    let image = profile.processes.image(id);
    let executable = image
        .executable
        .as_deref()
        .and_then(|path| path.rsplit('/').next());
    match executable {
        Some(file) if file != image.name => format!("{} ({file})", image.name),
        _ => image.name.clone(),
    }
}

/// CPU seconds per sample: the mean period for the clock events (which
/// count nanoseconds), else one over the sampling frequency.
pub(crate) fn seconds_per_sample(profile: &Profile) -> Option<f64> {
    let event = profile
        .info
        .events
        .iter()
        .find(|event| event.name == profile.event)?;
    let counts_nanoseconds = matches!(event.base_name(), "cpu-clock" | "task-clock");
    if counts_nanoseconds && profile.counts.period_total > 0 && profile.counts.samples > 0 {
        return Some(profile.counts.period_total as f64 / profile.counts.samples as f64 / 1e9);
    }
    event.frequency.map(|hz| 1.0 / hz as f64)
}

/// One row of the aggregate.
#[derive(Clone, Debug)]
pub(crate) struct AggregateRow {
    pub id: String,
    pub name: String,
    pub color: Option<String>,
    pub self_samples: u64,
    /// Of all the runs' samples together.
    pub self_percent: f64,
    /// Run by run.
    pub self_percent_runs: Vec<f64>,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    pub inclusive_percent_runs: Vec<f64>,
}

/// One run in the aggregate.
#[derive(Clone, Debug)]
pub(crate) struct AggregateRun {
    pub input: PathBuf,
    pub samples: u64,
    pub lost_samples: u64,
    pub cpu_seconds: Option<f64>,
}

/// Several runs of one compile, added up.
#[derive(Clone, Debug)]
pub(crate) struct Aggregate {
    pub command: String,
    pub runs: Vec<AggregateRun>,
    pub samples: u64,
    /// Samples the kernel lost, of all the runs together.
    pub lost_samples: u64,
    /// CPU seconds per run, on average.
    pub cpu_seconds: Option<f64>,
    /// By self share of all the samples, then inclusive share.
    pub categories: Vec<AggregateRow>,
}

/// Adds up `runs` (rows by category) of `command`; shares are rounded as
/// `report` prints them.
pub(crate) fn aggregate(command: String, runs: &[RunRows]) -> Aggregate {
    let samples: u64 = runs.iter().map(|run| run.samples).sum();
    let mut keys: Vec<&String> = runs.iter().flat_map(|run| run.rows.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut categories: Vec<AggregateRow> = keys
        .into_iter()
        .map(|key| {
            let shown = runs
                .iter()
                .find_map(|run| run.rows.get(key))
                .expect("a key comes from some run");
            let per_run = |inclusive: bool| -> Vec<u64> {
                runs.iter()
                    .map(|run| {
                        run.rows.get(key).map_or(0, |row| {
                            if inclusive {
                                row.inclusive_samples
                            } else {
                                row.self_samples
                            }
                        })
                    })
                    .collect()
            };
            let shares = |counts: &[u64]| -> Vec<f64> {
                counts
                    .iter()
                    .zip(runs)
                    .map(|(&count, run)| round2(percent(count, run.samples)))
                    .collect()
            };
            let (own, inclusive) = (per_run(false), per_run(true));
            let (own_total, inclusive_total) = (own.iter().sum(), inclusive.iter().sum());
            AggregateRow {
                id: key.clone(),
                name: shown.name.clone(),
                color: shown.color.clone(),
                self_samples: own_total,
                self_percent: round2(percent(own_total, samples)),
                self_percent_runs: shares(&own),
                inclusive_samples: inclusive_total,
                inclusive_percent: round2(percent(inclusive_total, samples)),
                inclusive_percent_runs: shares(&inclusive),
            }
        })
        .collect();
    categories.sort_by(|a, b| {
        (b.self_samples, b.inclusive_samples, &a.id).cmp(&(
            a.self_samples,
            a.inclusive_samples,
            &b.id,
        ))
    });
    let cpu_seconds = runs
        .iter()
        .map(|run| run.seconds(run.samples))
        .sum::<Option<f64>>()
        .map(|total| round2(total / runs.len().max(1) as f64));
    Aggregate {
        command,
        runs: runs
            .iter()
            .map(|run| AggregateRun {
                input: run.input.clone(),
                samples: run.samples,
                lost_samples: run.lost_samples,
                cpu_seconds: run.seconds(run.samples).map(round2),
            })
            .collect(),
        samples,
        lost_samples: runs.iter().map(|run| run.lost_samples).sum(),
        cpu_seconds,
        categories,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(samples: u64, lexer: u64, seconds_per_sample: Option<f64>) -> RunRows {
        run_losing(samples, lexer, seconds_per_sample, 0)
    }

    fn run_losing(
        samples: u64,
        lexer: u64,
        seconds_per_sample: Option<f64>,
        lost_samples: u64,
    ) -> RunRows {
        let mut rows = HashMap::new();
        rows.insert(
            "lexer".to_owned(),
            RowCounts {
                name: "Lexer".to_owned(),
                color: None,
                self_samples: lexer,
                inclusive_samples: lexer + 1,
            },
        );
        RunRows {
            input: PathBuf::from("perf.data"),
            samples,
            lost_samples,
            seconds_per_sample,
            rows,
        }
    }

    #[test]
    fn runs_add_up_and_keep_their_own_shares() {
        let runs = [run(1000, 200, Some(0.002)), run(3000, 300, Some(0.002))];
        let total = aggregate("iree-compile".to_owned(), &runs);
        assert_eq!(total.samples, 4000);
        let lexer = &total.categories[0];
        assert_eq!(lexer.self_samples, 500);
        assert_eq!(lexer.self_percent, 12.5);
        assert_eq!(lexer.self_percent_runs, [20.0, 10.0]);
        assert_eq!(lexer.inclusive_percent_runs, [20.1, 10.03]);
        // 2 ms per sample: 2 s and 6 s, 4 s per run.
        assert_eq!(total.cpu_seconds, Some(4.0));
        let unknown = [run(1000, 200, Some(0.002)), run(1000, 200, None)];
        assert_eq!(aggregate(String::new(), &unknown).cpu_seconds, None);
    }

    #[test]
    fn samples_lost_add_up_and_each_run_keeps_its_own() {
        let runs = [run_losing(1000, 200, None, 7), run(3000, 300, None)];
        let total = aggregate("iree-compile".to_owned(), &runs);
        assert_eq!(total.lost_samples, 7);
        let per_run: Vec<u64> = total.runs.iter().map(|run| run.lost_samples).collect();
        assert_eq!(per_run, [7, 0]);
    }
}
