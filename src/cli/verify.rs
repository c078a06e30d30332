//! `retro verify`: every entry (or a sample) re-derived from its children, and the checksum.

use std::path::PathBuf;

use super::{open_table, progress_bar};
use crate::answers::verify::{self, Mismatch};
use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Visitor};
use crate::progress::{Progress, Silent};
use crate::table::Table;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro verify tables/young-sample.retro
  retro verify big.retro --sample 100000")]
pub struct Args {
    #[command(flatten)]
    threads: super::Threads,
    /// Table file.
    table: PathBuf,
    /// Check this many random positions instead of all of them (at most the table's
    /// positions).
    #[arg(long, value_name = "N")]
    sample: Option<u64>,
    /// Seed for --sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    args.threads.start()?;
    let table = open_table::<R>(&args.table)?;
    table.verify_checksum()?;
    let board = table.header.game.clone();
    match R::visit(
        &board,
        Verify {
            args: &args,
            table: &table,
        },
    )? {
        Ok(checked) if args.json => {
            let summary = serde_json::json!({
                "table": args.table.display().to_string(),
                "positions": crate::answers::info::layer_positions::<R>(&table)?.iter().sum::<u64>(),
                "entries": table.header.total_positions(),
                "checked": checked,
                "sampled": args.sample.is_some(),
                "checksum": "ok",
                "ok": true,
                // As build --json reports it: verify holds what the build held, at most.
                "peak_rss": crate::memory::peak_rss(),
            });
            super::outln!("{summary}")?;
            Ok(0)
        }
        Ok(checked) => {
            // A folded table's entries stand for orbits: say what was checked.
            let what = match table.header.symmetries {
                n if n > 1 => format!("entries checked (the table folds {n} symmetries)"),
                _ => "positions checked".to_string(),
            };
            super::outln!("{}: {checked} {what}, checksum ok", args.table.display())?;
            Ok(0)
        }
        Err((m, stored, expected)) => Err(Error::other(format!(
            "{}: wrong entry in layer {} at index {} (position {}): stored {}{stored}, expected {expected}",
            args.table.display(),
            m.layer,
            m.index,
            m.position,
            if m.best_move { "best move " } else { "" },
        ))),
    }
}

/// A wrong entry's stored and expected values as the message says them: a best move's
/// index or a game of scores' value as it is; for a game that ends in a win, a loss, a tie
/// or a draw, the result and remoteness a code stands for, and the code.
fn entry_words<G: Registered>(game: &G, m: &Mismatch) -> (String, String) {
    let words = |v: i64| match game.outcome(v, m.layer) {
        Some(o) if !m.best_move => format!("{} (code {v})", o.words()),
        _ => v.to_string(),
    };
    (words(m.stored), words(m.expected))
}

/// Re-derive the table's entries on its game: every one, or a sample.
struct Verify<'a> {
    args: &'a Args,
    table: &'a Table,
}

impl Visitor for Verify<'_> {
    type Output = std::result::Result<u64, (Mismatch, String, String)>;

    fn visit<G: Registered>(self, game: G) -> Result<Self::Output> {
        let Verify { args, table } = self;
        let found = match args.sample {
            Some(n) => verify::verify_sample(&game, table, n, args.seed),
            None => {
                let bar = progress_bar(table.header.total_positions(), args.quiet);
                let progress: &dyn Progress = match &bar {
                    Some(b) => b,
                    None => &Silent,
                };
                let out = verify::verify_all(&game, table, progress);
                if let Some(b) = bar {
                    b.finish_and_clear();
                }
                out
            }
        }?;
        Ok(found.map_err(|m| {
            let (stored, expected) = entry_words(&game, &m);
            (m, stored, expected)
        }))
    }
}
