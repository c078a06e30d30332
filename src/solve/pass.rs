//! The one-pass worker for values of the side to move: a layer no move stays inside
//! (`LayerKind::OnePass`: Morris's placements) is computed in one parallel pass from the
//! finished layers its moves lead to, a batch of positions at a time with their children's
//! values fetched ahead, as the fixpoint counts. Values are for the side to move (`Wdl`).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use rayon::prelude::*;

use super::layers::Finished;
use super::outside::{CHUNK, COUNT_BATCH, Outside, child_value, too_far};
use crate::error::Result;
use crate::game::values::MAX_REMOTENESS;
use crate::game::{Edge, Game};
use crate::progress::{Progress, check_stopped};
use crate::stored::Value;

/// Positions `start..start + out.len()` of layer `k` (a rank's slice, or the whole layer)
/// into `out`, from the finished layers its moves lead to; no move of the layer may stay
/// inside it.
pub fn solve_layer<G: Game, V: Value>(
    game: &G,
    k: usize,
    start: u64,
    out: &mut [V],
    finished: &Finished<'_, V>,
    progress: &dyn Progress,
) -> Result<()> {
    let far = AtomicBool::new(false);
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
        if progress.stopped() {
            return;
        }
        let mut pos = game.unrank(k, start + (c * CHUNK) as u64);
        // A batch of positions at a time, their children's values fetched ahead, as
        // the fixpoint counts (`fixpoint.rs`).
        let mut edges: Vec<Edge> = Vec::with_capacity(COUNT_BATCH * 16);
        let mut ends = [None; COUNT_BATCH];
        let mut bounds = [0usize; COUNT_BATCH];
        for (b, out) in out.chunks_mut(COUNT_BATCH).enumerate() {
            edges.clear();
            for i in 0..out.len() {
                if b > 0 || i > 0 {
                    game.advance(&mut pos);
                }
                ends[i] = game.ended(&pos);
                if ends[i].is_none() {
                    game.for_each_child(&pos, |e| {
                        if e.layer == k {
                            // A game that says its layer has no moves inside has none.
                            far.store(true, Relaxed);
                        } else {
                            finished.prefetch(e.layer, e.rank);
                            edges.push(e);
                        }
                    });
                }
                bounds[i] = edges.len();
            }
            let mut from = 0;
            for (i, v) in out.iter_mut().enumerate() {
                let to = bounds[i];
                if let Some(end) = ends[i] {
                    *v = V::from_i64(end);
                    continue;
                }
                let mut seen = Outside::new();
                for &e in &edges[from..to] {
                    seen.child(child_value(finished, e));
                }
                from = to;
                if seen.win.is_some_and(|r| r > MAX_REMOTENESS) || seen.floor > MAX_REMOTENESS {
                    far.store(true, Relaxed);
                }
                *v = V::from_i64(seen.value().into());
            }
        }
        progress.advance(out.len() as u64);
    });
    // Asked to stop: the rest of the layer was skipped, and the caller drops it.
    check_stopped(progress)?;
    if far.load(Relaxed) {
        return Err(too_far(k));
    }
    Ok(())
}
