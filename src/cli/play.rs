//! `retro play`: a game in the terminal against the table's perfect player. Moves are read
//! from stdin as `row,col` (connect: a column number; teeko and quixo also
//! `row,col-row,col`; morris by point names, `d2`, `d2-d3`, `d2-d3xa4`), so a script can
//! drive it; everything is written to stdout.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::ValueEnum;

use super::lines::{Line, MAX_LINE, read_line};
use super::open_table;
use crate::answers::probe::{
    Answer, MoveStyle, answer_text, describe_move, scores_after, start_scores,
};
use crate::error::{Error, Result};
use crate::game::{Board, MoveNotation, Registered, Registry, Scores, Visitor};
use crate::table::Table;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
    First,
    Second,
    // By the mark the side plays (`Notation::marks`).
    X,
    O,
}

/// Whether the player of `side` moves first in game `G`: x and o by the game's marks
/// (`Notation::marks`); a game without them refuses them.
fn plays_first<G: Registered>(side: Side) -> Result<bool> {
    let mark = match side {
        Side::First => return Ok(true),
        Side::Second => return Ok(false),
        Side::X => 'x',
        Side::O => 'o',
    };
    match G::notation().marks {
        Some((first, _)) if first == mark => Ok(true),
        Some((_, second)) if second == mark => Ok(false),
        _ => Err(Error::input(format!(
            "--as {mark}: {} stones are not marked x or o; play --as first or --as second",
            G::NAME
        ))),
    }
}

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro play tables/young-sample.retro
  retro play tables/twins-sample1.retro --as second
  retro play ttt.retro --seed 7   retro varies its choice among equally good moves")]
pub struct Args {
    /// Table file.
    table: PathBuf,
    /// The side you play: first or second, or by its mark, x or o (any case; which moves
    /// first is listed below).
    #[arg(long = "as", value_enum, ignore_case = true, default_value_t = Side::First)]
    side: Side,
    /// Start from this position instead of the empty board (a table without a start: the
    /// position the explorer opens on): in the game's notation, or as moves from the start,
    /// `start` and the moves separated by spaces (`start 2,2 1,1`).
    #[arg(long)]
    from: Option<String>,
    /// Where retro has several equally good moves, choose among them at random, seeded by
    /// N: the same seed and the same moves typed give the same game. Without it, retro
    /// plays the first of them in the order `query` lists the moves.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
}

/// How moves are typed, by `MoveNotation`.
const CELL_MOVES: &str = "moves: `row,col`, 1-based (row 1 is the top row, column 1 the leftmost), e.g. `1,2`; `1 2` and `(1,2)` are read too";
/// For a game whose moves go from cell to cell, said by the moves the position has: a
/// stone put on a cell, and one taken from a cell to another (`from_to_help`).
const PLACE_MOVES: &str = "`row,col` puts a stone on that cell";
const SLIDE_MOVES: &str =
    "`row,col-row,col` slides a stone from the first cell to the second, a neighbouring empty one";
const PUSH_MOVES: &str = "`row,col-row,col` takes the cube on the first cell (on the border, blank or yours) and pushes it back in at the second, an end of its row or column";
const NAMED_MOVES: &str = "moves: as the game's players write them and the move list shows them; morris: `d2` places a stone, `d2-d3` slides (or flies) one, and `xa4` after either removes the stone on a4";
const COLUMN_MOVES: &str = "moves: a column number, 1-based from the left, e.g. `3` (or `column 3`); the stone drops to the lowest empty cell";

/// `help`'s line on what the standing says, for a game of scores.
const ON_COURSE: &str = "on course for result R: the result the game ends at (as `game over` says it: young first's total minus second's, twins first's total) if both sides play perfectly from here";

