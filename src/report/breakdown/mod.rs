//! `compile-perf report`: where the samples went, by category (or by symbol,
//! binary, thread, process or MLIR pass), with a header saying what was
//! profiled and a per-process breakdown. This file groups and orders the
//! rows; `text.rs` writes them as a table (text, Markdown or CSV, one table
//! for all three) and `json.rs` as the JSON document.

pub(crate) mod findings;
mod json;
mod text;

use std::sync::Arc;

use crate::attribute::actions::ActionJoin;
use crate::attribute::findings::{Findings, findings};
use crate::attribute::rss::{MemoryPeak, RssJoin};
use crate::attribute::runs::seconds_per_sample;
use crate::attribute::timers::{PassTimer, TimerJoin};
use crate::attribute::{
    Attribution, Classes, Detail, Grouped, Grouping, RowKey, RowName, RowNames, RowTotals,
    UnwindStats, Utilization, group_rows, timeline, unwind_stats,
};
use crate::consteval::ConstEval;
use crate::executable_sources::Alike;
use crate::profile::{Profile, SampleFilter};
use crate::run_dir::RunJson;
pub(crate) use json::ReportJson;

/// Symbols listed per row in the text table; JSON lists more.
const TEXT_TOP: usize = 3;
const JSON_TOP: usize = 10;
/// Passes named as growing memory most.
const GROWTH_TOP: usize = 3;

/// What `report` was asked for.
#[derive(Clone, Debug, Default)]
pub(crate) struct BreakdownOptions {
    pub grouping: Grouping,
    pub attribution: Attribution,
    pub filter: SampleFilter,
    /// MLIR's actions on perf's clock, for `--by pattern|unit`.
    pub actions: Option<Arc<ActionJoin>>,
    /// The alike executables the compile dumped, for the findings.
    pub alike: Vec<Alike>,
}

/// A report, ready to print in any format.
pub(crate) struct Breakdown<'a> {
    profile: &'a Profile,
    classes: &'a Classes<'a>,
    options: BreakdownOptions,
    grouped: Grouped,
    /// Rows sorted by self samples, then inclusive samples.
    order: Vec<RowKey>,
    unwind: UnwindStats,
    /// With `--by thread`: how busy the threads were.
    utilization: Option<Utilization>,
    /// What `run.json` says of the run, when the recording has one.
    run: Option<RunJson>,
    /// What the user must not miss (see [`crate::report::run_facts`]).
    notices: Vec<String>,
    /// The compiler's RSS over time joined with the passes, when the run
    /// directory has a `memory.json`.
    rss: Option<RssJoin>,
    /// MLIR's pass timers joined with the passes, when the run directory
    /// has a `mlir-timing.json` and the rows are passes.
    timers: Option<TimerJoin>,
    /// What the report names for the reader to act on.
    findings: Findings,
    /// The globals const-eval computed, when the run directory has a
    /// `consteval.json`.
    consteval: Option<ConstEval>,
}

/// Groups the profile's samples as `options` say.
pub(crate) fn breakdown<'a>(
    profile: &'a Profile,
    classes: &'a Classes<'a>,
    options: BreakdownOptions,
) -> Breakdown<'a> {
    // The rows and the findings each go over every sample: one core each.
    let (grouped, (unwind, findings)) = rayon::join(
        || {
            group_rows(
                profile,
                classes,
                options.grouping,
                options.attribution,
                &options.filter,
                options.actions.as_deref(),
            )
        },
        || {
            let unwind = unwind_stats(profile, &options.filter).0;
            let findings = findings(
                profile,
                classes,
                &options.filter,
                options.actions.as_deref(),
                &options.alike,
            );
            (unwind, findings)
        },
    );
    let mut order: Vec<RowKey> = grouped
        .rows
        .iter()
        .filter(|(_, row)| row.self_samples > 0 || options.grouping != Grouping::Symbol)
        .map(|(key, _)| *key)
        .collect();
    order.sort_by(|a, b| {
        let (ra, rb) = (&grouped.rows[a], &grouped.rows[b]);
        (rb.self_samples, rb.inclusive_samples, a).cmp(&(ra.self_samples, ra.inclusive_samples, b))
    });
    let utilization = (options.grouping == Grouping::Thread)
        .then(|| timeline(profile, classes, &options.filter, 1).utilization)
        .flatten();
    Breakdown {
        profile,
        classes,
        options,
        grouped,
        order,
        unwind,
        utilization,
        run: None,
        notices: Vec::new(),
        rss: None,
        timers: None,
        findings,
        consteval: None,
    }
}

