//! What a table holds, as `retro info --json` prints it: one function, so the command line
//! and library callers (the Python package) give the same object.

use crate::error::Result;
use crate::game::{Gameplay, Outcome, Registered, Registry, Visitor};
use crate::table::{Encoding, Table};

/// The root's value in its game's words (`Gameplay::root_text`), and its outcome where the
/// game ends in a win, a loss, a tie or a draw. A table without a start has no root: its
/// value, outcome and `opening` are those of the position it opens on
/// (`Gameplay::opening`), named.
pub struct RootWords {
    /// The start's value (a table without one: its opening's).
    pub value: i64,
    /// The value in words ("2", "o completes a line at ply 24, o's 12th stone"), or "none
    /// (this table has no start)".
    pub text: String,
    /// The result and remoteness for the side to move, where the game has them.
    pub outcome: Option<Outcome>,
    /// A table without a start: the position it opens on, and its value in words for the
    /// side to move there.
    pub opening: Option<(String, String)>,
}

impl RootWords {
    /// Of `game`'s table `table`: the start's value, or where there is none, the value
    /// of the position the table opens on.
    pub fn of<G: Gameplay>(game: &G, table: &Table) -> Result<RootWords> {
        let Some(start) = game.start_position() else {
            let (pos, _) = game.opening();
            let k = game.layer_of(&pos);
            let value = table.value(k, game.rank(&pos))?;
            return Ok(RootWords {
                value,
                text: game.root_text(value),
                outcome: game.outcome(value, k),
                opening: Some((
                    game.format_position(&pos),
                    game.describe_value_at(value, &pos),
                )),
            });
        };
        let value = table.value(game.layer_of(&start), game.rank(&start))?;
        Ok(RootWords {
            value,
            text: game.root_text(value),
            outcome: game.outcome(value, 0),
            opening: None,
        })
    }

    /// The summary line's words: the root value, or where there is none, where the table
    /// opens and its value there.
    pub fn line(&self) -> String {
        match &self.opening {
            Some((pos, words)) => format!("{}; it opens on {pos}, where {words}", self.text),
            None => self.text.clone(),
        }
    }

    /// Into `build --json`'s or `info --json`'s object: `root_value` for a game of scores,
    /// `root_code`, `root_result` and `root_remoteness` for one with outcomes, and for a
    /// table without a start `root_position`, the position they belong to.
    pub fn add_to(&self, out: &mut serde_json::Value) {
        match self.outcome {
            Some(o) => {
                if let Some(fields) = out.as_object_mut() {
                    fields.remove("root_value");
                }
                out["root_code"] = self.value.into();
                out["root_result"] = o.result.as_str().into();
                out["root_remoteness"] = o.remoteness.into();
            }
            None => out["root_value"] = self.value.into(),
        }
        if let Some((pos, _)) = &self.opening {
            out["root_position"] = pos.as_str().into();
        }
    }
}

/// The empty board's value of `table`, in its game's words; `R` is the registry its game
/// is in.
pub fn root_words<R: Registry>(table: &Table) -> Result<RootWords> {
    struct Words<'a>(&'a Table);
    impl Visitor for Words<'_> {
        type Output = RootWords;
        fn visit<G: Registered>(self, game: G) -> Result<RootWords> {
            RootWords::of(&game, self.0)
        }
    }
    R::visit(&table.header.game, Words(table))
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
        "value_bytes_per_position": value_bytes as f64 / positions as f64,
        "file_bytes": table.file_len,
        "checksum": format!("{:016x}", h.checksum),
        "root": root.text,
        // What `export` and the Python package's data frames name the values: seen from
        // the first player, or from the side to move.
        "value_column": value_column::<R>(table)?,
    });
    if check {
        summary["checksum_ok"] = true.into();
    }
    // Only a game with lumped layers gets the key, so other tables' objects stay as they were.
    let lumped = lumped_layers::<R>(table)?;
    if !lumped.is_empty() {
        summary["lumped_layers"] = lumped.iter().map(|&(k, _)| k).collect::<Vec<_>>().into();
    }
    // A game that ends in a win, a loss, a tie or a draw stores a code: named as one.
    root.add_to(&mut summary);
    if let Encoding::Moves { values_every } = h.encoding {
        let lookups = h.encoding.lookups_per_value(cells);
        summary["values_every"] = values_every.into();
        summary["lookups_per_value"] = lookups.into();
        // A table of best moves keeps its block directories in memory: one read a lookup.
        summary["reads_per_value"] = lookups.into();
    }
    Ok(summary)
}

/// The name `export` gives the table's values (`export::value_column`): `value_to_move`
/// for a game whose values are for the side to move, else `value`.
pub fn value_column<R: Registry>(table: &Table) -> Result<&'static str> {
    struct Named;
    impl Visitor for Named {
        type Output = &'static str;
        fn visit<G: Registered>(self, game: G) -> Result<&'static str> {
            Ok(crate::answers::export::value_column(
                game.values().for_side_to_move(),
            ))
        }
    }
    R::visit(&table.header.game, Named)
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

/// The table's lumped layers (`Game::lumped`: one entry for all of a layer's positions,
/// which share one value) with their positions: counted, not stored.
pub fn lumped_layers<R: Registry>(table: &Table) -> Result<Vec<(usize, u64)>> {
    struct Lumped;
    impl Visitor for Lumped {
        type Output = Vec<(usize, u64)>;
        fn visit<G: Registered>(self, game: G) -> Result<Vec<(usize, u64)>> {
            Ok((0..=game.last_layer())
                .filter(|&k| game.lumped(k))
                .map(|k| (k, game.layer_positions(k)))
                .collect())
        }
    }
    R::visit(&table.header.game, Lumped)
}
