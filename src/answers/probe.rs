//! Probing a table: a position's value, every move's value, the principal variation and
//! both players' running scores, as `query`, `play`, `export` and `serve` show them. Works
//! on positions (not text) and on any `Game`; the game supplies its own wording and scores
//! (`Game::describe_value`, `Game::final_scores`, `Game::board_scores`).

use serde_json::json;

use crate::error::{Error, Result};
use crate::game::{Gameplay, Move, MoveNotation, Registered, Scores, Verdict};
use crate::table::Table;

/// A position's answer, read from the table.
pub struct Answer<P> {
    /// The position asked about.
    pub position: P,
    /// Its value (see `docs/games.md` for what it means per game).
    pub value: i64,
    /// Every legal move, in `Game::moves` order, with its value seen from the position:
    /// the move's reward plus its child's value.
    pub moves: Vec<(Move<P>, i64)>,
    /// Whether the position was given as legal moves from the start (`played_from_start`),
    /// so that play reaches it whatever the position shows.
    pub from_start: bool,
}

impl<P> Answer<P> {
    /// Whether move `i` keeps the position's value (a best move).
    pub fn is_best(&self, i: usize) -> bool {
        self.moves[i].1 == self.value
    }

    /// The first best move in `Game::moves` order (None on a full board).
    pub fn first_best(&self) -> Option<usize> {
        (0..self.moves.len()).find(|&i| self.is_best(i))
    }
}

/// Where a move is written, each with its own form (`move_text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveStyle {
    /// A listing (`query`, `--pv`): `2,3`; a column move `column 3`.
    Listed,
    /// `play`'s dialogue, as its prompt reads a cell: `2,3`; a column move `column 3`
    /// (typed `3` or `column 3`).
    Spoken,
    /// A field of `export`'s CSV or Parquet: `2,3`; a column move `3`.
    Field,
}

/// The one place a move is written for people: the move onto 0-based `row`, `col`, in the
/// game's notation (a cell, 1-based; or only its column, 1-based from the left).
pub fn move_text(notation: MoveNotation, style: MoveStyle, row: usize, col: usize) -> String {
    from_to_text(notation, style, None, row, col)
}

/// `move_text` for a move that may take its stone from a cell (`Move::from`): written
/// `row,col-row,col` (1-based) in every style, and the cell alone where nothing is taken.
pub fn from_to_text(
    notation: MoveNotation,
    style: MoveStyle,
    from: Option<(usize, usize)>,
    row: usize,
    col: usize,
) -> String {
    let (r, c) = (row + 1, col + 1);
    match (notation, style) {
        // A named move is written by its game (`describe_move`); from its cells otherwise.
        (MoveNotation::FromTo | MoveNotation::Named, _) => match from {
            Some((fr, fc)) => format!("{},{}-{r},{c}", fr + 1, fc + 1),
            None => format!("{r},{c}"),
        },
        // One way to write a cell everywhere, the way `play` reads it.
        (MoveNotation::Cell, _) => format!("{r},{c}"),
        (MoveNotation::Column, MoveStyle::Listed | MoveStyle::Spoken) => format!("column {c}"),
        (MoveNotation::Column, MoveStyle::Field) => c.to_string(),
    }
}

/// `move_text` for a move of `game`.
pub fn describe_move<G: Gameplay>(game: &G, style: MoveStyle, mv: &Move<G::Position>) -> String {
    if let Some(name) = game.name_move(mv.from, (mv.row, mv.col), mv.take) {
        return name;
    }
    from_to_text(game.move_notation(), style, mv.from, mv.row, mv.col)
}

/// Look a position and all its children up in the table; a position play cannot reach
/// is refused (`Game::check_reachable`).
pub fn answer<G: Gameplay>(
    game: &G,
    table: &Table,
    position: G::Position,
) -> Result<Answer<G::Position>> {
    game.check_reachable(&position)?;
    let value = table.value(game.layer_of(&position), game.rank(&position))?;
    let moves = move_values(game, table, &position)?;
    Ok(Answer {
        position,
        value,
        moves,
        from_start: false,
    })
}

