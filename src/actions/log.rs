//! The action log (`--log-actions-to`) read for the IR unit of each pass
//! run: its lines ``[thread NAME] begins (no breakpoint) Action
//! `pass-execution` running `X` on Operation `Y` (Y private @name {...})``
//! name the unit the profile's `pass-execution` only gives the op of.
//!
//! The log names threads by name and the profile by id, and threads write
//! into it at once (a line can be cut by another thread's), so the two are
//! joined by content: each log thread's sequence of pass runs is aligned
//! with the profile thread's whose sequence it matches best, pass and op
//! equal, skipping what either lacks.

use hashbrown::HashMap;
use memchr::memmem;

use super::{ActionKind, Actions, NameIndex};

/// What the log says of one pass run.
#[derive(Debug, PartialEq, Eq)]
struct LoggedPass<'a> {
    pass: &'a str,
    op: &'a str,
    /// `op @name`, or `op` for an op without a symbol name; `None` when the
    /// line was cut.
    unit: Option<String>,
}

/// How far ahead a mismatch looks for the pass run it is missing.
const LOOKAHEAD: usize = 16;

/// Names the unit of each pass interval of `actions` from `log`; returns
/// how many were named and how many not.
pub(crate) fn name_units(actions: &mut Actions, log: &[u8]) -> (u64, u64) {
    let text = String::from_utf8_lossy(log);
    let logged = logged_passes(&text);
    let mut index: HashMap<String, NameIndex> = actions
        .names
        .iter()
        .enumerate()
        .map(|(at, name)| (name.clone(), at as NameIndex))
        .collect();
    // Each profile thread's pass intervals, as (pass, op).
    let profile_passes: Vec<Vec<(usize, &str, &str)>> = actions
        .threads
        .iter()
        .map(|thread| {
            thread
                .intervals
                .iter()
                .enumerate()
                .filter(|(_, interval)| interval.kind == ActionKind::Pass)
                .map(|(at, interval)| {
                    let op = interval.op.map_or("", |op| actions.name(op));
                    (at, actions.name(interval.name), op)
                })
                .collect()
        })
        .collect();
    let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
    for (thread_at, passes) in profile_passes.iter().enumerate() {
        for (log_at, (_, log_passes)) in logged.iter().enumerate() {
            let score = align(passes, log_passes).len();
            pairs.push((score, thread_at, log_at));
        }
    }
    pairs.sort_by(|a, b| b.cmp(a));
    let log_threads: Vec<&Vec<LoggedPass<'_>>> = logged.iter().map(|(_, passes)| passes).collect();
    let (mut thread_taken, mut log_taken) = (
        vec![false; profile_passes.len()],
        vec![false; log_threads.len()],
    );
    let mut units: Vec<(usize, usize, String)> = Vec::new();
    for (score, thread_at, log_at) in pairs {
        if score == 0 || thread_taken[thread_at] || log_taken[log_at] {
            continue;
        }
        thread_taken[thread_at] = true;
        log_taken[log_at] = true;
        let passes = &profile_passes[thread_at];
        for (profile_at, log_index) in align(passes, log_threads[log_at]) {
            if let Some(unit) = &log_threads[log_at][log_index].unit {
                units.push((thread_at, passes[profile_at].0, unit.clone()));
            }
        }
    }
    let named = units.len() as u64;
    let all: u64 = profile_passes
        .iter()
        .map(|passes| passes.len() as u64)
        .sum();
    for (thread_at, interval_at, unit) in units {
        let next = actions.names.len() as NameIndex;
        let name = *index.entry(unit.clone()).or_insert_with(|| {
            actions.names.push(unit);
            next
        });
        actions.threads[thread_at].intervals[interval_at].unit = Some(name);
    }
    actions.units_named = named > 0;
    (named, all - named)
}

