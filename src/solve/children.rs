//! The children a rank's slice of a layer reads from other ranks' slices, and the values
//! it fetched for them.
//!
//! Over several ranks, each rank marks the children outside the layer its slice reads in a
//! bitmap per child layer, one bit per `GRAIN` positions: a one-pass layer walks its
//! slice's moves before it is solved (`Marker`, `mark_children`), the placement sweep marks
//! what a chunk missed as it computes it (`Local`), and the fixpoint's counting pass what a
//! position lacked (`outside::Counting`). Marking costs the same whatever order the
//! children come in (twins' come one by one, scattered), one scan of the bitmap yields the
//! merged intervals to fetch (`spans`), and a child's place among the fetched values is a
//! popcount away (`Fetched`). On one process nothing is marked: every finished layer is
//! whole in memory.

use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::game::{Edge, Game, RunSink};
use crate::table::blocks::BLOCK;

/// Positions per unit of parallel work. Large enough that the one `unrank` per chunk and
/// the progress update vanish against the chunk's work, small enough to balance two cores
/// on layers of a few hundred thousand positions.
pub const CHUNK: usize = 1 << 13;

/// Where the kernel reads child values: the whole next layer (`[V]`, indexed by child rank),
/// or, in a distributed sweep, the intervals of it a rank fetched
/// (`Fetched`). Generic rather than dynamic so the whole-layer kernel
/// compiles to the same loops as a plain slice. Not `Sync`: a view made for one chunk
/// (a distributed rank's first pass, which notes the children it does not hold) may keep
/// what it saw in cells.
pub trait ChildValues<V> {
    /// Values of children `child..child + len` of the next layer; `hint` is the caller's
    /// scratch (starts at 0) for remembering where the last lookup landed.
    fn values(&self, child: u64, len: usize, hint: &mut usize) -> &[V];
}

impl<V: Sync> ChildValues<V> for [V] {
    #[inline(always)]
    fn values(&self, child: u64, len: usize, _hint: &mut usize) -> &[V] {
        &self[child as usize..][..len]
    }
}

/// Positions of the next layer per bit. Whole grains are fetched, so a lone child costs
/// up to `GRAIN` values of traffic; a smaller grain means a larger bitmap (`next / GRAIN`
/// bits) and more, shorter requests (16 bytes each). 16 is a guess between the two, not
/// yet compared with other grains by measurement.
pub const GRAIN: u64 = 16;

const _: () = assert!(
    (BLOCK as u64).is_multiple_of(GRAIN),
    "slices must start on a grain"
);

/// A half-open interval of child ranks of the next layer.
pub type Span = (u64, u64);

/// Where a `Marker` puts the bitmap words it fills.
pub trait Marks {
    /// Set `bits` in word `word`.
    fn or(&mut self, word: usize, bits: u64);
}

/// The whole next layer's bitmap, shared by the threads planning a slice.
impl Marks for &[AtomicU64] {
    #[inline]
    fn or(&mut self, word: usize, bits: u64) {
        let w = &self[word];
        // Neighbouring chunks' children overlap: skip the locked instruction when every
        // bit is already set.
        if w.load(Ordering::Relaxed) & bits != bits {
            w.fetch_or(bits, Ordering::Relaxed);
        }
    }
}

/// Words as they come, for a few sampled windows of a huge layer (`retro plan`), where a
/// whole-layer bitmap per rank and layer would cost more than the sample.
impl Marks for Vec<(usize, u64)> {
    fn or(&mut self, word: usize, bits: u64) {
        self.push((word, bits));
    }
}

/// A `RunSink` that marks the grains its positions' children lie in, keeping the word it
/// is filling until a child falls in another.
pub struct Marker<M: Marks> {
    marks: M,
    word: usize,
    bits: u64,
    /// The own slice of the next layer, and whether a child fell outside it.
    own: Range<u64>,
    remote: bool,
}

impl<M: Marks> Marker<M> {
    /// A sink marking into `marks`.
    pub fn new(marks: M) -> Self {
        Marker {
            marks,
            word: 0,
            bits: 0,
            own: 0..u64::MAX,
            remote: false,
        }
    }

