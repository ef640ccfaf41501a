//! Findings: what a report names for the reader to act on, each with what,
//! where, how many seconds and the command that shows it. Two kinds:
//! - **serialized** work, a stretch of the compile where one thread works
//!   and the other CPUs idle, named by its pass and phase, with the most
//!   that spreading its work over the machine's CPUs could save (Amdahl:
//!   the stretch's CPU seconds over the CPUs, against its wall seconds);
//! - **duplicated** setup, work each pass instance redoes: pattern sets
//!   built (`FrozenRewritePatternSet`, which walks every registered op)
//!   and freed, and passes' `initialize()`, named by the passes that did
//!   most of it.
//!
//! The thresholds are in one table, [`THRESHOLDS`].

use hashbrown::HashMap;

use super::classes::{Attribution, Classes, facts};
use super::pass::Phase;
use super::row_key::RowKey;
use super::time_slices::timeline;
use crate::profile::{Profile, SampleFilter};
use crate::stacks::SampleKey;

/// When a finding is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Thresholds {
    /// A slice is serial when fewer threads than this were busy on average…
    pub serial_below_threads: f64,
    /// …and at least this many: a compile off the CPU is waiting, not
    /// serialized.
    pub working_threads: f64,
    /// A serialized stretch is named when it lasts this long…
    pub serialized_seconds: f64,
    /// …or this share of the compile's wall time.
    pub serialized_wall_share: f64,
    /// Non-serial slices a stretch may span (brief parallel blips).
    pub serialized_gap_slices: usize,
    /// The compile is cut into this many slices to find stretches.
    pub slices: usize,
    /// Setup rebuilt per pass instance is named from this share of the
    /// samples…
    pub duplicated_share: f64,
    /// …when this many passes (or more) did it.
    pub duplicated_owners: usize,
}

/// The thresholds of every finding.
const THRESHOLDS: Thresholds = Thresholds {
    serial_below_threads: 1.25,
    working_threads: 0.5,
    serialized_seconds: 1.0,
    serialized_wall_share: 0.10,
    serialized_gap_slices: 1,
    slices: 200,
    duplicated_share: 0.02,
    duplicated_owners: 3,
};

/// Frames of setup a pass instance redoes: a pattern set built, or freed
/// (name prefixes)…
const SETUP_PREFIXES: [&str; 2] = [
    "mlir::FrozenRewritePatternSet::FrozenRewritePatternSet(",
    "mlir::FrozenRewritePatternSet::Impl::~Impl(",
];
/// …and a pass's `initialize` (a name suffix).
const INITIALIZE: &str = "::initialize(mlir::MLIRContext*)";

/// Everything a report names.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Findings {
    /// Serialized stretches, longest first.
    pub serialized: Vec<Serialized>,
    pub duplicated: Option<DuplicatedSetup>,
}

/// The findings of the samples `filter` keeps, by [`THRESHOLDS`].
pub(crate) fn findings(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
) -> Findings {
    Findings {
        serialized: serialized(profile, classes, filter, &THRESHOLDS),
        duplicated: duplicated_setup(profile, classes, filter, &THRESHOLDS),
    }
}

/// A stretch of serialized work.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Serialized {
    /// Seconds from the first sample.
    pub start_seconds: f64,
    pub end_seconds: f64,
    /// Its share of the compile's wall time (the samples' span).
    pub wall_share: f64,
    /// The busy threads on average over the stretch.
    pub busy_threads: f64,
    /// Where most of its samples were: a pass, or a place outside passes.
    pub place: RowKey,
    /// Its share of the stretch's samples.
    pub place_share: f64,
    /// The phase most of its samples were in.
    pub phase: Option<Phase>,
    /// The machine's CPUs, as the recording states.
    pub cpus: u32,
    /// The most that running its work on every CPU could save: its wall
    /// seconds less its CPU seconds over the CPUs.
    pub saving_at_most_seconds: f64,
}

impl Serialized {
    pub(crate) fn seconds(&self) -> f64 {
        self.end_seconds - self.start_seconds
    }
}

