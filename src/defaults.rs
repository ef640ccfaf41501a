//! Every default value, in one place: the command line shows them
//! (`default_value_t = defaults::…`), and `record`, the commands and the
//! library use the same constants. Defaults of enums are their
//! `#[default]` variants.

/// Samples per second of `record` (`--freq`): 499 Hz keeps a 64 KiB stack
/// copy per sample from overflowing perf's ring buffer, which 4000 Hz does.
pub(crate) const FREQUENCY_HZ: u32 = 499;

/// The line width text tables are fitted to when they go to no terminal
/// and `COLUMNS` is not set.
pub(crate) const TABLE_WIDTH: usize = 100;

/// The smallest allocation `record --alloc` records (`--alloc-min-bytes`):
/// on `hex-constants --scale small`, 7.1k of 810k calls (0.9%) ask for at
/// least 4 KiB, and they ask for 52% of the bytes.
pub(crate) const ALLOC_MIN_BYTES: u64 = 4096;
/// `record --heap`: the mean bytes allocated between two sampled
/// allocations (jemalloc's 512 KiB).
pub(crate) const HEAP_RATE_BYTES: u64 = 512 * 1024;

/// Bytes of user stack `record` copies per sample with `--call-graph dwarf`
/// (`--stack-size`): with 65528, 99% of iree-compile's stacks reach their
/// thread root; with 16 KiB, 82–86%.
pub(crate) const STACK_SIZE_BYTES: u32 = 65528;

/// The raw data rate `record` aims under, in MB/s across all cores
/// (`--budget`): zstd -1 (perf's `-z`) compressed a raw recording of the
/// example at 690 MB/s on one core here (level 3, [`ZSTD_LEVEL`], was
/// faster still on it: 2.5 GB/s against 1.7 in `zstd -b`), so 256 MB/s
/// costs perf's writers at most about 0.4 of a core; after zstd (18:1 on
/// that recording at level 1; level 3 packs 2–3× tighter) the disk gets at
/// most about 14 MB/s of the 300 MB/s it wrote with fsync. 499 Hz × 64 KiB
/// fits on up to 7 busy cores; on more, `-F` is lowered.
pub(crate) const BUDGET_MB_PER_S: u64 = 256;

/// perf's zstd level in `record` (`--compression-level`): zstd's own
/// default, where perf's bare `-z` means 1. Its 2 MiB window (level 1 has
/// 512 KiB) finds far more of the stale bytes perf writes after each
/// sample's stack copy in earlier samples: the example's streams came out
/// 1.9× smaller, perf's CPU stayed the same, and a cold report of the same
/// samples took 3% less time (docs/measurements/cold-and-warm.md).
pub(crate) const ZSTD_LEVEL: u32 = 3;

/// The lowest frequency the budget lowers `-F` to before it cuts the stack
/// copy: 99 Hz still gives a 10-minute compile 59k samples per core.
pub(crate) const BUDGET_MIN_FREQUENCY_HZ: u32 = 99;

/// The smallest stack copy the budget cuts to: with 16 KiB, 82–86% of
/// iree-compile's stacks still reach their thread root.
pub(crate) const BUDGET_MIN_STACK_SIZE_BYTES: u32 = 16384;

/// Milliseconds between two samples of the compile's resident set
/// (`memory.json`): each costs the sampler about 0.1 ms of CPU in a VM
/// (waking up is most of it), so 50 a second take about 0.6% of a core;
/// 100 a second took 1.2–1.6% (docs/measurements/recording.md, "The memory
/// sampler").
pub(crate) const RSS_INTERVAL_MS: u64 = 20;

/// Where `record` makes its run directory when `-o` is not given: a new
/// `<timestamp>` directory below this one.
pub(crate) const RUNS_DIR: &str = "compile-perf-runs";

/// The recording read when none is named.
pub(crate) const INPUT: &str = "perf.data";

/// Where separate debug files live unless `--debug-dir` says otherwise.
pub(crate) const DEBUG_ROOT: &str = "/usr/lib/debug";

/// Frames narrower than this percentage of the width are left out of
/// flamegraphs (`--min-width`; inferno's own default).
pub(crate) const MIN_WIDTH_PERCENT: f64 = 0.1;

/// The same for the icicle `record` draws: it splits into many thin
/// frames, and at 0.1 px an iree-compile icicle is tens of MB, at 0.5 px
/// about a hundred KB.
pub(crate) const INVERTED_MIN_WIDTH_PERCENT: f64 = 0.5;

/// Time slices of `timeline` (`--buckets`).
pub(crate) const TIMELINE_SLICES: usize = 100;

/// Functions `top` lists (`-n`).
pub(crate) const TOP_LIMIT: usize = 30;

/// The smallest change of a share, in percentage points, that `diff` flags
/// (`--threshold`): with many samples a smaller change can stand clear of
/// the noise, and still not be worth a look.
pub(crate) const DIFF_THRESHOLD_PP: f64 = 1.0;

/// Seconds `push` waits for a connection to the server.
pub(crate) const PUSH_CONNECT_TIMEOUT_SECONDS: u64 = 30;

/// Seconds `push` waits for the whole exchange with the server.
pub(crate) const PUSH_TIMEOUT_SECONDS: u64 = 300;

/// Seconds one executable's compile may take in `executables`
/// (`--timeout`): the slowest executable of the 80-stage example took about
/// 1 s here, and IREE's guide calls an executable slow at minutes.
pub(crate) const EXECUTABLE_TIMEOUT_SECONDS: f64 = 300.0;

/// Compiles of each executable in `executables` (`--repeat`): three is the
/// fewest with which one executable's runs can be slower than the next
/// one's beyond run-to-run noise (all three above all three happens by
/// chance once in 20); see docs/executables-and-sizes.md for its cost.
pub(crate) const EXECUTABLE_REPEAT: u16 = 3;

/// The directory of compile-perf's caches, under `$XDG_CACHE_HOME` (or
/// `~/.cache`).
pub(crate) const CACHE_DIR_NAME: &str = "compile-perf";

/// The history store's file under `$XDG_DATA_HOME` (or `~/.local/share`).
pub(crate) const HISTORY_FILE: &str = "compile-perf/history.db";
/// How many recent runs of a series `history show|check` compare with.
pub(crate) const HISTORY_LAST: usize = 30;
/// The smallest move of a share, in percentage points, that `history check`
/// flags: twice `diff`'s, since one run's own spread cannot be known (an
/// unchanged run's FuseGlobalsPass stood 1.7 pp above four others, p = 4e-8;
/// docs/history.md).
pub(crate) const HISTORY_THRESHOLD_PP: f64 = 2.0;
