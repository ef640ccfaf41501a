//! How much perf records and how it keeps up: the data budget's choice of
//! frequency and stack size (`record --budget`), the ring buffer's size
//! (perf's `-m`), the streams perf writes (`--threads`), and the raw bytes
//! perf says it wrote (the types are `run.json`'s, in
//! [`crate::run_dir`]). Plain functions over the host's facts, which
//! `mod.rs` and `record`'s arguments read; nothing here touches
//! the operating system.

use super::CallGraph;
use crate::defaults;
use crate::run_dir::{RatePlan, RingBuffer, StreamChoice, Streams};

/// Bytes a sample holds beside its stack copy: header, ip, tid, time, cpu,
/// period, the kernel's callchain (about a dozen frames) and the x86-64
/// user registers perf asks for with `--call-graph dwarf`.
const SAMPLE_OVERHEAD_BYTES: u64 = 384;

/// The largest record the kernel writes: its size field has 16 bits, so a
/// stack copy of 65528 bytes is cut to fit with the rest of the sample.
const MAX_RECORD_BYTES: u64 = u16::MAX as u64;

/// Bytes of a frame-pointer sample: the overhead and up to 127 frames.
const FP_SAMPLE_BYTES: u64 = SAMPLE_OVERHEAD_BYTES + 127 * 8;

/// The seconds of one busy core's data the ring buffer holds: perf's
/// writer may stall that long (a disk busy with another writer) before the
/// kernel drops samples.
const RING_BUFFER_SECONDS: f64 = 0.5;

/// At most this share of the machine's memory goes to the ring buffers of
/// all CPUs together.
const RING_BUFFER_RAM_SHARE: u64 = 64;

/// perf's own ring buffer when no `-m` is given: 512 KiB per CPU.
const PERF_DEFAULT_RING_BYTES: u64 = 512 << 10;

impl Streams {
    /// The default on a machine with `cores` cores: one stream per CPU
    /// where there is more than one.
    pub(crate) fn default_for(cores: usize) -> Streams {
        if cores > 1 {
            Streams::PerCpu
        } else {
            Streams::One
        }
    }
}

/// What was asked of the data rate: the user's `--freq` and
/// `--stack-size` (which win), the budget, and the machine's cores.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RateRequest {
    /// `--freq`, when given.
    pub frequency: Option<u32>,
    /// `--stack-size`, when given.
    pub stack_size: Option<u32>,
    /// `--budget`, in bytes per second across all cores.
    pub budget_bytes_per_s: u64,
    /// How stacks are collected.
    pub call_graph: CallGraph,
    /// The cores that may be busy at once.
    pub cores: usize,
}

impl RatePlan {
    /// Chooses `-F` and the stack size: the user's values where given, else
    /// the defaults, with the frequency lowered (to
    /// [`defaults::BUDGET_MIN_FREQUENCY_HZ`] at least) and then the stack
    /// (to [`defaults::BUDGET_MIN_STACK_SIZE_BYTES`] at least) until the
    /// expected rate fits the budget.
    pub(crate) fn choose(request: RateRequest) -> RatePlan {
        let cores = u64::try_from(request.cores.max(1)).unwrap_or(u64::MAX);
        let budget = request.budget_bytes_per_s;
        let rate = |frequency: u32, stack: u32| {
            u64::from(frequency) * sample_bytes(request.call_graph, stack) * cores
        };
        let mut frequency = request.frequency.unwrap_or(defaults::FREQUENCY_HZ);
        let mut stack = request.stack_size.unwrap_or(defaults::STACK_SIZE_BYTES);
        let mut changed = Vec::new();
        if rate(frequency, stack) > budget && request.frequency.is_none() {
            let per_sample = sample_bytes(request.call_graph, stack) * cores;
            let fitting = u32::try_from(budget / per_sample).unwrap_or(u32::MAX);
            let lowered = fitting.clamp(defaults::BUDGET_MIN_FREQUENCY_HZ, frequency);
            changed.push(format!("-F lowered from {frequency} to {lowered} Hz"));
            frequency = lowered;
        }
        if rate(frequency, stack) > budget
            && request.stack_size.is_none()
            && request.call_graph == CallGraph::Dwarf
        {
            let per_byte = u64::from(frequency) * cores;
            let fitting = (budget / per_byte).saturating_sub(SAMPLE_OVERHEAD_BYTES) & !7;
            let lowered = u32::try_from(fitting)
                .unwrap_or(u32::MAX)
                .clamp(defaults::BUDGET_MIN_STACK_SIZE_BYTES, stack);
            changed.push(format!(
                "the stack copy lowered from {stack} to {lowered} bytes"
            ));
            stack = lowered;
        }
        let expected = rate(frequency, stack);
        let inputs = format!(
            "{frequency} Hz × {} bytes per sample × {cores} cores = {:.1} MB/s",
            sample_bytes(request.call_graph, stack),
            megabytes(expected)
        );
        let budget_text = format!("the budget of {:.1} MB/s", megabytes(budget));
        let choice = match (changed.is_empty(), expected <= budget) {
            (true, true) => format!("{inputs} fits {budget_text}"),
            (false, true) => format!("{} so that {inputs} fits {budget_text}", changed.join(", ")),
            (true, false) => format!(
                "{inputs} is over {budget_text}: --freq and --stack-size were given, and win"
            ),
            (false, false) => format!(
                "{}, and still {inputs} is over {budget_text}: a value was given, or the \
                 lowest of {} Hz and {} bytes was reached",
                changed.join(", "),
                defaults::BUDGET_MIN_FREQUENCY_HZ,
                defaults::BUDGET_MIN_STACK_SIZE_BYTES
            ),
        };
        RatePlan {
            frequency_hz: frequency,
            stack_size_bytes: stack,
            bytes_per_sample: sample_bytes(request.call_graph, stack),
            cores: u32::try_from(cores).unwrap_or(u32::MAX),
            budget_bytes_per_s: budget,
            expected_bytes_per_s: expected,
            measured_raw_bytes: None,
            measured_bytes_per_s: None,
            choice,
        }
    }