/// Every legal move of `position`, in `Game::moves` order, with its value seen from the
/// position (`Values::through`: the reward plus the child's value, or the child's value
/// turned round where values are for the side to move): what `query` lists and `export
/// --moves` writes. Unlike `answer`, it asks nothing of the position's reachability.
pub fn move_values<G: Gameplay>(
    game: &G,
    table: &Table,
    position: &G::Position,
) -> Result<Vec<(Move<G::Position>, i64)>> {
    game.moves(position)
        .into_iter()
        .map(|mv| {
            let child = table.value(game.layer_of(&mv.child), game.rank(&mv.child))?;
            let v = game.values().through(mv.reward, child);
            Ok((mv, v))
        })
        .collect()
}

/// Read a position as `position_from_text` does (the game's notation, or moves from the
/// start), then `answer` it.
pub fn answer_text<G: Gameplay>(
    game: &G,
    table: &Table,
    text: &str,
) -> Result<Answer<G::Position>> {
    let (position, from_start) = read_position(game, text)?;
    Ok(Answer {
        from_start,
        ..answer(game, table, position)?
    })
}

/// The move of `moves` that `text` names, as `play` reads a typed move: the move as
/// `query --json`'s `move` writes it (`2,3`, a column `3`, `1,1-2,2`, `d2-d3xa4`) or as
/// `query` lists it (`column 3`), in any case, with spaces and parentheses left out
/// (`(2, 3)`); its index in `moves`, or None.
pub fn find_move<'a, G: Gameplay + 'a>(
    game: &G,
    moves: impl IntoIterator<Item = &'a Move<G::Position>>,
    text: &str,
) -> Option<usize> {
    let key = |s: &str| -> String {
        let s: String = s
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
            .collect::<String>()
            .to_ascii_lowercase();
        // A column move may be written `column 3` or `col 3`, as `play` reads it.
        match game.move_notation() {
            MoveNotation::Column => s
                .strip_prefix("column")
                .or_else(|| s.strip_prefix("col"))
                .map_or(s.clone(), str::to_string),
            _ => s,
        }
    };
    let typed = key(text);
    if typed.is_empty() {
        return None;
    }
    moves
        .into_iter()
        .position(|mv| key(&describe_move(game, MoveStyle::Field, mv)) == typed)
}

/// The word a position given as moves from the start begins with (`start 2,2 1,1`).
pub const START_WORD: &str = "start";

/// A line of play given as moves from the start: the start, then each move played and the
/// position it leads to.
pub struct Played<P> {
    /// The position before the first move.
    pub start: P,
    /// Each move, as typed and as found, in order.
    pub moves: Vec<(String, Move<P>)>,
}

impl<P> Played<P> {
    /// Where the line ends.
    pub fn last(&self) -> &P {
        self.moves.last().map_or(&self.start, |(_, mv)| &mv.child)
    }
}

