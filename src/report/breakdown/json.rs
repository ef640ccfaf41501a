//! The report as JSON (`report --format json`, and `report.json` of a run).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{Breakdown, JSON_TOP, attribution_name};
use crate::attribute::actions::ActionJoin;
use crate::attribute::rss::MemoryPeak;
use crate::attribute::{Detail, Grouping, RowKey, RowTotals, percent};
use crate::mlir_timing::TimerKind;
use crate::report::{artifacts, round2};

/// The categories a report's headline names.
const HEADLINE_CATEGORIES: usize = 3;

impl Breakdown<'_> {
    /// The JSON document.
    pub(crate) fn to_json(&self) -> ReportJson {
        let samples = self.samples();
        let mut categories = Vec::new();
        let mut rows = Vec::new();
        let mut passes = Vec::new();
        for (key, row) in self.rows() {
            let top = self.top_details(row, JSON_TOP);
            if let RowKey::Pass(_) = key {
                passes.push(self.pass_json(key, row));
            } else if let RowKey::Category(id) = key {
                let category = self.classes.table.category(id);
                categories.push(CategoryJson {
                    id: category.id.clone(),
                    name: category.name.clone(),
                    color: category.color.clone(),
                    description: category.description.clone(),
                    self_samples: row.self_samples,
                    self_percent: round2(percent(row.self_samples, samples)),
                    inclusive_samples: row.inclusive_samples,
                    inclusive_percent: round2(percent(row.inclusive_samples, samples)),
                    top_symbols: top
                        .into_iter()
                        .map(|(symbol, self_samples)| SymbolJson {
                            symbol,
                            self_samples,
                        })
                        .collect(),
                });
            } else {
                rows.push(RowJson {
                    credited_samples: (self.options.grouping == Grouping::Pass)
                        .then_some(row.credited_samples),
                    top_pass: (self.options.grouping.shows_top_pass()).then(|| self.top_pass(row)),
                    key: self.label(key).name,
                    self_samples: row.self_samples,
                    self_percent: round2(percent(row.self_samples, samples)),
                    inclusive_samples: row.inclusive_samples,
                    inclusive_percent: round2(percent(row.inclusive_samples, samples)),
                    top: top
                        .into_iter()
                        .map(|(name, self_samples)| DetailJson { name, self_samples })
                        .collect(),
                });
            }
        }
        ReportJson {
            command: self.profile.profiled_command(),
            event: self.profile.event.clone(),
            samples,
            lost_samples: self.profile.counts.lost.samples(),
            instrumentation: crate::report::instrumentation::facts(self.profile),
            duration_seconds: round2(self.profile.counts.duration_seconds()),
            unwind: self.unwind.into(),
            by: self.options.grouping.name().into(),
            attribution: attribution_name(self.options.attribution).into(),
            categories,
            passes,
            in_pass_manager_samples: (self.options.grouping == Grouping::Pass)
                .then_some(self.grouped.in_pass_manager),
            credited_samples: (self.options.grouping == Grouping::Pass)
                .then_some(self.grouped.credited),
            actions: self.options.actions.as_deref().map(ActionsJson::from),
            findings: self.findings_json(),
            utilization: self.utilization.map(Into::into),
            memory_peak: self.memory_peaks().map(|(peak, _)| peak.into()),
            anon_memory_peak: self
                .memory_peaks()
                .and_then(|(_, anon_peak)| anon_peak)
                .map(Into::into),
            first_touch: None,
            heap_peak: None,
            run: self.run.clone(),
            notices: self.notices.clone(),
            timer_only: self.timers.as_ref().map(|timers| {
                timers
                    .timer_only
                    .iter()
                    .map(|timer| TimerOnlyJson {
                        name: timer.name.clone(),
                        kind: timer.kind,
                        timer_wall_seconds: round4(timer.wall_seconds),
                        timer_user_seconds: round4(timer.user_seconds),
                        timers: timer.timers,
                    })
                    .collect()
            }),
            mlir_timing_total_wall_seconds: self
                .timers
                .as_ref()
                .and_then(|timers| timers.total_wall_seconds),
            rows,
            artifacts: self
                .run
                .as_ref()
                .map_or_else(Vec::new, |run| artifacts::to_json(&run.artifacts)),
            consteval: self.consteval.clone(),
        }
    }

    /// A pass row and its pass × category split of self samples.
    fn pass_json(&self, key: RowKey, row: &RowTotals) -> PassJson {
        let samples = self.samples();
        let mut split: Vec<(&Detail, &u64)> = row.details.iter().collect();
        split.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
        let rss = match key {
            RowKey::Pass(pass) => self
                .rss
                .as_ref()
                .and_then(|rss| rss.passes.get(&pass).copied()),
            _ => None,
        };
        let timer = self.timer_of(key);
        let cpu_seconds = self.cpu_seconds(row.inclusive_samples);
        let timed_cpu_seconds = self
            .cpu_seconds(self.timed_samples(key, row.inclusive_samples))
            .filter(|_| timer.is_some());
        PassJson {
            nested_in: match key {
                RowKey::Pass(pass) => self
                    .classes
                    .passes
                    .parent(pass)
                    .map(|owner| self.classes.passes.name(owner).to_owned()),
                _ => None,
            },
            credited_samples: row.credited_samples,
            credited_inclusive_samples: row.credited_inclusive_samples,
            timer_name: timer.map(|timer| timer.name.clone()),
            timer_wall_seconds: timer.map(|timer| round4(timer.wall_seconds)),
            timer_user_seconds: timer.map(|timer| round4(timer.user_seconds)),
            timer_runs: timer.map(|timer| timer.timers),
            cpu_seconds: cpu_seconds.map(round4),
            timer_cpu_seconds: timed_cpu_seconds.map(round4),
            cpu_per_wall: timer
                .zip(timed_cpu_seconds)
                .filter(|(timer, _)| timer.wall_seconds > 0.0)
                .map(|(timer, cpu)| round2(cpu / timer.wall_seconds)),
            cpu_per_user: timer
                .zip(timed_cpu_seconds)
                .filter(|(timer, _)| timer.user_seconds > 0.0)
                .map(|(timer, cpu)| round2(cpu / timer.user_seconds)),
            rss_start_bytes: rss.map(|rss| rss.start_bytes),
            rss_growth_bytes: rss.map(|rss| rss.growth_bytes),
            anon_growth_bytes: rss.map(|rss| rss.anon_growth_bytes),
            file_growth_bytes: rss.map(|rss| rss.file_growth_bytes),
            rss_max_bytes: rss.map(|rss| rss.max_bytes),
            anon_max_bytes: rss.map(|rss| rss.anon_max_bytes),
            name: self.label(key).name,
            self_samples: row.self_samples,
            self_percent: round2(percent(row.self_samples, samples)),
            inclusive_samples: row.inclusive_samples,
            inclusive_percent: round2(percent(row.inclusive_samples, samples)),
            inclusive_percent_of_pass_manager: round2(percent(
                row.inclusive_samples,
                self.grouped.in_pass_manager,
            )),
            categories: split
                .into_iter()
                .filter_map(|(detail, &count)| match detail {
                    Detail::Category(id) => Some(PassCategoryJson {
                        id: self.classes.table.category(*id).id.clone(),
                        self_samples: count,
                        self_percent: round2(percent(count, samples)),
                    }),
                    Detail::Symbol(_) => None,
                })
                .collect(),
        }
    }
}

