//! `retro query`: a position's value and every move's value, from the table file.

use std::path::PathBuf;

use serde_json::json;

use super::open_table;
use std::io::{BufRead, Write};

use super::pv::{Step, principal_variation};
use crate::error::{Error, Result};
use crate::game::{Game, GameSpec};
use crate::table::Table;

#[derive(clap::Args)]
pub struct Args {
    /// Table file.
    table: PathBuf,
    /// Position: young `3,1,0` (row lengths); twins `o.x/.o./...` (rows of o, x, .).
    #[arg(required_unless_present = "batch")]
    position: Option<String>,
    /// Read positions from stdin, one per line, and print one value per line.
    #[arg(long, conflicts_with_all = ["position", "pv"])]
    batch: bool,
    /// Also print the principal variation to the end of the game.
    #[arg(long)]
    pv: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Verify the table's checksum before answering (reads the whole file).
    #[arg(long)]
    check: bool,
}

/// A position's answer, read from the table.
pub struct Answer<P> {
    pub position: P,
    pub value: i64,
    /// (move, value of the move: reward + child's value).
    pub moves: Vec<(crate::game::Move<P>, i64)>,
}

impl<P> Answer<P> {
    /// Whether move `i` keeps the position's value (a best move).
    pub fn is_best(&self, i: usize) -> bool {
        self.moves[i].1 == self.value
    }
}

/// Look a position and all its children up in the table.
pub fn answer<G: Game>(game: &G, table: &Table, text: &str) -> Result<Answer<G::Position>> {
    let position = game.parse_position(text)?;
    let value = table.value(game.stones(&position), game.rank(&position))?;
    let mut moves = Vec::new();
    for mv in game.moves(&position) {
        let child = table.value(game.stones(&mv.child), game.rank(&mv.child))?;
        let v = mv.reward + child;
        moves.push((mv, v));
    }
    Ok(Answer {
        position,
        value,
        moves,
    })
}

pub fn run(args: Args) -> Result<i32> {
    let table = open_table(&args.table)?;
    if args.check {
        table.verify_checksum()?;
    }
    let spec = table.header.game.clone();
    crate::with_game!(&spec, game => {
        if args.batch {
            return batch(&game, &table.with_mmap()?, args.json);
        }
        let text = args.position.as_deref().unwrap_or_default();
        let a = answer(&game, &table, text)?;
        let pv = if args.pv { Some(principal_variation(&game, &spec, &table, &a.position)?) } else { None };
        if args.json {
            let mut out = to_json(&game, &spec, &a);
            if let Some(pv) = &pv {
                out["pv"] = pv_json(&game, pv);
            }
            println!("{out}");
        } else {
            print!("{}", to_text(&game, &spec, &a));
            if let Some(pv) = &pv {
                print!("{}", pv_text(&game, &spec, pv, a.value));
            }
        }
        Ok(0)
    })
}

/// One value per input line; a bad line is reported on stderr with its number and the
/// rest go on. Exit code 2 if any line failed.
fn batch<G: Game>(game: &G, table: &Table, json: bool) -> Result<i32> {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut failed = 0u64;
    let io = |e: std::io::Error| Error::other(format!("writing output: {e}"));
    for (i, line) in stdin.lines().enumerate() {
        let line = line.map_err(|e| Error::other(format!("reading stdin: {e}")))?;
        let looked_up = game
            .parse_position(&line)
            .and_then(|pos| Ok((table.value(game.stones(&pos), game.rank(&pos))?, pos)));
        match looked_up {
            Ok((value, pos)) if json => {
                let stones = game.stones(&pos);
                let obj = json!({
                    "line": i + 1,
                    "position": game.format_position(&pos),
                    "stones": stones,
                    "to_move": to_move(stones, game.cells()),
                    "value": value,
                });
                writeln!(out, "{obj}").map_err(io)?;
            }
            Ok((value, _)) => writeln!(out, "{value}").map_err(io)?,
            Err(e) => {
                failed += 1;
                out.flush().map_err(io)?;
                eprintln!("error: line {}: {e}", i + 1);
            }
        }
    }
    out.flush().map_err(io)?;
    Ok(if failed > 0 { 2 } else { 0 })
}