/// `text` read as moves from the start, where it is written so: the word `start`, then the
/// moves separated by spaces, each as `play` reads and writes it (`find_move`): `start 2,2
/// 1,1` for mnk, `start a5 c5` for morris, `start 1,3-3,3` for quixo, `start 3 3 2` or
/// `start column 3 column 3 column 2` for connect; or a line in the game's own short form
/// (`Gameplay::line_of_play`: connect's `332`), alone or after `start`. None where `text`
/// is neither (a position in the game's own notation); an input error for a table without
/// a start, and for a move that is not legal where it comes (naming the legal ones).
pub fn played_from_start<G: Gameplay>(game: &G, text: &str) -> Result<Option<Played<G::Position>>> {
    let trimmed = text.trim();
    let rest = match trimmed.split_once(char::is_whitespace) {
        Some((first, rest)) if first.eq_ignore_ascii_case(START_WORD) => rest,
        None if trimmed.eq_ignore_ascii_case(START_WORD) => "",
        _ => match game.line_of_play(trimmed) {
            Some(line) => return short_line(game, line?).map(Some),
            None => return Ok(None),
        },
    };
    if let Some(line) = game.line_of_play(rest) {
        return short_line(game, line?).map(Some);
    }
    let Some(start) = game.start_position() else {
        return Err(Error::input(format!(
            "{}: this table has no start (it holds part of a game), so a position cannot be given as moves from it; give the position itself",
            crate::error::excerpt(text)
        )));
    };
    let mut played = Played {
        start,
        moves: Vec::new(),
    };
    for (i, word) in move_words(game, rest).into_iter().enumerate() {
        let at = played.last().clone();
        let moves = match game.ended(&at) {
            Some(_) => Vec::new(),
            None => game.moves(&at),
        };
        let shown = crate::error::excerpt(&word);
        if moves.is_empty() {
            return Err(Error::input(format!(
                "move {} ({shown}) comes after the game is over, at {}",
                i + 1,
                game.format_position(&at)
            )));
        }
        let Some(found) = find_move(game, &moves, &word) else {
            let legal: Vec<String> = moves
                .iter()
                .map(|mv| describe_move(game, MoveStyle::Field, mv))
                .collect();
            return Err(Error::input(format!(
                "move {} ({shown}) is not legal at {}; legal moves there: {}",
                i + 1,
                game.format_position(&at),
                legal.join(" ")
            )));
        };
        let mv = moves
            .into_iter()
            .nth(found)
            .ok_or_else(|| Error::other("move lost"))?;
        played.moves.push((word, mv));
    }
    Ok(Some(played))
}

/// The moves of a position given as moves from the start, one a word, as `play` reads
/// them: where a move names a column, `column 3` (or `col 3`) is one move, as `play`
/// writes it, not two words.
fn move_words<G: Gameplay>(game: &G, text: &str) -> Vec<String> {
    let mut words = text.split_whitespace();
    let mut out = Vec::new();
    while let Some(word) = words.next() {
        let names_column = game.move_notation() == MoveNotation::Column
            && (word.eq_ignore_ascii_case("column") || word.eq_ignore_ascii_case("col"));
        match words.clone().next() {
            Some(next) if names_column => {
                out.push(format!("{word} {next}"));
                words.next();
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}

/// A line in the game's short form (`Gameplay::line_of_play`) as a line of play from the
/// start, each move written as `play` writes it.
fn short_line<G: Gameplay>(game: &G, line: Vec<Move<G::Position>>) -> Result<Played<G::Position>> {
    let Some(start) = game.start_position() else {
        return Err(Error::other("a line of play in a table without a start"));
    };
    let moves = line
        .into_iter()
        .map(|mv| (describe_move(game, MoveStyle::Field, &mv), mv))
        .collect();
    Ok(Played { start, moves })
}

/// A position as `query`, `play --from`, `serve` and Python take it: the game's own
/// notation (`Gameplay::parse_position`), or moves from the start (`played_from_start`).
pub fn position_from_text<G: Gameplay>(game: &G, text: &str) -> Result<G::Position> {
    read_position(game, text).map(|(position, _)| position)
}

/// `position_from_text`, and whether the position was given as moves from the start.
pub fn read_position<G: Gameplay>(game: &G, text: &str) -> Result<(G::Position, bool)> {
    match played_from_start(game, text)? {
        Some(played) => Ok((played.last().clone(), true)),
        None => Ok((game.parse_position(text)?, false)),
    }
}

/// Running scores at `pos`: the board's own scores for a game that scores the board,
/// else zero (a line's moves add up from here).
pub fn start_scores<G: Gameplay>(game: &G, pos: &G::Position) -> Scores {
    game.board_scores(pos).unwrap_or_default()
}

/// Running scores after `mv` is played from `pos` by the side to move.
pub fn scores_after<G: Gameplay>(
    game: &G,
    scores: Scores,
    pos: &G::Position,
    mv: &Move<G::Position>,
) -> Scores {
    if let Some(board) = game.board_scores(&mv.child) {
        return board;
    }
    let mut s = scores;
    if game.first_to_move(pos) {
        s.first += mv.reward;
    } else {
        s.second -= mv.reward;
    }
    s
}

/// Whether the first player is to move at `pos` (`Gameplay::first_to_move`).
pub fn first_to_move<G: Gameplay>(game: &G, pos: &G::Position) -> bool {
    game.first_to_move(pos)
}

/// "first" or "second": who is to move at `pos`, where play goes on.
pub fn side_to_move<G: Gameplay>(game: &G, pos: &G::Position) -> &'static str {
    if game.first_to_move(pos) {
        "first"
    } else {
        "second"
    }
}

/// Who moves with `stones` on a board of `cells`: "first", "second", or "none" when full.
pub fn to_move(stones: usize, cells: usize) -> &'static str {
    if stones == cells {
        "none"
    } else if stones.is_multiple_of(2) {
        "first"
    } else {
        "second"
    }
}

/// One move of a principal variation.
pub struct Step<P> {
    /// The move played.
    pub mv: Move<P>,
    /// Whether the first player played it.
    pub first_to_move: bool,
    /// Both players' running scores after it.
    pub scores: Scores,
}

/// A principal variation: the moves of best play, and where it stopped because it came
/// back to a position it had been at.
pub struct Line<P> {
    /// Each move with the position after it.
    pub steps: Vec<Step<P>>,
    /// Where the line came back, if it did (a draw).
    pub repeats: Option<Repeat>,
}

/// The position after ply `ply` of a line is the one after ply `earlier`, 0 for the line's
/// start, or an image of it under the board's symmetries (one table entry): best play goes
/// round, a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repeat {
    /// The ply whose position repeats.
    pub ply: usize,
    /// The earlier ply it repeats (0: the start).
    pub earlier: usize,
    /// It is a symmetric image of the earlier position rather than the same.
    pub image: bool,
}

