//! The resident set of a compile over time (`memory.json` of a run
//! directory): the samples the `measure` wrapper takes of the compile's
//! process tree, in the one form the recorder writes and the reports read.
//! Times are `CLOCK_MONOTONIC` nanoseconds, perf's clock under
//! `perf record -k CLOCK_MONOTONIC`, so they line up with the samples.

use serde::{Deserialize, Serialize};

/// The series' file in the run directory.
pub(crate) const MEMORY_FILE: &str = "memory.json";

/// The clock every time of the series is on.
pub(crate) const MONOTONIC_CLOCK: &str = "CLOCK_MONOTONIC";

/// `memory.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RssSeries {
    /// The clock of every `time_ns` (always `CLOCK_MONOTONIC`).
    pub clock: String,
    /// The time between two samples that the sampler aims at.
    pub interval_ms: u64,
    /// Where the numbers come from.
    pub source: String,
    /// CPU time the sampler itself took, in seconds.
    pub sampler_cpu_seconds: f64,
    /// Every process of the tree that was seen, in the order first seen.
    pub processes: Vec<RssProcess>,
}

/// A process of the compile's tree and its resident set over time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RssProcess {
    pub pid: i32,
    /// Its name (`Name:` of `/proc/PID/status`), as last seen.
    pub name: String,
    /// Its peak RSS as the kernel last stated it (`VmHWM`), which includes
    /// peaks between samples.
    pub hwm_bytes: u64,
    /// The samples, in time order.
    pub samples: Vec<RssSample>,
}

/// The resident set of a process at one time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RssSample {
    /// `CLOCK_MONOTONIC`, nanoseconds.
    pub time_ns: u64,
    /// Resident bytes (`VmRSS`).
    pub rss_bytes: u64,
    /// Anonymous resident bytes (`RssAnon`): heap, stacks, anonymous maps.
    pub anon_bytes: u64,
    /// File-backed and shared resident bytes (`RssFile` + `RssShmem`): the
    /// mapped compiler library, mostly.
    pub file_bytes: u64,
}

impl RssSeries {
    /// The process with the largest RSS: the native compiler, in a compile.
    pub(crate) fn largest(&self) -> Option<&RssProcess> {
        self.processes
            .iter()
            .max_by_key(|process| process.peak(Resident::All).map_or(0, |peak| peak.rss_bytes))
    }
}

/// Which resident memory a figure counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resident {
    /// All of it (`VmRSS`).
    All,
    /// The anonymous part (`RssAnon`): what the compiler allocated, the
    /// memory a machine runs out of.
    Anonymous,
    /// Mapped files and shared memory: mostly the compiler library's pages
    /// as they are first touched.
    Files,
}

impl Resident {
    /// This kind's bytes of `sample`.
    pub(crate) fn of(self, sample: &RssSample) -> u64 {
        match self {
            Resident::All => sample.rss_bytes,
            Resident::Anonymous => sample.anon_bytes,
            Resident::Files => sample.file_bytes,
        }
    }
}

impl RssProcess {
    /// The first sample with the most `kind` bytes.
    pub(crate) fn peak(&self, kind: Resident) -> Option<RssSample> {
        self.samples.iter().copied().reduce(|best, sample| {
            if kind.of(&sample) > kind.of(&best) {
                sample
            } else {
                best
            }
        })
    }

    /// The `kind` bytes at `time_ns`: those of the last sample taken at or
    /// before it (the first sample's before the first).
    pub(crate) fn bytes_at(&self, kind: Resident, time_ns: u64) -> Option<u64> {
        let after = self
            .samples
            .partition_point(|sample| sample.time_ns <= time_ns);
        self.samples
            .get(after.saturating_sub(1))
            .map(|sample| kind.of(sample))
    }

    /// The most `kind` bytes from `start_ns` to `end_ns`: the value holding
    /// at the start and every sample taken in between.
    pub(crate) fn max_between(&self, kind: Resident, start_ns: u64, end_ns: u64) -> Option<u64> {
        let first = self
            .samples
            .partition_point(|sample| sample.time_ns <= start_ns);
        let last = self
            .samples
            .partition_point(|sample| sample.time_ns <= end_ns);
        let inside = self.samples[first..last.max(first)]
            .iter()
            .map(|sample| kind.of(sample));
        inside.chain(self.bytes_at(kind, start_ns)).max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(time_ns: u64, rss_bytes: u64) -> RssSample {
        RssSample {
            time_ns,
            rss_bytes,
            anon_bytes: rss_bytes / 2,
            file_bytes: rss_bytes / 2,
        }
    }

    #[test]
    fn each_kind_peaks_at_its_own_sample() {
        let at = |time_ns, anon_bytes, file_bytes| RssSample {
            time_ns,
            rss_bytes: anon_bytes + file_bytes,
            anon_bytes,
            file_bytes,
        };
        // The library is paged in late; the heap peaked before.
        let series = RssProcess {
            samples: vec![at(10, 50, 100), at(20, 80, 100), at(30, 60, 200)],
            ..RssProcess::default()
        };
        let peak_time = |kind| series.peak(kind).map(|peak| peak.time_ns);
        assert_eq!(peak_time(Resident::All), Some(30));
        assert_eq!(peak_time(Resident::Anonymous), Some(20));
        assert_eq!(peak_time(Resident::Files), Some(30));
    }

    #[test]
    fn values_hold_from_one_sample_to_the_next() {
        let series = RssProcess {
            pid: 7,
            samples: vec![sample(10, 100), sample(20, 300), sample(30, 200)],
            ..RssProcess::default()
        };
        let all = Resident::All;
        assert_eq!(series.bytes_at(all, 5), Some(100));
        assert_eq!(series.bytes_at(all, 10), Some(100));
        assert_eq!(series.bytes_at(all, 29), Some(300));
        assert_eq!(series.bytes_at(all, 99), Some(200));
        assert_eq!(series.bytes_at(Resident::Anonymous, 29), Some(150));
        assert_eq!(series.bytes_at(Resident::Files, 29), Some(150));
        assert_eq!(series.max_between(all, 11, 19), Some(100));
        assert_eq!(series.max_between(all, 12, 25), Some(300));
        assert_eq!(series.max_between(all, 25, 40), Some(300));
        assert_eq!(series.max_between(all, 31, 40), Some(200));
        assert_eq!(series.peak(all).map(|peak| peak.time_ns), Some(20));
        assert_eq!(RssProcess::default().bytes_at(all, 1), None);
        let launcher = RssProcess {
            pid: 6,
            samples: vec![sample(5, 250)],
            ..RssProcess::default()
        };
        let tree = RssSeries {
            processes: vec![launcher, series],
            ..RssSeries::default()
        };
        assert_eq!(tree.largest().map(|process| process.pid), Some(7));
    }
}
