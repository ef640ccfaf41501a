//! The short summary printed on stderr after every command: samples read,
//! how well stacks unwound, unresolved frames, lost samples, and warnings.
//!
//! Warnings about binaries (missing, wrong build id) also decide the exit code,
//! so a partly symbolized profile is never mistaken for a complete one.

use std::io::Write;

use crate::attribute::{frame_resolution, percent, unwind_stats};
use crate::binary::{DsoProblem, hex};
use crate::error::{EXIT_BUILD_ID_MISMATCH, EXIT_MISSING_LIBRARY};
use crate::profile::{Profile, SampleFilter};
use crate::symbolize::KernelSymbolsUnavailable;
use crate::unwind::StackUse;

/// Processes below this share of samples are not listed one by one.
const LISTED_PROCESS_SHARE: f64 = 1.0;

/// What the summary says, and the exit code its warnings call for.
pub(crate) struct Summary {
    pub lines: Vec<String>,
    pub warnings: Vec<String>,
    /// Non-zero when a warning means the output is incomplete.
    pub exit_code: u8,
}

/// How the lost-samples warning begins, in the summary and in `run.json`'s
/// notes.
pub(crate) const LOST_SAMPLES_PREFIX: &str = "the kernel lost ";

/// The warning about the samples the kernel lost while `profile` was
/// recorded, with their share and what to do; `None` when none were lost.
pub(crate) fn lost_samples_warning(profile: &Profile) -> Option<String> {
    let lost = &profile.counts.lost;
    let read = profile.counts.samples + profile.counts.other_event_samples;
    lost_warning(lost.samples(), lost.samples_percent(read))
}

/// The words of [`lost_samples_warning`]: `lost` samples, `percent` of those taken.
pub(crate) fn lost_warning(lost: u64, percent: f64) -> Option<String> {
    (lost > 0).then(|| {
        format!(
            "{LOST_SAMPLES_PREFIX}{lost} samples while recording ({percent:.1}% of the samples \
             taken): perf could not write them out in time, and the profile misses them; \
             record with a larger ring buffer (`record --perf-arg=-m --perf-arg=16M`), \
             fewer bytes per second (`record --budget` lower, or a lower --freq or \
             --stack-size), or while less is written to the disk"
        )
    })
}

/// How deep the whole user stacks were: the bytes of the stack copy the
/// unwinds that reached a thread root read (p50, p99 to the KiB above, and
/// the most).
fn stack_use_line(stack_use: &StackUse) -> Option<String> {
    let kib = |bytes: u64| bytes as f64 / 1024.0;
    Some(format!(
        "stack copy read by whole user stacks: p50 {:.0} KiB, p99 {:.0} KiB, max {:.1} KiB \
         ({} stacks)",
        kib(stack_use.quantile_bytes(0.5)?),
        kib(stack_use.quantile_bytes(0.99)?),
        kib(stack_use.max_bytes),
        stack_use.count()
    ))
}

