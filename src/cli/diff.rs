//! `retro diff`: two tables of one game and board compared entry by entry (a plain and a
//! compact table, an old and a new build, two machines' builds): how many entries differ,
//! and the first few with both values. Exit 0 when all agree, 1 when any differ.

use std::path::PathBuf;

use rayon::prelude::*;

use super::{Threads, open_table, outln};
use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Visitor};
use crate::table::Table;

#[derive(clap::Args)]
#[command(after_help = "\
Both tables must hold the same game and board, folded alike; their encodings and value
types may differ (values are compared, not bytes). Each layer's checksum is checked as it
is read (--no-check skips it). Exit 0 when every entry agrees, 1 when any differs, 2 when
the tables could not be compared (missing, damaged, not tables, of different boards).

Examples:
  retro diff old.retro new.retro
  retro diff plain.retro compact.retro --json")]
pub struct Args {
    /// The first table.
    a: PathBuf,
    /// The second table.
    b: PathBuf,
    /// How many differing entries to show.
    #[arg(long, value_name = "N", default_value_t = 10)]
    show: usize,
    /// Print one JSON object: `entries`, `differ` and `first` (layer, rank, position, a, b).
    #[arg(long)]
    json: bool,
    /// Compare without checking each layer's checksum first.
    #[arg(long)]
    no_check: bool,
    #[command(flatten)]
    threads: Threads,
}

/// Values compared per task.
const RANGE: u64 = 1 << 20;

/// One entry that differs.
struct Differs {
    layer: usize,
    rank: u64,
    a: i64,
    b: i64,
}

/// What `diff` exits with when the tables could not be compared: as `cmp` and `diff` do,
/// apart from 1 (they differ).
const TROUBLE: i32 = 2;

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    match compare_tables::<R>(&args) {
        Ok(code) => Ok(code),
        Err(e) if e.is_broken_pipe() => Err(e),
        Err(e) => {
            eprintln!("error: {e}");
            Ok(TROUBLE)
        }
    }
}

fn compare_tables<R: Registry>(args: &Args) -> Result<i32> {
    args.threads.start()?;
    let open = |path: &PathBuf| -> Result<Table> {
        let table = open_table::<R>(path)?;
        Ok(match args.no_check {
            true => table,
            false => table.check_layers_as_read(),
        })
    };
    let a = open(&args.a)?;
    let b = open(&args.b)?;
    let (ha, hb) = (&a.header, &b.header);
    if ha.game != hb.game {
        return Err(Error::input(format!(
            "{} holds {} {} and {} holds {} {}: diff compares tables of one game and board",
            args.a.display(),
            ha.game.name(),
            ha.game.label(),
            args.b.display(),
            hb.game.name(),
            hb.game.label()
        )));
    }
    let sizes = |t: &Table| {
        t.header
            .layers
            .iter()
            .map(|l| l.positions)
            .collect::<Vec<_>>()
    };
    if sizes(&a) != sizes(&b) {
        return Err(Error::input(format!(
            "{} and {} hold different layers of {} {} (one folds symmetric positions and the other not?)",
            args.a.display(),
            args.b.display(),
            ha.game.name(),
            ha.game.label()
        )));
    }
    let (differ, first) = compare(&a, &b, args.show)?;
    let entries = ha.total_positions();
    R::visit(
        &ha.game.clone(),
        Report {
            args,
            entries,
            differ,
            first,
        },
    )?;
    Ok(if differ == 0 { 0 } else { 1 })
}

/// How many entries differ, and the first `show` of them in table order.
fn compare(a: &Table, b: &Table, show: usize) -> Result<(u64, Vec<Differs>)> {
    let mut differ = 0;
    let mut first = Vec::new();
    for (k, layer) in a.header.layers.iter().enumerate() {
        let n = layer.positions;
        let found = (0..n.div_ceil(RANGE))
            .into_par_iter()
            .map(|r| -> Result<(u64, Vec<Differs>)> {
                let start = r * RANGE;
                let len = RANGE.min(n - start) as usize;
                let (va, vb) = (a.read_range(k, start, len)?, b.read_range(k, start, len)?);
                let mut count = 0;
                let mut some = Vec::new();
                for (i, (&x, &y)) in va.iter().zip(&vb).enumerate() {
                    if x != y {
                        count += 1;
                        if some.len() < show {
                            some.push(Differs {
                                layer: k,
                                rank: start + i as u64,
                                a: x,
                                b: y,
                            });
                        }
                    }
                }
                Ok((count, some))
            })
            .collect::<Result<Vec<_>>>()?;
        for (count, some) in found {
            differ += count;
            first.extend(some);
        }
        first.truncate(show);
    }
    Ok((differ, first))
}

struct Report<'a> {
    args: &'a Args,
    entries: u64,
    differ: u64,
    first: Vec<Differs>,
}

impl Visitor for Report<'_> {
    type Output = ();
    fn visit<G: Registered>(self, game: G) -> Result<()> {
        let (a, b) = (self.args.a.display(), self.args.b.display());
        let words = |v: i64, k: usize| match game.outcome(v, k) {
            Some(o) => format!("{v} ({})", o.words()),
            None => v.to_string(),
        };
        if self.args.json {
            let first: Vec<_> = self
                .first
                .iter()
                .map(|d| {
                    serde_json::json!({
                        "layer": d.layer,
                        "rank": d.rank,
                        "position": game.format_position(&game.unrank(d.layer, d.rank)),
                        "a": d.a,
                        "b": d.b,
                    })
                })
                .collect();
            let value = serde_json::json!({
                "a": a.to_string(),
                "b": b.to_string(),
                "entries": self.entries,
                "differ": self.differ,
                "first": first,
            });
            return outln!("{value}");
        }
        if self.differ == 0 {
            return outln!("{a} and {b}: all {} entries agree", self.entries);
        }
        outln!(
            "{a} and {b}: {} of {} entries differ{}",
            self.differ,
            self.entries,
            if self.differ > self.first.len() as u64 {
                format!(", the first {}:", self.first.len())
            } else {
                ":".into()
            }
        )?;
        for d in &self.first {
            let position = game.format_position(&game.unrank(d.layer, d.rank));
            outln!(
                "  layer {} entry {} ({position}): {} in {a}, {} in {b}",
                d.layer,
                d.rank,
                words(d.a, d.layer),
                words(d.b, d.layer)
            )?;
        }
        Ok(())
    }
}
