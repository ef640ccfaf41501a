//! What the machine's load moves, judged with the load or with the
//! compiler's own work behind it: the CPU and wall times with the other
//! processes' load, the wall time with the CPU time, the kernel's share
//! with the page faults. A metric moved by the machine is unflagged, and
//! its test says why and which option flags it.

use super::{Rules, median, value_of};
use crate::history::StoredRun;
use crate::history::metric::{CPU, JudgedMetric, KERNEL, OTHER_CORES, PAGE_FAULTS, WALL};

/// Unflags in `judged` what the machine moved, but what `rules` asks to
/// flag on its own.
pub(super) fn unflag_the_machines_moves(
    judged: &mut [JudgedMetric],
    history: &[&StoredRun],
    run: &StoredRun,
    rules: &Rules,
) {
    if !rules.flag_cpu_with_load {
        unflag_times_moved_with_the_load(judged, history, run);
    }
    let flagged_alone = [rules.flag_wall_alone, rules.flag_kernel_alone];
    for (sensitive, alone) in LOAD_SENSITIVE.iter().zip(flagged_alone) {
        if !alone {
            unflag_the_machines_move(judged, sensitive);
        }
    }
}

/// The least change of the other processes' load, in cores, from the
/// history's median, that the CPU time is read with. On the 2-core VM of
/// 2026-12-07, compiles of hex-constants recorded while one or two builds
/// ran beside them (1.3 cores of other work) took 25–40% more CPU time
/// than on the quiet machine, every category alike.
const LOAD_STEP_CORES: f64 = 0.5;

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

/// The CPU time flagged while other processes kept at least
/// [`LOAD_STEP_CORES`] more cores busy than in the history's median (or
/// fewer, and it fell) is the machine's load: unflagged, and the wall time
/// with it when it moved the same way, and said so.
fn unflag_times_moved_with_the_load(
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
        return;
    }
    let usual = median(&loads);
    let step = load - usual;
    let cpu_delta = judged
        .iter()
        .find(|j| j.metric == CPU && j.flagged)
        .and_then(|j| j.delta_median);
    let Some(cpu_delta) = cpu_delta else {
        return;
    };
    if step.abs() < LOAD_STEP_CORES || step.signum() != cpu_delta.signum() {
        return;
    }
    for time in judged
        .iter_mut()
        .filter(|j| j.metric == CPU || j.metric == WALL)
    {
        let with_cpu = time
            .delta_median
            .is_some_and(|d| d.signum() == cpu_delta.signum());
        if time.flagged && with_cpu {
            time.flagged = false;
            time.test.push_str(&format!(
                "; moved with the machine's load: other processes kept {load:.2} cores busy \
                 against {usual:.2} in the history (median), not flagged \
                 (--flag-cpu-with-load flags it)"
            ));
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
