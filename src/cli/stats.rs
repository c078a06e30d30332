//! `retro stats`: per layer, the entries, the positions they stand for, the wins, losses,
//! ties and draws for the side to move and the longest loss and win in plies
//! (`crate::stats`).

use std::path::PathBuf;

use super::{Threads, open_table, outln};
use crate::error::Result;
use crate::game::Registry;

#[derive(clap::Args)]
#[command(after_help = "\
Counts are of table entries: where a table folds symmetric positions, each orbit counts
once (the positions column says how many positions they stand for). Each layer's checksum
is checked as it is read (--no-check skips it), so a damaged table is an error, not counts. Games of scores
(young, twins) show each layer's least and greatest value instead of results.

Examples:
  retro stats tables/young-sample.retro
  retro stats quixo.retro --json")]
pub struct Args {
    /// Table file.
    table: PathBuf,
    /// Print one JSON object: `layers` (one object per layer) and `total`.
    #[arg(long)]
    json: bool,
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
    let layers = crate::stats::table_stats::<R>(&table)?;
    if args.json {
        outln!("{}", crate::stats::json_of(&layers)?)?;
        return Ok(0);
    }
    let total = crate::stats::total(&layers);
    let results = layers
        .iter()
        .any(|l| l.wins + l.losses + l.ties + l.draws > 0);
    if results {
        outln!(
            "{:>5} {:>14} {:>16} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
            "layer",
            "entries",
            "positions",
            "wins",
            "losses",
            "draws",
            "ties",
            "max loss",
            "max win"
        )?;
    } else {
        outln!(
            "{:>5} {:>14} {:>16} {:>10} {:>10}",
            "layer",
            "entries",
            "positions",
            "least",
            "greatest"
        )?;
    }
    for l in layers.iter().chain(std::iter::once(&total)) {
        let name = if std::ptr::eq(l, &total) {
            "all".to_string()
        } else {
            l.layer.to_string()
        };
        let plies = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
        if results {
            outln!(
                "{:>5} {:>14} {:>16} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8}",
                name,
                l.entries,
                l.positions,
                l.wins,
                l.losses,
                l.draws,
                l.ties,
                plies(l.longest_loss),
                plies(l.longest_win)
            )?;
        } else {
            let v = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
            outln!(
                "{:>5} {:>14} {:>16} {:>10} {:>10}",
                name,
                l.entries,
                l.positions,
                v(l.min_value),
                v(l.max_value)
            )?;
        }
    }
    Ok(0)
}
