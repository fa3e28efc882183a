//! The deterministic xorshift generator the bounded property tests share:
//! the same seed gives the same inputs on every run, so a failure replays.
#![allow(dead_code)] // each test target uses the part it needs

/// xorshift64 (13, 7, 17); the seed must not be 0.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
