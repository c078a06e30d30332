//! Re-deriving a table's entries from their children: the whole table layer by layer (in
//! parallel), or a random sample through exactly the per-entry reads `query` makes.

use std::ops::ControlFlow;

use rayon::prelude::*;

use crate::error::Result;
use crate::game::{Edge, Game, Gameplay};
use crate::progress::Progress;
use crate::solve::Finished;
use crate::solve::sweep::CHUNK;
use crate::stored::Value;
use crate::table::Table;

/// The first entry whose stored value is not what its children give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The layer of the wrong entry.
    pub layer: usize,
    /// Its rank in the layer.
    pub index: u64,
    /// The position, in the game's notation.
    pub position: String,
    /// The value the table holds (or the best move's index, see `best_move`).
    pub stored: i64,
    /// The value its children give (or the index of its first best move).
    pub expected: i64,
    /// Whether the entry is a best move's index (a table of best moves), not a value.
    pub best_move: bool,
}

/// The index in `Game::moves` order of the first move of `pos` whose reward plus child
/// value is `value`: what a table of best moves stores (None if no move gives it; 0 where
/// play has ended, as the writer stores it).
fn first_best<G: Gameplay>(
    game: &G,
    pos: &G::Position,
    value: i64,
    child: impl Fn(u64) -> Result<i64>,
) -> Result<Option<i64>> {
    if game.ended(pos).is_some() {
        return Ok(Some(0));
    }
    let (mut index, mut found, mut err) = (0i64, false, None);
    game.for_each_move_in_order(pos, |rank, reward| match child(rank) {
        Ok(v) if reward + v == value => {
            found = true;
            ControlFlow::Break(())
        }
        Ok(_) => {
            index += 1;
            ControlFlow::Continue(())
        }
        Err(e) => {
            err = Some(e);
            ControlFlow::Break(())
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(found.then_some(index)),
    }
}

/// The value a position must have, given a way to read its children's values: its value
/// where play has ended, else the best of its moves for the side to move, as the game's
/// value model (`Values`) passes a value through a move and ranks two. A complete check for
/// every kind of layer: a labelling that agrees with it everywhere is the true one (for a
/// layer with moves inside it, because a win's or a loss's remoteness counts down along its
/// moves to a position where play has ended, and a draw with no move to a loss and a move to
/// a draw cannot hide a win or a loss, which would be found by induction on the remoteness).
pub fn expected<G: Game>(
    game: &G,
    pos: &G::Position,
    mut child: impl FnMut(Edge) -> Result<i64>,
) -> Result<i64> {
    if let Some(value) = game.ended(pos) {
        return Ok(value);
    }
    let (values, k) = (game.values(), game.layer_of(pos));
    let (mut best, mut err) = (None, None);
    game.for_each_child(pos, |e| match child(e) {
        Ok(v) => {
            let v = values.through(e.reward, v);
            if best.is_none_or(|b| values.better(v, b, k)) {
                best = Some(v);
            }
        }
        Err(e) => err = Some(e),
    });
    match err {
        Some(e) => Err(e),
        None => Ok(best.or(values.no_move()).unwrap_or(0)),
    }
}

/// Check every entry. Returns the number of positions checked, or the first mismatch
/// (lowest layer first is not promised; the first found in the solve's order is). In a
/// table of best moves, a layer of moves is checked move by move (each stored index must be
/// the first best move given the layer below), and its values for the layer above it are
/// the ones its children give.
///
/// Memory: the values of the layers a build holds at once, in the table's own value type
/// (refused up front, as `build` refuses, when they do not fit).
pub fn verify_all<G: Gameplay>(
    game: &G,
    table: &Table,
    progress: &dyn Progress,
) -> Result<std::result::Result<u64, Mismatch>> {
    let vt = table.header.value_type;
    crate::solve::check_memory(game, vt.held_as().width(), None)?;
    crate::stored::with_value_type!(vt, V => verify_layers::<G, V>(game, table, progress))
}

fn verify_layers<G: Gameplay, V: Value>(
    game: &G,
    table: &Table,
    progress: &dyn Progress,
) -> Result<std::result::Result<u64, Mismatch>> {
    let last = game.last_layer();
    let readers = crate::solve::lowest_readers(game);
    let mut held: Vec<Vec<V>> = vec![Vec::new(); last + 1];
    let mut checked = 0u64;
    for k in (0..=last).rev() {
        let size = game.layer_size(k);
        progress.layer(k, size);
        let moves = !table.stores_values(k);
        let mismatch = |index: u64, pos: &G::Position, stored: i64, expected: i64| Mismatch {
            layer: k,
            index,
            position: game.format_position(pos),
            stored,
            expected,
            best_move: moves,
        };
        // Layer k's values: as stored, or, in a layer of best moves, as its children give
        // them (each chunk filled by the worker that checks it).
        let mut here: Vec<V> = vec![V::from_i64(0); size as usize];
        if !moves {
            here.par_chunks_mut(CHUNK)
                .enumerate()
                .try_for_each(|(c, slot)| -> Result<()> {
                    let stored = table.read_stored(k, (c * CHUNK) as u64, slot.len())?;
                    for (v, s) in slot.iter_mut().zip(stored) {
                        *v = V::from_i64(s);
                    }
                    Ok(())
                })?;
        }
        let finished = Finished::new(
            last,
            held.iter()
                .enumerate()
                .filter(|(_, h)| !h.is_empty())
                .map(|(j, h)| (j, &h[..])),
        );
        let check = |c: usize, slot: &mut [V], here: &[V]| -> Result<Option<Mismatch>> {
            let start = (c * CHUNK) as u64;
            let stored = if moves {
                table.read_stored(k, start, slot.len())?
            } else {
                Vec::new()
            };
            let mut pos = game.unrank(k, start);
            for i in 0..slot.len() {
                if i > 0 {
                    game.advance(&mut pos);
                }
                let child = |e: Edge| {
                    let v = if e.layer == k {
                        here.get(e.rank as usize).copied()
                    } else {
                        finished.get(e.layer, e.rank)
                    };
                    v.map(|v| v.to_i64())
                        .ok_or_else(|| crate::error::Error::corrupt("a child outside the table"))
                };
                let e = expected(game, &pos, child)?;
                if moves {
                    slot[i] = V::from_i64(e);
                    let next = |r: u64| {
                        child(Edge {
                            layer: k + 1,
                            rank: r,
                            reward: 0,
                        })
                    };
                    let first = first_best(game, &pos, e, next)?.unwrap_or(-1);
                    if first != stored[i] {
                        return Ok(Some(mismatch(start + i as u64, &pos, stored[i], first)));
                    }
                } else if e != slot[i].to_i64() {
                    return Ok(Some(mismatch(start + i as u64, &pos, slot[i].to_i64(), e)));
                }
            }
            progress.advance(slot.len() as u64);
            Ok(None)
        };
        let found = if moves {
            here.par_chunks_mut(CHUNK)
                .enumerate()
                .map(|(c, slot)| check(c, slot, &[]))
                .collect::<Result<Vec<Option<Mismatch>>>>()?
        } else {
            let here = &here;
            (0..here.len().div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| {
                    let mut slot = here[c * CHUNK..][..CHUNK.min(here.len() - c * CHUNK)].to_vec();
                    check(c, &mut slot, here)
                })
                .collect::<Result<Vec<Option<Mismatch>>>>()?
        };
        if let Some(m) = found.into_iter().flatten().next() {
            return Ok(Err(m));
        }
        checked += size;
        held[k] = here;
        // Free what no layer below k reads.
        for (j, h) in held.iter_mut().enumerate().skip(k + 1) {
            if readers[j].is_none_or(|r| r >= k) {
                *h = Vec::new();
            }
        }
    }
    Ok(Ok(checked))
}

/// Check `count` random entries (seeded), each with one read per child, as `query` does.
/// At most as many entries as the table has are drawn: a larger sample would cost more
/// than checking every entry (`verify_all`).
pub fn verify_sample<G: Gameplay>(
    game: &G,
    table: &Table,
    count: u64,
    seed: u64,
) -> Result<std::result::Result<u64, Mismatch>> {
    let total = game.total_positions();
    let count = count.min(total);
    let mut rng = crate::random::SplitMix(seed);
    for _ in 0..count {
        let mut r = rng.next_u64() % total;
        let mut k = 0;
        while r >= game.layer_size(k) {
            r -= game.layer_size(k);
            k += 1;
        }
        let pos = game.unrank(k, r);
        let stored = table.value(k, r)?;
        let child = |child| table.value(k + 1, child);
        let e = expected(game, &pos, |e: Edge| table.value(e.layer, e.rank))?;
        let mismatch = |stored, expected, best_move| Mismatch {
            layer: k,
            index: r,
            position: game.format_position(&pos),
            stored,
            expected,
            best_move,
        };
        if e != stored {
            return Ok(Err(mismatch(stored, e, false)));
        }
        if !table.stores_values(k) {
            let best = table.best_move(k, r)? as i64;
            let first = first_best(game, &pos, e, child)?.unwrap_or(-1);
            if best != first {
                return Ok(Err(mismatch(best, first, true)));
            }
        }
    }
    Ok(Ok(count))
}
