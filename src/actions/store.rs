//! `actions.bin`: a compile's actions kept compact in the run directory,
//! a few bytes per interval where the profiler's JSON takes about 150. Each
//! thread's intervals are stored as columns (begins as deltas, durations,
//! kinds, names, ops, units, parents as distances back), written with
//! postcard's variable-length integers and compressed with zstd.

use serde::{Deserialize, Serialize};

use super::{ActionKind, Actions, Interval, ThreadActions};

/// The file in the run directory.
pub(crate) const ACTIONS_FILE: &str = "actions.bin";

/// The file's first bytes, with the format's version.
const MAGIC: &[u8; 16] = b"cpactions v1\0\0\0\0";
/// zstd's level: the file is written once per run.
const ZSTD_LEVEL: i32 = 9;

#[derive(Serialize, Deserialize)]
struct Stored {
    names: Vec<String>,
    main_tid: i32,
    units_named: bool,
    threads: Vec<StoredThread>,
}

/// One thread's intervals as columns; optional indexes are stored plus one,
/// 0 for none.
#[derive(Serialize, Deserialize)]
struct StoredThread {
    tid: i32,
    begin_deltas: Vec<u64>,
    durations: Vec<u64>,
    kinds: Vec<u8>,
    names: Vec<u32>,
    ops: Vec<u32>,
    units: Vec<u32>,
    parents_back: Vec<u32>,
}

fn kind_code(kind: ActionKind) -> u8 {
    match kind {
        ActionKind::Pass => 0,
        ActionKind::Pattern => 1,
        ActionKind::Other => 2,
    }
}

fn stored_thread(thread: &ThreadActions) -> StoredThread {
    let mut previous = 0;
    let intervals = &thread.intervals;
    StoredThread {
        tid: thread.tid,
        begin_deltas: intervals
            .iter()
            .map(|interval| {
                let delta = interval.begin_us - previous;
                previous = interval.begin_us;
                delta
            })
            .collect(),
        durations: intervals.iter().map(|i| i.end_us - i.begin_us).collect(),
        kinds: intervals.iter().map(|i| kind_code(i.kind)).collect(),
        names: intervals.iter().map(|i| i.name).collect(),
        ops: intervals
            .iter()
            .map(|i| i.op.map_or(0, |op| op + 1))
            .collect(),
        units: intervals
            .iter()
            .map(|i| i.unit.map_or(0, |unit| unit + 1))
            .collect(),
        parents_back: intervals
            .iter()
            .enumerate()
            .map(|(at, i)| i.parent.map_or(0, |parent| at as u32 - parent))
            .collect(),
    }
}

/// Writes `actions` as the bytes of `actions.bin`.
pub(crate) fn write(actions: &Actions) -> std::io::Result<Vec<u8>> {
    let stored = Stored {
        names: actions.names.clone(),
        main_tid: actions.main_tid,
        units_named: actions.units_named,
        threads: actions.threads.iter().map(stored_thread).collect(),
    };
    let plain = postcard::to_stdvec(&stored).map_err(std::io::Error::other)?;
    let mut bytes = MAGIC.to_vec();
    bytes.extend(zstd::bulk::compress(&plain, ZSTD_LEVEL)?);
    Ok(bytes)
}

/// Reads the bytes of `actions.bin`; the error says what is wrong with them.
pub(crate) fn read(bytes: &[u8]) -> Result<Actions, String> {
    let packed = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or("is not an actions file of this compile-perf")?;
    let plain = zstd::stream::decode_all(packed).map_err(|error| format!("is damaged: {error}"))?;
    let stored: Stored =
        postcard::from_bytes(&plain).map_err(|error| format!("is damaged: {error}"))?;
    let names = stored.names.len() as u32;
    let threads = stored
        .threads
        .into_iter()
        .map(|thread| unpack(thread, names))
        .collect::<Option<Vec<_>>>()
        .ok_or("is damaged: an index is out of range")?;
    Ok(Actions {
        names: stored.names,
        threads,
        main_tid: stored.main_tid,
        units_named: stored.units_named,
    })
}

/// A thread's columns back into intervals; `None` when they disagree in
/// length or an index is out of range.
fn unpack(thread: StoredThread, names: u32) -> Option<ThreadActions> {
    let count = thread.begin_deltas.len();
    let columns = [
        thread.durations.len(),
        thread.kinds.len(),
        thread.names.len(),
        thread.ops.len(),
        thread.units.len(),
        thread.parents_back.len(),
    ];
    if columns.iter().any(|&len| len != count) {
        return None;
    }
    let name = |plus_one: u32| match plus_one {
        0 => Some(None),
        n if n <= names => Some(Some(n - 1)),
        _ => None,
    };
    let mut begin_us = 0u64;
    let mut intervals = Vec::with_capacity(count);
    for at in 0..count {
        begin_us = begin_us.checked_add(thread.begin_deltas[at])?;
        let kind = match thread.kinds[at] {
            0 => ActionKind::Pass,
            1 => ActionKind::Pattern,
            2 => ActionKind::Other,
            _ => return None,
        };
        let parent = match thread.parents_back[at] {
            0 => None,
            back if back as usize <= at => Some(at as u32 - back),
            _ => return None,
        };
        (thread.names[at] < names).then_some(())?;
        intervals.push(Interval {
            begin_us,
            end_us: begin_us.checked_add(thread.durations[at])?,
            kind,
            name: thread.names[at],
            op: name(thread.ops[at])?,
            unit: name(thread.units[at])?,
            parent,
        });
    }
    Some(ThreadActions {
        tid: thread.tid,
        intervals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::parse_trace;

    #[test]
    fn actions_come_back_as_written_and_damage_is_said() {
        let profile = r#"[{"name": "pass-execution", "ph": "B", "tid": 7, "ts": 100, "args": {"desc": "`pass-execution` running `CSEPass` on Operation `func.func`"}},
{"name": "apply-pattern", "ph": "B", "tid": 7, "ts": 110, "args": {"desc": "`apply-pattern pattern: FoldX"}},
{"name": "apply-pattern", "ph": "E", "tid": 7, "ts": 120},
{"name": "pass-execution", "ph": "E", "tid": 7, "ts": 150}]"#;
        let actions = parse_trace(profile.as_bytes()).unwrap().actions;
        let bytes = write(&actions).unwrap();
        assert_eq!(read(&bytes).unwrap(), actions);
        assert!(
            read(&bytes[..bytes.len() - 3])
                .unwrap_err()
                .starts_with("is damaged")
        );
        assert!(read(b"{}").unwrap_err().contains("not an actions file"));
    }
}
