//! What games won by a line (mnk, connect) share: their values, the words for them, and
//! their board input `A B K` / `AxBkK`.
//!
//! The value of a position is seen from x, the first player: cells + 1 - p when x
//! completes a line at ply p, -(cells + 1 - p) when o does, 0 for a tie. Moves add nothing
//! (reward 0), so max/min over the children picks the fastest win and the slowest loss,
//! and the remoteness follows from the value and the stone count.

use super::{Outcome, Verdict};
use crate::error::{Error, Result};

/// The values of one board of `cells` cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WinLoss {
    /// Cells of the board: the longest game.
    pub cells: usize,
}

impl WinLoss {
    /// The value of a board with `stones` stones where x has a line (`x`) and o has one
    /// (`o`); None without a line. A board where both have one (which play never reaches)
    /// is given 0.
    #[inline]
    pub fn line_value(self, x: bool, o: bool, stones: usize) -> Option<i64> {
        let win = (self.cells + 1 - stones) as i64;
        match (x, o) {
            (false, false) => None,
            (true, false) => Some(win),
            (false, true) => Some(-win),
            (true, true) => Some(0),
        }
    }

    /// Every value lies in this range.
    pub fn value_range(self) -> (i64, i64) {
        (-(self.cells as i64), self.cells as i64)
    }

    fn winner(value: i64) -> &'static str {
        if value > 0 { "x" } else { "o" }
    }

    /// The ply at which the line of a nonzero value is completed.
    fn ply(self, value: i64) -> usize {
        (self.cells + 1).saturating_sub(value.unsigned_abs() as usize)
    }

    /// "ply 5, x's 3rd stone": a ply is one stone, x plays the odd ones and o the even
    /// ones, so people who count moves per player see where the line comes.
    fn ply_words(self, value: i64) -> String {
        let ply = self.ply(value);
        let winner = Self::winner(value);
        format!("ply {ply}, {winner}'s {} stone", ordinal(ply.div_ceil(2)))
    }

    /// `Game::describe_value`: the root's value in words, from x's side, without the
    /// stored number ("x completes a line at ply 9, x's 5th stone").
    pub fn describe_value(self, value: i64) -> String {
        if value == 0 {
            return "tie with best play".into();
        }
        format!(
            "{} completes a line at {}",
            Self::winner(value),
            self.ply_words(value)
        )
    }

    /// `Game::value_meaning`: what the stored number is (a code: `query --json` gives it
    /// as `code`, and `result` and `remoteness` besides).
    pub fn value_meaning() -> &'static str {
        "value: cells + 1 - p when x (first) completes a line at ply p, minus that when o does, \
         0 for a tie; a ply is one stone (ply 5 is x's 3rd)"
    }

    /// `Game::describe_value_at`: the result and the remoteness for the side to move, in
    /// words.
    pub fn describe_value_at(self, value: i64, stones: usize) -> String {
        let o = self.outcome(value, stones);
        let side = if stones.is_multiple_of(2) { "x" } else { "o" };
        let r = o.remoteness;
        match (o.result, r) {
            (Verdict::Tie, 0) => "a tie: the board is full".into(),
            (Verdict::Tie | Verdict::Draw, _) => {
                format!("tie with best play (remoteness {r}: the board fills)")
            }
            (_, 0) => format!(
                "{} has won (a line at {})",
                Self::winner(value),
                self.ply_words(value)
            ),
            (Verdict::Win, _) => format!("{side} to move wins in {r} (remoteness {r})"),
            (Verdict::Loss, _) => format!("{side} to move loses in {r} (remoteness {r})"),
        }
    }

    /// `Game::outcome`.
    pub fn outcome(self, value: i64, stones: usize) -> Outcome {
        if value == 0 {
            return Outcome {
                result: Verdict::Tie,
                remoteness: self.cells.saturating_sub(stones),
            };
        }
        let x_to_move = stones.is_multiple_of(2);
        Outcome {
            result: if (value > 0) == x_to_move {
                Verdict::Win
            } else {
                Verdict::Loss
            },
            remoteness: self.ply(value).saturating_sub(stones),
        }
    }

    /// Why a position with these lines (as cell masks, of x and of o) cannot arise in
    /// play, None if it can as far as lines tell. `last` holds the cells the last move
    /// could have been played on (every empty-board cell for mnk; the top stone of each
    /// column for connect): the mover's lines must all pass through one of them.
    pub fn unreachable(
        stones: usize,
        (x, x_lines): (u64, &[u64]),
        (o, o_lines): (u64, &[u64]),
        last: u64,
    ) -> Option<&'static str> {
        let x_last = stones % 2 == 1;
        match (x_lines.is_empty(), o_lines.is_empty()) {
            (true, true) => None,
            (false, false) => Some("both x and o have a line"),
            (false, true) if !x_last => Some("x has a line but o moved last"),
            (true, false) if x_last => Some("o has a line but x moved last"),
            // The last move made every line the mover has, so they share a cell it could
            // have been played on.
            (false, true) if x_lines.iter().fold(x & last, |m, &l| m & l) == 0 => {
                Some("x has lines that no single move completed")
            }
            (true, false) if o_lines.iter().fold(o & last, |m, &l| m & l) == 0 => {
                Some("o has lines that no single move completed")
            }
            _ => None,
        }
    }
}

