//! What a position's children outside its layer say, folded into one value or one pending
//! word: shared by the two workers for values of the side to move (`pass.rs`,
//! `fixpoint.rs`).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::children::mark_edge;
use super::layers::Finished;
use crate::error::Error;
use crate::game::values::MAX_REMOTENESS;
use crate::game::{Edge, Game, Wdl};
use crate::stored::Value;

/// Positions per parallel task.
pub(super) const CHUNK: usize = 4096;

/// Positions counted at once in a batch (their children's values fetched ahead).
pub(super) const COUNT_BATCH: usize = 32;

/// Pending words: a win at level 1..0x8000, else a floor (`FLOOR | f`), else `NEVER`.
pub(super) const FLOOR: u16 = 0x8000;
pub(super) const NEVER: u16 = 0xffff;

/// What a position's children outside its layer say, folded.
pub(super) struct Outside {
    /// Fastest win through a child that loses (remoteness), if any.
    pub(super) win: Option<u32>,
    /// Slowest loss so far: 1 + the largest remoteness of a child that wins.
    pub(super) floor: u32,
    /// A child draws.
    pub(super) draw: bool,
    /// Any child at all, inside the layer or not.
    pub(super) any: bool,
}

impl Outside {
    pub(super) fn new() -> Outside {
        Outside {
            win: None,
            floor: 0,
            draw: false,
            any: false,
        }
    }

    pub(super) fn child(&mut self, value: i16) {
        self.any = true;
        match value {
            0 => self.draw = true,
            v if v < 0 => {
                let r = (-v) as u32;
                self.win = Some(self.win.map_or(r, |w| w.min(r)));
            }
            v => self.floor = self.floor.max(v as u32),
        }
    }

    /// The value of a position whose children are all outside the layer.
    pub(super) fn value(&self) -> i16 {
        match (self.win, self.draw, self.any) {
            (Some(r), _, _) => Wdl::Win(r).encode(),
            (None, true, _) => 0,
            (None, false, true) => Wdl::Loss(self.floor).encode(),
            (None, false, false) => Wdl::Loss(0).encode(),
        }
    }

    /// The pending word of a position in a layer with moves inside it.
    pub(super) fn pending(&self) -> u16 {
        match (self.win, self.draw) {
            (Some(r), _) => r as u16,
            (None, true) => NEVER,
            (None, false) => FLOOR | self.floor as u16,
        }
    }
}

/// The error for a remoteness past what the values hold.
pub(super) fn too_far(k: usize) -> Error {
    Error::too_large(format!(
        "layer {k}: a remoteness past {MAX_REMOTENESS} plies does not fit the table's values"
    ))
}

/// A finished child's value as the workers compute with it (a damaged or foreign value is
/// clamped into `i16`).
#[inline]
pub(super) fn child_value<V: Value>(finished: &Finished<'_, V>, e: Edge) -> i16 {
    finished.get(e.layer, e.rank).map_or(0, clamped)
}

/// Which positions a counting pass folds, and what it does with a child outside the layer
/// that is not at hand.
#[derive(Clone, Copy)]
pub(super) enum Counting<'a> {
    /// Every position, every child at hand (one process; a child no layer holds reads as a
    /// draw).
    Every,
    /// Every position, over several ranks before anything is fetched: a position that reads
    /// a child in another rank's slice waits (`waiting`), and the grains of such children
    /// are marked in `marks[layer]` (`children::GRAIN` positions a bit) to be fetched. So
    /// the counting pass itself finds what a rank fetches, and no pass walks the slice's
    /// moves once more to mark them.
    Holding {
        marks: &'a [Vec<AtomicU64>],
        waiting: &'a [AtomicU64],
    },
    /// Only the positions that waited (a bit each), once their children are fetched.
    Waiting(&'a [AtomicU64]),
}

impl Counting<'_> {
    #[inline]
    fn wants(&self, at: usize) -> bool {
        match self {
            Counting::Waiting(w) => w[at / 64].load(Relaxed) >> (at % 64) & 1 != 0,
            _ => true,
        }
    }
}