/// The serialized stretches of the samples `filter` keeps, longest first;
/// none on a machine of one CPU or without a known sampling rate.
fn serialized(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    thresholds: &Thresholds,
) -> Vec<Serialized> {
    let Some(cpus) = profile.info.cpus_online.filter(|&cpus| cpus > 1) else {
        return Vec::new();
    };
    let timeline = timeline(profile, classes, filter, thresholds.slices);
    let busy: Vec<f64> = timeline
        .slices
        .iter()
        .map_while(|slice| slice.busy_threads)
        .collect();
    if busy.len() != timeline.slices.len() || busy.is_empty() {
        return Vec::new();
    }
    let slice_seconds = timeline.slice_seconds;
    let wall = slice_seconds * busy.len() as f64;
    let first_time = profile
        .stacks
        .timeline
        .iter()
        .filter(|sample| kept(profile, filter, &sample.key))
        .map(|sample| sample.time)
        .min()
        .unwrap_or(0);
    let mut places: HashMap<SampleKey, RowKey> = HashMap::new();
    let mut found: Vec<Serialized> = serial_stretches(&busy, slice_seconds, thresholds)
        .into_iter()
        .filter_map(|(from, to)| {
            let seconds = (to - from) as f64 * slice_seconds;
            let (start, end) = (from as f64 * slice_seconds, to as f64 * slice_seconds);
            let cpu_seconds: f64 = busy[from..to].iter().sum::<f64>() * slice_seconds;
            let mut counts: HashMap<RowKey, u64> = HashMap::new();
            let mut phases: HashMap<Phase, u64> = HashMap::new();
            for slice in &timeline.slices[from..to] {
                if let Some(phase) = slice.phase {
                    *phases.entry(phase).or_default() += slice.samples;
                }
            }
            for sample in &profile.stacks.timeline {
                let at = sample.time.saturating_sub(first_time) as f64 / 1e9;
                if at < start || at >= end || !kept(profile, filter, &sample.key) {
                    continue;
                }
                let place = *places.entry(sample.key).or_insert_with(|| {
                    facts(profile, classes, Attribution::Leaf, &sample.key).place
                });
                *counts.entry(place).or_default() += 1;
            }
            let total: u64 = counts.values().sum();
            let (place, samples) = counts
                .into_iter()
                .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))?;
            Some(Serialized {
                start_seconds: start,
                end_seconds: end,
                wall_share: seconds / wall,
                busy_threads: cpu_seconds / seconds,
                place,
                place_share: samples as f64 / total as f64,
                phase: phases
                    .into_iter()
                    .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))
                    .map(|(phase, _)| phase),
                cpus,
                saving_at_most_seconds: (seconds - cpu_seconds / f64::from(cpus)).max(0.0),
            })
        })
        .collect();
    found.sort_by(|a, b| b.seconds().total_cmp(&a.seconds()));
    found
}

/// Setup that pass instances rebuild: the samples under its frames, and
/// who did it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DuplicatedSetup {
    pub samples: u64,
    /// Its share of the samples `filter` keeps.
    pub share: f64,
    /// The passes (or places) that did it, by samples, most first: a
    /// pass's `initialize` names its class, else the innermost pass.
    pub owners: Vec<(String, u64)>,
}

/// The setup rebuilt per pass instance, when it is at least the
/// threshold's share of the samples and more than one pass did it.
fn duplicated_setup(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    thresholds: &Thresholds,
) -> Option<DuplicatedSetup> {
    let setup_symbols: Vec<bool> = profile
        .symbols
        .symbols
        .iter()
        .map(|symbol| {
            SETUP_PREFIXES
                .iter()
                .any(|prefix| symbol.name.starts_with(prefix))
                || symbol.name.ends_with(INITIALIZE)
        })
        .collect();
    let mut total = 0;
    let mut samples = 0;
    let mut owners: HashMap<String, u64> = HashMap::new();
    for (key, count) in profile.samples(filter) {
        total += count;
        let facts = facts(profile, classes, Attribution::Leaf, key);
        let Some(&setup) = facts
            .symbols
            .iter()
            .rev()
            .find(|symbol| setup_symbols[symbol.index()])
        else {
            continue;
        };
        samples += count;
        let name = &profile.symbols.get(setup).name;
        let owner = match name.strip_suffix(INITIALIZE) {
            Some(class) => short_class(class).to_owned(),
            None => match facts.place {
                RowKey::Pass(pass) => classes.passes.name(pass).to_owned(),
                RowKey::OutsidePass(place) => place.name().to_owned(),
                _ => String::new(),
            },
        };
        *owners.entry(owner).or_default() += count;
    }
    let share = samples as f64 / total.max(1) as f64;
    let mut owners: Vec<(String, u64)> = owners.into_iter().collect();
    owners.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    (share >= thresholds.duplicated_share && owners.len() >= thresholds.duplicated_owners)
        .then_some(DuplicatedSetup {
            samples,
            share,
            owners,
        })
}

