//! The seeded generator behind random boards (`retro gen`, `Registry::random`, benchmarks).

/// splitmix64: tiny, seedable, and good enough for weights.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `count` weights uniform in `0..=max`.
    pub fn weights(&mut self, count: usize, max: u64) -> Vec<i64> {
        (0..count)
            .map(|_| (self.next_u64() % (max + 1)) as i64)
            .collect()
    }
}
