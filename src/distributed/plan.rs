//! Which children a slice of a layer needs: the planning pass that runs before each
//! layer's exchange, and the fetched intervals the kernel then reads them from.

use std::ops::Range;

use rayon::prelude::*;

use crate::game::{Game, RunSink};
use crate::sweep::{CHUNK, ChildValues};

/// A half-open interval of child ranks of the next layer.
pub type Span = (u64, u64);

/// Pending intervals a planner keeps before it sorts and merges them: bounds the memory
/// of a chunk whose children come one by one in no order (twins).
const COMPACT_AT: usize = 1 << 16;

/// A `RunSink` that records the child intervals its positions touch, merging intervals
/// that overlap or lie within `gap` of each other (a few extra values cost less to send
/// than another interval's 16 bytes of request).
pub struct Planner {
    spans: Vec<Span>,
    gap: u64,
    /// Length of `spans` when it was last merged.
    merged: usize,
}

impl Planner {
    /// An empty set; intervals closer than `gap` positions are merged.
    pub fn new(gap: u64) -> Self {
        Planner {
            spans: Vec::new(),
            gap,
            merged: 0,
        }
    }

    #[inline]
    fn add(&mut self, start: u64, len: usize) {
        let end = start + len as u64;
        if let Some(last) = self.spans.last_mut()
            && start <= last.1 + self.gap
            && end + self.gap >= last.0
        {
            last.0 = last.0.min(start);
            last.1 = last.1.max(end);
            return;
        }
        self.spans.push((start, end));
        if self.spans.len() >= self.merged.max(COMPACT_AT / 2) * 2 {
            merge(&mut self.spans, self.gap);
            self.merged = self.spans.len();
        }
    }

    /// The merged intervals, sorted.
    pub fn finish(mut self) -> Vec<Span> {
        merge(&mut self.spans, self.gap);
        self.spans
    }
}

impl RunSink for Planner {
    fn run(&mut self, _rank: u64, _len: usize) {}
    fn range(&mut self, _i: usize, len: usize, child: u64, _reward: i64) {
        self.add(child, len);
    }
    fn chain(&mut self, _i: usize, child: u64, rewards: &[i64]) {
        self.add(child, rewards.len());
    }
    fn single(&mut self, _i: usize, child: u64, _reward: i64) {
        self.add(child, 1);
    }
}

/// Sort `spans` and merge those that overlap or lie within `gap` of each other.
pub fn merge(spans: &mut Vec<Span>, gap: u64) {
    spans.sort_unstable();
    let mut out = 0;
    for i in 0..spans.len() {
        let (s, e) = spans[i];
        if out > 0 && s <= spans[out - 1].1 + gap {
            spans[out - 1].1 = spans[out - 1].1.max(e);
        } else {
            spans[out] = (s, e);
            out += 1;
        }
    }
    spans.truncate(out);
}

/// The child intervals of positions `slice` of layer `k < cells`, sorted and merged, planned
/// a chunk at a time in the current rayon pool.
pub fn plan_slice<G: Game>(game: &G, k: usize, slice: Range<u64>, gap: u64) -> Vec<Span> {
    let len = slice.end - slice.start;
    let chunks = len.div_ceil(CHUNK as u64);
    let mut spans: Vec<Span> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let start = slice.start + c * CHUNK as u64;
            let n = (slice.end - start).min(CHUNK as u64) as usize;
            let mut planner = Planner::new(gap);
            game.visit_runs(k, start, n, &mut planner);
            planner.finish()
        })
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            if a.len() > COMPACT_AT {
                merge(&mut a, gap);
            }
            a
        });
    merge(&mut spans, gap);
    spans
}

/// Values of the next layer a rank fetched: merged intervals, each with where its values
/// start in one buffer. The kernel's lookups fall in one interval each (every `range`,
/// `chain` and `single` call was one interval when planned).
pub struct Fetched<V> {
    /// (start, end, offset in `values`), sorted by start.
    spans: Vec<(u64, u64, usize)>,
    values: Vec<V>,
}

