//! Per-layer statistics of a table, as GamesmanOne's `analyze` gives them: for each layer,
//! its entries and the positions they stand for, how many positions (and how many entries)
//! are wins, losses, ties and draws for the side to move, and the longest win and loss;
//! with a split, the same per class of positions (each side's stones and the side to
//! move). `retro stats` prints them, and Python's `Table.stats()` returns them.
//!
//! One parallel pass over the values: each range of a layer is counted into a histogram of
//! its values (a flat one for values of one or two bytes), and each distinct value is read
//! in the game's words once. Where the table folds symmetric positions, the pass also
//! walks the range's entries: each value is weighed by its entry's orbit, and for a split,
//! each position of the orbit goes to its own class (`Game::images_by_class`).

use std::collections::HashMap;

use rayon::prelude::*;

use crate::answers::reach::Reachable;
use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Verdict, Visitor};
use crate::table::Table;

/// One layer's counts (or a phase's, or the table's).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LayerStats {
    /// The layer.
    pub layer: usize,
    /// What the layer holds, in the game's words (`Gameplay::layer_words`), where the
    /// layer's number does not say it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holds: Option<String>,
    /// The phase of play the layer belongs to, where the game has phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Its entries (positions, or orbits where the table folds).
    pub entries: u64,
    /// The positions its entries stand for.
    pub positions: u64,
    /// Of those, the positions play from the start reaches, where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reachable: Option<u64>,
    /// Positions won, lost, tied and drawn for the side to move (games with results).
    pub wins: u64,
    /// See `wins`.
    pub losses: u64,
    /// See `wins`.
    pub ties: u64,
    /// See `wins`.
    pub draws: u64,
    /// Entries won, lost, tied and drawn: the positions' counts where the table does not
    /// fold, fewer where it does.
    pub win_entries: u64,
    /// See `win_entries`.
    pub loss_entries: u64,
    /// See `win_entries`.
    pub tie_entries: u64,
    /// See `win_entries`.
    pub draw_entries: u64,
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

/// One class of a layer's positions (`stats --split`): each side's stones (or cubes) and
/// the side to move, as tables of solved games publish their counts. Counts are of
/// positions: a folded entry's positions are counted in the classes they fall in.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SplitRow {
    /// The layer.
    pub layer: usize,
    /// x's stones (or cubes) on the board.
    pub x: usize,
    /// o's.
    pub o: usize,
    /// The side to move, by its mark: "x" or "o".
    pub to_move: String,
    /// Positions of the class.
    pub positions: u64,
    /// Of those, the positions play from the start reaches, where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reachable: Option<u64>,
    /// Positions won, lost, drawn and tied for the side to move.
    pub wins: u64,
    /// See `wins`.
    pub losses: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub ties: u64,
    /// The longest win and loss in plies, where there is one.
    pub longest_win: Option<usize>,
    /// See `longest_win`.
    pub longest_loss: Option<usize>,
    /// The least and greatest value, in a game of scores.
    pub min_value: Option<i64>,
    /// See `min_value`.
    pub max_value: Option<i64>,
}

/// What `stats` counts beyond each layer's values.
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked {
    /// A row per class of each layer (`SplitRow`).
    pub split: bool,
    /// The positions play from the start reaches, per layer and per class.
    pub reachable: bool,
}

/// A table's counts: every layer's, and with `split`, every class of every layer.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// One per layer, in order.
    pub layers: Vec<LayerStats>,
    /// Each layer's classes in order (x's stones, then o's, then x to move first), where
    /// asked for.
    pub split: Option<Vec<SplitRow>>,
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

/// Every layer's counts, and with `split` every class's; `R` is the registry the
/// table's game is in.
pub fn table_stats<R: Registry>(table: &Table, asked: Asked) -> Result<Stats> {
    struct Count<'a>(&'a Table, Asked);
    impl Visitor for Count<'_> {
        type Output = Stats;
        fn visit<G: Registered>(self, game: G) -> Result<Stats> {
            stats_of(&game, self.0, self.1)
        }
    }
    R::visit(&table.header.game, Count(table, asked))
}

/// `retro stats --json`'s object (`json_of`).
pub fn stats_json<R: Registry>(table: &Table, asked: Asked) -> Result<serde_json::Value> {
    json_of(&table_stats::<R>(table, asked)?)
}

