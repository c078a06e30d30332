//! Over several ranks, the values of children in other ranks' slices that a layer's slice
//! reads: marked, then fetched from their owners, before a one-pass layer is solved or once
//! a fixpoint layer's counting pass has found them (`Later`).

use std::sync::atomic::AtomicU64;

use super::children::{self, Fetched};
use super::{Cut, Ranks};
use crate::error::Result;
use crate::game::Game;
use crate::stored::Value;

/// Over several ranks, fetch the values of the children in other ranks' slices that this
/// rank's slice of layer `k` (a one-pass layer) reads: each layer it reads is marked
/// (`children::mark_children`), and its marked grains fetched from their owners. Returns
/// each read layer's own slice and fetched values.
pub(super) fn fetch_children<'a, G: Game, V: Value, R: Ranks>(
    game: &G,
    k: usize,
    cuts: &[Cut],
    sizes: &[u64],
    mine: impl Fn(usize) -> Result<&'a [V]>,
    ranks: &R,
) -> Result<Vec<(usize, Fetched<'a, V>)>> {
    let reads = game.child_layers(k);
    let marks = blank_marks(&reads, sizes);
    let started = std::time::Instant::now();
    if !reads.is_empty() {
        children::mark_children(game, k, cuts[k].slice(), &marks);
    }
    if std::env::var_os("RETRO_TRACE").is_some() {
        eprintln!(
            "layer {k}: rank {}: children marked in {:.2} s",
            ranks.rank(),
            started.elapsed().as_secs_f64()
        );
    }
    let own = own_slices(&reads, mine, ranks)?;
    fetch_marked(k, &own, cuts, sizes, marks, ranks)
}

/// This rank's slice of each layer in `reads`, every rank agreeing that each is held.
fn own_slices<'a, V: Value, R: Ranks>(
    reads: &[usize],
    mine: impl Fn(usize) -> Result<&'a [V]>,
    ranks: &R,
) -> Result<Vec<(usize, &'a [V])>> {
    reads
        .iter()
        .map(|&j| ranks.agree(mine(j)).map(|values| (j, values)))
        .collect()
}

/// A bitmap of grains for each layer in `reads`, empty for the others.
fn blank_marks(reads: &[usize], sizes: &[u64]) -> Vec<Vec<AtomicU64>> {
    let mut marks: Vec<Vec<AtomicU64>> = (0..sizes.len()).map(|_| Vec::new()).collect();
    for &j in reads {
        marks[j] = children::blank_marks(sizes[j]);
    }
    marks
}

/// Fetch the grains `marks` holds of each read layer (with this rank's slice of it, `own`)
/// from the ranks owning them; returns each read layer's own slice and fetched values.
/// Collective.
fn fetch_marked<'a, V: Value, R: Ranks>(
    k: usize,
    own: &[(usize, &'a [V])],
    cuts: &[Cut],
    sizes: &[u64],
    mut marks: Vec<Vec<AtomicU64>>,
    ranks: &R,
) -> Result<FetchedLayers<'a, V>> {
    let started = std::time::Instant::now();
    let mut fetched = Vec::with_capacity(own.len());
    let mut values_fetched = 0;
    for &(j, mine) in own {
        let slice = cuts[j].slice();
        let mut m: Vec<u64> = std::mem::take(&mut marks[j])
            .into_iter()
            .map(AtomicU64::into_inner)
            .collect();
        children::keep_fetched(&mut m, &slice, sizes[j]);
        let spans = children::spans(&m, sizes[j]);
        let values = ranks.fetch(sizes[j], &spans, mine)?;
        values_fetched += values.len();
        fetched.push((j, Fetched::new(mine, slice.start, m, values)));
    }
    if std::env::var_os("RETRO_TRACE").is_some() {
        eprintln!(
            "layer {k}: rank {}: {values_fetched} values fetched in {:.2} s",
            ranks.rank(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(fetched)
}

/// Over several ranks, what a fixpoint layer's slice reads in other ranks' slices, fetched
/// once its counting pass has found it: the pass counts every position whose children are
/// at hand (in the rank's own slices), marks the grains of those that are not, and counts
/// the positions that waited once the grains are fetched (`outside::Counting`). Marking
/// them beforehand took a walk over the slice's moves of its own, which on the largest
/// Morris layers cost half as much as the counting itself.
pub(crate) struct Later<'a, V> {
    /// A bitmap of grains for each finished layer, empty for a layer not read.
    pub marks: Vec<Vec<AtomicU64>>,
    /// Fetches the grains marked: each read layer's own slice and fetched values.
    /// Collective: every rank calls it once.
    pub fetch: FetchMarked<'a, V>,
}

/// Each read layer's own slice and fetched values.
pub(crate) type FetchedLayers<'a, V> = Vec<(usize, Fetched<'a, V>)>;

/// How `Later` fetches its marked grains.
pub(crate) type FetchMarked<'a, V> =
    Box<dyn FnOnce(Vec<Vec<AtomicU64>>) -> Result<FetchedLayers<'a, V>> + 'a>;

impl<'a, V: Value> Later<'a, V> {
    /// The views of this rank's own slices of the layers layer `k` reads (nothing fetched
    /// yet), and the `Later` that fetches the rest.
    pub(super) fn of<G: Game, R: Ranks>(
        game: &G,
        k: usize,
        cuts: &'a [Cut],
        sizes: &'a [u64],
        mine: impl Fn(usize) -> Result<&'a [V]>,
        ranks: &'a R,
    ) -> Result<(FetchedLayers<'a, V>, Later<'a, V>)> {
        let reads = game.child_layers(k);
        let slices = own_slices(&reads, mine, ranks)?;
        let own = slices
            .iter()
            .map(|&(j, values)| {
                let view = Fetched::new(values, cuts[j].start(), Vec::new(), Vec::new());
                (j, view)
            })
            .collect();
        let marks = blank_marks(&reads, sizes);
        let fetch: FetchMarked<'a, V> =
            Box::new(move |marks| fetch_marked(k, &slices, cuts, sizes, marks, ranks));
        Ok((own, Later { marks, fetch }))
    }
}