impl<V> Fetched<V> {
    /// `values` holds the spans' values back to back, in order.
    pub fn new(spans: &[Span], values: Vec<V>) -> Self {
        let mut at = 0;
        let spans = spans
            .iter()
            .map(|&(s, e)| {
                let entry = (s, e, at);
                at += (e - s) as usize;
                entry
            })
            .collect();
        debug_assert_eq!(at, values.len());
        Fetched { spans, values }
    }

    /// Values held (over every fetched interval).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no values are held.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl<V: Sync> ChildValues<V> for Fetched<V> {
    #[inline(always)]
    fn values(&self, child: u64, len: usize, hint: &mut usize) -> &[V] {
        let mut i = *hint;
        let hit = self
            .spans
            .get(i)
            .is_some_and(|&(s, e, _)| s <= child && child + len as u64 <= e);
        if !hit {
            // A planned child is always in a span: the span is the last starting at or
            // before it.
            i = self
                .spans
                .partition_point(|&(s, _, _)| s <= child)
                .saturating_sub(1);
            *hint = i;
        }
        let (s, _, at) = self.spans[i];
        &self.values[at + (child - s) as usize..][..len]
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::distributed::split;
    use crate::random::random_board;

    /// With no gap, the planned intervals of every slice hold exactly the children its
    /// positions have; with a gap they still hold all of them.
    fn plans_are_exact<G: Game>(game: &G) {
        for parts in [1, 2, 3, 5] {
            for k in 0..game.cells() {
                let n = game.layer_size(k);
                for part in 0..parts {
                    let slice = split::slice(n, parts, part);
                    let mut want = BTreeSet::new();
                    if !slice.is_empty() {
                        let mut pos = game.unrank(k, slice.start);
                        for i in slice.clone() {
                            if i > slice.start {
                                game.advance(&mut pos);
                            }
                            game.for_each_child(&pos, |c, _| {
                                want.insert(c);
                            });
                        }
                    }
                    let exact: BTreeSet<u64> = plan_slice(game, k, slice.clone(), 0)
                        .into_iter()
                        .flat_map(|(s, e)| s..e)
                        .collect();
                    assert_eq!(exact, want, "layer {k}, part {part} of {parts}");
                    let loose = plan_slice(game, k, slice.clone(), 8);
                    for w in loose.windows(2) {
                        assert!(w[0].1 + 8 < w[1].0);
                    }
                    assert!(
                        want.iter()
                            .all(|c| loose.iter().any(|&(s, e)| s <= *c && *c < e))
                    );
                }
            }
        }
    }

    #[test]
    fn plans_cover_exactly_the_children_young() -> crate::Result<()> {
        for (rows, cols) in [(3, 4), (5, 6), (6, 7)] {
            let spec = random_board("young", rows, cols, 3, 50)?;
            crate::with_game!(&spec, game => plans_are_exact(&game));
        }
        Ok(())
    }

    #[test]
    fn plans_cover_exactly_the_children_twins() -> crate::Result<()> {
        for (rows, cols) in [(3, 3), (3, 4)] {
            let spec = random_board("twins", rows, cols, 3, 50)?;
            crate::with_game!(&spec, game => plans_are_exact(&game));
        }
        Ok(())
    }

    #[test]
    fn fetched_values_are_found_by_rank() {
        let spans = [(10, 20), (40, 41), (100, 130)];
        let values: Vec<i32> = spans
            .iter()
            .flat_map(|&(s, e)| s as i32..e as i32)
            .collect();
        let fetched = Fetched::new(&spans, values);
        let mut hint = 0;
        for &(child, len) in &[(12u64, 3usize), (40, 1), (100, 30), (15, 5), (129, 1)] {
            let got = fetched.values(child, len, &mut hint);
            let want: Vec<i32> = (child as i32..child as i32 + len as i32).collect();
            assert_eq!(got, &want[..]);
        }
    }
}
