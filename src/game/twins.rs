//! The twins game: o and x fill an R x C grid; adjacent equal marks pay the first player.
//!
//! Ranking. Layer k holds (the set S of k occupied cells) x (which h = ceil(k/2) of them
//! hold o). S is ranked in colex order among the R*C cells, the o stones in colex order
//! among the k positions of S: rank = rank(S) * C(k, h) + rank(o within S).
//! A move on an empty cell c, with j cells of S below it, shifts the S positions >= j up by
//! one; with prefix sums over S and over the o positions every child's rank is O(1), so a
//! position costs O(R*C). The sweep walks o-subsets inner and occupied sets outer, so the
//! per-S part is recomputed only when S changes.

use serde::{Deserialize, Serialize};

use super::{Game, GameSpec, Move, check_weights, parse_integers};
use crate::error::{Error, Result};
use crate::rank::{Binomial, colex_next, colex_rank, colex_unrank};

/// Boards up to this many cells: a cell set fits a u64 mask and any layer count fits u64.
pub const MAX_CELLS: usize = 62;

/// A twins board: `vert` holds rows of C weights for the pairs (i,j)-(i+1,j),
/// `horiz` R rows of C-1 weights for the pairs (i,j)-(i,j+1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TwinsSpec {
    pub rows: usize,
    pub cols: usize,
    pub vert: Vec<i64>,
    pub horiz: Vec<i64>,
}

impl TwinsSpec {
    /// Parse the contest input for an R x C board (the file carries no size).
    pub fn parse(text: &str, rows: usize, cols: usize) -> Result<Self> {
        if rows == 0 || cols == 0 {
            return Err(Error::input(format!(
                "board size {rows} x {cols}: rows and columns must be at least 1"
            )));
        }
        if rows.saturating_mul(cols) > MAX_CELLS {
            return Err(Error::input(format!(
                "board size {rows} x {cols} is too large: at most {MAX_CELLS} cells"
            )));
        }
        let nums = parse_integers(text)?;
        let (nv, nh) = ((rows - 1) * cols, rows * (cols - 1));
        if nums.len() != nv + nh {
            let kind = if nums.len() < nv + nh {
                "missing"
            } else {
                "extra"
            };
            return Err(Error::input(format!(
                "{kind} numbers: a {rows} x {cols} board needs {} weights ({} vertical, then {} horizontal), found {}",
                nv + nh,
                nv,
                nh,
                nums.len()
            )));
        }
        let spec = TwinsSpec {
            rows,
            cols,
            vert: nums[..nv].to_vec(),
            horiz: nums[nv..].to_vec(),
        };
        check_weights("vertical", &spec.vert)?;
        check_weights("horizontal", &spec.horiz)?;
        spec.total_weight()?;
        Ok(spec)
    }

    pub fn total_weight(&self) -> Result<i64> {
        let v = check_weights("vertical", &self.vert)?;
        let h = check_weights("horizontal", &self.horiz)?;
        v.checked_add(h)
            .ok_or_else(|| Error::input("the weights sum past 64-bit values"))
    }

    /// The contest input for this board (used by `retro gen`).
    pub fn to_input(&self) -> String {
        let mut out = String::new();
        for (w, width) in [(&self.vert, self.cols), (&self.horiz, self.cols - 1)] {
            if width == 0 {
                continue;
            }
            for row in w.chunks(width) {
                let line: Vec<String> = row.iter().map(|x| x.to_string()).collect();
                out.push_str(&line.join(" "));
                out.push('\n');
            }
        }
        out
    }
}

pub struct Twins {
    spec: TwinsSpec,
    cells: usize,
    binom: Binomial,
    /// (cell, cell, weight) for every adjacent pair.
    pairs: Vec<(u8, u8, i64)>,
    total: i64,
    layer_sizes: Vec<u64>,
}

/// A twins position with the prefix sums that rank its children.
#[derive(Debug, Clone)]
pub struct TwinsPosition {
    stones: usize,
    /// Occupied cells, ascending.
    occupied: Vec<u8>,
    /// Positions (indices into `occupied`) of the o stones, ascending.
    o: Vec<u8>,
    rank_occupied: u64,
    rank_o: u64,
    /// Per empty cell: (its part of the child's rank from the occupied set, times
    /// C(k+1, h'), and j = the number of occupied cells below it).
    empty: Vec<(u64, u8)>,
    /// Per j in 0..=k: the child's o-rank when the new stone lands at position j of S.
    o_part: Vec<u64>,
}

