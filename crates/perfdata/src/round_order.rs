//! perf's order of records: by time, each FINISHED_ROUND releasing the
//! records no later record can precede; and where each record lies, which
//! orders records of equal time and names them in messages.

use std::fmt;

use super::chunks::ChunkAt;
use super::record_header::Header;

/// Where a record's bytes are, which also orders records of equal time:
/// decompressed records first (as linux-perf-data orders them), then in
/// the order they were read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Place {
    Decompressed(ChunkAt),
    /// At this offset of the mapped file.
    File(usize),
    /// In the chunks of the stream.
    Stream(ChunkAt),
}

/// Where a record was found, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// At this byte of the file, or of the stream.
    Top { offset: u64, stream: bool },
    /// At byte `within` of the bytes decompressed from the compressed
    /// record at `record`.
    Decompressed {
        record: u64,
        within: u64,
        stream: bool,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = |stream: bool| if stream { "stream" } else { "file" };
        match *self {
            Origin::Top { offset, stream } => {
                write!(out, "at byte {offset} of the {}", whole(stream))
            }
            Origin::Decompressed {
                record,
                within,
                stream,
            } => write!(
                out,
                "at byte {within} of the data decompressed from the compressed record at byte \
                 {record} of the {}",
                whole(stream)
            ),
        }
    }
}

/// A record's place in perf's order: its time (records without one first),
/// then its place.
pub(super) type SortKey = (Option<u64>, Place);

/// A record read but not yet handed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pending {
    pub(super) key: SortKey,
    pub(super) attr_index: usize,
    pub(super) header: Header,
    pub(super) origin: Origin,
}

/// Puts records in perf's time order. perf writes each CPU's buffer in
/// turn, so records arrive out of order, and marks with FINISHED_ROUND the
/// points after which no record is older than anything before the previous
/// mark: a round's records can be handed on once the next round has ended.
#[derive(Default)]
pub(super) struct RoundOrder {
    pub(super) pending: Vec<Pending>,
    /// The latest key seen before the last FINISHED_ROUND.
    pub(super) previous_round_max: Option<SortKey>,
    pub(super) max_seen: Option<SortKey>,
}

impl RoundOrder {
    pub(super) fn push(&mut self, record: Pending) {
        self.max_seen = self.max_seen.max(Some(record.key));
        self.pending.push(record);
    }

    /// At a FINISHED_ROUND: the records no later record can precede, in order.
    pub(super) fn finish_round(&mut self) -> std::vec::Drain<'_, Pending> {
        self.pending.sort_unstable_by_key(|record| record.key);
        let limit = self.previous_round_max;
        let ready = self
            .pending
            .partition_point(|record| Some(record.key) <= limit);
        self.previous_round_max = self.max_seen;
        self.pending.drain(..ready)
    }

    /// At the end: every record left, in order.
    pub(super) fn finish(&mut self) -> std::vec::Drain<'_, Pending> {
        self.pending.sort_unstable_by_key(|record| record.key);
        self.pending.drain(..)
    }

    /// The smallest value `of` gives for a record still held.
    pub(super) fn oldest<T: Ord>(&self, of: impl Fn(&Place) -> Option<T>) -> Option<T> {
        self.pending
            .iter()
            .filter_map(|record| of(&record.key.1))
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After perf's example (`tools/perf/util/ordered-events.c`): two CPUs,
    /// three rounds; a round is handed on only when the next one has ended,
    /// and equal times keep file order (the 4 of round two waits).
    #[test]
    fn rounds_are_handed_on_one_round_late_in_time_order() {
        let mut order = RoundOrder::default();
        let mut offset = 0;
        let mut push = |order: &mut RoundOrder, time: u64| {
            offset += 8;
            order.push(Pending {
                key: (Some(time), Place::File(offset)),
                attr_index: 0,
                header: Header {
                    record_type: 9,
                    misc: 0,
                    size: 8,
                },
                origin: Origin::Top {
                    offset: offset as u64,
                    stream: false,
                },
            });
        };
        let times = |records: Vec<Pending>| -> Vec<u64> {
            records.iter().map(|record| record.key.0.unwrap()).collect()
        };
        for time in [1, 2, 2, 3, 4] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), Vec::<u64>::new());
        for time in [3, 4, 5, 6, 7] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), [1, 2, 2, 3, 3, 4]);
        let file_offset = |place: &Place| match place {
            Place::File(offset) => Some(*offset),
            _ => None,
        };
        assert_eq!(order.oldest(file_offset), Some(56));
        for time in [6, 8, 9] {
            push(&mut order, time);
        }
        assert_eq!(times(order.finish_round().collect()), [4, 5, 6, 6, 7]);
        assert_eq!(times(order.finish().collect()), [8, 9]);
    }
}
