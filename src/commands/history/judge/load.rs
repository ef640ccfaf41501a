//! What the machine's load moves, judged with the load or with the
//! compiler's own work behind it: the CPU and wall times and the threading
//! share with the other processes' load, the wall time with the CPU time,
//! the kernel's share with the page faults. A metric moved by the machine
//! is unflagged, and its test says why and which option flags it.

use super::{Rules, value_of};
use crate::history::StoredRun;
use crate::history::metric::{
    CPU, JudgedMetric, KERNEL, OTHER_CORES, PAGE_FAULTS, THREADING, WALL,
};

/// Unflags in `judged` what the machine moved, but what `rules` asks to
/// flag on its own.
pub(super) fn unflag_the_machines_moves(
    judged: &mut [JudgedMetric],
    history: &[&StoredRun],
    run: &StoredRun,
    rules: &Rules,
) {
    if !rules.flag_with_load {
        unflag_moved_with_the_load(judged, history, run);
    }
    let flagged_alone = [rules.flag_wall_alone, rules.flag_kernel_alone];
    for (sensitive, alone) in LOAD_SENSITIVE.iter().zip(flagged_alone) {
        if !alone {
            unflag_the_machines_move(judged, sensitive);
        }
    }
}

/// How far, in cores, the run's load must lie outside the range of its
/// history's for the machine to count as busier or quieter than in every
/// run of it (`/proc/stat` counts in hundredths of a second).
const LOAD_OUTSIDE_CORES: f64 = 0.1;

/// A metric the machine's load moves, judged with the measure of the
/// compiler's own work behind it.
struct LoadSensitive {
    metric: &'static str,
    /// The compiler's own work behind it.
    work: &'static str,
    /// What it says when the metric moved and the work did not.
    moved: &'static str,
    why: &'static str,
    /// The option that flags the metric on its own.
    option: &'static str,
}

/// The wall time with the CPU time. The kernel's share with the page
/// faults: on 2026-12-07 one unchanged run recorded beside a test run had
/// the kernel at 22.8% where 30 others had 9.6–17.8%, nearly all of it in
/// `clear_page_erms` (64 samples against 3–33) at the same peak RSS; the
/// compile's page faults move by less than 1% from run to run.
const LOAD_SENSITIVE: [LoadSensitive; 2] = [
    LoadSensitive {
        metric: WALL,
        work: CPU,
        moved: "wall moved, CPU did not",
        why: "the machine was busy",
        option: "--flag-wall-alone",
    },
    LoadSensitive {
        metric: KERNEL,
        work: PAGE_FAULTS,
        moved: "the kernel moved, its page faults did not",
        why: "the machine was slower at the same faults",
        option: "--flag-kernel-alone",
    },
];

/// What moved with the machine's load, flagged while other processes kept
/// the machine busier than in every run of the history (or quieter) is
/// the machine's doing: unflagged, and said so. On the 2-core VM of
/// 2026-12-07, with a build beside the compile:
/// - the CPU time, when it moved the way the load did, and the wall time
///   with it: unchanged compiles took 514–912 samples as the build came and
///   went, and 859–1,158 at 0.6–1.5 cores of other work;
/// - the threading share (thread pools spinning on the CPUs the others
///   leave free), either way: 6.5% at 0.6 cores of other work, against
///   2.7–4.2% in the ten runs before it at 1.0–1.3 cores.
fn unflag_moved_with_the_load(
    judged: &mut [JudgedMetric],
    history: &[&StoredRun],
    run: &StoredRun,
) {
    let Some(load) = value_of(run, OTHER_CORES) else {
        return;
    };
    let loads: Vec<f64> = history
        .iter()
        .filter_map(|old| value_of(old, OTHER_CORES))
        .collect();
    if loads.is_empty() {
        // A history stored before the load was measured: judged as before.
        return;
    }
    let low = loads.iter().copied().fold(f64::INFINITY, f64::min);
    let high = loads.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (way, busier) = if load >= high + LOAD_OUTSIDE_CORES {
        ("above", 1.0)
    } else if load <= low - LOAD_OUTSIDE_CORES {
        ("below", -1.0)
    } else {
        return;
    };
    let words = format!(
        "; moved with the machine's load: other processes kept {load:.2} cores busy, {way} \
         the {low:.2}–{high:.2} of every run of the history, not flagged \
         (--flag-with-load flags it)"
    );
    let cpu_with_load = judged
        .iter()
        .find(|j| j.metric == CPU && j.flagged)
        .and_then(|j| j.delta_median)
        .filter(|delta| delta.signum() == busier);
    for metric in judged.iter_mut().filter(|j| j.flagged) {
        let with_load = match metric.metric.as_str() {
            CPU | WALL => {
                cpu_with_load.is_some()
                    && metric
                        .delta_median
                        .is_some_and(|delta| delta.signum() == busier)
            }
            THREADING => true,
            _ => false,
        };
        if with_load {
            metric.flagged = false;
            metric.test.push_str(&words);
        }
    }
}

/// A load-sensitive metric flagged while the compiler's work behind it is
/// within its fence (or moved the other way) is the machine's doing:
/// unflagged, and said so.
fn unflag_the_machines_move(judged: &mut [JudgedMetric], sensitive: &LoadSensitive) {
    let moved = |name: &str| {
        judged
            .iter()
            .find(|j| j.metric == name)
            .map(|j| (j.flagged, j.delta_median.unwrap_or(0.0)))
    };
    let (Some((true, metric)), Some((work_flagged, work))) =
        (moved(sensitive.metric), moved(sensitive.work))
    else {
        return;
    };
    if work_flagged && metric.signum() == work.signum() {
        return;
    }
    if let Some(metric_judged) = judged.iter_mut().find(|j| j.metric == sensitive.metric) {
        metric_judged.flagged = false;
        metric_judged.test.push_str(&format!(
            "; {} ({work:+.1} %): {}, not flagged ({} flags it)",
            sensitive.moved, sensitive.why, sensitive.option
        ));
    }
}
