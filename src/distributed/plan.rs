//! Which children a slice of a layer needs, worked out without running the layer: what
//! `retro plan` samples (`estimate`), from the same marking the solve does
//! (`crate::solve::children`).

use std::ops::Range;
use std::sync::atomic::AtomicU64;

pub use crate::solve::children::{
    GRAIN, Marker, Span, blank_marks, keep_fetched, plan_chunks, read_in_place, spans, words,
};

use super::split;
use crate::game::Game;
use crate::solve::sweep::CHUNK;

/// The grains of layer k + 1 (`next` positions) that positions `slice` of layer `k < cells`
/// have children in, planned a chunk at a time in the current rayon pool.
pub fn plan_slice<G: Game>(game: &G, k: usize, slice: Range<u64>, next: u64) -> Vec<u64> {
    let marks = blank_marks(next);
    plan_chunks(game, k, slice, CHUNK, 0..next, &marks);
    marks.into_iter().map(AtomicU64::into_inner).collect()
}

/// What `plan_slice` and `keep_fetched` leave for rank `rank` of `ranks` computing its
/// slice of layer `k`: the slice, its own slice of layer k + 1, the fetched grains.
pub fn plan_rank<G: Game>(
    game: &G,
    k: usize,
    ranks: usize,
    rank: usize,
) -> (Range<u64>, Range<u64>, Vec<u64>) {
    let (n, next) = (game.layer_size(k), game.layer_size(k + 1));
    let slice = split::slice(n, ranks, rank);
    let own = split::slice(next, ranks, rank);
    let mut marks = plan_slice(game, k, slice.clone(), next);
    keep_fetched(&mut marks, &own, next);
    (slice, own, marks)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::game::{Twins, Young};
    use crate::solve::children::Fetched;
    use crate::solve::sweep::ChildValues;
    use crate::testing::random_game;

    /// The marked grains hold every child of the slice's positions, and every marked
    /// grain holds one; the fetched values plus the own slice answer every lookup.
    fn plans_are_exact<G: Game>(game: &G) {
        for parts in [1, 2, 3, 5] {
            for k in 0..game.last_layer() {
                let (n, next) = (game.layer_size(k), game.layer_size(k + 1));
                let layer: Vec<u64> = (0..next).map(|c| c * 7 + 1).collect();
                for part in 0..parts {
                    let slice = split::slice(n, parts, part);
                    let mut want = BTreeSet::new();
                    let mut lookups = Vec::new();
                    if !slice.is_empty() {
                        let mut pos = game.unrank(k, slice.start);
                        for i in slice.clone() {
                            if i > slice.start {
                                game.advance(&mut pos);
                            }
                            if game.ended(&pos).is_some() {
                                continue;
                            }
                            game.for_each_child(&pos, |e| {
                                want.insert(e.rank / GRAIN);
                                lookups.push(e.rank);
                            });
                        }
                    }
                    let marks = plan_slice(game, k, slice.clone(), next);
                    let got: BTreeSet<u64> = (0..marks.len() as u64 * 64)
                        .filter(|&b| marks[(b / 64) as usize] >> (b % 64) & 1 == 1)
                        .collect();
                    assert_eq!(got, want, "layer {k}, part {part} of {parts}");
                    let (_, own, kept) = plan_rank(game, k, parts, part);
                    let values: Vec<u64> = spans(&kept, next)
                        .into_iter()
                        .flat_map(|(s, e)| layer[s as usize..e as usize].to_vec())
                        .collect();
                    let fetched = Fetched::new(
                        &layer[own.start as usize..own.end as usize],
                        own.start,
                        kept,
                        values,
                    );
                    for c in lookups {
                        assert_eq!(fetched.values(c, 1, &mut 0), &[c * 7 + 1]);
                    }
                }
            }
        }
    }

    #[test]
    fn plans_cover_exactly_the_children_young() -> crate::error::Result<()> {
        for (rows, cols) in [(3, 4), (5, 6), (6, 7)] {
            plans_are_exact(&random_game::<Young>(rows, cols, 3, 50)?);
        }
        Ok(())
    }

    #[test]
    fn plans_cover_exactly_the_children_twins() -> crate::error::Result<()> {
        for (rows, cols) in [(3, 3), (3, 4)] {
            plans_are_exact(&random_game::<Twins>(rows, cols, 3, 50)?);
        }
        Ok(())
    }
}
