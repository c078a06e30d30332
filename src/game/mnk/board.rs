//! The mnk board: its input format and the size checks.

use serde::{Deserialize, Serialize};

use super::*;
use crate::game::Board;
use crate::random::SplitMix;

/// An m,n,k board: `rows` x `cols` cells, `k` in a row to win.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MnkBoard {
    /// Rows R.
    pub rows: usize,
    /// Columns C.
    pub cols: usize,
    /// Marks in a row that win (K).
    pub k: usize,
}

/// What the input must look like, for error messages.
const FORM: &str =
    "expected `R C K` (e.g. `4 4 4`), `RxCkK` (e.g. `4x4k4`), or `R C` / `RxC` for K = min(R, C)";

impl Board for MnkBoard {
    fn check(&self) -> Result<()> {
        Self::checked(self.rows, self.cols, self.k).map(drop)
    }

    /// `R C K`, `RxCkK`, or either without K (K = min(R, C)).
    fn parse(text: &str) -> Result<Self> {
        Self::parse_text(text)
    }

    /// The size asked for, with K = min(R, C): there is nothing to draw at random.
    fn random(rows: usize, cols: usize, _rng: &mut SplitMix, _max: u64) -> Result<Self> {
        Self::checked(rows, cols, rows.min(cols))
    }

    /// The board's label (`4x4k4`), as connect writes its boards and as `info` and the
    /// table names show it; `parse` reads it back.
    fn to_input(&self) -> String {
        format!("{}\n", self.label())
    }

    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    fn label(&self) -> String {
        format!("{}x{}k{}", self.rows, self.cols, self.k)
    }

    fn size_words(&self) -> String {
        format!("{} x {}, {} in a row", self.rows, self.cols, self.k)
    }
}

impl MnkBoard {
    /// The board, refused unless 1 <= K <= max(R, C) and the board has 1 to `MAX_CELLS`
    /// cells.
    pub fn checked(rows: usize, cols: usize, k: usize) -> Result<Self> {
        if rows == 0 || cols == 0 || rows.saturating_mul(cols) > MAX_CELLS {
            return Err(Error::input(format!(
                "mnk board {rows} x {cols}: a board has 1 to {MAX_CELLS} cells"
            )));
        }
        if k == 0 || k > rows.max(cols) {
            return Err(Error::input(format!(
                "mnk line length K = {k} on a {rows} x {cols} board: K must be from 1 to {}",
                rows.max(cols)
            )));
        }
        Ok(MnkBoard { rows, cols, k })
    }

    fn parse_text(text: &str) -> Result<Self> {
        let (r, c, k) = lines::parse_size_k(text, "mnk", FORM)?;
        Self::checked(r, c, k.unwrap_or(r.min(c)))
    }
}
