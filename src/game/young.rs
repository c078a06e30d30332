//! The young game: stones fill a Young diagram inside an n x m box.
//!
//! Ranking. A position is its row lengths r_0 >= r_1 >= ... >= r_{n-1}, ordered
//! lexicographically inside its layer k (sum of the r_i). With
//! P(rows, w, s) = number of non-increasing sequences of `rows` values in 0..=w summing to s
//! (a Gaussian-binomial coefficient) and
//! T(rows, r, s) = sum over v < r of P(rows, v, s - v)
//! (the diagrams whose current row is shorter than r, with `rows` rows below it),
//! the rank is sum_i T(n-1-i, r_i, rem_i) where rem_i = k - r_0 - ... - r_{i-1}.
//! Adding a stone to row i changes only the terms of rows 0..=i (their rem grows by one),
//! so one pass over the rows yields every child's rank: O(n) per position.

use serde::{Deserialize, Serialize};

use super::{Game, GameSpec, Move, check_weights, parse_integers};
use crate::error::{Error, Result};

/// A young board: n rows, m columns, weights a (first player) and b (second), row-major.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct YoungSpec {
    pub rows: usize,
    pub cols: usize,
    pub a: Vec<i64>,
    pub b: Vec<i64>,
}

impl YoungSpec {
    /// Parse the contest input: `n m`, then n rows of a, then n rows of b.
    pub fn parse(text: &str) -> Result<Self> {
        let nums = parse_integers(text)?;
        if nums.len() < 2 {
            return Err(Error::input("missing board size: expected `n m` first"));
        }
        let (n, m) = (nums[0], nums[1]);
        if n < 1 || m < 1 {
            return Err(Error::input(format!(
                "board size {n} x {m}: n and m must be at least 1"
            )));
        }
        if n > 64 || m > 64 {
            return Err(Error::input(format!(
                "board size {n} x {m} is too large: the position count does not fit in 64 bits"
            )));
        }
        let (n, m) = (n as usize, m as usize);
        let cells = n * m;
        let found = nums.len() - 2;
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
        let spec = YoungSpec {
            rows: n,
            cols: m,
            a: nums[2..2 + cells].to_vec(),
            b: nums[2 + cells..].to_vec(),
        };
        check_weights("a", &spec.a)?;
        check_weights("b", &spec.b)?;
        Ok(spec)
    }

    /// The contest input for this board (used by `retro gen`).
    pub fn to_input(&self) -> String {
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
}

pub struct Young {
    spec: YoungSpec,
    n: usize,
    m: usize,
    /// T(rows, r, s) at `(rows * (m + 2) + r) * s_stride + s`.
    counts: Vec<u64>,
    s_stride: usize,
    layer_sizes: Vec<u64>,
    value_range: (i64, i64),
}

/// A diagram with its layer and rank, plus what ranks its children: for every row that can
/// take a stone, the difference between the child's rank and this one's. Stepping to the
/// next diagram changes only the rows from some row down, so only their part is redone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YoungPosition {
    pub stones: usize,
    pub rank: u64,
    pub rows: Vec<u32>,
    /// Bit i set: row i can take a stone.
    movable: u64,
    /// Child rank minus this rank (wrapping), per row.
    delta: Vec<u64>,
    /// The move's reward, per row.
    reward: Vec<i64>,
    /// Per row i: rem_i, and the prefix sums over rows < i of the rank terms with rem and
    /// with rem + 1 (n + 1 entries each).
    rem: Vec<u32>,
    plain: Vec<u64>,
    shifted: Vec<u64>,
}

