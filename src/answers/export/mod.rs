//! A table's rows for a file: every position of some layers, in layer and rank order, with
//! its value and first best move, streamed to a `RowSink`: CSV (`csv.rs`) or, with the
//! `parquet` feature, Parquet (`parquet.rs`). Workers make the next rows while the previous
//! ones are written.

use std::ops::RangeInclusive;

use rayon::prelude::*;

use crate::answers::probe::{MoveStyle, from_to_text};
use crate::answers::reach::Reachable;
use crate::error::{Error, Result};
use crate::game::{Game, Gameplay, MoveNotation};
use crate::progress::Progress;
use crate::table::Table;
use crate::table::partial::crash_point;

pub(crate) mod csv;
#[cfg(feature = "parquet")]
pub(crate) mod parquet;

/// Rows per read of the table and per progress update: large enough that the bar and the
/// positioned reads cost nothing per row, small enough to keep the values read in cache.
pub const CHUNK: usize = 1 << 13;

/// One exported position; `best` is the first best move's cell as 0-based (row, col),
/// None where nobody moves.
pub struct Row<'a> {
    /// The position in the game's notation.
    pub position: &'a str,
    /// Stones on the board (its layer).
    pub stones: usize,
    /// Who moves: first, second, or none where play has ended.
    pub to_move: &'static str,
    /// The position's value.
    pub value: i64,
    /// The first best move, None where nobody moves.
    pub best: Option<BestMove>,
    /// It as `query` writes it (`BestMove::text`).
    pub best_text: Option<String>,
    /// Stones each side has in hand (x's, o's), for a game where they are part of the
    /// position (`Gameplay::hands`).
    pub hands: Option<[u32; 2]>,
    /// For a game that ends in a win, a loss, a tie or a draw: the result for the side to
    /// move and its remoteness (`Gameplay::outcome`); None for a game of scores.
    pub outcome: Option<crate::game::Outcome>,
    /// Whether play from the start can reach the position (`Gameplay::check_reachable`, or
    /// the forward pass of `reach` where that test is not exact): the ranking also counts
    /// boards no game reaches (tic-tac-toe with a line for each side), and a count over the
    /// rows should be able to leave them out. None where the table cannot know: the test
    /// is not exact and there is no start to search from (`reach::shown_by_position`).
    pub reachable: Option<bool>,
    /// How many positions the row stands for: its orbit's size, in a table that folds
    /// symmetric positions and is written one row per entry; None where each row is one
    /// position (and the column is left out).
    pub orbit: Option<u64>,
}

/// The export's columns for a game whose moves are written in `notation`, `outcomes` where
/// it has results, `orbits` for a folded table written one row per entry: the same names,
/// in the same order, in CSV and Parquet.
///
/// The value column is named for whose side it is seen from (`value_column`): `value` for
/// the first player (young, twins, mnk, connect: x), `value_to_move` for the side to move
/// (Teeko, Quixo, Morris), so that rows of several games put together never mix the two.
///
/// `best_move` is the move as `query` writes it; the integer columns after it say the same
/// move as numbers (1-based, row 1 at the top), so a data frame can use them without parsing:
/// `best_row`/`best_col`, `best_column` for a game whose moves are columns, and
/// `best_from_row`/`best_from_col` for a stone taken from a cell. `orbit_size`, last, says
/// how many positions each row stands for.
pub fn columns_of(
    notation: MoveNotation,
    outcomes: bool,
    orbits: bool,
    hands: bool,
    to_move: bool,
) -> Vec<&'static str> {
    let mut names = best_columns(notation, outcomes);
    names[3] = value_column(to_move);
    if hands {
        // The stones in hand beside the stones on the board.
        names.splice(2..2, ["x_in_hand", "o_in_hand"]);
    }
    if orbits {
        names.push("orbit_size");
    }
    names
}

fn best_columns(notation: MoveNotation, outcomes: bool) -> Vec<&'static str> {
    let mut names = vec!["position", "stones", "to_move", "value", "best_move"];
    if outcomes {
        names.extend(["result", "remoteness"]);
    }
    names.push("reachable");
    names.extend(number_columns(notation));
    names
}

