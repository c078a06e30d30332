//! The CSV sink: rows as lines, a header line first.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{MoveRow, MoveSink, Row, RowSink, columns_of, move_columns_of, move_numbers};
use crate::error::{Result, io_error};
use crate::game::MoveNotation;

/// Rows as CSV with a header line naming `columns`, to a file or a stream.
pub struct CsvSink<W: Write = File> {
    lines: Lines<W>,
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
        CsvSink {
            lines: Lines::new(
                file,
                path,
                &columns_of(notation, outcomes, orbits, hands, to_move),
            ),
            notation,
            outcomes,
            orbits,
            hands,
        }
    }
}

/// The lines of a CSV file: the header, then one row at a time.
struct Lines<W: Write> {
    out: BufWriter<W>,
    path: PathBuf,
    /// The row being made (at first the header, written with the first row).
    line: String,
}

impl<W: Write> Lines<W> {
    fn new(file: W, path: &Path, columns: &[&str]) -> Lines<W> {
        let mut head = columns.join(",");
        head.push('\n');
        Lines {
            out: BufWriter::with_capacity(1 << 20, file),
            path: path.to_path_buf(),
            line: head,
        }
    }

    /// Ends the row being made and writes it.
    fn end_row(&mut self) -> Result<()> {
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
        let line = &mut self.lines.line;
        push_field(line, row.position);
        // Writing to a String cannot fail.
        let _ = write!(line, ",{},", row.stones);
        if self.hands {
            let [x, o] = row.hands.unwrap_or([0, 0]);
            let _ = write!(line, "{x},{o},");
        }
        let _ = write!(line, "{},{},", row.to_move, row.value);
        if let Some(best) = &row.best_text {
            push_field(line, best);
        }
        if self.outcomes {
            match row.outcome {
                Some(o) => {
                    let _ = write!(line, ",{},{}", o.result.as_str(), o.remoteness);
                }
                None => line.push_str(",,"),
            }
        }
        // Not known: an empty field, as pandas reads a missing value.
        match row.reachable {
            Some(reached) => {
                let _ = write!(line, ",{reached}");
            }
            None => line.push(','),
        }
        for number in move_numbers(self.notation, row.best) {
            line.push(',');
            if let Some(n) = number {
                let _ = write!(line, "{n}");
            }
        }
        if self.orbits {
            let _ = write!(line, ",{}", row.orbit.unwrap_or(1));
        }
        self.lines.end_row()
    }

    fn finish(self) -> Result<W> {
        self.lines.finish()
    }
}

/// `export --moves`'s rows as CSV with a header line (`move_columns_of`).
pub struct MoveCsvSink<W: Write = File> {
    lines: Lines<W>,
    outcomes: bool,
    orbits: bool,
}

impl<W: Write> MoveCsvSink<W> {
    /// A sink writing to `file` (at `path`, for messages): `outcomes` for a game with
    /// results (their columns, else the value's), `orbits` the `orbit_size` column last.
    pub fn new(file: W, path: &Path, outcomes: bool, orbits: bool) -> MoveCsvSink<W> {
        MoveCsvSink {
            lines: Lines::new(file, path, &move_columns_of(outcomes, orbits)),
            outcomes,
            orbits,
        }
    }
}

impl<W: Write> MoveSink for MoveCsvSink<W> {
    type Output = W;

    fn push(&mut self, row: &MoveRow<'_>) -> Result<()> {
        let line = &mut self.lines.line;
        for (i, field) in [row.position, row.mv, row.child].into_iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            push_field(line, field);
        }
        // Writing to a String cannot fail.
        match (self.outcomes, row.outcome) {
            (true, Some(o)) => {
                let _ = write!(line, ",{},{}", o.result.as_str(), o.remoteness);
            }
            (true, None) => line.push_str(",,"),
            (false, _) => {
                let _ = write!(line, ",{}", row.value);
            }
        }
        if self.orbits {
            let _ = write!(line, ",{}", row.orbit.unwrap_or(1));
        }
        self.lines.end_row()
    }

    fn finish(self) -> Result<W> {
        self.lines.finish()
    }
}
