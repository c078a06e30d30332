//! Quixo (Thierry Chapeau): an N x N board of cubes, all blank at the start, x first. A move
//! takes a cube from the outer ring that is blank or shows the mover's mark, turns it to the
//! mover's mark, and pushes it back in at an end of its row or column, shifting the cubes
//! between, but not at the place it came from (a corner cube has 2 choices, another edge cube
//! 3). N of one's marks in a row, a column or a main diagonal win; a move that completes a
//! line of the opponent's loses, even if it completes one of the mover's too.
//!
//! Layer k holds the boards with k marked cubes: taking a blank cube raises the layer, taking
//! one's own keeps it. A layer is ranked as (the k marked cells in colex order) x (which of
//! them are x's, as k bits) x (the side to move), so it holds C(N^2, k) 2^k boards x 2 sides.
//!
//! A position where the side to move has a line has been won by it (the other side completed
//! it); one where only the other side has a line is lost. Positions where play went on past a
//! line cannot arise; they are given those values all the same.

mod board;
mod gameplay;

pub use board::QuixoBoard;

use crate::error::{Error, Result};
use crate::game::symmetry::{Cursor, GridGroup, GridSymmetries, Orbits};
use crate::game::two_colour::spread;
use crate::game::{Edge, Game, LayerKind, Move, Values, Wdl};
use crate::rank::{
    Binomial, POP8, colex_chunk_table, colex_next_mask, colex_unrank_mask, compress, squeeze_out,
};

/// A Quixo position: the marked cubes, x's among them, and who moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuixoPosition {
    /// Marked cubes (the layer is their number).
    pub k: usize,
    /// Cells with a marked cube, as a mask (cell r * N + c).
    pub marked: u64,
    /// Cells showing x.
    pub x: u64,
    /// 0 when x moves, 1 when o moves.
    pub side: u8,
    /// Which of the marked cells are x's, as k bits in their order.
    bits: u64,
    /// Rank of the board within its side's half.
    board_rank: u64,
    /// Where a folded layer's walk is (`Orbits::advance`).
    cursor: Cursor,
}

/// Quixo on an N x N board.
pub struct Quixo {
    board: QuixoBoard,
    n: usize,
    cells: usize,
    binom: Binomial,
    /// The outer ring's cells, as a mask.
    ring: u64,
    /// Every row, column and main diagonal, as cell masks.
    lines: Vec<u64>,
    /// For each cell, the ring cells whose cube may be pushed in there.
    sources: Vec<u64>,
    /// Colex ranks by 8-cell chunk: entry `(c * (cells + 1) + t) * 256 + bits` is what chunk
    /// c's set bits add when t set bits lie below it.
    chunk_rank: Vec<u64>,
    /// The orbits of positions with x to move under the square's 8 symmetries, where the
    /// game folds them (`Quixo::new`; None for `Quixo::unfolded`). The rules are the same
    /// for both sides, so a position with o to move is ranked as the one with the colours
    /// exchanged and x to move: a layer holds one entry per orbit of 16.
    orbits: Option<Orbits>,
}

impl Quixo {
    /// Quixo on an N x N board (2 <= N <= 5), its positions folded by the square's
    /// symmetries and the exchange of colours: one table entry per orbit.
    pub fn new(n: usize) -> Result<Quixo> {
        let mut game = Quixo::unfolded(n)?;
        let sym = GridSymmetries::grid(n, n, GridGroup::Dihedral);
        game.orbits = Orbits::new(sym, vec![None; game.cells + 1]).ok();
        Ok(game)
    }

    /// Quixo on an N x N board with every position its own table entry.
    pub fn unfolded(n: usize) -> Result<Quixo> {
        if !(2..=5).contains(&n) {
            return Err(Error::input(format!(
                "quixo {n} x {n}: the board is 2 x 2 to 5 x 5"
            )));
        }
        let cells = n * n;
        let bit = |r: usize, c: usize| 1u64 << (r * n + c);
        let mut lines = Vec::new();
        for i in 0..n {
            lines.push((0..n).fold(0, |m, j| m | bit(i, j)));
            lines.push((0..n).fold(0, |m, j| m | bit(j, i)));
        }
        lines.push((0..n).fold(0, |m, i| m | bit(i, i)));
        lines.push((0..n).fold(0, |m, i| m | bit(i, n - 1 - i)));
        let ring = (0..cells)
            .filter(|&c| c / n == 0 || c / n == n - 1 || c % n == 0 || c % n == n - 1)
            .fold(0, |m, c| m | 1 << c);
        let mut quixo = Quixo {
            board: QuixoBoard { n },
            n,
            cells,
            binom: Binomial::new(cells)?,
            ring,
            lines,
            sources: vec![0; cells],
            chunk_rank: Vec::new(),
            orbits: None,
        };
        quixo.chunk_rank = colex_chunk_table(&quixo.binom, cells);
        for from in (0..cells).filter(|&c| ring >> c & 1 == 1) {
            let targets: Vec<usize> = quixo.targets(from).collect();
            for to in targets {
                quixo.sources[to] |= 1 << from;
            }
        }
        Ok(quixo)
    }