/// A class's name without its namespaces.
fn short_class(qualified: &str) -> &str {
    qualified.rsplit("::").next().unwrap_or(qualified)
}

/// True when `filter` keeps the samples of `key`.
fn kept(profile: &Profile, filter: &SampleFilter, key: &SampleKey) -> bool {
    filter.keeps_all() || {
        let process = profile.processes.thread(key.thread).process;
        filter.accepts(profile.processes.image(process))
    }
}

/// The stretches of slices (`(from, to)`) long enough to name in which the
/// compiler kept one thread busy: `busy` threads per slice of
/// `slice_seconds`.
fn serial_stretches(
    busy: &[f64],
    slice_seconds: f64,
    thresholds: &Thresholds,
) -> Vec<(usize, usize)> {
    let wall = slice_seconds * busy.len() as f64;
    let serial: Vec<bool> = busy
        .iter()
        .map(|&threads| {
            (thresholds.working_threads..thresholds.serial_below_threads).contains(&threads)
        })
        .collect();
    stretches(&serial, thresholds.serialized_gap_slices)
        .into_iter()
        .filter(|(from, to)| {
            let seconds = (to - from) as f64 * slice_seconds;
            seconds >= thresholds.serialized_seconds
                || seconds >= thresholds.serialized_wall_share * wall
        })
        .collect()
}

/// The runs of `true` in `serial` as `(from, to)` slice ranges, joined
/// across at most `gap` `false`s between them.
fn stretches(serial: &[bool], gap: usize) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < serial.len() {
        if !serial[at] {
            at += 1;
            continue;
        }
        let from = at;
        while at < serial.len() && serial[at] {
            at += 1;
        }
        match runs.last_mut() {
            Some(last) if from - last.1 <= gap => last.1 = at,
            _ => runs.push((from, at)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretches_join_across_short_gaps_only() {
        let serial = |text: &str| text.chars().map(|c| c == '#').collect::<Vec<_>>();
        assert_eq!(stretches(&serial("..###.##..#"), 1), [(2, 8), (10, 11)]);
        assert_eq!(
            stretches(&serial("..###.##..#"), 0),
            [(2, 5), (6, 8), (10, 11)]
        );
        assert_eq!(stretches(&serial("...."), 1), []);
        assert_eq!(stretches(&serial("####"), 1), [(0, 4)]);
    }

    #[test]
    fn only_long_stretches_of_one_busy_thread_are_serialized() {
        // 200 slices of 0.1 s: 20 s.
        let series = |stretch: f64, from: usize, to: usize| {
            (0..200)
                .map(|at| {
                    if (from..to).contains(&at) {
                        stretch
                    } else {
                        1.9
                    }
                })
                .collect::<Vec<f64>>()
        };
        let found = |busy: &[f64]| serial_stretches(busy, 0.1, &THRESHOLDS);
        // 3 s on one thread while the rest runs on two: named.
        assert_eq!(found(&series(1.0, 50, 80)), [(50, 80)]);
        // Parallel throughout: nothing.
        assert_eq!(found(&series(1.9, 0, 0)), []);
        // 0.5 s of one thread, 2.5% of the wall time: too short.
        assert_eq!(found(&series(1.0, 50, 55)), []);
        // 3 s off the CPU (waiting, not working): nothing.
        assert_eq!(found(&series(0.1, 50, 80)), []);
        // Of a 2 s compile, 0.4 s (20%) is named though under a second.
        let short: Vec<f64> = (0..200)
            .map(|at| if (100..140).contains(&at) { 1.0 } else { 2.0 })
            .collect();
        assert_eq!(serial_stretches(&short, 0.01, &THRESHOLDS), [(100, 140)]);
    }
}
