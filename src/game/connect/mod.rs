//! Connect Four and its relatives: x (first) and o take turns dropping a stone into one
//! of W columns of height H; it lands on the lowest empty cell. K in a row, a column or a
//! diagonal win at once; a full board without such a line is a tie. 7 x 6 with K = 4 is
//! Connect Four. Values are those of every game won by a line (`values::WinLoss`).
//!
//! Ranking (`heights.rs`): with gravity, the occupied cells are given by the column
//! heights, so layer k is (height vectors summing to k) x (which ceil(k/2) of the k stones
//! are x's): rank = rank(heights) * C(k, ceil(k/2)) + rank(x's stones among the k), the
//! stones taken column by column, bottom up, and x's subset ranked in colex order as twins
//! and mnk rank theirs. Dropping a stone into column c inserts one stone at position p (the
//! stones of columns before c plus the height of c) into that order, so a child's rank is a
//! per-height-vector part (`Heights`) plus the colex rank of the parent's subset with one
//! bit inserted at p: a few byte-table lookups (`ColourRank`), no search and no hash map.
//!
//! The game folds the board's left-right mirror (`Connect::new`; `Connect::unfolded` keeps
//! every position): a layer numbers only canonical height vectors (`heights.rs` says which,
//! and where the index keeps some slack), a position on another vector is ranked as its
//! mirror image, and a drop whose child's vector is not canonical ranks the child's
//! colouring in the mirrored stone order (`mirrored_colour`).
//!
//! Boards are bitboards with H + 1 bits per column (bit c * (H + 1) + r is row r from the
//! bottom of column c), so lines are found by shifts and never wrap between columns (a
//! direction whose K - 1 steps would shift by 64 or more is left out: no line fits it), and
//! ascending bit order is exactly the stone order above.
//!
//! As with mnk, the ranking counts boards play never reaches (both players have a line,
//! play went on after one, or no order of drops stacks the columns so: o under x alone in
//! a column); every board with a line is over, valued for whoever has one, 0 when both
//! have, and `check_reachable` tells them apart for `query` and `play`.

mod board;
mod gameplay;
mod heights;

pub use board::ConnectBoard;

use std::collections::HashSet;

use super::lines;
use super::symmetry::pext;
use super::{Edge, Game, Move, RunSink, Values, WinLoss, two_colour};
use crate::error::{Error, Result};
use crate::game::rank::{colex_next_mask, colex_unrank_mask};
pub use heights::MAX_HEIGHT_VECTORS;
use heights::{ColourRank, Heights};

/// Default line length: Connect Four's.
const DEFAULT_K: usize = 4;

/// A position, and the cursor that walks a layer in rank order. Where the game folds, the
/// cells are the position's own and the rank's parts (`heights`, `first`, `colour`) are its
/// entry's: of its mirror image where its vector is not canonical.
#[derive(Debug, Clone)]
pub struct ConnectPosition {
    stones: usize,
    /// Rank of the height vector within the layer's.
    heights: u64,
    /// Occupied cells (bitboard).
    occupied: u64,
    /// x's cells (bitboard).
    x: u64,
    /// Bit p set: the p-th stone (column by column, bottom up) is x's.
    first: u64,
    /// Colex rank of `first`.
    colour: u64,
}

/// Connect on one board: the height vectors, the colour ranks, the lines.
pub struct Connect {
    board: ConnectBoard,
    cells: usize,
    values: WinLoss,
    heights: Heights,
    colours: ColourRank,
    /// Shifts that step along a row, a column, a diagonal, an anti-diagonal; the first
    /// `live_directions` of them are those where K - 1 steps stay below bit 64 (a line
    /// reaching further lies off the board, and shifting that far would wrap).
    directions: [u32; 4],
    live_directions: usize,
    /// Every line, as a bitboard (for `check_reachable`).
    lines: Vec<u64>,
}

impl Connect {
    /// Build the game for a board, its positions folded by the left-right mirror (a board
    /// two or more columns wide): one table entry per position and its mirror image. Fails
    /// for boards too large to rank.
    pub fn new(board: ConnectBoard) -> Result<Self> {
        let fold = board.width > 1;
        Connect::build(board, fold)
    }

    /// Build the game for a board with every position its own table entry.
    pub fn unfolded(board: ConnectBoard) -> Result<Self> {
        Connect::build(board, false)
    }

