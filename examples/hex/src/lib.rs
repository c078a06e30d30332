//! Hex on an R x C rhombus, as a crate outside retro would write it: through retro's public
//! API and `docs/adding-a-game.md` alone.
//!
//! x (first) and o take turns placing a stone on an empty cell. x wins by joining the top
//! row to the bottom row with a chain of its stones, o by joining the left column to the
//! right column; the game ends at the first connection. Cell (r, c) touches (r, c +- 1),
//! (r +- 1, c), (r - 1, c + 1) and (r + 1, c - 1): the rhombus drawn with each row shifted
//! half a cell right of the one above. A full board always has exactly one connection, so
//! Hex has no draws.
//!
//! The ranking is retro's two-colour ranking (`retro::game::two_colour`, shared with mnk and
//! twins): layer k holds the sets of k occupied cells times which ceil(k/2) of them are x's.
//! Values are those of every game won by a connection or a line (`retro::game::WinLoss`):
//! cells + 1 - p when x connects at ply p, minus that when o does.

use retro::game::WinLoss;
use retro::game::two_colour::{self, TwoColour};
use retro::prelude::*;
use serde::{Deserialize, Serialize};

/// A Hex board: `rows` x `cols` cells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HexBoard {
    /// Rows R (x joins the first to the last).
    pub rows: usize,
    /// Columns C (o joins the first to the last).
    pub cols: usize,
}

const FORM: &str = "expected `RxC` or `R C` (e.g. `4x4`)";

impl HexBoard {
    /// The board, refused unless it has 1 to `two_colour::MAX_CELLS` cells.
    pub fn checked(rows: usize, cols: usize) -> Result<HexBoard> {
        if rows == 0 || cols == 0 || rows.saturating_mul(cols) > two_colour::MAX_CELLS {
            return Err(Error::input(format!(
                "hex board {rows} x {cols}: a board has 1 to {} cells",
                two_colour::MAX_CELLS
            )));
        }
        Ok(HexBoard { rows, cols })
    }
}

impl Board for HexBoard {
    fn parse(text: &str) -> Result<HexBoard> {
        let bad = || {
            Error::input(format!(
                "bad hex board {}: {FORM}",
                retro::error::excerpt(text.trim())
            ))
        };
        let parts: Vec<&str> = text
            .trim()
            .split(|c: char| c == 'x' || c == 'X' || c.is_whitespace())
            .filter(|p| !p.is_empty())
            .collect();
        let [r, c] = parts[..] else {
            return Err(bad());
        };
        HexBoard::checked(r.parse().map_err(|_| bad())?, c.parse().map_err(|_| bad())?)
    }

    /// The size asked for: there is nothing to draw at random.
    fn random(rows: usize, cols: usize, _rng: &mut retro::SplitMix, _max: u64) -> Result<HexBoard> {
        HexBoard::checked(rows, cols)
    }

    fn to_input(&self) -> String {
        format!("{}x{}\n", self.rows, self.cols)
    }

    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
}

/// Hex on one board: the ranking, the values and each cell's neighbours, built once.
pub struct Hex {
    board: HexBoard,
    cells: usize,
    ranking: TwoColour,
    values: WinLoss,
    /// Each cell's neighbours, as a cell mask (cell r * cols + c).
    neighbours: Vec<u64>,
    /// x's edges (top and bottom rows) and o's (left and right columns), as masks.
    top: u64,
    bottom: u64,
    left: u64,
    right: u64,
}

/// A Hex position: retro's two-colour cursor, x being the first player.
pub type HexPosition = two_colour::Position;

