//! The Morris family (mills): Five, Six, Nine and Twelve Men's Morris. Each player places
//! its stones on the points of a board of concentric squares, then slides them along the
//! lines (flying anywhere, where the variant allows it, with 3 left); a stone that closes a
//! mill (three in a line of the mover's) removes an opponent's stone. A player left with
//! fewer than 3 stones, or with no legal move, has lost. This file holds the rules; `board.rs`
//! the boards, `layers.rs` the layers, `ranking.rs` the ranking, `lost.rs` the lost
//! positions, `stabiliser.rs` the symmetries that fix a set of stones.
//!
//! The stones go down as well as up, so the layers are not the stones on the board:
//!
//! - **Placement**: by the placements made p (0..2S; x moves when p is even, and the hands
//!   follow from p) and the stones of each side on the board. Every move places a stone, so
//!   moves lead from placement p to p + 1: one pass each.
//! - **Movement** (both hands empty): by the two sides' stone counts {a, b}, whoever has
//!   which. A slide keeps the layer (the other side then moves with the same stones), a
//!   capture leads to a layer of one stone fewer: solved to a fixpoint, after the emptier
//!   layers it captures into.
//! - **Lost**: one entry for every position whose side to move has fewer than 3 stones (a
//!   capture's child when it leaves the opponent 2): lost, with nothing to store per board.
//!   The layer is lumped (`Game::lumped`): its positions are counted, numbered and walked
//!   (`lost.rs`), not stored.
//!
//! The layers are numbered placement first (by p), then movement by falling stone count,
//! then the lost one, so that every move leads to a higher-numbered layer or stays in its own.
//!
//! A layer is ranked by orbits of (occupied points, whose they are) under the board's 16
//! symmetries (`symmetry::Orbits`). Movement positions are ranked from the side to move:
//! the rules are the same for both sides once the hands are empty, so a position with o to
//! move is the one with the colours exchanged and x to move (`Morris::unfolded` keeps every
//! position apart, for tests and `--no-fold`).

mod board;
mod gameplay;
mod layers;
mod lost;
mod ranking;
mod stabiliser;

pub use board::{Geometry, MorrisBoard};

use crate::error::{Error, Result};
use crate::game::rank::Binomial;
use crate::game::symmetry::{Cursor, GridSymmetries, Orbits};
use crate::game::within::each_distinct;
use crate::game::{Edge, Game, LayerKind, Move, Values, Wdl};
use stabiliser::Stabiliser;

/// A Morris position: both sides' stones, their hands and who moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MorrisPosition {
    /// x's points, as a mask (bit i: the i-th point in reading order).
    pub x: u32,
    /// o's points.
    pub o: u32,
    /// Stones in hand: x's, o's.
    pub hands: [u8; 2],
    /// 0 when x moves, 1 when o moves.
    pub side: u8,
    /// The layer.
    layer: u32,
    /// Which part of the layer a walk is in, and where in it (`Morris::advance`).
    part: u8,
    local: u64,
    cursor: Cursor,
}

impl MorrisPosition {
    /// The side to move's stones and the other side's.
    fn sides(&self) -> (u32, u32) {
        if self.side == 0 {
            (self.x, self.o)
        } else {
            (self.o, self.x)
        }
    }
}

/// What a layer holds.
#[derive(Debug, Clone)]
pub(crate) enum Shape {
    /// Placements made, x's and o's stones on the board.
    Placement { p: usize, bx: usize, bo: usize },
    /// Both hands empty; the sides have `a` and `b` stones (a >= b), whoever has which.
    Movement { a: usize, b: usize },
    /// The side to move has fewer than 3 stones.
    Lost,
}

