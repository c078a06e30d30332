//! Re-deriving a table's entries from their children: the whole table layer by layer (in
//! parallel), or a random sample through exactly the per-entry reads `query` makes.

use rayon::prelude::*;

use crate::error::Result;
use crate::game::Game;
use crate::sweep::{CHUNK, Progress};
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
    /// The value the table holds.
    pub stored: i64,
    /// The value its children give.
    pub expected: i64,
}

/// The value a position must have, given a way to read its children's values.
fn expected<G: Game>(
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
/// (lowest layer first is not promised; the first found in the sweep order is).
pub fn verify_all<G: Game>(
    game: &G,
    table: &Table,
    progress: &dyn Progress,
) -> Result<std::result::Result<u64, Mismatch>> {
    let mut next: Vec<i64> = Vec::new();
    let mut checked = 0u64;
    for k in (0..=game.cells()).rev() {
        let size = game.layer_size(k);
        progress.layer(k, size);
        let chunks = size.div_ceil(CHUNK as u64);
        let found = (0..chunks)
            .into_par_iter()
            .map(|c| -> Result<Option<Mismatch>> {
                let start = c * CHUNK as u64;
                let count = (CHUNK as u64).min(size - start) as usize;
                let stored = table.read_range(k, start, count)?;
                let mut pos = game.unrank(k, start);
                for (i, &s) in stored.iter().enumerate() {
                    if i > 0 {
                        game.advance(&mut pos);
                    }
                    let e = expected(game, &pos, |r| Ok(next[r as usize]))?;
                    if e != s {
                        return Ok(Some(Mismatch {
                            layer: k,
                            index: start + i as u64,
                            position: game.format_position(&pos),
                            stored: s,
                            expected: e,
                        }));
                    }
                }
                progress.advance(count as u64);
                Ok(None)
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .next();
        if let Some(m) = found {
            return Ok(Err(m));
        }
        checked += size;
        next = table.read_range(k, 0, size as usize)?;
    }
    Ok(Ok(checked))
}

/// Check `count` random entries (seeded), each with one read per child, as `query` does.
/// At most as many entries as the table has are drawn: a larger sample would cost more
/// than checking every entry (`verify_all`).
pub fn verify_sample<G: Game>(
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
        let e = expected(game, &pos, |child| table.value(k + 1, child))?;
        if e != stored {
            return Ok(Err(Mismatch {
                layer: k,
                index: r,
                position: game.format_position(&pos),
                stored,
                expected: e,
            }));
        }
    }
    Ok(Ok(count))
}