/// Summarizes `profile`; with `warn_lost`, lost samples are a warning too
/// (they are always a line).
pub(crate) fn summarize(profile: &Profile, warn_lost: bool) -> Summary {
    let samples = profile.counts.samples;
    let (unwind, per_process) = unwind_stats(profile, &SampleFilter::default());
    let resolution = frame_resolution(profile);
    let mut lines = vec![format!(
        "{} samples of {} read from {}{}",
        samples,
        profile.event,
        profile.input_name,
        if profile.counts.other_event_samples > 0 {
            format!(
                " ({} samples of other events skipped)",
                profile.counts.other_event_samples
            )
        } else {
            String::new()
        }
    )];
    lines.extend(crate::report::instrumentation::line(profile));
    lines.push(format!(
        "stacks unwound to a thread root: {:.1}%, truncated: {:.1}% ({} {})",
        unwind.complete_percent(),
        percent(unwind.truncated, unwind.total()),
        unwind.truncated,
        profile.unit
    ));
    let mut processes: Vec<_> = per_process.iter().collect();
    processes.sort_by_key(|(id, stats)| (std::cmp::Reverse(stats.total()), **id));
    for (&id, stats) in processes {
        if percent(stats.total(), unwind.total()) < LISTED_PROCESS_SHARE {
            continue;
        }
        let image = profile.processes.image(id);
        lines.push(format!(
            "  pid {:<7} {:<16} {:>5.1}% of {}, {:>5.1}% unwound  {}",
            image.pid,
            image.name,
            percent(stats.total(), unwind.total()),
            profile.unit,
            stats.complete_percent(),
            image.executable.as_deref().unwrap_or("")
        ));
    }
    // Frames are counted once per sample; a reading weighted by another
    // unit (the bytes of `--heap`) weighs them by it, and says so.
    lines.push(match profile.unit {
        "samples" => format!(
            "frames unresolved: {:.2}% ({} of {} frames)",
            percent(resolution.unresolved, resolution.frames),
            resolution.unresolved,
            resolution.frames
        ),
        unit => format!(
            "frames unresolved: {:.2}% (frames weighted by {unit})",
            percent(resolution.unresolved, resolution.frames),
        ),
    });
    if let Some(line) = profile.stack_use.as_ref().and_then(stack_use_line) {
        lines.push(line);
    }
    lines.push(format!("lost samples: {}", profile.counts.lost.samples()));

    let mut warnings = Vec::new();
    let mut exit_code = 0;
    if warn_lost {
        warnings.extend(lost_samples_warning(profile));
    }
    let mut problem_dsos: Vec<_> = profile
        .store
        .iter()
        .filter_map(|(id, dso)| {
            Some((
                id,
                dso,
                dso.problem.as_ref()?,
                *resolution.per_dso.get(&id)?,
            ))
        })
        .collect();
    problem_dsos.sort_by_key(|(id, ..)| *id);
    for (_, dso, problem, frames) in problem_dsos {
        let consequence = format!("its {frames} frames are shown as {}+offset", dso.name);
        match problem {
            DsoProblem::Missing => {
                warnings.push(format!(
                    "{} was not found; {consequence}; pass --symfs DIR where it now lives",
                    dso.recorded_path
                ));
                exit_code = exit_code.max(EXIT_MISSING_LIBRARY);
            }
            DsoProblem::BuildIdMismatch {
                path,
                expected,
                found,
            } => {
                warnings.push(format!(
                    "{} has build id {} but the recording expects {}; its symbols were not used and {consequence}; pass --symfs DIR holding the recorded build",
                    path.display(),
                    found.as_deref().map_or_else(|| "(none)".to_owned(), hex),
                    hex(expected)
                ));
                exit_code = exit_code.max(EXIT_BUILD_ID_MISMATCH);
            }
            DsoProblem::Unreadable(reason) => {
                warnings.push(format!("{reason}; {consequence}"));
                exit_code = exit_code.max(EXIT_MISSING_LIBRARY);
            }
        }
    }
    if let Some(reason) = &profile.symbols.kernel_unavailable {
        lines.push(format!(
            "kernel frames show as [kernel]: {}",
            match reason {
                KernelSymbolsUnavailable::OtherKernel =>
                    "the running kernel is not the recorded one, and perf's build-id cache \
                     has no kallsyms for it",
                KernelSymbolsUnavailable::Hidden =>
                    "/proc/kallsyms hides addresses (run as root or lower kernel.kptr_restrict)",
                KernelSymbolsUnavailable::Unverifiable =>
                    "the recording names no kernel build id or release to check against",
            }
        ));
    }
    Summary {
        lines,
        warnings,
        exit_code,
    }
}

/// Writes the summary, one line each, prefixed with the tool's name.
pub(crate) fn write_summary(summary: &Summary, out: &mut dyn Write) -> std::io::Result<()> {
    for line in &summary.lines {
        writeln!(out, "compile-perf: {line}")?;
    }
    for warning in &summary.warnings {
        writeln!(out, "compile-perf: warning: {warning}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lost_samples_warning_says_how_many_what_share_and_what_to_do() {
        let warning = lost_warning(366, 5.6987).expect("a warning");
        assert!(warning.starts_with("the kernel lost 366 samples while recording (5.7% of"));
        for advice in ["-m --perf-arg=16M", "--budget", "--freq", "disk"] {
            assert!(warning.contains(advice), "{advice} in {warning}");
        }
    }

    #[test]
    fn nothing_lost_is_no_warning() {
        assert_eq!(lost_warning(0, 0.0), None);
    }
}
