//! A grid with the side to move after it (`x./.o:x`), as people see the positions of the
//! games whose stones move (Teeko, Quixo) and mnk's: reading, writing and naming cells and
//! moves. Their values are the side-to-move model's (`values::Wdl`).

use crate::error::{Error, Result};

/// A grid position read from text: cells (0 empty, 1 x, 2 o; row-major from the top) and
/// the side to move if the text names one (`:x` / `:o`; 0 x, 1 o).
pub struct Grid {
    /// The cells.
    pub marks: Vec<u8>,
    /// The side named after the grid.
    pub side: Option<u8>,
}

/// Parse `rows` rows of `cols` cells (`x`, `o`, `.`, either case) separated by `/`, with an
/// optional `:x` or `:o` after them; `form` ends every error message.
pub fn parse_grid(text: &str, rows: usize, cols: usize, form: &str) -> Result<Grid> {
    let bad = |why: String| {
        Error::input(format!(
            "bad position {}: {why}; {form}",
            crate::error::excerpt(text)
        ))
    };
    let trimmed = text.trim();
    let (grid, side) = match trimmed.rsplit_once(':') {
        Some((grid, side)) => match side.trim().to_ascii_lowercase().as_str() {
            "x" => (grid, Some(0)),
            "o" => (grid, Some(1)),
            other => {
                return Err(bad(format!(
                    "the side to move is :x or :o, not :{}",
                    crate::error::excerpt(other)
                )));
            }
        },
        None => (trimmed, None),
    };
    let grid = grid.trim();
    if grid.eq_ignore_ascii_case("empty") {
        return Ok(Grid {
            marks: vec![0; rows * cols],
            side,
        });
    }
    if grid.is_empty() {
        return Err(bad("no position given".into()));
    }
    let lines: Vec<&str> = grid.split('/').collect();
    if lines.len() != rows {
        return Err(bad(format!(
            "expected {rows} rows separated by '/', found {}",
            lines.len()
        )));
    }
    let mut marks = Vec::with_capacity(rows * cols);
    for (i, line) in lines.iter().enumerate() {
        let mut len = 0;
        for ch in line.trim().chars() {
            marks.push(match ch.to_ascii_lowercase() {
                '.' => 0,
                'x' => 1,
                'o' => 2,
                other => {
                    return Err(bad(format!(
                        "row {} holds {other:?}; cells are 'x', 'o' or '.'",
                        i + 1
                    )));
                }
            });
            len += 1;
        }
        if len != cols {
            return Err(bad(format!(
                "row {} has {len} cells, expected {cols}",
                i + 1
            )));
        }
    }
    Ok(Grid { marks, side })
}

/// Cells as rows of `x`, `o`, `.` separated by `/`, then `:x` or `:o` where `side` is given.
pub fn format_grid(marks: &[u8], cols: usize, side: Option<u8>) -> String {
    let mut out = crate::game::two_colour::format_marks(marks, cols, 'x', 'o');
    if let Some(side) = side {
        out.push_str(if side == 0 { ":x" } else { ":o" });
    }
    out
}

/// The cells of two masks (x's, o's) as marks.
pub fn marks_of(x: u64, o: u64, cells: usize) -> Vec<u8> {
    (0..cells)
        .map(|c| {
            if x >> c & 1 == 1 {
                1
            } else if o >> c & 1 == 1 {
                2
            } else {
                0
            }
        })
        .collect()
}

/// A cell as the players write it (1-based `row,col`).
pub fn cell_text((r, c): (usize, usize)) -> String {
    format!("{},{}", r + 1, c + 1)
}

/// A move as `play` takes it (`2,2`, or `1,1-2,2` for one taken from a cell).
pub fn move_text<P>(mv: &crate::game::Move<P>) -> String {
    match mv.from {
        Some(f) => format!("{}-{}", cell_text(f), cell_text((mv.row, mv.col))),
        None => cell_text((mv.row, mv.col)),
    }
}
