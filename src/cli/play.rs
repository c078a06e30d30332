//! `retro play`: a game in the terminal against the table's perfect player. Moves are read
//! from stdin as `row col` (connect: a column number), so a script can drive it;
//! everything is written to stdout.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::ValueEnum;

use super::lines::{Line, MAX_LINE, read_line};
use super::open_table;
use crate::error::{Error, Result};
use crate::game::{Board, MoveNotation, Registered, Registry, Scores, Visitor};
use crate::probe::{Answer, MoveStyle, answer_text, describe_move, scores_after, start_scores};
use crate::table::Table;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
    First,
    Second,
}

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro play tables/young-sample.retro
  retro play tables/twins-sample1.retro --as second")]
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

/// How moves are typed, by `MoveNotation`.
const CELL_MOVES: &str =
    "moves: `row col`, 1-based (row 1 is the top row, column 1 the leftmost), e.g. `1 2`";
const FROM_TO_MOVES: &str = "moves: `row,col` puts a stone on that cell; `row,col-row,col` takes one from the first cell to the second (a Teeko slide; a Quixo push: the cube taken and the end it goes back in at), 1-based, row 1 the top, e.g. `3,3-2,2`";
const COLUMN_MOVES: &str = "moves: a column number, 1-based from the left, e.g. `3`; the stone drops to the lowest empty cell";

const COMMANDS: &str = "\
commands:
  help   this list
  hint   the best move(s) here and their value, without playing
  undo   take back your last move and the reply to it
  quit   end the game";

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    let table = open_table::<R>(&args.table)?;
    let board = table.header.game.clone();
    R::visit(
        &board,
        Play {
            args: &args,
            table: &table,
        },
    )
}

/// `play`, on the table's game.
struct Play<'a> {
    args: &'a Args,
    table: &'a Table,
}

impl Visitor for Play<'_> {
    type Output = i32;

    fn visit<G: Registered>(self, game: G) -> Result<i32> {
        play(&game, self.table, self.args)
    }
}

/// What the player asked for at the prompt, once it is something the game loop must act on.
enum Action {
    Move(usize),
    Undo,
    Quit,
}

/// The state at one of the player's turns, so `undo` can return to it.
struct Saved {
    text: String,
    scores: Scores,
    played: usize,
}

fn play<G: Registered>(game: &G, table: &Table, args: &Args) -> Result<i32> {
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let empty = game.format_position(&game.unrank(0, 0));
    let mut text = args.from.clone().unwrap_or(empty);
    let mut scores = start_scores(game, &game.parse_position(&text)?);
    let mut history: Vec<Saved> = Vec::new();
    // Every move since the start, as `undo` reports them: who, and the move.
    let mut played: Vec<(&str, String)> = Vec::new();
    let notation = game.move_notation();
    loop {
        let a = answer_text(game, table, &text)?;
        let stones = game.stones(&a.position);
        write!(
            out,
            "\n{}",
            crate::text::labelled(&game.draw(&a.position), notation == MoveNotation::Cell)
        )
        .map_err(io)?;
        if a.moves.is_empty() && game.outcome(a.value, stones).is_some() {
            writeln!(
                out,
                "game over: {}",
                game.describe_value_at(a.value, &a.position)
            )
            .map_err(io)?;
            return Ok(0);
        }
        if a.moves.is_empty() {
            writeln!(
                out,
                "game over: first {}, second {}; result {}",
                scores.first,
                scores.second,
                game.line_result(scores)
            )
            .map_err(io)?;
            return Ok(0);
        }
        let first = game.first_to_move(&a.position);
        let human = (args.side == Side::First) == first;
        // A game that ends in a win, a loss or a tie has no running scores to show.
        let standing = match game.outcome(a.value, stones) {
            Some(_) => format!("value {}", game.describe_value_at(a.value, &a.position)),
            None => format!(
                "scores: first {}, second {}; value {}",
                scores.first, scores.second, a.value
            ),
        };
        writeln!(
            out,
            "{standing}; {} to move ({})",
            if first { "first" } else { "second" },
            if human { "you" } else { "retro" }
        )
        .map_err(io)?;
        let chosen = if human {
            match ask(game, &mut input, &mut out, &a, !history.is_empty())? {
                Action::Move(i) => {
                    history.push(Saved {
                        text: text.clone(),
                        scores,
                        played: played.len(),
                    });
                    i
                }
                Action::Quit => {
                    writeln!(
                        out,
                        "quit: first {}, second {}; value {}",
                        scores.first, scores.second, a.value
                    )
                    .map_err(io)?;
                    return Ok(0);
                }
                Action::Undo => {
                    // `ask` offers undo only when there is a saved turn.
                    if let Some(saved) = history.pop() {
                        let back: Vec<String> = played
                            .drain(saved.played..)
                            .map(|(who, mv)| format!("{who} {mv}"))
                            .collect();
                        writeln!(out, "undo: took back {}", back.join(" and ")).map_err(io)?;
                        text = saved.text;
                        scores = saved.scores;
                    }
                    continue;
                }
            }
        } else {
            a.first_best().unwrap_or(0)
        };
        let (mv, value) = &a.moves[chosen];
        let by = if human { "you play" } else { "retro plays" };
        let said = describe_move(game, MoveStyle::Spoken, mv);
        writeln!(out, "{by} {said} (value {value})").map_err(io)?;
        played.push((if human { "your" } else { "retro's" }, said));
        scores = scores_after(game, scores, &a.position, mv);
        text = game.format_position(&mv.child);
    }
}