/// A run of a layer's ranks ranked by one orbit table: placement layers have one part;
/// a movement layer one per count of the mover's stones (folded) or per count of x's and
/// side to move (unfolded).
#[derive(Debug, Clone, Copy)]
struct Part {
    /// The orbit table's layer (`Orbits::with_layers`).
    orbit_layer: usize,
    /// The part's first rank in the layer.
    offset: u64,
    /// Its ranks.
    size: u64,
    /// Movement: the stones of the side to move (folded) or of x (unfolded).
    count: usize,
    /// Movement, unfolded: the side to move.
    side: u8,
}

/// One layer: its shape, its parts and the layers its moves lead to.
#[derive(Debug, Clone)]
struct Layer {
    shape: Shape,
    parts: Vec<Part>,
    children: Vec<usize>,
}

/// A Morris variant, with its layers and their orbit tables built once.
pub struct Morris {
    board: MorrisBoard,
    geometry: Geometry,
    /// Points.
    n: usize,
    /// Stones each.
    stones: usize,
    /// Every point, as a mask.
    all: u32,
    /// Whether the board's symmetries and the colours are folded.
    fold: bool,
    orbits: Orbits,
    /// The symmetries that fix a set of stones (`stabiliser`).
    fixers: Stabiliser,
    layers: Vec<Layer>,
    /// Placement layer of (p, bx, bo) at `(p * (S + 1) + bx) * (S + 1) + bo`, movement layer
    /// of {a, b} at `a * (S + 1) + b` (a >= b); `u32::MAX` where none.
    placement_index: Vec<u32>,
    movement_index: Vec<u32>,
    binom: Binomial,
    /// The lost layer's positions, by group (`lost.rs`): its one entry stands for them.
    lost: Vec<lost::LostGroup>,
    /// Each point's mills (`Geometry::mills_at`) in a fixed row, the rest `NO_MILL`: a
    /// move's mill test reads one row and tests its words without a branch per mill.
    mills_at: Vec<[u32; MILLS_AT]>,
}

/// The most mills through one point (the 24-point board with its diagonals: three).
const MILLS_AT: usize = 3;

/// A word no set of stones covers (a board has at most 24 points), padding `mills_at`.
const NO_MILL: u32 = u32::MAX;

/// Each point's mills as a fixed row (`Morris::mills_at`), padded with `NO_MILL`.
fn mill_rows(geometry: &Geometry) -> Vec<[u32; MILLS_AT]> {
    geometry
        .mills_at
        .iter()
        .map(|mills| {
            debug_assert!(
                mills.len() <= MILLS_AT,
                "a point in more mills than a row holds"
            );
            let mut row = [NO_MILL; MILLS_AT];
            for (to, &m) in row.iter_mut().zip(mills) {
                *to = m;
            }
            row
        })
        .collect()
}

/// The most moves of one position that stay in its layer, and the most that lead into it:
/// at most 12 stones sliding to at most 4 neighbours each, or 3 flying to at most 21 points.
const MAX_WITHIN: usize = 64;

/// Regions of the board that its symmetries carry onto each other, for `Stabiliser`: the
/// points above, below, left and right of the centre, and each square.
fn regions(geometry: &Geometry) -> Vec<u32> {
    let centre = geometry.cells.iter().map(|&(r, _)| r).max().unwrap_or(0) / 2;
    let mask = |keep: &dyn Fn(usize, usize) -> bool| {
        let points = geometry.cells.iter().enumerate();
        points
            .filter(|&(_, &(r, c))| keep(r, c))
            .fold(0u32, |m, (p, _)| m | 1 << p)
    };
    let mut regions = vec![
        mask(&|r, _| r < centre),
        mask(&|r, _| r > centre),
        mask(&|_, c| c < centre),
        mask(&|_, c| c > centre),
    ];
    for ring in 1..=centre {
        regions.push(mask(&|r, c| {
            r.abs_diff(centre).max(c.abs_diff(centre)) == ring
        }));
    }
    regions
}

/// x has placed ceil(p / 2) stones after p placements, o floor(p / 2).
fn placed(p: usize) -> (usize, usize) {
    (p.div_ceil(2), p / 2)
}

