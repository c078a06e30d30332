//! Seeded random boards (`retro gen`, benchmarks) and the generator behind them.

use crate::error::{Error, Result};
use crate::game::{GameSpec, TwinsSpec, YoungSpec};

/// splitmix64: tiny, seedable, and good enough for weights.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn weights(&mut self, count: usize, max: u64) -> Vec<i64> {
        (0..count)
            .map(|_| (self.next_u64() % (max + 1)) as i64)
            .collect()
    }
}

/// A random board of the given game and size. `to_input` writes a twins board one row of
/// weights per line, which is what lets `retro solve twins` infer its size.
pub fn random_board(game: &str, rows: usize, cols: usize, seed: u64, max: u64) -> Result<GameSpec> {
    if rows == 0 || cols == 0 {
        return Err(Error::input(format!(
            "board size {rows}x{cols}: rows and columns must be at least 1"
        )));
    }
    if max > i64::MAX as u64 / 4096 {
        return Err(Error::input(format!("--max {max} is too large")));
    }
    let mut rng = SplitMix(seed);
    let cells = rows
        .checked_mul(cols)
        .filter(|&c| c <= 4096)
        .ok_or_else(|| Error::input(format!("board size {rows}x{cols} is too large")))?;
    Ok(match game {
        "young" => GameSpec::Young(YoungSpec {
            rows,
            cols,
            a: rng.weights(cells, max),
            b: rng.weights(cells, max),
        }),
        "twins" => GameSpec::Twins(TwinsSpec {
            rows,
            cols,
            vert: rng.weights((rows - 1) * cols, max),
            horiz: rng.weights(rows * (cols - 1), max),
        }),
        other => {
            return Err(Error::input(format!(
                "unknown game {other:?}: expected young or twins"
            )));
        }
    })
}