    /// A sink marking into `marks` that also notes whether a child lies outside `own`.
    pub fn watching(marks: M, own: Range<u64>) -> Self {
        Marker {
            own,
            ..Marker::new(marks)
        }
    }

    /// Whether a child so far lay outside the watched slice.
    pub fn remote(&self) -> bool {
        self.remote
    }

    #[inline]
    fn mark(&mut self, start: u64, len: usize) {
        self.remote |= start < self.own.start || start + len as u64 > self.own.end;
        let (mut b, last) = (start / GRAIN, (start + len as u64 - 1) / GRAIN);
        while b <= last {
            let word = (b / 64) as usize;
            let hi = last.min(b | 63);
            let mask = (u64::MAX >> (63 - (hi % 64))) & (u64::MAX << (b % 64));
            if word != self.word {
                self.flush();
                self.word = word;
            }
            self.bits |= mask;
            b = hi + 1;
        }
    }

    fn flush(&mut self) {
        if self.bits != 0 {
            self.marks.or(self.word, self.bits);
            self.bits = 0;
        }
    }

    /// The marks, once the walk is done.
    pub fn finish(mut self) -> M {
        self.flush();
        self.marks
    }
}

impl<M: Marks> RunSink for Marker<M> {
    fn run(&mut self, _rank: u64, _len: usize) {}
    #[inline]
    fn range(&mut self, _i: usize, len: usize, child: u64, _reward: i64) {
        self.mark(child, len);
    }
    #[inline]
    fn chain(&mut self, _i: usize, child: u64, rewards: &[i64]) {
        self.mark(child, rewards.len());
    }
    #[inline]
    fn single(&mut self, _i: usize, child: u64, _reward: i64) {
        self.mark(child, 1);
    }
}

/// Bitmap words covering a layer of `positions`.
pub fn words(positions: u64) -> usize {
    positions.div_ceil(GRAIN).div_ceil(64) as usize
}

/// An empty bitmap over a layer of `next` positions, for threads to mark together.
pub fn blank_marks(next: u64) -> Vec<AtomicU64> {
    (0..words(next)).map(|_| AtomicU64::new(0)).collect()
}

/// Mark into `marks` the grains the children of positions `slice` of layer `k` lie in,
/// `chunk` positions at a time in the current rayon pool; returns how many chunks have a
/// child outside `own` (the own slice of the next layer).
pub fn plan_chunks<G: Game>(
    game: &G,
    k: usize,
    slice: Range<u64>,
    chunk: usize,
    own: Range<u64>,
    marks: &[AtomicU64],
) -> usize {
    let chunks = (slice.end - slice.start).div_ceil(chunk as u64);
    (0..chunks)
        .into_par_iter()
        .filter(|&c| {
            let start = slice.start + c * chunk as u64;
            let n = (slice.end - start).min(chunk as u64) as usize;
            let mut marker = Marker::watching(marks, own.clone());
            game.visit_runs(k, start, n, &mut marker);
            let remote = marker.remote();
            marker.finish();
            remote
        })
        .count()
}

/// Mark into `marks[j]` (a bitmap over layer j, empty for a layer `k` does not read) the
/// grains of the children outside layer `k` of positions `slice` of layer `k`, a chunk at a
/// time in the current rayon pool: what the one-pass and the fixpoint workers read.
pub fn mark_children<G: Game>(game: &G, k: usize, slice: Range<u64>, marks: &[Vec<AtomicU64>]) {
    let chunks = (slice.end - slice.start).div_ceil(CHUNK as u64);
    (0..chunks).into_par_iter().for_each(|c| {
        let start = slice.start + c * CHUNK as u64;
        let n = (slice.end - start).min(CHUNK as u64);
        let mut pos = game.unrank(k, start);
        for i in 0..n {
            if i > 0 {
                game.advance(&mut pos);
            }
            if game.ended(&pos).is_some() {
                continue;
            }
            game.for_each_child_outside(&pos, |e| mark_edge(marks, e));
        }
    });
}

