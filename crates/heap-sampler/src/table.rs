//! The sampled pointers that are still allocated: a fixed, lock-free hash
//! table of atomics in static memory (nothing allocated), in buckets of
//! eight slots (one cache line). A pointer goes in its hash's bucket or,
//! when that is full, one of the next [`SPILL`] buckets, and the bucket it
//! passed is marked as spilled, so that looking up a pointer that was not
//! sampled (almost every free) reads one cache line.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Slots per bucket.
const WAYS: usize = 8;
/// Buckets: 2^15 × 8 slots × 8 bytes = 2 MiB of zero pages, touched as used.
const BUCKETS: usize = 1 << 15;
/// How many buckets after its own a pointer may go to.
const SPILL: usize = 4;
/// An empty slot (no allocation is at address 0).
const EMPTY: usize = 0;

#[repr(align(64))]
struct Bucket {
    slots: [AtomicUsize; WAYS],
}

static TABLE: [Bucket; BUCKETS] = [const {
    Bucket {
        slots: [const { AtomicUsize::new(EMPTY) }; WAYS],
    }
}; BUCKETS];
/// Whether some pointer of a bucket's hash went into a later bucket.
static SPILLED: [AtomicBool; BUCKETS] = [const { AtomicBool::new(false) }; BUCKETS];

fn home(ptr: usize) -> usize {
    // Fibonacci hashing of the address without its alignment bits.
    ((ptr >> 4).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) & (BUCKETS - 1)
}

/// Records `ptr` as sampled; false when its buckets are all full (the
/// sample is then not taken).
pub(crate) fn insert(ptr: usize) -> bool {
    let first = home(ptr);
    for step in 0..=SPILL {
        let bucket = &TABLE[(first + step) & (BUCKETS - 1)];
        for slot in &bucket.slots {
            let taken = slot.compare_exchange(EMPTY, ptr, Ordering::AcqRel, Ordering::Relaxed);
            if taken.is_ok() {
                return true;
            }
        }
        SPILLED[(first + step) & (BUCKETS - 1)].store(true, Ordering::Release);
    }
    false
}

/// Takes `ptr` out of the table; true when it was there (sampled).
pub(crate) fn remove(ptr: usize) -> bool {
    let first = home(ptr);
    for step in 0..=SPILL {
        let index = (first + step) & (BUCKETS - 1);
        for slot in &TABLE[index].slots {
            if slot.load(Ordering::Acquire) == ptr
                && slot
                    .compare_exchange(ptr, EMPTY, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            {
                return true;
            }
        }
        if !SPILLED[index].load(Ordering::Acquire) {
            return false;
        }
    }
    false
}