/// The name of the value column: `value_to_move` where values are for the side to move
/// (`Values::for_side_to_move`), else `value`, seen from the first player.
pub fn value_column(to_move: bool) -> &'static str {
    match to_move {
        true => "value_to_move",
        false => "value",
    }
}

/// The names of a best move's integer columns for a game whose moves are written in
/// `notation` (`move_numbers` gives their values).
pub fn number_columns(notation: MoveNotation) -> Vec<&'static str> {
    match notation {
        MoveNotation::Cell => vec!["best_row", "best_col"],
        MoveNotation::Column => vec!["best_column"],
        MoveNotation::FromTo => vec!["best_from_row", "best_from_col", "best_row", "best_col"],
        // Written by the game: `best_move` is the move.
        MoveNotation::Named => Vec::new(),
    }
}

/// A best move's integer columns (`columns`), 1-based, None where the move has no such
/// part (no move at all, or a stone put on the board has no `from`).
pub fn move_numbers(notation: MoveNotation, best: Option<BestMove>) -> Vec<Option<u32>> {
    let one = |x: usize| u32::try_from(x + 1).ok();
    let to_row = best.and_then(|b| one(b.to.0));
    let to_col = best.and_then(|b| one(b.to.1));
    match notation {
        MoveNotation::Cell => vec![to_row, to_col],
        MoveNotation::Column => vec![to_col],
        MoveNotation::Named => Vec::new(),
        MoveNotation::FromTo => {
            let from = best.and_then(|b| b.from);
            vec![
                from.and_then(|f| one(f.0)),
                from.and_then(|f| one(f.1)),
                to_row,
                to_col,
            ]
        }
    }
}

/// A move's cells, 0-based: where its stone goes (`to`, as (row, col)), and where it is
/// taken from for a move between cells (`Move::from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BestMove {
    /// Where the stone is taken from (a slide, a push); None for one put on the board.
    pub from: Option<(usize, usize)>,
    /// Where it goes.
    pub to: (usize, usize),
    /// The stone it takes off the board (morris), if any.
    pub take: Option<(usize, usize)>,
}

impl BestMove {
    /// The move as `query` writes it.
    pub fn text<G: Gameplay>(self, game: &G) -> String {
        game.name_move(self.from, self.to, self.take)
            .unwrap_or_else(|| {
                from_to_text(
                    game.move_notation(),
                    MoveStyle::Field,
                    self.from,
                    self.to.0,
                    self.to.1,
                )
            })
    }
}

