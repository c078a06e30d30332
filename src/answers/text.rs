//! Answers as text, the way `retro query` and `retro play` print them: the library renders,
//! the command line prints.

use crate::answers::probe::{self, Answer, Line, MoveStyle, describe_move};
use crate::game::{Gameplay, MoveNotation};

/// The board under column numbers and, where moves name cells (`rows`), beside row
/// numbers; a game whose moves are columns needs only the column numbers. `Game::draw`
/// puts spaces between cells for some games and not for others; every cell is one char,
/// so dropping the spaces and laying the cells out here gives every game the same look,
/// and room for two-digit labels.
pub fn labelled(drawing: &str, rows_numbered: bool) -> String {
    let rows: Vec<Vec<char>> = drawing
        .lines()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect())
        .collect();
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let rw = rows.len().to_string().len();
    let cw = cols.to_string().len();
    let header: Vec<String> = (1..=cols).map(|j| format!("{j:>cw$}")).collect();
    if !rows_numbered {
        let mut out = format!("{}\n", header.join(" "));
        for row in &rows {
            let cells: Vec<String> = row.iter().map(|c| format!("{c:>cw$}")).collect();
            out.push_str(&format!("{}\n", cells.join(" ")));
        }
        return out;
    }
    let mut out = format!("{:rw$}  {}\n", "", header.join(" "));
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|c| format!("{c:>cw$}")).collect();
        out.push_str(&format!("{:>rw$}  {}\n", i + 1, cells.join(" ")));
    }
    out
}

/// A principal variation as `retro query --pv` prints it: each step's mover, move and
/// position (and the running scores of a game of scores), then the result.
pub fn principal_variation<G: Gameplay>(
    game: &G,
    line: &Line<G::Position>,
    value: i64,
    start: &G::Position,
) -> String {
    let pv = &line.steps;
    let stones = game.layer_of(start);
    let mut out = String::from("principal variation\n");
    // Moves and positions in columns as wide as the widest of the line: a long line
    // (`10,10`, two-digit young rows) stays aligned.
    let moves: Vec<String> = pv
        .iter()
        .map(|s| describe_move(game, MoveStyle::Listed, &s.mv))
        .collect();
    let positions: Vec<String> = pv
        .iter()
        .map(|s| game.format_position(&s.mv.child))
        .collect();
    let mw = moves.iter().map(String::len).max().unwrap_or(0);
    let pw = positions.iter().map(String::len).max().unwrap_or(0).max(20);
    let nw = pv.len().to_string().len().max(3);
    // A game that ends in a win, a loss or a tie has no scores to run alongside.
    if game.outcome(value, stones).is_some() {
        for (i, (s, (mv, pos))) in pv.iter().zip(moves.iter().zip(&positions)).enumerate() {
            let who = if s.first_to_move { "first" } else { "second" };
            out.push_str(&format!("  {:>nw$}. {who:<6} {mv:<mw$}  -> {pos}\n", i + 1));
        }
        if let Some(r) = line.repeats {
            out.push_str(&format!("  {}\n", r.describe()));
        }
        out.push_str(&format!(
            "  result {}\n",
            game.describe_value_at(value, start)
        ));
        return out;
    }
    for (i, (s, (mv, pos))) in pv.iter().zip(moves.iter().zip(&positions)).enumerate() {
        let who = if s.first_to_move { "first" } else { "second" };
        out.push_str(&format!(
            "  {:>nw$}. {who:<6} {mv:<mw$}  -> {pos:<pw$} scores: first {}, second {}\n",
            i + 1,
            s.scores.first,
            s.scores.second
        ));
    }
    let end = pv.last().map(|s| s.scores).unwrap_or_default();
    out.push_str(&format!(
        "  result {} (the position's value is {value})\n",
        game.line_result(end)
    ));
    out
}

/// What `query` says of a position of a game whose positions do not show whether play
/// reaches them (`Gameplay::check_reachable_is_exact`).
const REACH_NOT_CHECKED: &str = "reached   not checked: the position shows nothing that rules it out; `retro export` marks the positions play from the start reaches\n";

/// The same for a position given as moves from the start: legal moves reach it.
const REACH_FROM_START: &str = "reached   yes: the moves given reach it from the start\n";

/// The same for a table without a start, which has nothing to search from.
const REACH_NOT_KNOWN: &str = "reached   not known: the position shows nothing that rules it out, and this table has no start to search from\n";

