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
//! the values of the layer after it right after the layer is swept, while those are at
//! hand (`solve::moves`; over MPI ranks, with the children fetched from other
//! ranks). What is here reads them back.

use crate::error::{Error, Result};
use crate::game::Game;

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
