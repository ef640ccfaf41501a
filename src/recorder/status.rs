//! The live status line of `record` on a terminal (indicatif): the time
//! since the wrapper started, the megabytes perf has written so far (the
//! perf.data file, or the directory of `--threads`) and the compile's
//! resident set now, from `/proc` of the `measure` wrapper's children other
//! than perf. It draws nothing when stderr is not a terminal, and it has no
//! colour, so `NO_COLOR` holds.

use std::io::IsTerminal;
use std::path::Path;
use std::process::{Child, ExitStatus};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::recording_bytes;
use super::rss_sampler::{children, page_size};

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(250);

/// Waits for the `measure` wrapper, with the status line on stderr while it
/// runs when stderr is a terminal.
pub(super) fn wait_with_status(
    wrapper: &mut Child,
    perf_data: &Path,
) -> std::io::Result<ExitStatus> {
    if !std::io::stderr().is_terminal() {
        return wrapper.wait();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} recording {elapsed}: {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let root = i32::try_from(wrapper.id()).unwrap_or(i32::MAX);
    let status = loop {
        if let Some(status) = wrapper.try_wait()? {
            break status;
        }
        bar.set_message(line(recording_bytes(perf_data), compile_rss_bytes(root)));
        bar.tick();
        std::thread::sleep(TICK);
    };
    bar.finish_and_clear();
    Ok(status)
}

/// The message: MB written and the compile's RSS.
fn line(written_bytes: u64, rss_bytes: u64) -> String {
    format!(
        "{:.1} MB written, compile RSS {:.0} MB",
        written_bytes as f64 / 1e6,
        rss_bytes as f64 / 1e6
    )
}

/// The resident set of the wrapper's children but perf, with all their
/// descendants (the compile's process tree).
fn compile_rss_bytes(wrapper: i32) -> u64 {
    let mut pending: Vec<i32> = children(wrapper)
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim_end() != "perf")
        })
        .collect();
    let mut pages = 0;
    while let Some(pid) = pending.pop() {
        pages += std::fs::read_to_string(format!("/proc/{pid}/statm"))
            .ok()
            .and_then(|text| text.split_whitespace().nth(1)?.parse::<u64>().ok())
            .unwrap_or(0);
        pending.extend(children(pid));
    }
    pages * page_size()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_gives_megabytes_written_and_the_resident_set() {
        assert_eq!(
            line(12_345_678, 987_000_000),
            "12.3 MB written, compile RSS 987 MB"
        );
    }
}