/// Pairs of (profile index, log index) whose pass and op agree, in order:
/// a mismatch skips the log's runs up to the next that agrees, within
/// [`LOOKAHEAD`], or else the profile's run.
fn align(profile: &[(usize, &str, &str)], log: &[LoggedPass<'_>]) -> Vec<(usize, usize)> {
    let agree = |at: usize, log_at: usize| {
        profile[at].1 == log[log_at].pass && profile[at].2 == log[log_at].op
    };
    let (mut at, mut log_at) = (0, 0);
    let mut pairs = Vec::new();
    while at < profile.len() && log_at < log.len() {
        if agree(at, log_at) {
            pairs.push((at, log_at));
            at += 1;
            log_at += 1;
            continue;
        }
        match (log_at + 1..log.len().min(log_at + 1 + LOOKAHEAD)).find(|&ahead| agree(at, ahead)) {
            Some(ahead) => log_at = ahead,
            None => at += 1,
        }
    }
    pairs
}

/// The pass runs of the log, per thread name (in the order threads first
/// appear).
fn logged_passes(text: &str) -> Vec<(&str, Vec<LoggedPass<'_>>)> {
    const MARK: &str = "] begins (no breakpoint) Action `pass-execution` running `";
    let mut threads: Vec<(&str, Vec<LoggedPass<'_>>)> = Vec::new();
    for at in memmem::find_iter(text.as_bytes(), MARK.as_bytes()) {
        let Some(open) = text[..at].rfind("[thread ") else {
            continue;
        };
        let thread = &text[open + "[thread ".len()..at];
        let rest = &text[at + MARK.len()..];
        let Some((pass, rest)) = rest.split_once("` on Operation `") else {
            continue;
        };
        let Some((op, rest)) = rest.split_once("` (") else {
            continue;
        };
        let logged = LoggedPass {
            pass,
            op,
            unit: unit_of(op, rest),
        };
        match threads.iter_mut().find(|(known, _)| *known == thread) {
            Some((_, passes)) => passes.push(logged),
            None => threads.push((thread, vec![logged])),
        }
    }
    threads
}

/// The unit an op's printed text names: `op @symbol`, or `op` alone.
fn unit_of(op: &str, printed: &str) -> Option<String> {
    let printed = printed.lines().next().unwrap_or("");
    // `builtin.module` prints as `module`.
    let rest = printed.strip_prefix(op).or_else(|| {
        op.strip_prefix("builtin.")
            .and_then(|short| printed.strip_prefix(short))
    })?;
    let head = rest.split(['{', '(', '<']).next().unwrap_or("");
    Some(
        match head.split_whitespace().find(|word| word.starts_with('@')) {
            Some(symbol) => format!("{op} {symbol}"),
            None => op.to_owned(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::parse_trace;

    const PROFILE: &str = r#"[{"name": "pass-execution", "ph": "B", "tid": 7, "ts": 1, "args": {"desc": "`pass-execution` running `Inliner` on Operation `builtin.module`"}},
{"name": "pass-execution", "ph": "E", "tid": 7, "ts": 2},
{"name": "pass-execution", "ph": "B", "tid": 8, "ts": 3, "args": {"desc": "`pass-execution` running `TranslatePass` on Operation `hal.executable`"}},
{"name": "pass-execution", "ph": "E", "tid": 8, "ts": 4},
{"name": "pass-execution", "ph": "B", "tid": 8, "ts": 5, "args": {"desc": "`pass-execution` running `TranslatePass` on Operation `hal.executable`"}},
{"name": "pass-execution", "ph": "E", "tid": 8, "ts": 6},
{"name": "pass-execution", "ph": "B", "tid": 7, "ts": 7, "args": {"desc": "`pass-execution` running `CSEPass` on Operation `util.initializer`"}},
{"name": "pass-execution", "ph": "E", "tid": 7, "ts": 8}]"#;

    const LOG: &str = "[thread iree-compile] begins (no breakpoint) Action `pass-execution` running `Inliner` on Operation `builtin.module` (module {...})`
[thread iree-compile] completed `pass-execution`
[thread llvm-worker-0] begins (no breakpoint) Action `pass-execution` running `TranslatePass` on Operation `hal.executable` ([thread llvm-worker-0] begins (no breakpoint) Action `pass-execution` running `TranslatePass` on Operation `hal.executable` (hal.executable private @main_dispatch_1 {...})`
[thread iree-compile] begins (no breakpoint) Action `pass-execution` running `CSEPass` on Operation `util.initializer` (util.initializer {...})`
";

    #[test]
    fn units_are_named_by_thread_and_order_and_a_cut_line_is_unnamed() {
        let mut actions = parse_trace(PROFILE.as_bytes()).unwrap().actions;
        let (named, unnamed) = name_units(&mut actions, LOG.as_bytes());
        assert_eq!((named, unnamed), (3, 1));
        let unit = |tid: i32, at: usize| {
            let interval = actions.thread(tid).unwrap().intervals[at];
            interval.unit.map(|unit| actions.name(unit).to_owned())
        };
        assert_eq!(unit(7, 0).as_deref(), Some("builtin.module"));
        assert_eq!(unit(7, 1).as_deref(), Some("util.initializer"));
        assert_eq!(unit(8, 0), None);
        assert_eq!(
            unit(8, 1).as_deref(),
            Some("hal.executable @main_dispatch_1")
        );
    }

    #[test]
    fn a_symbol_name_is_taken_before_the_body() {
        assert_eq!(
            unit_of("func.func", "func.func @f(%arg0: tensor<4xf32>) {...})`").as_deref(),
            Some("func.func @f")
        );
        assert_eq!(unit_of("hal.executable", "[thread x] begins"), None);
    }
}
