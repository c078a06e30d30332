//! What a table holds, as `retro info --json` prints it: one function, so the command line
//! and library callers (the Python package) give the same object.

use crate::error::Result;
use crate::game::{Outcome, Registered, Registry, Visitor};
use crate::table::{Encoding, Table};

/// The root's value in its game's words (`Gameplay::root_text`), and its outcome where the
/// game ends in a win, a loss, a tie or a draw.
pub struct RootWords {
    /// The empty board's value.
    pub value: i64,
    /// The value in words ("2", "o completes a line at ply 24, o's 12th stone").
    pub text: String,
    /// The result and remoteness for the side to move, where the game has them.
    pub outcome: Option<Outcome>,
}

/// The empty board's value of `table`, in its game's words; `R` is the registry its game
/// is in.
pub fn root_words<R: Registry>(table: &Table) -> Result<RootWords> {
    struct Words(i64);
    impl Visitor for Words {
        type Output = RootWords;
        fn visit<G: Registered>(self, game: G) -> Result<RootWords> {
            Ok(RootWords {
                value: self.0,
                text: game.root_text(self.0),
                outcome: game.outcome(self.0, 0),
            })
        }
    }
    let value = table.value(0, 0)?;
    R::visit(&table.header.game, Words(value))
}

/// The object `retro info --json` prints for `table`. With `check`, the value checksum is
/// verified first (the whole file is read) and `checksum_ok` is `true`; without, it is left
/// out and only the header and the root's entry are read.
pub fn info_json<R: Registry>(table: &Table, check: bool) -> Result<serde_json::Value> {
    let h = &table.header;
    let root = root_words::<R>(table)?;
    if check {
        table.verify_checksum()?;
    }
    let entries = h.total_positions();
    let covered = layer_positions::<R>(table)?;
    let positions: u64 = covered.iter().sum();
    let value_bytes = h.value_bytes();
    let cells = h.layers.len() - 1;
    let mut summary = serde_json::json!({
        "table": table.path().display().to_string(),
        "game": h.game.name(),
        "board": h.game.label(),
        "format_version": table.version,
        "value_type": h.value_type.name(),
        "encoding": match h.encoding {
            Encoding::Plain => "plain",
            Encoding::Blocked => "compact",
            Encoding::Moves { .. } => "moves",
        },
        "layers": h.layers.len(),
        "positions": positions,
        "entries": entries,
        "symmetries": h.symmetries,
        "layer_sizes": h.layers.iter().map(|l| l.positions).collect::<Vec<_>>(),
        "layer_positions": covered,
        "value_bytes": value_bytes,
        "bytes_per_position": value_bytes as f64 / positions as f64,
        "file_bytes": table.file_len,
        "checksum": format!("{:016x}", h.checksum),
        "root_value": root.value,
        "root": root.text,
    });
    if check {
        summary["checksum_ok"] = true.into();
    }
    if let Some(o) = root.outcome {
        // A game that ends in a win, a loss, a tie or a draw stores a code: named as one.
        if let Some(fields) = summary.as_object_mut() {
            fields.remove("root_value");
        }
        summary["root_code"] = root.value.into();
        summary["root_result"] = o.result.as_str().into();
        summary["root_remoteness"] = o.remoteness.into();
    }
    if let Encoding::Moves { values_every } = h.encoding {
        let lookups = h.encoding.lookups_per_value(cells);
        summary["values_every"] = values_every.into();
        summary["lookups_per_value"] = lookups.into();
        // A table of best moves keeps its block directories in memory: one read a lookup.
        summary["reads_per_value"] = lookups.into();
    }
    Ok(summary)
}

/// The positions each layer of the table answers for: its entries, or where the game folds
/// symmetric positions together, the positions of all its orbits.
pub fn layer_positions<R: Registry>(table: &Table) -> Result<Vec<u64>> {
    struct Covered;
    impl Visitor for Covered {
        type Output = Vec<u64>;
        fn visit<G: Registered>(self, game: G) -> Result<Vec<u64>> {
            Ok((0..=game.last_layer())
                .map(|k| game.layer_positions(k))
                .collect())
        }
    }
    R::visit(&table.header.game, Covered)
}
