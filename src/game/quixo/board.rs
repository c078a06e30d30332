//! The Quixo board: its input format (`4x4`, `4`; 5 x 5 when none is given).

use serde::{Deserialize, Serialize};

use super::*;
use crate::game::Board;
use crate::random::SplitMix;

/// A Quixo board: N x N cubes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuixoBoard {
    /// Cubes on a side (N).
    pub n: usize,
}

const FORM: &str = "expected `NxN` or `N` with N from 2 to 5 (e.g. `4x4`), or nothing for 5 x 5";

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
        let n = match t.split_once('x') {
            _ if t.is_empty() => 5,
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
            None => t.parse::<usize>().map_err(|_| bad())?,
        };
        QuixoBoard { n }.checked()
    }

    fn random(rows: usize, cols: usize, _rng: &mut SplitMix, _max: u64) -> Result<Self> {
        if rows != cols {
            return Err(Error::input(format!(
                "quixo {rows} x {cols}: the board is square"
            )));
        }
        QuixoBoard { n: rows }.checked()
    }

    fn to_input(&self) -> String {
        format!("{}x{}\n", self.n, self.n)
    }

    fn dims(&self) -> (usize, usize) {
        (self.n, self.n)
    }
}

impl QuixoBoard {
    /// The board, refused unless 2 <= N <= 5.
    pub fn checked(self) -> Result<Self> {
        if !(2..=5).contains(&self.n) {
            return Err(Error::input(format!(
                "quixo {n} x {n}: the board is 2 x 2 to 5 x 5",
                n = self.n
            )));
        }
        Ok(self)
    }
}
