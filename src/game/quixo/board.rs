//! The Quixo board: its input format (`4x4`, `4`; 5 x 5 when none is given), and the part
//! of the game it holds (`min=N`: the positions with at least N cubes taken).

use serde::{Deserialize, Serialize};

use super::*;
use crate::game::Board;
use crate::random::SplitMix;

/// A Quixo board: N x N cubes, and the least number of cubes taken in its positions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuixoBoard {
    /// Cubes on a side (N).
    pub n: usize,
    /// The table holds the positions with at least this many cubes taken (0: the whole
    /// game). Taking a cube is for good, so no move leaves them.
    pub min: usize,
}

/// The board as retro wrote it before `min`.
#[derive(Deserialize)]
struct BoardBeforeMin {
    n: usize,
}

const FORM: &str = "expected `NxN` or `N` with N from 2 to 5 (e.g. `4x4`), or nothing for 5 x 5, then optionally `min=M` for the positions with at least M cubes taken (`5x5 min=22`)";

impl Board for QuixoBoard {
    fn check(&self) -> Result<()> {
        self.clone().checked().map(drop)
    }

    fn parse(text: &str) -> Result<Self> {
        let t = text.trim().to_ascii_lowercase();
        let bad = || {
            Error::input(format!(
                "bad quixo board {}: {FORM}",
                crate::error::excerpt(&t)
            ))
        };
        // The size, then options, apart by spaces or dashes (`5x5-min=22`, as `label`
        // writes it).
        let mut words = t.split(|c: char| c.is_whitespace() || c == '-');
        let size = words.next().unwrap_or("");
        let mut min = None;
        for word in words.filter(|w| !w.is_empty()) {
            match word.strip_prefix("min=") {
                Some(m) if min.is_none() => {
                    min = Some(m.parse::<usize>().map_err(|_| bad())?);
                }
                Some(_) => return Err(Error::input("min= given twice: give min=N once")),
                None => return Err(bad()),
            }
        }
        let n = match size.split_once('x') {
            _ if size.is_empty() => 5,
            Some((a, b)) => {
                let (a, b) = (a.trim().parse::<usize>(), b.trim().parse::<usize>());
                match (a, b) {
                    (Ok(a), Ok(b)) if a == b => a,
                    (Ok(a), Ok(b)) => {
                        return Err(Error::input(format!(
                            "quixo {a} x {b}: the board is square"
                        )));
                    }
                    _ => return Err(bad()),
                }
            }
            None => size.parse::<usize>().map_err(|_| bad())?,
        };
        QuixoBoard {
            n,
            min: min.unwrap_or(0),
        }
        .checked()
    }

    fn random(rows: usize, cols: usize, _rng: &mut SplitMix, _max: u64) -> Result<Self> {
        if rows != cols {
            return Err(Error::input(format!(
                "quixo {rows} x {cols}: the board is square"
            )));
        }
        QuixoBoard { n: rows, min: 0 }.checked()
    }

    fn to_input(&self) -> String {
        format!("{}\n", self.label())
    }

    fn dims(&self) -> (usize, usize) {
        (self.n, self.n)
    }

    fn label(&self) -> String {
        match self.min {
            0 => format!("{}x{}", self.n, self.n),
            m => format!("{}x{}-min={m}", self.n, self.n),
        }
    }

    fn size_words(&self) -> String {
        match self.min {
            0 => format!("{} x {}", self.n, self.n),
            m => format!(
                "{} x {}, the positions with at least {m} cubes taken",
                self.n, self.n
            ),
        }
    }

    fn layer_words(&self, layers: usize) -> String {
        format!(
            "{layers}: by the cubes of each side, {}..={} cubes taken",
            self.min,
            self.n * self.n
        )
    }

    fn decode_earlier(bytes: &[u8]) -> Option<(Self, usize)> {
        let config = crate::game::registry::board_config();
        let (b, used): (BoardBeforeMin, usize) =
            bincode::serde::decode_from_slice(bytes, config).ok()?;
        Some((QuixoBoard { n: b.n, min: 0 }, used))
    }
}

impl QuixoBoard {
    /// The board, refused unless 2 <= N <= 5 and `min` is at most N^2.
    pub fn checked(self) -> Result<Self> {
        if !(2..=5).contains(&self.n) {
            return Err(Error::input(format!(
                "quixo {n} x {n}: the board is 2 x 2 to 5 x 5",
                n = self.n
            )));
        }
        let cells = self.n * self.n;
        if self.min > cells {
            return Err(Error::input(format!(
                "quixo {n} x {n} min={m}: the board has {cells} cubes, so min is 0 to {cells}",
                n = self.n,
                m = self.min
            )));
        }
        Ok(self)
    }
}
