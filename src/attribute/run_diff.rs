//! `diff`'s run facts side by side: the wall time, CPU seconds, peak RSS
//! and artifact bytes of each side (the median and the range of its runs),
//! the change, and whether it stands clear of the runs' spread; the
//! outputs' members matched across the sides (executables by dispatch
//! name), by kind and one by one; and the gate's limits on them
//! (`--max-increase size=PCT`, `rss=PCT`, `wall=PCT`). Plain functions over
//! what each run's `run.json` said.

use std::collections::{BTreeMap, BTreeSet};

use crate::artifact::{Artifact, MemberKind, outputs};
use crate::stats::median;

/// Runs a side needs for a time or RSS change to count: with three against
/// three, all of one side above all of the other happens by chance once in
/// 20 (a one-sided permutation test at 5%).
pub(crate) const GATE_RUNS: usize = 3;

/// What one run says of itself.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunMeasures {
    pub wall_seconds: Option<f64>,
    /// CPU seconds of the samples the rows cover.
    pub cpu_seconds: Option<f64>,
    pub peak_rss_bytes: Option<u64>,
    /// The most anonymous memory of the compiler (`memory.json`).
    pub peak_anon_bytes: Option<u64>,
    pub artifacts: Vec<Artifact>,
}

/// A fact of a run compared across the sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    Wall,
    Cpu,
    PeakRss,
    /// The peak of anonymous memory: the RSS without mapped files.
    PeakAnon,
    ArtifactBytes,
}

impl Measure {
    pub(crate) const ALL: [Measure; 5] = [
        Measure::Wall,
        Measure::Cpu,
        Measure::PeakRss,
        Measure::PeakAnon,
        Measure::ArtifactBytes,
    ];

    /// Its name in JSON.
    pub(crate) fn json_name(self) -> &'static str {
        match self {
            Measure::Wall => "wall_seconds",
            Measure::Cpu => "cpu_seconds",
            Measure::PeakRss => "peak_rss_bytes",
            Measure::PeakAnon => "peak_anon_bytes",
            Measure::ArtifactBytes => "artifact_bytes",
        }
    }

    /// Its name in the table.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Measure::Wall => "wall time",
            Measure::Cpu => "CPU time",
            Measure::PeakRss => "peak RSS",
            Measure::PeakAnon => "peak anonymous memory",
            Measure::ArtifactBytes => "artifact bytes",
        }
    }

    /// The measure a `--max-increase KEY=PCT` names: `size`, `rss`, `anon`
    /// or `wall`.
    pub(crate) fn from_gate_key(key: &str) -> Option<Measure> {
        match key {
            "size" => Some(Measure::ArtifactBytes),
            "rss" => Some(Measure::PeakRss),
            "anon" => Some(Measure::PeakAnon),
            "wall" => Some(Measure::Wall),
            _ => None,
        }
    }

    /// Whether it varies from run to run of one compile (the artifact's
    /// bytes do not).
    fn noisy(self) -> bool {
        self != Measure::ArtifactBytes
    }

    fn of(self, run: &RunMeasures) -> Option<f64> {
        match self {
            Measure::Wall => run.wall_seconds,
            Measure::Cpu => run.cpu_seconds,
            Measure::PeakRss => run.peak_rss_bytes.map(|bytes| bytes as f64),
            Measure::PeakAnon => run.peak_anon_bytes.map(|bytes| bytes as f64),
            Measure::ArtifactBytes => outputs(&run.artifacts)
                .map(|artifact| artifact.bytes)
                .reduce(|a, b| a + b)
                .map(|bytes| bytes as f64),
        }
    }
}

/// A measure over the runs of one side.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Spread {
    pub median: f64,
    /// Run by run, in the runs' order.
    pub runs: Vec<f64>,
}

impl Spread {
    /// The median and the values; `None` for no value.
    pub(crate) fn of(values: Vec<f64>) -> Option<Spread> {
        (!values.is_empty()).then(|| Spread {
            median: median(&values),
            runs: values,
        })
    }

    pub(crate) fn min(&self) -> f64 {
        self.runs.iter().copied().fold(f64::INFINITY, f64::min)
    }

    pub(crate) fn max(&self) -> f64 {
        self.runs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }
}

/// One measure, both sides.
#[derive(Clone, Debug)]
pub(crate) struct MeasureDiff {
    pub measure: Measure,
    pub base: Option<Spread>,
    pub new: Option<Spread>,
    /// The medians' change, in percent of BASE's.
    pub delta_percent: Option<f64>,
    /// For a measure that varies: every run of one side above every run of
    /// the other (or below), with at least [`GATE_RUNS`] runs a side.
    pub beyond_spread: Option<bool>,
}