/// Where rows go; `finish` returns the writer, so that a file can be synced before the
/// rename makes it look complete.
pub trait RowSink {
    /// What `finish` gives back: the file or stream written.
    type Output;
    /// Write one row.
    fn push(&mut self, row: &Row<'_>) -> Result<()>;
    /// Flush what is held and give back the writer.
    fn finish(self) -> Result<Self::Output>;
}

/// Chunks computed at once: enough to keep every worker busy while the previous batch is
/// written, few enough that two batches in memory stay small on a many-core machine.
fn batch_chunks() -> usize {
    (rayon::current_num_threads() * 2).min(64)
}

/// The rows of one chunk of layer `k`, made by a worker: positions are one string and its
/// row ends, so a chunk costs a handful of allocations rather than one per row.
struct Chunk {
    k: usize,
    text: String,
    ends: Vec<usize>,
    values: Vec<i64>,
    best: Vec<Option<BestMove>>,
    /// Who moves at each position where play goes on.
    sides: Vec<&'static str>,
    /// Whether play reaches each position, where that is known.
    reachable: Vec<Option<bool>>,
    /// Stones on the board, and in hand where the game has hands.
    stones: Vec<usize>,
    hands: Vec<Option<[u32; 2]>>,
    /// Each row's orbit size, where rows are entries of a folded table.
    orbits: Vec<Option<u64>>,
}

/// Which rows an export writes.
pub enum Rows<'g, G> {
    /// One row per entry (per orbit where the table folds), with the orbit's size.
    Entries,
    /// One row per position, in the order `G` ranks them: the game on the table's board
    /// with every position its own entry (`Registered::unfolded`; the table's own game
    /// where it folds nothing). A folded table then writes exactly the rows of an unfolded
    /// table of its board, in that table's order, whatever order it keeps its orbits in.
    Positions(&'g G),
}

impl<G> Clone for Rows<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for Rows<'_, G> {}

/// How many steps the walk of layer `k` takes (the progress bar's units): one per entry,
/// or where rows are positions, one per position of the unfolded game's layer (of a
/// lumped layer, each position its one entry stands for).
pub fn walk_size<G: Game>(game: &G, shape: Rows<'_, G>, k: usize) -> u64 {
    match shape {
        Rows::Entries => game.layer_size(k),
        Rows::Positions(order) if order.lumped(k) => order.layer_positions(k),
        Rows::Positions(order) => order.layer_size(k),
    }
}

/// Positions per chunk of `export --moves`: each has up to a few dozen moves, a row each,
/// so its chunks are a sixteenth of `CHUNK` to keep a batch's rows as small as a plain
/// export's.
const MOVE_CHUNK: usize = CHUNK / 16;

/// Stream `layers` of the table to `sink`, one row per entry or per position (`Rows`);
/// returns the finished file and the rows written.
///
/// Making a row (the game's notation, every move's child and its value) costs far more
/// than writing it, so workers make a batch of chunks while the previous batch is written
/// in order.
pub fn rows_of<G: Gameplay, S: RowSink + Send>(
    game: &G,
    table: &Table,
    layers: RangeInclusive<usize>,
    mut sink: S,
    progress: &dyn Progress,
    shape: Rows<'_, G>,
    reach: Option<&Reachable<G>>,
) -> Result<(S::Output, u64)> {
    let make = |k, start, count| {
        let mut chunk = Chunk::new(k, count);
        each_position(
            game,
            table,
            k,
            start,
            count,
            shape,
            reach,
            |p, value, orbit, seen| chunk.push(game, table, p, value, orbit, seen, reach),
        )?;
        Ok(chunk)
    };
    let write = |c: &Chunk| write_chunk(game, &mut sink, c);
    let rows = stream(game, layers, shape, CHUNK, progress, make, write)?;
    Ok((sink.finish()?, rows))
}

/// `export --moves`: every move of each position `rows_of` would write (`Rows`), a row
/// each, in `Game::moves` order; a position where nobody moves has none.
pub fn move_rows_of<G: Gameplay, S: MoveSink + Send>(
    game: &G,
    table: &Table,
    layers: RangeInclusive<usize>,
    mut sink: S,
    progress: &dyn Progress,
    shape: Rows<'_, G>,
) -> Result<(S::Output, u64)> {
    let make = |k, start, count| {
        let mut chunk = MoveChunk::default();
        each_position(
            game,
            table,
            k,
            start,
            count,
            shape,
            None,
            |p, _, orbit, _| chunk.push(game, table, p, orbit),
        )?;
        Ok(chunk)
    };
    let write = |c: &MoveChunk| c.write(&mut sink);
    let rows = stream(game, layers, shape, MOVE_CHUNK, progress, make, write)?;
    Ok((sink.finish()?, rows))
}

/// The walk of `layers` cut into chunks of `chunk` steps (`walk_size`): workers `make` a
/// batch of chunks while the previous batch is written in order (`write`, which says how
/// many rows it wrote). Returns the rows written.
fn stream<G: Game, C: Send + Sync>(
    game: &G,
    layers: RangeInclusive<usize>,
    shape: Rows<'_, G>,
    chunk: usize,
    progress: &dyn Progress,
    make: impl Fn(usize, u64, usize) -> Result<C> + Sync,
    mut write: impl FnMut(&C) -> Result<u64> + Send,
) -> Result<u64> {
    if let Rows::Positions(order) = shape {
        // The unfolded game is the table's board with every position its own entry: its
        // layers are the table's, lumped alike, or its positions could not be looked up.
        if order.last_layer() != game.last_layer()
            || layers.clone().any(|k| order.lumped(k) != game.lumped(k))
        {
            return Err(Error::other(
                "the game unfolded has other layers than the table: cannot write its positions",
            ));
        }
    }
    let mut work = layers.flat_map(|k| {
        let size = walk_size(game, shape, k);
        (0..size.div_ceil(chunk as u64)).map(move |c| {
            let start = c * chunk as u64;
            (k, start, (chunk as u64).min(size - start) as usize)
        })
    });
    let batch = batch_chunks();
    let mut rows = 0u64;
    let mut shown = None;
    let mut made: Vec<((usize, usize), C)> = Vec::new();
    loop {
        let next: Vec<(usize, u64, usize)> = work.by_ref().take(batch).collect();
        if next.is_empty() && made.is_empty() {
            break;
        }
        let (written, computed) = rayon::join(
            || -> Result<u64> {
                let mut rows = 0;
                for &((k, steps), ref c) in &made {
                    crash_point();
                    if shown != Some(k) {
                        progress.layer(k, walk_size(game, shape, k));
                        shown = Some(k);
                    }
                    rows += write(c)?;
                    progress.advance(steps as u64);
                }
                Ok(rows)
            },
            || {
                next.par_iter()
                    .map(|&(k, start, count)| Ok(((k, count), make(k, start, count)?)))
                    .collect::<Result<Vec<_>>>()
            },
        );
        rows += written?;
        made = computed?;
    }
    Ok(rows)
}

/// Calls `f(position, value, orbit, entry_reached)` for steps `start..start + count` of
/// layer `k`'s walk (`walk_size`), in order: `orbit` the positions the row stands for
/// where rows are entries of a folded table, `entry_reached` whether play reaches any of
/// them (where `reach` is given and the row is such an entry).
#[allow(clippy::too_many_arguments)]
fn each_position<G: Gameplay>(
    game: &G,
    table: &Table,
    k: usize,
    start: u64,
    count: usize,
    shape: Rows<'_, G>,
    reach: Option<&Reachable<G>>,
    mut f: impl FnMut(&G::Position, i64, Option<u64>, Option<bool>) -> Result<()>,
) -> Result<()> {
    let folded = game.symmetries() > 1;
    match shape {
        // A lumped layer's positions (`Game::lumped`), with the value of its one entry:
        // walked, never all held at once.
        Rows::Positions(order) if order.lumped(k) => {
            let value = table
                .read_range(k, 0, 1)?
                .first()
                .copied()
                .unwrap_or_default();
            for p in order.lumped_positions(k, start).take(count) {
                f(&game.adopt(&p), value, None, None)?;
            }
        }
        // Every position in the unfolded game's order, each looked up in the folded table
        // through its orbit's entry, as `diff` compares the two.
        Rows::Positions(order) if folded => {
            let mut p = order.unrank(k, start);
            for i in 0..count {
                if i > 0 {
                    order.advance(&mut p);
                }
                let q = game.adopt(&p);
                let value = table.value(game.layer_of(&q), game.rank(&q))?;
                f(&q, value, None, None)?;
            }
        }
        _ => {
            let values = table.read_range(k, start, count)?;
            let mut pos = game.unrank(k, start);
            for (i, &value) in values.iter().enumerate() {
                if i > 0 {
                    game.advance(&mut pos);
                }
                let orbit = match (folded, shape) {
                    (true, Rows::Entries) => Some(game.orbit_size(&pos)),
                    _ => None,
                };
                // An entry's row is reachable where any position it stands for is (a
                // lumped layer's: where any of the layer's is).
                let entry_reached = match (reach, shape) {
                    (Some(r), Rows::Entries) if game.lumped(k) => Some(r.count(k) > 0),
                    (Some(r), Rows::Entries) if folded => {
                        Some(game.images(&pos).iter().any(|p| r.contains(p)))
                    }
                    _ => None,
                };
                f(&pos, value, orbit, entry_reached)?;
            }
        }
    }
    Ok(())
}

impl Chunk {
    fn new(k: usize, count: usize) -> Chunk {
        Chunk {
            k,
            text: String::new(),
            ends: Vec::with_capacity(count),
            best: Vec::with_capacity(count),
            sides: Vec::with_capacity(count),
            reachable: Vec::with_capacity(count),
            stones: Vec::with_capacity(count),
            hands: Vec::with_capacity(count),
            orbits: Vec::with_capacity(count),
            values: Vec::with_capacity(count),
        }
    }