impl Twins {
    pub fn new(spec: TwinsSpec) -> Result<Self> {
        let (r, c) = (spec.rows, spec.cols);
        if r == 0
            || c == 0
            || r * c > MAX_CELLS
            || spec.vert.len() != (r - 1) * c
            || spec.horiz.len() != r * (c - 1)
        {
            return Err(Error::input("twins board: dimensions and weights disagree"));
        }
        let total = spec.total_weight()?;
        let cells = r * c;
        let binom = Binomial::new(cells)?;
        let mut pairs = Vec::new();
        for i in 0..r.saturating_sub(1) {
            for j in 0..c {
                pairs.push((
                    (i * c + j) as u8,
                    ((i + 1) * c + j) as u8,
                    spec.vert[i * c + j],
                ));
            }
        }
        for i in 0..r {
            for j in 0..c - 1 {
                pairs.push((
                    (i * c + j) as u8,
                    (i * c + j + 1) as u8,
                    spec.horiz[i * (c - 1) + j],
                ));
            }
        }
        let mut layer_sizes = Vec::with_capacity(cells + 1);
        let mut sum: u128 = 0;
        for k in 0..=cells {
            let size = binom.get(cells, k) as u128 * binom.get(k, k.div_ceil(2)) as u128;
            sum += size;
            let size = u64::try_from(size)
                .ok()
                .filter(|_| sum <= u64::MAX as u128)
                .ok_or_else(|| {
                    Error::input(format!(
                        "board size {r} x {c} is too large: counts overflow 64 bits"
                    ))
                })?;
            layer_sizes.push(size);
        }
        Ok(Twins {
            spec,
            cells,
            binom,
            pairs,
            total,
            layer_sizes,
        })
    }

    pub fn total_weight(&self) -> i64 {
        self.total
    }

    /// Marks per cell, row-major: 0 empty, 1 o, 2 x.
    pub fn marks(&self, pos: &TwinsPosition) -> Vec<u8> {
        let mut marks = vec![0u8; self.cells];
        for &c in &pos.occupied {
            marks[c as usize] = 2;
        }
        for &p in &pos.o {
            marks[pos.occupied[p as usize] as usize] = 1;
        }
        marks
    }

    fn position_from_marks(&self, marks: &[u8]) -> TwinsPosition {
        let occupied: Vec<u8> = (0..self.cells as u8)
            .filter(|&c| marks[c as usize] != 0)
            .collect();
        let o: Vec<u8> = (0..occupied.len() as u8)
            .filter(|&p| marks[occupied[p as usize] as usize] == 1)
            .collect();
        let mut pos = TwinsPosition {
            stones: occupied.len(),
            rank_occupied: colex_rank(&self.binom, &occupied),
            rank_o: colex_rank(&self.binom, &o),
            occupied,
            o,
            empty: Vec::new(),
            o_part: Vec::new(),
        };
        self.refresh_occupied(&mut pos);
        self.refresh_o(&mut pos);
        pos
    }

    /// Recompute the per-empty-cell rank parts after the occupied set changed.
    fn refresh_occupied(&self, pos: &mut TwinsPosition) {
        let k = pos.stones;
        pos.empty.clear();
        if k == self.cells {
            return;
        }
        let mult = self.binom.get(k + 1, (k + 1).div_ceil(2));
        // suffix[j] = sum over i >= j of C(s_i, i + 2): the cells above the new one move up.
        let mut suffix = vec![0u64; k + 1];
        for i in (0..k).rev() {
            suffix[i] = suffix[i + 1] + self.binom.get(pos.occupied[i] as usize, i + 2);
        }
        let (mut prefix, mut j) = (0u64, 0usize);
        for c in 0..self.cells {
            if j < k && pos.occupied[j] as usize == c {
                prefix += self.binom.get(c, j + 1);
                j += 1;
                continue;
            }
            let part = prefix + self.binom.get(c, j + 1) + suffix[j];
            pos.empty.push((part * mult, j as u8));
        }
    }

    /// Recompute the child's o-rank for each insertion point j after the o stones changed.
    fn refresh_o(&self, pos: &mut TwinsPosition) {
        let k = pos.stones;
        let h = pos.o.len();
        let o_moves = k % 2 == 0;
        pos.o_part.clear();
        if k == self.cells {
            return;
        }
        // suffix[l] = sum over o stones l.. of their rank terms after shifting up by one
        // position in S (and, for an o move, also up by one place among the o stones).
        let mut suffix = vec![0u64; h + 1];
        for l in (0..h).rev() {
            let t = pos.o[l] as usize + 1;
            suffix[l] = suffix[l + 1] + self.binom.get(t, l + 1 + usize::from(o_moves));
        }
        let (mut prefix, mut p) = (0u64, 0usize);
        for j in 0..=k {
            while p < h && (pos.o[p] as usize) < j {
                prefix += self.binom.get(pos.o[p] as usize, p + 1);
                p += 1;
            }
            let new = if o_moves { self.binom.get(j, p + 1) } else { 0 };
            pos.o_part.push(prefix + new + suffix[p]);
        }
    }
}

impl Game for Twins {
    type Position = TwinsPosition;

    fn spec(&self) -> GameSpec {
        GameSpec::Twins(self.spec.clone())
    }

    fn cells(&self) -> usize {
        self.cells
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.layer_sizes[k]
    }

    fn value_range(&self) -> (i64, i64) {
        (0, self.total)
    }

