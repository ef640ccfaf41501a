//! Findings: what a report names for the reader to act on, each with what,
//! where, how many seconds and the command that shows it. Three kinds:
//! - **serialized** work, a stretch of the compile where one thread works
//!   and the other CPUs idle, named by its pass and phase, with the most
//!   that spreading its work over the machine's CPUs could save (Amdahl:
//!   the stretch's CPU seconds over the CPUs, against its wall seconds);
//! - **duplicated** setup, work each pass instance redoes: pattern sets
//!   built (`FrozenRewritePatternSet`, which walks every registered op)
//!   and freed, and passes' `initialize()`, named by the passes that did
//!   most of it; and duplicated executables, alike sources the compile
//!   dumped and codegen'd one by one (`executables.rs`);
//! - **papercuts**: infrastructure (IR core, uniquing, hashing) that costs
//!   much in total while spread thin over many passes, no one of which a
//!   pass owner would look at;
//! - **hot spots**: one function, or a few, holding most of an
//!   infrastructure category or of a place outside passes
//!   (`hot_spots.rs`): a category with one is no papercut.
//!
//! The thresholds are in one table, [`THRESHOLDS`].

mod by_stack;
mod executables;
mod hot_spots;

use hashbrown::HashMap;

use super::actions::ActionJoin;
use super::classes::{Attribution, Classes, facts};
use super::credit::credit_workers;
use super::pass::Phase;
use super::row_key::RowKey;
use super::runs::seconds_per_sample;
use super::time_slices::{phase_of, timeline};
use crate::executable_sources::Alike;
use crate::process::ThreadId;
use crate::profile::{Profile, SampleFilter, is_compiler};
use crate::stacks::SampleKey;
use by_stack::by_stack;
pub(crate) use by_stack::{DuplicatedSetup, Papercut};
pub(crate) use executables::DuplicatedExecutables;
use executables::duplicated_executables;
pub(crate) use hot_spots::{HotSpot, Scope as HotSpotScope};

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
    /// A compile whose compiler ran fewer threads than this, each with at
    /// least `working_thread_share` of its samples, could not have run in
    /// parallel (`--mlir-disable-threading`): no stretch of it is serial.
    pub serialized_min_threads: usize,
    pub working_thread_share: f64,
    /// A stretch is given the phase that holds this share of its samples
    /// or more, and no phase otherwise.
    pub serialized_phase_share: f64,
    /// Setup rebuilt per pass instance is named from this share of the
    /// samples…
    pub duplicated_share: f64,
    /// …when this many passes (or more) did it.
    pub duplicated_owners: usize,
    /// An infrastructure category is a papercut from this share of the
    /// samples…
    pub papercut_share: f64,
    /// …spread over this many passes or more…
    pub papercut_passes: usize,
    /// …none of which (nor a place outside passes) holds more than this
    /// share of it.
    pub papercut_largest_pass: f64,
    /// A hot spot is looked for in an infrastructure category, or a place
    /// outside passes, of this share of the samples or more…
    pub hot_spot_scope_share: f64,
    /// …where at most this many functions…
    pub hot_spot_functions: usize,
    /// …hold this share of it or more (then it is no papercut).
    pub hot_spot_share: f64,
    /// The infrastructure categories (ids of the rule table).
    pub papercut_categories: [&'static str; 3],
}

/// The thresholds of every finding.
const THRESHOLDS: Thresholds = Thresholds {
    serial_below_threads: 1.25,
    working_threads: 0.5,
    serialized_seconds: 1.0,
    serialized_wall_share: 0.10,
    serialized_gap_slices: 1,
    slices: 200,
    serialized_min_threads: 2,
    working_thread_share: 0.05,
    serialized_phase_share: 0.5,
    duplicated_share: 0.02,
    duplicated_owners: 3,
    papercut_share: 0.05,
    papercut_passes: 10,
    papercut_largest_pass: 0.5,
    hot_spot_scope_share: 0.05,
    hot_spot_functions: 3,
    hot_spot_share: 0.5,
    papercut_categories: ["ir", "uniquing", "hashing"],
};

/// Everything a report names.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Findings {
    /// Serialized stretches, longest first.
    pub serialized: Vec<Serialized>,
    pub duplicated: Option<DuplicatedSetup>,
    /// Executables built one by one though alike, most first.
    pub executables: Vec<DuplicatedExecutables>,
    /// Infrastructure categories spread thin over many passes, most first.
    pub papercuts: Vec<Papercut>,
    /// Functions holding most of a category or a place, most first.
    pub hot_spots: Vec<HotSpot>,
}