/// Mark the grain child `e` lies in, in the bitmap of its layer (`marks[e.layer]`), from
/// any thread: the one-pass layers' walk, and the fixpoint's counting pass for a child it
/// lacks (`outside::Counting`).
#[inline]
pub fn mark_edge(marks: &[Vec<AtomicU64>], e: Edge) {
    let b = e.rank / GRAIN;
    // A layer the game does not declare (`check_layers`) has no bitmap.
    if let Some(layer) = marks.get(e.layer)
        && (b / 64) < layer.len() as u64
    {
        let mut layer = &layer[..];
        layer.or((b / 64) as usize, 1 << (b % 64));
    }
}

/// A rank's first pass over a chunk of its slice: the children in its own slice of the
/// next layer are read in place; a lookup that leaves it marks its grains (as the
/// planning walk would) and reads placeholders, and the chunk is computed again once the
/// marked grains are fetched (`missed`). Most chunks of a game whose children lie near
/// their parents' ranks (young, connect) never leave the own slice, so they are walked
/// once, with planning folded into their computing; on one rank every chunk is.
pub struct Local<'a, V> {
    own: &'a [V],
    own_start: u64,
    /// `CHUNK` values to hand a lookup that leaves the own slice (no lookup is longer
    /// than one chunk's run).
    placeholder: &'a [V],
    marker: RefCell<Marker<&'a [AtomicU64]>>,
    missed: Cell<bool>,
}

impl<'a, V> Local<'a, V> {
    /// A view for one chunk: `own` is the own slice of the next layer, from `own_start`;
    /// `placeholder` at least `CHUNK` values; misses mark `marks`.
    pub fn new(own: &'a [V], own_start: u64, placeholder: &'a [V], marks: &'a [AtomicU64]) -> Self {
        debug_assert!(placeholder.len() >= CHUNK);
        Local {
            own,
            own_start,
            placeholder,
            marker: RefCell::new(Marker::new(marks)),
            missed: Cell::new(false),
        }
    }

    /// Whether a lookup left the own slice (then the chunk's values are not final);
    /// flushes the marks.
    pub fn finish(self) -> bool {
        self.marker.into_inner().finish();
        self.missed.get()
    }
}

impl<V> ChildValues<V> for Local<'_, V> {
    #[inline(always)]
    fn values(&self, child: u64, len: usize, _hint: &mut usize) -> &[V] {
        if let Some(at) = child.checked_sub(self.own_start)
            && at + len as u64 <= self.own.len() as u64
        {
            return &self.own[at as usize..][..len];
        }
        self.missed.set(true);
        self.marker.borrow_mut().mark(child, len);
        &self.placeholder[..len]
    }
}

/// Which of the marked grains a rank fetches, rather than reads from its own slice
/// `own` of the next layer: every grain outside `own`, and the marked grains within
/// `CHUNK` positions inside its ends, so a lookup of children that straddle an end (at
/// most `CHUNK` long, one chunk's run) finds them all among the fetched values. Clears
/// the rest of `own` in `marks`.
pub fn keep_fetched(marks: &mut [u64], own: &Range<u64>, next: u64) {
    let read = read_in_place(own, next);
    for b in read.clone() {
        let w = (b / 64) as usize;
        if b % 64 == 0 && b + 64 <= read.end {
            marks[w] = 0;
        } else {
            marks[w] &= !(1 << (b % 64));
        }
    }
}

/// The grains of the own slice `own` that lookups read in place (`keep_fetched`).
pub fn read_in_place(own: &Range<u64>, next: u64) -> Range<u64> {
    let zone = (CHUNK as u64).div_ceil(GRAIN);
    let (first, end) = (own.start / GRAIN, own.end.div_ceil(GRAIN));
    let from = if own.start == 0 { first } else { first + zone };
    let to = if own.end == next {
        end
    } else {
        end.saturating_sub(zone)
    };
    from..to.max(from)
}

/// The intervals of set bits, as positions of a layer of `next` positions, in order.
pub fn spans(marks: &[u64], next: u64) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for (w, &word) in marks.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let lo = bits.trailing_zeros() as u64;
            let run = (!(bits >> lo)).trailing_zeros() as u64;
            let b = w as u64 * 64 + lo;
            let (s, e) = (b * GRAIN, ((b + run) * GRAIN).min(next));
            match out.last_mut() {
                Some(last) if last.1 == s => last.1 = e,
                _ => out.push((s, e)),
            }
            bits &= !((u64::MAX >> (64 - run)) << lo);
        }
    }
    out
}