    /// A row for position `p` of value `value`: `orbit` the positions it stands for where
    /// rows are entries of a folded table, `entry_reached` whether play reaches any of
    /// them where the row is such an entry.
    #[allow(clippy::too_many_arguments)]
    fn push<G: Gameplay>(
        &mut self,
        game: &G,
        table: &Table,
        p: &G::Position,
        value: i64,
        orbit: Option<u64>,
        entry_reached: Option<bool>,
        reach: Option<&Reachable<G>>,
    ) -> Result<()> {
        self.text.push_str(&game.format_position(p));
        // Each position's own best move: an image's is the entry's, carried over.
        let best = best_move(game, table, p, value)?;
        self.ends.push(self.text.len());
        self.best.push(best);
        self.sides
            .push(crate::answers::probe::side_to_move(game, p));
        self.reachable.push(match (entry_reached, reach) {
            (Some(reached), _) => Some(reached),
            (None, Some(r)) => Some(r.contains(p)),
            (None, None) => crate::answers::reach::shown_by_position(game, p),
        });
        self.stones.push(game.stones(p));
        self.hands.push(game.hands(p));
        self.orbits.push(orbit);
        self.values.push(value);
        Ok(())
    }
}

/// A chunk's rows to `sink`; returns how many.
fn write_chunk<G: Gameplay>(game: &G, sink: &mut impl RowSink, c: &Chunk) -> Result<u64> {
    let mut from = 0;
    for (i, (((((&end, &value), &best), &to_move), &reachable), &orbit)) in c
        .ends
        .iter()
        .zip(&c.values)
        .zip(&c.best)
        .zip(&c.sides)
        .zip(&c.reachable)
        .zip(&c.orbits)
        .enumerate()
    {
        sink.push(&Row {
            position: &c.text[from..end],
            stones: c.stones[i],
            best_text: best.map(|b| b.text(game)),
            hands: c.hands[i],
            // Nobody moves where play has ended before the board is full (a won
            // game: no best move), as `retro query --json` says.
            to_move: if best.is_some() { to_move } else { "none" },
            value,
            best,
            outcome: game.outcome(value, c.k),
            reachable,
            orbit,
        })?;
        from = end;
    }
    Ok(c.ends.len() as u64)
}

/// One move of an exported position (`export --moves`).
pub struct MoveRow<'a> {
    /// The position, in the game's notation.
    pub position: &'a str,
    /// The move, as `query --json`'s `move` writes it and `play` reads it.
    pub mv: &'a str,
    /// The position the move leads to, in the game's notation.
    pub child: &'a str,
    /// The move's value seen from the position (`probe::move_values`): a code where the
    /// game has results, else the reward plus the child's value, for the first player.
    pub value: i64,
    /// For a game with results: the move's result for the side that plays it, and the
    /// plies to the end from the position with best play after the move (the position's
    /// own, were the move best), as `query` lists its moves.
    pub outcome: Option<crate::game::Outcome>,
    /// How many positions the row's position stands for, where rows are entries of a
    /// folded table; None where each is one position.
    pub orbit: Option<u64>,
}