/// The findings of the samples `filter` keeps, by [`THRESHOLDS`]; with the
/// run's `actions`, verification is placed with the pass verified. The
/// `alike` executables the compile dumped are duplicated executables, with
/// their units' samples when the actions name units.
pub(crate) fn findings(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    actions: Option<&ActionJoin>,
    alike: &[Alike],
) -> Findings {
    let (by_stack, serialized) = rayon::join(
        || by_stack(profile, classes, filter, &THRESHOLDS),
        || serialized(profile, classes, filter, actions, &THRESHOLDS),
    );
    Findings {
        serialized,
        duplicated: by_stack.duplicated,
        executables: duplicated_executables(profile, classes, filter, actions, alike),
        papercuts: by_stack.papercuts,
        // A function holding most of a handful of sampled allocations'
        // bytes is no hot spot: only time is.
        hot_spots: match seconds_per_sample(profile) {
            Some(_) => by_stack.hot_spots,
            None => Vec::new(),
        },
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
/// none on a machine of one CPU, without a known sampling rate, or when
/// the compiler worked on one thread only (it could not have run in
/// parallel).
fn serialized(
    profile: &Profile,
    classes: &Classes<'_>,
    filter: &SampleFilter,
    actions: Option<&ActionJoin>,
    thresholds: &Thresholds,
) -> Vec<Serialized> {
    let Some(cpus) = profile.info.cpus_online.filter(|&cpus| cpus > 1) else {
        return Vec::new();
    };
    if working_threads(profile, filter, thresholds) < thresholds.serialized_min_threads {
        return Vec::new();
    }
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
    let first_time = profile.first_time_kept(filter).unwrap_or(0);
    // A sample's place is where the report puts it: thread-pool work where
    // it is credited (most of its key's samples' place).
    let credits = credit_workers(profile, classes, filter, actions);
    let mut places: HashMap<SampleKey, (RowKey, Option<Phase>)> = HashMap::new();
    let mut found: Vec<Serialized> = serial_stretches(&busy, slice_seconds, thresholds)
        .into_iter()
        .filter_map(|(from, to)| {
            let seconds = (to - from) as f64 * slice_seconds;
            let (start, end) = (from as f64 * slice_seconds, to as f64 * slice_seconds);
            let cpu_seconds: f64 = busy[from..to].iter().sum::<f64>() * slice_seconds;
            let mut counts: HashMap<RowKey, u64> = HashMap::new();
            let mut phases: HashMap<Phase, u64> = HashMap::new();
            for sample in &profile.stacks.timeline {
                let at = sample.time.saturating_sub(first_time) as f64 / 1e9;
                if at < start || at >= end || !profile.keeps(filter, &sample.key) {
                    continue;
                }
                let (place, phase) = *places.entry(sample.key).or_insert_with(|| {
                    let facts = facts(profile, classes, Attribution::Leaf, &sample.key);
                    let place = match credits.of(&sample.key).first() {
                        Some((to, _)) => to.passes_and_place().1,
                        None => facts.place,
                    };
                    (place, phase_of(classes, &facts))
                });
                *counts.entry(place).or_default() += 1;
                if let Some(phase) = phase {
                    *phases.entry(phase).or_default() += 1;
                }
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
                    .filter(|&(_, samples)| {
                        samples as f64 >= thresholds.serialized_phase_share * total as f64
                    })
                    .map(|(phase, _)| phase),
                cpus,
                saving_at_most_seconds: (seconds - cpu_seconds / f64::from(cpus)).max(0.0),
            })
        })
        .collect();
    found.sort_by(|a, b| b.seconds().total_cmp(&a.seconds()));
    found
}

/// How many of the compiler's threads (of the samples `filter` keeps; all
/// of them when no process is the compiler) have at least the
/// thresholds' share of its samples.
fn working_threads(profile: &Profile, filter: &SampleFilter, thresholds: &Thresholds) -> usize {
    let mut by_thread: HashMap<ThreadId, u64> = HashMap::new();
    let mut any_compiler = false;
    for (key, count) in profile.samples(filter) {
        let process = profile.processes.thread(key.thread).process;
        if is_compiler(profile.processes.image(process)) {
            any_compiler = true;
            *by_thread.entry(key.thread).or_default() += count;
        }
    }
    if !any_compiler {
        for (key, count) in profile.samples(filter) {
            *by_thread.entry(key.thread).or_default() += count;
        }
    }
    let total: u64 = by_thread.values().sum();
    (by_thread.values())
        .filter(|&&count| count as f64 >= thresholds.working_thread_share * total as f64)
        .count()
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
