//! The runs of a comparison, each reduced to `report`'s rows under keys
//! that mean the same in every run and every build (a category id, a
//! demangled symbol, a binary's file name, a thread or process by name
//! rather than pid), with the CPU seconds a sample stands for.

use std::path::PathBuf;

use hashbrown::HashMap;

use super::actions::ActionJoin;
use super::{Attribution, Classes, Grouping, RowKey, action_name, group_rows};
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
    actions: Option<&ActionJoin>,
) -> RunRows {
    let grouped = group_rows(profile, classes, grouping, attribution, filter, actions);
    let mut rows: HashMap<String, RowCounts> = HashMap::new();
    for (key, totals) in &grouped.rows {
        if grouping == Grouping::Symbol && totals.self_samples == 0 {
            continue;
        }
        let (key, name, color) = row_identity(profile, classes, actions, *key);
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
    actions: Option<&ActionJoin>,
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
        // Patterns and units match across runs by name.
        RowKey::OutsideAction(place) => {
            let name = place.name(|name| action_name(actions, name));
            (name.clone(), name, None)
        }
        RowKey::Action(name) => {
            let name = action_name(actions, name);
            (name.clone(), name, None)
        }
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
