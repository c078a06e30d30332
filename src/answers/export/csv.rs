//! The CSV sink: rows as lines, a header line first.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{Row, RowSink, columns_of, move_numbers};
use crate::error::{Result, io_error};
use crate::game::MoveNotation;

/// Rows as CSV with a header line naming `columns`, to a file or a stream.
pub struct CsvSink<W: Write = File> {
    out: BufWriter<W>,
    path: PathBuf,
    line: String,
    notation: MoveNotation,
    outcomes: bool,
    orbits: bool,
    hands: bool,
}

impl<W: Write> CsvSink<W> {
    /// A sink writing to `file` (at `path`, for messages), moves in `notation`; `outcomes`
    /// adds the result and remoteness columns, `orbits` the `orbit_size` column last,
    /// `hands` the stones in hand; `to_move` names the values as the side to move's.
    pub fn new(
        file: W,
        path: &Path,
        notation: MoveNotation,
        outcomes: bool,
        orbits: bool,
        hands: bool,
        to_move: bool,
    ) -> CsvSink<W> {
        let mut head = columns_of(notation, outcomes, orbits, hands, to_move).join(",");
        head.push('\n');
        CsvSink {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            line: head,
            notation,
            outcomes,
            orbits,
            hands,
        }
    }
}

/// A CSV field, quoted when it holds a separator (young positions and moves hold commas).
fn push_field(line: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        line.push('"');
        line.push_str(&field.replace('"', "\"\""));
        line.push('"');
    } else {
        line.push_str(field);
    }
}

impl<W: Write> RowSink for CsvSink<W> {
    type Output = W;

    fn push(&mut self, row: &Row<'_>) -> Result<()> {
        push_field(&mut self.line, row.position);
        // Writing to a String cannot fail.
        let _ = write!(self.line, ",{},", row.stones);
        if self.hands {
            let [x, o] = row.hands.unwrap_or([0, 0]);
            let _ = write!(self.line, "{x},{o},");
        }
        let _ = write!(self.line, "{},{},", row.to_move, row.value);
        if let Some(best) = &row.best_text {
            push_field(&mut self.line, best);
        }
        if self.outcomes {
            match row.outcome {
                Some(o) => {
                    let _ = write!(self.line, ",{},{}", o.result.as_str(), o.remoteness);
                }
                None => self.line.push_str(",,"),
            }
        }
        // Not known: an empty field, as pandas reads a missing value.
        match row.reachable {
            Some(reached) => {
                let _ = write!(self.line, ",{reached}");
            }
            None => self.line.push(','),
        }
        for number in move_numbers(self.notation, row.best) {
            self.line.push(',');
            if let Some(n) = number {
                let _ = write!(self.line, "{n}");
            }
        }
        if self.orbits {
            let _ = write!(self.line, ",{}", row.orbit.unwrap_or(1));
        }
        self.line.push('\n');
        // One write per line keeps the header (in `line` from the start) and the rows on
        // the same path; the BufWriter makes it cheap.
        let written = self.out.write_all(self.line.as_bytes());
        self.line.clear();
        written.map_err(|e| io_error(&self.path, e))
    }

    fn finish(mut self) -> Result<W> {
        if !self.line.is_empty() {
            // No rows at all: the header alone.
            self.out
                .write_all(self.line.as_bytes())
                .map_err(|e| io_error(&self.path, e))?;
        }
        self.out
            .into_inner()
            .map_err(|e| io_error(&self.path, e.into_error()))
    }
}
