//! The notices a user must not miss, from a run's `run.json` and its
//! samples: a failed compile, a large Python launcher share, a compile that
//! spent much of its wall time off the CPU; and whether `record` already
//! warned of lost samples.

use crate::attribute::{percent, runs::seconds_per_sample};
use crate::profile::{Profile, SampleFilter, is_compiler};
use crate::report::summary::LOST_SAMPLES_PREFIX;
use crate::run_dir::RunJson;

/// Samples of the Python launcher above this share of all samples earn a
/// notice.
const PYTHON_NOTICE_PERCENT: f64 = 10.0;
/// A compile on a CPU for less than this share of its wall time (summed over
/// its threads) earns a notice.
const ON_CPU_NOTICE_PERCENT: f64 = 50.0;
/// How many of the failed compile's last stderr lines a notice quotes
/// (after its first ones).
const QUOTED_STDERR_LINES: usize = 6;
/// Quoted stderr lines are cut to this many characters.
const QUOTED_LINE_CHARS: usize = 160;

/// True when `record` noted lost samples in `run` (and warned about them
/// then).
pub(crate) fn notes_lost_samples(run: &RunJson) -> bool {
    run.notes
        .iter()
        .any(|note| note.starts_with(LOST_SAMPLES_PREFIX))
}

/// The notices for `profile`, recorded as `run` says (when it is known).
pub(crate) fn notices(profile: &Profile, run: Option<&RunJson>) -> Vec<String> {
    let mut notices: Vec<String> = run.and_then(ending_notice).into_iter().collect();
    if let Some(notice) = python_notice(profile) {
        notices.push(notice);
    }
    if let Some(notice) = off_cpu_notice(profile, run) {
        notices.push(notice);
    }
    notices
}

/// How the compile ended, when it did not finish: interrupted (Ctrl-C:
/// the launcher's KeyboardInterrupt traceback and exit code do not make a
/// failed compile) or failed.
fn ending_notice(run: &RunJson) -> Option<String> {
    if run.interrupted {
        Some("the compile was interrupted (Ctrl-C): this profile covers it up to then".to_owned())
    } else {
        run.failed().then(|| failed_compile_notice(run))
    }
}

fn failed_compile_notice(run: &RunJson) -> String {
    let ending = match run.exit.map(|exit| (exit.code, exit.signal)) {
        Some((Some(code), _)) => format!("exited with code {code}"),
        Some((None, Some(signal))) => format!("was killed by signal {signal}"),
        _ => "failed".to_owned(),
    };
    let mut notice = format!(
        "the compile {ending}: this profile is of a failed compile, up to where it stopped"
    );
    let stderr = &run.stderr;
    if stderr.lines == 0 {
        notice.push_str(" (it wrote nothing to stderr)");
        return notice;
    }
    notice.push_str("; its stderr:");
    let tail = &stderr.tail[stderr.tail.len().saturating_sub(QUOTED_STDERR_LINES)..];
    let skipped = stderr.lines - (stderr.head.len() + tail.len()) as u64;
    let mut quote = |line: &str| {
        notice.push_str("\n    ");
        match line.char_indices().nth(QUOTED_LINE_CHARS) {
            Some((cut, _)) => {
                notice.push_str(&line[..cut]);
                notice.push('…');
            }
            None => notice.push_str(line),
        }
    };
    stderr.head.iter().for_each(|line| quote(line));
    if skipped > 0 {
        quote(&format!("… ({skipped} more lines)"));
    }
    tail.iter().for_each(|line| quote(line));
    notice
}

/// The Python launcher's share, when large: `iree-compile` from pip is a
/// Python script that starts the native compiler, and numpy's OpenBLAS
/// threads spin while it waits. A Python that compiles in-process (through
/// `iree.compiler.api`) is the compiler, not a launcher.
fn python_notice(profile: &Profile) -> Option<String> {
    let total: u64 = (profile.samples(&SampleFilter::default()))
        .map(|(_, count)| count)
        .sum();
    let python: u64 = profile
        .samples(&SampleFilter::default())
        .filter(|(key, _)| {
            let image = profile
                .processes
                .image(profile.processes.thread(key.thread).process);
            !is_compiler(image)
                && (image.name.starts_with("python")
                    || image
                        .executable_name()
                        .is_some_and(|name| name.starts_with("python")))
        })
        .map(|(_, count)| count)
        .sum();
    python_share_notice(percent(python, total))
}

/// The notice for a Python launcher with `share` percent of the samples.
fn python_share_notice(share: f64) -> Option<String> {
    (share >= PYTHON_NOTICE_PERCENT).then(|| {
        format!(
            "the Python launcher has {share:.0}% of the samples: record the native compiler \
             (iree/compiler/_mlir_libs/iree-compile in the venv's site-packages) instead of the \
             `iree-compile` script, or set OPENBLAS_NUM_THREADS=1 to stop numpy's threads spinning"
        )
    })
}

