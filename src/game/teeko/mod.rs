//! Teeko (John Scarne, 1937) and its family: an R x C board, S stones each, x first. While
//! a player has stones in hand a move drops one on an empty cell; once all 2S are down a move
//! slides one of the mover's stones to an empty neighbouring cell (8 directions). A player
//! whose stones form a pattern has won: S in a straight line (row, column, diagonal), and
//! for S = 4 the four cells of a 2 x 2 square (standard: 44 patterns on 5 x 5); `advanced`
//! adds, for S = 4, the four corners of every larger square (58 on 5 x 5). An option forbids
//! x's first drop in the centre (of a board with odd rows and odd columns).
//!
//! Layers are by stones on the board: 0..2S - 1 are the drop phase (the stone count says who
//! moves), 2S the movement phase, whose positions carry the side to move and whose moves stay
//! in the layer. Layer k < 2S is ranked as two-colour grids are (`two_colour`): the k
//! occupied cells in colex order, then which ceil(k/2) of them are x's; layer 2S is that
//! ranking of the board, x to move first, then o to move.
//!
//! A position with a pattern is over and lost for the side to move: the other side formed
//! it. Positions where the side to move has the pattern, or both have one, cannot arise; they
//! are over too, and lost, so that every rank has a defined value.

mod board;
mod gameplay;

pub use board::TeekoBoard;

use crate::error::{Error, Result};
use crate::game::rank::{Binomial, bits, cells, colex_next_mask, colex_unrank_mask, squeeze_out};
use crate::game::symmetry::{Cursor, GridGroup, GridSymmetries, Orbits};
use crate::game::two_colour::spread;
use crate::game::{Edge, Game, LayerKind, Move, Values, Wdl};

/// A position: x's cells, o's cells, and who moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeekoPosition {
    /// Stones on the board (the layer).
    pub k: usize,
    /// x's cells, as a mask (cell r * C + c).
    pub x: u64,
    /// o's cells.
    pub o: u64,
    /// 0 when x moves, 1 when o moves.
    pub side: u8,
    /// o's cells packed over the cells x leaves free (the cursor's inner part).
    o_packed: u64,
    /// The rank of the board within its side's half of the layer.
    board_rank: u64,
    /// Where a folded layer's walk is (`Orbits::advance`).
    cursor: Cursor,
}

impl TeekoPosition {
    /// The occupied cells.
    pub fn occupied(&self) -> u64 {
        self.x | self.o
    }
}

/// The most patterns whose lowest cell is one cell: 4 lines, and squares of every size
/// with that cell at a corner (at most 5 on a board of 36 cells).
const PER_CELL: usize = 12;

/// The most masks `Teeko::masks` lists (8 MiB). Standard Teeko lists 15,276 and 6 x 6 with
/// 5 stones 443,704, whose movement layer already holds 1.3e11 positions; 6 x 6 with 6
/// stones would list 2.4 million, with 17 stones 30 billion (240 GB).
const MAX_MASKS: u64 = 1 << 20;

/// Teeko on one board: the ranking tables, the neighbours and the patterns, built once.
pub struct Teeko {
    board: TeekoBoard,
    cells: usize,
    /// Each cell's neighbours in 8 directions.
    neighbours: Vec<u64>,
    /// The winning patterns, as cell masks.
    patterns: Vec<u64>,
    /// The patterns by their lowest cell: a side's stones form one only if they equal one
    /// of the patterns of their lowest stone.
    by_lowest: Vec<[u64; PER_CELL]>,
    /// Every mask of m cells in colex order, for m up to S: unranking a side's stones is
    /// a lookup (colex order does not depend on the number of cells, so o's cells packed
    /// over the free cells unrank from the same lists). Empty when the lists would pass
    /// `MAX_MASKS`: such a board's layers are far beyond any table, and a header or a
    /// plan that names it must not cost gigabytes; its masks unrank from `binom`.
    masks: Vec<Vec<u64>>,
    binom: Binomial,
    /// C(i, j) for cells i and j up to S, at `i * (S + 1) + j`: small enough to stay in
    /// the nearest cache.
    small_binom: Vec<u64>,
    /// Per layer: o's arrangements per arrangement of x's, and boards per side.
    inner: Vec<u64>,
    boards: Vec<u64>,
    /// The orbits of positions under the board's symmetries, where the game folds them
    /// (`Teeko::new`; None for `Teeko::unfolded`): a layer then holds one entry per orbit,
    /// and the movement layer, whose rules are the same for both sides, also folds the side
    /// to move (a position with o to move is ranked as the one with the colours exchanged
    /// and x to move).
    orbits: Option<Orbits>,
    /// Whether the orbits are keyed on one side's stones (`Teeko::new`) rather than on the
    /// occupied cells (`Teeko::keyed_on_occupied`, the order of tables of format version 3).
    outer_keyed: bool,
}