/// `report --format json`, and `report.json` of a run: written by
/// [`Breakdown::to_json`] and read back through this type (`history html`
/// reads a stored run's headline from it). Every field added since the
/// history store began is optional, so an older run's report reads too.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ReportJson {
    pub command: String,
    pub event: String,
    pub samples: u64,
    /// Samples the kernel lost while recording (of every process and
    /// event); 0 when none were.
    pub lost_samples: u64,
    /// The samples of the recording's own instrumentation (the action
    /// profiler, IR printed around passes, the heap sampler…): set aside
    /// from every share, or counted with `--with-instrumentation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instrumentation: Option<crate::run_dir::InstrumentationFacts>,
    pub duration_seconds: f64,
    pub unwind: crate::report::top::UnwindJson,
    pub by: Cow<'static, str>,
    pub attribution: Cow<'static, str>,
    /// With `--by category`: one entry per category, by self samples.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<CategoryJson>,
    /// With `--by pass`: one entry per pass, by self samples.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<PassJson>,
    /// With `--by pass`: compiler-process samples with a pass on their
    /// stack, the base of `inclusive_percent_of_pass_manager`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_pass_manager_samples: Option<u64>,
    /// With `--by pass`: samples of thread-pool work credited to what the
    /// main thread was in (a pass, or the pass manager).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credited_samples: Option<u64>,
    /// With `--by pattern|unit`: MLIR's actions and how well their clock
    /// agrees with the stacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actions: Option<ActionsJson>,
    /// What the report names for the reader to act on: serialized
    /// stretches of the compile, with their seconds and the command that
    /// shows each.
    pub findings: Vec<super::findings::FindingJson>,
    /// With `--by thread`: how busy the threads were over time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization: Option<crate::report::timeline_json::UtilizationJson>,
    /// What `run.json` says of the run, when the recording has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<crate::run_dir::RunJson>,
    /// What the user must not miss: a failed compile, a large Python
    /// launcher share, a compile mostly off the CPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// When the run directory has a `memory.json`: the compiler's highest
    /// RSS, when (seconds from the first sample) and where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_peak: Option<MemoryPeakJson>,
    /// The most anonymous memory, and where the compile was then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anon_memory_peak: Option<MemoryPeakJson>,
    /// When the recording has a page-fault event (`record --page-faults`):
    /// the memory first touched, by category and pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_touch: Option<crate::report::memory::MemoryJson>,
    /// With `--heap` (`record --heap`): the live heap at the RSS peak (or
    /// `--at`), by pass, against the RSS growth, and what is live at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap_peak: Option<crate::attribute::heap::HeapPeak>,
    /// With any other `--by` (and the places outside passes with `--by
    /// pass`): one entry per row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<RowJson>,
    /// With `--by pass` and a `mlir-timing.json`: MLIR's timers of no pass
    /// on the stacks (passes no sample ran in, pipelines, analyses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timer_only: Option<Vec<TimerOnlyJson>>,
    /// With a `mlir-timing.json`: its `Total` timer, the pass manager's wall time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mlir_timing_total_wall_seconds: Option<f64>,
    /// The compile's outputs by kind of member, when `run.json` lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<crate::report::artifacts::ArtifactJson>,
    /// The globals const-eval computed, when the run directory has a
    /// `consteval.json`: each with its inputs, ops and the bytes it added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consteval: Option<crate::consteval::ConstEval>,
}