    /// Notes what perf wrote, over `wall_seconds` of the compile.
    pub(crate) fn set_measured(&mut self, raw_bytes: u64, wall_seconds: f64) {
        self.measured_raw_bytes = Some(raw_bytes);
        if wall_seconds > 0.0 {
            self.measured_bytes_per_s = Some((raw_bytes as f64 / wall_seconds) as u64);
        }
    }
}

/// The bytes one sample takes in the raw stream.
fn sample_bytes(call_graph: CallGraph, stack_size: u32) -> u64 {
    match call_graph {
        CallGraph::Dwarf => (u64::from(stack_size) + SAMPLE_OVERHEAD_BYTES).min(MAX_RECORD_BYTES),
        CallGraph::Fp => FP_SAMPLE_BYTES,
    }
}

fn megabytes(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// The host's facts the ring buffer is sized by.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RingHost {
    /// The bytes of a page.
    pub page_bytes: u64,
    /// The machine's memory; `None` when unknown.
    pub memory_bytes: Option<u64>,
    /// The CPUs perf maps a buffer for.
    pub cpus: usize,
    /// `perf_event_mlock_kb`, the locked memory perf may use per CPU
    /// without privilege; `None` for root (and CAP_IPC_LOCK), whom it does
    /// not limit.
    pub mlock_limit_kb: Option<u64>,
}

impl RingBuffer {
    /// The buffer for `plan`'s rate: at least [`RING_BUFFER_SECONDS`] of one
    /// busy core's data, rounded up to a power of two of pages, no smaller
    /// than perf's default, capped by a share of memory and, without
    /// privilege, by `perf_event_mlock_kb`. `None` when `perf_args` hold
    /// the user's own `-m` / `--mmap-pages`.
    pub(crate) fn choose(plan: &RatePlan, host: RingHost, perf_args: &[String]) -> RingBuffer {
        if let Some(given) = user_mmap_pages(perf_args) {
            return RingBuffer {
                bytes_per_cpu: None,
                pages: None,
                reason: format!("given with --perf-arg ({given}): compile-perf adds no -m"),
            };
        }
        let page = host.page_bytes.max(1);
        let one_core = u64::from(plan.frequency_hz) * plan.bytes_per_sample;
        let wanted = ((one_core as f64 * RING_BUFFER_SECONDS) as u64).max(PERF_DEFAULT_RING_BYTES);
        let mut pages = wanted.div_ceil(page).next_power_of_two();
        let mut limits = Vec::new();
        if let Some(memory) = host.memory_bytes {
            let share = memory / RING_BUFFER_RAM_SHARE / host.cpus.max(1) as u64;
            if pages * page > share {
                pages = floor_power_of_two(share / page);
                limits.push(format!(
                    "capped at 1/{RING_BUFFER_RAM_SHARE} of memory over {} CPUs",
                    host.cpus
                ));
            }
        }
        match host.mlock_limit_kb {
            Some(limit_kb) => {
                // The limit counts the header page too.
                let allowed = floor_power_of_two((limit_kb * 1024 / page).saturating_sub(1));
                if pages > allowed {
                    pages = allowed;
                    limits.push(format!(
                        "capped by perf_event_mlock_kb ({limit_kb} KiB per CPU without root)"
                    ));
                }
            }
            None => limits.push(
                "as root, perf_event_mlock_kb does not limit it (the kernel lets \
                 CAP_IPC_LOCK lock more)"
                    .to_owned(),
            ),
        }
        let pages = pages.max(1);
        let bytes = pages * page;
        RingBuffer {
            bytes_per_cpu: Some(bytes),
            pages: Some(pages),
            reason: format!(
                "{pages} pages ({:.1} MiB) per CPU hold {:.2} s of one busy core's {:.1} MB/s \
                 (aiming at {RING_BUFFER_SECONDS} s, perf's default 512 KiB holds {:.0} ms); {}",
                bytes as f64 / f64::from(1 << 20),
                bytes as f64 / one_core.max(1) as f64,
                megabytes(one_core),
                PERF_DEFAULT_RING_BYTES as f64 * 1000.0 / one_core.max(1) as f64,
                limits.join("; ")
            ),
        }
    }

