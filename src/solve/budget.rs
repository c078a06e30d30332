//! What a solve holds in memory at its peak, layer by layer, and which fixpoint worker a
//! layer with moves inside it takes so that the solve fits (`Fixpoint`).

use super::{Worker, lowest_readers, worker};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::memory;

/// How a layer with moves inside it is solved: counting each position's children
/// (`fixpoint.rs`) or checking candidates forward without counters (`checks.rs`). Both
/// write the same values; they differ in time and memory (`docs/design.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fixpoint {
    /// A count byte and a 16-bit word a position: its children not yet won, its pending
    /// word.
    Counters,
    /// A 16-bit word a position; a position a child's win may have left lost checks its
    /// moves forward.
    Checks,
}

/// `RETRO_FIXPOINT=counters` or `checks`: every layer solved on one process by that worker,
/// whatever the memory (to measure one against the other).
pub(super) fn forced_fixpoint() -> Option<Fixpoint> {
    match std::env::var("RETRO_FIXPOINT").as_deref() {
        Ok("checks") => Some(Fixpoint::Checks),
        Ok("counters") => Some(Fixpoint::Counters),
        _ => None,
    }
}

/// Bytes a fixpoint's solve of `own` positions holds for itself with values `width` bytes
/// wide, by the worker that solves it: its words (the counters worker's 3 bytes a position,
/// the checks worker's 2), its three bitmaps (a bit a position each) and the blocks' ready
/// levels (2 bytes per 64), and its values only as far as one block of words not yet freed
/// (both free their words block by block as the values are written).
pub(crate) fn fixpoint_bytes(own: u128, width: u128, fixpoint: Fixpoint) -> u128 {
    let words = match fixpoint {
        Fixpoint::Counters => own * 3 + 3 * own.div_ceil(8),
        Fixpoint::Checks => own * 2 + 3 * own.div_ceil(8),
    };
    words + own.div_ceil(32) + own.min(1 << 24) * width
}

/// Bytes the driver holds at its peak with values `width` bytes wide: at each layer, its own
/// values (plus the fixpoint's working memory) and every finished layer still to be read
/// (for a placement game: two adjacent layers; standard Teeko: 1.21 GB estimated, 1129 MiB
/// = 1.18 GB measured). Where finished layers are read back from the table file (`spills`,
/// the bytes a value takes there: `MapLayer`), only those the layer reads are held, as the
/// file stores them: the one finished last is written before the layer starts where the
/// layer does not read it or the file stores it narrower, and held as computed otherwise
/// (the same bytes).
pub(crate) fn peak_bytes<G: Game>(
    game: &G,
    width: usize,
    spills: Option<usize>,
    fixpoint: Fixpoint,
) -> u128 {
    layer_peak_bytes(game, width, spills, fixpoint)
        .into_iter()
        .max()
        .unwrap_or(0)
}

/// `peak_bytes` layer by layer: what the driver holds while it solves each layer (what
/// `retro plan`'s rows give for one process).
pub(crate) fn layer_peak_bytes<G: Game>(
    game: &G,
    width: usize,
    spills: Option<usize>,
    fixpoint: Fixpoint,
) -> Vec<u128> {
    let last = game.last_layer();
    let lowest = lowest_readers(game);
    let width = width as u128;
    (0..=last)
        .map(|k| {
            let own = game.layer_size(k) as u128;
            let own_bytes = match worker(game, k) {
                Worker::Fixpoint => fixpoint_bytes(own, width, fixpoint),
                _ => own * width,
            };
            // Layers above k that some layer at or below k reads; spilled, only those k
            // reads.
            let reads = game.child_layers(k);
            let held: u128 = (k + 1..=last)
                .filter(|&j| lowest[j].is_some_and(|r| r <= k))
                .map(|j| {
                    let n = game.layer_size(j) as u128;
                    match spills {
                        None => n * width,
                        Some(_) if !reads.contains(&j) => 0,
                        Some(stored) => n * (stored as u128).min(width),
                    }
                })
                .sum();
            held + own_bytes
        })
        .collect()
}

/// The fixpoint worker a plain build of `game` is planned with: the counters worker where
/// the build fits in the memory available with it, else the checks worker (which each
/// layer then takes where the counters worker's words would not fit: `fixpoint_layer`).
pub(crate) fn planned_fixpoint<G: Game>(game: &G, width: usize, spills: Option<usize>) -> Fixpoint {
    if let Some(forced) = forced_fixpoint() {
        return forced;
    }
    let need = peak_bytes(game, width, spills, Fixpoint::Counters);
    fixpoint_for(need, memory::available_memory())
}

/// The counters worker where what it needs (`need` bytes) fits in the memory available (or
/// that is not known), else the checks worker.
pub(super) fn fixpoint_for(need: u128, available: Option<u64>) -> Fixpoint {
    match available {
        Some(avail) if need > avail as u128 => Fixpoint::Checks,
        _ => Fixpoint::Counters,
    }
}

/// Refuse a board whose solve does not fit in available memory (`peak_bytes`, with the
/// fixpoint worker that needs least where the other does not fit).
pub(crate) fn check_memory<G: Game>(game: &G, width: usize, spills: Option<usize>) -> Result<()> {
    let need = peak_bytes(game, width, spills, planned_fixpoint(game, width, spills));
    let max_layer = (0..=game.last_layer())
        .map(|k| game.layer_size(k))
        .max()
        .unwrap_or(0);
    if usize::try_from(max_layer).is_err() {
        return Err(Error::too_large(
            "board too large: a layer does not fit in this address space",
        ));
    }
    if let Some(avail) = memory::available_memory()
        && need > avail as u128
    {
        return Err(Error::too_large(format!(
            "board too large for memory: the solve needs about {} (the layers it holds at once), {} available",
            memory::human_bytes(need as f64),
            memory::human_bytes(avail as f64)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_takes_the_checks_worker_only_where_the_counters_do_not_fit() {
        let n = 1u128 << 30;
        let (counters, checks) = (
            fixpoint_bytes(n, 1, Fixpoint::Counters),
            fixpoint_bytes(n, 1, Fixpoint::Checks),
        );
        // 3 bytes and 3 bitmaps a position against 2 bytes and 3 bitmaps, besides the
        // ready levels and one block of values.
        assert_eq!(counters - checks, n);
        assert!(checks < counters && counters < 4 * n);
        let fits = u64::try_from(counters).unwrap();
        assert_eq!(fixpoint_for(counters, Some(fits)), Fixpoint::Counters);
        assert_eq!(fixpoint_for(counters, Some(fits - 1)), Fixpoint::Checks);
        // Memory not known: the default.
        assert_eq!(fixpoint_for(counters, None), Fixpoint::Counters);
    }
}
