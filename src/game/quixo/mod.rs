//! Quixo (Thierry Chapeau): an N x N board of cubes, all blank at the start, x first. A move
//! takes a cube from the outer ring that is blank or shows the mover's mark, turns it to the
//! mover's mark, and pushes it back in at an end of its row or column, shifting the cubes
//! between, but not at the place it came from (a corner cube has 2 choices, another edge cube
//! 3). N of one's marks in a row, a column or a main diagonal win; a move that completes a
//! line of the opponent's loses, even if it completes one of the mover's too.
//!
//! Layers are by each side's cubes (`layers.rs`): taking a blank cube adds one to the
//! mover's cubes, taking one's own keeps both counts. A board may also hold only the
//! positions with at least `min` cubes taken (`QuixoBoard::min`), a part of the game no move
//! leaves.
//!
//! A position where the side to move has a line has been won by it (the other side completed
//! it); one where only the other side has a line is lost. Positions where play went on past a
//! line cannot arise; they are given those values all the same.

mod board;
mod gameplay;
mod layers;

pub use board::QuixoBoard;

use layers::{Layer, Layers};

use crate::error::{Error, Result};
use crate::game::rank::{Binomial, bits};
use crate::game::symmetry::Cursor;
use crate::game::{Edge, Game, LayerKind, Move, Values, Wdl};

/// The largest board whose line test is one table bit (`Quixo::lined`).
const LINED_CELLS: usize = 16;

/// A Quixo position: the marked cubes, x's among them, and who moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuixoPosition {
    /// Cells with a marked cube, as a mask (cell r * N + c).
    pub marked: u64,
    /// Cells showing x.
    pub x: u64,
    /// 0 when x moves, 1 when o moves.
    pub side: u8,
    /// Its layer (`layers.rs`).
    layer: usize,
    /// Where a layer's walk is: the part, the rank within it, the orbit tables' cursor.
    part: u8,
    local: u64,
    cursor: Cursor,
}

impl QuixoPosition {
    /// The side that moved last (0 for x), the mark its cubes show, and the cells showing
    /// it: where its last push may have left a cube, which undoing a push starts from.
    fn last_mover(&self) -> (u8, u8, u64) {
        let last = 1 - self.side;
        let shows = if last == 0 {
            self.x
        } else {
            self.marked & !self.x
        };
        (last, last + 1, shows)
    }
}

/// Quixo on an N x N board.
pub struct Quixo {
    board: QuixoBoard,
    n: usize,
    cells: usize,
    /// The outer ring's cells, as a mask.
    ring: u64,
    /// Every row, column and main diagonal, as cell masks.
    lines: Vec<u64>,
    /// On boards of at most `LINED_CELLS` cells, bit `m` of this table says whether the
    /// cells of mask `m` hold a line (`has_line`): undoing or making a push tests both
    /// sides' cubes, and one bit read in 8 KiB (4 x 4) costs less than walking the lines.
    /// Empty on larger boards (5 x 5's would be 4 MiB read at random).
    lined: Vec<u64>,
    /// For each cell, the ring cells whose cube may be pushed in there.
    sources: Vec<u64>,
    /// By `from * cells + to`, a push's line: the cells from `from` to `to`, which shift,
    /// and the step between two of them (1 along a row, N along a column). Every board a
    /// solve makes is a push, so the line is read, not walked.
    spans: Vec<(u64, u32)>,
    /// For each ring cell, the ends its cube may go back in at (`targets`), as a mask.
    ends: Vec<u64>,
    /// The ring cells whose cube goes back in at two ends (the corners); the others' at
    /// three.
    corners: u64,
    /// Whether positions are folded by the square's 8 symmetries and the exchange of
    /// colours: the rules are the same for both sides, so a position with o to move is
    /// ranked as the one with the colours exchanged and x to move, and a layer holds one
    /// entry per orbit of 16 (`Quixo::unfolded`: every position its own entry).
    fold: bool,
    /// The layers and the orbit tables that rank them.
    layers: Layers,
    binom: Binomial,
}

impl Quixo {
    /// Quixo on an N x N board (2 <= N <= 5), its positions folded by the square's
    /// symmetries and the exchange of colours: one table entry per orbit.
    pub fn new(n: usize) -> Result<Quixo> {
        Quixo::of(QuixoBoard { n, min: 0 }, true)
    }

    /// Quixo on an N x N board with every position its own table entry.
    pub fn unfolded(n: usize) -> Result<Quixo> {
        Quixo::of(QuixoBoard { n, min: 0 }, false)
    }

