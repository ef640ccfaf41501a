//! Which allocations are sampled: a per-thread countdown of bytes to the
//! next sample, drawn from an exponential distribution of mean R, so that
//! each byte is sampled with probability 1/R whatever the sizes, and the
//! weight that makes the estimate unbiased. Thread-local state only.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The rate's environment variable: the mean bytes between samples.
const RATE_VARIABLE: &[u8] = b"COMPILE_PERF_HEAP_RATE\0";
/// The default rate: 512 KiB, jemalloc's.
const DEFAULT_RATE: u64 = 512 * 1024;

/// The rate, read from the environment on first use (0: not read yet).
static RATE: AtomicU64 = AtomicU64::new(0);
/// Seeds threads' generators apart.
static SEEDS: AtomicU64 = AtomicU64::new(0x9e37_79b9_7f4a_7c15);

thread_local! {
    /// Bytes left before the next sample; 0 until the thread's first draw.
    static COUNTDOWN: Cell<i64> = const { Cell::new(0) };
    /// The thread's xorshift state; 0 until seeded.
    static RANDOM: Cell<u64> = const { Cell::new(0) };
    /// Whether the thread is inside a hook's sampled path.
    static IN_HOOK: Cell<bool> = const { Cell::new(false) };
}

/// A sampled allocation: the bytes it stands for.
pub(crate) struct Sampled {
    pub weight: usize,
}

/// Marks the thread as inside a hook while it lives.
pub(crate) struct Guard;

impl Guard {
    pub(crate) fn enter() -> Guard {
        IN_HOOK.set(true);
        Guard
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        IN_HOOK.set(false);
    }
}

/// Counts `size` bytes; `Some` when this allocation is sampled (never
/// for a thread already inside a hook).
pub(crate) fn count(size: usize) -> Option<Sampled> {
    let size = i64::try_from(size).unwrap_or(i64::MAX);
    let mut countdown = COUNTDOWN.get();
    if countdown == 0 {
        // The thread's first allocation: its first draw (draws are at
        // least 1, so 0 is never a countdown in use).
        countdown = draw(rate());
    }
    let left = countdown.saturating_sub(size);
    if left > 0 || IN_HOOK.get() {
        COUNTDOWN.set(left.max(1));
        return None;
    }
    let rate = rate();
    // The exponential is memoryless: the next sample's distance from the
    // end of this allocation is a fresh draw.
    COUNTDOWN.set(draw(rate));
    // P(sampled) = 1 − e^(−size/R); weight = size / P.
    let probability = -(-(size as f64) / rate as f64).exp_m1();
    let weight = (size as f64 / probability).round();
    Some(Sampled {
        weight: weight as usize,
    })
}

/// The rate R in bytes.
fn rate() -> u64 {
    let rate = RATE.load(Ordering::Relaxed);
    if rate != 0 {
        return rate;
    }
    let rate = read_rate().unwrap_or(DEFAULT_RATE);
    RATE.store(rate, Ordering::Relaxed);
    rate
}

/// `COMPILE_PERF_HEAP_RATE` as a positive number of bytes.
fn read_rate() -> Option<u64> {
    unsafe extern "C" {
        fn getenv(name: *const std::ffi::c_char) -> *const std::ffi::c_char;
    }
    // SAFETY: a NUL-terminated name; getenv returns null or a C string that
    // lives as long as the environment is not changed, and allocates nothing.
    let value = unsafe { getenv(RATE_VARIABLE.as_ptr().cast()) };
    if value.is_null() {
        return None;
    }
    // SAFETY: a non-null C string from getenv.
    let bytes = unsafe { std::ffi::CStr::from_ptr(value) }.to_bytes();
    let mut rate: u64 = 0;
    for &digit in bytes {
        if !digit.is_ascii_digit() {
            return None;
        }
        rate = rate.checked_mul(10)?.checked_add(u64::from(digit - b'0'))?;
    }
    (rate > 0).then_some(rate)
}

/// A draw from the exponential distribution of mean `rate`, at least 1.
fn draw(rate: u64) -> i64 {
    let mut state = RANDOM.get();
    if state == 0 {
        let local = &RANDOM as *const _ as u64;
        state = splitmix(SEEDS.fetch_add(local | 1, Ordering::Relaxed) ^ local) | 1;
    }
    // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    RANDOM.set(state);
    let bits = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
    // uniform in (0, 1]
    let uniform = (bits as f64 + 1.0) / (1u64 << 53) as f64;
    let distance = -uniform.ln() * rate as f64;
    (distance as i64).max(1)
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
