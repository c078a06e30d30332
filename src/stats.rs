//! Per-layer statistics of a table, as GamesmanOne's `analyze` gives them: for each layer,
//! its entries and the positions they stand for, how many entries are wins, losses, ties
//! and draws for the side to move, and the longest win and loss. `retro stats` prints them,
//! and Python's `Table.stats()` returns them.
//!
//! One parallel pass over the values: each range of a layer is counted into a histogram of
//! its values (a flat one for values of one or two bytes), and each distinct value is read
//! in the game's words once. Counts are of entries: a table that folds symmetric positions
//! (`info` says so) counts each orbit once, as its rows in `export` do.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Verdict, Visitor};
use crate::table::Table;

/// One layer's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LayerStats {
    /// The layer.
    pub layer: usize,
    /// Its entries (positions, or orbits where the table folds).
    pub entries: u64,
    /// The positions its entries stand for.
    pub positions: u64,
    /// Entries won, lost, tied and drawn for the side to move (games with results).
    pub wins: u64,
    /// See `wins`.
    pub losses: u64,
    /// See `wins`.
    pub ties: u64,
    /// See `wins`.
    pub draws: u64,
    /// The longest win and loss in plies, where there is one.
    pub longest_win: Option<usize>,
    /// See `longest_win`.
    pub longest_loss: Option<usize>,
    /// The least and greatest value, in a game of scores; None in a game with results,
    /// whose counts and longest lines say what its stored codes would.
    pub min_value: Option<i64>,
    /// See `min_value`.
    pub max_value: Option<i64>,
}

/// A layer's values, counted.
enum Histogram {
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
    fn counts(self) -> Vec<(i64, u64)> {
        match self {
            Histogram::Flat(h) => h
                .into_iter()
                .enumerate()
                .filter(|&(_, n)| n > 0)
                .map(|(i, n)| (i as i64 - (1 << 15), n))
                .collect(),
            Histogram::Map(h) => h.into_iter().collect(),
        }
    }
}

/// Every layer's counts; `R` is the registry the table's game is in.
pub fn table_stats<R: Registry>(table: &Table) -> Result<Vec<LayerStats>> {
    struct Count<'a>(&'a Table);
    impl Visitor for Count<'_> {
        type Output = Vec<LayerStats>;
        fn visit<G: Registered>(self, game: G) -> Result<Vec<LayerStats>> {
            stats_of(&game, self.0)
        }
    }
    R::visit(&table.header.game, Count(table))
}

/// `retro stats --json`'s object: `layers` (each layer's counts) and `total`.
pub fn stats_json<R: Registry>(table: &Table) -> Result<serde_json::Value> {
    json_of(&table_stats::<R>(table)?)
}

/// The object `stats_json` makes of a table's layer counts.
pub fn json_of(layers: &[LayerStats]) -> Result<serde_json::Value> {
    // The total is of every layer: it has no layer number.
    let mut total = serde_json::to_value(total(layers)).map_err(|e| Error::other(e.to_string()))?;
    if let Some(fields) = total.as_object_mut() {
        fields.remove("layer");
    }
    Ok(serde_json::json!({ "layers": layers, "total": total }))
}

/// The layers summed: counts added, extremes of extremes; `layer` is the number of layers.
pub fn total(layers: &[LayerStats]) -> LayerStats {
    let mut t = LayerStats::default();
    for l in layers {
        t.entries += l.entries;
        t.positions += l.positions;
        t.wins += l.wins;
        t.losses += l.losses;
        t.ties += l.ties;
        t.draws += l.draws;
        t.longest_win = t.longest_win.max(l.longest_win);
        t.longest_loss = t.longest_loss.max(l.longest_loss);
        t.min_value = match (t.min_value, l.min_value) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        t.max_value = t.max_value.max(l.max_value);
    }
    t.layer = layers.len();
    t
}

/// Values read per task.
const RANGE: u64 = 1 << 20;

fn stats_of<G: Registered>(game: &G, table: &Table) -> Result<Vec<LayerStats>> {
    let flat = table.header.value_type.width() <= 2;
    let mut out = Vec::with_capacity(table.header.layers.len());
    for (k, layer) in table.header.layers.iter().enumerate() {
        let n = layer.positions;
        let histogram = (0..n.div_ceil(RANGE))
            .into_par_iter()
            .map(|r| -> Result<Histogram> {
                let start = r * RANGE;
                let values = table.read_range(k, start, RANGE.min(n - start) as usize)?;
                let mut h = Histogram::new(flat);
                h.add(&values);
                Ok(h)
            })
            .try_reduce(|| Histogram::new(flat), |a, b| Ok(a.merge(b)))?;
        let mut s = LayerStats {
            layer: k,
            entries: n,
            positions: game.layer_positions(k),
            ..LayerStats::default()
        };
        for (value, count) in histogram.counts() {
            let Some(outcome) = game.outcome(value, k) else {
                s.min_value = Some(s.min_value.map_or(value, |m| m.min(value)));
                s.max_value = Some(s.max_value.map_or(value, |m| m.max(value)));
                continue;
            };
            let r = Some(outcome.remoteness);
            match outcome.result {
                Verdict::Win => {
                    s.wins += count;
                    s.longest_win = s.longest_win.max(r);
                }
                Verdict::Loss => {
                    s.losses += count;
                    s.longest_loss = s.longest_loss.max(r);
                }
                Verdict::Tie => s.ties += count,
                Verdict::Draw => s.draws += count,
            }
        }
        out.push(s);
    }
    Ok(out)
}