impl Morris {
    /// What layer `k` holds (`Gameplay::layer_words`).
    pub(crate) fn layer_shape(&self, k: usize) -> Shape {
        self.layers[k].shape.clone()
    }

    /// The variant with its positions folded by the board's 16 symmetries (and, once the
    /// hands are empty, by exchanging the colours): one table entry per orbit.
    pub fn new(board: MorrisBoard) -> Result<Morris> {
        Morris::build(board, true)
    }

    /// The variant with every position its own table entry.
    pub fn unfolded(board: MorrisBoard) -> Result<Morris> {
        Morris::build(board, false)
    }

    /// The mills of `mine` that the stone on `point` closes.
    #[inline]
    fn closes_mill(&self, mine: u32, point: usize) -> bool {
        let [a, b, c] = self.mills_at[point];
        (a & !mine == 0) | (b & !mine == 0) | (c & !mine == 0)
    }

    /// The stones of `theirs` a closed mill may remove: those in no mill of theirs, or any
    /// where all are.
    #[inline]
    fn removable(&self, theirs: u32) -> u32 {
        let mut in_mills = 0;
        for &m in &self.geometry.mills {
            if m & !theirs == 0 {
                in_mills |= m;
            }
        }
        let free = theirs & !in_mills;
        if free != 0 { free } else { theirs }
    }

    /// Where the side to move may put a stone taken from `from` (None: from its hand).
    #[inline]
    fn targets(&self, pos: &MorrisPosition, mine: u32, from: Option<usize>) -> u32 {
        let empty = self.all & !(pos.x | pos.o);
        match from {
            None => empty,
            Some(_) if self.board.flying && mine.count_ones() == 3 => empty,
            Some(f) => self.geometry.adjacent[f] & empty,
        }
    }

    /// Calls `f(from, to, take, child)` for every move, in the order people see them: by
    /// the stone moved (from the hand first), the point it goes to, the stone removed.
    fn each_move(
        &self,
        pos: &MorrisPosition,
        mut f: impl FnMut(Option<usize>, usize, Option<usize>, MorrisPosition),
    ) {
        let side = pos.side as usize;
        let (mine, theirs) = pos.sides();
        let in_hand = pos.hands[side] > 0;
        let mut hands = pos.hands;
        if in_hand {
            hands[side] -= 1;
        }
        // Every move without a capture leads to one layer, every capture to another: find
        // each once, from the first child that needs it, rather than per child.
        let (mut plain, mut capture) = (None, None);
        let mut removable = None;
        // A stone from the hand is one "from" (None); else each of the mover's stones.
        for from_bit in bits(if in_hand { 1 } else { mine }) {
            let from = (!in_hand).then_some(from_bit);
            let lifted = match from {
                Some(s) => mine & !(1 << s),
                None => mine,
            };
            for to in bits(self.targets(pos, mine, from)) {
                let moved = lifted | 1 << to;
                let make = |theirs: u32, layer: &mut Option<u32>| {
                    let (x, o) = if side == 0 {
                        (moved, theirs)
                    } else {
                        (theirs, moved)
                    };
                    self.child_of(pos, x, o, hands, layer)
                };
                if theirs != 0 && self.closes_mill(moved, to) {
                    let takes = *removable.get_or_insert_with(|| self.removable(theirs));
                    for take in bits(takes) {
                        f(
                            from,
                            to,
                            Some(take),
                            make(theirs & !(1 << take), &mut capture),
                        );
                    }
                } else {
                    f(from, to, None, make(theirs, &mut plain));
                }
            }
        }
    }

