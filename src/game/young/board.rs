//! A young board and its contest input.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::game::{Board, check_weights, parse_integers};
use crate::random::SplitMix;

/// A young board: n rows, m columns, weights a (first player) and b (second), row-major.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct YoungBoard {
    /// Rows n.
    pub rows: usize,
    /// Columns m.
    pub cols: usize,
    /// The first player's weights, row-major.
    pub a: Vec<i64>,
    /// The second player's weights, row-major.
    pub b: Vec<i64>,
}

impl Board for YoungBoard {
    /// The contest input: `n m`, then n rows of a, then n rows of b. A young board carries
    /// its size, so `--rows/--cols` are refused.
    fn parse(text: &str) -> Result<Self> {
        Self::parse_contest(text)
    }

    fn random(rows: usize, cols: usize, rng: &mut SplitMix, max: u64) -> Result<Self> {
        let cells = rows * cols;
        Ok(YoungBoard {
            rows,
            cols,
            a: rng.weights(cells, max),
            b: rng.weights(cells, max),
        })
    }

    /// The contest input for this board (used by `retro gen`).
    fn to_input(&self) -> String {
        let mut out = format!("{} {}\n", self.rows, self.cols);
        for w in [&self.a, &self.b] {
            for row in w.chunks(self.cols) {
                let line: Vec<String> = row.iter().map(|x| x.to_string()).collect();
                out.push_str(&line.join(" "));
                out.push('\n');
            }
        }
        out
    }

    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
}

impl YoungBoard {
    /// Parse the contest input: `n m`, then n rows of a, then n rows of b.
    pub fn parse_contest(text: &str) -> Result<Self> {
        let nums = parse_integers(text)?;
        if nums.len() < 2 {
            return Err(Error::input("missing board size: expected `n m` first"));
        }
        let (n, m) = (nums[0], nums[1]);
        let found = nums.len() - 2;
        let fits = (1..=64).contains(&n)
            && (1..=64).contains(&m)
            && found as u64 == 2 * n as u64 * m as u64;
        if !fits && let Some(hint) = twins_hint(text, &nums) {
            return Err(Error::input(hint));
        }
        if n < 1 || m < 1 {
            return Err(Error::input(format!(
                "board size {n} x {m}: n and m must be at least 1"
            )));
        }
        if n > 64 || m > 64 {
            return Err(Error::input(format!(
                "board size {n} x {m} is too large: at most 64 rows and 64 columns"
            )));
        }
        let (n, m) = (n as usize, m as usize);
        let cells = n * m;
        if found != 2 * cells {
            let kind = if found < 2 * cells {
                "missing"
            } else {
                "extra"
            };
            return Err(Error::input(format!(
                "{kind} numbers: a {n} x {m} board needs {} weights (a then b), found {found}",
                2 * cells
            )));
        }
        let board = YoungBoard {
            rows: n,
            cols: m,
            a: nums[2..2 + cells].to_vec(),
            b: nums[2 + cells..].to_vec(),
        };
        check_weights("a", &board.a)?;
        check_weights("b", &board.b)?;
        Ok(board)
    }
}

/// For input that is not a young board: if its lines are laid out like a twins board
/// (which has no size line, so its first two weights were read as `n m`), say so, since
/// "board size 0 x 15" would send the reader looking in the wrong place. One line of
/// numbers fits a one-row twins board whatever it holds, so it proves nothing.
fn twins_hint(text: &str, nums: &[i64]) -> Option<String> {
    let non_blank = text.lines().filter(|l| !l.trim().is_empty()).count();
    if non_blank < 2 {
        return None;
    }
    let [n, m, rest @ ..] = nums else {
        return None;
    };
    let (r, c) = *crate::game::twins::sizes_by_layout(text, nums.len()).first()?;
    Some(format!(
        "expected `n m` then 2*n*m weights, but `{n} {m}` is followed by {} numbers; \
         this looks like a twins board ({} numbers in the rows of a {r} x {c} board, \
         without a size line)",
        rest.len(),
        nums.len()
    ))
}