const COMMANDS: &str = "\
commands:
  help     this list
  hint     the best move(s) here and their value, without playing
  weights  the board's weights (games that have them)
  undo     take back your last move and the reply to it (also once the game is over)
  quit     end the game (so does the end of input, Ctrl-D)";

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
    /// The input ended (Ctrl-D at a terminal): leave without a word.
    End,
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
    // Where the explorer opens: the start, or for a table without one a position that can
    // arise and is not over, said before the board.
    let (opening, note) = game.opening();
    let opening = game.format_position(&opening);
    let mut text = match &args.from {
        Some(from) => from.clone(),
        None => {
            if let Some(note) = note {
                writeln!(
                    out,
                    "this table has no start: play opens on {opening} ({note})"
                )
                .map_err(io)?;
            }
            opening
        }
    };
    let mut scores = start_scores(
        game,
        &crate::answers::probe::position_from_text(game, &text)?,
    );
    let mut history: Vec<Saved> = Vec::new();
    // Every move since the start, as `undo` reports them: who, and the move.
    let mut played: Vec<(&str, String)> = Vec::new();
    let notation = game.move_notation();
    let you_first = plays_first::<G>(args.side)?;
    // Drawn from only when retro moves, so a seed and the moves typed fix the game.
    let mut chooser = args.seed.map(crate::SplitMix);
    // A player chooses by the weights, so they come first (and on `weights`).
    if let Some(weights) = game.draw_weights() {
        write!(out, "{weights}").map_err(io)?;
    }
    loop {
        // A table written over in place (`cp` over it) since it was opened would answer
        // from its new bytes: that is an error, as in `query` and `serve`.
        let a = table.unless_changed(answer_text(game, table, &text))?;
        let stones = game.layer_of(&a.position);
        let drawing = game.draw(&a.position);
        // A game that names its moves labels its own drawing (morris: files and ranks).
        let drawing = match notation {
            MoveNotation::Named => drawing,
            _ => crate::answers::text::labelled(&drawing, notation != MoveNotation::Column),
        };
        write!(out, "\n{drawing}").map_err(io)?;
        let action = if a.moves.is_empty() {
            writeln!(out, "{}", game_over(game, &a, scores)).map_err(io)?;
            if history.is_empty() {
                return Ok(0);
            }
            // The game is over, but a player who wants to try another line may still
            // take back a move.
            match after_the_end(&mut input, &mut out)? {
                true => Action::Undo,
                false => return Ok(0),
            }
        } else {
            let first = game.first_to_move(&a.position);
            let human = you_first == first;
            // A game that ends in a win, a loss or a tie has no running scores to show.
            let standing = match game.outcome(a.value, stones) {
                Some(_) => format!("value {}", game.describe_value_at(a.value, &a.position)),
                None => format!(
                    "scores: first {}, second {}; {}",
                    scores.first,
                    scores.second,
                    on_course(game, scores, a.value)
                ),
            };
            writeln!(
                out,
                "{standing}; {} to move ({})",
                if first { "first" } else { "second" },
                if human { "you" } else { "retro" }
            )
            .map_err(io)?;
            if human {
                let seeded = chooser.is_some();
                ask(
                    game,
                    &mut input,
                    &mut out,
                    &a,
                    scores,
                    !history.is_empty(),
                    seeded,
                )?
            } else {
                Action::Move(retro_move(&a, chooser.as_mut()))
            }
        };
        let chosen = match action {
            Action::Move(i) => i,
            Action::End => {
                // Ctrl-D: end the prompt's line and go.
                writeln!(out).map_err(io)?;
                return Ok(0);
            }
            Action::Quit => {
                let standing = match game.outcome(a.value, stones) {
                    Some(_) => game.describe_value_at(a.value, &a.position),
                    None => format!(
                        "first {}, second {}; {}",
                        scores.first,
                        scores.second,
                        on_course(game, scores, a.value)
                    ),
                };
                writeln!(out, "quit: {standing}").map_err(io)?;
                return Ok(0);
            }
            Action::Undo => {
                // `ask` and `after_the_end` offer undo only when there is a saved turn.
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
        };
        let first = game.first_to_move(&a.position);
        let human = you_first == first;
        if human {
            history.push(Saved {
                text: text.clone(),
                scores,
                played: played.len(),
            });
        }
        let (mv, _) = &a.moves[chosen];
        let said = describe_move(game, MoveStyle::Spoken, mv);
        let by = if human { "you play" } else { "retro plays" };
        writeln!(out, "{by} {said} {}", judged(game, &a, chosen, scores)).map_err(io)?;
        played.push((if human { "your" } else { "retro's" }, said));
        scores = scores_after(game, scores, &a.position, mv);
        text = game.format_position(&mv.child);
    }
}