    /// A child of `pos` (the other side to move) whose layer is `layer`, worked out from the
    /// first child that needs it: the moves of a position that remove no stone all lead to
    /// one layer, and those that remove one to another.
    #[inline]
    fn child_of(
        &self,
        pos: &MorrisPosition,
        x: u32,
        o: u32,
        hands: [u8; 2],
        layer: &mut Option<u32>,
    ) -> MorrisPosition {
        let side = 1 - pos.side;
        let k = *layer.get_or_insert_with(|| self.child(x, o, hands, side).layer);
        MorrisPosition {
            x,
            o,
            hands,
            side,
            layer: k,
            part: 0,
            local: 0,
            cursor: Cursor::default(),
        }
    }

    /// A move's child: its layer follows from the move, so it is always counted.
    fn child(&self, x: u32, o: u32, hands: [u8; 2], side: u8) -> MorrisPosition {
        let layer = self
            .layer_of_stones(x, o, hands, side)
            .unwrap_or(self.lost_layer());
        MorrisPosition {
            x,
            o,
            hands,
            side,
            layer: layer as u32,
            part: 0,
            local: 0,
            cursor: Cursor::default(),
        }
    }
}

/// The set bits of a mask, lowest first (`rank::bits` over Morris's 32-bit masks).
#[inline]
fn bits(mask: u32) -> impl Iterator<Item = usize> {
    crate::game::rank::bits(u64::from(mask))
}

impl Game for Morris {
    type Position = MorrisPosition;

    fn last_layer(&self) -> usize {
        self.layers.len() - 1
    }

    fn layer_size(&self, k: usize) -> u64 {
        match self.layers[k].shape {
            Shape::Lost => 1,
            _ => self.layers[k].parts.iter().map(|p| p.size).sum(),
        }
    }

    fn layer_kind(&self, k: usize) -> LayerKind {
        match self.layers[k].shape {
            Shape::Movement { .. } => LayerKind::Fixpoint,
            _ => LayerKind::OnePass,
        }
    }

    fn child_layers(&self, k: usize) -> Vec<usize> {
        self.layers[k].children.clone()
    }

    fn values(&self) -> Values {
        Values::SideToMove
    }
    /// A game ends only when the side to move has two stones or no move: lost. Nine
    /// Men's Morris's moving phase has wins 203 plies long.
    fn halved_values(&self) -> bool {
        true
    }

    fn prepare_layer(&self, k: usize) {
        for p in &self.layers[k].parts {
            self.orbits.prepare(p.orbit_layer);
        }
    }

    fn table_bytes(&self) -> u64 {
        let index = (self.placement_index.len() + self.movement_index.len()) * 4;
        index as u64 + self.fixers.bytes() + self.orbits.table_bytes()
    }

    fn unbuilt_table_bytes(&self, k: usize) -> u64 {
        self.layers[k]
            .parts
            .iter()
            .filter(|p| !self.orbits.is_built(p.orbit_layer))
            .map(|p| self.orbits.layer_bytes(p.orbit_layer))
            .sum()
    }

    fn unrank(&self, k: usize, rank: u64) -> MorrisPosition {
        let layer = &self.layers[k];
        if let Shape::Lost = layer.shape {
            // The entry's face: x to move with 2 stones (the last two points) against o's
            // mill on the first three.
            return MorrisPosition {
                x: 3 << (self.n - 2),
                o: 7,
                hands: [0, 0],
                side: 0,
                layer: k as u32,
                part: 0,
                local: 0,
                cursor: Cursor::default(),
            };
        }
        let part = layer
            .parts
            .iter()
            .rposition(|p| p.offset <= rank)
            .unwrap_or(0);
        self.unrank_part(k, part, rank - layer.parts[part].offset)
    }

    fn rank(&self, pos: &MorrisPosition) -> u64 {
        let (part, set, ranked) = self.part_of(pos);
        if let Shape::Lost = self.layers[pos.layer as usize].shape {
            return 0;
        }
        let k = set.count_ones() as usize;
        debug_assert_eq!(self.orbit_layer_points(part.orbit_layer), k);
        part.offset
            + self
                .orbits
                .rank(part.orbit_layer, u64::from(set), u64::from(ranked))
    }