impl Breakdown<'_> {
    /// Adds the run's facts and the notices to the report.
    pub(crate) fn set_run(&mut self, run: Option<RunJson>, notices: Vec<String>) {
        self.run = run;
        self.notices = notices;
    }

    /// Adds the RSS joined with the passes.
    pub(crate) fn set_rss(&mut self, rss: Option<RssJoin>) {
        self.rss = rss;
    }

    /// Adds MLIR's pass timers joined with the passes.
    pub(crate) fn set_timers(&mut self, timers: Option<TimerJoin>) {
        self.timers = timers;
    }

    /// Adds the globals const-eval computed.
    pub(crate) fn set_consteval(&mut self, consteval: Option<ConstEval>) {
        self.consteval = consteval;
    }

    /// The timer of a pass row, when the run has timers and the pass one.
    fn timer_of(&self, key: RowKey) -> Option<&PassTimer> {
        match key {
            RowKey::Pass(pass) => self.timers.as_ref()?.passes.get(&pass),
            _ => None,
        }
    }

    /// The samples MLIR's timer of a pass row times: the row's inclusive
    /// samples and those of its runs under a nested compiler, which MLIR
    /// times under the same name (on a BertForMaskedLM, ApplyPatternsPass's
    /// timers hold 42% of the timers' total; its own runs 5% of the samples,
    /// with the JIT's 46%).
    fn timed_samples(&self, key: RowKey, inclusive_samples: u64) -> u64 {
        let RowKey::Pass(pass) = key else {
            return inclusive_samples;
        };
        let nested: u64 = (self.classes.passes.nested_copies(pass))
            .filter_map(|copy| self.grouped.rows.get(&RowKey::Pass(copy)))
            .map(|row| row.inclusive_samples)
            .sum();
        inclusive_samples + nested
    }

    /// CPU seconds of `samples`, when the event counts time.
    fn cpu_seconds(&self, samples: u64) -> Option<f64> {
        seconds_per_sample(self.profile).map(|seconds| seconds * samples as f64)
    }

    /// The peak of the RSS, and the peak of its anonymous part.
    fn memory_peaks(&self) -> Option<(&MemoryPeak, Option<&MemoryPeak>)> {
        let rss = self.rss.as_ref()?;
        Some((rss.peak.as_ref()?, rss.anon_peak.as_ref()))
    }

    /// The passes whose spans grew the anonymous memory most, with the growth.
    fn growth_top(&self) -> Vec<(String, i64)> {
        let Some(rss) = &self.rss else {
            return Vec::new();
        };
        let mut grown: Vec<_> = rss
            .passes
            .iter()
            .filter(|(_, figures)| figures.anon_growth_bytes > 0)
            .collect();
        grown.sort_by(|a, b| (b.1.anon_growth_bytes, a.0).cmp(&(a.1.anon_growth_bytes, b.0)));
        grown
            .into_iter()
            .take(GROWTH_TOP)
            .map(|(pass, figures)| {
                (
                    self.label(RowKey::Pass(*pass)).name,
                    figures.anon_growth_bytes,
                )
            })
            .collect()
    }

    /// The samples the report covers.
    pub(crate) fn samples(&self) -> u64 {
        self.grouped.samples
    }

    /// The rows in order, with their keys.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (RowKey, &RowTotals)> {
        self.order.iter().map(|key| (*key, &self.grouped.rows[key]))
    }

    /// How a row reads in this recording.
    fn label(&self, key: RowKey) -> RowName {
        RowNames {
            profile: self.profile,
            classes: self.classes,
            actions: self.options.actions.as_deref(),
        }
        .in_recording(key)
    }

    fn detail_name(&self, detail: Detail) -> String {
        match detail {
            Detail::Symbol(id) => self.profile.symbols.get(id).name.clone(),
            Detail::Category(id) => self.classes.table.category(id).id.clone(),
        }
    }

    fn top_details(&self, row: &RowTotals, limit: usize) -> Vec<(String, u64)> {
        let mut details: Vec<(&Detail, &u64)> = row.details.iter().collect();
        details.sort_by(|a, b| (b.1, a.0).cmp(&(a.1, b.0)));
        details
            .into_iter()
            .take(limit)
            .map(|(detail, &count)| (self.detail_name(*detail), count))
            .collect()
    }

    /// The pass (or place outside passes) most of a row's self samples were in.
    fn top_pass(&self, row: &RowTotals) -> String {
        row.passes
            .iter()
            .max_by(|a, b| (a.1, b.0).cmp(&(b.1, a.0)))
            .map(|(key, _)| self.label(*key).name)
            .unwrap_or_default()
    }
}

/// Bytes in MiB, one decimal.
pub(crate) fn mebibytes(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / f64::from(1 << 20))
}

/// The name of an attribution, as `--attribution` takes it.
pub(crate) fn attribution_name(attribution: Attribution) -> &'static str {
    match attribution {
        Attribution::Leaf => "leaf",
        Attribution::Caller => "caller",
    }
}

/// The processes `filter` keeps, in words.
pub(crate) fn scope_words(filter: &SampleFilter) -> String {
    if filter.keeps_all() {
        return "all processes".to_owned();
    }
    let mut parts = Vec::new();
    if filter.compiler_only {
        parts.push("the compiler process".to_owned());
    }
    parts.extend(filter.names.iter().map(|name| format!("process {name}")));
    parts.extend(filter.pids.iter().map(|pid| format!("pid {pid}")));
    parts.join(", ")
}
