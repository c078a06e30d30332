//! The counting pass of `stats`: each range of a layer's values counted into histograms in
//! parallel (a flat one for values of one or two bytes), entries walked where the table
//! folds or more is asked (each value weighed by its orbit, each position to its class),
//! and the example positions found on the way.

use std::collections::HashMap;

use rayon::prelude::*;

use super::Asked;
use crate::error::Result;
use crate::game::{Registered, Verdict};
use crate::table::Table;

/// Values read per task.
const RANGE: u64 = 1 << 20;

/// A layer's values, counted.
pub(super) enum Histogram {
    /// By value + 2^15, for values of at most two bytes.
    Flat(Vec<u64>),
    Map(HashMap<i64, u64>),
}

impl Histogram {
    fn new(flat: bool) -> Histogram {
        match flat {
            true => Histogram::Flat(vec![0; 1 << 16]),
            false => Histogram::Map(HashMap::new()),
        }
    }

    fn add(&mut self, values: &[i64]) {
        match self {
            Histogram::Flat(h) => {
                for &v in values {
                    h[(v + (1 << 15)).clamp(0, (1 << 16) - 1) as usize] += 1;
                }
            }
            Histogram::Map(h) => {
                for &v in values {
                    *h.entry(v).or_insert(0) += 1;
                }
            }
        }
    }

    /// `weight` more of `value`.
    fn add_one(&mut self, value: i64, weight: u64) {
        match self {
            Histogram::Flat(h) => h[(value + (1 << 15)).clamp(0, (1 << 16) - 1) as usize] += weight,
            Histogram::Map(h) => *h.entry(value).or_insert(0) += weight,
        }
    }

    fn merge(mut self, other: Histogram) -> Histogram {
        match (&mut self, other) {
            (Histogram::Flat(a), Histogram::Flat(b)) => {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
            }
            (Histogram::Map(a), Histogram::Map(b)) => {
                for (v, n) in b {
                    *a.entry(v).or_insert(0) += n;
                }
            }
            (_, other) => return other,
        }
        self
    }

    /// (value, count) for every value seen.
    pub(super) fn counts(&self) -> Vec<(i64, u64)> {
        match self {
            Histogram::Flat(h) => h
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(i, &n)| (i as i64 - (1 << 15), n))
                .collect(),
            Histogram::Map(h) => h.iter().map(|(&v, &n)| (v, n)).collect(),
        }
    }
}

/// A class of positions: x's stones, o's, and whether x is to move.
pub(super) type Class = (usize, usize, bool);

/// The best example found so far for one slot (`Examples`): its key (plies, or a value),
/// its entry's rank, and the position.
type Found<P> = Option<(i64, u64, P)>;

/// The better of two examples: the greater key, then the lower rank.
fn better<P>(a: Found<P>, b: Found<P>) -> Found<P> {
    match (a, b) {
        (Some(a), Some(b)) => Some(
            if (b.0, std::cmp::Reverse(b.1)) > (a.0, std::cmp::Reverse(a.1)) {
                b
            } else {
                a
            },
        ),
        (a, b) => a.or(b),
    }
}

/// What a value of layer `k` offers each example slot: the plies of a win and of a loss,
/// or in a game of scores the value and its negation (the greatest and the least).
fn example_keys<G: Registered>(game: &G, value: i64, k: usize) -> [Option<i64>; 2] {
    match game.outcome(value, k) {
        Some(o) => match o.result {
            Verdict::Win => [Some(o.remoteness as i64), None],
            Verdict::Loss => [None, Some(o.remoteness as i64)],
            Verdict::Tie | Verdict::Draw => [None, None],
        },
        None => [Some(value), Some(-value)],
    }
}

/// One range of a layer counted: its entries' values, the positions' (each entry weighed
/// by its orbit), and with a split each class's.
pub(super) struct Counts<P> {
    pub(super) entries: Histogram,
    pub(super) positions: Histogram,
    pub(super) classes: HashMap<Class, HashMap<i64, u64>>,
    /// The values of the positions play reaches, in all and per class.
    pub(super) reached: Histogram,
    pub(super) reached_classes: HashMap<Class, HashMap<i64, u64>>,
    /// The examples found (`Examples`): the longest win's and loss's, or the greatest and
    /// least value's.
    pub(super) examples: [Found<P>; 2],
}

impl<P> Counts<P> {
    fn merge(mut self, other: Counts<P>) -> Counts<P> {
        self.entries = self.entries.merge(other.entries);
        self.positions = self.positions.merge(other.positions);
        self.reached = self.reached.merge(other.reached);
        for (mine, theirs) in [
            (&mut self.classes, other.classes),
            (&mut self.reached_classes, other.reached_classes),
        ] {
            for (class, values) in theirs {
                let mine = mine.entry(class).or_default();
                for (v, n) in values {
                    *mine.entry(v).or_insert(0) += n;
                }
            }
        }
        let [a, b] = self.examples;
        let [c, d] = other.examples;
        self.examples = [better(a, c), better(b, d)];
        self
    }
}