impl MeasureDiff {
    /// Whether the gate may count the change: the artifact's bytes always,
    /// times and RSS only beyond the spread of several runs a side.
    pub(crate) fn counts(&self) -> bool {
        !self.measure.noisy() || self.beyond_spread == Some(true)
    }
}

/// One kind of member, both sides (the medians of the runs' totals).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KindDiff {
    pub kind: MemberKind,
    pub base_bytes: u64,
    pub new_bytes: u64,
}

/// One member matched across the sides; a side without it has `None`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MemberDiff {
    /// Its name; an executable's dispatch name, without the target's suffix.
    pub name: String,
    pub kind: MemberKind,
    pub base_bytes: Option<u64>,
    pub new_bytes: Option<u64>,
}

impl MemberDiff {
    /// The change in bytes; a side without it counts 0.
    pub(crate) fn delta(&self) -> i128 {
        i128::from(self.new_bytes.unwrap_or(0)) - i128::from(self.base_bytes.unwrap_or(0))
    }
}

/// The run facts of two sides compared.
#[derive(Clone, Debug)]
pub(crate) struct RunDiff {
    /// In the order of [`Measure::ALL`]; a measure no run has is left out.
    pub measures: Vec<MeasureDiff>,
    /// Largest first (by the larger side).
    pub kinds: Vec<KindDiff>,
    /// The largest change first.
    pub members: Vec<MemberDiff>,
}

impl RunDiff {
    /// Whether either side said anything of its runs.
    pub(crate) fn is_empty(&self) -> bool {
        self.measures.is_empty() && self.members.is_empty()
    }
}

/// Compares the runs of `base` with those of `new`.
pub(crate) fn run_diff(base: &[RunMeasures], new: &[RunMeasures]) -> RunDiff {
    let measures = Measure::ALL
        .into_iter()
        .filter_map(|measure| {
            let spread = |runs: &[RunMeasures]| {
                Spread::of(runs.iter().filter_map(|run| measure.of(run)).collect())
            };
            let (base, new) = (spread(base), spread(new));
            if base.is_none() && new.is_none() {
                return None;
            }
            let delta_percent = match (&base, &new) {
                (Some(base), Some(new)) if base.median > 0.0 => {
                    Some(super::round2((new.median / base.median - 1.0) * 100.0))
                }
                _ => None,
            };
            let beyond_spread = match (&base, &new) {
                (Some(base), Some(new)) if measure.noisy() => Some(
                    base.runs.len() >= GATE_RUNS
                        && new.runs.len() >= GATE_RUNS
                        && (new.min() > base.max() || new.max() < base.min()),
                ),
                _ => None,
            };
            Some(MeasureDiff {
                measure,
                base,
                new,
                delta_percent,
                beyond_spread,
            })
        })
        .collect();
    let (base_members, new_members) = (side_members(base), side_members(new));
    let mut kinds: BTreeMap<MemberKind, (u64, u64)> = BTreeMap::new();
    for (kind, bytes) in &base_members.by_kind {
        kinds.entry(*kind).or_default().0 = *bytes;
    }
    for (kind, bytes) in &new_members.by_kind {
        kinds.entry(*kind).or_default().1 = *bytes;
    }
    let mut kinds: Vec<KindDiff> = kinds
        .into_iter()
        .map(|(kind, (base_bytes, new_bytes))| KindDiff {
            kind,
            base_bytes,
            new_bytes,
        })
        .collect();
    kinds.sort_by_key(|kind| std::cmp::Reverse(kind.base_bytes.max(kind.new_bytes)));
    let mut keys: Vec<&(MemberKind, String)> = base_members
        .bytes
        .keys()
        .chain(new_members.bytes.keys())
        .collect();
    keys.sort();
    keys.dedup();
    let mut members: Vec<MemberDiff> = keys
        .into_iter()
        .map(|key| MemberDiff {
            name: key.1.clone(),
            kind: key.0,
            base_bytes: base_members.bytes.get(key).copied(),
            new_bytes: new_members.bytes.get(key).copied(),
        })
        .collect();
    members.sort_by(|a, b| (b.delta().abs(), &a.name).cmp(&(a.delta().abs(), &b.name)));
    RunDiff {
        measures,
        kinds,
        members,
    }
}

/// A side's members: the median bytes of each over the runs that have it,
/// and of each kind over the runs with an archive (a run without one of
/// the kind has 0 bytes of it).
struct SideMembers {
    bytes: BTreeMap<(MemberKind, String), u64>,
    by_kind: BTreeMap<MemberKind, u64>,
}

