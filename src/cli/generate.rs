//! `retro gen`: a random board in the contest input format, for benchmarks and tests.

use super::GameName;
use crate::error::{Error, Result};
use crate::game::{AnyBoard, Registry};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro gen young 15x15 --seed 7 > y15.txt
  retro gen twins 4x5 --max 100 | retro solve twins")]
pub struct Args {
    /// The game (`retro help games` describes each).
    game: GameName,
    /// Board size, e.g. 15x15, or a board in its game's words (`4x4k3`, `4x4 advanced`,
    /// several words needing no quotes).
    #[arg(value_name = "SIZE", required = true)]
    size: Vec<String>,
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
            "bad board size {text:?}: expected ROWSxCOLS, e.g. 4x5 (connect: WIDTHxHEIGHT; mnk and connect may add K, e.g. 4x4k3)"
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

/// The board `gen` and `plan` mean by SIZE: rows x columns (width x height for connect)
/// with random weights; or, where the game reads the text itself as a board (mnk and
/// connect with K: `4x4k3`), that board.
/// `flag` names the option that gave `max` in errors.
pub fn board_for_size<R: Registry>(
    game: &str,
    size: &str,
    seed: u64,
    max: u64,
    flag: &str,
) -> Result<AnyBoard> {
    // No size at all: the board the game takes without one (standard Teeko, 5 x 5
    // Quixo), as `build` does; a game without one says what a size is.
    if size.trim().is_empty() {
        return R::parse(game, "").map_err(|_| {
            Error::input(format!(
                "{game} has no board by default: give a size, ROWSxCOLS, e.g. 4x5 (connect: WIDTHxHEIGHT)"
            ))
        });
    }
    match parse_size(size) {
        Ok(dims) => R::random(game, dims, seed, max, flag),
        // Not a size: a board in its game's words, whose own error says what is wrong with
        // it (a count out of range, an unknown word), then what a size looks like.
        Err(_) => R::parse(game, size).map_err(|words| {
            Error::input(format!(
                "{words}; or a size: ROWSxCOLS, e.g. 4x5 (connect: WIDTHxHEIGHT)"
            ))
        }),
    }
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    let board = board_for_size::<R>(
        args.game.as_str(),
        &args.size.join(" "),
        args.seed,
        args.max,
        "--max",
    )?;
    super::out!("{}", board.to_input())?;
    Ok(0)
}