    /// Boards of layer k, one side's half.
    fn boards(&self, k: usize) -> u64 {
        self.binom.get(self.cells, k) << k
    }

    /// The rank of a board with `side` to move in layer k.
    #[inline]
    fn rank_of(&self, marked: u64, x: u64, side: u8) -> u64 {
        if let Some(orbits) = &self.orbits {
            // x to move: o to move is the colours exchanged.
            let x = if side == 1 { marked & !x } else { x };
            return orbits.rank(marked.count_ones() as usize, marked, x);
        }
        let (mut rank, mut k) = (0, 0);
        for c in 0..self.cells.div_ceil(8) {
            let bits = ((marked >> (8 * c)) & 255) as usize;
            rank += self.chunk_rank[(c * (self.cells + 1) + k) * 256 + bits];
            k += POP8[bits] as usize;
        }
        // x's cells packed over the marked ones: drop the blank cells, few in the large
        // layers.
        let holes = ((1u64 << self.cells) - 1) & !marked;
        let bits = if k * 2 >= self.cells {
            squeeze_out(x, holes)
        } else {
            compress(x, marked)
        };
        side as u64 * self.boards(k) + (rank << k) + bits
    }

    /// The distinct boards (marked, x) the mover's pushes of its own cubes make.
    fn boards_within(&self, pos: &QuixoPosition, out: &mut [(u64, u64); 64]) -> usize {
        let mark = pos.side + 1;
        let mine = if pos.side == 0 {
            pos.x
        } else {
            pos.marked & !pos.x
        };
        let mut count = 0;
        let mut rest = self.ring & mine;
        while rest != 0 {
            let from = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            for to in self.targets(from) {
                out[count] = self.push(pos.marked, pos.x, from, to, mark);
                count += 1;
            }
        }
        let boards = &mut out[..count];
        boards.sort_unstable();
        let mut distinct = 0;
        for i in 0..count {
            if i == 0 || boards[i] != boards[i - 1] {
                boards[distinct] = boards[i];
                distinct += 1;
            }
        }
        distinct
    }

    /// The rank of a position within its layer.
    pub fn rank(&self, pos: &QuixoPosition) -> u64 {
        self.rank_of(pos.marked, pos.x, pos.side)
    }

    fn has_line(&self, cells: u64) -> bool {
        self.lines.iter().any(|&l| l & !cells == 0)
    }

    /// Where a cube taken from `from` may go back in: the ends of its row and column, not
    /// `from` itself.
    fn targets(&self, from: usize) -> impl Iterator<Item = usize> + '_ {
        let (r, c, last) = (from / self.n, from % self.n, self.n - 1);
        let mut ends = [r * self.n, r * self.n + last, c, last * self.n + c];
        ends.sort_unstable();
        let mut seen = usize::MAX;
        ends.into_iter().filter(move |&e| {
            let fresh = e != from && e != seen;
            seen = e;
            fresh
        })
    }

    /// The board after the cube at `from` goes in at `to` showing `mark` (1 x, 2 o): the
    /// cubes between shift one step toward `from`. Boards are (marked, x) masks.
    fn push(&self, marked: u64, x: u64, from: usize, to: usize, mark: u8) -> (u64, u64) {
        let step = if from / self.n == to / self.n {
            1
        } else {
            self.n
        };
        // The cells from `from` to `to` along the line; the others stay.
        let (lo, hi) = (from.min(to), from.max(to));
        let mut span = 0u64;
        let mut c = lo;
        while c <= hi {
            span |= 1 << c;
            c += step;
        }
        let shift = |mask: u64| {
            let moved = if to > from {
                (mask & span) >> step
            } else {
                (mask & span) << step
            };
            mask & !span | moved & span
        };
        let m = shift(marked) | 1 << to;
        let xs = shift(x);
        let xs = if mark == 1 {
            xs | 1 << to
        } else {
            xs & !(1 << to)
        };
        (m, xs)
    }
}

