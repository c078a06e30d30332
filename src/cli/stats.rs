//! `retro stats`: per layer, the entries, the positions they stand for, the positions won,
//! lost, drawn and tied for the side to move and the longest loss and win in plies; with
//! `--split`, per class of positions (each side's stones and the side to move)
//! (`crate::answers::stats`).

use std::path::PathBuf;

use super::{Threads, open_table, outln};
use crate::answers::stats::{Examples, LayerStats, Reached, RemotenessRow, Results, SplitRow};
use crate::error::Result;
use crate::game::{Registered, Registry, Visitor};

#[derive(clap::Args)]
#[command(after_help = "\
Counts are of positions. A table that folds symmetric positions stores an entry per orbit:
the entries column counts those, and the positions won, lost and drawn are counted by
walking each entry's orbit (--json also gives each layer's counts of entries:
win_entries, loss_entries, ...). Where a game names what a layer holds (morris: each
side's stones, and what is in hand while placing), a column says it, and a line per phase
of play follows the totals. Where one entry stands for every position of a layer, since
they all have one value (morris: the side to move is down to 2 stones and has lost), its
positions are counted, not stored, and a line under the table says so (--json: the
layer's `lumped`).

--split breaks each layer into classes, one row per count of x's stones (or cubes), of
o's, and side to move: the classes tables of solved games publish.

Without --reachable the counts are of every position the table holds, those no play
reaches included (tic-tac-toe with a line for each side), and a line under them says so.

--reachable adds a column of the positions play from the start reaches, and counts the
wins, losses, draws, ties and longest lines (or least and greatest values) over those
positions alone (--json keeps the counts over every position and adds the reachable
ones' under `reached`). Reachability is the game's own test where a position shows it
(young, twins, mnk, connect, teeko), else a forward pass over the game's moves from the
start, one bit a position (quixo, whose cubes change hands one way only, and morris, whose
positions do not show their history). A table without a start (morris's moving phase
alone, quixo's min=) cannot know it, and refuses --reachable.

--examples adds, per layer, a position with the layer's longest win and one with its
longest loss (games of scores: its greatest and least value), in the notation query
takes: the first in rank order, among the positions query answers (with --reachable,
among those play reaches). Where only positions query refuses have the layer's longest
win (or loss, or value), a '-' follows it: an example always has the figure beside it.

--remoteness counts the positions by remoteness, the plies to the end with best play (the
fastest win, the slowest loss; a tie's, to the full board), as GamesmanOne's analyze does:
a row per remoteness some position has, with its wins, losses and ties for the side to
move, then a row `draw` (a draw has no remoteness: play never ends) with the draws in the
draws column, then a row `all` of the sums. With --reachable, of the reachable positions;
with --split, each layer's rows (under its number) before the whole table's (under `all`).
--json adds `remoteness`, the rows (`remoteness` null in the draws' row), to each layer,
the total and `reached`. Games of scores (young, twins) have no wins or losses, so no
remoteness, and refuse --remoteness.

Each layer's checksum is checked as it is read (--no-check skips it), so a damaged table
is an error, not counts. Games of scores (young, twins) show each layer's least and
greatest value instead of results.

Examples:
  retro stats tables/young-sample.retro
  retro stats quixo.retro --json
  retro stats morris.retro --split --reachable
  retro stats ttt.retro --reachable --examples
  retro stats ttt.retro --reachable --remoteness")]
pub struct Args {
    /// Table file.
    table: PathBuf,
    /// Print one JSON object: `layers` (one object per layer), `total`, `phases` (where
    /// the game names them) and `split` (with --split).
    #[arg(long)]
    json: bool,
    /// A row per class of each layer: x's stones (or cubes), o's, and the side to move.
    #[arg(long)]
    split: bool,
    /// Also count the positions play from the start reaches (per layer, and per class
    /// with --split), and their results: the text's wins, losses, draws, ties and longest
    /// lines are then those of the reachable positions.
    #[arg(long)]
    reachable: bool,
    /// Per layer, a position with the longest win and one with the longest loss (games of
    /// scores: the greatest and least value), as query takes them.
    #[arg(long)]
    examples: bool,
    /// Count the positions by remoteness, the plies to the end with best play: a row per
    /// remoteness of the wins, losses and ties for the side to move, and one of the draws
    /// (which have none); with --split, a histogram per layer before the table's.
    #[arg(long)]
    remoteness: bool,
    /// Count without checking each layer's checksum first (a damaged table then gives
    /// wrong counts rather than an error).
    #[arg(long)]
    no_check: bool,
    #[command(flatten)]
    threads: Threads,
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    args.threads.start()?;
    let mut table = open_table::<R>(&args.table)?;
    if !args.no_check {
        // Each layer's checksum is checked as it is first read, as `verify` does.
        table = table.check_layers_as_read();
    }
    let asked = crate::answers::stats::Asked {
        split: args.split,
        reachable: args.reachable,
        examples: args.examples,
        remoteness: args.remoteness,
    };
    let stats = crate::answers::stats::table_stats::<R>(&table, asked)?;
    if args.json {
        outln!("{}", crate::answers::stats::json_of(&stats)?)?;
        return Ok(0);
    }
    let layers = &stats.layers;
    let reach = args.reachable;
    let results = layers
        .iter()
        .any(|l| l.results.wins + l.results.losses + l.results.ties + l.results.draws > 0);
    if args.remoteness {
        print_remoteness(layers, args.split, reach)?;
    } else if let Some(rows) = &stats.split {
        print_split(rows, results, reach)?;
    } else {
        print_layers(layers, results, reach)?;
    }
    for l in layers.iter().filter(|l| l.lumped) {
        outln!(
            "(layer {}: one entry stands for its {} positions, which share one value: they are counted, not stored)",
            l.layer,
            l.positions
        )?;
    }
    if reach {
        outln!(
            "(wins, losses, draws, ties and the longest lines, or least and greatest values: of the reachable positions)"
        )?;
    } else if results {
        // The rankings of the games that end in a win, a loss, a tie or a draw count boards
        // no play reaches (tic-tac-toe with a line for each side), and the published counts
        // leave them out: say that these are in, and how to leave them out. (Young's and
        // twins' rankings hold only positions play reaches.)
        outln!("{}", unreached_note::<R>(&table)?)?;
    }
    if args.examples {
        print_examples(layers)?;
    }
    Ok(0)
}

/// The line under counts of every position: that those play never reaches are among them,
/// and that `--reachable` counts exactly the rest, where the table has a start to reach
/// them from.
fn unreached_note<R: Registry>(table: &crate::table::Table) -> Result<String> {
    struct Start;
    impl Visitor for Start {
        type Output = bool;
        fn visit<G: Registered>(self, game: G) -> Result<bool> {
            Ok(game.start_position().is_some())
        }
    }
    Ok(match R::visit(&table.header.game, Start)? {
        true => "(every position the table holds is counted, also those no play from the start reaches: --reachable counts exactly the positions play reaches)",
        false => "(every position the table holds is counted, also those no play reaches; this table has no start, so which they are is not known)",
    }
    .to_string())
}

/// What a row shows: the counts of every position (`all`), or with --reachable of the
/// reachable ones (`Reached`).
fn shown<'a>(all: &'a Results, reached: Option<&'a Reached>) -> &'a Results {
    reached.map_or(all, |r| &r.results)
}

/// The columns after the positions: results, or least and greatest values.
fn columns(r: &Results, results: bool) -> String {
    match results {
        true => format!(
            "{:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
            r.wins,
            r.losses,
            r.draws,
            r.ties,
            plies(r.longest_loss),
            plies(r.longest_win)
        ),
        false => format!("{:>10} {:>10}", value(r.min_value), value(r.max_value)),
    }
}

/// The headings of `columns`.
fn headings(results: bool) -> String {
    match results {
        true => format!(
            "{:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
            "wins", "losses", "draws", "ties", "max loss", "max win"
        ),
        false => format!("{:>10} {:>10}", "least", "greatest"),
    }
}

fn plies(r: Option<usize>) -> String {
    r.map_or("-".to_string(), |r| r.to_string())
}

/// The table of layers, the totals and a line per phase.
fn print_layers(layers: &[LayerStats], results: bool, reach: bool) -> Result<()> {
    let total = crate::answers::stats::total(layers);
    let phases = crate::answers::stats::phases(layers);
    // What each layer holds, where the game says it: as wide as its longest.
    let holds = layers
        .iter()
        .filter_map(|l| l.holds.as_ref().map(|h| h.len()))
        .max()
        .map(|w| w.max("holds".len()));
    let first = |name: &str, holds_text: &str| match holds {
        Some(w) => format!("{name:>5} {holds_text:<w$}"),
        None => format!("{name:>5}"),
    };
    outln!(
        "{} {:>14} {} {}",
        first("layer", "holds"),
        "entries",
        counted("positions", reach.then_some("reachable")),
        headings(results)
    )?;
    let named = layers
        .iter()
        .map(|l| (l.layer.to_string(), l.holds.clone().unwrap_or_default(), l))
        .chain(std::iter::once(("all".to_string(), String::new(), &total)))
        .chain(phases.iter().map(|p| {
            // A phase's line: its name and how many layers it sums, under the holds.
            let phase = p.phase.clone().unwrap_or_default();
            let layers = match p.layer {
                1 => "1 layer".to_string(),
                n => format!("{n} layers"),
            };
            (String::new(), format!("{phase}: {layers}"), p)
        }));
    for (name, holds_text, l) in named {
        outln!(
            "{} {:>14} {} {}",
            first(&name, &holds_text),
            l.entries,
            counted(l.positions, l.reachable),
            columns(shown(&l.results, l.reached.as_ref()), results)
        )?;
    }
    Ok(())
}

/// The positions column, and the reachable one beside it where asked for.
fn counted(positions: impl std::fmt::Display, reachable: Option<impl std::fmt::Display>) -> String {
    match reachable {
        Some(r) => format!("{positions:>16} {r:>16}"),
        None => format!("{positions:>16}"),
    }
}

fn value(v: Option<i64>) -> String {
    v.map_or("-".to_string(), |v| v.to_string())
}

/// `--split`'s table: a row per class of each layer.
fn print_split(rows: &[SplitRow], results: bool, reach: bool) -> Result<()> {
    outln!(
        "{:>5} {:>3} {:>3} {:>7} {} {}",
        "layer",
        "x",
        "o",
        "to move",
        counted("positions", reach.then_some("reachable")),
        headings(results)
    )?;
    for r in rows {
        outln!(
            "{:>5} {:>3} {:>3} {:>7} {} {}",
            r.layer,
            r.x,
            r.o,
            r.to_move,
            counted(r.positions, r.reachable),
            columns(shown(&r.results, r.reached.as_ref()), results)
        )?;
    }
    Ok(())
}

/// `--remoteness`'s table: a row per remoteness of the whole table's positions (with
/// `split`, each layer's rows first), the draws' row, and a row of the sums; of the
/// reachable positions with `reach`.
fn print_remoteness(layers: &[LayerStats], split: bool, reach: bool) -> Result<()> {
    let rows_of = |l: &LayerStats| -> Vec<RemotenessRow> {
        let rows = match reach {
            true => l.reached.as_ref().and_then(|r| r.remoteness.clone()),
            false => l.remoteness.clone(),
        };
        rows.unwrap_or_default()
    };
    let total = rows_of(&crate::answers::stats::total(layers));
    let columns = |r: &RemotenessRow| {
        format!(
            "{:>14} {:>14} {:>14} {:>14}",
            r.wins, r.losses, r.ties, r.draws
        )
    };
    let named = |r: &RemotenessRow| r.remoteness.map_or("draw".to_string(), |r| r.to_string());
    let sums = total.iter().fold(RemotenessRow::default(), |mut s, r| {
        s.wins += r.wins;
        s.losses += r.losses;
        s.ties += r.ties;
        s.draws += r.draws;
        s
    });
    // With a layer column where each layer has its own rows.
    let first = |layer: &str| match split {
        true => format!("{layer:>5} "),
        false => String::new(),
    };
    outln!(
        "{}{:>10} {:>14} {:>14} {:>14} {:>14}",
        first("layer"),
        "remoteness",
        "wins",
        "losses",
        "ties",
        "draws"
    )?;
    if split {
        for l in layers {
            for r in rows_of(l) {
                outln!(
                    "{}{:>10} {}",
                    first(&l.layer.to_string()),
                    named(&r),
                    columns(&r)
                )?;
            }
        }
    }
    for r in &total {
        outln!("{}{:>10} {}", first("all"), named(r), columns(r))?;
    }
    outln!("{}{:>10} {}", first("all"), "all", columns(&sums))?;
    Ok(())
}

/// `--examples`: per layer, a position with its longest win and one with its longest loss
/// (or its greatest and least value), each after the plies (or the value) it shows.
fn print_examples(layers: &[LayerStats]) -> Result<()> {
    let cells: Vec<(usize, String, String)> = layers
        .iter()
        .filter_map(|l| {
            let figures = shown(&l.results, l.reached.as_ref());
            // A figure without an example: only positions query refuses have it.
            let said = |n: Option<String>, what: Option<String>| match (n, what) {
                (Some(p), Some(what)) => format!("{what}: {p}"),
                (None, Some(what)) => format!("{what}: -"),
                (_, None) => "-".to_string(),
            };
            Some(match l.examples.clone()? {
                Examples::Results {
                    longest_win,
                    longest_loss,
                } => (
                    l.layer,
                    said(
                        longest_win,
                        figures.longest_win.map(|r| format!("win in {r}")),
                    ),
                    said(
                        longest_loss,
                        figures.longest_loss.map(|r| format!("loss in {r}")),
                    ),
                ),
                Examples::Scores {
                    max_value,
                    min_value,
                } => (
                    l.layer,
                    said(max_value, figures.max_value.map(|v| v.to_string())),
                    said(min_value, figures.min_value.map(|v| v.to_string())),
                ),
            })
        })
        .collect();
    let scores = layers
        .iter()
        .any(|l| matches!(l.examples, Some(Examples::Scores { .. })));
    let (high, low) = match scores {
        true => ("greatest value", "least value"),
        false => ("longest win", "longest loss"),
    };
    let w = cells
        .iter()
        .map(|c| c.1.len())
        .max()
        .unwrap_or(0)
        .max(high.len());
    outln!("{:>5} {high:<w$}  {low}", "layer")?;
    for (k, a, b) in cells {
        outln!("{k:>5} {a:<w$}  {b}")?;
    }
    Ok(())
}