/// Where the rows of `export --moves` go (`RowSink` for its own rows).
pub trait MoveSink {
    /// What `finish` gives back: the file or stream written.
    type Output;
    /// Write one row.
    fn push(&mut self, row: &MoveRow<'_>) -> Result<()>;
    /// Flush what is held and give back the writer.
    fn finish(self) -> Result<Self::Output>;
}

/// The columns of `export --moves`, the same in CSV and Parquet: `position`, `move`,
/// `child`, then for a game with results (`outcomes`) the move's `result` and
/// `remoteness` for the side that plays it, or for a game of scores its `value` (the
/// move's reward plus its child's value, for the first player as the export's `value`
/// is); and `orbit_size` last for a folded table written one row per entry (`orbits`).
pub fn move_columns_of(outcomes: bool, orbits: bool) -> Vec<&'static str> {
    let mut names = vec!["position", "move", "child"];
    match outcomes {
        true => names.extend(["result", "remoteness"]),
        false => names.push("value"),
    }
    if orbits {
        names.push("orbit_size");
    }
    names
}

/// One move row of a `MoveChunk`: its position's index, where its move's and its child's
/// text end, and its value and outcome.
struct MoveCell {
    position: usize,
    mv_end: usize,
    child_end: usize,
    value: i64,
    outcome: Option<crate::game::Outcome>,
}