fn side_members(runs: &[RunMeasures]) -> SideMembers {
    let mut per_member: BTreeMap<(MemberKind, String), Vec<f64>> = BTreeMap::new();
    let mut run_kinds: Vec<BTreeMap<MemberKind, u64>> = Vec::new();
    for run in runs {
        let archives: Vec<_> = outputs(&run.artifacts)
            .filter_map(|artifact| artifact.entries.as_ref())
            .collect();
        if archives.is_empty() {
            continue;
        }
        let mut member_bytes: BTreeMap<(MemberKind, String), u64> = BTreeMap::new();
        let mut kind_bytes: BTreeMap<MemberKind, u64> = BTreeMap::new();
        for member in archives.into_iter().flatten() {
            // The targets of one dispatch add up under its name.
            *member_bytes
                .entry((member.kind, member.match_name().to_owned()))
                .or_default() += member.bytes;
            *kind_bytes.entry(member.kind).or_default() += member.bytes;
        }
        for (key, bytes) in member_bytes {
            per_member.entry(key).or_default().push(bytes as f64);
        }
        run_kinds.push(kind_bytes);
    }
    let kinds: BTreeSet<MemberKind> = run_kinds
        .iter()
        .flat_map(|run| run.keys().copied())
        .collect();
    SideMembers {
        bytes: per_member
            .into_iter()
            .map(|(key, values)| (key, median(&values).round() as u64))
            .collect(),
        by_kind: kinds
            .into_iter()
            .map(|kind| {
                let values: Vec<f64> = run_kinds
                    .iter()
                    .map(|run| run.get(&kind).copied().unwrap_or(0) as f64)
                    .collect();
                (kind, median(&values).round() as u64)
            })
            .collect(),
    }
}

/// A run fact that grew by more than its limit.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunFailure {
    pub measure: Measure,
    pub base: f64,
    pub new: f64,
    pub delta_percent: f64,
    pub limit_percent: f64,
}

/// How the gate judges the wall time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum WallGate {
    /// Only with the CPU time: a wall time that grew beyond the spread
    /// while the CPU time did not is the machine's load. Default.
    #[default]
    WithCpu,
    /// On its own (`--flag-wall-alone`).
    Alone,
}

impl RunDiff {
    fn measure(&self, measure: Measure) -> Option<&MeasureDiff> {
        self.measures.iter().find(|m| m.measure == measure)
    }

    /// Whether the CPU time grew beyond the spread of the runs.
    fn cpu_grew(&self) -> bool {
        self.measure(Measure::Cpu)
            .is_some_and(|cpu| cpu.beyond_spread == Some(true) && cpu.delta_percent > Some(0.0))
    }

    /// The wall time grew beyond the spread while the CPU time did not, in
    /// words; `None` otherwise.
    pub(crate) fn busy_machine(&self) -> Option<String> {
        let wall = self.measure(Measure::Wall)?;
        let grew = wall.beyond_spread == Some(true) && wall.delta_percent > Some(0.0);
        let cpu = self.measure(Measure::Cpu)?.delta_percent?;
        (grew && !self.cpu_grew()).then(|| {
            format!(
                "wall moved ({:+.1} %), CPU did not ({cpu:+.1} %): the machine was busy; \
                 the gate does not count it (--flag-wall-alone does)",
                wall.delta_percent.unwrap_or(0.0)
            )
        })
    }
}

/// The measures of `compared` that grew by more than their limit (the last
/// limit given for a measure holds) and count for the gate: the wall time,
/// with [`WallGate::WithCpu`], only when the CPU time grew too.
pub(crate) fn run_failures(
    compared: &RunDiff,
    limits: &[(Measure, f64)],
    wall: WallGate,
) -> Vec<RunFailure> {
    compared
        .measures
        .iter()
        .filter_map(|measured| {
            let (_, limit) = limits
                .iter()
                .rev()
                .find(|(measure, _)| *measure == measured.measure)?;
            let delta = measured.delta_percent?;
            let machine_load = measured.measure == Measure::Wall
                && wall == WallGate::WithCpu
                && !compared.cpu_grew();
            (measured.counts() && delta > *limit && !machine_load).then(|| RunFailure {
                measure: measured.measure,
                base: measured.base.as_ref().map_or(0.0, |base| base.median),
                new: measured.new.as_ref().map_or(0.0, |new| new.median),
                delta_percent: delta,
                limit_percent: *limit,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