impl Repeat {
    /// "the position after ply 23 repeats ply 15: a draw" (", up to symmetry" for an image).
    pub fn describe(&self) -> String {
        let earlier = match self.earlier {
            0 => "the start".to_string(),
            e => format!("ply {e}"),
        };
        let image = if self.image { " up to symmetry" } else { "" };
        format!(
            "the position after ply {} repeats {earlier}{image}: a draw",
            self.ply
        )
    }
}

/// Follow the first best move until play ends, or, in a game whose positions repeat (a
/// draw), until the line comes back to a position it has been at (`Line::repeats`): the
/// cycle is then shown once.
pub fn principal_variation<G: Gameplay>(
    game: &G,
    table: &Table,
    start: &G::Position,
) -> Result<Line<G::Position>> {
    let mut steps: Vec<Step<G::Position>> = Vec::new();
    let mut position = start.clone();
    let mut scores = start_scores(game, start);
    let mut seen = std::collections::HashMap::new();
    let mut repeats = None;
    loop {
        // Where moves stay inside layers, best play may come back to a position: a draw.
        let key = (game.layer_of(&position), game.rank(&position));
        if let Some(&earlier) = seen.get(&key) {
            let before = match earlier {
                0 => start,
                e => &steps[e - 1].mv.child,
            };
            repeats = Some(Repeat {
                ply: steps.len(),
                earlier,
                image: game.format_position(before) != game.format_position(&position),
            });
            break;
        }
        seen.insert(key, steps.len());
        let a = answer(game, table, position)?;
        let Some(best) = a.first_best() else {
            break;
        };
        let mv = a.moves[best].0.clone();
        scores = scores_after(game, scores, &a.position, &mv);
        position = mv.child.clone();
        steps.push(Step {
            mv,
            first_to_move: game.first_to_move(&a.position),
            scores,
        });
    }
    Ok(Line { steps, repeats })
}