impl Teeko {
    /// The game on a board, its positions folded by the board's symmetries (the square's 8,
    /// a rectangle's 4; the movement layer also by exchanging the colours): one table entry
    /// per orbit. A board whose layers have too many occupied sets to fold is not folded.
    ///
    /// A layer's orbits are keyed on the stones of the side its hot moves leave in place
    /// (`Orbits::with_outer_layers`): in the movement layer, the side that did not move last,
    /// so that every parent of a position ranks against one outer entry, a slide of the other
    /// side's stones a symmetry image, a `pext` and a pattern's rank away; in a drop layer,
    /// the side to move, which every child of a position of the layer before shares.
    pub fn new(board: TeekoBoard) -> Result<Teeko> {
        let mut game = Teeko::unfolded(board)?;
        let b = &game.board;
        let sym = GridSymmetries::grid(b.rows, b.cols, GridGroup::Dihedral);
        let movement = game.movement();
        // (outer, inner): in a drop layer the side to move has k / 2 stones.
        let specs = (0..=movement)
            .map(|k| match k == movement {
                true => (k / 2, k / 2),
                false => (k / 2, k - k / 2),
            })
            .collect();
        game.orbits = Orbits::with_outer_layers(sym, specs).ok();
        game.outer_keyed = true;
        Ok(game)
    }

    /// The game folded as tables of format version 3 rank it: each layer's orbits keyed on
    /// its occupied cells, x's stones (the mover's in the movement layer) the pattern.
    pub fn keyed_on_occupied(board: TeekoBoard) -> Result<Teeko> {
        let mut game = Teeko::unfolded(board)?;
        let b = &game.board;
        let sym = GridSymmetries::grid(b.rows, b.cols, GridGroup::Dihedral);
        let xs = (0..=game.movement())
            .map(|k| Some(Self::x_count(k)))
            .collect();
        game.orbits = Orbits::new(sym, xs).ok();
        Ok(game)
    }