/// What `play` says where the game has ended: its result, or in a game of scores the
/// scores and the result they make.
fn game_over<G: Registered>(game: &G, a: &Answer<G::Position>, scores: Scores) -> String {
    match game.outcome(a.value, game.layer_of(&a.position)) {
        Some(_) => format!(
            "game over: {}",
            game.describe_value_at(a.value, &a.position)
        ),
        None => format!(
            "game over: first {}, second {}; result {}",
            scores.first,
            scores.second,
            game.line_result(scores)
        ),
    }
}

/// The move retro plays: the first best move, or with a seed (`--seed`) one of the best
/// moves at random, so a player meets more than one line of perfect play.
fn retro_move<P>(a: &Answer<P>, chooser: Option<&mut crate::SplitMix>) -> usize {
    let Some(chooser) = chooser else {
        return a.first_best().unwrap_or(0);
    };
    let best: Vec<usize> = (0..a.moves.len()).filter(|&i| a.is_best(i)).collect();
    match best.len() {
        // A position with moves has a best one; a move, should it have none.
        0 => 0,
        n => best[(chooser.next_u64() % n as u64) as usize],
    }
}

/// `help`'s line on how retro chooses among equally good moves.
fn choosing(seeded: bool) -> &'static str {
    match seeded {
        true => {
            "retro plays a best move, chosen at random among equally good ones (seeded by --seed)"
        }
        false => {
            "retro plays a best move, the first of equally good ones in the order `query` lists them (play --seed N varies it)"
        }
    }
}

/// Where a game of scores is headed from a position of value `value` with `scores`
/// banked: the result it ends at with perfect play from here (`Gameplay::line_result` of
/// the scores plus what the rest of the game brings), as `game over` will say it. A value
/// alone counts only the stones to come, which a move's reward has just left behind.
fn on_course<G: Registered>(game: &G, scores: Scores, value: i64) -> String {
    format!("on course for result {}", game.line_result(scores) + value)
}

/// What a move did, in parentheses after it: in words for a game with results, and for a
/// game of scores the result it puts the game on course for (`on_course`, from the
/// `scores` before it); where it is not a best move, what it gave away and which move was
/// best.
fn judged<G: Registered>(
    game: &G,
    a: &Answer<G::Position>,
    chosen: usize,
    scores: Scores,
) -> String {
    let stones = game.layer_of(&a.position);
    let value = a.moves[chosen].1;
    let words = |v: i64| match game.outcome(v, stones) {
        Some(o) => o.words(),
        None => on_course(game, scores, v),
    };
    if a.is_best(chosen) {
        return format!("({})", words(value));
    }
    let best = a.first_best().unwrap_or(0);
    let best_move = describe_move(game, MoveStyle::Spoken, &a.moves[best].0);
    match game.outcome(a.value, stones) {
        Some(was) => format!(
            "({}): a mistake, this position was a {} with {best_move}",
            words(value),
            was.words()
        ),
        None => format!(
            "({}): a mistake, {} less than {best_move} ({}) for you",
            words(value),
            (a.value - value).abs(),
            words(a.value)
        ),
    }
}

/// What goes between moves in a list: a space, since a cell is written with a comma
/// (`1,2 1,3`); a comma between columns (`column 2, column 3`).
fn joint(notation: MoveNotation) -> &'static str {
    match notation {
        MoveNotation::Column => ", ",
        MoveNotation::Cell | MoveNotation::FromTo | MoveNotation::Named => " ",
    }
}

fn io(e: std::io::Error) -> Error {
    Error::io("writing output", e)
}

/// One line from the player, None at the end of input; a line that is not text is
/// answered here and asked again.
fn read_answer(input: &mut impl BufRead, out: &mut impl Write) -> Result<Option<String>> {
    loop {
        let mut buf = Vec::new();
        match read_line(input, &mut buf).map_err(|e| Error::io("reading stdin", e))? {
            Some(Line::Bytes(bytes)) => match std::str::from_utf8(bytes) {
                Ok(text) => return Ok(Some(text.trim().to_string())),
                Err(e) => {
                    let at = e.valid_up_to() + 1;
                    writeln!(out, "byte {at} of that line is not UTF-8 text").map_err(io)?;
                }
            },
            Some(Line::TooLong) => {
                writeln!(out, "that line is longer than {MAX_LINE} bytes, not a move")
                    .map_err(io)?;
            }
            None => return Ok(None),
        }
    }
}

