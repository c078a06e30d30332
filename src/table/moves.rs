//! Tables of best moves (`retro build --moves L`): most layers store, per position, the
//! index of its first best move in `Game::moves` order instead of its value; every L-th
//! layer and the full layer store values. A value is found by following stored moves
//! down to a layer of values and adding their rewards on the way (`Table::value`).
//!
//! An index is a few bits where a value is a dozen or more, and the indices of a block
//! mostly span a handful of moves, so the same block layout as compact values
//! (`blocks.rs`: per block a minimum and a bit width) stores them in two to four bits.
//!
//! The sweep itself is unchanged: the driver derives a layer's indices from its values and
//! the values of the layer after it (`best_moves`) right after the layer is swept, while
//! those are at hand (over MPI ranks, with the children fetched from other ranks).

use std::ops::ControlFlow;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::Game;
use crate::solve::sweep::{CHUNK, ChildValues};
use crate::value::Value;

/// The largest move index a table of best moves stores (they are kept in a byte while a
/// layer is derived).
pub const MAX_INDEX: u64 = u8::MAX as u64;

/// Where a stored move leads.
pub(crate) enum Next {
    /// The child's rank in the next layer, and the move's reward.
    Child(u64, i64),
    /// The position has no moves because play has ended there (`Game::ended`):
    /// its value. Its stored index is 0 and means nothing.
    Ended(i64),
}

/// A table's game, behind a trait object so that `Table` stays one type for every game:
/// the child and reward of a stored move.
pub(crate) trait Follow: Send + Sync {
    /// Where move `index` (in `Game::moves` order) of position `rank` of layer `k` leads;
    /// an index past the position's moves, or a layer or rank outside the board, is
    /// damage.
    fn child(&self, k: usize, rank: u64, index: i64) -> Result<Next>;
}

struct Resolver<G>(G);

impl<G: Game> Follow for Resolver<G> {
    fn child(&self, k: usize, rank: u64, index: i64) -> Result<Next> {
        let game = &self.0;
        if k >= game.last_layer() || rank >= game.layer_size(k) {
            return Err(Error::corrupt(format!(
                "a best move leads from layer {k} rank {rank}, which has no moves"
            )));
        }
        if let Some((child, reward)) = u64::try_from(index)
            .ok()
            .and_then(|i| game.move_in_order(k, rank, i))
        {
            return Ok(Next::Child(child, reward));
        }
        // Only a position without that move gets here, so games that never end early pay
        // nothing for the check.
        if index == 0
            && let Some(value) = game.ended(&game.unrank(k, rank))
        {
            return Ok(Next::Ended(value));
        }
        Err(Error::corrupt(format!(
            "layer {k} rank {rank} stores best move {index}, past its last move"
        )))
    }
}

/// A game, as a `Follow`.
pub(crate) fn follower<G: Game + 'static>(game: G) -> Box<dyn Follow> {
    Box::new(Resolver(game))
}

/// For every position `first..first + values.len()` of layer `k` (`values`: the whole
/// layer, or a rank's slice), the index in `Game::moves` order of its first move whose
/// reward plus child value (read through `next`, layer `k + 1`) is the position's value,
/// into `out`. In parallel, in the sweep's chunks.
///
/// Fails if a position has no such move (the values are not the sweep's) or if the index
/// passes `MAX_INDEX`.
pub fn best_moves<G: Game, V: Value, C: ChildValues<V> + Sync + ?Sized>(
    game: &G,
    k: usize,
    first: u64,
    values: &[V],
    next: &C,
    out: &mut [u8],
) -> Result<()> {
    debug_assert_eq!(values.len(), out.len());
    out.par_chunks_mut(CHUNK)
        .zip(values.par_chunks(CHUNK))
        .enumerate()
        .try_for_each(|(c, (out, values))| {
            let start = first + (c * CHUNK) as u64;
            let mut pos = game.unrank(k, start);
            let mut hint = 0;
            for (i, (slot, &value)) in out.iter_mut().zip(values).enumerate() {
                if i > 0 {
                    game.advance(&mut pos);
                }
                let value = value.to_i64();
                if game.ended(&pos).is_some() {
                    // Play has ended: no move to store, and a lookup finds the value from
                    // the position itself (`Next::Ended`).
                    *slot = 0;
                    continue;
                }
                let mut index = 0u64;
                let mut found = false;
                game.for_each_move_in_order(&pos, |child, reward| {
                    // The sweep adds in the stored type, which never wraps (the game's value
                    // range), so the sum in i64 is the sum it compared.
                    if reward + next.values(child, 1, &mut hint)[0].to_i64() == value {
                        found = true;
                        return ControlFlow::Break(());
                    }
                    index += 1;
                    ControlFlow::Continue(())
                });
                if !found || index > MAX_INDEX {
                    let why = if found {
                        format!("its best move is number {index}, past the {MAX_INDEX} a table of best moves holds")
                    } else {
                        "no move gives its value".into()
                    };
                    return Err(Error::other(format!(
                        "layer {k} rank {}: {why}",
                        start + i as u64
                    )));
                }
                *slot = index as u8;
            }
            Ok(())
        })
}