    /// The game on a board with every position its own table entry.
    pub fn unfolded(board: TeekoBoard) -> Result<Teeko> {
        let board = board.checked()?;
        let (rows, cols) = (board.rows, board.cols);
        let cells = rows * cols;
        let bit = |r: usize, c: usize| 1u64 << (r * cols + c);
        let mut neighbours = vec![0u64; cells];
        for r in 0..rows {
            for c in 0..cols {
                for dr in -1isize..=1 {
                    for dc in -1isize..=1 {
                        let (nr, nc) = (r as isize + dr, c as isize + dc);
                        if (dr, dc) != (0, 0)
                            && (0..rows as isize).contains(&nr)
                            && (0..cols as isize).contains(&nc)
                        {
                            neighbours[r * cols + c] |= bit(nr as usize, nc as usize);
                        }
                    }
                }
            }
        }
        let s = board.stones;
        let mut patterns = Vec::new();
        // Lines of S: rows, columns, both diagonals.
        for (dr, dc) in [(0isize, 1isize), (1, 0), (1, 1), (1, -1)] {
            for r in 0..rows as isize {
                for c in 0..cols as isize {
                    let (er, ec) = (r + dr * (s as isize - 1), c + dc * (s as isize - 1));
                    if (0..rows as isize).contains(&er) && (0..cols as isize).contains(&ec) {
                        patterns.push((0..s as isize).fold(0u64, |m, i| {
                            m | bit((r + dr * i) as usize, (c + dc * i) as usize)
                        }));
                    }
                }
            }
        }
        if s == 4 {
            // Squares: 2 x 2 always, the corners of larger ones in the advanced game.
            // No square fits a board narrower than it (a side of 1 has none).
            let largest = if board.advanced { rows.min(cols) } else { 2 };
            for size in 2..=largest.min(rows).min(cols) {
                for r in 0..=rows - size {
                    for c in 0..=cols - size {
                        let far = size - 1;
                        patterns.push(
                            bit(r, c) | bit(r, c + far) | bit(r + far, c) | bit(r + far, c + far),
                        );
                    }
                }
            }
        }
        patterns.sort_unstable();
        patterns.dedup();
        // Fixed rows, padded with 0 (which no side's stones equal): no pointer to follow.
        let mut by_lowest = vec![[0u64; PER_CELL]; cells];
        let mut filled = vec![0usize; cells];
        for &p in &patterns {
            let cell = p.trailing_zeros() as usize;
            if filled[cell] == PER_CELL {
                return Err(Error::other(format!(
                    "teeko: more than {PER_CELL} patterns start at one cell"
                )));
            }
            by_lowest[cell][filled[cell]] = p;
            filled[cell] += 1;
        }
        let binom = Binomial::new(cells)?;
        let listed: u64 = (0..=s).map(|m| binom.get(cells, m)).sum();
        let masks = if listed <= MAX_MASKS {
            (0..=s)
                .map(|m| {
                    let count = binom.get(cells, m);
                    let mut mask = (1u64 << m) - 1;
                    (0..count)
                        .map(|i| {
                            let here = mask;
                            if i + 1 < count {
                                mask = colex_next_mask(mask);
                            }
                            here
                        })
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        let small_binom = (0..cells)
            .flat_map(|i| (0..=s).map(move |j| (i, j)))
            .map(|(i, j)| binom.get(i, j))
            .collect();
        let movement = 2 * s;
        let inner: Vec<u64> = (0..=movement)
            .map(|k| binom.get(cells - k.div_ceil(2), k - k.div_ceil(2)))
            .collect();
        let boards = (0..=movement)
            .map(|k| binom.get(cells, k.div_ceil(2)) * inner[k])
            .collect();
        Ok(Teeko {
            cells,
            neighbours,
            patterns,
            by_lowest,
            masks,
            binom,
            small_binom,
            inner,
            boards,
            board,
            orbits: None,
            outer_keyed: false,
        })
    }

    /// The board.
    pub fn board(&self) -> &TeekoBoard {
        &self.board
    }

    /// The winning patterns, as cell masks.
    pub fn patterns(&self) -> &[u64] {
        &self.patterns
    }

    /// x's stones on a board of k stones (x drops first).
    fn x_count(k: usize) -> usize {
        k.div_ceil(2)
    }

    /// o's arrangements for each arrangement of x's stones, on a board of k stones.
    fn inner(&self, k: usize) -> u64 {
        self.inner[k]
    }

    /// Boards of layer k (one side's half of the movement layer): x's stones among the
    /// cells, then o's among the cells x leaves free.
    fn boards(&self, k: usize) -> u64 {
        self.boards[k]
    }

    /// The colex rank of a mask, a table lookup per 9 cells.
    /// `mask` has at most S set bits.
    fn mask_rank(&self, mask: u64) -> u64 {
        let width = self.board.stones + 1;
        bits(mask)
            .enumerate()
            .map(|(j, cell)| self.small_binom[cell * width + j + 1])
            .sum()
    }

    /// The mask of `m` cells of colex rank `rank`: a lookup where the lists are kept.
    #[inline]
    fn unrank_mask(&self, m: usize, rank: u64) -> u64 {
        match self.masks.get(m) {
            Some(list) => list[rank as usize],
            None => colex_unrank_mask(&self.binom, rank, m),
        }
    }

    /// Set bits of a mask of at most 2S stones (the default x86-64 target has no popcount
    /// instruction; a stone at a time is quicker than its software popcount here).
    #[inline]
    fn pop(mask: u64) -> u32 {
        cells(mask).count() as u32
    }

    fn movement(&self) -> usize {
        2 * self.board.stones
    }

    fn all(&self) -> u64 {
        (1u64 << self.cells) - 1
    }

    /// The rank of a board of k stones within its half: x's cells in colex order, then o's
    /// among the free cells (a cell's index among them is its index less the x's below it).
    fn board_rank(&self, k: usize, x: u64, o: u64) -> u64 {
        self.mask_rank(x) * self.inner(k) + self.mask_rank(squeeze_out(o, x))
    }

    /// The rank in layer k of a board with `side` to move.
    #[inline]
    fn rank_of(&self, k: usize, x: u64, o: u64, side: u8) -> u64 {
        if let Some(orbits) = &self.orbits {
            let (set, pattern) = self.orbit_key(k, x, o, side);
            return orbits.rank(k, set, pattern);
        }
        let half = if k == self.movement() {
            side as u64 * self.boards(k)
        } else {
            0
        };
        half + self.board_rank(k, x, o)
    }

    /// A folded position of layer k as its orbits take it, (set, pattern): keyed on one
    /// side's stones, (the outer side's, the other's); keyed on the occupied cells, (them,
    /// x's). `side` is the side to move in the movement layer; a drop layer's is its own.
    #[inline]
    fn orbit_key(&self, k: usize, x: u64, o: u64, side: u8) -> (u64, u64) {
        let movement = k == self.movement();
        let side = if movement { side } else { (k % 2) as u8 };
        let (mover, other) = if side == 0 { (x, o) } else { (o, x) };
        match (self.outer_keyed, movement) {
            // The side that did not move last stays in place for every parent.
            (true, true) => (other, mover),
            // The side to move stays in place for every child of the layer before.
            (true, false) => (mover, other),
            // The movement layer keeps x to move: o to move is the colours exchanged.
            (false, true) => (x | o, mover),
            (false, false) => (x | o, x),
        }
    }

    /// A folded position of layer k from its orbit key (`orbit_key`'s inverse), as (x, o);
    /// the movement layer's has x to move.
    #[inline]
    fn stones_of_key(&self, k: usize, set: u64, pattern: u64) -> (u64, u64) {
        let movement = k == self.movement();
        match (self.outer_keyed, movement) {
            (true, true) => (pattern, set),
            (true, false) if k.is_multiple_of(2) => (set, pattern),
            (true, false) => (pattern, set),
            (false, _) => (pattern, set & !pattern),
        }
    }

    /// Whether a side's stones form a pattern: every pattern has S cells and a side at
    /// most S stones, so its stones must be one.
    pub fn has_pattern(&self, stones: u64) -> bool {
        // Every pattern has S cells, so equal masks hold the same number of stones.
        stones != 0 && self.by_lowest[stones.trailing_zeros() as usize].contains(&stones)
    }

    /// The position of given stones and side.
    pub fn position(&self, x: u64, o: u64, side: u8) -> TeekoPosition {
        let k = (x | o).count_ones() as usize;
        if self.orbits.is_some() {
            return TeekoPosition {
                k,
                x,
                o,
                side,
                o_packed: 0,
                board_rank: 0,
                cursor: Cursor::default(),
            };
        }
        TeekoPosition {
            k,
            x,
            o,
            side,
            o_packed: squeeze_out(o, x),
            board_rank: self.board_rank(k, x, o),
            cursor: Cursor::default(),
        }
    }

    /// The side to move in layer k where the layer says (the drop phase); x in a folded
    /// movement layer.
    fn folded_side(&self, k: usize) -> u8 {
        if k == self.movement() {
            0
        } else {
            (k % 2) as u8
        }
    }

    /// The ranks of the positions the mover's slides make (folded: one per slide; a slide
    /// is at most 8 directions from each of S stones).
    fn slide_ranks(&self, pos: &TeekoPosition, out: &mut [u64; 8 * 18]) -> usize {
        let mut n = 0;
        self.each_move(pos, |from, _, x, o| {
            if from.is_some() {
                out[n] = self.rank_of(pos.k, x, o, 1 - pos.side);
                n += 1;
            }
        });
        n
    }

    /// Every move of a position where play goes on: `f(from, to, x, o)` with the cell the
    /// stone leaves (None for a drop) and the cell it goes to, as one-bit masks, and both
    /// sides' stones after the move. The solver's children and `Game::moves` both walk it.
    #[inline]
    fn each_move(&self, pos: &TeekoPosition, mut f: impl FnMut(Option<u64>, u64, u64, u64)) {
        let empty = self.all() & !pos.occupied();
        let place = |x: u64, o: u64, from: u64, to: u64| {
            if pos.side == 0 {
                (x & !from | to, o)
            } else {
                (x, o & !from | to)
            }
        };
        if pos.k < self.movement() {
            let mut rest = empty;
            if pos.k == 0
                && self.board.no_centre_first
                && let Some(c) = self.centre()
            {
                rest &= !(1u64 << c);
            }
            for cell in cells(rest) {
                let (x, o) = place(pos.x, pos.o, 0, cell);
                f(None, cell, x, o);
            }
            return;
        }
        let stones = if pos.side == 0 { pos.x } else { pos.o };
        for from in cells(stones) {
            for cell in cells(self.neighbours[from.trailing_zeros() as usize] & empty) {
                let (x, o) = place(pos.x, pos.o, from, cell);
                f(Some(from), cell, x, o);
            }
        }
    }

    /// Whether one of x's stones has an empty neighbour it could have slid from without
    /// x having a pattern there (before the slide x was to move, so had none).
    fn x_could_have_slid(&self, pos: &TeekoPosition) -> bool {
        let empty = self.all() & !pos.occupied();
        cells(pos.x).any(|at| {
            cells(self.neighbours[at.trailing_zeros() as usize] & empty)
                .any(|cell| !self.has_pattern(pos.x & !at | cell))
        })
    }

    /// Every slide that could have led here, undone: for each of the last mover's stones
    /// (`theirs`) and each empty neighbour it could have come from, `f(at, from, before)` with
    /// its cell now, the cell it left and the mover's stones before the slide; slides from a
    /// position where the mover already had a pattern (play had ended) are left out.
    #[inline]
    fn each_slide_back(&self, theirs: u64, empty: u64, mut f: impl FnMut(u64, u64, u64)) {
        for at in cells(theirs) {
            for cell in cells(self.neighbours[at.trailing_zeros() as usize] & empty) {
                let before = theirs & !at | cell;
                if !self.has_pattern(before) {
                    f(at, cell, before);
                }
            }
        }
    }

    /// The centre cell, where the board has one.
    fn centre(&self) -> Option<usize> {
        let (r, c) = (self.board.rows, self.board.cols);
        (r % 2 == 1 && c % 2 == 1).then_some((r / 2) * c + c / 2)
    }
}

impl Game for Teeko {
    type Position = TeekoPosition;

    /// The movement layer: all 2S stones down.
    fn last_layer(&self) -> usize {
        self.movement()
    }

    fn values(&self) -> Values {
        Values::SideToMove
    }

    fn rank(&self, pos: &TeekoPosition) -> u64 {
        self.rank_of(pos.k, pos.x, pos.o, pos.side)
    }

    fn layer_of(&self, pos: &TeekoPosition) -> usize {
        pos.k
    }

    fn moves(&self, pos: &TeekoPosition) -> Vec<Move<TeekoPosition>> {
        let mut out = Vec::new();
        if self.ended(pos).is_some() {
            return out;
        }
        // Drops and slides alike hand the move to the other side (o's last drop to x).
        self.each_move(pos, |from, to, x, o| {
            let (row, col) = self.cell(to);
            out.push(Move {
                from: from.map(|c| self.cell(c)),
                row,
                col,
                reward: 0,
                take: None,
                child: self.position(x, o, 1 - pos.side),
            });
        });
        out.sort_by_key(|m| (m.from, m.row, m.col));
        out
    }

    fn layer_size(&self, k: usize) -> u64 {
        if let Some(orbits) = &self.orbits {
            return orbits.layer_size(k);
        }
        let boards = self.boards(k);
        if k == self.movement() {
            2 * boards
        } else {
            boards
        }
    }

    fn layer_kind(&self, k: usize) -> LayerKind {
        if k == self.movement() {
            LayerKind::Fixpoint
        } else {
            LayerKind::OnePass
        }
    }

    fn prepare_layer(&self, k: usize) {
        if let Some(orbits) = &self.orbits {
            orbits.prepare(k);
        }
    }

    fn table_bytes(&self) -> u64 {
        let masks: usize = self.masks.iter().map(|m| m.len() * 8).sum();
        masks as u64 + self.orbits.as_ref().map_or(0, Orbits::table_bytes)
    }

    fn unbuilt_table_bytes(&self, k: usize) -> u64 {
        match &self.orbits {
            Some(o) if !o.is_built(k) => o.layer_bytes(k),
            _ => 0,
        }
    }

    fn unrank(&self, k: usize, rank: u64) -> TeekoPosition {
        if let Some(orbits) = &self.orbits {
            let (set, pattern, cursor) = orbits.unrank(k, rank);
            let (x, o) = self.stones_of_key(k, set, pattern);
            let mut pos = self.position(x, o, self.folded_side(k));
            pos.cursor = cursor;
            return pos;
        }
        let boards = self.boards(k);
        let (side, board_rank) = if k == self.movement() {
            ((rank / boards) as u8, rank % boards)
        } else {
            ((k % 2) as u8, rank)
        };
        let inner = self.inner(k);
        let h = Self::x_count(k);
        let x = self.unrank_mask(h, board_rank / inner);
        let o_packed = self.unrank_mask(k - h, board_rank % inner);
        TeekoPosition {
            k,
            x,
            o: spread(o_packed, self.all() & !x),
            side,
            o_packed,
            board_rank,
            cursor: Cursor::default(),
        }
    }

    fn advance(&self, pos: &mut TeekoPosition) {
        let k = pos.k;
        if let Some(orbits) = &self.orbits {
            let (set, pattern) = orbits.advance(k, &mut pos.cursor);
            (pos.x, pos.o) = self.stones_of_key(k, set, pattern);
            return;
        }
        let h = Self::x_count(k);
        pos.board_rank += 1;
        if pos.board_rank == self.boards(k) {
            // The movement layer's second half: the same boards, o to move.
            pos.board_rank = 0;
            pos.side = 1;
            pos.x = (1u64 << h) - 1;
            pos.o_packed = (1u64 << (k - h)) - 1;
        } else if pos.board_rank.is_multiple_of(self.inner(k)) {
            pos.x = colex_next_mask(pos.x);
            pos.o_packed = (1u64 << (k - h)) - 1;
        } else {
            pos.o_packed = colex_next_mask(pos.o_packed);
        }
        pos.o = spread(pos.o_packed, self.all() & !pos.x);
    }

    /// A pattern on the board: the side to move has lost (the other side formed it).
    fn ended(&self, pos: &TeekoPosition) -> Option<i64> {
        (self.has_pattern(pos.x) || self.has_pattern(pos.o)).then_some(Wdl::Loss(0).encode().into())
    }

    fn for_each_child(&self, pos: &TeekoPosition, mut f: impl FnMut(Edge)) {
        if self.orbits.is_some() && pos.k == self.movement() {
            // Two slides may reach one orbit: each once.
            let mut ranks = [0u64; 8 * 18];
            let n = self.slide_ranks(pos, &mut ranks);
            crate::game::within::each_distinct(&mut ranks[..n], |rank| {
                f(Edge {
                    layer: pos.k,
                    rank,
                    reward: 0,
                })
            });
            return;
        }
        if let Some(orbits) = self.orbits.as_ref().filter(|_| self.outer_keyed)
            && pos.k + 1 < self.movement()
        {
            // Keyed on the side to move, which is this position's other side for every
            // drop: one outer entry ranks every child.
            let (stays, drops) = if pos.side == 0 {
                (pos.o, 0)
            } else {
                (pos.x, 1)
            };
            let outer = orbits.outer(pos.k + 1, stays);
            self.each_move(pos, |_, _, x, o| {
                f(Edge {
                    layer: pos.k + 1,
                    rank: outer.rank_fixed(if drops == 0 { x } else { o }).0,
                    reward: 0,
                })
            });
            return;
        }
        // Drops lead to the next layer (after the last drop x moves first in the movement
        // layer); distinct slides give distinct boards within the layer.
        self.each_move(pos, |from, _, x, o| match from {
            None => f(Edge {
                layer: pos.k + 1,
                rank: self.rank_of(pos.k + 1, x, o, 0),
                reward: 0,
            }),
            Some(_) => f(Edge {
                layer: pos.k,
                rank: self.rank_of(pos.k, x, o, 1 - pos.side),
                reward: 0,
            }),
        });
    }

    /// The mover's slides, one ranked at a time.
    fn for_each_child_within(
        &self,
        pos: &TeekoPosition,
        mut f: impl FnMut(u64) -> std::ops::ControlFlow<()>,
    ) {
        if pos.k < self.movement() {
            return;
        }
        let empty = self.all() & !pos.occupied();
        let stones = if pos.side == 0 { pos.x } else { pos.o };
        for from in cells(stones) {
            for to in cells(self.neighbours[from.trailing_zeros() as usize] & empty) {
                let (x, o) = if pos.side == 0 {
                    (pos.x & !from | to, pos.o)
                } else {
                    (pos.x, pos.o & !from | to)
                };
                if f(self.rank_of(pos.k, x, o, 1 - pos.side)).is_break() {
                    return;
                }
            }
        }
    }

    fn for_each_child_outside(&self, pos: &TeekoPosition, f: impl FnMut(Edge)) {
        if pos.k < self.movement() {
            self.for_each_child(pos, f);
        }
    }

    /// The mover's slides: each stone's empty neighbours, counted without ranking a child
    /// (folded, each parent is told back with its slides into the child's orbit).
    fn children_within(&self, pos: &TeekoPosition) -> usize {
        if pos.k < self.movement() {
            return 0;
        }
        let empty = self.all() & !pos.occupied();
        let stones = if pos.side == 0 { pos.x } else { pos.o };
        bits(stones)
            .map(|from| (self.neighbours[from] & empty).count_ones() as usize)
            .sum()
    }

    fn layer_positions(&self, k: usize) -> u64 {
        let boards = self.boards(k);
        if k == self.movement() {
            2 * boards
        } else {
            boards
        }
    }

    fn symmetries(&self) -> usize {
        match &self.orbits {
            Some(orbits) => 2 * orbits.symmetries().len(),
            None => 1,
        }
    }

    fn orbit_size(&self, pos: &TeekoPosition) -> u64 {
        match &self.orbits {
            // The movement layer's orbits hold each board with x to move and, colours
            // exchanged, with o to move.
            Some(orbits) => {
                let sides = if pos.k == self.movement() { 2 } else { 1 };
                sides * orbits.orbit_size(pos.occupied(), pos.x)
            }
            None => 1,
        }
    }

    fn images(&self, pos: &TeekoPosition) -> Vec<TeekoPosition> {
        let Some(orbits) = &self.orbits else {
            return vec![*pos];
        };
        let mut out: Vec<TeekoPosition> = orbits
            .images(pos.occupied(), pos.x)
            .into_iter()
            .map(|(set, x)| self.position(x, set & !x, pos.side))
            .collect();
        if pos.k == self.movement() {
            let swapped: Vec<TeekoPosition> = out
                .iter()
                .map(|p| self.position(p.o, p.x, 1 - p.side))
                .collect();
            out.extend(swapped);
        }
        out
    }

    /// Every slide undone. Unfolded, each gives another parent, told once; folded, each
    /// parent orbit is told how many of its slides lead into this position's orbit.
    fn for_each_parent_within(&self, pos: &TeekoPosition, mut f: impl FnMut(u64, u32)) {
        // The side that moved last slid one of its stones from a neighbouring empty cell.
        let last = 1 - pos.side;
        let (theirs, other) = if last == 0 {
            (pos.x, pos.o)
        } else {
            (pos.o, pos.x)
        };
        // A position that is over has no moves, so it is nobody's parent: where the side
        // that did not move has a pattern, every parent has it too.
        if self.has_pattern(other) {
            return;
        }
        let empty = self.all() & !pos.occupied();
        if let Some(orbits) = &self.orbits {
            let (set, pattern) = self.orbit_key(pos.k, pos.x, pos.o, pos.side);
            let fixed = orbits.fixed(pos.k, set, pattern);
            let mut parents = [0u64; 8 * 18];
            let mut n = 0;
            if self.outer_keyed {
                // Every parent's outer side is this position's side to move: one entry.
                let outer = orbits.outer(pos.k, other);
                self.each_slide_back(theirs, empty, |_, _, moved| {
                    parents[n] = crate::game::within::weighed(outer.rank_fixed(moved));
                    n += 1;
                });
            } else {
                self.each_slide_back(theirs, empty, |_, _, moved| {
                    parents[n] = crate::game::within::weighed(orbits.rank_fixed(
                        pos.k,
                        moved | other,
                        moved,
                    ));
                    n += 1;
                });
            }
            crate::game::within::each_weighted(&mut parents[..n], fixed, f);
            return;
        }
        let half = last as u64 * self.boards(pos.k);
        if last == 1 {
            // o slid: x's part of the rank stays, and o's cells packed over the cells x
            // leaves free (`o_packed`) change in two bits.
            let base = half + self.mask_rank(pos.x) * self.inner(pos.k);
            let packed_index = |cell: u64| {
                let below = pos.x & (cell - 1);
                cell.trailing_zeros() - Self::pop(below)
            };
            self.each_slide_back(theirs, empty, |at, cell, _| {
                let without = pos.o_packed & !(1u64 << packed_index(at));
                f(
                    base + self.mask_rank(without | 1u64 << packed_index(cell)),
                    1,
                );
            });
            return;
        }
        self.each_slide_back(theirs, empty, |_, _, x| {
            f(half + self.board_rank(pos.k, x, pos.o), 1)
        });
    }
}