impl ReportJson {
    /// The headline facts: samples, lost samples, the sampled event, and
    /// the largest categories (a report by category lists them largest
    /// first).
    pub(crate) fn headline(&self) -> String {
        let mut facts = vec![format!("{} samples", self.samples)];
        if self.lost_samples > 0 {
            facts.push(format!("{} lost", self.lost_samples));
        }
        facts.push(format!("event {}", self.event));
        let categories: Vec<String> = (self.categories.iter())
            .take(HEADLINE_CATEGORIES)
            .map(|category| format!("{} {:.1}%", category.name, category.self_percent))
            .collect();
        if !categories.is_empty() {
            facts.push(format!("top categories: {}", categories.join(", ")));
        }
        facts.join("; ")
    }
}

/// A timer of `mlir-timing.json` that no pass on the stacks has.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TimerOnlyJson {
    pub name: String,
    pub kind: TimerKind,
    /// The wall seconds of its timers, summed (a timer inside one of the
    /// same name is left out: its time is in the outer one's).
    pub timer_wall_seconds: f64,
    /// Their `user` seconds, summed the same way: each timer's time on
    /// every thread, added up (0 in reports written before it was kept).
    #[serde(default)]
    pub timer_user_seconds: f64,
    /// How many timers of this name the tree has.
    pub timers: u32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PassJson {
    pub name: String,
    pub self_samples: u64,
    pub self_percent: f64,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    /// Inclusive samples as a share of the samples inside the pass manager.
    pub inclusive_percent_of_pass_manager: f64,
    /// Of the self samples, thread-pool work credited to this pass because
    /// the main thread was in it.
    pub credited_samples: u64,
    /// Of the inclusive samples, those credited; the others have the pass
    /// on their own stack, as the flamegraphs and exports draw them.
    pub credited_inclusive_samples: u64,
    /// The pass's self samples split by category.
    pub categories: Vec<PassCategoryJson>,
    /// The inclusive samples as CPU seconds (samples × the sampling
    /// period); null when the event does not count time.
    pub cpu_seconds: Option<f64>,
    /// From `mlir-timing.json`: the wall seconds of the pass's timers,
    /// summed; null when the pass has no timer (or the run no timings).
    pub timer_wall_seconds: Option<f64>,
    /// How many timers of the pass the tree has: each a run of the pass (on
    /// one op, or on many in a nested pipeline); null without timings.
    pub timer_runs: Option<u32>,
    /// The timer's name, when it differs from the pass's or to show it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timer_name: Option<String>,
    /// MLIR's `user` seconds of the same timers: each timer's time on every
    /// thread, added up, where `wall` is its longest thread's. A pass run on
    /// many ops at once has more user than wall seconds.
    pub timer_user_seconds: Option<f64>,
    /// `timer_cpu_seconds / timer_wall_seconds`: above 1, parallel work;
    /// below 1, waiting or time off the CPU.
    pub cpu_per_wall: Option<f64>,
    /// `timer_cpu_seconds / timer_user_seconds`: the samples' CPU seconds
    /// per second the threads spent in the pass's timers. About 1 when the
    /// samples credited to the pass are what MLIR timed; below 1, waiting
    /// or time off the CPU; above 1, samples of time MLIR timed elsewhere.
    pub cpu_per_user: Option<f64>,
    /// The CPU seconds the pass's timer times: its own and its runs'
    /// under a nested compiler (`JitGlobalsPass > Pass`), which MLIR's
    /// timers count under the pass's name. `cpu_per_wall` is this over
    /// `timer_wall_seconds`.
    pub timer_cpu_seconds: Option<f64>,
    /// For a pass a nested compiler ran (const-eval's JIT), that compiler
    /// (`JitGlobalsPass`); the pass's name is then `JitGlobalsPass > Pass`.
    /// Absent for the compile's own passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nested_in: Option<String>,
    /// With a `memory.json`: the compiler's RSS when the pass first started,
    /// its growth over the pass's spans, and its highest during them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_start_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_growth_bytes: Option<i64>,
    /// The part of the growth that is anonymous memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anon_growth_bytes: Option<i64>,
    /// The part that is mapped files and shared memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_growth_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_max_bytes: Option<u64>,
    /// The most anonymous memory during the pass's spans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anon_max_bytes: Option<u64>,
}

