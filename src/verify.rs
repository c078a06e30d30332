//! Re-deriving a table's entries from their children: the whole table layer by layer (in
//! parallel), or a random sample through exactly the per-entry reads `query` makes.

use std::ops::ControlFlow;

use rayon::prelude::*;

use crate::error::Result;
use crate::game::Gameplay;
use crate::sweep::{CHUNK, Progress};
use crate::table::Table;
use crate::value::Value;

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
    if game.early_value(pos).is_some() {
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

/// The value a position must have, given a way to read its children's values.
fn expected<G: Gameplay>(
    game: &G,
    pos: &G::Position,
    child: impl Fn(u64) -> Result<i64>,
) -> Result<i64> {
    let k = game.stones(pos);
    if k == game.cells() {
        return Ok(game.terminal_value(pos));
    }
    if let Some(value) = game.early_value(pos) {
        return Ok(value);
    }
    let sign = if k % 2 == 0 { 1 } else { -1 };
    let mut best = i64::MIN;
    let mut err = None;
    game.for_each_child(pos, |rank, reward| match child(rank) {
        Ok(v) => best = best.max(sign * (reward + v)),
        Err(e) => err = Some(e),
    });
    match err {
        Some(e) => Err(e),
        None => Ok(sign * best),
    }
}

/// Check every entry. Returns the number of positions checked, or the first mismatch
/// (lowest layer first is not promised; the first found in the sweep order is). In a table
/// of best moves, a layer of moves is checked move by move (each stored index must be the
/// first best move given the layer below), and its values for the layer above it are the
/// ones its children give.
///
/// Memory: the values of two adjacent layers in the table's own value type, as the build
/// held them (refused up front, as `build` refuses, when they do not fit).
pub fn verify_all<G: Gameplay>(
    game: &G,
    table: &Table,
    progress: &dyn Progress,
) -> Result<std::result::Result<u64, Mismatch>> {
    let vt = table.header.value_type;
    if let Some(solver) = game.retrograde() {
        crate::sweep::check_memory(game, vt.width())?;
        return verify_retrograde(game, solver, table, progress);
    }
    crate::sweep::check_memory(game, vt.width())?;
    crate::with_value_type!(vt, V => verify_layers::<G, V>(game, table, progress))
}

fn verify_layers<G: Gameplay, V: Value>(
    game: &G,
    table: &Table,
    progress: &dyn Progress,
) -> Result<std::result::Result<u64, Mismatch>> {
    let mut next: Vec<V> = Vec::new();
    let mut checked = 0u64;
    for k in (0..=game.cells()).rev() {
        let size = game.layer_size(k);
        progress.layer(k, size);
        let moves = !table.stores_values(k);
        // Layer k's values, each chunk filled by the worker that checks it: what layer
        // k - 1 is checked against.
        let mut values: Vec<V> = vec![V::from_i64(0); size as usize];
        let found = values
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(c, slot)| -> Result<Option<Mismatch>> {
                let start = (c * CHUNK) as u64;
                let stored = table.read_stored(k, start, slot.len())?;
                let mut pos = game.unrank(k, start);
                for (i, (&s, v)) in stored.iter().zip(slot.iter_mut()).enumerate() {
                    if i > 0 {
                        game.advance(&mut pos);
                    }
                    let child = |r: u64| Ok(next[r as usize].to_i64());
                    let e = expected(game, &pos, child)?;
                    let (e, s) = if moves {
                        *v = V::from_i64(e);
                        (first_best(game, &pos, e, child)?.unwrap_or(-1), s)
                    } else {
                        *v = V::from_i64(s);
                        (e, s)
                    };
                    if e != s {
                        return Ok(Some(Mismatch {
                            layer: k,
                            index: start + i as u64,
                            position: game.format_position(&pos),
                            stored: s,
                            expected: e,
                            best_move: moves,
                        }));
                    }
                }
                progress.advance(slot.len() as u64);
                Ok(None)
            })
            .collect::<Result<Vec<Option<Mismatch>>>>()?;
        if let Some(m) = found.into_iter().flatten().next() {
            return Ok(Err(m));
        }
        checked += size;
        next = values;
    }
    Ok(Ok(checked))
}

/// A layer's values as the retrograde solver holds them, read a chunk at a time; a value
/// outside `i16` (a damaged table) is reported as a mismatch against nothing.
fn read_i16(
    table: &Table,
    k: usize,
    size: u64,
) -> Result<std::result::Result<Vec<i16>, (u64, i64)>> {
    const READ: usize = 1 << 20;
    let mut out = Vec::with_capacity(size as usize);
    let mut start = 0u64;
    while start < size {
        let len = (READ as u64).min(size - start) as usize;
        for (i, v) in table.read_range(k, start, len)?.into_iter().enumerate() {
            match i16::try_from(v) {
                Ok(v) => out.push(v),
                Err(_) => return Ok(Err((start + i as u64, v))),
            }
        }
        start += len as u64;
    }
    Ok(Ok(out))
}

/// `verify_all` for a game of the retrograde solver: every position's value is what its
/// moves give (`retrograde::check_layer`), layer by layer from the last, two layers held.
fn verify_retrograde<G: Gameplay>(
    game: &G,
    solver: &dyn crate::retrograde::Retrograde,
    table: &Table,
    progress: &dyn Progress,
) -> Result<std::result::Result<u64, Mismatch>> {
    let mut next: Vec<i16> = Vec::new();
    let mut checked = 0u64;
    for k in (0..=game.cells()).rev() {
        let size = game.layer_size(k);
        progress.layer(k, size);
        let mismatch = |index: u64, stored: i64, expected: i64| Mismatch {
            layer: k,
            index,
            position: game.format_position(&game.unrank(k, index)),
            stored,
            expected,
            best_move: false,
        };
        let here = match read_i16(table, k, size)? {
            Ok(here) => here,
            Err((index, stored)) => return Ok(Err(mismatch(index, stored, i64::MIN))),
        };
        if let Some((index, stored, expected)) = solver.check_layer(k, &here, &next, progress) {
            return Ok(Err(mismatch(index, stored, expected)));
        }
        checked += size;
        next = here;
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
        let e = match game.retrograde() {
            Some(solver) => {
                let mut failed = None;
                let e = solver.expected_at(k, r, &mut |child| {
                    let read = match child {
                        crate::retrograde::Child::Within(c) => table.value(k, c),
                        crate::retrograde::Child::Next(c) => table.value(k + 1, c),
                    };
                    read.unwrap_or_else(|err| {
                        failed = Some(err);
                        0
                    })
                });
                if let Some(err) = failed {
                    return Err(err);
                }
                e
            }
            None => expected(game, &pos, child)?,
        };
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
