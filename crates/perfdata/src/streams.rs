//! Each record stream of a recording read on its own, as many at once as
//! the caller's jobs allow, instead of merged in time order: for a reader
//! that makes what it can of each stream alone (the unwinding, once the
//! process model of every stream is known) and merges only the small
//! results. A stream's records come in its own order, each with its
//! [`StreamKey`], by which the caller puts the streams' results in one
//! time order that does not depend on how many read at once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::convert::deliver;
use super::reader::{ReadEnd, RecordReader};
use super::records::Record;

/// Where a record lies in the time order of the whole recording: its time
/// (the last time its stream gave before it, for a record without one),
/// its stream, and its place among the stream's records. Sorting by it
/// gives the same order for every number of jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamKey {
    /// perf's timestamp, in nanoseconds.
    pub time: u64,
    /// The stream: 0 for a single file, or a directory's header file; 1…
    /// for its `data.N` files in the order of N.
    pub stream: u32,
    /// The record's place in its stream, from 0.
    pub place: u64,
}

/// What a reader of each stream on its own does: `start` makes a
/// stream's state (given its number), `visit` gets each of its records in
/// the stream's order, `finish` turns the state into what is kept of the
/// stream once it is read.
pub struct EachStream<S, V, F> {
    /// Makes a stream's state from its number.
    pub start: S,
    /// Gets each record of the stream, in the stream's order, with its key.
    pub visit: V,
    /// Turns a stream's state into what is kept of it, once it is read.
    pub finish: F,
}

/// Reads each of `readers` on its own, at most `jobs` at once, as `each`
/// says. Returns what is kept of each stream and how it ended, in stream
/// order.
pub(super) fn read_each<T, K: Send>(
    mut readers: Vec<&mut RecordReader>,
    jobs: usize,
    each: &EachStream<
        impl Fn(u32) -> T + Sync,
        impl Fn(&mut T, StreamKey, Record<'_>) + Sync,
        impl Fn(T) -> K + Sync,
    >,
) -> Vec<(K, ReadEnd)> {
    let count = readers.len();
    for reader in &mut readers {
        // With no more jobs than streams, every job's thread reads a
        // stream and decompresses it too: `jobs` threads in all.
        reader.lookahead.decompress_ahead = jobs > count;
    }
    let waiting: Vec<Mutex<Option<&mut RecordReader>>> =
        readers.into_iter().map(|r| Mutex::new(Some(r))).collect();
    let done: Vec<Mutex<Option<(K, ReadEnd)>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let stream = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = waiting.get(stream) else {
                break;
            };
            let reader = lock(slot).take().expect("each stream is taken once");
            let (state, end) = read_one(reader, stream as u32, &each.start, &each.visit);
            *lock(&done[stream]) = Some(((each.finish)(state), end));
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..jobs.clamp(1, count.max(1)) {
            scope.spawn(work);
        }
        work();
    });
    done.into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .expect("every stream was read")
        })
        .collect()
}

/// Reads one stream into its state.
fn read_one<T>(
    reader: &mut RecordReader,
    stream: u32,
    start: &impl Fn(u32) -> T,
    visit: &impl Fn(&mut T, StreamKey, Record<'_>),
) -> (T, ReadEnd) {
    let mut state = start(stream);
    let mut key = StreamKey {
        time: 0,
        stream,
        place: 0,
    };
    let end = reader.for_each(|attr_index, record, _| {
        key.time = record.timestamp().unwrap_or(key.time);
        let result = deliver(attr_index, &record, &mut |record| {
            visit(&mut state, key, record)
        });
        key.place += 1;
        result
    });
    (state, end)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