/// How a table's layers are counted: what is asked, and how entries stand for positions.
pub(super) struct Pass<'a, G: Registered> {
    pub(super) game: &'a G,
    pub(super) table: &'a Table,
    pub(super) asked: Asked,
    /// Values of one or two bytes: counted in a flat histogram.
    pub(super) flat: bool,
    /// The table folds symmetric positions: an entry stands for its orbit.
    pub(super) folded: bool,
    /// Entries are walked, not only their values counted: folded, or more is asked.
    pub(super) walk: bool,
    /// Whether play from the start reaches a position.
    pub(super) reached: &'a (dyn Fn(&G::Position) -> bool + Sync),
    /// Whether a position may be an example: one `query` answers (and with --reachable,
    /// one play reaches).
    pub(super) qualifies: &'a (dyn Fn(&G::Position) -> bool + Sync),
}

impl<G: Registered> Pass<'_, G> {
    fn empty(&self) -> Counts<G::Position> {
        Counts {
            entries: Histogram::new(self.flat),
            positions: Histogram::new(self.flat),
            classes: HashMap::new(),
            reached: Histogram::new(self.flat),
            reached_classes: HashMap::new(),
            examples: [None, None],
        }
    }

    /// Layer k's `n` entries counted, in ranges in parallel. A lumped layer's one entry
    /// stands for all its positions (`Game::lumped`): it is weighed by their count, and
    /// where positions are told apart (a split, reachability, examples), they are walked
    /// one by one, in ranges as entries are elsewhere.
    pub(super) fn layer(&self, k: usize, n: u64) -> Result<Counts<G::Position>> {
        let asked = self.asked;
        let lumped = self.game.lumped(k);
        let each_position = lumped && (asked.split || asked.reachable || asked.examples);
        let items = match each_position {
            true => self.game.layer_positions(k),
            false => n,
        };
        (0..items.div_ceil(RANGE))
            .into_par_iter()
            .map(|r| {
                let start = r * RANGE;
                let len = RANGE.min(items - start) as usize;
                self.range(k, start, len, each_position)
            })
            .try_reduce(|| self.empty(), |a, b| Ok(a.merge(b)))
    }

    /// Entries `start..start + len` of layer k counted, or with `each_position` the lumped
    /// layer's positions there.
    fn range(
        &self,
        k: usize,
        start: u64,
        len: usize,
        each_position: bool,
    ) -> Result<Counts<G::Position>> {
        let (game, table) = (self.game, self.table);
        let mut c = self.empty();
        let values = match each_position {
            true => {
                let entry = table.read_range(k, 0, 1)?;
                if start == 0 {
                    c.entries.add(&entry);
                }
                vec![entry.first().copied().unwrap_or_default(); len]
            }
            false => {
                let values = table.read_range(k, start, len)?;
                c.entries.add(&values);
                values
            }
        };
        let lumped = game.lumped(k);
        if !(self.walk || lumped) {
            return Ok(c);
        }
        // Each entry's images, where the table folds; each position alone where the walk is
        // of positions.
        let images = self.folded && !each_position;
        // An entry weighed by the positions it stands for.
        let weigh = (self.folded || lumped) && !each_position;
        match each_position {
            true => {
                let positions = game.lumped_positions(k, start).take(len).enumerate();
                for (i, pos) in positions {
                    self.position(&mut c, k, start + i as u64, &pos, values[i], images, weigh);
                }
            }
            false => {
                let mut pos = game.unrank(k, start);
                for (i, &v) in values.iter().enumerate() {
                    if i > 0 {
                        game.advance(&mut pos);
                    }
                    self.position(&mut c, k, start + i as u64, &pos, v, images, weigh);
                }
            }
        }
        Ok(c)
    }

    /// One entry (or one position of a lumped layer) of value `v` counted into `c`.
    #[allow(clippy::too_many_arguments)]
    fn position(
        &self,
        c: &mut Counts<G::Position>,
        k: usize,
        rank: u64,
        pos: &G::Position,
        v: i64,
        images: bool,
        weigh: bool,
    ) {
        let (game, asked) = (self.game, self.asked);
        let weight = match weigh {
            true => game.orbit_size(pos),
            false => 1,
        };
        c.positions.add_one(v, weight);
        if asked.examples {
            for (slot, key) in example_keys(game, v, k).into_iter().enumerate() {
                let Some(key) = key else { continue };
                if c.examples[slot].as_ref().is_some_and(|f| f.0 >= key) {
                    continue;
                }
                // The entry's own position, or the first image that qualifies.
                let found = match (self.qualifies)(pos) {
                    true => Some(pos.clone()),
                    false if images => game.images(pos).into_iter().find(|p| (self.qualifies)(p)),
                    false => None,
                };
                if let Some(p) = found {
                    c.examples[slot] = Some((key, rank, p));
                }
            }
        }
        if !(asked.split || asked.reachable) {
            return;
        }
        let mut each = |p: &G::Position, weight: u64| {
            let [x, o] = game.side_stones(p);
            let class = (x, o, game.first_to_move(p));
            if asked.split {
                let values = c.classes.entry(class);
                *values.or_default().entry(v).or_insert(0) += weight;
            }
            if asked.reachable && (self.reached)(p) {
                c.reached.add_one(v, weight);
                let values = c.reached_classes.entry(class);
                *values.or_default().entry(v).or_insert(0) += weight;
            }
        };
        match images {
            true => game
                .images_by_class(pos)
                .iter()
                .for_each(|(p, w)| each(p, *w)),
            false => each(pos, 1),
        }
    }
}