/// The JSON object of `query --json` (and of each `--batch --json` line and `serve`'s
/// answers): game, position, stones, to_move, value, moves, best (the best moves' texts,
/// each as its move's `move`), and both final scores where the game defines them. A game that ends in a win, a loss, a tie or a draw (mnk,
/// connect, teeko, quixo, morris) stores a code, not a value: there the object (and each move, for
/// the side that plays it) has `result` and `remoteness`, and the stored number as `code`
/// instead of `value`. Each move names its `cell` `[row, col]` (1-based, the landing cell
/// for connect), and also its `column` (1-based) where a move only chooses a column
/// (`MoveNotation::Column`).
pub fn to_json<G: Registered>(game: &G, a: &Answer<G::Position>) -> serde_json::Value {
    let stones = game.layer_of(&a.position);
    let moves: Vec<_> = a
        .moves
        .iter()
        .map(|(mv, v)| {
            let mut m = json!({
                "cell": [mv.row + 1, mv.col + 1],
                "position": game.format_position(&mv.child),
                "reward": mv.reward,
            });
            add_column(game, &mut m, mv);
            add_from(game, &mut m, mv);
            add_value(game, &mut m, *v, stones);
            m
        })
        .collect();
    // The best moves by their text, as each move's `move` writes it: one shape in every
    // game.
    let best: Vec<String> = (0..a.moves.len())
        .filter(|&i| a.is_best(i))
        .map(|i| describe_move(game, MoveStyle::Field, &a.moves[i].0))
        .collect();
    let mut out = json!({
        "game": G::NAME,
        "position": game.format_position(&a.position),
        "stones": game.stones(&a.position),
        // Nobody moves where play has ended, full board or not.
        "to_move": if a.moves.is_empty() { "none" } else { side_to_move(game, &a.position) },
        "moves": moves,
        "best": best,
    });
    for (name, value) in game.holds(&a.position).json {
        out[name] = value;
    }
    // Only what the position shows of its history was checked, not whether play from the
    // start reaches it (`Gameplay::check_reachable_is_exact`), unless the position was
    // given as legal moves from the start, which reach it.
    if !game.check_reachable_is_exact() {
        out["reachable_checked"] = json!(a.from_start);
    }
    if let Some(s) = game.final_scores(a.value) {
        out["first_score"] = json!(s.first);
        out["second_score"] = json!(s.second);
    }
    add_value(game, &mut out, a.value, stones);
    // Where play has ended, say who won rather than leave it to `result`, which is the
    // side to move's (a loss: the other side made a line).
    if a.moves.is_empty()
        && let Some(o) = game.outcome(a.value, stones)
    {
        let mover_is_x = game.first_to_move(&a.position);
        out["winner"] = match o.result {
            Verdict::Win => json!(if mover_is_x { "x" } else { "o" }),
            Verdict::Loss => json!(if mover_is_x { "o" } else { "x" }),
            Verdict::Tie | Verdict::Draw => serde_json::Value::Null,
        };
        // The cells of the line (or pattern) that won, 1-based, for the explorer.
        let line: Vec<[usize; 2]> = game
            .winning_cells(&a.position)
            .into_iter()
            .map(|(r, c)| [r + 1, c + 1])
            .collect();
        out["winning_line"] = json!(line);
    }
    out
}

/// A value read from the table, seen by the side to move at `stones` stones: `value` for a
/// game of scores; for a game that ends in a win, a loss, a tie or a draw
/// (`Game::outcome`), `result`, `remoteness` and the stored number as `code`.
fn add_value<G: Gameplay>(game: &G, out: &mut serde_json::Value, value: i64, stones: usize) {
    match game.outcome(value, stones) {
        Some(o) => {
            out["result"] = json!(o.result.as_str());
            out["remoteness"] = json!(o.remoteness);
            out["code"] = json!(value);
        }
        None => out["value"] = json!(value),
    }
}

/// `column` (1-based) for a game whose moves are columns; nothing for the others, whose
/// JSON stays as it was.
fn add_column<G: Gameplay>(game: &G, out: &mut serde_json::Value, mv: &Move<G::Position>) {
    if game.move_notation() == MoveNotation::Column {
        out["column"] = json!(mv.col + 1);
    }
}