impl Hex {
    /// The game on a board; fails for boards too large to rank.
    pub fn new(board: HexBoard) -> Result<Hex> {
        let board = HexBoard::checked(board.rows, board.cols)?;
        let (rows, cols) = (board.rows, board.cols);
        let ranking = TwoColour::new(rows, cols)?;
        let bit = |r: usize, c: usize| 1u64 << (r * cols + c);
        let mut neighbours = vec![0u64; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                let steps = [(0, 1), (0, -1), (1, 0), (-1, 0), (-1, 1), (1, -1)];
                for (dr, dc) in steps {
                    let (nr, nc) = (r as isize + dr, c as isize + dc);
                    if (0..rows as isize).contains(&nr) && (0..cols as isize).contains(&nc) {
                        neighbours[r * cols + c] |= bit(nr as usize, nc as usize);
                    }
                }
            }
        }
        let row = |r: usize| (0..cols).fold(0, |m, c| m | bit(r, c));
        let col = |c: usize| (0..rows).fold(0, |m, r| m | bit(r, c));
        Ok(Hex {
            cells: rows * cols,
            values: WinLoss { cells: rows * cols },
            top: row(0),
            bottom: row(rows - 1),
            left: col(0),
            right: col(cols - 1),
            neighbours,
            ranking,
            board,
        })
    }

    /// Whether `stones` hold a chain from a cell of `from` to a cell of `to`.
    fn joins(&self, stones: u64, from: u64, to: u64) -> bool {
        let mut reached = stones & from;
        let mut frontier = reached;
        while frontier != 0 {
            if reached & to != 0 {
                return true;
            }
            let mut next = 0;
            let mut rest = frontier;
            while rest != 0 {
                next |= self.neighbours[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            frontier = next & stones & !reached;
            reached |= frontier;
        }
        reached & to != 0
    }

    /// x's and o's stones, as cell masks.
    fn stones_of(&self, pos: &HexPosition) -> (u64, u64) {
        let x = pos.first_cells();
        (x, pos.occupied() & !x)
    }

    /// Whether x joins top and bottom, and whether o joins left and right.
    fn connections(&self, pos: &HexPosition) -> (bool, bool) {
        let (x, o) = self.stones_of(pos);
        (
            self.joins(x, self.top, self.bottom),
            self.joins(o, self.left, self.right),
        )
    }

    fn position_form(&self) -> String {
        let (r, c) = (self.board.rows, self.board.cols);
        let mut example = vec![0u8; r * c];
        example[0] = 1;
        if r * c > 1 {
            example[1] = 2;
        }
        format!(
            "hex {r} x {c} positions look like {} (rows of x, o, . separated by /; x moves first)",
            two_colour::format_marks(&example, c, 'x', 'o')
        )
    }

    /// The ply a nonzero value's connection is made at.
    fn ply(&self, value: i64) -> usize {
        (self.cells + 1).saturating_sub(value.unsigned_abs() as usize)
    }

    fn connection_words(&self, value: i64) -> String {
        let side = if value > 0 {
            "x joins top and bottom"
        } else {
            "o joins left and right"
        };
        format!("{side} at ply {}", self.ply(value))
    }
}

impl Game for Hex {
    type Position = HexPosition;

    fn last_layer(&self) -> usize {
        self.cells
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.ranking.layer_size(k)
    }

    fn values(&self) -> Values {
        Values::Lines(self.values)
    }

    fn prepare_layer(&self, k: usize) {
        self.ranking.prepare_layer(k);
    }

    fn unrank(&self, k: usize, rank: u64) -> HexPosition {
        self.ranking.unrank(k, rank)
    }

    fn rank(&self, pos: &HexPosition) -> u64 {
        self.ranking.rank(pos)
    }

    fn layer_of(&self, pos: &HexPosition) -> usize {
        pos.stones()
    }

    fn advance(&self, pos: &mut HexPosition) {
        self.ranking.advance(pos);
    }

    /// A connection. A full board always has one (the Hex theorem); a full board counts as
    /// ended (0) only where play never reaches it, with both connected.
    fn ended(&self, pos: &HexPosition) -> Option<i64> {
        let (x, o) = self.connections(pos);
        let stones = pos.stones();
        self.values
            .line_value(x, o, stones)
            .or((stones == self.cells).then_some(0))
    }

    fn for_each_child(&self, pos: &HexPosition, mut f: impl FnMut(Edge)) {
        let layer = pos.stones() + 1;
        self.ranking.for_each_child(pos, |rank| {
            f(Edge {
                layer,
                rank,
                reward: 0,
            })
        });
    }

    fn moves(&self, pos: &HexPosition) -> Vec<Move<HexPosition>> {
        if self.ended(pos).is_some() {
            return Vec::new();
        }
        let mark = if pos.stones().is_multiple_of(2) { 1 } else { 2 };
        let marks = self.ranking.marks(pos);
        (0..self.cells)
            .filter(|&c| marks[c] == 0)
            .map(|c| {
                let mut child = marks.clone();
                child[c] = mark;
                Move {
                    from: None,
                    row: c / self.board.cols,
                    col: c % self.board.cols,
                    reward: 0,
                    take: None,
                    child: self.ranking.position_from_marks(&child),
                }
            })
            .collect()
    }
}

impl Gameplay for Hex {
    fn parse_position(&self, text: &str) -> Result<HexPosition> {
        let bad = |why: String| {
            Error::input(format!(
                "bad hex position {}: {why}; {}",
                retro::error::excerpt(text),
                self.position_form()
            ))
        };
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("empty") {
            return Ok(self.ranking.position_from_marks(&vec![0; self.cells]));
        }
        if trimmed.is_empty() {
            return Err(bad("no position given".into()));
        }
        let (r, c) = (self.board.rows, self.board.cols);
        let marks = two_colour::parse_marks(trimmed, r, c, 'x', 'o').map_err(bad)?;
        Ok(self.ranking.position_from_marks(&marks))
    }

    /// A connected position arises only if the winner moved last and one of its stones
    /// made the connection (the chain breaks without it); both connected never arises.
    fn check_reachable(&self, pos: &HexPosition) -> Result<()> {
        let (x, o) = self.stones_of(pos);
        let (x_joins, o_joins) = self.connections(pos);
        let x_last = pos.stones() % 2 == 1;
        let why = match (x_joins, o_joins) {
            (false, false) => None,
            (true, true) => Some("both x and o have joined their sides"),
            (true, false) if !x_last => Some("x has joined top and bottom but o moved last"),
            (false, true) if x_last => Some("o has joined left and right but x moved last"),
            (true, false) => {
                let made = (0..self.cells)
                    .filter(|&c| x >> c & 1 == 1)
                    .any(|c| !self.joins(x & !(1 << c), self.top, self.bottom));
                (!made).then_some("x's sides were already joined before its last stone")
            }
            (false, true) => {
                let made = (0..self.cells)
                    .filter(|&c| o >> c & 1 == 1)
                    .any(|c| !self.joins(o & !(1 << c), self.left, self.right));
                (!made).then_some("o's sides were already joined before its last stone")
            }
        };
        match why {
            Some(why) => Err(Error::input(format!("this position cannot arise: {why}"))),
            None => Ok(()),
        }
    }

    fn format_position(&self, pos: &HexPosition) -> String {
        two_colour::format_marks(&self.ranking.marks(pos), self.board.cols, 'x', 'o')
    }

    fn draw(&self, pos: &HexPosition) -> String {
        two_colour::draw_marks(&self.ranking.marks(pos), self.board.cols, 'x', 'o')
    }

    fn describe_value(&self, value: i64) -> String {
        format!("{value} ({})", self.connection_words(value))
    }

    fn describe_value_at(&self, value: i64, pos: &Self::Position) -> String {
        let stones = self.layer_of(pos);
        if value != 0 && self.ply(value) == stones {
            let who = if value > 0 { "x" } else { "o" };
            return format!("{value}: {who} has won ({})", self.connection_words(value));
        }
        self.values.describe_at(value, stones)
    }

    fn value_meaning(&self) -> &'static str {
        "value: cells + 1 - p when x (first) joins top and bottom at ply p, minus that when o joins left and right"
    }
}

impl Registered for Hex {
    const NAME: &'static str = "hex";
    type Board = HexBoard;

    fn new(board: HexBoard) -> Result<Hex> {
        Hex::new(board)
    }

    fn board(&self) -> &HexBoard {
        &self.board
    }

    fn rules() -> &'static str {
        include_str!("../README.md")
    }
}
