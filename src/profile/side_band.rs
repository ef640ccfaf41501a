//! The side-band records of a recording's streams, kept from the first
//! pass of a two-pass read ([`super::streams`]): threads named, processes
//! forked, binaries mapped, losses; and the same record carried by more
//! than one stream kept once.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::Loss;
use perfdata::{Record, StreamKey};

/// A thread named, or a process's exec (a COMM record).
#[derive(PartialEq, Hash)]
pub(super) struct Comm {
    pub(super) pid: i32,
    pub(super) tid: i32,
    pub(super) name: String,
    pub(super) is_exec: bool,
}

/// A process or thread forked (a FORK record).
#[derive(PartialEq, Hash)]
pub(super) struct Fork {
    pub(super) pid: i32,
    pub(super) ppid: i32,
    pub(super) tid: i32,
    pub(super) parent_tid: i32,
}

/// A side-band record of one stream, kept from the first pass.
#[derive(PartialEq, Hash)]
pub(super) enum SideBand {
    Comm(Comm),
    Fork(Fork),
    Mmap {
        pid: i32,
        start: u64,
        len: u64,
        file_offset: u64,
        path: String,
        build_id: Option<Vec<u8>>,
        is_kernel: bool,
    },
    Lost(Loss),
    LostSamples(u64),
}

/// The side-band record `record` is, kept; `None` for a sample.
pub(super) fn side_band_of(record: Record<'_>) -> Option<SideBand> {
    Some(match record {
        Record::Sample(_) => return None,
        Record::Comm {
            pid,
            tid,
            name,
            is_exec,
        } => SideBand::Comm(Comm {
            pid,
            tid,
            name: String::from_utf8_lossy(name).into_owned(),
            is_exec,
        }),
        Record::Fork {
            pid,
            ppid,
            tid,
            parent_tid,
        } => SideBand::Fork(Fork {
            pid,
            ppid,
            tid,
            parent_tid,
        }),
        Record::Mmap(mapping) => SideBand::Mmap {
            pid: mapping.pid,
            start: mapping.start,
            len: mapping.len,
            file_offset: mapping.file_offset,
            path: String::from_utf8_lossy(mapping.path).into_owned(),
            build_id: mapping.build_id,
            is_kernel: mapping.is_kernel,
        },
        Record::Lost { count, time, cpu } => SideBand::Lost(Loss { time, cpu, count }),
        Record::LostSamples { count, .. } => SideBand::LostSamples(count),
    })
}

/// `side_bands` (in time order) without the process events that repeat
/// one at the same time in another stream: a thread named, forked or
/// mapped once is that once, whichever streams carry it. (Each stream
/// replays the process model, so one that grew with each copy of a record,
/// as `scripts/scale-curve.sh --repeat` copies streams, would cost the
/// streams times the copies.) Losses all count: CPUs may lose alike at once.
pub(super) fn without_repeats(
    side_bands: Vec<(StreamKey, SideBand)>,
) -> Vec<(StreamKey, SideBand)> {
    let mut kept: Vec<(StreamKey, SideBand)> = Vec::with_capacity(side_bands.len());
    // The process events kept at the current time, by their hash.
    let mut at_time: HashTable<usize> = HashTable::new();
    let hasher = DefaultHashBuilder::default();
    for (key, side_band) in side_bands {
        if kept.last().is_some_and(|(last, _)| last.time != key.time) {
            at_time.clear();
        }
        if matches!(side_band, SideBand::Lost(_) | SideBand::LostSamples(_)) {
            kept.push((key, side_band));
            continue;
        }
        let hash = hasher.hash_one(&side_band);
        let same = |&at: &usize| kept[at].0.stream != key.stream && kept[at].1 == side_band;
        if at_time.find(hash, same).is_none() {
            at_time.insert_unique(hash, kept.len(), |&at| hasher.hash_one(&kept[at].1));
            kept.push((key, side_band));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: u64, stream: u32, place: u64) -> StreamKey {
        StreamKey {
            time,
            stream,
            place,
        }
    }

    fn comm(tid: i32) -> SideBand {
        SideBand::Comm(Comm {
            pid: 7,
            tid,
            name: "llvm-worker-0".to_owned(),
            is_exec: false,
        })
    }

    #[test]
    fn a_record_another_stream_repeats_at_the_same_time_is_kept_once() {
        let loss = || {
            SideBand::Lost(Loss {
                time: Some(5),
                cpu: Some(0),
                count: 3,
            })
        };
        let kept = without_repeats(vec![
            (key(5, 1, 0), comm(8)),
            (key(5, 1, 1), loss()),
            (key(5, 2, 0), comm(8)),
            (key(5, 2, 1), loss()),
            (key(5, 2, 2), comm(9)),
            (key(5, 2, 3), comm(9)),
            (key(6, 3, 0), comm(8)),
        ]);
        let places: Vec<StreamKey> = kept.iter().map(|(key, _)| *key).collect();
        assert_eq!(
            places,
            [
                key(5, 1, 0),
                key(5, 1, 1),
                key(5, 2, 1),
                key(5, 2, 2),
                key(5, 2, 3),
                key(6, 3, 0)
            ],
            "the repeat in stream 2 goes; losses, repeats within a stream and later times stay"
        );
    }
}