fn io(e: std::io::Error) -> Error {
    Error::io("writing output", e)
}

/// Prompt until the player names a legal move or a command the game loop handles; help,
/// hints and refusals are answered here so the board is not redrawn for them.
fn ask<G: Registered>(
    game: &G,
    input: &mut impl BufRead,
    out: &mut impl Write,
    a: &Answer<G::Position>,
    can_undo: bool,
) -> Result<Action> {
    let cell = |i: usize| describe_move(game, MoveStyle::Spoken, &a.moves[i].0);
    let notation = game.move_notation();
    let (typed, moves_help) = match notation {
        MoveNotation::Cell => ("row col", CELL_MOVES),
        MoveNotation::Column => ("column", COLUMN_MOVES),
        MoveNotation::FromTo => ("row,col or row,col-row,col", FROM_TO_MOVES),
    };
    loop {
        write!(out, "your move ({typed}, or help): ").map_err(io)?;
        out.flush().map_err(io)?;
        let mut buf = Vec::new();
        let line = match read_line(input, &mut buf).map_err(|e| Error::io("reading stdin", e))? {
            Some(Line::Bytes(bytes)) => match std::str::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    let at = e.valid_up_to() + 1;
                    writeln!(out, "byte {at} of that line is not UTF-8 text").map_err(io)?;
                    continue;
                }
            },
            Some(Line::TooLong) => {
                writeln!(out, "that line is longer than {MAX_LINE} bytes, not a move")
                    .map_err(io)?;
                continue;
            }
            None => return Err(Error::input("input ended before the game did")),
        };
        let line = line.trim();
        // Echoed in messages: at most `EXCERPT` characters of it, quoted.
        let shown = crate::error::excerpt(line);
        match line.to_ascii_lowercase().as_str() {
            "help" => {
                writeln!(out, "{moves_help}\n{COMMANDS}\n{}", game.value_meaning()).map_err(io)?;
                continue;
            }
            "hint" => {
                let best: Vec<String> = (0..a.moves.len())
                    .filter(|&i| a.is_best(i))
                    .map(cell)
                    .collect();
                let s = if best.len() == 1 { "" } else { "s" };
                writeln!(
                    out,
                    "hint: best move{s} {} (value {})",
                    best.join(", "),
                    a.value
                )
                .map_err(io)?;
                continue;
            }
            "undo" if can_undo => return Ok(Action::Undo),
            "undo" => {
                writeln!(out, "nothing to undo: you have not moved yet").map_err(io)?;
                continue;
            }
            "quit" => return Ok(Action::Quit),
            _ => {}
        }
        // A move from one cell to another reads `3,3-2,2` as it is printed, and also any
        // other separators (`3 3 2 2`, `(3,3)-(2,2)`).
        let numbers: Option<Vec<usize>> = if notation == MoveNotation::FromTo
            && line
                .chars()
                .all(|c| c.is_ascii_digit() || " ,-()\t".contains(c))
        {
            line.split(|c: char| !c.is_ascii_digit())
                .filter(|t| !t.is_empty())
                .map(|t| t.parse().ok())
                .collect()
        } else {
            line.split_whitespace().map(|t| t.parse().ok()).collect()
        };
        let what = match (notation, numbers.as_deref()) {
            (MoveNotation::Cell, Some(&[r, c])) => {
                let found = a
                    .moves
                    .iter()
                    .position(|(mv, _)| mv.row + 1 == r && mv.col + 1 == c);
                if let Some(i) = found {
                    return Ok(Action::Move(i));
                }
                format!("illegal move {shown}")
            }
            (MoveNotation::Column, Some(&[c])) => {
                let found = a.moves.iter().position(|(mv, _)| mv.col + 1 == c);
                if let Some(i) = found {
                    return Ok(Action::Move(i));
                }
                let columns = game.board().dims().1;
                if (1..=columns).contains(&c) {
                    format!("illegal move {shown}: column {c} is full")
                } else {
                    format!("illegal move {shown}: the columns are 1 to {columns}")
                }
            }
            (MoveNotation::FromTo, Some(cells @ (&[_, _] | &[_, _, _, _]))) => {
                let at = |i: usize| (cells[i].wrapping_sub(1), cells[i + 1].wrapping_sub(1));
                let (from, to) = match cells.len() {
                    2 => (None, at(0)),
                    _ => (Some(at(0)), at(2)),
                };
                let found = a
                    .moves
                    .iter()
                    .position(|(mv, _)| mv.from == from && (mv.row, mv.col) == to);
                if let Some(i) = found {
                    return Ok(Action::Move(i));
                }
                format!("illegal move {shown}")
            }
            (MoveNotation::Column, Some(&[_, _, ..])) => {
                format!("illegal move {shown}: a move is one column number")
            }
            _ => format!("unknown input {shown} (type help for commands)"),
        };
        let legal: Vec<String> = (0..a.moves.len()).map(cell).collect();
        writeln!(out, "{what}; legal moves: {}", legal.join(", ")).map_err(io)?;
    }
}

#[cfg(test)]
mod tests {
    use crate::text::labelled;

    #[test]
    fn spaced_and_unspaced_drawings_look_the_same() {
        let want = "   1 2 3\n1  # + .\n2  + . .\n";
        assert_eq!(labelled("#+.\n+..\n", true), want);
        assert_eq!(labelled("# + .\n+ . .\n", true), want);
    }

    #[test]
    fn column_moves_number_only_the_columns() {
        assert_eq!(labelled(". . .\nx o .\n", false), "1 2 3\n. . .\nx o .\n");
        let text = labelled(&format!("{}\n", ".".repeat(10)), false);
        assert_eq!(
            text,
            format!(" 1  2  3  4  5  6  7  8  9 10\n{}\n", [" ."; 10].join(" "))
        );
    }

    #[test]
    fn two_digit_labels_stay_aligned() {
        let row = "o".repeat(10);
        let drawing = format!("{row}\n").repeat(10);
        let text = labelled(&drawing, true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "     1  2  3  4  5  6  7  8  9 10");
        assert_eq!(lines[1], " 1   o  o  o  o  o  o  o  o  o  o");
        assert_eq!(lines[10], "10   o  o  o  o  o  o  o  o  o  o");
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
    }
}
