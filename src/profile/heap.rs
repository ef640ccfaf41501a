//! The sampled heap of `record --heap`: each sampled allocation (its time,
//! process, pointer, size, the bytes it stands for, and its stack's key)
//! and each free of a sampled pointer, paired by process and pointer; and
//! what is live at an instant, by stack, with the sampling's standard
//! error. Plain functions over the events read.

use hashbrown::HashMap;

use crate::heap::MarkedAlloc;
use crate::stacks::SampleKey;

/// One sampled allocation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeapAlloc {
    /// perf's timestamp, in nanoseconds.
    pub time: u64,
    pub pid: i32,
    pub marked: MarkedAlloc,
    /// What it is counted under (thread, stack).
    pub key: SampleKey,
    /// When its pointer was freed; `None` when it was not (live at the end).
    pub freed: Option<u64>,
}

/// The sampled heap of a recording, filled while it is read.
#[derive(Clone, Debug, Default)]
pub(crate) struct HeapEvents {
    /// In time order.
    pub allocs: Vec<HeapAlloc>,
    /// The allocation each live sampled pointer belongs to.
    live: HashMap<(i32, u64), usize>,
    /// Frees of pointers whose allocation was not seen (allocated before
    /// perf attached, or in a parent before a fork).
    pub unmatched_frees: u64,
    /// The last event's time.
    pub last_time: u64,
}

/// What is live at one instant.
#[derive(Clone, Debug, Default)]
pub(crate) struct Live {
    /// Estimated bytes by thread and stack.
    pub by_key: HashMap<SampleKey, u64>,
    /// Estimated bytes in all.
    pub bytes: u64,
    /// The estimate's variance (bytes²).
    pub variance: f64,
    /// Sampled allocations live.
    pub samples: u64,
}

impl Live {
    /// The sampling's standard error of [`Live::bytes`].
    pub(crate) fn standard_error(&self) -> u64 {
        self.variance.sqrt().round() as u64
    }
}

/// The live heap just after one sampled allocation or free.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HeapPoint {
    /// perf's timestamp, in nanoseconds.
    pub time: u64,
    /// Estimated live bytes.
    pub bytes: u64,
    /// The estimate's variance (bytes²).
    pub variance: f64,
}

impl HeapPoint {
    /// The sampling's standard error of [`HeapPoint::bytes`].
    pub(crate) fn standard_error(&self) -> u64 {
        self.variance.max(0.0).sqrt().round() as u64
    }
}

impl HeapEvents {
    /// A sampled allocation, at `time`.
    pub(crate) fn on_alloc(&mut self, time: u64, pid: i32, marked: MarkedAlloc, key: SampleKey) {
        // A pointer allocated again without a free seen: the free marker
        // was lost; the older allocation ends here.
        if let Some(older) = self.live.insert((pid, marked.ptr), self.allocs.len()) {
            if let Some(alloc) = self.allocs.get_mut(older) {
                alloc.freed = Some(time);
            }
        }
        self.allocs.push(HeapAlloc {
            time,
            pid,
            marked,
            key,
            freed: None,
        });
        self.last_time = self.last_time.max(time);
    }

    /// A free of a sampled pointer, at `time`.
    pub(crate) fn on_free(&mut self, time: u64, pid: i32, ptr: u64) {
        match self.live.remove(&(pid, ptr)) {
            Some(index) => {
                if let Some(alloc) = self.allocs.get_mut(index) {
                    alloc.freed = Some(time);
                }
            }
            None => self.unmatched_frees += 1,
        }
        self.last_time = self.last_time.max(time);
    }

    /// What the allocations that `keep` accepts hold at `time` (allocated
    /// at or before it and not freed by then).
    pub(crate) fn live_at(&self, time: u64, keep: impl Fn(&HeapAlloc) -> bool) -> Live {
        let mut live = Live::default();
        let held = self
            .allocs
            .iter()
            .take_while(|alloc| alloc.time <= time)
            .filter(|alloc| alloc.freed.is_none_or(|freed| freed > time) && keep(alloc));
        for alloc in held {
            *live.by_key.entry(alloc.key).or_insert(0) += alloc.marked.weight;
            live.bytes = live.bytes.saturating_add(alloc.marked.weight);
            live.variance += alloc.marked.variance();
            live.samples += 1;
        }
        live
    }

    /// What the allocations that `keep` accepts hold at the end: never freed.
    pub(crate) fn live_at_end(&self, keep: impl Fn(&HeapAlloc) -> bool) -> Live {
        self.live_at(u64::MAX, |alloc| alloc.freed.is_none() && keep(alloc))
    }