/// Every K cells in a row, a column, a diagonal or an anti-diagonal of a `rows` x `cols`
/// grid, as masks with cell (i, j) at bit `bit(i, j)`.
pub fn lines(rows: usize, cols: usize, k: usize, bit: impl Fn(usize, usize) -> u32) -> Vec<u64> {
    let (r, c, k) = (rows as i64, cols as i64, k as i64);
    let mut lines = Vec::new();
    for (di, dj) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for i in 0..r {
            for j in 0..c {
                let (ei, ej) = (i + di * (k - 1), j + dj * (k - 1));
                if !(0..r).contains(&ei) || !(0..c).contains(&ej) {
                    continue;
                }
                let mask = (0..k).fold(0u64, |m, t| {
                    m | 1 << bit((i + di * t) as usize, (j + dj * t) as usize)
                });
                // With K = 1 every direction gives the same one-cell line.
                if !lines.contains(&mask) {
                    lines.push(mask);
                }
            }
        }
    }
    lines
}

/// Read `A B K`, `AxBkK`, or either without K (None), for error messages naming `game`
/// and its expected `form`.
pub fn parse_size_k(text: &str, game: &str, form: &str) -> Result<(usize, usize, Option<usize>)> {
    let t = text.trim();
    if t.is_empty() {
        return Err(Error::input(format!("empty {game} input: {form}")));
    }
    let bad = || {
        Error::input(format!(
            "bad {game} board {}: {form}",
            crate::error::excerpt(t)
        ))
    };
    let lower = t.to_ascii_lowercase();
    let parts: Vec<&str> = if lower.contains('x') {
        let (size, k) = match lower.split_once('k') {
            Some((size, k)) => (size, Some(k)),
            None => (lower.as_str(), None),
        };
        let (a, b) = size.split_once('x').ok_or_else(bad)?;
        [a, b].into_iter().chain(k).collect()
    } else {
        lower.split_whitespace().collect()
    };
    let numbers: Vec<usize> = parts
        .iter()
        .map(|p| p.trim().parse::<usize>().map_err(|_| bad()))
        .collect::<Result<_>>()?;
    match numbers[..] {
        [a, b] => Ok((a, b, None)),
        [a, b, k] => Ok((a, b, Some(k))),
        _ => Err(bad()),
    }
}

/// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The cells of `lines` (masks) that lie wholly inside `x` or inside `o`, as (row, col)
/// through `cell_of` (a mask bit to its cell), in row-major order.
pub fn cells_of_full_lines(
    lines: &[u64],
    x: u64,
    o: u64,
    cell_of: impl Fn(u32) -> (usize, usize),
) -> Vec<(usize, usize)> {
    let full = lines
        .iter()
        .filter(|&&l| l & x == l || l & o == l)
        .fold(0u64, |m, &l| m | l);
    let mut cells: Vec<(usize, usize)> = (0..64)
        .filter(|&b| full & (1u64 << b) != 0)
        .map(cell_of)
        .collect();
    cells.sort_unstable();
    cells
}
