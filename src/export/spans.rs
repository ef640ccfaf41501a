//! Pass spans: a run of a thread's consecutive samples whose stacks pass
//! through the same pass frame. Nested passes give nested spans; a sample
//! without the pass ends its span. A span lasts from its first sample to
//! one sampling period after its last.

use hashbrown::HashMap;

use super::Samples;
use crate::attribute::PassId;
use crate::process::ThreadId;

/// One pass span.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PassSpan {
    pub thread: ThreadId,
    pub pass: PassId,
    /// How many passes enclose it on the stack (0: outermost).
    pub depth: usize,
    /// perf's timestamps, in nanoseconds.
    pub start: u64,
    pub end: u64,
    /// The samples in the span.
    pub samples: u64,
}

/// The pass spans of every thread, in the order they end.
pub(crate) fn pass_spans(samples: &Samples<'_>) -> Vec<PassSpan> {
    let period = samples.nanoseconds_per_sample().unwrap_or(0.0).round() as u64;
    let mut open: HashMap<ThreadId, Vec<PassSpan>> = HashMap::new();
    let mut spans = Vec::new();
    for &(time, at) in &samples.timed {
        let stack = &samples.stacks[at];
        let thread = stack.key.thread;
        let running = open.entry(thread).or_default();
        let kept = running
            .iter()
            .zip(&stack.passes)
            .take_while(|(span, pass)| span.pass == **pass)
            .count();
        spans.extend(running.drain(kept..).rev());
        for span in running.iter_mut() {
            span.end = time + period;
            span.samples += 1;
        }
        for (depth, &pass) in stack.passes.iter().enumerate().skip(kept) {
            running.push(PassSpan {
                thread,
                pass,
                depth,
                start: time,
                end: time + period,
                samples: 1,
            });
        }
    }
    let mut threads: Vec<_> = open.into_iter().collect();
    threads.sort_by_key(|(thread, _)| *thread);
    for (_, running) in threads {
        spans.extend(running.into_iter().rev());
    }
    spans
}
