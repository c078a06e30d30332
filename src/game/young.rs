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

/// A diagram with its layer and rank, so children can be ranked incrementally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YoungPosition {
    pub stones: usize,
    pub rank: u64,
    pub rows: Vec<u32>,
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
        let mut pos = YoungPosition {
            stones,
            rank: 0,
            rows,
        };
        pos.rank = self.rank(&pos);
        pos
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
        YoungPosition {
            stones: k,
            rank,
            rows,
        }
    }

    fn rank(&self, pos: &YoungPosition) -> u64 {
        let mut rem = pos.stones;
        let mut rank = 0;
        for (i, &r) in pos.rows.iter().enumerate() {
            rank += self.t(self.n - 1 - i, r as usize, rem);
            rem -= r as usize;
        }
        rank
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
        let first = pos.stones % 2 == 0;
        let weights = if first { &self.spec.a } else { &self.spec.b };
        let (mut shifted, mut plain) = (0u64, 0u64);
        let mut rem = pos.stones;
        let mut cap = self.m;
        for (i, &r) in pos.rows.iter().enumerate() {
            let r = r as usize;
            let below = self.n - 1 - i;
            let t_plain = self.t(below, r, rem);
            if r < cap {
                let child = shifted + self.t(below, r + 1, rem + 1) + (pos.rank - plain - t_plain);
                let w = weights[i * self.m + r];
                f(child, if first { w } else { -w });
            }
            if r == 0 {
                break;
            }
            shifted += self.t(below, r, rem + 1);
            plain += t_plain;
            rem -= r;
            cap = r;
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
