//! Progress on stderr for work that takes more than a moment (indicatif):
//! `record`'s live status line, the bytes a big recording's reading has
//! gone through, and the steps of a series (`executables`, `record
//! --repeat`). Everything is drawn only when stderr is a terminal and `-q`
//! was not given, and cleared when the work ends; there is no colour, so
//! `NO_COLOR` holds. Nothing here goes to stdout, where the data goes.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a bar is redrawn when nothing else ticks it.
const TICK: Duration = Duration::from_millis(250);
/// A reading is shown only once it has taken this long: a quick one is
/// over before a bar would be read.
const READING_SHOWN_AFTER: Duration = Duration::from_secs(1);

/// Whether progress is drawn: stderr is a terminal and `quiet` is off.
pub(crate) fn shown(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A bar or a status line on stderr, or nothing when progress is not shown.
pub(crate) struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A status line that only says how long the work has taken and what
    /// the message says (`record`'s line while the compile runs).
    pub(crate) fn status(shown: bool) -> Progress {
        Progress::drawn(
            shown,
            ProgressBar::no_length(),
            "{spinner} {elapsed:>4} {msg}",
        )
    }

    /// Steps of a series: `k/N`, the time left, and the current step's
    /// name as the message (`what` names the steps, e.g. "executables").
    pub(crate) fn steps(shown: bool, total: u64, what: &str) -> Progress {
        let template =
            format!("{{spinner}} {{elapsed:>4}} {{pos}}/{{len}} {what}, ~{{eta}} left: {{msg}}");
        Progress::drawn(shown, ProgressBar::new(total), &template)
    }

    fn drawn(shown: bool, bar: ProgressBar, template: &str) -> Progress {
        if !shown {
            return Progress {
                bar: ProgressBar::hidden(),
            };
        }
        bar.set_draw_target(ProgressDrawTarget::stderr());
        // The templates are constants of this module.
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.enable_steady_tick(TICK);
        Progress { bar }
    }

    /// Replaces the message.
    pub(crate) fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Counts one step done.
    pub(crate) fn step_done(&self) {
        self.bar.inc(1);
    }

    /// Prints `line` above the bar (or plainly on stderr when no bar is
    /// drawn), so that log lines and the bar do not tear each other.
    pub(crate) fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The bytes a reading has gone through, shown on stderr from
/// [`READING_SHOWN_AFTER`] on, as "reading NAME: 123.4/536.0 MB" (with an
/// unknown total, the megabytes read alone), until it is dropped.
pub(crate) struct ReadingBar {
    /// Set when the reading ends, and the drawing thread waiting on it.
    ended: Arc<(Mutex<bool>, Condvar)>,
    drawing: Option<JoinHandle<()>>,
}

impl ReadingBar {
    /// Starts following `read` (of `total` bytes) when `shown`.
    pub(crate) fn start(
        shown: bool,
        name: String,
        read: Arc<AtomicU64>,
        total: Option<u64>,
    ) -> ReadingBar {
        let ended = Arc::new((Mutex::new(false), Condvar::new()));
        let drawing = shown.then(|| {
            let ended = ended.clone();
            std::thread::spawn(move || draw_reading(&ended, &name, &read, total))
        });
        ReadingBar { ended, drawing }
    }
}

impl Drop for ReadingBar {
    fn drop(&mut self) {
        let (done, wake) = &*self.ended;
        *done.lock().unwrap_or_else(PoisonError::into_inner) = true;
        wake.notify_all();
        if let Some(drawing) = self.drawing.take() {
            // A panic while drawing leaves nothing to clean up.
            let _ = drawing.join();
        }
    }
}

/// The drawing thread of a [`ReadingBar`]: waits out the delay, then
/// draws until `ended` is set.
fn draw_reading(ended: &(Mutex<bool>, Condvar), name: &str, read: &AtomicU64, total: Option<u64>) {
    let (done, wake) = ended;
    let guard = done.lock().unwrap_or_else(PoisonError::into_inner);
    let (guard, _) = wake
        .wait_timeout_while(guard, READING_SHOWN_AFTER, |done| !*done)
        .unwrap_or_else(PoisonError::into_inner);
    if *guard {
        return;
    }
    drop(guard);
    let bar = match total {
        Some(total) => Progress::drawn(
            true,
            ProgressBar::new(total),
            &format!(
                "{{spinner}} {{elapsed:>4}} reading {name}: {{bytes}}/{{total_bytes}} \
                 [{{wide_bar}}] ~{{eta}} left"
            ),
        ),
        None => Progress::drawn(
            true,
            ProgressBar::no_length(),
            &format!("{{spinner}} {{elapsed:>4}} reading {name}: {{bytes}}"),
        ),
    };
    let mut guard = done.lock().unwrap_or_else(PoisonError::into_inner);
    while !*guard {
        bar.bar.set_position(read.load(Ordering::Relaxed));
        guard = wake
            .wait_timeout(guard, TICK)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_progress_starts_no_thread_and_draws_nothing() {
        let read = Arc::new(AtomicU64::new(0));
        let bar = ReadingBar::start(false, "perf.data".to_owned(), read.clone(), Some(10));
        assert!(bar.drawing.is_none(), "no thread when not shown");
        read.store(10, Ordering::Relaxed);
        drop(bar);
        let steps = Progress::steps(false, 3, "runs");
        steps.step_done();
        assert!(steps.bar.is_hidden());
    }

    #[test]
    fn a_reading_that_outlasts_the_delay_ends_its_bar_when_dropped() {
        // Drawn to a hidden target: the bar's thread starts, follows the
        // counter and ends when the bar is dropped, without hanging.
        let read = Arc::new(AtomicU64::new(0));
        let bar = ReadingBar::start(true, "perf.data".to_owned(), read.clone(), None);
        for _ in 0..3 {
            read.fetch_add(1 << 20, Ordering::Relaxed);
            std::thread::sleep(READING_SHOWN_AFTER / 2);
        }
        drop(bar);
    }
}