impl Young {
    pub fn new(spec: YoungSpec) -> Result<Self> {
        let (n, m) = (spec.rows, spec.cols);
        if n == 0 || m == 0 || spec.a.len() != n * m || spec.b.len() != n * m {
            return Err(Error::input("young board: dimensions and weights disagree"));
        }
        // C(n + m, n) diagrams in all: refuse before sizing any table if that passes u64.
        crate::rank::Binomial::new(n + m).map_err(|_| {
            Error::input(format!(
                "board size {n} x {m} is too large: counts overflow 64 bits"
            ))
        })?;
        let hi = check_weights("a", &spec.a)?;
        let lo = -check_weights("b", &spec.b)?;
        let cells = n * m;
        let s_stride = cells + 2;
        let r_stride = m + 2;
        let mut counts = vec![0u64; n * r_stride * s_stride];
        // p[w][s] = P(rows, w, s) for the current `rows`, starting with rows = 0.
        let mut p: Vec<Vec<u64>> = (0..=m)
            .map(|_| (0..s_stride).map(|s| u64::from(s == 0)).collect())
            .collect();
        let too_large = || {
            Error::input(format!(
                "board size {n} x {m} is too large: counts overflow 64 bits"
            ))
        };
        for rows in 0..n {
            let base = rows * r_stride * s_stride;
            for s in 0..s_stride {
                let mut acc: u64 = 0;
                for r in 1..=m + 1 {
                    let v = r - 1;
                    if v <= s {
                        acc = acc.checked_add(p[v][s - v]).ok_or_else(too_large)?;
                    }
                    counts[base + r * s_stride + s] = acc;
                }
            }
            // P(rows + 1, w, s) = T(rows, w + 1, s).
            for (w, pw) in p.iter_mut().enumerate() {
                for (s, slot) in pw.iter_mut().enumerate() {
                    *slot = counts[base + (w + 1) * s_stride + s];
                }
            }
        }
        let mut young = Young {
            spec,
            n,
            m,
            counts,
            s_stride,
            layer_sizes: Vec::new(),
            value_range: (lo, hi),
        };
        young.layer_sizes = (0..=cells).map(|k| young.t(n - 1, m + 1, k)).collect();
        let total: u128 = young.layer_sizes.iter().map(|&x| x as u128).sum();
        if total > u64::MAX as u128 {
            return Err(too_large());
        }
        Ok(young)
    }

    #[inline(always)]
    fn t(&self, rows: usize, r: usize, s: usize) -> u64 {
        self.counts[(rows * (self.m + 2) + r) * self.s_stride + s]
    }

    fn position_from_rows(&self, rows: Vec<u32>) -> YoungPosition {
        let stones = rows.iter().map(|&r| r as usize).sum();
        let n = self.n;
        let mut pos = YoungPosition {
            stones,
            rank: 0,
            rows,
            movable: 0,
            delta: vec![0; n],
            reward: vec![0; n],
            rem: vec![0; n + 1],
            plain: vec![0; n + 1],
            shifted: vec![0; n + 1],
        };
        pos.rem[0] = stones as u32;
        pos.rank = self.refresh(&mut pos, 0);
        pos
    }

    /// Recompute the cached rank terms of rows `from..`; rows above are unchanged.
    /// Returns the rank.
    #[inline]
    fn refresh(&self, pos: &mut YoungPosition, from: usize) -> u64 {
        // Rows from `from` on lose their bits; they are set again as they are visited.
        pos.movable &= (1u64 << from) - 1;
        let first = pos.stones % 2 == 0;
        let weights = if first { &self.spec.a } else { &self.spec.b };
        let mut cap = if from == 0 {
            self.m
        } else {
            pos.rows[from - 1] as usize
        };
        let (mut plain, mut shifted) = (pos.plain[from], pos.shifted[from]);
        let mut rem = pos.rem[from] as usize;
        for i in from..self.n {
            let r = pos.rows[i] as usize;
            let below = self.n - 1 - i;
            let t_plain = self.t(below, r, rem);
            if r < cap {
                pos.movable |= 1 << i;
                // child = shifted + T(r + 1, rem + 1) + (rank - plain - t_plain)
                pos.delta[i] = shifted
                    .wrapping_add(self.t(below, r + 1, rem + 1))
                    .wrapping_sub(plain)
                    .wrapping_sub(t_plain);
                let w = weights[i * self.m + r];
                pos.reward[i] = if first { w } else { -w };
            }
            if r == 0 {
                // Every row below is empty too: no rank terms, no moves, and no later
                // refresh starts below the first empty row.
                return plain;
            }
            shifted += self.t(below, r, rem + 1);
            plain += t_plain;
            rem -= r;
            pos.plain[i + 1] = plain;
            pos.shifted[i + 1] = shifted;
            pos.rem[i + 1] = rem as u32;
            cap = r;
        }
        plain
    }
}

impl Game for Young {
    type Position = YoungPosition;

    fn spec(&self) -> GameSpec {
        GameSpec::Young(self.spec.clone())
    }