fn pv_text<G: Game>(game: &G, spec: &GameSpec, pv: &[Step<G::Position>], value: i64) -> String {
    let mut out = String::from(
        "principal variation
",
    );
    for (i, s) in pv.iter().enumerate() {
        let who = if s.first_to_move { "first" } else { "second" };
        out.push_str(&format!(
            "  {:>3}. {who:<6} ({},{})  -> {:<20} scores: first {}, second {}\n",
            i + 1,
            s.mv.row + 1,
            s.mv.col + 1,
            game.format_position(&s.mv.child),
            s.scores.first,
            s.scores.second
        ));
    }
    let end = pv.last().map(|s| s.scores).unwrap_or_default();
    out.push_str(&format!(
        "  result {} (the position's value is {value})\n",
        end.result(spec)
    ));
    out
}

fn pv_json<G: Game>(game: &G, pv: &[Step<G::Position>]) -> serde_json::Value {
    pv.iter()
        .map(|s| {
            json!({
                "player": if s.first_to_move { "first" } else { "second" },
                "cell": [s.mv.row + 1, s.mv.col + 1],
                "position": game.format_position(&s.mv.child),
                "first_score": s.scores.first,
                "second_score": s.scores.second,
            })
        })
        .collect()
}

/// Who moves with `stones` on a board of `cells`: "first", "second", or "none" when full.
fn to_move(stones: usize, cells: usize) -> &'static str {
    if stones == cells {
        "none"
    } else if stones.is_multiple_of(2) {
        "first"
    } else {
        "second"
    }
}

pub fn to_json<G: Game>(game: &G, spec: &GameSpec, a: &Answer<G::Position>) -> serde_json::Value {
    let stones = game.stones(&a.position);
    let moves: Vec<_> = a
        .moves
        .iter()
        .map(|(mv, v)| {
            json!({
                "cell": [mv.row + 1, mv.col + 1],
                "position": game.format_position(&mv.child),
                "value": v,
                "reward": mv.reward,
            })
        })
        .collect();
    let best: Vec<_> = (0..a.moves.len())
        .filter(|&i| a.is_best(i))
        .map(|i| json!([a.moves[i].0.row + 1, a.moves[i].0.col + 1]))
        .collect();
    let mut out = json!({
        "game": spec.name(),
        "position": game.format_position(&a.position),
        "stones": stones,
        "to_move": to_move(stones, game.cells()),
        "value": a.value,
        "moves": moves,
        "best": best,
    });
    if let GameSpec::Twins(t) = spec
        && let Ok(total) = t.total_weight()
    {
        out["second_score"] = json!(total - a.value);
    }
    out
}

pub fn to_text<G: Game>(game: &G, spec: &GameSpec, a: &Answer<G::Position>) -> String {
    let stones = game.stones(&a.position);
    let mut out = format!("position  {}\n", game.format_position(&a.position));
    for line in game.draw(&a.position).lines() {
        out.push_str(&format!("          {line}\n"));
    }
    out.push_str(&format!("stones    {stones} of {}\n", game.cells()));
    if stones == game.cells() {
        out.push_str("to move   nobody (the board is full)\n");
    } else {
        out.push_str(&format!("to move   {}\n", to_move(stones, game.cells())));
    }
    match spec {
        GameSpec::Young(_) => out.push_str(&format!(
            "value     {} (first minus second, over the stones to come)\n",
            a.value
        )),
        GameSpec::Twins(t) => {
            let second = t.total_weight().map(|w| w - a.value).unwrap_or(0);
            out.push_str(&format!(
                "value     {} (final scores: first {}, second {second})\n",
                a.value, a.value
            ))
        }
    }
    if !a.moves.is_empty() {
        out.push_str("moves     cell     position              value\n");
    }
    for (i, (mv, v)) in a.moves.iter().enumerate() {
        let cell = format!("({},{})", mv.row + 1, mv.col + 1);
        let best = if a.is_best(i) { "  best" } else { "" };
        out.push_str(&format!(
            "          {cell:<8} {:<21} {v:>5}{best}\n",
            game.format_position(&mv.child)
        ));
    }
    out
}
