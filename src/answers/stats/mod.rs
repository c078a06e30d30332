//! Per-layer statistics of a table, as GamesmanOne's `analyze` gives them: for each layer,
//! its entries and the positions they stand for, how many positions (and how many entries)
//! are wins, losses, ties and draws for the side to move, and the longest win and loss;
//! with a split, the same per class of positions (each side's stones and the side to
//! move). `retro stats` prints them, and Python's `Table.stats()` returns them.
//!
//! One parallel pass over the values (`count.rs`): each range of a layer is counted into a histogram of
//! its values (a flat one for values of one or two bytes), and each distinct value is read
//! in the game's words once. Where the table folds symmetric positions, the pass also
//! walks the range's entries: each value is weighed by its entry's orbit, and for a split,
//! each position of the orbit goes to its own class (`Game::images_by_class`).

use std::collections::HashMap;

use crate::answers::reach::Reachable;
use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Verdict, Visitor};
use crate::table::Table;

mod count;

use count::{Class, Counts, Pass};

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
    /// Whether the layer is one entry for all its positions, which share one value
    /// (`Game::lumped`: Morris's lost positions): they are counted, not stored.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lumped: bool,
    /// Of those, the positions play from the start reaches, where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reachable: Option<u64>,
    /// The reachable positions' results (or values), where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
    /// A position of the layer with its longest win and one with its longest loss (a game
    /// of scores: its greatest and least value), where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<Examples>,
    /// Its positions' results (games with results) or least and greatest value (games of
    /// scores); the longest lines and extremes are the entries', which have the same values.
    #[serde(flatten)]
    pub results: Results,
    /// Entries won, lost, tied and drawn: the positions' counts where the table does not
    /// fold, fewer where it does.
    pub win_entries: u64,
    /// See `win_entries`.
    pub loss_entries: u64,
    /// See `win_entries`.
    pub tie_entries: u64,
    /// See `win_entries`.
    pub draw_entries: u64,
    /// The positions by remoteness (`RemotenessRow`), where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remoteness: Option<Vec<RemotenessRow>>,
}

/// The positions of one remoteness (`stats --remoteness`), as GamesmanOne's `analyze`
/// counts them: won, lost and tied for the side to move in that many plies with best play.
/// A draw has no remoteness (play never ends), so the draws are a row of their own, with
/// `remoteness` None, after the others.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RemotenessRow {
    /// Plies to the end with best play; None for the draws' row.
    pub remoteness: Option<usize>,
    /// Positions won in `remoteness` plies by the side to move.
    pub wins: u64,
    /// Positions lost in `remoteness` plies.
    pub losses: u64,
    /// Positions tied in `remoteness` plies (the board fills).
    pub ties: u64,
    /// Positions drawn: only in the draws' row.
    pub draws: u64,
}

/// A histogram of values of layer `k` by remoteness: a row per remoteness some position
/// has, in order, then the draws' row where there are draws. Values of a game of scores
/// have no remoteness, and are left out (`stats_of` refuses to count them).
fn remoteness_rows<G: Registered>(
    game: &G,
    k: usize,
    counts: Vec<(i64, u64)>,
) -> Vec<RemotenessRow> {
    let mut rows: std::collections::BTreeMap<(bool, usize), RemotenessRow> = Default::default();
    for (value, count) in counts {
        let Some(o) = game.outcome(value, k) else {
            continue;
        };
        let draw = o.result == Verdict::Draw;
        // The draws sort after every remoteness.
        let key = match draw {
            true => (true, 0),
            false => (false, o.remoteness),
        };
        let row = rows.entry(key).or_insert_with(|| RemotenessRow {
            remoteness: (!draw).then_some(o.remoteness),
            ..RemotenessRow::default()
        });
        match o.result {
            Verdict::Win => row.wins += count,
            Verdict::Loss => row.losses += count,
            Verdict::Tie => row.ties += count,
            Verdict::Draw => row.draws += count,
        }
    }
    rows.into_values().collect()
}

