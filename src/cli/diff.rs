//! `retro diff`: two tables of one game and board compared entry by entry (a plain and a
//! compact table, an old and a new build, two machines' builds): how many entries differ,
//! and the first few with both values. Exit 0 when all agree, 1 when any differ.
//!
//! Tables folded alike are compared rank by rank. A folded table and an unfolded one (a
//! `--no-fold` build, or a table of best moves, which never folds) have different ranks
//! for the same position, so each position of the unfolded table is looked up in the
//! folded one through the game's ranking, which gives every position of an orbit its
//! orbit's entry: every entry of both is then compared at least once.

use std::path::PathBuf;

use rayon::prelude::*;

use super::{Threads, open_table, outln};
use crate::error::{Error, Result};
use crate::game::{Game, Gameplay, Registered, Registry, Visitor};
use crate::table::Table;

#[derive(clap::Args)]
#[command(after_help = "\
Both tables must hold the same game and board; their encodings and value types may differ
(values are compared, not bytes), and so may their folding: a folded table is compared
with an unfolded one (--no-fold, or best moves) position by position, each position of the
unfolded table looked up in the folded one. Each layer's checksum is checked as it is read
(--no-check skips it). Exit 0 when every entry agrees, 1 when any differs, 2 when
the tables could not be compared (missing, damaged, not tables, of different boards).

Examples:
  retro diff old.retro new.retro
  retro diff plain.retro compact.retro --json
  retro diff folded.retro unfolded.retro")]
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
    // Mapped: comparing position by position looks entries up one at a time.
    let open = |path: &PathBuf| -> Result<Table> {
        let table = open_table::<R>(path)?.with_mmap()?;
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
    // Tables of two format versions may order a layer's orbits differently (Teeko's before
    // and after version 4): compared position by position, as tables folded unalike are.
    let code = if ha.symmetries != hb.symmetries || a.version != b.version {
        R::visit(&ha.game.clone(), ByPosition { args, a: &a, b: &b })
    } else {
        compare_ranks::<R>(args, &a, &b)
    };
    // A read error from a file that changed is the change, not damage.
    code.or_else(|e| unchanged(&a, &b).and(Err(e)))
}

/// Fail if either table changed on disk while it was read (what was read from a mapped
/// file written over in place is not what it holds): checked before anything is printed.
fn unchanged(a: &Table, b: &Table) -> Result<()> {
    a.check_unchanged()?;
    b.check_unchanged()
}

/// Two tables folded alike: entry i of one against entry i of the other.
fn compare_ranks<R: Registry>(args: &Args, a: &Table, b: &Table) -> Result<i32> {
    let (ha, hb) = (&a.header, &b.header);
    let sizes = |t: &Table| {
        t.header
            .layers
            .iter()
            .map(|l| l.positions)
            .collect::<Vec<_>>()
    };
    if sizes(a) != sizes(b) {
        return Err(Error::input(format!(
            "{} and {} hold different layers of {} {}",
            args.a.display(),
            args.b.display(),
            ha.game.name(),
            hb.game.label()
        )));
    }
    let (differ, first) = compare(a, b, args.show)?;
    unchanged(a, b)?;
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

/// A folded table and one that folds less (unfolded): every position of the second looked
/// up in the first. Entries and ranks are the unfolded table's.
struct ByPosition<'a> {
    args: &'a Args,
    a: &'a Table,
    b: &'a Table,
}

impl Visitor for ByPosition<'_> {
    type Output = i32;
    fn visit<G: Registered>(self, game_a: G) -> Result<i32> {
        let game_b = game_of::<G>(self.b)?;
        // The table that folds less has an entry for every position the other folds
        // together, so going through its entries reaches every entry of both.
        let a_leads = self.a.header.symmetries <= self.b.header.symmetries;
        let (lead, lead_game, other, other_game) = match a_leads {
            true => (self.a, &game_a, self.b, &game_b),
            false => (self.b, &game_b, self.a, &game_a),
        };
        let (differ, mut first) =
            compare_positions(lead, lead_game, other, other_game, self.args.show)?;
        if !a_leads {
            for d in &mut first {
                std::mem::swap(&mut d.a, &mut d.b);
            }
        }
        unchanged(self.a, self.b)?;
        let entries = lead.header.total_positions();
        report(self.args, lead_game, entries, differ, &first)?;
        Ok(if differ == 0 { 0 } else { 1 })
    }
}

