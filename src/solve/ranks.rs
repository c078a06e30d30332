//! The processes a solve runs on: one (`One`), or MPI ranks (the `distributed` module). A leaf
//! of the solver, like `layers.rs`.
//!
//! Every rank owns a contiguous slice of each layer (`Cut`) and solves only that; ranks
//! differ in nothing else. Where a worker needs the value of a child in another rank's
//! slice it fetches it (`Ranks::fetch`, once per layer, before the layer is solved), and
//! where it decides a position whose parents lie in another rank's slice it tells their
//! owners (`Ranks::trade`, once per level of a fixpoint). On one process every slice is
//! the whole layer, so neither is ever called.

use std::ops::Range;

use super::children::Span;
use crate::error::Result;
use crate::stored::Value;

/// The ranks a solve runs on, and the collective operations between them. Every method but
/// `count`, `rank` and `bounds` is collective: every rank calls it, in the same order, from
/// the thread that runs the driver.
pub trait Ranks {
    /// How many ranks.
    fn count(&self) -> usize;
    /// This rank's number, `0..count()`.
    fn rank(&self) -> usize;
    /// Where each rank's slice of a layer of `positions` entries begins, and where the last
    /// ends: `count() + 1` boundaries, the same on every rank.
    fn bounds(&self, positions: u64) -> Vec<u64>;
    /// The values of `spans` (sorted, disjoint intervals of a layer of `positions`
    /// entries), back to back, from the ranks owning them; `mine` is this rank's slice of
    /// that layer, from which it answers the others.
    fn fetch<V: Value>(&self, positions: u64, spans: &[Span], mine: &[V]) -> Result<Vec<V>>;
    /// Send `buckets[r]` to rank r; returns what every rank sent this one.
    fn trade(&self, buckets: Vec<Vec<u64>>) -> Result<Vec<u64>>;
    /// Whether `local` holds on any rank.
    fn any(&self, local: bool) -> bool;
    /// The least of `local` over the ranks.
    fn min(&self, local: u64) -> u64;
    /// The greatest of `local` over the ranks.
    fn max(&self, local: u64) -> u64;
    /// Every rank learns whether any failed: all return an error if one did.
    fn agree<T>(&self, result: Result<T>) -> Result<T>;
    /// The sum of `local` over the ranks before this one, and over every rank (where each
    /// rank's part of a layer of blocks starts, and the layer's length).
    fn scan(&self, local: u64) -> (u64, u64);
    /// Every rank gets rank 0's `values`.
    fn broadcast(&self, values: &mut [u64]);
}

/// A solve in one process: one rank, whose slice of every layer is the whole layer.
#[derive(Debug, Clone, Copy, Default)]
pub struct One;

impl Ranks for One {
    fn count(&self) -> usize {
        1
    }
    fn rank(&self) -> usize {
        0
    }
    fn bounds(&self, positions: u64) -> Vec<u64> {
        vec![0, positions]
    }
    fn fetch<V: Value>(&self, _positions: u64, spans: &[Span], mine: &[V]) -> Result<Vec<V>> {
        Ok(spans
            .iter()
            .flat_map(|&(s, e)| mine[s as usize..e as usize].iter().copied())
            .collect())
    }
    fn trade(&self, buckets: Vec<Vec<u64>>) -> Result<Vec<u64>> {
        Ok(buckets.into_iter().flatten().collect())
    }
    fn any(&self, local: bool) -> bool {
        local
    }
    fn min(&self, local: u64) -> u64 {
        local
    }
    fn max(&self, local: u64) -> u64 {
        local
    }
    fn agree<T>(&self, result: Result<T>) -> Result<T> {
        result
    }
    fn scan(&self, local: u64) -> (u64, u64) {
        (0, local)
    }
    fn broadcast(&self, _values: &mut [u64]) {}
}

/// One rank's view of how a layer is cut between the ranks.
#[derive(Debug, Clone)]
pub struct Cut {
    bounds: Vec<u64>,
    rank: usize,
}

impl Cut {
    /// The cut of a layer of `positions` entries.
    pub fn of<R: Ranks + ?Sized>(ranks: &R, positions: u64) -> Cut {
        Cut {
            bounds: ranks.bounds(positions),
            rank: ranks.rank(),
        }
    }

    /// This rank's slice.
    pub fn slice(&self) -> Range<u64> {
        self.bounds[self.rank]..self.bounds[self.rank + 1]
    }

    /// Where this rank's slice starts.
    pub fn start(&self) -> u64 {
        self.bounds[self.rank]
    }

    /// Entries in this rank's slice.
    pub fn len(&self) -> usize {
        (self.bounds[self.rank + 1] - self.bounds[self.rank]) as usize
    }

    /// Whether this rank's slice is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether one rank holds the whole layer.
    pub fn whole(&self) -> bool {
        self.bounds.len() == 2
    }

    /// How many ranks share the layer.
    pub fn ranks(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The position's index in this rank's slice, if it lies there.
    #[inline]
    pub fn local(&self, pos: u64) -> Option<usize> {
        let (s, e) = (self.bounds[self.rank], self.bounds[self.rank + 1]);
        (s..e).contains(&pos).then(|| (pos - s) as usize)
    }

    /// The rank owning position `pos`.
    #[inline]
    pub fn owner(&self, pos: u64) -> usize {
        // The first boundary past `pos`, less one; empty slices are skipped over.
        self.bounds[1..].partition_point(|&b| b <= pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_skip_empty_slices() {
        let cut = Cut {
            bounds: vec![0, 0, 10, 10, 25],
            rank: 1,
        };
        assert_eq!(cut.slice(), 0..10);
        assert_eq!(cut.owner(0), 1);
        assert_eq!(cut.owner(9), 1);
        assert_eq!(cut.owner(10), 3);
        assert_eq!(cut.owner(24), 3);
        assert_eq!(cut.local(9), Some(9));
        assert_eq!(cut.local(10), None);
    }
}