    fn layer_of(&self, pos: &MorrisPosition) -> usize {
        pos.layer as usize
    }

    fn advance(&self, pos: &mut MorrisPosition) {
        let k = pos.layer as usize;
        let layer = &self.layers[k];
        let part = layer.parts[pos.part as usize];
        if pos.local + 1 == part.size {
            *pos = self.unrank_part(k, pos.part as usize + 1, 0);
            return;
        }
        let (set, ranked) = self.orbits.advance(part.orbit_layer, &mut pos.cursor);
        let (set, ranked) = (set as u32, ranked as u32);
        pos.local += 1;
        pos.x = ranked;
        pos.o = set & !ranked;
    }

    /// The side to move has fewer than 3 stones (lost), or stones in hand and nowhere to put
    /// them (a draw by full board; no variant offered here fills the board before the hands
    /// are empty).
    fn ended(&self, pos: &MorrisPosition) -> Option<i64> {
        if let Shape::Lost = self.layers[pos.layer as usize].shape {
            return Some(Wdl::Loss(0).encode().into());
        }
        if pos.hands[pos.side as usize] > 0 && (pos.x | pos.o) == self.all {
            return Some(Wdl::Draw.encode().into());
        }
        None
    }

    fn for_each_child(&self, pos: &MorrisPosition, mut f: impl FnMut(Edge)) {
        let k = pos.layer as usize;
        // At most 12 stones with 4 neighbours each slide, or 3 fly to at most 21 points.
        let mut within = [0u64; MAX_WITHIN];
        let mut count = 0;
        self.each_move(pos, |_, _, _, child| {
            let edge = self.rank_child(&child);
            if edge.layer == k {
                within[count] = edge.rank;
                count += 1;
            } else {
                f(edge);
            }
        });
        each_distinct(&mut within[..count], |rank| {
            f(Edge {
                layer: k,
                rank,
                reward: 0,
            })
        });
    }

    /// In a movement layer the moves that remove no stone, one ranked at a time.
    fn for_each_child_within(
        &self,
        pos: &MorrisPosition,
        mut f: impl FnMut(u64) -> std::ops::ControlFlow<()>,
    ) {
        if !matches!(
            self.layers[pos.layer as usize].shape,
            Shape::Movement { .. }
        ) {
            return;
        }
        let (mine, theirs) = pos.sides();
        let mut layer = None;
        for from in bits(mine) {
            let lifted = mine & !(1 << from);
            for to in bits(self.targets(pos, mine, Some(from))) {
                let moved = lifted | 1 << to;
                if theirs != 0 && self.closes_mill(moved, to) {
                    continue;
                }
                let (x, o) = if pos.side == 0 {
                    (moved, theirs)
                } else {
                    (theirs, moved)
                };
                let child = self.child_of(pos, x, o, pos.hands, &mut layer);
                if f(self.rank(&child)).is_break() {
                    return;
                }
            }
        }
    }

    /// In a movement layer the moves that remove a stone are the ones that leave it: only
    /// they are ranked.
    fn for_each_child_outside(&self, pos: &MorrisPosition, f: impl FnMut(Edge)) {
        match self.layers[pos.layer as usize].shape {
            Shape::Movement { .. } => {
                self.captures(pos, f);
            }
            _ => self.for_each_child(pos, f),
        }
    }

    /// The moves that remove no stone, told apart by rank (distinct orbits).
    fn children_within(&self, pos: &MorrisPosition) -> usize {
        self.within(pos, None)
    }

    /// Both at once, the moves that close a mill found once.
    fn count_children(&self, pos: &MorrisPosition, f: impl FnMut(Edge)) -> usize {
        match self.layers[pos.layer as usize].shape {
            Shape::Movement { .. } => {
                let closing = self.captures(pos, f);
                self.within(pos, Some(closing))
            }
            _ => {
                self.for_each_child(pos, f);
                0
            }
        }
    }

