//! A deterministic pseudo-random sequence for unit tests (xorshift64), so
//! that tests which spread their inputs repeat exactly.

/// The xorshift64 sequence from `seed` (not 0): each call gives the next value.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
