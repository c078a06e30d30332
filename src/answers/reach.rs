//! Which positions play from the start reaches: a forward pass over a game's own moves,
//! one bit a position, in parallel.
//!
//! Most games tell from a position alone whether play reaches it
//! (`Gameplay::check_reachable`). Where they cannot (Morris: stones come and go, and a
//! position's history is not written on it), this pass is the exact source: it starts at
//! the start position and follows every move, layer by layer in the order moves lead
//! (the reverse of the order the solver takes them), and inside a layer that moves stay in,
//! level by level until no new position turns up. It runs on the game with every
//! position its own entry (`Registered::unfolded`), since play from the start does not
//! treat the images of a position alike (x places first; colours exchanged are not the
//! same history). A lumped layer (`Game::lumped`: Morris's lost positions, one entry for
//! them all) still has a bit per position, by its own numbering (`Game::lumped_index`):
//! the moves into it are found among the moves of the positions with an edge there.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::{Game, Gameplay, LayerKind, Registered};

/// The positions play from the start reaches, as a bit per position of the unfolded game.
pub struct Reachable<G: Game> {
    game: G,
    bits: Vec<Vec<AtomicU64>>,
}

impl<G: Registered> Reachable<G> {
    /// The pass for the game `game` belongs to, where its `check_reachable` is not exact
    /// (None elsewhere: the per-position test is the answer). Refused when one bit per
    /// position would not fit in memory.
    pub fn where_needed(game: &G) -> Result<Option<Reachable<G>>> {
        if game.check_reachable_is_exact() {
            return Ok(None);
        }
        let Some(start) = game.start_position() else {
            return Ok(None);
        };
        let unfolded = G::unfolded(game.board().clone())?;
        let bits: u64 = (0..=unfolded.last_layer())
            .map(|k| bits_of(&unfolded, k))
            .sum();
        let bytes = bits.div_ceil(8);
        let room = crate::memory::available_memory().unwrap_or(u64::MAX) / 2;
        if bytes > room {
            return Err(Error::too_large(format!(
                "which positions play reaches takes a bit per position, {bytes} bytes, more than half the memory available ({room} bytes)"
            )));
        }
        Ok(Some(Reachable::from_start(unfolded, &start)))
    }
}

