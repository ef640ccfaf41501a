//! Executables built more than once, as a finding: the groups of alike
//! sources the compile dumped (see [`crate::executable_sources::alike`]), each
//! executable with the samples of its IR unit (`hal.executable @name`,
//! inclusive) when the run's actions name units.

use hashbrown::HashMap;

use crate::attribute::actions::ActionJoin;
use crate::attribute::{Attribution, Classes, Grouping, group_rows, row_name};
use crate::executable_sources::Alike;
use crate::profile::{Profile, SampleFilter};

/// A group of executables the compile built one by one though alike.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DuplicatedExecutables {
    pub group: Alike,
    /// Each one's samples in its IR unit, in the order of the group's
    /// names; `None` when the actions do not name units.
    pub samples: Option<Vec<u64>>,
}

impl DuplicatedExecutables {
    /// The samples of all but the largest: what building the shape once
    /// would leave out, at most.
    pub(crate) fn repeated_samples(&self) -> Option<u64> {
        let samples = self.samples.as_ref()?;
        let largest = samples.iter().copied().max().unwrap_or(0);
        Some(samples.iter().sum::<u64>() - largest)
    }
}

/// The groups of `alike` executables, with their units' samples when
/// `actions` name units.
pub(crate) fn duplicated_executables(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    actions: Option<&ActionJoin>,
    alike: &[Alike],
) -> Vec<DuplicatedExecutables> {
    if alike.is_empty() {
        return Vec::new();
    }
    let by_unit: Option<HashMap<String, u64>> =
        actions.filter(|join| join.actions.units_named).map(|join| {
            let grouped = group_rows(
                profile,
                classes,
                Grouping::Unit,
                Attribution::Leaf,
                filter,
                Some(join),
            );
            grouped
                .rows
                .iter()
                .filter_map(|(key, row)| Some((row_name(join, *key)?, row.inclusive_samples)))
                .collect()
        });
    alike
        .iter()
        .map(|group| DuplicatedExecutables {
            group: group.clone(),
            samples: by_unit.as_ref().map(|by_unit| {
                group
                    .names
                    .iter()
                    .map(|name| {
                        by_unit
                            .get(&format!("hal.executable @{name}"))
                            .copied()
                            .unwrap_or(0)
                    })
                    .collect()
            }),
        })
        .collect()
}