    fn for_each_parent_within(&self, pos: &MorrisPosition, mut f: impl FnMut(u64, u32)) {
        if !matches!(
            self.layers[pos.layer as usize].shape,
            Shape::Movement { .. }
        ) {
            return;
        }
        // The side that moved last slid (or flew) one stone to a point where it closes no
        // mill (a mill would have removed a stone, and left the layer): undo that move.
        let (mine, theirs) = pos.sides();
        let empty = self.all & !(mine | theirs);
        let flies = self.board.flying && theirs.count_ones() == 3;
        let mut parents = [0u32; MAX_WITHIN];
        let mut count = 0;
        for to in bits(theirs) {
            if self.closes_mill(theirs, to) {
                continue;
            }
            let sources = if flies {
                empty
            } else {
                self.geometry.adjacent[to] & empty
            };
            for from in bits(sources) {
                parents[count] = theirs & !(1 << to) | 1 << from;
                count += 1;
            }
        }
        // One rank per orbit of parents (`classes`), told in rank order: the parents' words
        // are then updated in address order (11.0 s against 14.0 s for the tells of
        // `nine stones=6 moving`'s largest layer unsorted).
        let distinct = self.classes(mine, &mut parents[..count]);
        let mut ranks = [0u64; MAX_WITHIN];
        let parent = |i: usize| {
            let before = parents[i];
            if pos.side == 0 {
                (mine, before)
            } else {
                (before, mine)
            }
        };
        self.rank_all(pos.layer, 1 - pos.side, distinct, parent, &mut ranks);
        let ranks = &mut ranks[..distinct];
        ranks.sort_unstable();
        // Each once, as `children_within` counts distinct children.
        for &r in ranks.iter() {
            f(r, 1);
        }
    }

    fn symmetries(&self) -> usize {
        match self.fold {
            true => 2 * self.geometry.symmetries.len(),
            false => 1,
        }
    }

    fn layer_positions(&self, k: usize) -> u64 {
        let cells =
            |set: usize, ranked: usize| self.binom.get(self.n, set) * self.binom.get(set, ranked);
        match self.layers[k].shape {
            Shape::Placement { bx, bo, .. } => cells(bx + bo, bx),
            Shape::Movement { a, b } if a == b => 2 * cells(a + b, a),
            Shape::Movement { a, b } => 4 * cells(a + b, a),
            Shape::Lost => self.lost_positions(),
        }
    }

    fn orbit_size(&self, pos: &MorrisPosition) -> u64 {
        let (_, set, ranked) = self.part_of(pos);
        match self.layers[pos.layer as usize].shape {
            Shape::Placement { .. } => self.orbits.orbit_size(u64::from(set), u64::from(ranked)),
            Shape::Movement { .. } if self.fold => {
                2 * self.orbits.orbit_size(u64::from(set), u64::from(ranked))
            }
            Shape::Movement { .. } => 1,
            // The one entry stands for every lost position, folded or not.
            Shape::Lost => self.lost_positions(),
        }
    }

    /// The lost layer: one entry, whose value the side to move's 2 stones tell.
    fn lumped(&self, k: usize) -> bool {
        matches!(self.layers[k].shape, Shape::Lost)
    }

    fn lumped_positions(&self, k: usize, from: u64) -> impl Iterator<Item = MorrisPosition> {
        match self.lumped(k) {
            true => self.lost_walk(from),
            false => self.lost_walk(u64::MAX),
        }
    }

    fn lumped_index(&self, pos: &MorrisPosition) -> Option<u64> {
        match self.lumped(pos.layer as usize) {
            true => self.lost_index(pos),
            false => None,
        }
    }

