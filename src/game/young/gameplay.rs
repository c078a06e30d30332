//! What people see of young: its notation, drawing and words (`Gameplay`), and its
//! name and board (`Registered`).

use super::*;
use crate::game::{Gameplay, Registered};

impl Gameplay for Young {
    fn describe_value(&self, value: i64) -> String {
        let lead = match value {
            0 => "level: neither side gains over the stones to come".to_string(),
            v if v > 0 => format!("first leads by {v} over the stones to come"),
            v => format!(
                "second leads by {} over the stones to come",
                v.unsigned_abs()
            ),
        };
        format!("{value} ({lead}; first's minus second's score)")
    }

    fn draw_weights(&self) -> Option<String> {
        let (rows, cols) = (self.board.rows, self.board.cols);
        let grid = |w: &[i64]| number_grid(rows, cols, |i, j| w[i * cols + j].to_string());
        Some(format!(
            "first's weights (a: first earns a cell's a by playing there):\n{}\
             second's weights (b: second earns a cell's b by playing there):\n{}",
            grid(&self.board.a),
            grid(&self.board.b)
        ))
    }

    fn value_meaning(&self) -> &'static str {
        "value: first's minus second's score over the stones still to come, with perfect play"
    }

    fn parse_position(&self, text: &str) -> Result<YoungPosition> {
        let bad = |why: String| {
            Error::input(format!(
                "bad young position {}: {why}; {}",
                crate::error::excerpt(text),
                self.position_form()
            ))
        };
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("empty") {
            return Ok(self.position_from_rows(vec![0; self.n]));
        }
        if trimmed.is_empty() {
            return Err(bad("no position given".into()));
        }
        if crate::game::twins::looks_like_position(trimmed) {
            return Err(bad(format!(
                "this is a young table; {} looks like a twins position",
                crate::error::excerpt(trimmed)
            )));
        }
        let parts: Vec<&str> = trimmed.split(',').map(str::trim).collect();
        if parts.len() > self.n {
            return Err(bad(format!(
                "expected at most {} comma-separated row lengths, found {}",
                self.n,
                parts.len()
            )));
        }
        let mut rows = Vec::with_capacity(self.n);
        for (i, p) in parts.iter().enumerate() {
            let r: u32 = p
                .parse()
                .map_err(|_| bad(format!("row {} ({p:?}) is not a row length", i + 1)))?;
            if r as usize > self.m {
                return Err(bad(format!(
                    "row {} has length {r}, above the width {}",
                    i + 1,
                    self.m
                )));
            }
            if let Some(&prev) = rows.last()
                && r > prev
            {
                return Err(bad(format!(
                    "row {} ({r}) is longer than the row above ({prev}); lengths must not increase",
                    i + 1
                )));
            }
            rows.push(r);
        }
        // Rows left off are empty, so `3,1` on a 4-row board is `3,1,0,0`.
        rows.resize(self.n, 0);
        Ok(self.position_from_rows(rows))
    }

    fn format_position(&self, pos: &YoungPosition) -> String {
        let parts: Vec<String> = pos.rows.iter().map(|r| r.to_string()).collect();
        parts.join(",")
    }

    fn draw(&self, pos: &YoungPosition) -> String {
        let mut out = String::new();
        for i in 0..self.n {
            let r = pos.rows[i] as usize;
            let cap = self.room(pos, i);
            // Spaced like twins' drawing, so both games read alike.
            for j in 0..self.m {
                if j > 0 {
                    out.push(' ');
                }
                out.push(if j < r {
                    '#'
                } else if j == r && r < cap {
                    '+'
                } else {
                    '.'
                });
            }
            out.push('\n');
        }
        out
    }
}

impl Registered for Young {
    const NAME: &'static str = "young";
    type Board = YoungBoard;

    fn new(board: YoungBoard) -> Result<Self> {
        Young::new(board)
    }

    fn board(&self) -> &YoungBoard {
        &self.board
    }

    fn notation() -> crate::game::Notation {
        crate::game::Notation {
            summary: "stones fill a staircase from the top-left corner; each cell pays the player who fills it its weight",
            board: "a file: `n m`, then n rows of m weights a (the first player's), then n rows of m weights b",
            position: "row lengths, top row first: `3,1,0`",
            moves: "a cell `row,col`, 1-based, row 1 the top: `1,2`",
            marks: None,
        }
    }
}

/// A grid of numbers under 1-based column labels and beside 1-based row labels, each
/// column as wide as its widest entry: `play`'s drawing of a board's weights.
fn number_grid(rows: usize, cols: usize, at: impl Fn(usize, usize) -> String) -> String {
    let cells: Vec<Vec<String>> = (0..rows)
        .map(|i| (0..cols).map(|j| at(i, j)).collect())
        .collect();
    let width = |j: usize| {
        cells
            .iter()
            .map(|row| row[j].len())
            .chain([(j + 1).to_string().len()])
            .max()
            .unwrap_or(1)
    };
    let widths: Vec<usize> = (0..cols).map(width).collect();
    let rw = rows.to_string().len();
    let mut out = format!("{:rw$} ", "");
    for (j, w) in widths.iter().enumerate() {
        out.push_str(&format!(" {:>w$}", j + 1));
    }
    out.push('\n');
    for (i, row) in cells.iter().enumerate() {
        out.push_str(&format!("{:>rw$} ", i + 1));
        for (cell, w) in row.iter().zip(&widths) {
            out.push_str(&format!(" {cell:>w$}"));
        }
        out.push('\n');
    }
    out
}
