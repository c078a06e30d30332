//! `retro gen`: a random board in the contest input format, for benchmarks and tests.

use super::GameName;
use crate::error::{Error, Result};
use crate::random::random_board;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro gen young 15x15 --seed 7 > y15.txt
  retro gen twins 4x5 --max 100 | retro solve twins")]
pub struct Args {
    /// The game (`retro help games` describes each).
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

pub fn run(args: Args) -> Result<i32> {
    let (rows, cols) = parse_size(&args.size)?;
    let spec = random_board(args.game.as_str(), rows, cols, args.seed, args.max)?;
    super::out!("{}", spec.to_input())?;
    Ok(0)
}