    fn unrank(&self, k: usize, rank: u64) -> TwinsPosition {
        let h = k.div_ceil(2);
        let per_set = self.binom.get(k, h);
        let (rank_occupied, rank_o) = (rank / per_set, rank % per_set);
        let mut occupied = Vec::with_capacity(k);
        colex_unrank(&self.binom, rank_occupied, k, &mut occupied);
        let mut o = Vec::with_capacity(h);
        colex_unrank(&self.binom, rank_o, h, &mut o);
        let mut pos = TwinsPosition {
            stones: k,
            occupied,
            o,
            rank_occupied,
            rank_o,
            empty: Vec::new(),
            o_part: Vec::new(),
        };
        self.refresh_occupied(&mut pos);
        self.refresh_o(&mut pos);
        pos
    }

    fn rank(&self, pos: &TwinsPosition) -> u64 {
        let per_set = self.binom.get(pos.stones, pos.o.len());
        pos.rank_occupied * per_set + pos.rank_o
    }

    fn stones(&self, pos: &TwinsPosition) -> usize {
        pos.stones
    }

    fn advance(&self, pos: &mut TwinsPosition) {
        if colex_next(&mut pos.o, pos.stones) {
            pos.rank_o += 1;
        } else {
            pos.rank_o = 0;
            let more = colex_next(&mut pos.occupied, self.cells);
            debug_assert!(more, "advance past the last position of a layer");
            pos.rank_occupied += 1;
            self.refresh_occupied(pos);
        }
        self.refresh_o(pos);
    }

    fn terminal_value(&self, pos: &TwinsPosition) -> i64 {
        // On a full board position p of S is cell p, so `o` lists the o cells directly.
        let o_mask = pos.o.iter().fold(0u64, |m, &c| m | 1 << c);
        self.pairs
            .iter()
            .filter(|&&(a, b, _)| (o_mask >> a & 1) == (o_mask >> b & 1))
            .map(|&(_, _, w)| w)
            .sum()
    }

    #[inline]
    fn for_each_child(&self, pos: &TwinsPosition, mut f: impl FnMut(u64, i64)) {
        for &(part, j) in &pos.empty {
            f(part + pos.o_part[j as usize], 0);
        }
    }

    fn moves(&self, pos: &TwinsPosition) -> Vec<Move<TwinsPosition>> {
        let mark = if pos.stones % 2 == 0 { 1 } else { 2 };
        let marks = self.marks(pos);
        (0..self.cells)
            .filter(|&c| marks[c] == 0)
            .map(|c| {
                let mut child = marks.clone();
                child[c] = mark;
                Move {
                    row: c / self.spec.cols,
                    col: c % self.spec.cols,
                    reward: 0,
                    child: self.position_from_marks(&child),
                }
            })
            .collect()
    }

    fn parse_position(&self, text: &str) -> Result<TwinsPosition> {
        let bad = |why: String| Error::input(format!("bad twins position {text:?}: {why}"));
        let (r, c) = (self.spec.rows, self.spec.cols);
        let lines: Vec<&str> = text.trim().split('/').collect();
        if lines.len() != r {
            return Err(bad(format!(
                "expected {r} rows separated by '/', found {}",
                lines.len()
            )));
        }
        let mut marks = Vec::with_capacity(self.cells);
        for (i, line) in lines.iter().enumerate() {
            let mut len = 0;
            for ch in line.chars() {
                marks.push(match ch {
                    '.' => 0,
                    'o' => 1,
                    'x' => 2,
                    other => {
                        return Err(bad(format!(
                            "row {} holds {other:?}; cells are 'o', 'x' or '.'",
                            i + 1
                        )));
                    }
                });
                len += 1;
            }
            if len != c {
                return Err(bad(format!("row {} has {len} cells, expected {c}", i + 1)));
            }
        }
        let os = marks.iter().filter(|&&m| m == 1).count();
        let xs = marks.iter().filter(|&&m| m == 2).count();
        if os != xs && os != xs + 1 {
            return Err(bad(format!(
                "{os} o and {xs} x: o must equal x or exceed it by one"
            )));
        }
        Ok(self.position_from_marks(&marks))
    }

    fn format_position(&self, pos: &TwinsPosition) -> String {
        let marks = self.marks(pos);
        let rows: Vec<String> = marks
            .chunks(self.spec.cols)
            .map(|row| row.iter().map(|&m| ['.', 'o', 'x'][m as usize]).collect())
            .collect();
        rows.join("/")
    }

    fn draw(&self, pos: &TwinsPosition) -> String {
        let marks = self.marks(pos);
        let mut out = String::new();
        for row in marks.chunks(self.spec.cols) {
            let cells: Vec<String> = row
                .iter()
                .map(|&m| ['.', 'o', 'x'][m as usize].to_string())
                .collect();
            out.push_str(&cells.join(" "));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_counts_match_the_spec() {
        let t = |r, c| {
            let spec = TwinsSpec {
                rows: r,
                cols: c,
                vert: vec![1; (r - 1) * c],
                horiz: vec![1; r * (c - 1)],
            };
            Twins::new(spec).unwrap().total_positions()
        };
        assert_eq!(t(3, 3), 6_046);
        assert_eq!(t(4, 4), 10_165_779);
        assert_eq!(t(4, 5), 741_365_049);
    }
}