    /// The game on `board` (its positions with at least `board.min` cubes taken), folded
    /// or not.
    pub fn of(board: QuixoBoard, fold: bool) -> Result<Quixo> {
        let board = board.checked()?;
        let n = board.n;
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
        let layers = Layers::new(n, board.min, fold)?;
        let mut quixo = Quixo {
            board,
            n,
            cells,
            ring,
            lined: Vec::new(),
            lines,
            sources: vec![0; cells],
            corners: 0,
            spans: vec![(0, 0); cells * cells],
            ends: vec![0; cells],
            fold,
            layers,
            binom: Binomial::new(cells)?,
        };
        for from in (0..cells).filter(|&c| ring >> c & 1 == 1) {
            let targets: Vec<usize> = quixo.targets(from).collect();
            debug_assert!(matches!(targets.len(), 2 | 3), "a ring cube's ends");
            if targets.len() == 2 {
                quixo.corners |= 1 << from;
            }
            for &to in &targets {
                let step = if from / n == to / n { 1 } else { n };
                let span = (from.min(to)..=from.max(to))
                    .step_by(step)
                    .fold(0u64, |m, c| m | 1 << c);
                // An undone push walks the same line the other way.
                quixo.spans[from * cells + to] = (span, step as u32);
                quixo.spans[to * cells + from] = (span, step as u32);
                quixo.ends[from] |= 1 << to;
            }
            for to in targets {
                quixo.sources[to] |= 1 << from;
            }
        }
        if cells <= LINED_CELLS {
            let mut lined = vec![0u64; (1usize << cells).div_ceil(64)];
            for m in 0..1u64 << cells {
                if quixo.lines.iter().any(|&l| l & !m == 0) {
                    lined[(m >> 6) as usize] |= 1 << (m & 63);
                }
            }
            quixo.lined = lined;
        }
        Ok(quixo)
    }

    /// The layer of a board: its cubes taken and x's among them.
    #[inline]
    fn layer_at(&self, marked: u64, x: u64) -> usize {
        let xs = x.count_ones() as usize;
        self.layers.index(xs, marked.count_ones() as usize - xs)
    }

    /// Layer `k`'s ranking, looked up once for the many boards of a position's moves.
    #[inline]
    fn ranker(&self, k: usize) -> Ranker<'_> {
        let layer = &self.layers.layers[k];
        let mut parts = [(0, 0); 4];
        for (to, p) in parts.iter_mut().zip(&layer.parts) {
            *to = (p.orbit_layer, p.offset);
        }
        Ranker {
            orbits: &self.layers.orbits,
            fold: self.fold,
            a: layer.a,
            parts,
        }
    }

    /// The rank of a board with `side` to move in its layer `k`.
    #[inline]
    fn rank_of(&self, k: usize, marked: u64, x: u64, side: u8) -> u64 {
        self.ranker(k).rank(marked, x, side)
    }

    /// Layer `k`'s rules of play.
    fn layer(&self, k: usize) -> &Layer {
        &self.layers.layers[k]
    }

    /// The position of rank `local` in part `part` of layer `k`.
    fn unrank_part(&self, k: usize, part: usize, local: u64) -> QuixoPosition {
        let p = self.layer(k).parts[part];
        let (marked, ranked, cursor) = self.layers.orbits.unrank(p.orbit_layer, local);
        QuixoPosition {
            marked,
            x: ranked,
            side: p.side,
            layer: k,
            part: part as u8,
            local,
            cursor,
        }
    }

    #[inline]
    fn has_line(&self, cells: u64) -> bool {
        match self.lined.get((cells >> 6) as usize) {
            Some(word) => word >> (cells & 63) & 1 == 1,
            None => self.lines.iter().any(|&l| l & !cells == 0),
        }
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
    #[inline]
    fn push(&self, marked: u64, x: u64, from: usize, to: usize, mark: u8) -> (u64, u64) {
        let (span, step) = self.spans[from * self.cells + to];
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

/// One layer's ranking (`Quixo::ranker`).
struct Ranker<'a> {
    orbits: &'a crate::game::symmetry::Orbits,
    fold: bool,
    /// The layer's first count of x's cubes.
    a: usize,
    /// Each part's orbit table layer and first rank.
    parts: [(usize, u64); 4],
}

impl Ranker<'_> {
    /// The part a board with `side` to move is in, and the cubes it is ranked by (folded:
    /// the side to move's). Parts go by the count of x's cubes, the layer's `a` first, then
    /// (unfolded) by the side to move.
    #[inline]
    fn part_of(&self, marked: u64, x: u64, side: u8) -> (usize, u64) {
        let ranked = if self.fold && side == 1 {
            marked & !x
        } else {
            x
        };
        let other = ranked.count_ones() as usize != self.a;
        let part = match self.fold {
            true => other as usize,
            false => 2 * other as usize + side as usize,
        };
        (part, ranked)
    }

    #[inline]
    fn rank(&self, marked: u64, x: u64, side: u8) -> u64 {
        let (part, ranked) = self.part_of(marked, x, side);
        let (orbit_layer, offset) = self.parts[part & 3];
        offset + self.orbits.rank(orbit_layer, marked, ranked)
    }

    /// How many of the folded symmetries map the board onto itself.
    #[inline]
    fn fixed(&self, marked: u64, x: u64, side: u8) -> u32 {
        let (part, ranked) = self.part_of(marked, x, side);
        self.orbits.fixed(self.parts[part & 3].0, marked, ranked)
    }

    /// `rank`, and how many of the folded symmetries map the board onto itself.
    #[inline]
    fn rank_fixed(&self, marked: u64, x: u64, side: u8) -> (u64, u32) {
        let (part, ranked) = self.part_of(marked, x, side);
        let (orbit_layer, offset) = self.parts[part & 3];
        let (rank, fixed) = self.orbits.rank_fixed(orbit_layer, marked, ranked);
        (offset + rank, fixed)
    }
}