    fn cells(&self) -> usize {
        self.n * self.m
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.layer_sizes[k]
    }

    fn value_range(&self) -> (i64, i64) {
        self.value_range
    }

    fn unrank(&self, k: usize, rank: u64) -> YoungPosition {
        let mut rows = vec![0u32; self.n];
        let (mut left, mut rem, mut cap) = (rank, k, self.m);
        for (i, row) in rows.iter_mut().enumerate() {
            let below = self.n - 1 - i;
            // The longest row length whose preceding block does not pass `left`.
            let mut v = cap.min(rem);
            while self.t(below, v, rem) > left {
                v -= 1;
            }
            left -= self.t(below, v, rem);
            *row = v as u32;
            rem -= v;
            cap = v;
        }
        let pos = self.position_from_rows(rows);
        debug_assert_eq!(pos.rank, rank);
        pos
    }

    fn rank(&self, pos: &YoungPosition) -> u64 {
        pos.rank
    }

    fn stones(&self, pos: &YoungPosition) -> usize {
        pos.stones
    }

    fn advance(&self, pos: &mut YoungPosition) {
        // Lexicographic successor with the same sum: lengthen the lowest row that can grow
        // while the rows below it still hold a stone, then lay the rest out as flat as
        // possible (the lexicographically smallest fill).
        let rows = &mut pos.rows;
        let mut below: u32 = rows[self.n - 1];
        for i in (0..self.n - 1).rev() {
            let cap = if i == 0 { self.m as u32 } else { rows[i - 1] };
            if below >= 1 && rows[i] < cap {
                rows[i] += 1;
                let fill = below - 1;
                let len = (self.n - 1 - i) as u32;
                let (q, extra) = (fill / len, fill % len);
                for (j, row) in rows[i + 1..].iter_mut().enumerate() {
                    *row = q + u32::from((j as u32) < extra);
                }
                pos.rank += 1;
                self.refresh(pos, i);
                return;
            }
            below += rows[i];
        }
        debug_assert!(false, "advance past the last position of a layer");
    }

    fn terminal_value(&self, _pos: &YoungPosition) -> i64 {
        0
    }

    #[inline]
    fn for_each_child(&self, pos: &YoungPosition, mut f: impl FnMut(u64, i64)) {
        let mut bits = pos.movable;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            f(pos.rank.wrapping_add(pos.delta[i]), pos.reward[i]);
        }
    }

    fn moves(&self, pos: &YoungPosition) -> Vec<Move<YoungPosition>> {
        let first = pos.stones % 2 == 0;
        let mut out = Vec::new();
        for i in 0..self.n {
            let r = pos.rows[i] as usize;
            let cap = if i == 0 {
                self.m
            } else {
                pos.rows[i - 1] as usize
            };
            if r < cap {
                let mut rows = pos.rows.clone();
                rows[i] += 1;
                let w = if first {
                    self.spec.a[i * self.m + r]
                } else {
                    -self.spec.b[i * self.m + r]
                };
                out.push(Move {
                    row: i,
                    col: r,
                    reward: w,
                    child: self.position_from_rows(rows),
                });
            }
        }
        out
    }

    fn parse_position(&self, text: &str) -> Result<YoungPosition> {
        let bad = |why: String| Error::input(format!("bad young position {text:?}: {why}"));
        let parts: Vec<&str> = text.trim().split(',').map(str::trim).collect();
        if parts.len() != self.n {
            return Err(bad(format!(
                "expected {} comma-separated row lengths, found {}",
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
            if let Some(&prev) = rows.last() {
                if r > prev {
                    return Err(bad(format!(
                        "row {} ({r}) is longer than the row above ({prev}); lengths must not increase",
                        i + 1
                    )));
                }
            }
            rows.push(r);
        }
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
            let cap = if i == 0 {
                self.m
            } else {
                pos.rows[i - 1] as usize
            };
            for j in 0..self.m {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: usize, m: usize) -> Young {
        Young::new(YoungSpec {
            rows: n,
            cols: m,
            a: vec![1; n * m],
            b: vec![1; n * m],
        })
        .unwrap()
    }

    #[test]
    fn layer_sizes_sum_to_central_binomial() {
        let y = board(10, 10);
        assert_eq!(y.total_positions(), 184_756);
        let y = board(2, 3);
        assert_eq!(y.total_positions(), 10);
    }
}
