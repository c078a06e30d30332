//! `retro play`: a game in the terminal against the table's perfect player. Moves are read
//! from stdin as `row col`, so a script can drive it.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::ValueEnum;

use super::open_table;
use super::pv::Scores;
use super::query::answer;
use crate::error::{Error, Result};
use crate::game::{Game, GameSpec};
use crate::table::Table;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
    First,
    Second,
}

#[derive(clap::Args)]
pub struct Args {
    /// Table file.
    table: PathBuf,
    /// The side you play.
    #[arg(long = "as", value_enum, default_value_t = Side::First)]
    side: Side,
    /// Start from this position instead of the empty board.
    #[arg(long)]
    from: Option<String>,
}

pub fn run(args: Args) -> Result<i32> {
    let table = open_table(&args.table)?;
    let spec = table.header.game.clone();
    crate::with_game!(&spec, game => play(&game, &spec, &table, &args))
}

fn play<G: Game>(game: &G, spec: &GameSpec, table: &Table, args: &Args) -> Result<i32> {
    let mut input = std::io::stdin().lock().lines();
    let mut out = std::io::stdout().lock();
    let io = |e: std::io::Error| Error::other(format!("writing output: {e}"));
    let empty = game.format_position(&game.unrank(0, 0));
    let mut text = args.from.clone().unwrap_or(empty);
    let mut scores = Scores::at_start(game, spec, &game.parse_position(&text)?);
    loop {
        let a = answer(game, table, &text)?;
        let stones = game.stones(&a.position);
        write!(out, "\n{}", game.draw(&a.position)).map_err(io)?;
        if a.moves.is_empty() {
            writeln!(
                out,
                "game over: first {}, second {}; result {}",
                scores.first,
                scores.second,
                scores.result(spec)
            )
            .map_err(io)?;
            return Ok(0);
        }
        let first = stones % 2 == 0;
        let who = if first { "first" } else { "second" };
        writeln!(out, "value {} ({who} to move)", a.value).map_err(io)?;
        let human = (args.side == Side::First) == first;
        let chosen = if human {
            loop {
                write!(out, "your move (row col): ").map_err(io)?;
                out.flush().map_err(io)?;
                let line = match input.next() {
                    Some(line) => line.map_err(|e| Error::other(format!("reading stdin: {e}")))?,
                    None => return Err(Error::input("input ended before the game did")),
                };
                let cell: Vec<usize> = line
                    .split_whitespace()
                    .filter_map(|t| t.parse().ok())
                    .collect();
                let found = match cell.as_slice() {
                    [r, c] => a
                        .moves
                        .iter()
                        .position(|(mv, _)| mv.row + 1 == *r && mv.col + 1 == *c),
                    _ => None,
                };
                match found {
                    Some(i) => break i,
                    None => {
                        let legal: Vec<String> = a
                            .moves
                            .iter()
                            .map(|(mv, _)| format!("{} {}", mv.row + 1, mv.col + 1))
                            .collect();
                        writeln!(
                            out,
                            "illegal move {:?}; legal: {}",
                            line.trim(),
                            legal.join(", ")
                        )
                        .map_err(io)?;
                    }
                }
            }
        } else {
            (0..a.moves.len()).find(|&i| a.is_best(i)).unwrap_or(0)
        };
        let (mv, value) = &a.moves[chosen];
        let by = if human { "you play" } else { "retro plays" };
        writeln!(out, "{by} {} {} (value {value})", mv.row + 1, mv.col + 1).map_err(io)?;
        scores = scores.after(game, spec, &a.position, mv);
        text = game.format_position(&mv.child);
    }
}