impl<G: Gameplay> Reachable<G> {
    /// Follow every move from `start` through `game`, whose entries must be single
    /// positions (an unfolded game).
    pub fn from_start(game: G, start: &G::Position) -> Reachable<G> {
        let layers = game.last_layer() + 1;
        let bits = (0..layers)
            .map(|k| {
                (0..bits_of(&game, k).div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect()
            })
            .collect();
        let lumped: Vec<bool> = (0..layers).map(|k| game.lumped(k)).collect();
        let reach = Reachable { game, bits };
        reach.mark_position(start);
        for k in forward_order(&reach.game) {
            if lumped[k] {
                // Its positions have no moves: play has ended there.
                continue;
            }
            let mut level: Vec<u64> = reach.members(k);
            let within = reach.game.layer_kind(k) == LayerKind::Fixpoint;
            while !level.is_empty() {
                level = level
                    .par_chunks(4096)
                    .flat_map_iter(|ranks| {
                        let mut next = Vec::new();
                        let mut pos = reach.game.unrank(k, ranks[0]);
                        let mut at = ranks[0];
                        for &rank in ranks {
                            if rank != at {
                                pos = reach.game.unrank(k, rank);
                                at = rank;
                            }
                            if reach.game.ended(&pos).is_some() {
                                continue;
                            }
                            let mut into_lumped = false;
                            reach.game.for_each_child(&pos, |edge| {
                                if lumped[edge.layer] {
                                    into_lumped = true;
                                } else if reach.mark(edge.layer, edge.rank) && edge.layer == k {
                                    next.push(edge.rank);
                                }
                            });
                            // An edge into a lumped layer names its one entry, not the
                            // position: the moves say which (few positions have such a move).
                            if into_lumped {
                                for mv in reach.game.moves(&pos) {
                                    if lumped[reach.game.layer_of(&mv.child)] {
                                        reach.mark_position(&mv.child);
                                    }
                                }
                            }
                        }
                        next
                    })
                    .collect();
                if !within {
                    // Nothing stays in the layer: its members were all known at the start.
                    level.clear();
                }
                level.sort_unstable();
            }
        }
        reach
    }

    /// Set a position's bit, by its rank or in a lumped layer its index there; a
    /// position the lumped layer's count leaves out has none.
    fn mark_position(&self, pos: &G::Position) {
        if let Some((k, at)) = self.place(pos) {
            self.mark(k, at);
        }
    }

    /// A position's layer and bit there: its rank, or in a lumped layer its index there
    /// (None for a position that layer's count leaves out).
    fn place(&self, pos: &G::Position) -> Option<(usize, u64)> {
        let k = self.game.layer_of(pos);
        match self.game.lumped(k) {
            true => self.game.lumped_index(pos).map(|i| (k, i)),
            false => Some((k, self.game.rank(pos))),
        }
    }

    /// Set a position's bit; whether it was clear.
    fn mark(&self, k: usize, rank: u64) -> bool {
        let bit = 1u64 << (rank % 64);
        self.bits[k][(rank / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// The ranks marked in layer `k`, in order.
    fn members(&self, k: usize) -> Vec<u64> {
        let mut out = Vec::new();
        for (w, word) in self.bits[k].iter().enumerate() {
            let mut bits = word.load(Ordering::Relaxed);
            while bits != 0 {
                out.push(w as u64 * 64 + u64::from(bits.trailing_zeros()));
                bits &= bits - 1;
            }
        }
        out
    }

    /// Whether play from the start reaches `pos` (a position of the game, folded or not:
    /// it is ranked in the unfolded one).
    pub fn contains(&self, pos: &G::Position) -> bool {
        let Some((k, at)) = self.place(pos) else {
            return false;
        };
        self.bits[k][(at / 64) as usize].load(Ordering::Relaxed) >> (at % 64) & 1 == 1
    }

    /// Positions reached in layer `k` (a lumped layer's too).
    pub fn count(&self, k: usize) -> u64 {
        self.bits[k]
            .iter()
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum()
    }
}

/// The bits layer `k` takes: a bit per entry, or in a lumped layer per position.
fn bits_of<G: Game>(game: &G, k: usize) -> u64 {
    match game.lumped(k) {
        true => game.layer_positions(k),
        false => game.layer_size(k),
    }
}

/// Whether play from the start reaches `pos`, as far as the position itself tells:
/// false where it shows it cannot arise (`Gameplay::check_reachable`), true where that
/// test is exact, and None, not known, where it is not (Quixo, Morris) and no forward
/// pass from the start answers instead (a table without a start).
pub fn shown_by_position<G: Gameplay>(game: &G, pos: &G::Position) -> Option<bool> {
    match game.check_reachable(pos) {
        Err(_) => Some(false),
        Ok(()) if game.check_reachable_is_exact() => Some(true),
        Ok(()) => None,
    }
}

/// The layers in the order moves lead: each after every layer with a move into it.
fn forward_order<G: Game>(game: &G) -> Vec<usize> {
    let layers = game.last_layer() + 1;
    let children: Vec<Vec<usize>> = (0..layers)
        .map(|k| {
            let mut c = game.child_layers(k);
            c.retain(|&l| l != k);
            c
        })
        .collect();
    let mut parents = vec![0usize; layers];
    for c in &children {
        for &l in c {
            parents[l] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..layers).filter(|&k| parents[k] == 0).collect();
    let mut order = Vec::with_capacity(layers);
    while let Some(k) = ready.pop() {
        order.push(k);
        for &l in &children[k] {
            parents[l] -= 1;
            if parents[l] == 0 {
                ready.push(l);
            }
        }
    }
    order
}