/// Table `t`'s game as `G`, folded as its header says.
fn game_of<G: Registered>(t: &Table) -> Result<G> {
    t.header.game.build_game::<G>().unwrap_or_else(|| {
        Err(Error::other(format!(
            "{}: not a table of {}",
            t.path().display(),
            G::NAME
        )))
    })
}

/// Every entry of `lead` against the entry of its position in `other`: how many differ,
/// and the first `show` in `lead`'s order (`a` is `lead`'s value).
fn compare_positions<G: Game>(
    lead: &Table,
    lead_game: &G,
    other: &Table,
    other_game: &G,
    show: usize,
) -> Result<(u64, Vec<Differs>)> {
    count_differing(lead, show, |k, start, len| {
        let values = lead.read_range(k, start, len)?;
        (start..)
            .zip(values)
            .map(|(rank, x)| {
                // The position as the other table's game ranks it.
                let pos = other_game.adopt(&lead_game.unrank(k, rank));
                let y = other.value(other_game.layer_of(&pos), other_game.rank(&pos))?;
                Ok((x, y))
            })
            .collect()
    })
}

/// How many entries differ, and the first `show` of them in table order.
fn compare(a: &Table, b: &Table, show: usize) -> Result<(u64, Vec<Differs>)> {
    count_differing(a, show, |k, start, len| {
        let (va, vb) = (a.read_range(k, start, len)?, b.read_range(k, start, len)?);
        Ok(va.into_iter().zip(vb).collect())
    })
}

/// Over every layer of `table`, in ranges in parallel, the entries whose two values
/// (`pairs(k, start, len)`: each entry of the range's value in one table and in the other)
/// differ: how many, and the first `show` in `table`'s order.
fn count_differing(
    table: &Table,
    show: usize,
    pairs: impl Fn(usize, u64, usize) -> Result<Vec<(i64, i64)>> + Sync,
) -> Result<(u64, Vec<Differs>)> {
    let mut differ = 0;
    let mut first = Vec::new();
    for (k, layer) in table.header.layers.iter().enumerate() {
        let n = layer.positions;
        let found = (0..n.div_ceil(RANGE))
            .into_par_iter()
            .map(|r| -> Result<(u64, Vec<Differs>)> {
                let start = r * RANGE;
                let len = RANGE.min(n - start) as usize;
                let mut count = 0;
                let mut some = Vec::new();
                for (rank, (x, y)) in (start..).zip(pairs(k, start, len)?) {
                    if x != y {
                        count += 1;
                        if some.len() < show {
                            some.push(Differs {
                                layer: k,
                                rank,
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
        report(self.args, &game, self.entries, self.differ, &self.first)
    }
}

/// What `diff` prints: the count, and the first entries that differ with their positions
/// (of `game`, whose table the ranks are of).
fn report<G: Gameplay>(
    args: &Args,
    game: &G,
    entries: u64,
    differ: u64,
    first: &[Differs],
) -> Result<()> {
    let (a, b) = (args.a.display(), args.b.display());
    let words = |v: i64, k: usize| match game.outcome(v, k) {
        Some(o) => format!("{v} ({})", o.words()),
        None => v.to_string(),
    };
    if args.json {
        let first: Vec<_> = first
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
            "entries": entries,
            "differ": differ,
            "first": first,
        });
        return outln!("{value}");
    }
    if differ == 0 {
        return outln!("{a} and {b}: all {} entries agree", entries);
    }
    outln!(
        "{a} and {b}: {} of {} entries differ{}",
        differ,
        entries,
        if differ > first.len() as u64 {
            format!(", the first {}:", first.len())
        } else {
            ":".into()
        }
    )?;
    for d in first {
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