impl Game for Quixo {
    type Position = QuixoPosition;

    /// Every cube marked.
    fn last_layer(&self) -> usize {
        self.cells
    }

    fn values(&self) -> Values {
        Values::SideToMove
    }

    fn rank(&self, pos: &QuixoPosition) -> u64 {
        self.rank_of(pos.marked, pos.x, pos.side)
    }

    fn layer_of(&self, pos: &QuixoPosition) -> usize {
        pos.k
    }

    /// Every push, by the cube taken then the end it goes in at; two pushes that make the
    /// same board are both listed.
    fn moves(&self, pos: &QuixoPosition) -> Vec<Move<QuixoPosition>> {
        let mut out = Vec::new();
        if self.ended(pos).is_some() {
            return out;
        }
        let mark = pos.side + 1;
        let theirs = if pos.side == 0 {
            pos.marked & !pos.x
        } else {
            pos.x
        };
        let mut rest = self.ring & !theirs;
        while rest != 0 {
            let from = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            for to in self.targets(from) {
                let (m, x) = self.push(pos.marked, pos.x, from, to, mark);
                out.push(Move {
                    from: Some((from / self.n, from % self.n)),
                    row: to / self.n,
                    col: to % self.n,
                    reward: 0,
                    take: None,
                    child: self.position(m, x, 1 - pos.side),
                });
            }
        }
        out
    }

    fn layer_size(&self, k: usize) -> u64 {
        match &self.orbits {
            Some(orbits) => orbits.layer_size(k),
            None => 2 * self.boards(k),
        }
    }

    fn prepare_layer(&self, k: usize) {
        if let Some(orbits) = &self.orbits {
            orbits.prepare(k);
        }
    }

    fn layer_positions(&self, k: usize) -> u64 {
        2 * self.boards(k)
    }

    fn symmetries(&self) -> usize {
        match &self.orbits {
            Some(orbits) => 2 * orbits.symmetries().len(),
            None => 1,
        }
    }

    /// Each board with its side to move, and its colours exchanged with the other side to
    /// move.
    fn orbit_size(&self, pos: &QuixoPosition) -> u64 {
        match &self.orbits {
            Some(orbits) => 2 * orbits.orbit_size(pos.marked, pos.x),
            None => 1,
        }
    }

    fn images(&self, pos: &QuixoPosition) -> Vec<QuixoPosition> {
        let Some(orbits) = &self.orbits else {
            return vec![*pos];
        };
        let mut out = Vec::new();
        for (marked, x) in orbits.images(pos.marked, pos.x) {
            out.push(self.position(marked, x, pos.side));
            out.push(self.position(marked, marked & !x, 1 - pos.side));
        }
        out
    }

    /// Pushing one of the mover's own cubes keeps the marked count: every layer but the
    /// blank board has moves inside it.
    fn layer_kind(&self, k: usize) -> LayerKind {
        if k > 0 {
            LayerKind::Fixpoint
        } else {
            LayerKind::Pass
        }
    }

    fn unrank(&self, k: usize, rank: u64) -> QuixoPosition {
        if let Some(orbits) = &self.orbits {
            let (marked, x, cursor) = orbits.unrank(k, rank);
            let mut pos = self.position(marked, x, 0);
            pos.cursor = cursor;
            return pos;
        }
        let boards = self.boards(k);
        let (side, board_rank) = ((rank / boards) as u8, rank % boards);
        let marked = colex_unrank_mask(&self.binom, board_rank >> k, k);
        let bits = board_rank & ((1u64 << k) - 1);
        QuixoPosition {
            k,
            marked,
            x: spread(bits, marked),
            side,
            bits,
            board_rank,
            cursor: Cursor::default(),
        }
    }

    fn advance(&self, pos: &mut QuixoPosition) {
        let k = pos.k;
        if let Some(orbits) = &self.orbits {
            let (marked, x) = orbits.advance(k, &mut pos.cursor);
            pos.marked = marked;
            pos.x = x;
            return;
        }
        pos.board_rank += 1;
        if pos.board_rank == self.boards(k) {
            pos.board_rank = 0;
            pos.side = 1;
            pos.marked = (1u64 << k) - 1;
            pos.bits = 0;
        } else if pos.bits + 1 == 1u64 << k {
            pos.marked = colex_next_mask(pos.marked);
            pos.bits = 0;
        } else {
            pos.bits += 1;
        }
        pos.x = spread(pos.bits, pos.marked);
    }

