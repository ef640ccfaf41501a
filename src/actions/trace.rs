//! The action profiler's file (`--profile-actions-to`) read into intervals:
//! a JSON list of Chrome trace events, one per line, `B` (begin, with
//! `args.desc`) and `E` (end) on each thread in nesting order. Read line by
//! line, since the file of a large compile holds millions of events; a
//! file cut short (a compile stopped) keeps the events before the cut, and
//! its open intervals end at the thread's last event.

use std::io::BufRead;

use hashbrown::HashMap;
use serde::Deserialize;

use super::{ActionKind, Actions, Interval, NameIndex, ThreadActions};

/// The name of a pattern without a debug name (MLIR prints none).
const UNNAMED_PATTERN: &str = "(a pattern without a debug name)";

/// One event as the profiler writes it.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow)]
    name: &'a str,
    ph: &'a str,
    tid: i32,
    ts: u64,
    #[serde(borrow, default)]
    args: Option<Args<'a>>,
}

#[derive(Deserialize)]
struct Args<'a> {
    #[serde(borrow, default)]
    desc: Option<std::borrow::Cow<'a, str>>,
}

/// The intervals of a profile, and what could not be read of it.
pub(crate) struct Parsed {
    pub actions: Actions,
    /// Begin events read.
    pub begins: u64,
    /// Ends without a begin, and begins never ended.
    pub unpaired: u64,
    /// Lines that were not an event (a cut last line).
    pub unreadable_lines: u64,
}

/// Names interned once each.
#[derive(Default)]
pub(super) struct Names {
    pub(super) names: Vec<String>,
    index: HashMap<String, NameIndex>,
}

impl Names {
    pub(super) fn intern(&mut self, name: &str) -> NameIndex {
        if let Some(&index) = self.index.get(name) {
            return index;
        }
        let index = self.names.len() as NameIndex;
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), index);
        index
    }
}

/// A thread's intervals being read, with the open ones.
#[derive(Default)]
struct OpenThread {
    intervals: Vec<Interval>,
    open: Vec<u32>,
    last_us: u64,
}

/// Reads a profile.
pub(crate) fn parse_trace(reader: impl BufRead) -> std::io::Result<Parsed> {
    let mut names = Names::default();
    let mut threads: HashMap<i32, OpenThread> = HashMap::new();
    let mut order: Vec<i32> = Vec::new();
    let (mut begins, mut unpaired, mut unreadable_lines) = (0, 0, 0);
    for line in reader.split(b'\n') {
        let line = line?;
        let text = trim_event(&line);
        if text.is_empty() {
            continue;
        }
        let Ok(event) = serde_json::from_slice::<Event<'_>>(text) else {
            unreadable_lines += 1;
            continue;
        };
        let thread = threads.entry(event.tid).or_insert_with(|| {
            order.push(event.tid);
            OpenThread::default()
        });
        thread.last_us = thread.last_us.max(event.ts);
        match event.ph {
            "B" => {
                begins += 1;
                let desc = event.args.and_then(|args| args.desc);
                let (kind, name, op) = describe(event.name, desc.as_deref().unwrap_or(""));
                let interval = Interval {
                    begin_us: event.ts,
                    end_us: event.ts,
                    kind,
                    name: names.intern(name),
                    op: op.map(|op| names.intern(op)),
                    unit: None,
                    parent: thread.open.last().copied(),
                };
                thread.open.push(thread.intervals.len() as u32);
                thread.intervals.push(interval);
            }
            "E" => match thread.open.pop() {
                Some(index) => thread.intervals[index as usize].end_us = event.ts,
                None => unpaired += 1,
            },
            _ => unreadable_lines += 1,
        }
    }
    let main_tid = order.first().copied().unwrap_or_default();
    let threads = order
        .into_iter()
        .map(|tid| {
            let mut thread = threads.remove(&tid).unwrap_or_default();
            for index in thread.open.drain(..) {
                unpaired += 1;
                thread.intervals[index as usize].end_us = thread.last_us;
            }
            ThreadActions {
                tid,
                intervals: thread.intervals,
            }
        })
        .collect();
    Ok(Parsed {
        actions: Actions {
            names: names.names,
            threads,
            main_tid,
            units_named: false,
        },
        begins,
        unpaired,
        unreadable_lines,
    })
}

