//! `compile-perf diff`: the rows of two sides side by side, how much each
//! share moved (in percentage points), the CPU time behind it, whether the
//! move stands clear of the run-to-run noise (`crate::stats`), and which
//! moves break the CI gate's limits. Plain functions over the rows of runs.

use hashbrown::{HashMap, HashSet};

use super::comparable::{SideRuns, mismatches};
use super::run_diff::{RunDiff, RunMeasures, run_diff};
use super::runs::RunRows;
use super::{percent, round2};
use crate::stats::median;
use crate::stats::multiple::{self, FAMILY_ALPHA};
use crate::stats::shares::{self, Count, Noise, RowRuns, Test};

/// The runs of one side.
pub(crate) struct Side {
    /// What was named on the command line.
    pub name: String,
    pub runs: Vec<RunRows>,
    /// What each run's `run.json` says (of runs without one, nothing).
    pub measures: Vec<RunMeasures>,
    /// What the runs compiled, and which of them failed.
    pub compiled: SideRuns,
}

impl Side {
    /// Samples of every run together.
    pub(crate) fn samples(&self) -> u64 {
        self.runs.iter().map(|run| run.samples).sum()
    }

    /// Samples the kernel lost, of every run together.
    pub(crate) fn lost_samples(&self) -> u64 {
        self.runs.iter().map(|run| run.lost_samples).sum()
    }

    /// CPU seconds per run of `samples_of(run)` samples: the median over
    /// the runs, as every figure of the runs' table.
    fn seconds_per_run(&self, samples_of: impl Fn(&RunRows) -> u64) -> Option<f64> {
        let seconds = self
            .runs
            .iter()
            .map(|run| run.seconds(samples_of(run)))
            .collect::<Option<Vec<f64>>>()?;
        Some(median(&seconds))
    }

    /// A row's counts run by run: self samples, or inclusive ones.
    fn counts(&self, key: &str, inclusive: bool) -> Vec<Count> {
        self.runs
            .iter()
            .map(|run| Count {
                hits: run.rows.get(key).map_or(0, |row| {
                    if inclusive {
                        row.inclusive_samples
                    } else {
                        row.self_samples
                    }
                }),
                samples: run.samples,
            })
            .collect()
    }

    /// A row's share of the side's runs added up, in percent, rounded as `report`
    /// prints it.
    fn percent(&self, counts: &[Count]) -> f64 {
        let hits: u64 = counts.iter().map(|count| count.hits).sum();
        round2(percent(hits, self.samples()))
    }
}

/// One row of the diff.
#[derive(Clone, Debug)]
pub(crate) struct DiffRow {
    pub key: String,
    pub name: String,
    pub color: Option<String>,
    pub base_self_percent: f64,
    pub new_self_percent: f64,
    pub delta_self_pp: f64,
    pub base_inclusive_percent: f64,
    pub new_inclusive_percent: f64,
    pub delta_inclusive_pp: f64,
    /// CPU seconds of the row's self samples, per run on average.
    pub base_self_seconds: Option<f64>,
    pub new_self_seconds: Option<f64>,
    /// The self or the inclusive share moved significantly.
    pub significant: bool,
    pub significant_self: bool,
    pub significant_inclusive: bool,
    /// Two-sided p-values before the correction for many rows.
    pub p_value_self: f64,
    pub p_value_inclusive: f64,
    /// Beyond the noise after the correction, whatever the size: the self
    /// share, the inclusive share (for limits other than the threshold).
    pub beyond_noise: [bool; 2],
}

impl DiffRow {
    /// The larger of the two moves, in percentage points.
    pub(crate) fn size(&self) -> f64 {
        self.delta_self_pp.abs().max(self.delta_inclusive_pp.abs())
    }
}

/// The noise the rows were judged against.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DiffNoise {
    pub self_noise: Noise,
    pub inclusive_noise: Noise,
    /// Tests corrected together: the self and inclusive shares of the rows
    /// large enough to change by the smallest effect of interest.
    pub tests: usize,
    pub threshold_pp: f64,
}

/// A finished comparison.
pub(crate) struct Diff {
    pub base: Side,
    pub new: Side,
    /// Sorted by the size of the change, largest first.
    pub rows: Vec<DiffRow>,
    pub judged: DiffNoise,
    /// The runs' facts (times, RSS, artifacts) side by side.
    pub run: RunDiff,
    /// Why the sides may not compare like with like: runs that compiled
    /// other inputs or used other flags.
    pub mismatches: Vec<String>,
}

/// Both sides' counts of each row, as the tests take them.
fn as_rows(counts: &[(Vec<Count>, Vec<Count>)]) -> Vec<RowRuns<'_>> {
    counts
        .iter()
        .map(|(base, new)| RowRuns { base, new })
        .collect()
}