/// The move rows of a chunk of positions, made by a worker: each position's text once, the
/// moves' and children's in one string.
#[derive(Default)]
struct MoveChunk {
    positions: String,
    position_ends: Vec<usize>,
    orbits: Vec<Option<u64>>,
    text: String,
    rows: Vec<MoveCell>,
}

impl MoveChunk {
    /// Every move of `p`, a row each (none where nobody moves).
    fn push<G: Gameplay>(
        &mut self,
        game: &G,
        table: &Table,
        p: &G::Position,
        orbit: Option<u64>,
    ) -> Result<()> {
        let moves = crate::answers::probe::move_values(game, table, p)?;
        if moves.is_empty() {
            return Ok(());
        }
        self.positions.push_str(&game.format_position(p));
        self.position_ends.push(self.positions.len());
        self.orbits.push(orbit);
        let (position, layer) = (self.position_ends.len() - 1, game.layer_of(p));
        for (mv, value) in moves {
            self.text.push_str(&crate::answers::probe::describe_move(
                game,
                MoveStyle::Field,
                &mv,
            ));
            let mv_end = self.text.len();
            self.text.push_str(&game.format_position(&mv.child));
            self.rows.push(MoveCell {
                position,
                mv_end,
                child_end: self.text.len(),
                value,
                outcome: game.outcome(value, layer),
            });
        }
        Ok(())
    }

    /// The rows to `sink`; returns how many.
    fn write(&self, sink: &mut impl MoveSink) -> Result<u64> {
        let mut from = 0;
        for r in &self.rows {
            let start = match r.position {
                0 => 0,
                i => self.position_ends[i - 1],
            };
            sink.push(&MoveRow {
                position: &self.positions[start..self.position_ends[r.position]],
                mv: &self.text[from..r.mv_end],
                child: &self.text[r.mv_end..r.child_end],
                value: r.value,
                outcome: r.outcome,
                orbit: self.orbits[r.position],
            })?;
            from = r.child_end;
        }
        Ok(self.rows.len() as u64)
    }
}

/// The first move (in `Game::moves` order, as `retro query` lists them) whose reward plus
/// its child's value is the position's value (for a game whose stones move, the child's
/// value turned round), as its 0-based cells; None where nobody moves. A table where no
/// move reaches the value is damaged. The export's `best_move` and the Python package's
/// layers both take it from here.
pub fn best_move<G: Gameplay>(
    game: &G,
    table: &Table,
    pos: &G::Position,
    value: i64,
) -> Result<Option<BestMove>> {
    let moves = game.moves(pos);
    if moves.is_empty() {
        return Ok(None);
    }
    for mv in moves {
        let child = table.value(game.layer_of(&mv.child), game.rank(&mv.child))?;
        // A damaged table may hold anything; an overflow is just not a match.
        let values = game.values();
        let through = match values.for_side_to_move() {
            true => Some(values.through(mv.reward, child)),
            false => mv.reward.checked_add(child),
        };
        if through == Some(value) {
            return Ok(Some(BestMove {
                from: mv.from,
                to: (mv.row, mv.col),
                take: mv.take,
            }));
        }
    }
    Err(Error::corrupt(format!(
        "{}: no move of position {} reaches its value {value}: the table is damaged (see retro verify)",
        table.path().display(),
        game.format_position(pos)
    )))
}