/// The object `stats_json` makes of a table's counts: `layers` (each layer's), `total`,
/// `phases` (one per phase of play, where the game names them) and `split` (the classes,
/// where asked for).
pub fn json_of(stats: &Stats) -> Result<serde_json::Value> {
    let json = |v: &LayerStats| -> Result<serde_json::Value> {
        let mut v = serde_json::to_value(v).map_err(|e| Error::other(e.to_string()))?;
        // A sum of layers has no layer number.
        if let Some(fields) = v.as_object_mut() {
            fields.remove("layer");
            fields.remove("holds");
        }
        Ok(v)
    };
    let mut out = serde_json::json!({
        "layers": stats.layers,
        "total": json(&total(&stats.layers))?,
    });
    let phases = phases(&stats.layers);
    if !phases.is_empty() {
        out["phases"] = phases.iter().map(json).collect::<Result<Vec<_>>>()?.into();
    }
    if let Some(split) = &stats.split {
        out["split"] = serde_json::to_value(split).map_err(|e| Error::other(e.to_string()))?;
    }
    Ok(out)
}

/// The layers summed: counts added, extremes of extremes; `layer` is the number of layers.
pub fn total(layers: &[LayerStats]) -> LayerStats {
    let mut t = LayerStats::default();
    for l in layers {
        t.entries += l.entries;
        t.positions += l.positions;
        t.reachable = match (t.reachable, l.reachable) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        t.wins += l.wins;
        t.losses += l.losses;
        t.ties += l.ties;
        t.draws += l.draws;
        t.win_entries += l.win_entries;
        t.loss_entries += l.loss_entries;
        t.tie_entries += l.tie_entries;
        t.draw_entries += l.draw_entries;
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

/// The layers of each phase of play summed (`total`), phases in the order their first
/// layer comes; none where the game does not name phases.
pub fn phases(layers: &[LayerStats]) -> Vec<LayerStats> {
    let mut names: Vec<&str> = Vec::new();
    for l in layers {
        if let Some(p) = l.phase.as_deref()
            && !names.contains(&p)
        {
            names.push(p);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let of: Vec<LayerStats> = layers
                .iter()
                .filter(|l| l.phase.as_deref() == Some(name))
                .cloned()
                .collect();
            LayerStats {
                phase: Some(name.to_string()),
                ..total(&of)
            }
        })
        .collect()
}

/// Values read per task.
const RANGE: u64 = 1 << 20;

/// What a histogram of values comes to in the game's words.
#[derive(Default, Clone)]
struct Tally {
    wins: u64,
    losses: u64,
    ties: u64,
    draws: u64,
    longest_win: Option<usize>,
    longest_loss: Option<usize>,
    min_value: Option<i64>,
    max_value: Option<i64>,
}

fn tally<G: Registered>(game: &G, k: usize, counts: Vec<(i64, u64)>) -> Tally {
    let mut t = Tally::default();
    for (value, count) in counts {
        let Some(outcome) = game.outcome(value, k) else {
            t.min_value = Some(t.min_value.map_or(value, |m| m.min(value)));
            t.max_value = Some(t.max_value.map_or(value, |m| m.max(value)));
            continue;
        };
        let r = Some(outcome.remoteness);
        match outcome.result {
            Verdict::Win => {
                t.wins += count;
                t.longest_win = t.longest_win.max(r);
            }
            Verdict::Loss => {
                t.losses += count;
                t.longest_loss = t.longest_loss.max(r);
            }
            Verdict::Tie => t.ties += count,
            Verdict::Draw => t.draws += count,
        }
    }
    t
}

/// A class of positions: x's stones, o's, and whether x is to move.
type Class = (usize, usize, bool);

/// One range of a layer counted: its entries' values, the positions' (each entry weighed
/// by its orbit), and with a split each class's.
struct Counts {
    entries: Histogram,
    positions: Histogram,
    classes: HashMap<Class, HashMap<i64, u64>>,
    /// Positions play reaches, in all and per class.
    reached: u64,
    reached_classes: HashMap<Class, u64>,
}

impl Counts {
    fn merge(mut self, other: Counts) -> Counts {
        self.entries = self.entries.merge(other.entries);
        self.positions = self.positions.merge(other.positions);
        self.reached += other.reached;
        for (class, n) in other.reached_classes {
            *self.reached_classes.entry(class).or_default() += n;
        }
        for (class, values) in other.classes {
            let mine = self.classes.entry(class).or_default();
            for (v, n) in values {
                *mine.entry(v).or_insert(0) += n;
            }
        }
        self
    }
}

fn stats_of<G: Registered>(game: &G, table: &Table, asked: Asked) -> Result<Stats> {
    let split = asked.split;
    let flat = table.header.value_type.width() <= 2;
    // A folded entry stands for its orbit: the positions are counted by walking the
    // entries (their orbits' sizes), and a split by each position of each orbit.
    let folded = table.header.symmetries > 1;
    // Which positions play reaches: the game's own test where it is exact, else the
    // forward pass from the start (`Reachable`); a table without a start has none.
    let reach = match asked.reachable {
        false => None,
        true if game.start_position().is_none() => {
            return Err(Error::input(
                "this table has no start (it holds part of a game, such as Morris's moving phase alone), so no position of it is reached from the start: leave out --reachable",
            ));
        }
        true => Some(Reachable::where_needed(game)?),
    };
    let reached = |p: &G::Position| match &reach {
        Some(Some(pass)) => pass.contains(p),
        _ => game.check_reachable(p).is_ok(),
    };
    let walk = folded || split || asked.reachable;
    let mut layers = Vec::with_capacity(table.header.layers.len());
    let mut rows = Vec::new();
    // The side to move is named by its mark (twins' first player plays o); young's stones
    // are not told apart, and go as x's (first's) and o's.
    let marks = G::notation().marks.unwrap_or(('x', 'o'));
    for (k, layer) in table.header.layers.iter().enumerate() {
        let n = layer.positions;
        let empty = || Counts {
            entries: Histogram::new(flat),
            positions: Histogram::new(flat),
            classes: HashMap::new(),
            reached: 0,
            reached_classes: HashMap::new(),
        };
        let counts = (0..n.div_ceil(RANGE))
            .into_par_iter()
            .map(|r| -> Result<Counts> {
                let start = r * RANGE;
                let values = table.read_range(k, start, RANGE.min(n - start) as usize)?;
                let mut c = empty();
                c.entries.add(&values);
                if !walk {
                    return Ok(c);
                }
                let mut pos = game.unrank(k, start);
                for (i, &v) in values.iter().enumerate() {
                    if i > 0 {
                        game.advance(&mut pos);
                    }
                    let weight = match folded {
                        true => game.orbit_size(&pos),
                        false => 1,
                    };
                    c.positions.add_one(v, weight);
                    if !(split || asked.reachable) {
                        continue;
                    }
                    let mut each = |p: &G::Position, weight: u64| {
                        let [x, o] = game.side_stones(p);
                        let class = (x, o, game.first_to_move(p));
                        if split {
                            let values = c.classes.entry(class);
                            *values.or_default().entry(v).or_insert(0) += weight;
                        }
                        if asked.reachable && reached(p) {
                            c.reached += weight;
                            *c.reached_classes.entry(class).or_default() += weight;
                        }
                    };
                    match folded {
                        true => game
                            .images_by_class(&pos)
                            .iter()
                            .for_each(|(p, w)| each(p, *w)),
                        false => each(&pos, 1),
                    }
                }
                Ok(c)
            })
            .try_reduce(empty, |a, b| Ok(a.merge(b)))?;
        let Counts {
            entries,
            positions,
            classes,
            reached,
            reached_classes,
        } = counts;
        let by_entry = tally(game, k, entries.counts());
        let by_position = match walk {
            true => tally(game, k, positions.counts()),
            false => by_entry.clone(),
        };
        let words = game.layer_words(k);
        layers.push(LayerStats {
            layer: k,
            holds: words.as_ref().map(|w| w.holds.clone()),
            phase: words.map(|w| w.phase),
            entries: n,
            positions: game.layer_positions(k),
            reachable: asked.reachable.then_some(reached),
            wins: by_position.wins,
            losses: by_position.losses,
            ties: by_position.ties,
            draws: by_position.draws,
            win_entries: by_entry.wins,
            loss_entries: by_entry.losses,
            tie_entries: by_entry.ties,
            draw_entries: by_entry.draws,
            longest_win: by_entry.longest_win,
            longest_loss: by_entry.longest_loss,
            min_value: by_entry.min_value,
            max_value: by_entry.max_value,
        });
        let mut classes: Vec<(Class, HashMap<i64, u64>)> = classes.into_iter().collect();
        classes.sort_unstable_by_key(|&((x, o, first), _)| (x, o, !first));
        for (class, values) in classes {
            let (x, o, first) = class;
            let positions = values.values().sum();
            let t = tally(game, k, values.into_iter().collect());
            rows.push(SplitRow {
                layer: k,
                x,
                o,
                to_move: (if first { marks.0 } else { marks.1 }).to_string(),
                positions,
                reachable: asked
                    .reachable
                    .then(|| reached_classes.get(&class).copied().unwrap_or(0)),
                wins: t.wins,
                losses: t.losses,
                draws: t.draws,
                ties: t.ties,
                longest_win: t.longest_win,
                longest_loss: t.longest_loss,
                min_value: t.min_value,
                max_value: t.max_value,
            });
        }
    }
    Ok(Stats {
        layers,
        split: split.then_some(rows),
    })
}
