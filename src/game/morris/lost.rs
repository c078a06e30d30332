//! Morris's lost positions: the side to move is down to 2 stones (on the board and in
//! hand), by the capture that led there. Their value is known without the board (lost, in
//! 0 plies), so the table stores one entry for them all, the lost layer (`Game::lumped`);
//! here they are counted and numbered, so that `stats`, `info`, `build`, the forward pass
//! of reachability and `export --all` see each one.
//!
//! The positions counted are those `query` takes as lost for want of stones: the side to
//! move has 2 stones in all, the other 3 to S; both hands are empty (moving), or, while
//! placing, they say whose turn it is (x places first) and neither side has lost more
//! stones than the other can have taken by then (`Morris::history`). As in the other
//! layers, any points may hold the stones. They fall into groups by the hands, the side to
//! move and each side's stones on the board, numbered in that order; within a group, by
//! the occupied points, then x's among them (both in colex order).

use super::*;
use crate::game::rank::{colex_next_mask, colex_rank_mask, colex_unrank_mask, compress};

/// The lost positions with these hands, side to move and stones on the board.
#[derive(Debug, Clone, Copy)]
pub(super) struct LostGroup {
    hands: [u8; 2],
    side: u8,
    /// x's and o's stones on the board.
    stones: [usize; 2],
    /// Its first position's index among the layer's.
    offset: u64,
    /// Its positions.
    size: u64,
}

impl LostGroup {
    /// Points occupied.
    fn occupied(&self) -> usize {
        self.stones[0] + self.stones[1]
    }
}

impl Morris {
    /// The groups of lost positions, in the order they are numbered; none empty.
    pub(super) fn lost_groups(&self) -> Vec<LostGroup> {
        let s = self.stones;
        let mut shapes: Vec<([usize; 2], u8, [usize; 2])> = Vec::new();
        // Moving: either side to move, with 2 stones against 3 to S.
        for side in 0..2u8 {
            for other in 3..=s {
                let mut stones = [other; 2];
                stones[side as usize] = 2;
                shapes.push(([0, 0], side, stones));
            }
        }
        // Placing (p placements made, fewer than 2S): the side whose turn it is has 2 in
        // all, so at most 2 in hand.
        let placements = if self.board.moving { 0 } else { 2 * s };
        for p in 1..placements {
            let side = (p % 2) as u8;
            let (me, them) = (side as usize, 1 - side as usize);
            let placed = {
                let (px, po) = placed(p);
                [px, po]
            };
            let hands = [s - placed[0], s - placed[1]];
            if hands[me] > 2 || 2 - hands[me] > placed[me] {
                continue;
            }
            let mine = 2 - hands[me];
            for theirs in 0..=placed[them] {
                // A side loses at most one stone per mill the other closed, and closes its
                // first mill with its third stone.
                let lost_mine = placed[me] - mine <= placed[them].saturating_sub(2);
                let lost_theirs = placed[them] - theirs <= placed[me].saturating_sub(2);
                if theirs + hands[them] >= 3 && lost_mine && lost_theirs {
                    let mut stones = [0; 2];
                    stones[me] = mine;
                    stones[them] = theirs;
                    shapes.push((hands, side, stones));
                }
            }
        }
        let mut groups = Vec::with_capacity(shapes.len());
        let mut offset = 0;
        for (hands, side, stones) in shapes {
            let occupied = stones[0] + stones[1];
            let size = self.binom.get(self.n, occupied) * self.binom.get(occupied, stones[0]);
            if size == 0 {
                continue;
            }
            groups.push(LostGroup {
                hands: hands.map(|h| h as u8),
                side,
                stones,
                offset,
                size,
            });
            offset += size;
        }
        groups
    }

    /// The lost positions counted (`lost_groups`).
    pub(super) fn lost_positions(&self) -> u64 {
        self.lost.last().map_or(0, |g| g.offset + g.size)
    }

    /// A lost position's index among the lost layer's, None where its counts are in no
    /// group (a side to move with fewer than 2 stones, which no play leaves).
    pub(super) fn lost_index(&self, pos: &MorrisPosition) -> Option<u64> {
        let stones = [pos.x.count_ones() as usize, pos.o.count_ones() as usize];
        let group = self
            .lost
            .iter()
            .find(|g| g.hands == pos.hands && g.side == pos.side && g.stones == stones)?;
        let set = u64::from(pos.x | pos.o);
        let xs = self.binom.get(group.occupied(), stones[0]);
        let x = compress(u64::from(pos.x), set);
        Some(
            group.offset + colex_rank_mask(&self.binom, set) * xs + colex_rank_mask(&self.binom, x),
        )
    }

    /// The lost positions from the `from`-th on (`lost_index` order).
    pub(super) fn lost_walk(&self, from: u64) -> LostWalk<'_> {
        let Some(g) = self.lost.iter().position(|g| from < g.offset + g.size) else {
            return LostWalk {
                game: self,
                group: self.lost.len(),
                set: 0,
                x: 0,
            };
        };
        let group = self.lost[g];
        let local = from - group.offset;
        let xs = self.binom.get(group.occupied(), group.stones[0]);
        LostWalk {
            game: self,
            group: g,
            set: colex_unrank_mask(&self.binom, local / xs, group.occupied()),
            x: colex_unrank_mask(&self.binom, local % xs, group.stones[0]),
        }
    }
}

/// A walk over the lost positions in index order: the group, the occupied points, and x's
/// among them (as a subset of the occupied points' places, lowest first).
pub(super) struct LostWalk<'a> {
    game: &'a Morris,
    group: usize,
    set: u64,
    x: u64,
}

/// The next set of `width` bits after `mask` with as many set, in colex order; None after
/// the last (or for the empty set, which is alone).
fn next_subset(mask: u64, width: usize) -> Option<u64> {
    if mask == 0 {
        return None;
    }
    let next = colex_next_mask(mask);
    (next >> width == 0).then_some(next)
}

/// The low bits of `value`, put at the set bits of `mask`, lowest first (a software pdep,
/// `compress` undone).
fn deposit(value: u64, mask: u64) -> u64 {
    let (mut out, mut rest, mut bit) = (0u64, mask, 0);
    while rest != 0 {
        let low = rest & rest.wrapping_neg();
        if value >> bit & 1 == 1 {
            out |= low;
        }
        bit += 1;
        rest &= rest - 1;
    }
    out
}

impl Iterator for LostWalk<'_> {
    type Item = MorrisPosition;

    fn next(&mut self) -> Option<MorrisPosition> {
        let game = self.game;
        let group = *game.lost.get(self.group)?;
        let x = deposit(self.x, self.set) as u32;
        let pos = MorrisPosition {
            x,
            o: self.set as u32 & !x,
            hands: group.hands,
            side: group.side,
            layer: game.lost_layer() as u32,
            part: 0,
            local: 0,
            cursor: Cursor::default(),
        };
        let first = |bits: usize| (1u64 << bits) - 1;
        if let Some(x) = next_subset(self.x, group.occupied()) {
            self.x = x;
        } else if let Some(set) = next_subset(self.set, game.n) {
            self.set = set;
            self.x = first(group.stones[0]);
        } else {
            self.group += 1;
            if let Some(next) = game.lost.get(self.group) {
                self.set = first(next.occupied());
                self.x = first(next.stones[0]);
            }
        }
        Some(pos)
    }
}