/// A peak of the compiler's memory (the RSS, or its anonymous part): the
/// RSS then, split by kind, and where the compile was.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MemoryPeakJson {
    pub bytes: u64,
    pub anon_bytes: u64,
    pub file_bytes: u64,
    /// From the first sample of the report.
    pub seconds: f64,
    /// The innermost pass running at the peak, or the place outside passes.
    pub pass: String,
    pub phase: Option<Cow<'static, str>>,
}

impl From<&MemoryPeak> for MemoryPeakJson {
    fn from(peak: &MemoryPeak) -> MemoryPeakJson {
        MemoryPeakJson {
            bytes: peak.bytes,
            anon_bytes: peak.anon_bytes,
            file_bytes: peak.file_bytes,
            seconds: round2(peak.seconds),
            pass: peak.place_name.clone(),
            phase: peak.phase.map(|phase| phase.name().into()),
        }
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PassCategoryJson {
    pub id: String,
    pub self_samples: u64,
    pub self_percent: f64,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct CategoryJson {
    pub id: String,
    pub name: String,
    pub color: String,
    pub description: String,
    pub self_samples: u64,
    pub self_percent: f64,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    pub top_symbols: Vec<SymbolJson>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SymbolJson {
    pub symbol: String,
    pub self_samples: u64,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RowJson {
    pub key: String,
    /// With `--by thread|process`: the pass most self samples were in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_pass: Option<String>,
    pub self_samples: u64,
    /// With `--by pass`: of the self samples, thread-pool work credited to
    /// this place because the main thread was there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credited_samples: Option<u64>,
    pub self_percent: f64,
    pub inclusive_samples: u64,
    pub inclusive_percent: f64,
    pub top: Vec<DetailJson>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct DetailJson {
    pub name: String,
    pub self_samples: u64,
}

/// Seconds to four decimals, as MLIR prints its timers.
fn round4(seconds: f64) -> f64 {
    (seconds * 1e4).round() / 1e4
}

/// MLIR's actions of a run, on perf's clock.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ActionsJson {
    pub intervals: usize,
    pub threads: usize,
    /// Whether the action log named the passes' IR units.
    pub units_named: bool,
    /// perf's time (ns, CLOCK_MONOTONIC) of the action profiler's zero.
    pub origin_ns: u64,
    /// Of the main thread's samples with a pass on the stack, those inside
    /// an interval of a pass on their stack, in percent.
    pub agreement_percent: f64,
    pub agreement_samples: u64,
    pub agreeing_samples: u64,
}

impl From<&ActionJoin> for ActionsJson {
    fn from(join: &ActionJoin) -> ActionsJson {
        ActionsJson {
            intervals: join.actions.intervals(),
            threads: join.actions.threads.len(),
            units_named: join.actions.units_named,
            origin_ns: join.origin_ns,
            agreement_percent: round2(join.agreement.percent()),
            agreement_samples: join.agreement.samples,
            agreeing_samples: join.agreement.agreeing,
        }
    }
}

#[cfg(test)]
mod tests;
