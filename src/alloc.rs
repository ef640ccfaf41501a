//! The allocator probes of `record --alloc`: which libc functions are
//! probed, with which arguments, under which perf event names, and how many
//! bytes a sample of one of them asks for. Shared by the recorder (which
//! adds and removes the probes) and the profile (which weights samples by
//! those bytes); it does no I/O.

use perfdata::{RecordingInfo, Sample};

/// The library probed.
pub(crate) const LIBC: &str = "/lib/x86_64-linux-gnu/libc.so.6";

/// One probe: its event name, and what `perf probe -x LIBC -a` is given.
/// `operator new` is not probed: libstdc++'s calls `malloc`, so the `malloc`
/// probe sees it, with `operator new` on the stack.
pub(crate) struct AllocProbe {
    /// The event perf records (`probe_libc:malloc`).
    pub event: &'static str,
    /// The probe definition: `NAME=FUNCTION ARG=%REG:u64 …`. calloc and
    /// realloc name glibc's own symbols, since their plain names also match
    /// libc's PLT entries, which would count a call twice.
    pub definition: &'static str,
    /// The arguments compared with the smallest size recorded: a call is
    /// recorded when any of them reaches it (so calloc's `nmemb × size` is
    /// seen when one factor is that large).
    pub size_args: &'static [&'static str],
}

/// The probes, with the size arguments whose product is the bytes asked for.
pub(crate) const PROBES: [AllocProbe; 3] = [
    AllocProbe {
        event: "probe_libc:malloc",
        definition: "malloc size=%di:u64",
        size_args: &["size"],
    },
    AllocProbe {
        event: "probe_libc:calloc",
        definition: "calloc=__libc_calloc nmemb=%di:u64 size=%si:u64",
        size_args: &["nmemb", "size"],
    },
    AllocProbe {
        event: "probe_libc:realloc",
        definition: "realloc=__libc_realloc size=%si:u64",
        size_args: &["size"],
    },
];

impl AllocProbe {
    /// The perf filter that keeps the calls asking for at least `min_bytes`.
    pub(crate) fn filter(&self, min_bytes: u64) -> String {
        let tests: Vec<String> = (self.size_args.iter())
            .map(|arg| format!("{arg} >= {min_bytes}"))
            .collect();
        tests.join(" || ")
    }
}

/// The indexes of the recording's allocator probe events.
pub(crate) fn alloc_events(info: &RecordingInfo) -> Vec<usize> {
    info.events
        .iter()
        .enumerate()
        .filter(|(_, event)| PROBES.iter().any(|probe| probe.event == event.name))
        .map(|(index, _)| index)
        .collect()
}

/// The bytes `sample` of an allocator probe stands for: the size asked for
/// (the product of the probe's arguments: `nmemb × size` for calloc) times
/// the calls the sample stands for (its period, or `event_period`, the
/// event's fixed period of `perf record -c`).
pub(crate) fn requested_bytes(sample: &Sample<'_>, event_period: Option<u64>) -> u64 {
    let calls = sample.period.or(event_period).unwrap_or(1).max(1);
    sample
        .probe_args()
        .fold(1u64, u64::saturating_mul)
        .saturating_mul(calls)
}
