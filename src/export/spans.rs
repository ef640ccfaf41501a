//! The pass spans of the samples an export keeps (see
//! [`crate::attribute::pass_spans`]).

use super::Samples;
use crate::attribute::pass_spans::{PassSpan, spans};

/// The pass spans of every thread of `samples`.
pub(crate) fn pass_spans(samples: &Samples<'_>) -> Vec<PassSpan> {
    let period = samples.nanoseconds_per_sample().unwrap_or(0.0).round() as u64;
    spans(
        samples.timed.iter().map(|&(time, at)| {
            let stack = &samples.stacks[at];
            (stack.key.thread, time, stack.passes.as_slice())
        }),
        period,
    )
}
