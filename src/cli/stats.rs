//! `retro stats`: per layer, the entries, the positions they stand for, the positions won,
//! lost, drawn and tied for the side to move and the longest loss and win in plies; with
//! `--split`, per class of positions (each side's stones and the side to move)
//! (`crate::answers::stats`).

use std::path::PathBuf;

use super::{Threads, open_table, outln};
use crate::answers::stats::SplitRow;
use crate::error::Result;
use crate::game::Registry;

#[derive(clap::Args)]
#[command(after_help = "\
Counts are of positions. A table that folds symmetric positions stores an entry per orbit:
the entries column counts those, and the positions won, lost and drawn are counted by
walking each entry's orbit (--json also gives each layer's counts of entries:
win_entries, loss_entries, ...). Where a game names what a layer holds (morris: each
side's stones, and what is in hand while placing), a column says it, and a line per phase
of play follows the totals.

--split breaks each layer into classes, one row per count of x's stones (or cubes), of
o's, and side to move: the classes tables of solved games publish.

--reachable adds a column of the positions play from the start reaches: the game's own
test where a position shows it (young, twins, mnk, connect, teeko), else a forward pass
over the game's moves from the start, one bit a position (quixo, whose cubes change hands
one way only, and morris, whose positions do not show their history). A table without a start (morris's moving
phase alone) refuses it.

Each layer's checksum is checked as it is read (--no-check skips it), so a damaged table
is an error, not counts. Games of scores (young, twins) show each layer's least and
greatest value instead of results.

Examples:
  retro stats tables/young-sample.retro
  retro stats quixo.retro --json
  retro stats morris.retro --split --reachable")]
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
    /// with --split).
    #[arg(long)]
    reachable: bool,
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
        .any(|l| l.wins + l.losses + l.ties + l.draws > 0);
    if let Some(rows) = &stats.split {
        return print_split(rows, results, reach);
    }
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
    if results {
        outln!(
            "{} {:>14} {} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
            first("layer", "holds"),
            "entries",
            counted("positions", reach.then_some("reachable")),
            "wins",
            "losses",
            "draws",
            "ties",
            "max loss",
            "max win"
        )?;
    } else {
        outln!(
            "{} {:>14} {} {:>10} {:>10}",
            first("layer", "holds"),
            "entries",
            counted("positions", reach.then_some("reachable")),
            "least",
            "greatest"
        )?;
    }
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
        let name = first(&name, &holds_text);
        let plies = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
        if results {
            outln!(
                "{} {:>14} {} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
                name,
                l.entries,
                counted(l.positions, l.reachable),
                l.wins,
                l.losses,
                l.draws,
                l.ties,
                plies(l.longest_loss),
                plies(l.longest_win)
            )?;
        } else {
            outln!(
                "{} {:>14} {} {:>10} {:>10}",
                name,
                l.entries,
                counted(l.positions, l.reachable),
                value(l.min_value),
                value(l.max_value)
            )?;
        }
    }
    Ok(0)
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
fn print_split(rows: &[SplitRow], results: bool, reach: bool) -> Result<i32> {
    let plies = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
    if results {
        outln!(
            "{:>5} {:>3} {:>3} {:>7} {} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
            "layer",
            "x",
            "o",
            "to move",
            counted("positions", reach.then_some("reachable")),
            "wins",
            "losses",
            "draws",
            "ties",
            "max loss",
            "max win"
        )?;
    } else {
        outln!(
            "{:>5} {:>3} {:>3} {:>7} {} {:>10} {:>10}",
            "layer",
            "x",
            "o",
            "to move",
            counted("positions", reach.then_some("reachable")),
            "least",
            "greatest"
        )?;
    }
    for r in rows {
        if results {
            outln!(
                "{:>5} {:>3} {:>3} {:>7} {} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
                r.layer,
                r.x,
                r.o,
                r.to_move,
                counted(r.positions, r.reachable),
                r.wins,
                r.losses,
                r.draws,
                r.ties,
                plies(r.longest_loss),
                plies(r.longest_win)
            )?;
        } else {
            outln!(
                "{:>5} {:>3} {:>3} {:>7} {} {:>10} {:>10}",
                r.layer,
                r.x,
                r.o,
                r.to_move,
                counted(r.positions, r.reachable),
                value(r.min_value),
                value(r.max_value)
            )?;
        }
    }
    Ok(0)
}
