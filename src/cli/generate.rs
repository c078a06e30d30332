//! `retro gen`: a random board in the contest input format, for benchmarks and tests.

use super::GameName;
use crate::error::{Error, Result};
use crate::game::{GameSpec, TwinsSpec, YoungSpec};

#[derive(clap::Args)]
pub struct Args {
    /// The game: young or twins.
    game: GameName,
    /// Board size, e.g. 15x15.
    size: String,
    /// Seed of the random weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest weight (weights are uniform in 0..=MAX).
    #[arg(long, value_name = "MAX", default_value_t = 100_000)]
    max: u64,
}

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

    fn weights(&mut self, count: usize, max: u64) -> Vec<i64> {
        (0..count)
            .map(|_| (self.next_u64() % (max + 1)) as i64)
            .collect()
    }
}

/// Parse `RxC`.
pub fn parse_size(text: &str) -> Result<(usize, usize)> {
    let bad = || {
        Error::input(format!(
            "bad board size {text:?}: expected ROWSxCOLS, e.g. 4x5"
        ))
    };
    let (r, c) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (r, c): (usize, usize) = (
        r.trim().parse().map_err(|_| bad())?,
        c.trim().parse().map_err(|_| bad())?,
    );
    if r == 0 || c == 0 {
        return Err(bad());
    }
    Ok((r, c))
}

/// A random board of the given game and size.
pub fn random_board(
    game: GameName,
    rows: usize,
    cols: usize,
    seed: u64,
    max: u64,
) -> Result<GameSpec> {
    if max > i64::MAX as u64 / 4096 {
        return Err(Error::input(format!("--max {max} is too large")));
    }
    let mut rng = SplitMix(seed);
    let cells = rows
        .checked_mul(cols)
        .filter(|&c| c <= 4096)
        .ok_or_else(|| Error::input(format!("board size {rows}x{cols} is too large")))?;
    Ok(match game {
        GameName::Young => GameSpec::Young(YoungSpec {
            rows,
            cols,
            a: rng.weights(cells, max),
            b: rng.weights(cells, max),
        }),
        GameName::Twins => GameSpec::Twins(TwinsSpec {
            rows,
            cols,
            vert: rng.weights((rows - 1) * cols, max),
            horiz: rng.weights(rows * (cols - 1), max),
        }),
    })
}

pub fn run(args: Args) -> Result<i32> {
    let (rows, cols) = parse_size(&args.size)?;
    let spec = random_board(args.game, rows, cols, args.seed, args.max)?;
    print!("{}", spec.to_input());
    Ok(0)
}
