//! `retro info`: what a table holds, and whether its values are intact.

use std::path::PathBuf;

use super::open_table;
use crate::error::Result;
use crate::game::Registry;
use crate::memory::human_bytes;
use crate::table::Encoding;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro info tables/young-sample.retro
  retro info tables/young-sample.retro --json")]
pub struct Args {
    /// Table file.
    table: PathBuf,
    /// Print one JSON object (after the checksum is checked).
    #[arg(long)]
    json: bool,
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    let table = open_table::<R>(&args.table)?;
    let h = &table.header;
    let entries = h.total_positions();
    let positions: u64 = crate::answers::info::layer_positions::<R>(&table)?
        .iter()
        .sum();
    let value_bytes = h.value_bytes();
    let (largest, entry) = h
        .layers
        .iter()
        .enumerate()
        .max_by_key(|(_, l)| l.positions)
        .map(|(k, l)| (k, l.positions))
        .unwrap_or((0, 0));
    let cells = h.layers.len() - 1;
    let encoding = encoding_words(h.encoding);
    let lookups = h.encoding.lookups_per_value(cells);
    // A plain entry is one positioned read; a blocked one its directory entry and its bits,
    // but a table of best moves keeps the directories it has used in memory.
    let reads = match h.encoding {
        Encoding::Blocked => 2 * lookups,
        Encoding::Plain | Encoding::Moves { .. } => lookups,
    };
    let value_layers = (0..=cells)
        .filter(|&k| h.encoding.stores_values(k, cells))
        .count();
    let mut rows = vec![
        ("table", table.path().display().to_string()),
        ("game", h.game.name().to_string()),
        ("board", h.game.size_words()),
        (
            "format",
            if table.version >= crate::table::header::version_of(h) {
                format!("version {}", table.version)
            } else {
                format!(
                    "version {} (read by this retro, which writes version {})",
                    table.version,
                    crate::table::header::version_of(h)
                )
            },
        ),
        ("value type", h.value_type.name().to_string()),
        ("encoding", encoding.clone()),
        ("layers", h.game.layer_words(h.layers.len())),
        ("positions", positions.to_string()),
        (
            "layer sizes",
            summarise(h.layers.iter().map(|l| l.positions).collect()),
        ),
        (
            "largest",
            format!(
                "layer {largest}: {entry} {}",
                if h.symmetries > 1 {
                    "entries"
                } else {
                    "positions"
                }
            ),
        ),
        (
            "value bytes",
            format!(
                "{} ({:.3} bytes per position)",
                human_bytes(value_bytes as f64),
                value_bytes as f64 / positions as f64
            ),
        ),
        (
            "file size",
            format!(
                "{} ({} bytes)",
                human_bytes(table.file_len as f64),
                table.file_len
            ),
        ),
    ];
    if h.symmetries > 1 {
        // Only folded tables get the row, so other tables' output stays as it was.
        insert_after(
            &mut rows,
            "positions",
            (
                "entries",
                format!(
                    "{entries}: folded by {} symmetries ({:.1} positions an entry)",
                    h.symmetries,
                    positions as f64 / entries as f64
                ),
            ),
        );
    }
    // A layer that is one entry for all its positions: said under the sizes, where there
    // is one, so other tables' output stays as it was.
    let lumped = crate::answers::info::lumped_layers::<R>(&table)?;
    if !lumped.is_empty() {
        let said: Vec<String> = lumped
            .iter()
            .map(|(k, n)| format!("layer {k}, one entry for its {n} positions"))
            .collect();
        insert_after(
            &mut rows,
            "layer sizes",
            (
                "lumped",
                format!(
                    "{}: they share one value, and are counted, not stored",
                    said.join("; ")
                ),
            ),
        );
    }
    let moves = matches!(h.encoding, Encoding::Moves { .. });
    if moves {
        // Only tables of best moves get the row, so other tables' output stays as it was.
        rows.insert(
            6,
            (
                "per value",
                format!(
                    "at most {lookups} lookups ({reads} positioned reads, block directories in memory); {value_layers} of {} layers hold values",
                    cells + 1
                ),
            ),
        );
    }
    if args.json {
        let summary = crate::answers::info::info_json::<R>(&table, true)?;
        super::outln!("{summary}")?;
        return Ok(0);
    }
    // The empty board's value, in the game's words.
    let words = crate::answers::info::root_words::<R>(&table)?;
    rows.push(("root value", words.text));
    // A table without a start: where it opens, and the value there.
    if let Some((pos, value)) = words.opening {
        rows.push(("opening", format!("{pos}: {value}")));
    }
    for (key, value) in rows {
        super::outln!("{key:<12} {value}")?;
    }
    table.verify_checksum()?;
    super::outln!("{:<12} {:016x} ok", "checksum", h.checksum)?;
    Ok(0)
}

/// The table's encoding in words.
fn encoding_words(encoding: Encoding) -> String {
    match encoding {
        Encoding::Plain => "plain (raw little-endian arrays)".to_string(),
        Encoding::Blocked => {
            "compact (blocks of 4096 entries, each with its own minimum and bit width)".into()
        }
        Encoding::Moves { values_every } => format!(
            "best moves (values, compact, in the layers k with k % {values_every} == 0 and the \
             full one; elsewhere each position's first best move, in blocks of 4096)"
        ),
    }
}

/// Put `row` right after the row named `after` (first, where there is none).
fn insert_after(rows: &mut Vec<(&'static str, String)>, after: &str, row: (&'static str, String)) {
    let at = rows.iter().position(|r| r.0 == after).map_or(0, |i| i + 1);
    rows.insert(at, row);
}

/// All sizes for a short list, else the first and last few.
fn summarise(sizes: Vec<u64>) -> String {
    let show = |s: &[u64]| {
        s.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if sizes.len() <= 12 {
        show(&sizes)
    } else {
        format!(
            "{} ... {}",
            show(&sizes[..5]),
            show(&sizes[sizes.len() - 5..])
        )
    }
}