    /// The live bytes (and their variance) after each allocation and free,
    /// in time order, of the allocations `keep` accepts: what
    /// [`HeapEvents::live_at`] says at each of those instants.
    pub(crate) fn series(&self, keep: impl Fn(&HeapAlloc) -> bool) -> Vec<HeapPoint> {
        let mut changes: Vec<(u64, i128, f64)> = Vec::new();
        for alloc in self.allocs.iter().filter(|alloc| keep(alloc)) {
            let (weight, variance) = (i128::from(alloc.marked.weight), alloc.marked.variance());
            changes.push((alloc.time, weight, variance));
            if let Some(freed) = alloc.freed {
                changes.push((freed, -weight, -variance));
            }
        }
        changes.sort_by_key(|&(time, _, _)| time);
        let (mut bytes, mut variance): (i128, f64) = (0, 0.0);
        let mut points: Vec<HeapPoint> = Vec::with_capacity(changes.len());
        for (time, change, change_variance) in changes {
            bytes += change;
            variance += change_variance;
            let point = HeapPoint {
                time,
                bytes: u64::try_from(bytes.max(0)).unwrap_or(u64::MAX),
                variance: variance.max(0.0),
            };
            // Changes at one instant make one point: the state after them all.
            match points.last_mut() {
                Some(last) if last.time == time => *last = point,
                _ => points.push(point),
            }
        }
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::ThreadId;
    use crate::unwind::Walk;

    fn key() -> SampleKey {
        SampleKey {
            thread: ThreadId::new(0),
            stack: None,
            walk: Walk::Complete,
        }
    }

    fn marked(ptr: u64, weight: u64) -> MarkedAlloc {
        MarkedAlloc {
            ptr,
            size: weight / 2,
            weight,
        }
    }

    #[test]
    fn an_allocation_is_live_from_its_marker_until_its_pointer_is_freed_in_its_process() {
        let mut events = HeapEvents::default();
        events.on_alloc(10, 1, marked(0x1000, 100), key());
        events.on_alloc(20, 2, marked(0x1000, 300), key());
        events.on_free(30, 2, 0x1000);
        events.on_free(35, 3, 0x5000);
        assert_eq!(events.live_at(9, |_| true).bytes, 0);
        assert_eq!(events.live_at(25, |_| true).bytes, 400);
        assert_eq!(events.live_at(30, |_| true).bytes, 100);
        assert_eq!(events.live_at_end(|_| true).bytes, 100);
        assert_eq!(events.live_at(25, |alloc| alloc.pid == 2).bytes, 300);
        assert_eq!(events.unmatched_frees, 1);
        let series: Vec<(u64, u64)> = (events.series(|_| true).iter())
            .map(|point| (point.time, point.bytes))
            .collect();
        assert_eq!(series, vec![(10, 100), (20, 400), (30, 100)]);
    }

    #[test]
    fn the_standard_error_comes_from_the_sampling_probability() {
        let mut events = HeapEvents::default();
        // p = 1/2: variance (1 − 1/2) · 200² = 20000 per sample.
        events.on_alloc(1, 1, marked(0x10, 200), key());
        events.on_alloc(2, 1, marked(0x20, 200), key());
        let live = events.live_at(5, |_| true);
        assert_eq!(live.standard_error(), 200);
        assert_eq!(live.samples, 2);
        let series = events.series(|_| true);
        assert_eq!(series.last().map(HeapPoint::standard_error), Some(200));
    }

    #[test]
    fn each_point_of_the_series_is_what_is_live_then_with_its_error() {
        let mut events = HeapEvents::default();
        events.on_alloc(10, 1, marked(0x10, 200), key());
        events.on_alloc(20, 1, marked(0x20, 1000), key());
        events.on_alloc(20, 1, marked(0x30, 400), key());
        events.on_free(30, 1, 0x20);
        events.on_free(40, 1, 0x10);
        let series = events.series(|_| true);
        assert_eq!(
            series.iter().map(|point| point.time).collect::<Vec<_>>(),
            [10, 20, 30, 40],
            "one point per instant"
        );
        for point in &series {
            let live = events.live_at(point.time, |_| true);
            assert_eq!(point.bytes, live.bytes, "at {}", point.time);
            assert_eq!(
                point.standard_error(),
                live.standard_error(),
                "at {}",
                point.time
            );
        }
    }
}