/// One line of the list without the list's `[`, `]` and separating `,`.
fn trim_event(line: &[u8]) -> &[u8] {
    let line = line.trim_ascii();
    let line = line.strip_prefix(b"[").unwrap_or(line);
    let line = line.strip_suffix(b"]").unwrap_or(line);
    let line = line.strip_suffix(b",").unwrap_or(line);
    line.trim_ascii()
}

/// The kind, name and op of an action, from its tag and description:
/// ``"`pass-execution` running `CSEPass` on Operation `func.func`"`` and
/// ``"`apply-pattern pattern: mlir::(anonymous namespace)::FoldX"``.
pub(super) fn describe<'a>(tag: &'a str, desc: &'a str) -> (ActionKind, &'a str, Option<&'a str>) {
    match tag {
        "pass-execution" => {
            let pass = between(desc, "running `", "`");
            let op = between(desc, "on Operation `", "`");
            match pass {
                Some(pass) => (ActionKind::Pass, pass, op),
                None => (ActionKind::Other, tag, None),
            }
        }
        "apply-pattern" => match desc.split_once("pattern: ") {
            Some((_, pattern)) => match pattern.trim_end_matches('`').trim() {
                "" => (ActionKind::Pattern, UNNAMED_PATTERN, None),
                pattern => (ActionKind::Pattern, pattern, None),
            },
            None => (ActionKind::Other, tag, None),
        },
        _ => (ActionKind::Other, tag, None),
    }
}

/// The text of `text` between the first `open` and the next `close`.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let (_, rest) = text.split_once(open)?;
    Some(rest.split_once(close)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = r#"[{"name": "pass-execution", "cat": "PERF", "ph": "B", "pid": 0, "tid": 7, "ts": 100, "args": {"desc": "`pass-execution` running `CSEPass` on Operation `func.func`"}},
{"name": "apply-pattern", "cat": "PERF", "ph": "B", "pid": 0, "tid": 7, "ts": 110, "args": {"desc": "`apply-pattern pattern: mlir::(anonymous namespace)::FoldX"}},
{"name": "apply-pattern", "cat": "PERF", "ph": "E", "pid": 0, "tid": 7, "ts": 120},
{"name": "pass-execution", "cat": "PERF", "ph": "B", "pid": 0, "tid": 9, "ts": 105, "args": {"desc": "`pass-execution` running `Inliner` on Operation `builtin.module`"}},
{"name": "pass-execution", "cat": "PERF", "ph": "E", "pid": 0, "tid": 7, "ts": 150},
{"name": "GreedyPatternRewriteIteration", "cat": "PERF", "ph": "B", "pid": 0, "tid": 9, "ts": 160, "args": {"desc": "GreedyPatternRewriteIteration(1)"}},
{"name": "pass-execution", "cat": "PE"#;

    #[test]
    fn a_profile_becomes_nested_intervals_and_a_cut_is_counted() {
        let parsed = parse_trace(PROFILE.as_bytes()).unwrap();
        let actions = &parsed.actions;
        assert_eq!(actions.main_tid, 7);
        assert_eq!(parsed.begins, 4);
        assert_eq!(parsed.unreadable_lines, 1);
        // Thread 9's pass and iteration were never ended.
        assert_eq!(parsed.unpaired, 2);
        let main = actions.thread(7).unwrap();
        assert_eq!(main.intervals.len(), 2);
        let (pass, pattern) = (&main.intervals[0], &main.intervals[1]);
        assert_eq!(
            (pass.kind, actions.name(pass.name)),
            (ActionKind::Pass, "CSEPass")
        );
        assert_eq!(actions.name(pass.op.unwrap()), "func.func");
        assert_eq!((pass.begin_us, pass.end_us), (100, 150));
        assert_eq!(pattern.kind, ActionKind::Pattern);
        assert_eq!(
            actions.name(pattern.name),
            "mlir::(anonymous namespace)::FoldX"
        );
        assert_eq!(pattern.parent, Some(0));
        let worker = actions.thread(9).unwrap();
        assert_eq!(worker.intervals[1].parent, Some(0));
        assert_eq!(worker.intervals[0].end_us, 160);
    }
}