/// Compares `base` with `new` row by row, flagging changes of at least
/// `threshold_pp`; rows that cannot change by `floor_pp` (the threshold,
/// or a smaller limit the gate checks) are not tested.
pub(crate) fn diff(base: Side, new: Side, threshold_pp: f64, floor_pp: f64) -> Diff {
    let (rows, judged) = judged_rows(&base, &new, threshold_pp, floor_pp);
    let run = run_diff(&base.measures, &new.measures);
    let mismatches = mismatches(&base.compiled, &new.compiled);
    Diff {
        base,
        new,
        rows,
        judged,
        run,
        mismatches,
    }
}

/// The rows of `base` and `new`, judged, sorted by the size of the change.
fn judged_rows(
    base: &Side,
    new: &Side,
    threshold_pp: f64,
    floor_pp: f64,
) -> (Vec<DiffRow>, DiffNoise) {
    let mut keys: Vec<&String> = base
        .runs
        .iter()
        .chain(&new.runs)
        .flat_map(|run| run.rows.keys())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    keys.sort();
    let counts = |inclusive: bool| -> Vec<(Vec<Count>, Vec<Count>)> {
        keys.iter()
            .map(|key| (base.counts(key, inclusive), new.counts(key, inclusive)))
            .collect()
    };
    let (self_counts, inclusive_counts) = (counts(false), counts(true));
    let (self_rows, inclusive_rows) = (as_rows(&self_counts), as_rows(&inclusive_counts));
    let self_noise = shares::pooled_noise(&self_rows);
    let inclusive_noise = shares::pooled_noise(&inclusive_rows);
    let tests: Vec<Test> = self_rows
        .iter()
        .map(|row| shares::test_row(row, &self_noise))
        .chain(
            inclusive_rows
                .iter()
                .map(|row| shares::test_row(row, &inclusive_noise)),
        )
        .collect();
    let verdicts = multiple::judge(&tests, threshold_pp, floor_pp, FAMILY_ALPHA);
    let (self_verdicts, inclusive_verdicts) = verdicts.split_at(keys.len());
    let (self_tests, inclusive_tests) = tests.split_at(keys.len());

    // The name and colour of a row: from the side that has it.
    let mut shown: HashMap<&str, (&str, Option<&str>)> = HashMap::new();
    for run in base.runs.iter().chain(&new.runs) {
        for (key, row) in &run.rows {
            shown
                .entry(key.as_str())
                .or_insert((row.name.as_str(), row.color.as_deref()));
        }
    }
    let mut rows: Vec<DiffRow> = keys
        .iter()
        .enumerate()
        .map(|(index, key)| {
            let (self_base, self_new) = &self_counts[index];
            let (inclusive_base, inclusive_new) = &inclusive_counts[index];
            let (name, color) = shown[key.as_str()];
            let (base_self, new_self) = (base.percent(self_base), new.percent(self_new));
            let (base_inclusive, new_inclusive) =
                (base.percent(inclusive_base), new.percent(inclusive_new));
            let row_self = |side: &Side| {
                side.seconds_per_run(|run| {
                    run.rows.get(key.as_str()).map_or(0, |row| row.self_samples)
                })
            };
            DiffRow {
                key: (*key).clone(),
                name: name.to_owned(),
                color: color.map(str::to_owned),
                base_self_percent: base_self,
                new_self_percent: new_self,
                delta_self_pp: round2(new_self - base_self),
                base_inclusive_percent: base_inclusive,
                new_inclusive_percent: new_inclusive,
                delta_inclusive_pp: round2(new_inclusive - base_inclusive),
                base_self_seconds: row_self(base).map(round2),
                new_self_seconds: row_self(new).map(round2),
                significant_self: self_verdicts[index].significant,
                significant_inclusive: inclusive_verdicts[index].significant,
                significant: self_verdicts[index].significant
                    || inclusive_verdicts[index].significant,
                p_value_self: self_tests[index].p_value,
                p_value_inclusive: inclusive_tests[index].p_value,
                beyond_noise: [
                    self_verdicts[index].beyond_noise,
                    inclusive_verdicts[index].beyond_noise,
                ],
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.size()
            .total_cmp(&a.size())
            .then_with(|| a.key.cmp(&b.key))
    });
    let judged = DiffNoise {
        self_noise,
        inclusive_noise,
        tests: multiple::family_size(&tests, floor_pp),
        threshold_pp,
    };
    (rows, judged)
}

impl Diff {
    /// CPU seconds per run (the median) of a side's samples.
    pub(crate) fn cpu_seconds(side: &Side) -> Option<f64> {
        side.seconds_per_run(|run| run.samples)
    }

    /// Each failed run of either side, in words (`NEW run …: reason`).
    pub(crate) fn failed_runs(&self) -> Vec<String> {
        [("BASE", &self.base), ("NEW", &self.new)]
            .into_iter()
            .flat_map(|(label, side)| {
                side.compiled
                    .failed
                    .iter()
                    .map(move |failed| format!("{label} run {}: {}", failed.run, failed.reason))
            })
            .collect()
    }

    /// Every warning about what was compared: each failed run, then the
    /// mismatched inputs and flags.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut warnings = self.failed_runs();
        warnings.extend(self.mismatches.iter().cloned());
        warnings
    }

    /// How the rows were judged, in words.
    pub(crate) fn method(&self) -> String {
        let judged = &self.judged;
        let runs = |side: &Side| side.runs.len();
        let family = format!(
            "Holm-corrected over {} tests (the self and inclusive shares of the rows large enough to change by \
             the threshold) at a family-wise error rate of {}; changes under {} pp are not flagged",
            judged.tests, FAMILY_ALPHA, judged.threshold_pp
        );
        if judged.self_noise.sampling_error_only() {
            return format!(
                "one run a side: only sampling error is covered (binomial likelihood-ratio test of each row's counts), {family}. \
                 Runs of one compile differ by more than that: compare several runs a side (record --repeat 3) \
                 to judge changes against run-to-run noise"
            );
        }
        let degrees = |noise: &Noise| match noise.degrees_of_freedom {
            Some(df) if df.is_finite() => format!("{df:.0} degrees of freedom"),
            _ => "no row large enough to measure it on".to_owned(),
        };
        format!(
            "{} run{} vs {} run{}: each row's counts by their likelihood ratio against the run-to-run spread \
             (quasi-binomial: the spread between runs as a multiple of sampling variance, pooled over the rows \
             and per row, the larger; pooled {:.2}× for self shares, {:.2}× for inclusive, {}), \
             Student's t of its signed root; a row with under a tenth of its expected samples on one side by \
             the probability of so few (negative binomial); {family}",
            runs(&self.base),
            if runs(&self.base) == 1 { "" } else { "s" },
            runs(&self.new),
            if runs(&self.new) == 1 { "" } else { "s" },
            judged.self_noise.dispersion,
            judged.inclusive_noise.dispersion,
            degrees(&judged.self_noise),
        )
    }
}

