//! Seeded random boards (`retro gen`, benchmarks) and the generator behind them.

use crate::error::{Error, Result};
use crate::game::GameSpec;

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

/// A random board of the given game and size. Twins boards are written one row of weights
/// per line, which is what lets `retro solve twins` infer their size.
pub fn random_board(game: &str, rows: usize, cols: usize, seed: u64, max: u64) -> Result<GameSpec> {
    random_board_named(game, rows, cols, seed, max, "--max")
}

/// `random_board`, naming the flag that gave `max` (`--max`, `--max-weight`) in errors.
pub fn random_board_named(
    game: &str,
    rows: usize,
    cols: usize,
    seed: u64,
    max: u64,
    flag: &str,
) -> Result<GameSpec> {
    if rows == 0 || cols == 0 {
        return Err(Error::input(format!(
            "board size {rows}x{cols}: rows and columns must be at least 1"
        )));
    }
    if max > i64::MAX as u64 / 4096 {
        return Err(Error::input(format!(
            "{flag} {max} is too large: at most {}",
            i64::MAX as u64 / 4096
        )));
    }
    rows.checked_mul(cols)
        .filter(|&c| c <= 4096)
        .ok_or_else(|| Error::input(format!("board size {rows}x{cols} is too large")))?;
    GameSpec::random(game, rows, cols, &mut SplitMix(seed), max)
}