    /// perf's arguments for it: `-m PAGES`, or none.
    pub(crate) fn perf_args(&self) -> Option<[String; 2]> {
        self.pages.map(|pages| ["-m".to_owned(), pages.to_string()])
    }
}

fn floor_power_of_two(value: u64) -> u64 {
    match value {
        0 => 0,
        _ => 1 << (63 - value.leading_zeros()),
    }
}

/// The user's own `-m` / `--mmap-pages` among the `--perf-arg`s, as given.
fn user_mmap_pages(perf_args: &[String]) -> Option<String> {
    perf_args.iter().enumerate().find_map(|(at, arg)| {
        let value = || perf_args.get(at + 1).cloned().unwrap_or_default();
        if arg == "-m" || arg == "--mmap-pages" {
            Some(format!("{arg} {}", value()))
        } else if arg.starts_with("--mmap-pages=") || (arg.starts_with("-m") && arg.len() > 2) {
            Some(arg.clone())
        } else {
            None
        }
    })
}

impl StreamChoice {
    /// `streams` as resolved from the command line, unless the user's own
    /// `--perf-arg=--threads…` already asks for perf's threads.
    pub(crate) fn new(streams: Streams, given: bool, perf_args: &[String]) -> StreamChoice {
        if let Some(arg) = perf_args.iter().find(|arg| arg.starts_with("--threads")) {
            return StreamChoice {
                choice: Streams::PerCpu,
                reason: format!("given with --perf-arg ({arg}): compile-perf adds no --threads"),
            };
        }
        let reason = match (given, streams) {
            (true, _) => "given with --streams".to_owned(),
            (false, Streams::PerCpu) => "more than one core: one writer and one zstd stream \
                                         per CPU keep up where one would fall behind"
                .to_owned(),
            (false, Streams::One) => "one core: one writer is enough".to_owned(),
        };
        StreamChoice {
            choice: streams,
            reason,
        }
    }

    /// perf's argument for it: `--threads`, or none.
    pub(crate) fn perf_arg(&self, perf_args: &[String]) -> Option<&'static str> {
        let given = perf_args.iter().any(|arg| arg.starts_with("--threads"));
        (self.choice == Streams::PerCpu && !given).then_some("--threads")
    }
}

