//! Chrome's Trace Event format (JSON): the pass spans as complete events
//! (`ph: "X"`), one row per thread, named by process and thread metadata
//! events. Perfetto (ui.perfetto.dev) and Chromium's DevTools Performance
//! panel open it. The spans of a thread nest (no partial overlaps, a parent
//! before the child that starts with it), since the viewers drop or
//! misplace slices that do not; each carries its samples and the CPU time
//! they stand for. Times are microseconds from the first sample kept.

use std::io::{self, Write};

use serde::Serialize;

use super::Samples;
use super::spans::pass_spans;
use crate::attribute::pass_spans::nested;

/// The trace file.
#[derive(Serialize)]
struct Trace {
    #[serde(rename = "traceEvents")]
    trace_events: Vec<Event>,
    #[serde(rename = "displayTimeUnit")]
    display_time_unit: &'static str,
    #[serde(rename = "otherData")]
    other_data: OtherData,
}

/// What was profiled.
#[derive(Serialize)]
struct OtherData {
    command: String,
    samples: u64,
}

/// One trace event.
#[derive(Serialize)]
struct Event {
    name: String,
    ph: &'static str,
    pid: i32,
    tid: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    args: EventArgs,
}

/// What an event carries besides its name and times: a pass span's
/// samples, or a process's or thread's name.
#[derive(Serialize)]
#[serde(untagged)]
enum EventArgs {
    Span {
        cpu_seconds: f64,
        depth: usize,
        samples: u64,
    },
    Name {
        name: String,
    },
}

/// Writes the pass spans of `samples` as a trace.
pub(crate) fn write(samples: &Samples<'_>, out: &mut dyn Write) -> io::Result<()> {
    let processes = &samples.profile.processes;
    let origin = samples.first_time();
    let micros = |nanos: u64| nanos.saturating_sub(origin) as f64 / 1e3;
    let mut events = Vec::new();
    let mut threads: Vec<_> = samples
        .stacks
        .iter()
        .map(|stack| stack.key.thread)
        .collect();
    threads.sort_unstable();
    threads.dedup();
    let mut named_processes = Vec::new();
    for &thread in &threads {
        let (process, pid) = samples.process_of(thread);
        let tid = processes.thread(thread).tid;
        if !named_processes.contains(&pid) {
            named_processes.push(pid);
            events.push(metadata("process_name", pid, pid, process));
        }
        events.push(metadata(
            "thread_name",
            pid,
            tid,
            samples.thread_name(thread),
        ));
    }
    let sample_seconds = samples.nanoseconds_per_sample().unwrap_or(0.0) / 1e9;
    for span in nested(pass_spans(samples)) {
        let (_, pid) = samples.process_of(span.thread);
        events.push(Event {
            name: samples.classes.passes.name(span.pass).to_owned(),
            ph: "X",
            pid,
            tid: processes.thread(span.thread).tid,
            cat: Some("pass"),
            ts: Some(micros(span.start)),
            dur: Some((span.end - span.start) as f64 / 1e3),
            args: EventArgs::Span {
                cpu_seconds: span.samples as f64 * sample_seconds,
                depth: span.depth,
                samples: span.samples,
            },
        });
    }
    let trace = Trace {
        trace_events: events,
        display_time_unit: "ms",
        other_data: OtherData {
            command: samples.profile.profiled_command(),
            samples: samples.total,
        },
    };
    serde_json::to_writer(&mut *out, &trace)?;
    writeln!(out)
}

/// A metadata event naming a process or a thread.
fn metadata(kind: &str, pid: i32, tid: i32, name: &str) -> Event {
    Event {
        name: kind.to_owned(),
        ph: "M",
        pid,
        tid,
        cat: None,
        ts: None,
        dur: None,
        args: EventArgs::Name {
            name: name.to_owned(),
        },
    }
}