/// After the game has ended: whether the player takes back their last move (`undo`);
/// anything else, or the end of input, leaves.
fn after_the_end(input: &mut impl BufRead, out: &mut impl Write) -> Result<bool> {
    write!(
        out,
        "undo to take back your last move, anything else to leave: "
    )
    .map_err(io)?;
    out.flush().map_err(io)?;
    let line = read_answer(input, out)?;
    match line {
        Some(l) if l.eq_ignore_ascii_case("undo") => Ok(true),
        Some(_) => Ok(false),
        None => {
            writeln!(out).map_err(io)?;
            Ok(false)
        }
    }
}

/// The numbers of a typed move, read the same whatever separates them: `1,2`, `1 2`,
/// `(1,2)`, `3,3-2,2`, `3 3 2 2`, and for a column `3` or `column 3`. None for anything
/// else.
fn move_numbers(line: &str) -> Option<Vec<usize>> {
    let lower = line.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("column")
        .or_else(|| lower.strip_prefix("col"))
        .unwrap_or(&lower);
    if rest.is_empty()
        || !rest
            .chars()
            .all(|c| c.is_ascii_digit() || " ,-()\t".contains(c))
    {
        return None;
    }
    let numbers: Option<Vec<usize>> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().ok())
        .collect();
    numbers.filter(|n| !n.is_empty())
}

/// Prompt until the player names a legal move or a command the game loop handles; help,
/// hints and refusals are answered here so the board is not redrawn for them.
fn ask<G: Registered>(
    game: &G,
    input: &mut impl BufRead,
    out: &mut impl Write,
    a: &Answer<G::Position>,
    scores: Scores,
    can_undo: bool,
    seeded: bool,
) -> Result<Action> {
    let cell = |i: usize| describe_move(game, MoveStyle::Spoken, &a.moves[i].0);
    let notation = game.move_notation();
    let (typed, moves_help) = match notation {
        MoveNotation::Cell => ("row,col", CELL_MOVES.to_string()),
        MoveNotation::Column => ("column", COLUMN_MOVES.to_string()),
        MoveNotation::FromTo => from_to_help(game, a),
        MoveNotation::Named => ("a move as the list writes it", NAMED_MOVES.to_string()),
    };
    // What the values mean: for a game of scores, the result the standing is on course for.
    let meaning = match game.outcome(a.value, game.layer_of(&a.position)) {
        Some(_) => game.value_meaning(),
        None => ON_COURSE,
    };
    loop {
        write!(out, "your move ({typed}, or help): ").map_err(io)?;
        out.flush().map_err(io)?;
        let Some(line) = read_answer(input, out)? else {
            return Ok(Action::End);
        };
        let line = line.as_str();
        // Echoed in messages: at most `EXCERPT` characters of it, quoted.
        let shown = crate::error::excerpt(line);
        match line.to_ascii_lowercase().as_str() {
            "help" => {
                writeln!(out, "{moves_help}\n{COMMANDS}\n{meaning}").map_err(io)?;
                writeln!(out, "{}", choosing(seeded)).map_err(io)?;
                continue;
            }
            "hint" => {
                let best: Vec<String> = (0..a.moves.len())
                    .filter(|&i| a.is_best(i))
                    .map(cell)
                    .collect();
                let s = if best.len() == 1 { "" } else { "s" };
                let stones = game.layer_of(&a.position);
                let value = match game.outcome(a.value, stones) {
                    Some(o) => o.words(),
                    None => on_course(game, scores, a.value),
                };
                let best = best.join(joint(notation));
                writeln!(out, "hint: best move{s} {best} ({value})").map_err(io)?;
                continue;
            }
            "weights" => {
                let weights = game
                    .draw_weights()
                    .unwrap_or_else(|| "this game has no weights\n".into());
                write!(out, "{weights}").map_err(io)?;
                continue;
            }
            "undo" if can_undo => return Ok(Action::Undo),
            "undo" => {
                writeln!(out, "nothing to undo: you have not moved yet").map_err(io)?;
                continue;
            }
            "quit" | "exit" => return Ok(Action::Quit),
            _ => {}
        }
        // A move as `query --json` writes it (`move`), or as the list says it.
        let listed = a.moves.iter().map(|(mv, _)| mv);
        if let Some(i) = crate::answers::probe::find_move(game, listed, line) {
            return Ok(Action::Move(i));
        }
        if notation == MoveNotation::Named {
            match named_move(game, a, line, &shown) {
                Ok(i) => return Ok(Action::Move(i)),
                Err(why) => writeln!(out, "{why}").map_err(io)?,
            }
            continue;
        }
        let numbers = move_numbers(line);
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
                match game.why_illegal(&a.position, from, to) {
                    Some(why) => format!("illegal move {shown}: {why}"),
                    None => format!("illegal move {shown}"),
                }
            }
            (MoveNotation::Column, Some(&[_, _, ..])) => {
                format!("illegal move {shown}: a move is one column number")
            }
            _ => format!("unknown input {shown} (type help for commands)"),
        };
        let legal: Vec<String> = (0..a.moves.len()).map(cell).collect();
        writeln!(out, "{what}; legal moves: {}", legal.join(joint(notation))).map_err(io)?;
    }
}