    fn images(&self, pos: &MorrisPosition) -> Vec<MorrisPosition> {
        let layer = &self.layers[pos.layer as usize];
        let moving = matches!(layer.shape, Shape::Movement { .. });
        if !self.fold || matches!(layer.shape, Shape::Lost) {
            return vec![*pos];
        }
        let (set, x) = (u64::from(pos.x | pos.o), u64::from(pos.x));
        let mut out = Vec::new();
        for (s, y) in self.orbits.images(set, x) {
            let (x, o) = (y as u32, (s & !y) as u32);
            let mut image = *pos;
            image.x = x;
            image.o = o;
            out.push(image);
            if moving {
                image.x = o;
                image.o = x;
                image.side = 1 - pos.side;
                out.push(image);
            }
        }
        out
    }

    fn moves(&self, pos: &MorrisPosition) -> Vec<Move<MorrisPosition>> {
        let mut out = Vec::new();
        if self.ended(pos).is_some() {
            return out;
        }
        let cells = &self.geometry.cells;
        self.each_move(pos, |from, to, take, child| {
            out.push(Move {
                from: from.map(|f| cells[f]),
                row: cells[to].0,
                col: cells[to].1,
                take: take.map(|t| cells[t]),
                reward: 0,
                child,
            });
        });
        out
    }
}

impl Morris {
    /// The children of a movement position's captures, to `f` (each in the layer of one
    /// stone fewer); returns how many of its moves close a mill (before the stone taken is
    /// chosen).
    #[inline]
    fn captures(&self, pos: &MorrisPosition, mut f: impl FnMut(Edge)) -> usize {
        let theirs = pos.sides().1;
        let mut removable = None;
        let mut layer = None;
        // Every capture's child is in one layer and one part of it: ranked together, their
        // table reads overlap (`rank_all`).
        const AT_ONCE: usize = 16;
        let mut children = [(0u32, 0u32); AT_ONCE];
        let mut count = 0;
        let mut flush = |layer: Option<u32>, children: &[(u32, u32)]| {
            let Some(layer) = layer else { return };
            let mut ranks = [0u64; AT_ONCE];
            let n = children.len();
            self.rank_all(layer, 1 - pos.side, n, |i| children[i], &mut ranks);
            for &rank in &ranks[..children.len()] {
                f(Edge {
                    layer: layer as usize,
                    rank,
                    reward: 0,
                });
            }
        };
        let mut closing = 0;
        self.each_capture(pos, |after| {
            closing += 1;
            let takes = *removable.get_or_insert_with(|| self.removable(theirs));
            for take in bits(takes) {
                let left = theirs & !(1 << take);
                let (x, o) = if pos.side == 0 {
                    (after, left)
                } else {
                    (left, after)
                };
                if count == AT_ONCE {
                    flush(layer, &children);
                    count = 0;
                }
                self.child_of(pos, x, o, [0, 0], &mut layer);
                children[count] = (x, o);
                count += 1;
            }
        });
        flush(layer, &children[..count]);
        closing
    }

    /// A movement position's distinct children within its layer (none elsewhere), given
    /// how many of its moves close a mill where that is known.
    #[inline]
    fn within(&self, pos: &MorrisPosition, closing: Option<usize>) -> usize {
        if !matches!(
            self.layers[pos.layer as usize].shape,
            Shape::Movement { .. }
        ) {
            return 0;
        }
        // Counted without ranking: two such children are one orbit only where a symmetry
        // leaves the stones that did not move where they are and maps one moved set onto
        // the other (`classes`). Where none does, the count is the moves less the captures.
        let (mine, theirs) = pos.sides();
        if self.stabiliser(theirs) == 0 {
            let empty = self.all & !(mine | theirs);
            let moves = if self.board.flying && mine.count_ones() == 3 {
                3 * empty.count_ones()
            } else {
                bits(mine)
                    .map(|f| (self.geometry.adjacent[f] & empty).count_ones())
                    .sum()
            };
            let captures = closing.unwrap_or_else(|| {
                let mut captures = 0;
                self.each_capture(pos, |_| captures += 1);
                captures
            });
            return moves as usize - captures;
        }
        let mut moved = [0u32; MAX_WITHIN];
        let mut count = 0;
        for from in bits(mine) {
            let lifted = mine & !(1 << from);
            for to in bits(self.targets(pos, mine, Some(from))) {
                let after = lifted | 1 << to;
                if theirs == 0 || !self.closes_mill(after, to) {
                    moved[count] = after;
                    count += 1;
                }
            }
        }
        self.classes(theirs, &mut moved[..count])
    }

