//! The runs of a comparison, each reduced to `report`'s rows under keys
//! that mean the same in every run and every build (a category id, a
//! demangled symbol, a binary's file name, a thread or process by name
//! rather than pid), with the CPU seconds a sample stands for.

use std::path::PathBuf;

use hashbrown::HashMap;

use super::actions::ActionJoin;
use super::row_names::{RowName, RowNames};
use super::{Attribution, Classes, Grouping, group_rows};
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
    let names = RowNames {
        profile,
        classes,
        actions,
    };
    let mut rows: HashMap<String, RowCounts> = HashMap::new();
    for (key, totals) in &grouped.rows {
        if grouping == Grouping::Symbol && totals.self_samples == 0 {
            continue;
        }
        let (key, RowName { name, color }) = names.across_runs(*key);
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