/// `move`, the move as `play` reads it and `export` writes it, in every game (`2,3`, a
/// column `3`, `3,3-2,2`, `e3-e5xd2`); and for a game whose moves go between cells `from`
/// (`[row, col]`, 1-based: where the stone or cube is taken) and, for a morris move that
/// closes a mill, `take` (the cell of the stone it removes, on the grid the board is drawn
/// on).
fn add_from<G: Gameplay>(game: &G, out: &mut serde_json::Value, mv: &Move<G::Position>) {
    out["move"] = json!(describe_move(game, MoveStyle::Field, mv));
    if matches!(
        game.move_notation(),
        MoveNotation::FromTo | MoveNotation::Named
    ) {
        if let Some((r, c)) = mv.from {
            out["from"] = json!([r + 1, c + 1]);
        }
        if let Some((r, c)) = mv.take {
            out["take"] = json!([r + 1, c + 1]);
        }
    }
}

/// A principal variation as JSON: one object per move (with `column` as in `to_json`); a
/// line that came back to a position has, on its last move, `repeats` (the earlier ply, 0
/// for the start) and `note` ("the position after ply 6 repeats ply 2: a draw").
pub fn pv_json<G: Gameplay>(game: &G, line: &Line<G::Position>) -> serde_json::Value {
    let last = line.steps.len().saturating_sub(1);
    line.steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut step = json!({
                "player": if s.first_to_move { "first" } else { "second" },
                "cell": [s.mv.row + 1, s.mv.col + 1],
                "position": game.format_position(&s.mv.child),
            });
            // Running scores belong to games of scores; a game won by a line has none.
            if game.outcome(0, 0).is_none() {
                step["first_score"] = json!(s.scores.first);
                step["second_score"] = json!(s.scores.second);
            }
            add_column(game, &mut step, &s.mv);
            add_from(game, &mut step, &s.mv);
            // The line's last step, where it came back to a position: which ply it repeats.
            if let Some(r) = line.repeats.filter(|_| i == last) {
                step["repeats"] = json!(r.earlier);
                step["note"] = json!(r.describe());
            }
            step
        })
        .collect()
}

/// A game behind a trait object, for code that holds tables of several games at once
/// (`retro serve`, the Python package) without listing the games: built once per table
/// through a `Visitor`.
pub trait Prober: Send + Sync {
    /// `query --json`'s object for a position in the game's notation, with the principal
    /// variation under `pv` when asked for.
    fn query_json(&self, table: &Table, text: &str, pv: bool) -> Result<serde_json::Value>;
    /// `query --pv --json`'s `pv` array for a position in the game's notation.
    fn pv_json(&self, table: &Table, text: &str) -> Result<serde_json::Value>;
    /// Where a table opens (`Gameplay::opening`): the position in the game's notation,
    /// and a note where it is not the game's start.
    fn opening(&self) -> (String, Option<String>);
    /// The number of entries of layer `k` (an input error past the last layer).
    fn layer_entries(&self, k: usize) -> Result<u64>;
    /// The position of rank `rank` in layer `k`, in the game's notation (an input error
    /// for a rank or layer out of range).
    fn position_at(&self, k: usize, rank: u64) -> Result<String>;
    /// A position's layer and rank.
    fn locate(&self, text: &str) -> Result<(usize, u64)>;
    /// Whether the game folds symmetric positions onto one entry.
    fn folded(&self) -> bool;
    /// The outcome of a value of layer `k`, for a game that has outcomes (wins, losses,
    /// ties and draws with a remoteness).
    fn outcome_of(&self, value: i64, k: usize) -> Option<crate::game::Outcome>;
}

impl<G: Registered> Prober for G {
    fn query_json(&self, table: &Table, text: &str, pv: bool) -> Result<serde_json::Value> {
        let answer = answer_text(self, table, text)?;
        let mut out = to_json(self, &answer);
        if pv {
            out["pv"] = pv_json(self, &principal_variation(self, table, &answer.position)?);
        }
        Ok(out)
    }

    fn pv_json(&self, table: &Table, text: &str) -> Result<serde_json::Value> {
        let answer = answer_text(self, table, text)?;
        Ok(pv_json(
            self,
            &principal_variation(self, table, &answer.position)?,
        ))
    }

    fn opening(&self) -> (String, Option<String>) {
        let (pos, note) = Gameplay::opening(self);
        (self.format_position(&pos), note)
    }