/// The first pass of a layer with moves inside it, over positions `range` of layer `k`
/// (numbered from `base`: a rank's slice starts there), those `counting` wants:
/// `f(at, seen, within)` with each position's children outside the layer folded (`seen`; a
/// position where play has ended has none, and one won already a win pending at level 0)
/// and its count of children within the layer (`Game::count_children`; 0 where play has
/// ended). `seen` is None for a position that waits for fetched children (`Holding`),
/// whose count the worker keeps; `Waiting` folds only the children outside the layer, and
/// hands 0 for the count. A batch of positions at a time: their children outside the layer are gathered
/// and their values fetched ahead, since they are scattered over large finished layers,
/// then each position's are folded. Returns how many children outside the layer it read.
pub(super) fn each_counted<G: Game, V: Value>(
    game: &G,
    k: usize,
    base: u64,
    range: Range<usize>,
    finished: &Finished<'_, V>,
    counting: Counting<'_>,
    mut f: impl FnMut(usize, Option<&Outside>, usize),
) -> u64 {
    let mut read = 0;
    let mut pos = game.unrank(k, base + range.start as u64);
    let mut edges: Vec<Edge> = Vec::with_capacity(COUNT_BATCH * 8);
    // Per position of the batch: whether it is counted, how it ended (None: play goes on),
    // its count within the layer, and where its children outside end in `edges`.
    let mut batch = [(false, None, 0usize, 0usize); COUNT_BATCH];
    let mut first = range.start;
    while first < range.end {
        let size = COUNT_BATCH.min(range.end - first);
        edges.clear();
        for (i, slot) in batch[..size].iter_mut().enumerate() {
            if first + i > range.start {
                game.advance(&mut pos);
            }
            if !counting.wants(first + i) {
                *slot = (false, None, 0, edges.len());
                continue;
            }
            let ended = game.ended(&pos).map(Wdl::decode);
            let mut outside = |e: Edge| {
                finished.prefetch(e.layer, e.rank);
                edges.push(e);
            };
            let within = match (ended, counting) {
                (Some(_), _) => 0,
                // Counted within the layer by the first pass already.
                (None, Counting::Waiting(_)) => {
                    game.for_each_child_outside(&pos, &mut outside);
                    0
                }
                (None, _) => game.count_children(&pos, outside),
            };
            *slot = (true, ended, within, edges.len());
        }
        read += edges.len() as u64;
        let mut from = 0;
        for (i, &(wanted, ended, within, to)) in batch[..size].iter().enumerate() {
            if !wanted {
                continue;
            }
            let mut seen = Outside::new();
            let mut absent = false;
            match ended {
                // Won already: a win pending at level 0.
                Some(Wdl::Win(_)) => seen.win = Some(0),
                // Lost (or a draw, which no game ends in): no children, floor 0.
                Some(_) => {}
                None => {
                    for &e in &edges[from..to] {
                        match (finished.get(e.layer, e.rank), counting) {
                            (Some(v), _) => seen.child(clamped(v)),
                            (None, Counting::Holding { marks, .. }) => {
                                absent = true;
                                mark_edge(marks, e);
                            }
                            (None, _) => seen.child(0),
                        }
                    }
                }
            }
            from = to;
            match (absent, counting) {
                (true, Counting::Holding { waiting, .. }) => {
                    let at = first + i;
                    waiting[at / 64].fetch_or(1 << (at % 64), Relaxed);
                    f(at, None, within);
                }
                _ => f(first + i, Some(&seen), within),
            }
        }
        first += size;
    }
    read
}

/// A child's value as the workers compute with it (a damaged or foreign value is clamped
/// into `i16`).
#[inline]
fn clamped<V: Value>(v: V) -> i16 {
    v.to_i64().clamp(i16::MIN.into(), i16::MAX.into()) as i16
}