/// A rank's way to the values of the next layer: its own slice, and the grains it
/// fetched, stored back to back in bit order.
pub struct Fetched<'a, V> {
    own: &'a [V],
    own_start: u64,
    marks: Vec<u64>,
    /// Set bits in the words before each word.
    before: Vec<u64>,
    values: Vec<V>,
}

impl<'a, V> Fetched<'a, V> {
    /// `marks` as `keep_fetched` left them; `values` holds their grains in order.
    pub fn new(own: &'a [V], own_start: u64, marks: Vec<u64>, values: Vec<V>) -> Self {
        let mut at = 0;
        let before = marks
            .iter()
            .map(|w| {
                let b = at;
                at += w.count_ones() as u64;
                b
            })
            .collect();
        Fetched {
            own,
            own_start,
            marks,
            before,
            values,
        }
    }
}

impl<V> Fetched<'_, V> {
    /// The value of child `child` (own or fetched; a child no plan marked reads some
    /// other value, or none past the end).
    #[inline]
    pub fn get(&self, child: u64) -> Option<&V> {
        if let Some(at) = child.checked_sub(self.own_start)
            && at < self.own.len() as u64
        {
            return self.own.get(at as usize);
        }
        let b = child / GRAIN;
        let (w, bit) = ((b / 64) as usize, b % 64);
        let grain = self.before.get(w)? + (self.marks[w] & !(u64::MAX << bit)).count_ones() as u64;
        self.values.get((grain * GRAIN + child % GRAIN) as usize)
    }
}

impl<V: Sync> ChildValues<V> for Fetched<'_, V> {
    #[inline(always)]
    fn values(&self, child: u64, len: usize, _hint: &mut usize) -> &[V] {
        if let Some(at) = child.checked_sub(self.own_start)
            && at + len as u64 <= self.own.len() as u64
        {
            return &self.own[at as usize..][..len];
        }
        let b = child / GRAIN;
        let (w, bit) = ((b / 64) as usize, b % 64);
        let grain = self.before[w] + (self.marks[w] & !(u64::MAX << bit)).count_ones() as u64;
        &self.values[(grain * GRAIN + child % GRAIN) as usize..][..len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_merge_runs_across_words_and_stop_at_the_layer_end() {
        let mut marks = vec![0u64; 3];
        marks[0] = 0b1110 | 1 << 63;
        marks[1] = 0b1;
        marks[2] = 1 << 5;
        let next = (128 + 5) * GRAIN + 3;
        assert_eq!(
            spans(&marks, next),
            vec![
                (GRAIN, 4 * GRAIN),
                (63 * GRAIN, 65 * GRAIN),
                ((128 + 5) * GRAIN, next)
            ]
        );
    }

    /// Lookups that straddle the own slice's ends, with children fetched on either side.
    #[test]
    fn straddling_lookups_find_their_values() {
        let next = 6 * BLOCK as u64 + 100;
        let layer: Vec<u64> = (0..next).collect();
        let own = 2 * BLOCK as u64..4 * BLOCK as u64;
        let mut marks = vec![u64::MAX; words(next)];
        keep_fetched(&mut marks, &own, next);
        let values: Vec<u64> = spans(&marks, next)
            .into_iter()
            .flat_map(|(s, e)| s..e)
            .collect();
        let fetched = Fetched::new(
            &layer[own.start as usize..own.end as usize],
            own.start,
            marks,
            values,
        );
        for (child, len) in [
            (own.start - 5, 40usize),
            (own.end - 7, CHUNK),
            (own.start - CHUNK as u64 + 1, CHUNK),
            (own.start + 3, 50),
            (0, 10),
            (next - 9, 9),
        ] {
            let want: Vec<u64> = (child..child + len as u64).collect();
            assert_eq!(fetched.values(child, len, &mut 0), &want[..], "{child}");
        }
    }
}
