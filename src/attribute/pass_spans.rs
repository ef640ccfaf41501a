//! Pass spans: a run of a thread's consecutive samples whose stacks pass
//! through the same pass frame. Nested passes give nested spans; a sample
//! without the pass ends its span. A span lasts from its first sample to
//! one sampling period after its last. The exports' trace events and the
//! RSS joined with passes (`rss.rs`) are made from them.

use hashbrown::HashMap;

use super::PassId;
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

/// The spans of samples given in time order as (thread, time, passes
/// outermost first), each lasting `period` nanoseconds; inner spans come
/// before the spans that hold them.
pub(crate) fn spans<'a>(
    timed: impl Iterator<Item = (ThreadId, u64, &'a [PassId])>,
    period: u64,
) -> Vec<PassSpan> {
    let mut open: HashMap<ThreadId, Vec<PassSpan>> = HashMap::new();
    let mut spans = Vec::new();
    for (thread, time, passes) in timed {
        let running = open.entry(thread).or_default();
        let kept = running
            .iter()
            .zip(passes)
            .take_while(|(span, pass)| span.pass == **pass)
            .count();
        spans.extend(running.drain(kept..).rev());
        for span in running.iter_mut() {
            span.end = time + period;
            span.samples += 1;
        }
        for (depth, &pass) in passes.iter().enumerate().skip(kept) {
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

/// `spans` made to nest, as trace viewers need them, and ordered for them:
/// by thread, then start, a parent before the child that starts with it.
/// On each thread a span is cut back to end where the next span of its
/// depth or of a shallower one starts (a span lasts one period past its
/// last sample, and the next one's first sample may come sooner), and a
/// child to end with its parent. Starts and sample counts do not change.
pub(crate) fn nested(mut spans: Vec<PassSpan>) -> Vec<PassSpan> {
    spans.sort_by_key(|span| (span.thread, span.start, span.depth));
    // Indices into `spans` of the spans open on the current thread,
    // outermost first.
    let mut open: Vec<usize> = Vec::new();
    for index in 0..spans.len() {
        let (thread, start, depth) = (spans[index].thread, spans[index].start, spans[index].depth);
        if open
            .first()
            .is_some_and(|&first| spans[first].thread != thread)
        {
            open.clear();
        }
        while let Some(&last) = open.last() {
            let ended = spans[last].end <= start;
            if !ended && spans[last].depth < depth {
                break;
            }
            spans[last].end = spans[last].end.min(start);
            open.pop();
        }
        if let Some(&parent) = open.last() {
            spans[index].end = spans[index].end.min(spans[parent].end);
        }
        open.push(index);
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(
        thread: usize,
        pass: usize,
        depth: usize,
        start: u64,
        end: u64,
        samples: u64,
    ) -> PassSpan {
        PassSpan {
            thread: ThreadId::new(thread),
            pass: PassId::new(pass),
            depth,
            start,
            end,
            samples,
        }
    }

    #[test]
    fn consecutive_samples_through_a_pass_make_one_span_per_thread() {
        let (outer, inner, other) = (PassId::new(0), PassId::new(1), PassId::new(2));
        let (main, worker) = (ThreadId::new(0), ThreadId::new(1));
        let timed: Vec<(ThreadId, u64, Vec<PassId>)> = vec![
            (main, 10, vec![outer]),
            (worker, 11, vec![other]),
            (main, 20, vec![outer, inner]),
            (main, 30, vec![outer, inner]),
            (worker, 31, vec![]),
            (main, 40, vec![outer]),
            (main, 50, vec![]),
            (main, 60, vec![outer]),
        ];
        let made = spans(
            timed
                .iter()
                .map(|(thread, time, passes)| (*thread, *time, passes.as_slice())),
            2,
        );
        assert_eq!(
            made,
            vec![
                // The worker's pass ends at its sample without one.
                span(1, 2, 0, 11, 13, 1),
                // The nested pass ends when the stack leaves it, its parent
                // when a sample outside every pass comes.
                span(0, 1, 1, 20, 32, 2),
                span(0, 0, 0, 10, 42, 4),
                // The same pass again after a gap is a new span.
                span(0, 0, 0, 60, 62, 1),
            ]
        );
    }

    #[test]
    fn nested_spans_end_where_the_next_begins_and_parents_come_first() {
        let made = nested(vec![
            // A child that starts with its parent, listed first as spans()
            // lists it, and runs past the parent's end.
            span(0, 1, 1, 10, 45, 3),
            span(0, 0, 0, 10, 42, 4),
            // The next outermost span starts before the last one ended.
            span(0, 2, 0, 40, 60, 2),
            // Its child overlaps a sibling that starts before it ends.
            span(0, 3, 1, 40, 52, 1),
            span(0, 4, 1, 50, 60, 1),
            // Another thread is left as it is.
            span(1, 5, 0, 15, 70, 5),
        ]);
        assert_eq!(
            made,
            vec![
                span(0, 0, 0, 10, 40, 4),
                span(0, 1, 1, 10, 40, 3),
                span(0, 2, 0, 40, 60, 2),
                span(0, 3, 1, 40, 50, 1),
                span(0, 4, 1, 50, 60, 1),
                span(1, 5, 0, 15, 70, 5),
            ]
        );
        for pair in made.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.thread == b.thread && b.start < a.end {
                assert!(
                    b.depth > a.depth && b.end <= a.end,
                    "{a:?} and {b:?} overlap"
                );
            }
        }
    }
}