/// An answer as `retro query` prints it: the position drawn, who moves, its value in
/// words, and every move with its child and value, the best marked.
pub fn answer<G: Gameplay>(game: &G, a: &Answer<G::Position>) -> String {
    let stones = game.layer_of(&a.position);
    let mut out = format!("position  {}\n", game.format_position(&a.position));
    let mut drawing = game.draw(&a.position);
    // A move names a column: number them, as play does.
    if game.move_notation() == MoveNotation::Column {
        drawing = labelled(&drawing, false);
    }
    for line in drawing.lines() {
        out.push_str(&format!("          {line}\n"));
    }
    // What the position holds, in the game's words (a layer's number is not always it).
    let holds = game.holds(&a.position);
    out.push_str(&format!("{:<10}{}\n", holds.label, holds.words));
    if stones == game.last_layer() && !game.values().for_side_to_move() {
        out.push_str("to move   nobody (the board is full)\n");
    } else if a.moves.is_empty() {
        out.push_str("to move   nobody (the game is over)\n");
    } else {
        out.push_str(&format!(
            "to move   {}\n",
            probe::side_to_move(game, &a.position)
        ));
    }
    out.push_str(&format!(
        "value     {}\n",
        game.describe_value_at(a.value, &a.position)
    ));
    if !game.check_reachable_is_exact() {
        out.push_str(match game.start_position() {
            _ if a.from_start => REACH_FROM_START,
            Some(_) => REACH_NOT_CHECKED,
            None => REACH_NOT_KNOWN,
        });
    }
    let named: Vec<String> = a
        .moves
        .iter()
        .map(|(mv, _)| describe_move(game, MoveStyle::Listed, mv))
        .collect();
    // A cell `(r,c)` fits 8 columns on every board; `column 10` does not.
    let width = named.iter().map(String::len).max().unwrap_or(0).max(8);
    // The positions' column as wide as the longest child (a 5 x 5 board's take 31
    // characters), and at least the 21 a small board's table has always had.
    let pw = a
        .moves
        .iter()
        .map(|(mv, _)| game.format_position(&mv.child).len())
        .max()
        .unwrap_or(0)
        .max(21);
    // A game that ends in a win, a loss, a tie or a draw stores a code: each move gets its
    // result and remoteness in words, for the side that plays it ("win in 3"); a game of
    // scores its value.
    let outcomes = game.outcome(a.value, stones).is_some();
    if !a.moves.is_empty() {
        let head = match game.move_notation() {
            MoveNotation::Cell => "cell",
            MoveNotation::Column | MoveNotation::FromTo | MoveNotation::Named => "move",
        };
        let what = if outcomes { "result" } else { "value" };
        out.push_str(&format!(
            "moves     {head:<width$} {:<pw$} {what}\n",
            "position"
        ));
    }
    for (i, ((mv, v), cell)) in a.moves.iter().zip(&named).enumerate() {
        let best = if a.is_best(i) { "  best" } else { "" };
        let value = match game.outcome(*v, stones) {
            Some(o) => o.words(),
            None => format!("{v:>5}"),
        };
        out.push_str(&format!(
            "          {cell:<width$} {:<pw$} {value}{best}\n",
            game.format_position(&mv.child)
        ));
    }
    out
}

/// A line given as moves from the start, as `retro query --line` prints it: each ply's
/// mover, move and position, the position's value in words, and whether the move was best
/// (where not, a move that was).
pub fn line_of_play<G: Gameplay>(game: &G, plies: &[probe::Ply<G::Position>]) -> String {
    let mut out = String::from("line of play\n");
    let moves: Vec<String> = plies
        .iter()
        .map(|p| match &p.mv {
            Some(mv) => describe_move(game, MoveStyle::Listed, mv),
            None => String::new(),
        })
        .collect();
    let positions: Vec<String> = plies
        .iter()
        .map(|p| game.format_position(&p.position))
        .collect();
    let mw = moves.iter().map(String::len).max().unwrap_or(0);
    let pw = positions.iter().map(String::len).max().unwrap_or(0);
    let nw = plies.len().to_string().len().max(3);
    for (i, (p, (mv, pos))) in plies.iter().zip(moves.iter().zip(&positions)).enumerate() {
        let who = match (&p.mv, p.first_to_move) {
            (None, _) => "start",
            (Some(_), true) => "first",
            (Some(_), false) => "second",
        };
        let arrow = if p.mv.is_some() { "->" } else { "  " };
        let judged = match (p.best, &p.instead) {
            (Some(true), _) => "  best".to_string(),
            (Some(false), Some(b)) => format!(
                "  not best (best: {})",
                describe_move(game, MoveStyle::Listed, b)
            ),
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {i:>nw$}. {who:<6} {mv:<mw$}  {arrow} {pos:<pw$}  {}{judged}\n",
            game.describe_value_at(p.value, &p.position)
        ));
    }
    out
}