    /// The positions where the stones `fixed` stay and one side's stones are each of
    /// `sets` fall into orbits of the board's symmetries (where folded): two are one orbit
    /// only where a symmetry leaves `fixed` where it is and maps one set onto the other. The
    /// first `n` entries become one set of each orbit, and `n` is returned. Where no symmetry
    /// but the identity leaves `fixed` in place (most positions), every set is its own orbit
    /// and nothing is ranked or sorted.
    #[inline]
    fn classes(&self, fixed: u32, sets: &mut [u32]) -> usize {
        if sets.len() < 2 {
            return sets.len();
        }
        let stabiliser = self.stabiliser(fixed);
        if stabiliser == 0 {
            return sets.len();
        }
        let sym = self.orbits.symmetries();
        for set in sets.iter_mut() {
            *set = bits(stabiliser)
                .map(|g| sym.map(g, u64::from(*set)) as u32)
                .fold(*set, u32::min);
        }
        sets.sort_unstable();
        let mut n = 0;
        for i in 0..sets.len() {
            if i == 0 || sets[i] != sets[n - 1] {
                sets[n] = sets[i];
                n += 1;
            }
        }
        n
    }

    /// The symmetries other than the identity that leave `stones` where they are, a bit
    /// each; none where the symmetries are not folded.
    #[inline]
    fn stabiliser(&self, stones: u32) -> u32 {
        if !self.fold {
            return 0;
        }
        self.fixers.of(self.orbits.symmetries(), stones)
    }

    /// Calls `f(after)` for every move of a movement position that closes a mill (before
    /// the stone it removes is chosen), with the mover's stones after it. Only the empty
    /// points that would complete a mill are looked at, not every move.
    #[inline]
    fn each_capture(&self, pos: &MorrisPosition, mut f: impl FnMut(u32)) {
        let (mine, theirs) = pos.sides();
        if theirs == 0 {
            return;
        }
        let empty = self.all & !(mine | theirs);
        let mut closing = 0;
        for &m in &self.geometry.mills {
            // One point missing: a power of two (no popcount, which the portable target
            // has no instruction for).
            let missing = m & !mine;
            if missing != 0 && missing & (missing - 1) == 0 {
                closing |= missing & empty;
            }
        }
        let flies = self.board.flying && mine.count_ones() == 3;
        for to in bits(closing) {
            let from = if flies {
                mine
            } else {
                self.geometry.adjacent[to] & mine
            };
            for from in bits(from) {
                let after = mine & !(1 << from) | 1 << to;
                if self.closes_mill(after, to) {
                    f(after);
                }
            }
        }
    }

    /// The occupied points of an orbit table's layer (checks in debug builds).
    fn orbit_layer_points(&self, orbit_layer: usize) -> usize {
        self.orbits.occupied(orbit_layer)
    }

    /// The board's geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Why a position cannot be ranked, if it cannot.
    pub(crate) fn why_not(&self, x: u32, o: u32, hands: [u8; 2], side: u8) -> Option<String> {
        self.layer_of_stones(x, o, hands, side).err()
    }

    /// The error for a position no layer counts.
    pub(crate) fn refuse(&self, text: &str, why: &str) -> Error {
        Error::input(format!(
            "bad morris position {}: {why}",
            crate::error::excerpt(text)
        ))
    }
}