/// Two histograms by remoteness added, row by row.
pub fn remoteness_plus(a: &[RemotenessRow], b: &[RemotenessRow]) -> Vec<RemotenessRow> {
    let key = |r: &RemotenessRow| (r.remoteness.is_none(), r.remoteness.unwrap_or(0));
    let mut rows: std::collections::BTreeMap<(bool, usize), RemotenessRow> = Default::default();
    for r in a.iter().chain(b) {
        let row = rows.entry(key(r)).or_insert_with(|| RemotenessRow {
            remoteness: r.remoteness,
            ..RemotenessRow::default()
        });
        row.wins += r.wins;
        row.losses += r.losses;
        row.ties += r.ties;
        row.draws += r.draws;
    }
    rows.into_values().collect()
}

/// Two optional histograms added: either alone where the other is missing.
fn remoteness_sum(
    a: &Option<Vec<RemotenessRow>>,
    b: &Option<Vec<RemotenessRow>>,
) -> Option<Vec<RemotenessRow>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(remoteness_plus(a, b)),
        (a, b) => a.clone().or(b.clone()),
    }
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
    /// The reachable positions' results (or values), where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
    /// The class's results, or least and greatest value.
    #[serde(flatten)]
    pub results: Results,
}

/// The positions play from the start reaches, counted as the positions are: how many,
/// won, lost, drawn and tied for the side to move, the longest win and loss, and in a game
/// of scores the least and greatest value.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Reached {
    /// Positions reached.
    pub positions: u64,
    /// Their results, or least and greatest value.
    #[serde(flatten)]
    pub results: Results,
    /// Them by remoteness (`RemotenessRow`), where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remoteness: Option<Vec<RemotenessRow>>,
}

impl Reached {
    /// The positions of a histogram of layer `k`'s values: how many, and what they come to.
    fn of<G: Registered>(game: &G, k: usize, counts: Vec<(i64, u64)>) -> Reached {
        Reached {
            positions: counts.iter().map(|&(_, n)| n).sum(),
            results: Results::of(game, k, counts),
            remoteness: None,
        }
    }

    /// Two sets of positions' counts together.
    fn plus(&self, other: &Reached) -> Reached {
        Reached {
            positions: self.positions + other.positions,
            results: self.results.plus(&other.results),
            remoteness: remoteness_sum(&self.remoteness, &other.remoteness),
        }
    }
}

/// A layer's example positions (`stats --examples`), in the notation `query` takes: the
/// first position in rank order (an entry's own, or the first of its orbit that qualifies)
/// with the layer's longest win and with its longest loss, or in a game of scores with its
/// greatest and least value; None where the layer has none. Only positions `query` answers
/// qualify (`Gameplay::check_reachable`), and with `reachable` only those play reaches; an
/// example has exactly the layer's figure, so where only positions `query` refuses have it,
/// there is none.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Examples {
    /// A game with results.
    Results {
        /// A position whose side to move wins in the layer's most plies.
        longest_win: Option<String>,
        /// A position whose side to move loses in the layer's most plies.
        longest_loss: Option<String>,
    },
    /// A game of scores.
    Scores {
        /// A position of the layer's greatest value.
        max_value: Option<String>,
        /// A position of its least value.
        min_value: Option<String>,
    },
}

