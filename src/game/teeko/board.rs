//! The Teeko board: its size, stones and rules (`TeekoBoard`), and its input format (`5x5`,
//! `4x4s3`, `advanced`, `no-centre-first`).

use super::*;
use crate::game::Board;
use crate::random::SplitMix;

/// A Teeko board: its size, the stones each player has, the patterns and the first-drop rule.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TeekoBoard {
    /// Rows R.
    pub rows: usize,
    /// Columns C.
    pub cols: usize,
    /// Stones each player has (S).
    pub stones: usize,
    /// The corners of squares larger than 2 x 2 win too (S = 4).
    pub advanced: bool,
    /// x's first drop may not be on the centre cell (boards with a centre).
    pub no_centre_first: bool,
}

impl TeekoBoard {
    /// Standard Teeko: 5 x 5, 4 stones each.
    pub fn standard() -> TeekoBoard {
        TeekoBoard {
            rows: 5,
            cols: 5,
            stones: 4,
            advanced: false,
            no_centre_first: false,
        }
    }

    /// The board, refused unless both players' stones fit with a cell to spare and a
    /// first-drop rule has a centre to keep x off.
    pub fn checked(self) -> Result<TeekoBoard> {
        let cells = self.rows.saturating_mul(self.cols);
        if self.rows == 0 || self.cols == 0 || cells > 36 {
            return Err(Error::input(format!(
                "teeko board {} x {}: a board has 1 to 36 cells",
                self.rows, self.cols
            )));
        }
        // 2s >= cells, without doubling a count that may be near usize::MAX.
        if self.stones == 0 || self.stones >= cells.div_ceil(2) {
            return Err(Error::input(format!(
                "teeko with {} stones each on {} cells: the stones must leave a cell free",
                self.stones, cells
            )));
        }
        // A pattern is S in a line along a row, a column or a diagonal (none is longer than
        // the longer side), or for S = 4 a square's corners: without one, no one could win.
        let square = self.stones == 4 && self.rows.min(self.cols) >= 2;
        if self.stones > self.rows.max(self.cols) && !square {
            return Err(Error::input(format!(
                "teeko with {} stones each on {} x {}: no line of {} fits the board, so no one could ever win; at most {} stones each",
                self.stones,
                self.rows,
                self.cols,
                self.stones,
                self.rows.max(self.cols).min(cells.div_ceil(2) - 1)
            )));
        }
        if self.no_centre_first && (self.rows.is_multiple_of(2) || self.cols.is_multiple_of(2)) {
            return Err(Error::input(format!(
                "teeko no-centre-first needs a board with a centre cell (odd rows and odd columns); {} x {} has none",
                self.rows, self.cols
            )));
        }
        Ok(self)
    }
}

/// What the input must look like, for error messages.
const FORM: &str = "expected nothing (standard Teeko, 5x5 with 4 stones each), or `RxC` or `RxCsS` (S stones each; default 4, or fewer on a small board), then `advanced` and/or `no-centre-first`, e.g. `5x5 advanced`";

/// The stones each player has when the input does not say: 4, or fewer on a small board
/// (as many as the shorter side, and a cell must stay free).
fn default_stones(rows: usize, cols: usize) -> usize {
    let cells = rows.saturating_mul(cols);
    4.min(rows.min(cols))
        .min(cells.saturating_sub(1) / 2)
        .max(1)
}

impl Board for TeekoBoard {
    fn check(&self) -> Result<()> {
        self.clone().checked().map(drop)
    }

    fn parse(text: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::input(format!(
                "bad teeko board {}: {why}; {FORM}",
                crate::error::excerpt(text.trim())
            ))
        };
        let lower = text.trim().to_ascii_lowercase();
        // `no-centre-first` holds the separator the label uses between words.
        let lower = lower
            .replace("no-centre-first", "nocentre")
            .replace("no-center-first", "nocentre");
        let mut board = TeekoBoard::standard();
        let mut sized = false;
        let mut given: Vec<&str> = Vec::new();
        for word in lower.split(|c: char| c.is_whitespace() || c == '-') {
            // Each option once: a word given twice is refused, as is a second size.
            if matches!(word, "standard" | "advanced" | "nocentre") {
                if given.contains(&word) {
                    let name = if word == "nocentre" {
                        "no-centre-first"
                    } else {
                        word
                    };
                    return Err(bad(&format!("{name} given twice")));
                }
                given.push(word);
            }
            if sized && word.contains('x') {
                return Err(bad(&format!(
                    "a second size {}: give the size once",
                    crate::error::excerpt(word)
                )));
            }
            match word {
                "" | "standard" => {}
                "advanced" => board.advanced = true,
                "nocentre" => board.no_centre_first = true,
                size if !sized && size.contains('x') => {
                    sized = true;
                    let (dims, s) = match size.split_once('s') {
                        Some((dims, s)) => (dims, Some(s)),
                        None => (size, None),
                    };
                    let number = |t: &str| t.parse::<usize>().map_err(|_| bad("a size is RxC"));
                    let (r, c) = dims.split_once('x').ok_or_else(|| bad("a size is RxC"))?;
                    board.rows = number(r)?;
                    board.cols = number(c)?;
                    board.stones = match s {
                        Some(s) => number(s)?,
                        None => default_stones(board.rows, board.cols),
                    };
                }
                _ => {
                    return Err(bad(&format!(
                        "unknown word {}",
                        crate::error::excerpt(word)
                    )));
                }
            }
        }
        board.checked()
    }

    /// The size asked for, with the default stones: there is nothing to draw at random.
    fn random(rows: usize, cols: usize, _rng: &mut SplitMix, _max: u64) -> Result<Self> {
        TeekoBoard {
            rows,
            cols,
            stones: default_stones(rows, cols),
            advanced: false,
            no_centre_first: false,
        }
        .checked()
    }

    fn to_input(&self) -> String {
        format!(
            "{}\n",
            self.label()
                .replace('-', " ")
                .replace("no centre first", "no-centre-first")
        )
    }

    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    fn label(&self) -> String {
        let mut out = format!("{}x{}", self.rows, self.cols);
        if self.stones != default_stones(self.rows, self.cols) {
            out.push_str(&format!("s{}", self.stones));
        }
        if self.advanced {
            out.push_str("-advanced");
        }
        if self.no_centre_first {
            out.push_str("-no-centre-first");
        }
        out
    }

    fn size_words(&self) -> String {
        let mut out = format!("{} x {}, {} stones each", self.rows, self.cols, self.stones);
        if self.advanced {
            out.push_str(", advanced (corners of squares win)");
        }
        if self.no_centre_first {
            out.push_str(", no first drop in the centre");
        }
        out
    }
}