    fn layer_entries(&self, k: usize) -> Result<u64> {
        let last = self.last_layer();
        if k > last {
            return Err(Error::input(format!(
                "layer {k} is out of range: the table has layers 0..={last}"
            )));
        }
        Ok(self.layer_size(k))
    }

    fn position_at(&self, k: usize, rank: u64) -> Result<String> {
        let size = self.layer_entries(k)?;
        if rank >= size {
            return Err(Error::input(format!(
                "rank {rank} is out of range: layer {k} has {size} positions"
            )));
        }
        Ok(self.format_position(&self.unrank(k, rank)))
    }

    fn locate(&self, text: &str) -> Result<(usize, u64)> {
        let pos = position_from_text(self, text)?;
        Ok((self.layer_of(&pos), self.rank(&pos)))
    }

    fn folded(&self) -> bool {
        self.symmetries() > 1
    }

    fn outcome_of(&self, value: i64, k: usize) -> Option<crate::game::Outcome> {
        self.outcome(value, k)
    }
}

/// One ply of a line given as moves from the start (`query --line`): the position it
/// reaches and that position's value, and whether the move kept the value of the position
/// it was played from (a best move).
pub struct Ply<P> {
    /// The move (None for the start).
    pub mv: Option<Move<P>>,
    /// The move as it was typed.
    pub typed: Option<String>,
    /// Whether the first player played it.
    pub first_to_move: bool,
    /// The position after it.
    pub position: P,
    /// That position's value, for its side to move.
    pub value: i64,
    /// Whether the move was a best move (None for the start).
    pub best: Option<bool>,
    /// A best move of the position it was played from, where it was not one.
    pub instead: Option<Move<P>>,
}

/// The values of a line of play ply by ply, the start first: each position's value read
/// from the table, and each move judged against the position it was played from.
pub fn line_values<G: Gameplay>(
    game: &G,
    table: &Table,
    played: &Played<G::Position>,
) -> Result<Vec<Ply<G::Position>>> {
    let first = answer(game, table, played.start.clone())?;
    let mut plies = vec![Ply {
        mv: None,
        typed: None,
        first_to_move: game.first_to_move(&played.start),
        position: played.start.clone(),
        value: first.value,
        best: None,
        instead: None,
    }];
    let mut at = first;
    for (typed, mv) in &played.moves {
        let child = mv.child.clone();
        let i = find_move(game, at.moves.iter().map(|(m, _)| m), typed)
            .ok_or_else(|| Error::other("a move of the line is not among its position's moves"))?;
        let best = at.is_best(i);
        let instead = match best {
            true => None,
            false => at.first_best().map(|b| at.moves[b].0.clone()),
        };
        let mover = game.first_to_move(&at.position);
        let next = answer(game, table, child.clone())?;
        plies.push(Ply {
            mv: Some(mv.clone()),
            typed: Some(typed.clone()),
            first_to_move: mover,
            position: child,
            value: next.value,
            best: Some(best),
            instead,
        });
        at = next;
    }
    Ok(plies)
}

/// `query --line --json`'s `line`: per ply `ply`, `player` (who played the move; null at
/// the start), `move` (its text; null at the start), `position`, the position's value as
/// `query --json` gives it (`value`, or `result`, `remoteness` and `code`), `best` (null at
/// the start) and, for a move that was not best, `best_move`, one that was.
pub fn line_json<G: Gameplay>(game: &G, plies: &[Ply<G::Position>]) -> serde_json::Value {
    plies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut step = json!({
                "ply": i,
                "player": p.mv.as_ref().map(|_| if p.first_to_move { "first" } else { "second" }),
                "move": p.mv.as_ref().map(|mv| describe_move(game, MoveStyle::Field, mv)),
                "position": game.format_position(&p.position),
                "best": p.best,
            });
            add_value(game, &mut step, p.value, game.layer_of(&p.position));
            if let Some(mv) = &p.instead {
                step["best_move"] = json!(describe_move(game, MoveStyle::Field, mv));
            }
            step
        })
        .collect()
}