    /// A line of the mover's (won: the other side pushed it) or only of the other side's.
    fn ended(&self, pos: &QuixoPosition) -> Option<i64> {
        let o = pos.marked & !pos.x;
        let (mine, theirs) = if pos.side == 0 {
            (pos.x, o)
        } else {
            (o, pos.x)
        };
        if self.has_line(mine) {
            Some(Wdl::Win(0).encode().into())
        } else if self.has_line(theirs) {
            Some(Wdl::Loss(0).encode().into())
        } else {
            None
        }
    }

    fn for_each_child(&self, pos: &QuixoPosition, mut f: impl FnMut(Edge)) {
        let (k, next) = (pos.k, pos.k + 1);
        let mark = pos.side + 1;
        let theirs = if pos.side == 0 {
            pos.marked & !pos.x
        } else {
            pos.x
        };
        let mut within = [0u64; 64];
        let mut count = 0;
        let mut rest = self.ring & !theirs;
        while rest != 0 {
            let from = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let blank = pos.marked >> from & 1 == 0;
            for to in self.targets(from) {
                let (m, x) = self.push(pos.marked, pos.x, from, to, mark);
                let rank = self.rank_of(m, x, 1 - pos.side);
                if blank {
                    f(Edge {
                        layer: next,
                        rank,
                        reward: 0,
                    });
                } else {
                    within[count] = rank;
                    count += 1;
                }
            }
        }
        // Different pushes can make the same board: each child within the layer once.
        crate::game::moving::each_distinct(&mut within[..count], |rank| {
            f(Edge {
                layer: k,
                rank,
                reward: 0,
            })
        });
    }

    /// Pushes of blank cubes only.
    fn for_each_child_outside(&self, pos: &QuixoPosition, mut f: impl FnMut(Edge)) {
        let next = pos.k + 1;
        let mark = pos.side + 1;
        let mut rest = self.ring & !pos.marked;
        while rest != 0 {
            let from = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            for to in self.targets(from) {
                let (m, x) = self.push(pos.marked, pos.x, from, to, mark);
                f(Edge {
                    layer: next,
                    rank: self.rank_of(m, x, 1 - pos.side),
                    reward: 0,
                });
            }
        }
    }

    /// Distinct boards, told apart by their masks without ranking them (folded: distinct
    /// orbits, told apart by their ranks).
    fn children_within(&self, pos: &QuixoPosition) -> usize {
        let mut boards = [(0, 0); 64];
        let n = self.boards_within(pos, &mut boards);
        if self.orbits.is_none() {
            return n;
        }
        let mut ranks = [0u64; 64];
        for (r, &(m, x)) in ranks.iter_mut().zip(&boards[..n]) {
            *r = self.rank_of(m, x, 1 - pos.side);
        }
        let ranks = &mut ranks[..n];
        ranks.sort_unstable();
        (0..n)
            .filter(|&i| i == 0 || ranks[i] != ranks[i - 1])
            .count()
    }

    fn for_each_parent_within(&self, pos: &QuixoPosition, f: impl FnMut(u64)) {
        // The side that moved last took one of its own cubes from the ring at `from` and
        // pushed it in at `to`, where it now shows its mark: undo that push.
        let last = 1 - pos.side;
        let mark = last + 1;
        let shows = if last == 0 {
            pos.x
        } else {
            pos.marked & !pos.x
        };
        // At most 4 (N - 1) ends on the ring with 2 (N - 1) sources each: 128 for N = 5.
        let mut parents = [0u64; 128];
        let mut count = 0;
        let mut ends = self.ring & shows;
        while ends != 0 {
            let to = ends.trailing_zeros() as usize;
            ends &= ends - 1;
            let mut sources = self.sources[to];
            while sources != 0 {
                let from = sources.trailing_zeros() as usize;
                sources &= sources - 1;
                // Pushing the cube at `to` back in at `from` shifts the others back; the
                // cube at `from` showed the mover's mark before (an own cube was taken).
                let (m, x) = self.push(pos.marked, pos.x, to, from, mark);
                let o = m & !x;
                let (mine, theirs) = if last == 0 { (x, o) } else { (o, x) };
                if !self.has_line(mine) && !self.has_line(theirs) {
                    parents[count] = self.rank_of(m, x, last);
                    count += 1;
                }
            }
        }
        crate::game::moving::each_distinct(&mut parents[..count], f);
    }
}
