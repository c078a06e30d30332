//! Best moves (`retro build --moves L`): for the layers a table stores as move indices
//! (`crate::table::moves`), each position's first best move, derived right after its layer
//! is swept, while the values of the layer after it are at hand.

use std::ops::ControlFlow;

use rayon::prelude::*;

use super::sweep::{CHUNK, ChildValues};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::stored::Value;
use crate::table::moves::MAX_INDEX;

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