/// The raw bytes (before zstd) of perf's closing line on stderr: "Captured
/// and wrote 0.27 MB perf.data, compressed (original 75.68 MB, ratio is
/// 283.0)", or "Captured and wrote 581.78 MB perf.data (9307 samples)"
/// without `-z`. perf's MB are MiB.
pub(crate) fn raw_bytes_written(stderr: &[String]) -> Option<u64> {
    let line = stderr
        .iter()
        .find(|line| line.contains("Captured and wrote"))?;
    let megabytes = match line.split_once("(original ") {
        Some((_, rest)) => rest.split_whitespace().next()?,
        None => line
            .split_once("Captured and wrote ")?
            .1
            .split_whitespace()
            .next()?,
    };
    let megabytes: f64 = megabytes.parse().ok()?;
    Some((megabytes * f64::from(1 << 20)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(cores: usize, budget_mb: u64) -> RateRequest {
        RateRequest {
            frequency: None,
            stack_size: None,
            budget_bytes_per_s: budget_mb * 1_000_000,
            call_graph: CallGraph::Dwarf,
            cores,
        }
    }

    #[test]
    fn the_defaults_stand_on_two_cores_and_the_frequency_falls_on_sixteen() {
        let two = RatePlan::choose(request(2, 256));
        assert_eq!((two.frequency_hz, two.stack_size_bytes), (499, 65528));
        assert_eq!(two.expected_bytes_per_s, 499 * 65535 * 2);
        assert!(two.choice.contains("fits"), "{}", two.choice);
        let sixteen = RatePlan::choose(request(16, 256));
        assert_eq!(sixteen.frequency_hz, 256_000_000 / (65535 * 16));
        assert_eq!(sixteen.stack_size_bytes, 65528);
        assert!(sixteen.expected_bytes_per_s <= 256_000_000);
        assert!(sixteen.choice.starts_with("-F lowered from 499 to 244 Hz"));
    }

    #[test]
    fn the_stack_shrinks_only_below_the_lowest_frequency_and_given_values_win() {
        let tight = RatePlan::choose(request(64, 256));
        assert_eq!(tight.frequency_hz, defaults::BUDGET_MIN_FREQUENCY_HZ);
        assert!(tight.stack_size_bytes < 65528);
        assert_eq!(tight.stack_size_bytes % 8, 0);
        assert!(tight.expected_bytes_per_s <= 256_000_000, "{tight:?}");
        let given = RatePlan::choose(RateRequest {
            frequency: Some(997),
            stack_size: Some(65528),
            ..request(64, 256)
        });
        assert_eq!((given.frequency_hz, given.stack_size_bytes), (997, 65528));
        assert!(
            given.choice.contains("were given, and win"),
            "{}",
            given.choice
        );
        let frequency_given = RatePlan::choose(RateRequest {
            frequency: Some(997),
            ..request(16, 256)
        });
        assert_eq!(frequency_given.frequency_hz, 997);
        assert!(frequency_given.stack_size_bytes < 65528);
    }

    fn host(mlock_limit_kb: Option<u64>) -> RingHost {
        RingHost {
            page_bytes: 4096,
            memory_bytes: Some(24 << 30),
            cpus: 2,
            mlock_limit_kb,
        }
    }

    #[test]
    fn the_ring_buffer_holds_half_a_second_and_respects_the_users_and_the_kernels_limits() {
        let plan = RatePlan::choose(request(2, 256));
        let ring = RingBuffer::choose(&plan, host(None), &[]);
        // 499 × 65535 × 0.5 = 16.4 MB: 3993 pages, rounded up to 4096.
        assert_eq!(ring.pages, Some(4096));
        assert_eq!(ring.bytes_per_cpu, Some(16 << 20));
        assert_eq!(ring.perf_args(), Some(["-m".to_owned(), "4096".to_owned()]));
        assert!(ring.reason.contains("as root"), "{}", ring.reason);
        let unprivileged = RingBuffer::choose(&plan, host(Some(516)), &[]);
        assert_eq!(unprivileged.pages, Some(128));
        let small_memory = RingBuffer::choose(
            &plan,
            RingHost {
                memory_bytes: Some(1 << 30),
                ..host(None)
            },
            &[],
        );
        assert_eq!(small_memory.pages, Some(2048));
        for args in [
            vec!["-m".to_owned(), "8".to_owned()],
            vec!["--mmap-pages=8".to_owned()],
            vec!["-m8".to_owned()],
        ] {
            let ring = RingBuffer::choose(&plan, host(None), &args);
            assert_eq!(ring.perf_args(), None, "{args:?}");
            assert!(ring.reason.contains("8"), "{}", ring.reason);
        }
    }

    #[test]
    fn the_users_threads_argument_is_not_doubled() {
        let args = vec!["--threads=core".to_owned()];
        let choice = StreamChoice::new(Streams::One, true, &args);
        assert_eq!(choice.choice, Streams::PerCpu);
        assert_eq!(choice.perf_arg(&args), None);
        let ours = StreamChoice::new(Streams::PerCpu, false, &[]);
        assert_eq!(ours.perf_arg(&[]), Some("--threads"));
        assert_eq!(
            StreamChoice::new(Streams::One, true, &[]).perf_arg(&[]),
            None
        );
    }

    #[test]
    fn perfs_closing_line_gives_the_raw_bytes_with_and_without_zstd() {
        let compressed = [
            "[ perf record: Captured and wrote 0.268 MB perf.data, compressed \
                           (original 75.681 MB, ratio is 283.007) ]"
                .to_owned(),
        ];
        assert_eq!(raw_bytes_written(&compressed), Some(79_357_280));
        let plain =
            ["[ perf record: Captured and wrote 2.000 MB raw.data (9307 samples) ]".to_owned()];
        assert_eq!(raw_bytes_written(&plain), Some(2 << 20));
        assert_eq!(
            raw_bytes_written(&["[ perf record: Woken up 1 times ]".to_owned()]),
            None
        );
    }
}