    fn build(board: ConnectBoard, fold: bool) -> Result<Self> {
        let board = ConnectBoard::checked(board.width, board.height, board.k)?;
        let (w, h) = (board.width, board.height);
        let cells = w * h;
        let colours = ColourRank::new(cells)?;
        let heights = Heights::new(w, h, &colours, fold)?;
        let mut total = 0u64;
        for k in 0..=cells {
            total = heights
                .vectors(k)
                .checked_mul(colours.per_set(k))
                .and_then(|n| total.checked_add(n))
                .ok_or_else(|| {
                    Error::too_large(format!(
                        "connect {w} x {h}: more positions than 64-bit ranks can number"
                    ))
                })?;
        }
        let stride = (h + 1) as u32;
        let lines = lines::lines(h, w, board.k, |i, j| j as u32 * stride + (h - 1 - i) as u32);
        let mut directions = [1, stride, stride - 1, stride + 1];
        directions.sort_unstable();
        let reach = board.k as u32 - 1;
        let live_directions = directions.iter().filter(|&&d| reach * d < 64).count();
        Ok(Connect {
            cells,
            values: WinLoss { cells },
            heights,
            colours,
            directions,
            live_directions,
            lines,
            board,
        })
    }

    /// The board.
    pub fn board(&self) -> &ConnectBoard {
        &self.board
    }

    /// Whether the stones of `b` hold K in a row anywhere.
    #[inline(always)]
    fn has_line(&self, b: u64) -> bool {
        let k = self.board.k as u32;
        self.directions[..self.live_directions].iter().any(|&d| {
            let mut run = b;
            for i in 1..k {
                run &= b >> (i * d);
            }
            run != 0
        })
    }

    #[inline(always)]
    fn line_value(&self, occupied: u64, x: u64, stones: usize) -> Option<i64> {
        let (xs, os) = (stones.div_ceil(2), stones / 2);
        let k = self.board.k;
        // Fewer than K stones make no line: most of a small layer skips the shifts.
        let x_line = xs >= k && self.has_line(x);
        let o_line = os >= k && self.has_line(occupied ^ x);
        self.values.line_value(x_line, o_line, stones)
    }

    /// The position with these cells; None if a stone floats above an empty cell.
    fn position_of(&self, occupied: u64, x: u64) -> Option<ConnectPosition> {
        let place = self.heights.place_of(occupied)?;
        let first = match place.mirrored {
            true => pext(self.heights.mirror(x), self.heights.mirror(occupied)),
            false => pext(x, occupied),
        };
        Some(ConnectPosition {
            stones: place.stones,
            heights: place.rank,
            occupied,
            x,
            first,
            colour: self.colours.rank(first),
        })
    }

    /// x's cells of the position's entry, on its ranked vector's cells: the position's own,
    /// or their mirror image.
    #[inline(always)]
    fn ranked_x(&self, pos: &ConnectPosition) -> u64 {
        match self.heights.occupied(pos.stones, pos.heights) == pos.occupied {
            true => pos.x,
            false => self.heights.mirror(pos.x),
        }
    }

    /// Cells of a position as marks, row-major from the top row (0 empty, 1 x, 2 o).
    fn marks(&self, pos: &ConnectPosition) -> Vec<u8> {
        let (w, h) = (self.board.width, self.board.height);
        let mut marks = Vec::with_capacity(w * h);
        for i in 0..h {
            for j in 0..w {
                let bit = 1u64 << self.heights.bit(j, h - 1 - i);
                marks.push(if pos.x & bit != 0 {
                    1
                } else if pos.occupied & bit != 0 {
                    2
                } else {
                    0
                });
            }
        }
        marks
    }