impl Game for Quixo {
    type Position = QuixoPosition;

    fn last_layer(&self) -> usize {
        self.layers.layers.len() - 1
    }

    fn values(&self) -> Values {
        Values::SideToMove
    }

    fn rank(&self, pos: &QuixoPosition) -> u64 {
        self.rank_of(pos.layer, pos.marked, pos.x, pos.side)
    }

    fn layer_of(&self, pos: &QuixoPosition) -> usize {
        pos.layer
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
        for from in bits(self.ring & !theirs) {
            for to in bits(self.ends[from]) {
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
        self.layer(k).parts.iter().map(|p| p.size).sum()
    }

    fn child_layers(&self, k: usize) -> Vec<usize> {
        self.layer(k).children.clone()
    }

    fn prepare_layer(&self, k: usize) {
        for p in &self.layer(k).parts {
            self.layers.orbits.prepare(p.orbit_layer);
        }
    }

    fn table_bytes(&self) -> u64 {
        (self.spans.len() * size_of::<(u64, u32)>() + self.lined.len() * 8) as u64
            + self.layers.orbits.table_bytes()
    }

    fn unbuilt_table_bytes(&self, k: usize) -> u64 {
        let orbits = &self.layers.orbits;
        self.layer(k)
            .parts
            .iter()
            .filter(|p| !orbits.is_built(p.orbit_layer))
            .map(|p| orbits.layer_bytes(p.orbit_layer))
            .sum()
    }

    /// Each count of x's cubes the layer holds, both sides to move.
    fn layer_positions(&self, k: usize) -> u64 {
        let layer = self.layer(k);
        let binom = &self.binom;
        let boards =
            |xs: usize| binom.get(self.cells, layer.taken()) * binom.get(layer.taken(), xs);
        let both = if layer.a == layer.b {
            boards(layer.a)
        } else {
            boards(layer.a) + boards(layer.b)
        };
        2 * both
    }

    fn symmetries(&self) -> usize {
        match self.fold {
            true => 2 * self.layers.orbits.symmetries().len(),
            false => 1,
        }
    }

    /// Each board with its side to move, and its colours exchanged with the other side to
    /// move.
    fn orbit_size(&self, pos: &QuixoPosition) -> u64 {
        match self.fold {
            true => 2 * self.layers.orbits.orbit_size(pos.marked, pos.x),
            false => 1,
        }
    }

    fn images(&self, pos: &QuixoPosition) -> Vec<QuixoPosition> {
        if !self.fold {
            return vec![*pos];
        }
        let mut out = Vec::new();
        for (marked, x) in self.layers.orbits.images(pos.marked, pos.x) {
            out.push(self.position(marked, x, pos.side));
            out.push(self.position(marked, marked & !x, 1 - pos.side));
        }
        out
    }

    /// The square's symmetries keep each side's cubes and the side to move; exchanging the
    /// colours swaps them: half the orbit each way.
    fn images_by_class(&self, pos: &QuixoPosition) -> Vec<(QuixoPosition, u64)> {
        if !self.fold {
            return vec![(*pos, 1)];
        }
        let half = self.layers.orbits.orbit_size(pos.marked, pos.x);
        let swapped = self.position(pos.marked, pos.marked & !pos.x, 1 - pos.side);
        vec![(*pos, half), (swapped, half)]
    }

    /// Pushing one of the mover's own cubes keeps the layer: every layer but the blank
    /// board has moves inside it.
    fn layer_kind(&self, k: usize) -> LayerKind {
        if self.layer(k).taken() > 0 {
            LayerKind::Fixpoint
        } else {
            LayerKind::OnePass
        }
    }

    fn unrank(&self, k: usize, rank: u64) -> QuixoPosition {
        let parts = &self.layer(k).parts;
        let part = parts.iter().rposition(|p| p.offset <= rank).unwrap_or(0);
        self.unrank_part(k, part, rank - parts[part].offset)
    }

    fn advance(&self, pos: &mut QuixoPosition) {
        let k = pos.layer;
        let part = self.layer(k).parts[pos.part as usize];
        if pos.local + 1 == part.size {
            *pos = self.unrank_part(k, pos.part as usize + 1, 0);
            return;
        }
        let (marked, x) = self
            .layers
            .orbits
            .advance(part.orbit_layer, &mut pos.cursor);
        pos.local += 1;
        pos.marked = marked;
        pos.x = x;
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
        let k = pos.layer;
        let mark = pos.side + 1;
        let theirs = if pos.side == 0 {
            pos.marked & !pos.x
        } else {
            pos.x
        };
        let mut within = [0u64; 64];
        let mut count = 0;
        let here = self.ranker(k);
        for from in bits(self.ring & !theirs) {
            let blank = pos.marked >> from & 1 == 0;
            for to in bits(self.ends[from]) {
                let (m, x) = self.push(pos.marked, pos.x, from, to, mark);
                if blank {
                    let layer = self.layer_at(m, x);
                    f(Edge {
                        layer,
                        rank: self.rank_of(layer, m, x, 1 - pos.side),
                        reward: 0,
                    });
                } else {
                    within[count] = here.rank(m, x, 1 - pos.side);
                    count += 1;
                }
            }
        }
        // Different pushes can make the same board: each child within the layer once.
        crate::game::within::each_distinct(&mut within[..count], |rank| {
            f(Edge {
                layer: k,
                rank,
                reward: 0,
            })
        });
    }

    /// Pushes of the mover's own cubes, one ranked at a time.
    fn for_each_child_within(
        &self,
        pos: &QuixoPosition,
        mut f: impl FnMut(u64) -> std::ops::ControlFlow<()>,
    ) {
        let mark = pos.side + 1;
        let mine = if pos.side == 0 {
            pos.x
        } else {
            pos.marked & !pos.x
        };
        let here = self.ranker(pos.layer);
        for from in bits(self.ring & mine) {
            for to in bits(self.ends[from]) {
                let (m, x) = self.push(pos.marked, pos.x, from, to, mark);
                if f(here.rank(m, x, 1 - pos.side)).is_break() {
                    return;
                }
            }
        }
    }

    /// Pushes of blank cubes only.
    fn for_each_child_outside(&self, pos: &QuixoPosition, mut f: impl FnMut(Edge)) {
        let mark = pos.side + 1;
        for from in bits(self.ring & !pos.marked) {
            for to in bits(self.ends[from]) {
                let (m, x) = self.push(pos.marked, pos.x, from, to, mark);
                let layer = self.layer_at(m, x);
                f(Edge {
                    layer,
                    rank: self.rank_of(layer, m, x, 1 - pos.side),
                    reward: 0,
                });
            }
        }
    }

    /// The pushes of the mover's own cubes, counted without making a board: each parent is
    /// told back with its pushes into the child's entry (`for_each_parent_within`).
    fn children_within(&self, pos: &QuixoPosition) -> usize {
        let mine = if pos.side == 0 {
            pos.x
        } else {
            pos.marked & !pos.x
        } & self.ring;
        (3 * mine.count_ones() - (mine & self.corners).count_ones()) as usize
    }

    /// Every push undone, weighed: a parent is told how many of its pushes lead into this
    /// position's entry, which `children_within` counted.
    fn for_each_parent_within(&self, pos: &QuixoPosition, f: impl FnMut(u64, u32)) {
        // The side that moved last took one of its own cubes from the ring at `from` and
        // pushed it in at `to`, where it now shows its mark: undo that push.
        let (last, mark, shows) = pos.last_mover();
        // At most 4 (N - 1) ends on the ring with 2 (N - 1) sources each: 128 for N = 5.
        let mut parents = [0u64; 128];
        let mut count = 0;
        let here = self.ranker(pos.layer);
        let fixed = here.fixed(pos.marked, pos.x, pos.side);
        for to in bits(self.ring & shows) {
            for from in bits(self.sources[to]) {
                // Pushing the cube at `to` back in at `from` shifts the others back; the
                // cube at `from` showed the mover's mark before (an own cube was taken).
                let (m, x) = self.push(pos.marked, pos.x, to, from, mark);
                let o = m & !x;
                let (mine, theirs) = if last == 0 { (x, o) } else { (o, x) };
                if !self.has_line(mine) && !self.has_line(theirs) {
                    parents[count] = crate::game::within::weighed(here.rank_fixed(m, x, last));
                    count += 1;
                }
            }
        }
        crate::game::within::each_weighted(&mut parents[..count], fixed, f);
    }
}