/// The prompt's form and `help`'s words for a game whose moves go from cell to cell, by
/// the moves the position has: Teeko puts stones on cells and then slides them, a Quixo
/// move always takes a cube and pushes it back in.
fn from_to_help<G: Registered>(game: &G, a: &Answer<G::Position>) -> (&'static str, String) {
    let places = a.moves.iter().any(|(mv, _)| mv.from.is_none());
    let takes = a.moves.iter().any(|(mv, _)| mv.from.is_some());
    // Quixo's cubes are pushed along a line; a stone that moves otherwise slides.
    let taken = match G::NAME {
        "quixo" => PUSH_MOVES,
        _ => SLIDE_MOVES,
    };
    let example = a
        .moves
        .first()
        .map(|(mv, _)| describe_move(game, MoveStyle::Spoken, mv))
        .unwrap_or_default();
    let (typed, forms) = match (places, takes) {
        (true, false) => ("row,col", PLACE_MOVES.to_string()),
        (false, true) => ("row,col-row,col", taken.to_string()),
        _ => (
            "row,col or row,col-row,col",
            format!("{PLACE_MOVES}; {taken}"),
        ),
    };
    (
        typed,
        format!("moves: {forms}; 1-based, row 1 the top, e.g. `{example}`"),
    )
}

/// The move of a game whose moves are named (`MoveNotation::Named`) that `line` types, or
/// what to say back: the moves it starts, or the legal moves.
fn named_move<G: Registered>(
    game: &G,
    a: &Answer<G::Position>,
    line: &str,
    shown: &str,
) -> std::result::Result<usize, String> {
    let legal: Vec<String> = (0..a.moves.len())
        .map(|i| describe_move(game, MoveStyle::Spoken, &a.moves[i].0))
        .collect();
    let typed = line.trim();
    if let Some(i) = legal.iter().position(|m| m.eq_ignore_ascii_case(typed)) {
        return Ok(i);
    }
    // The start of whole moves: a move that closes a mill (`c5`) names the stone it takes
    // (`c5xc4`).
    let lower = typed.to_ascii_lowercase();
    let longer: Vec<&String> = legal
        .iter()
        .filter(|m| m.len() > lower.len() && m.to_ascii_lowercase().starts_with(&lower))
        .collect();
    if !longer.is_empty() && !lower.is_empty() {
        let names = longer
            .iter()
            .map(|m| m.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let closes = longer.iter().all(|m| m[lower.len()..].starts_with('x'));
        return Err(match closes {
            true => format!(
                "{shown} closes a mill, so it takes one of the other side's stones: say which, as {names}"
            ),
            false => format!("{shown} is the start of {names}: type the whole move"),
        });
    }
    let joined = legal.join(joint(MoveNotation::Named));
    Err(format!("illegal move {shown}; legal moves: {joined}"))
}

#[cfg(test)]
mod tests {
    use crate::answers::text::labelled;

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