/// What `stats` counts beyond each layer's values.
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked {
    /// A row per class of each layer (`SplitRow`).
    pub split: bool,
    /// The positions play from the start reaches, per layer and per class, and their
    /// results (`Reached`).
    pub reachable: bool,
    /// Each layer's example positions (`Examples`).
    pub examples: bool,
    /// Each layer's positions by remoteness (`RemotenessRow`), and with `reachable` the
    /// reachable ones'; refused for a game of scores, whose values have no remoteness.
    pub remoteness: bool,
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
        t.reached = match (&t.reached, &l.reached) {
            (Some(a), Some(b)) => Some(a.plus(b)),
            (a, b) => a.clone().or(b.clone()),
        };
        t.results = t.results.plus(&l.results);
        t.win_entries += l.win_entries;
        t.loss_entries += l.loss_entries;
        t.tie_entries += l.tie_entries;
        t.draw_entries += l.draw_entries;
        t.remoteness = remoteness_sum(&t.remoteness, &l.remoteness);
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

/// What a set of positions' values (a layer's, a class's, the reachable ones') comes to in
/// the game's words: won, lost, tied and drawn for the side to move with the longest win
/// and loss in plies, or in a game of scores the least and greatest value.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Results {
    /// Positions won, lost, tied and drawn for the side to move (games with results).
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

impl Results {
    /// A histogram of layer `k`'s values, read in the game's words.
    fn of<G: Registered>(game: &G, k: usize, counts: Vec<(i64, u64)>) -> Results {
        let mut t = Results::default();
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

    /// Two sets of positions together: counts added, extremes of extremes.
    fn plus(&self, other: &Results) -> Results {
        Results {
            wins: self.wins + other.wins,
            losses: self.losses + other.losses,
            ties: self.ties + other.ties,
            draws: self.draws + other.draws,
            longest_win: self.longest_win.max(other.longest_win),
            longest_loss: self.longest_loss.max(other.longest_loss),
            min_value: match (self.min_value, other.min_value) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            max_value: self.max_value.max(other.max_value),
        }
    }
}

fn stats_of<G: Registered>(game: &G, table: &Table, asked: Asked) -> Result<Stats> {
    let split = asked.split;
    // A folded entry stands for its orbit: the positions are counted by walking the
    // entries (their orbits' sizes), and a split by each position of each orbit.
    let folded = table.header.symmetries > 1;
    // Which positions play reaches: the game's own test where it is exact, else the
    // forward pass from the start (`Reachable`); a table without a start has none.
    let reach = match asked.reachable {
        false => None,
        true if game.start_position().is_none() => {
            return Err(Error::input(
                "this table has no start (it holds part of a game: Morris's moving phase alone, Quixo's min=), so which of its positions play reaches is not known: leave out --reachable",
            ));
        }
        true => Some(Reachable::where_needed(game)?),
    };
    let reached = |p: &G::Position| match &reach {
        Some(Some(pass)) => pass.contains(p),
        _ => game.check_reachable(p).is_ok(),
    };
    // An example is a position `query` answers, and with --reachable one play reaches.
    let qualifies =
        |p: &G::Position| game.check_reachable(p).is_ok() && (!asked.reachable || reached(p));
    // A game of scores has no win or loss, so no remoteness to count by.
    if asked.remoteness && game.outcome(0, 0).is_none() {
        return Err(Error::input(format!(
            "--remoteness counts wins, losses, ties and draws by the plies to the end, and a {} table holds scores (what the first player makes of the rest of the game), which have no remoteness: leave out --remoteness",
            G::NAME
        )));
    }
    let pass = Pass {
        game,
        table,
        asked,
        flat: table.header.value_type.width() <= 2,
        folded,
        walk: folded || split || asked.reachable || asked.examples,
        reached: &reached,
        qualifies: &qualifies,
    };
    let mut layers = Vec::with_capacity(table.header.layers.len());
    let mut rows = Vec::new();
    // The side to move is named by its mark (twins' first player plays o); young's stones
    // are not told apart, and go as x's (first's) and o's.
    let marks = G::notation().marks.unwrap_or(('x', 'o'));
    for (k, layer) in table.header.layers.iter().enumerate() {
        let n = layer.positions;
        let counts = pass.layer(k, n)?;
        let Counts {
            entries,
            positions,
            classes,
            reached,
            reached_classes,
            examples,
        } = counts;
        let by_entry = Results::of(game, k, entries.counts());
        let by_position = match pass.walk || game.lumped(k) {
            true => Results::of(game, k, positions.counts()),
            false => by_entry.clone(),
        };
        // `--remoteness`: the positions' values by remoteness, and the reachable ones'.
        // Where no walk weighed the entries, the table does not fold: an entry is a
        // position.
        let remoteness = asked.remoteness.then(|| match pass.walk || game.lumped(k) {
            true => remoteness_rows(game, k, positions.counts()),
            false => remoteness_rows(game, k, entries.counts()),
        });
        let reached_remoteness = (asked.remoteness && asked.reachable)
            .then(|| remoteness_rows(game, k, reached.counts()));
        let reached = asked
            .reachable
            .then(|| Reached::of(game, k, reached.counts()));
        let reached = reached.map(|r| Reached {
            remoteness: reached_remoteness,
            ..r
        });
        let words = game.layer_words(k);
        // The figures printed beside the examples: the layer's longest win and loss (or
        // greatest and least value), of the reachable positions where asked. Where only
        // positions `query` refuses hold a figure, the best example found falls short of it,
        // and the layer has no example rather than one with a value it does not have.
        let figures = {
            let shown = reached.as_ref().map_or(&by_entry, |r| &r.results);
            let (win, loss) = (shown.longest_win, shown.longest_loss);
            let (min, max) = (shown.min_value, shown.max_value);
            match game.outcome(0, k) {
                Some(_) => [win.map(|r| r as i64), loss.map(|r| r as i64)],
                None => [max, min.map(|v| -v)],
            }
        };
        let [high, low] = [0, 1].map(|slot| {
            let found = examples[slot].as_ref();
            let found = found.filter(|(key, _, _)| Some(*key) == figures[slot]);
            found.map(|(_, _, p)| game.format_position(p))
        });
        let examples = asked.examples.then(|| match game.outcome(0, k) {
            Some(_) => Examples::Results {
                longest_win: high,
                longest_loss: low,
            },
            None => Examples::Scores {
                max_value: high,
                min_value: low,
            },
        });
        layers.push(LayerStats {
            layer: k,
            holds: words.as_ref().map(|w| w.holds.clone()),
            phase: words.map(|w| w.phase),
            entries: n,
            positions: game.layer_positions(k),
            lumped: game.lumped(k),
            reachable: reached.as_ref().map(|r| r.positions),
            reached,
            examples,
            win_entries: by_entry.wins,
            loss_entries: by_entry.losses,
            tie_entries: by_entry.ties,
            draw_entries: by_entry.draws,
            results: Results {
                wins: by_position.wins,
                losses: by_position.losses,
                ties: by_position.ties,
                draws: by_position.draws,
                ..by_entry
            },
            remoteness,
        });
        rows.extend(class_rows(
            game,
            k,
            classes,
            &reached_classes,
            asked.reachable,
            marks,
        ));
    }
    Ok(Stats {
        layers,
        split: split.then_some(rows),
    })
}

/// Layer k's rows of a split: each class's counts, in the order of its stones and then the
/// side to move, with what play reaches of each where asked.
fn class_rows<G: Registered>(
    game: &G,
    k: usize,
    classes: HashMap<Class, HashMap<i64, u64>>,
    reached_classes: &HashMap<Class, HashMap<i64, u64>>,
    reachable: bool,
    marks: (char, char),
) -> Vec<SplitRow> {
    let mut rows = Vec::new();
    let mut classes: Vec<(Class, HashMap<i64, u64>)> = classes.into_iter().collect();
    classes.sort_unstable_by_key(|&((x, o, first), _)| (x, o, !first));
    for (class, values) in classes {
        let (x, o, first) = class;
        let positions = values.values().sum();
        let results = Results::of(game, k, values.into_iter().collect());
        let reached = reachable.then(|| {
            let values: Vec<(i64, u64)> = reached_classes
                .get(&class)
                .map(|v| v.iter().map(|(&v, &n)| (v, n)).collect())
                .unwrap_or_default();
            Reached::of(game, k, values)
        });
        rows.push(SplitRow {
            layer: k,
            x,
            o,
            to_move: (if first { marks.0 } else { marks.1 }).to_string(),
            positions,
            reachable: reached.as_ref().map(|r| r.positions),
            reached,
            results,
        });
    }
    rows
}