/// What the gate checks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Limits {
    /// Fail on any row whose share grew significantly by more than the threshold.
    pub fail_on_regression: bool,
    /// Per-row limits (a category id with `--by category`): fail when that
    /// row's share grew by more than PP points, beyond the noise.
    pub max_increase: Vec<(String, f64)>,
}

/// A share that grew by more than its limit.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Failure {
    pub name: String,
    /// `self` or `inclusive`.
    pub measure: &'static str,
    pub base_percent: f64,
    pub new_percent: f64,
    pub delta_pp: f64,
    pub limit_pp: f64,
}

/// The shares of `diff` that break `limits`: grown beyond the noise by more
/// than the row's `--max-increase`, or than the threshold with
/// `--fail-on-regression`.
pub(crate) fn failures(diff: &Diff, limits: &Limits) -> Vec<Failure> {
    let mut failed = Vec::new();
    for row in &diff.rows {
        let own_limit = limits
            .max_increase
            .iter()
            .rev()
            .find(|(key, _)| *key == row.key)
            .map(|(_, limit)| *limit);
        let Some(limit) = own_limit.or(limits
            .fail_on_regression
            .then_some(diff.judged.threshold_pp))
        else {
            continue;
        };
        for (measure, beyond_noise, base, new, delta) in measures(row) {
            if beyond_noise && delta > limit {
                failed.push(Failure {
                    name: row.name.clone(),
                    measure,
                    base_percent: base,
                    new_percent: new,
                    delta_pp: delta,
                    limit_pp: limit,
                });
            }
        }
    }
    failed
}

/// A row's two measures: name, beyond the noise, base %, new %, change.
fn measures(row: &DiffRow) -> [(&'static str, bool, f64, f64, f64); 2] {
    [
        (
            "self",
            row.beyond_noise[0],
            row.base_self_percent,
            row.new_self_percent,
            row.delta_self_pp,
        ),
        (
            "inclusive",
            row.beyond_noise[1],
            row.base_inclusive_percent,
            row.new_inclusive_percent,
            row.delta_inclusive_pp,
        ),
    ]
}

#[cfg(test)]
mod tests;