/// When the samples' CPU time is a small part of the wall time: the compile
/// waited (on the disk, on memory, on a lock) rather than computed, and the
/// profile shows only the computing.
fn off_cpu_notice(profile: &Profile, run: Option<&RunJson>) -> Option<String> {
    let cpu_seconds = seconds_per_sample(profile)? * profile.counts.samples as f64;
    let wall = run
        .and_then(|run| run.wall_seconds)
        .unwrap_or_else(|| profile.counts.duration_seconds());
    let cores = run.map(|run| run.host.cores).filter(|&cores| cores > 0);
    busy_notice(cpu_seconds, wall, cores)
}

/// The notice for `cpu_seconds` of samples over `wall` seconds, when that
/// is less than half of one core busy on average.
fn busy_notice(cpu_seconds: f64, wall: f64, cores: Option<usize>) -> Option<String> {
    if wall <= 0.0 {
        return None;
    }
    let busy_cores = cpu_seconds / wall;
    (busy_cores * 100.0 < ON_CPU_NOTICE_PERCENT).then(|| {
        let cores = cores.map_or(String::new(), |cores| format!(" (of {cores})"));
        format!(
            "the compile was on a CPU for {cpu_seconds:.1} s of its {wall:.1} s wall time: on \
             average {busy_cores:.2} cores busy{cores}, less than half of one; the rest of the time \
             it waited (on the disk, on memory or swap, on locks), which the profile does not show"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(json: &str) -> RunJson {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_failed_compile_is_told_with_the_first_and_last_lines_of_its_stderr() {
        let run = facts(
            r##"{"exit": {"code": 1, "signal": null},
                "stderr": {"head": ["Please report issues", "#0 0x1 llvm::sys::PrintStackTrace", "#1 0x2 f"],
                           "tail": ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "error: custom op 'foo.bar' is unknown"],
                           "lines": 41}}"##,
        );
        assert!(run.failed());
        let notice = failed_compile_notice(&run);
        assert!(
            notice.starts_with("the compile exited with code 1"),
            "{notice}"
        );
        assert!(notice.contains("\n    Please report issues\n"));
        assert!(
            notice.contains("\n    … (32 more lines)\n    t3\n"),
            "{notice}"
        );
        assert!(notice.ends_with("\n    error: custom op 'foo.bar' is unknown"));
        assert!(!notice.contains("t2"));
    }

    #[test]
    fn a_compile_stopped_by_ctrl_c_is_interrupted_not_failed() {
        // The launcher printed a KeyboardInterrupt traceback and exited 1.
        let run = facts(
            r##"{"interrupted": true, "exit": {"code": 1, "signal": null},
                "stderr": {"head": ["Traceback (most recent call last):"],
                           "tail": ["KeyboardInterrupt"], "lines": 9}}"##,
        );
        assert_eq!(
            ending_notice(&run).as_deref(),
            Some("the compile was interrupted (Ctrl-C): this profile covers it up to then")
        );
        let finished = facts(r#"{"exit": {"code": 0, "signal": null}}"#);
        assert_eq!(ending_notice(&finished), None);
    }

    #[test]
    fn the_launcher_and_off_cpu_notices_have_their_thresholds() {
        assert!(python_share_notice(9.9).is_none());
        let notice = python_share_notice(23.4).unwrap();
        assert!(notice.starts_with("the Python launcher has 23% of the samples"));
        assert!(notice.contains("OPENBLAS_NUM_THREADS=1"));
        // A serial compile keeps one core busy: no notice.
        assert!(busy_notice(10.0, 10.5, Some(2)).is_none());
        assert!(busy_notice(0.0, 0.0, None).is_none());
        let notice = busy_notice(0.7, 2.1, Some(2)).unwrap();
        assert!(
            notice.starts_with("the compile was on a CPU for 0.7 s of its 2.1 s wall time: on average 0.33 cores busy (of 2)"),
            "{notice}"
        );
    }

    #[test]
    fn lost_samples_noted_by_record_are_known_again() {
        let mut run = facts("{}");
        assert!(!notes_lost_samples(&run));
        let warning = crate::report::summary::lost_warning(12, 0.5).expect("a warning");
        run.notes.push(warning);
        assert!(notes_lost_samples(&run));
    }

    #[test]
    fn a_run_json_of_an_older_version_still_reads() {
        let run = facts(r#"{"status": "finished", "exit": {"code": 0, "signal": null}}"#);
        assert!(!run.failed());
        assert_eq!(run.stderr.lines, 0);
        let killed = facts(r#"{"exit": {"code": null, "signal": 9}}"#);
        assert!(killed.failed());
        let notice = failed_compile_notice(&killed);
        assert!(notice.contains("killed by signal 9"));
        assert!(notice.ends_with("(it wrote nothing to stderr)"));
    }
}