    /// What a position of this board looks like, with an example, for error messages.
    fn position_form(&self) -> String {
        let (w, h) = (self.board.width, self.board.height);
        let example: Vec<String> = (0..h)
            .map(|i| {
                (0..w)
                    .map(|j| match (h - 1 - i, j) {
                        (0, 0) => 'x',
                        (0, 1) => 'o',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        format!(
            "connect {w} x {h} positions look like {} (rows from the top, of x, o, . \
             separated by /; stones rest on the bottom or on another stone; x moves first), \
             or the columns played from the empty board, such as 12 for that one",
            example.join("/")
        )
    }

    /// Whether play builds these stones: some order of drops, x first and turns
    /// alternating, with no line before the last drop. Searched backwards: the last stone
    /// dropped is the top stone of a column and the last mover's, and the board before it
    /// has no line and is built the same way. Every state is the board minus the tops of
    /// some columns, at most (H + 1)^W of them; those that fail are remembered.
    fn buildable(&self, occupied: u64, x: u64, failed: &mut HashSet<u64>) -> bool {
        if occupied == 0 {
            return true;
        }
        if failed.contains(&occupied) {
            return false;
        }
        let stones = occupied.count_ones() as usize;
        let last = occupied & if stones % 2 == 1 { x } else { !x };
        for col in 0..self.board.width {
            let height = self.heights.column_height(occupied, col);
            if height == 0 {
                continue;
            }
            let top = 1u64 << self.heights.bit(col, height - 1);
            let before = occupied ^ top;
            if last & top != 0
                && self.line_value(before, x & before, stones - 1).is_none()
                && self.buildable(before, x & before, failed)
            {
                return true;
            }
        }
        failed.insert(occupied);
        false
    }

    /// Calls `f(child_rank)` for the child of every column with room of the position's
    /// entry, left to right on its ranked vector (the mirror image's columns where the
    /// position's vector is not canonical).
    #[inline(always)]
    fn for_each_drop(&self, pos: &ConnectPosition, mut f: impl FnMut(u64)) {
        let top = self.top_share(pos.stones);
        let x = self.ranked_x(pos);
        for drop in self.heights.drops(pos.stones, pos.heights) {
            f(drop.base + self.child_colour(pos, x, drop, top));
        }
    }

    /// What a stone dropped on top of the stone order (the last column) adds to the
    /// colouring's colex rank at layer k: C(k, h + 1) for x's (bit k over x's h), nothing
    /// for o's.
    #[inline(always)]
    fn top_share(&self, k: usize) -> u64 {
        match k.is_multiple_of(2) {
            true => self.colours.binomial().get(k, k.div_ceil(2) + 1),
            false => 0,
        }
    }

    /// The colex rank of the child's colouring after `drop` (`x`: x's cells of the
    /// position's entry): the parent's subset with the new stone's bit inserted. A stone on
    /// top of the stone order leaves every other bit where it was, so its rank is the
    /// parent's plus `top` (`top_share`); elsewhere it comes from the byte tables. Measured
    /// on 5 x 5, one thread, four alternating runs each: 4.23 s user on average with the
    /// tables for every drop, 3.76 s with this.
    #[inline(always)]
    fn child_colour(&self, pos: &ConnectPosition, x: u64, drop: &heights::Drop, top: u64) -> u64 {
        if drop.mirrored {
            return self.mirrored_colour(pos.stones, x, drop);
        }
        if drop.below as usize == pos.stones {
            return pos.colour + top;
        }
        let x_moves = pos.stones.is_multiple_of(2);
        self.colours
            .rank(insert(pos.first, drop.below as u32, x_moves))
    }

    /// The colex rank of the colouring of a child whose vector is the mirror image of the
    /// one ranked: its x's cells mirrored, packed on the ranked vector's cells.
    #[inline(never)]
    fn mirrored_colour(&self, stones: usize, x: u64, drop: &heights::Drop) -> u64 {
        let x = match stones.is_multiple_of(2) {
            true => x | 1 << drop.cell,
            false => x,
        };
        let cells = self.heights.occupied(stones + 1, drop.child as u64);
        self.colours.rank(pext(self.heights.mirror(x), cells))
    }
}

/// `mask` with bit `at` inserted (set if `set`), the bits from `at` up moved up one.
#[inline(always)]
fn insert(mask: u64, at: u32, set: bool) -> u64 {
    let low = mask & ((1u64 << at) - 1);
    ((mask ^ low) << 1) | low | (set as u64) << at
}

/// The next subset of `occupied` after `s` with as many cells, in colex order of the
/// subsets as masks over the occupied cells: what `colex_next_mask` does to the packed
/// mask, done on the board. Never called on the last subset.
#[inline(always)]
fn next_on(s: u64, occupied: u64) -> u64 {
    let low = s & s.wrapping_neg();
    // Adding the lowest bit through the empty cells clears the lowest run of s and sets
    // the next occupied cell above it.
    let r = (s | !occupied).wrapping_add(low) & occupied;
    // The run's other cells go back to the lowest occupied cells.
    // Written out rather than as `rank::cells(occupied).take(refill)`: the count alone
    // bounds the loop here (`occupied` always has the cells), and the sweep of connect
    // 5 x 5 took 3% longer with the iterator's own check (`farm-bench`, one thread).
    let mut refill = s.count_ones() - r.count_ones();
    let (mut out, mut rest) = (r, occupied);
    while refill > 0 {
        out |= rest & rest.wrapping_neg();
        rest &= rest - 1;
        refill -= 1;
    }
    out
}

impl Game for Connect {
    type Position = ConnectPosition;

    fn last_layer(&self) -> usize {
        self.cells
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.heights.count(k) * self.colours.per_set(k)
    }

    fn layer_positions(&self, k: usize) -> u64 {
        self.heights.vectors(k) * self.colours.per_set(k)
    }

    fn symmetries(&self) -> usize {
        match self.heights.folded() {
            true => 2,
            false => 1,
        }
    }

    /// Two where the vector is not its own mirror image; one where it is, whose colourings
    /// are each their own entry (the index's slack).
    fn orbit_size(&self, pos: &ConnectPosition) -> u64 {
        match self.heights.folded() && self.heights.mirror(pos.occupied) != pos.occupied {
            true => 2,
            false => 1,
        }
    }

    fn images(&self, pos: &ConnectPosition) -> Vec<ConnectPosition> {
        let mut images = vec![pos.clone()];
        if self.orbit_size(pos) == 2 {
            let (occupied, x) = (
                self.heights.mirror(pos.occupied),
                self.heights.mirror(pos.x),
            );
            images.extend(self.position_of(occupied, x));
        }
        images
    }

    /// The rank parts of another instance's position are of its own folding: made anew
    /// from the cells.
    fn adopt(&self, pos: &ConnectPosition) -> ConnectPosition {
        // Every position of a board has its stones on columns, so `position_of` finds it.
        self.position_of(pos.occupied, pos.x)
            .unwrap_or_else(|| pos.clone())
    }

    fn values(&self) -> Values {
        Values::Lines(self.values)
    }

    fn unrank(&self, k: usize, rank: u64) -> ConnectPosition {
        let per_set = self.colours.per_set(k);
        let (heights, colour) = (rank / per_set, rank % per_set);
        let occupied = self.heights.occupied(k, heights);
        let first = colex_unrank_mask(self.colours.binomial(), colour, k.div_ceil(2));
        ConnectPosition {
            stones: k,
            heights,
            occupied,
            x: two_colour::spread(first, occupied),
            first,
            colour,
        }
    }

    fn rank(&self, pos: &ConnectPosition) -> u64 {
        pos.heights * self.colours.per_set(pos.stones) + pos.colour
    }

    fn layer_of(&self, pos: &ConnectPosition) -> usize {
        pos.stones
    }

    #[inline(always)]
    fn advance(&self, pos: &mut ConnectPosition) {
        let k = pos.stones;
        if pos.colour + 1 < self.colours.per_set(k) {
            pos.colour += 1;
            pos.first = colex_next_mask(pos.first);
            pos.x = next_on(pos.x, pos.occupied);
        } else {
            pos.heights += 1;
            pos.colour = 0;
            pos.occupied = self.heights.occupied(k, pos.heights);
            pos.first = (1u64 << k.div_ceil(2)) - 1;
            pos.x = two_colour::spread(pos.first, pos.occupied);
        }
    }

    /// A line, or a full board (a tie).
    fn ended(&self, pos: &ConnectPosition) -> Option<i64> {
        self.line_value(pos.occupied, pos.x, pos.stones)
            .or((pos.stones == self.cells).then_some(0))
    }

    fn for_each_child(&self, pos: &ConnectPosition, mut f: impl FnMut(Edge)) {
        if self.ended(pos).is_none() {
            let layer = pos.stones + 1;
            self.for_each_drop(pos, |rank| {
                f(Edge {
                    layer,
                    rank,
                    reward: 0,
                })
            });
        }
    }

    /// One run over the whole stretch: the drops (child rank parts and insertion points)
    /// are looked up once per height vector, the lines checked on the bitboards.
    fn visit_runs(&self, k: usize, start: u64, len: usize, sink: &mut impl RunSink) {
        let mut pos = self.unrank(k, start);
        let top = self.top_share(k);
        sink.run(start, len);
        let mut drops = self.heights.drops(k, pos.heights);
        for i in 0..len {
            if i > 0 {
                let heights = pos.heights;
                self.advance(&mut pos);
                if pos.heights != heights {
                    drops = self.heights.drops(k, pos.heights);
                }
            }
            if let Some(value) = self.line_value(pos.occupied, pos.x, k) {
                sink.terminal(i, value);
                continue;
            }
            for drop in drops {
                sink.single(i, drop.base + self.child_colour(&pos, pos.x, drop, top), 0);
            }
        }
    }

    fn for_each_move_in_order(
        &self,
        pos: &ConnectPosition,
        mut f: impl FnMut(u64, i64) -> std::ops::ControlFlow<()>,
    ) {
        if self.ended(pos).is_some() {
            return;
        }
        // The drops go left to right on the entry's vector: on a position that is its
        // entry's mirror image, that is the moves' order reversed, so follow the moves.
        if self.heights.occupied(pos.stones, pos.heights) != pos.occupied {
            for mv in self.moves(pos) {
                if f(self.rank(&mv.child), 0).is_break() {
                    return;
                }
            }
            return;
        }
        let mut done = false;
        self.for_each_drop(pos, |child| {
            if !done {
                done = f(child, 0).is_break();
            }
        });
    }

    fn moves(&self, pos: &ConnectPosition) -> Vec<Move<ConnectPosition>> {
        if self.ended(pos).is_some() {
            return Vec::new();
        }
        let h = self.board.height;
        let x_moves = pos.stones.is_multiple_of(2);
        let mut out = Vec::new();
        for col in 0..self.board.width {
            let height = self.heights.column_height(pos.occupied, col);
            if height == h {
                continue;
            }
            let cell = 1u64 << self.heights.bit(col, height);
            let x = if x_moves { pos.x | cell } else { pos.x };
            let Some(child) = self.position_of(pos.occupied | cell, x) else {
                continue;
            };
            out.push(Move {
                from: None,
                row: h - 1 - height,
                col,
                reward: 0,
                take: None,
                child,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rank::colex_rank_mask;
    #[allow(unused_imports)]
    use crate::game::{Board, Gameplay};

    fn game(w: usize, h: usize, k: usize) -> Connect {
        Connect::new(ConnectBoard::checked(w, h, k).unwrap()).unwrap()
    }

    #[test]
    fn inputs_read_back() {
        for text in ["7 6 4", "7x6k4", " 7X6K4\n", "7 6", "7x6"] {
            let board = ConnectBoard::parse(text).unwrap();
            assert_eq!((board.width, board.height, board.k), (7, 6, 4), "{text:?}");
            assert_eq!(ConnectBoard::parse(&board.to_input()).unwrap(), board);
        }
        assert_eq!(ConnectBoard::parse("3x3").unwrap().k, 3);
        assert_eq!(ConnectBoard::parse("6x5k3").unwrap().k, 3);
        for bad in [
            "",
            "7",
            "7 6 8",
            "7 6 0",
            "0 4 1",
            "8x8",
            "8x7",
            "7x",
            "7x6k",
            "1 2 3 4",
            "1 18446744073709551615 2",
            "18446744073709551615 1 1",
        ] {
            assert!(ConnectBoard::parse(bad).is_err(), "{bad:?}");
        }
    }

    /// The board-side successor agrees with the packed one on every subset of a few
    /// occupied sets.
    #[test]
    fn next_on_follows_the_packed_successor() {
        let binom = crate::game::rank::Binomial::new(12).unwrap();
        for occupied in [0b1011_0111u64, 0b111_0000_1101, 0b1_0101_0101] {
            let n = occupied.count_ones() as usize;
            for h in 1..=n {
                let mut packed = (1u64 << h) - 1;
                let mut board = two_colour::spread(packed, occupied);
                for r in 0..binom.get(n, h) {
                    assert_eq!(
                        board,
                        two_colour::spread(packed, occupied),
                        "{occupied:b} {h} {r}"
                    );
                    assert_eq!(crate::game::rank::compress(board, occupied), packed);
                    if r + 1 < binom.get(n, h) {
                        packed = colex_next_mask(packed);
                        board = next_on(board, occupied);
                    }
                }
            }
        }
    }

    /// The shifts find exactly the lines the list of line masks holds, on boards that use
    /// every bit (4 x 15, 2 x 31) and where a direction's K - 1 steps pass bit 64.
    #[test]
    fn shifts_find_exactly_the_listed_lines() {
        let mut rng = crate::random::SplitMix(7);
        for (w, h, k) in [
            (4, 15, 5),
            (2, 31, 3),
            (2, 31, 31),
            (1, 11, 6),
            (7, 6, 4),
            (3, 3, 3),
        ] {
            let g = game(w, h, k);
            let cells = (0..w).fold(0u64, |m, c| m | ((1u64 << h) - 1) << g.heights.bit(c, 0));
            for t in 0..20_000u32 {
                // Dense and sparse boards alike, full rows and columns included.
                let b = match t % 3 {
                    0 => rng.next_u64() & rng.next_u64() & cells,
                    1 => rng.next_u64() & cells,
                    _ => (rng.next_u64() | rng.next_u64()) & cells,
                };
                let listed = g.lines.iter().any(|&l| l & !b == 0);
                assert_eq!(g.has_line(b), listed, "{w}x{h}k{k}: {b:#x}");
            }
            assert_eq!(g.has_line(cells), g.lines.iter().any(|&l| l & !cells == 0));
        }
    }

    #[test]
    fn walking_a_layer_agrees_with_unrank_and_rank() {
        let g = game(4, 3, 3);
        for k in 0..=g.last_layer() {
            let mut pos = g.unrank(k, 0);
            for r in 0..g.layer_size(k) {
                if r > 0 {
                    g.advance(&mut pos);
                }
                let fresh = g.unrank(k, r);
                assert_eq!(
                    (pos.occupied, pos.x, pos.first),
                    (fresh.occupied, fresh.x, fresh.first)
                );
                assert_eq!(g.rank(&pos), r);
                assert_eq!(colex_rank_mask(g.colours.binomial(), pos.first), pos.colour);
                let back = g.parse_position(&g.format_position(&pos)).unwrap();
                assert_eq!(g.rank(&back), r);
                // Children from the tables are the children built cell by cell.
                let mut fast = Vec::new();
                g.for_each_child(&pos, |e| fast.push(e.rank));
                let slow: Vec<u64> = g.moves(&pos).iter().map(|m| g.rank(&m.child)).collect();
                assert_eq!(fast, slow);
            }
        }
    }

    /// The counts of the dense index, for the boards of Connect Four's table.
    #[test]
    fn dense_index_counts() {
        let total = |w, h| {
            Connect::unfolded(ConnectBoard::checked(w, h, 4).expect("a valid board"))
                .expect("ranks")
                .total_positions()
        };
        // The sizes as first estimated, to three digits; the exact ones from a sum over the
        // height vectors' stone counts of C(k, ceil(k / 2)), done apart from this code.
        let expected = [
            (4, 4, 2.018e5, 201_755),
            (5, 4, 5.62e6, 5_621_939),
            (6, 4, 1.60e8, 159_643_961),
            (5, 5, 1.72e8, 171_976_899),
            (7, 4, 4.59e9, 4_593_382_831),
            (5, 6, 5.17e9, 5_167_808_119),
            (6, 5, 9.92e9, 9_918_556_649),
        ];
        for (w, h, rounded, exact) in expected {
            assert_eq!(total(w, h), exact, "{w} x {h}");
            assert!((exact as f64 / rounded - 1.0).abs() < 5e-3, "{w} x {h}");
        }
        let standard = total(7, 6) as f64;
        assert!((standard / 7.07e13 - 1.0).abs() < 5e-3, "7 x 6: {standard}");
    }

    #[test]
    fn floating_stones_are_refused() {
        let g = game(4, 4, 4);
        let err = g.parse_position("..../..../x.../o...").unwrap();
        assert_eq!(err.stones, 2);
        let err = g
            .parse_position("..../x.../..../o...")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("column 1 has a stone above an empty cell"),
            "{err}"
        );
    }
}
