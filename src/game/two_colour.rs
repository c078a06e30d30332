//! The ranking shared by games where the first and the second player fill cells of an
//! R x C grid with their own marks, one per move (twins, mnk): layer k holds (the set S of
//! k occupied cells) x (which h = ceil(k/2) of them hold the first player's marks).
//!
//! S is ranked in colex order among the R*C cells, the first player's stones in colex
//! order among the k positions of S: rank = rank(S) * C(k, h) + rank(first within S).
//! A move on an empty cell c, with j cells of S below it, shifts the S positions >= j up by
//! one, so the child's rank is (S part for c) * C(k+1, h') + (first part for j): the first
//! depends on S only, the second on the first player's subset and j only.
//!
//! A layer is walked with first-player subsets inner and occupied sets outer. The S parts
//! are recomputed (O(R*C), with prefix sums) only when S changes. The first parts depend on
//! nothing but (k, rank of the subset, j), so each layer gets a table of them, built once:
//! C(k, h) rows of k + 1 entries. Walking a layer reads that table row by row, so a
//! position costs one add and one table load per child, and `advance` is a few bit
//! operations. The table is at most about as large as the layer itself (k + 1 <= C(RC, k)
//! for 0 < k < RC); for boards too large to sweep it is not built, and children are ranked
//! from prefix sums over the first player's positions instead (still O(R*C) per position).

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::rank::{Binomial, colex_next_mask, colex_rank_mask, colex_unrank_mask};

/// Boards up to this many cells: a cell set fits a u64 mask and any layer count fits u64.
pub const MAX_CELLS: usize = 62;

/// Largest first-part table built for one layer, in entries (u32 each: 128 MiB). Every
/// board whose layers fit in memory stays far below it (4 x 5: 1.8 million entries at
/// most); beyond it the prefix-sum fallback ranks the children.
const MAX_TABLE_ENTRIES: u64 = 1 << 25;

/// Rows of a first-part table per parallel task.
const TABLE_BLOCK_ROWS: usize = 256;

/// The ranking of one board size: binomials, layer sizes and the per-layer tables.
pub struct TwoColour {
    cells: usize,
    binom: Binomial,
    layer_sizes: Vec<u64>,
    /// Per layer k, built on first use by `unrank`: the first-part table (see the module
    /// notes), row r at r * (k + 1); None for the full layer and for tables too large.
    tables: Vec<OnceLock<Option<Arc<[u32]>>>>,
}

/// A position and the cached parts that rank its children.
#[derive(Debug, Clone)]
pub struct Position {
    pub(crate) stones: usize,
    /// Occupied cells, as a bit mask over the cells (row-major).
    pub(crate) occupied: u64,
    /// Bit p set: the p-th lowest occupied cell holds a first player's mark. On a full
    /// board, position p is cell p, so this is then the mask of the first player's cells.
    pub(crate) first: u64,
    rank_occupied: u64,
    rank_first: u64,
    /// C(stones, ceil(stones / 2)): the number of first-player subsets per occupied set.
    per_set: u64,
    /// Number of empty cells; the first `empties` entries below are valid.
    empties: usize,
    /// Per empty cell, ascending: its part of the child's rank from the occupied set,
    /// already multiplied by C(k+1, h').
    empty_part: [u64; MAX_CELLS],
    /// Per empty cell: j = the number of occupied cells below it.
    empty_j: [u8; MAX_CELLS],
    /// The layer's first-part table (None: rank children from prefix sums) and the offset
    /// of this position's row in it, rank_first * (stones + 1).
    table: Option<Arc<[u32]>>,
    row: usize,
}

impl Position {
    /// Stones on the board.
    pub fn stones(&self) -> usize {
        self.stones
    }

    /// Occupied cells, as a bit mask (cell `i * cols + j` is bit `i * cols + j`).
    pub fn occupied(&self) -> u64 {
        self.occupied
    }

    /// The first player's cells, as a bit mask over the cells.
    pub fn first_cells(&self) -> u64 {
        spread(self.first, self.occupied)
    }
}

/// The bits of `bits` placed on the set bits of `mask`, lowest first (a portable pdep).
pub fn spread(mut bits: u64, mask: u64) -> u64 {
    let (mut out, mut rest) = (0u64, mask);
    while rest != 0 && bits != 0 {
        let low = rest & rest.wrapping_neg();
        if bits & 1 == 1 {
            out |= low;
        }
        bits >>= 1;
        rest &= rest - 1;
    }
    out
}

impl TwoColour {
    /// The ranking of an R x C board; fails for a board whose counts do not fit 64 bits.
    pub fn new(rows: usize, cols: usize) -> Result<Self> {
        let cells = rows.saturating_mul(cols);
        if rows == 0 || cols == 0 || cells > MAX_CELLS {
            return Err(Error::input(format!(
                "board size {rows} x {cols}: from 1 to {MAX_CELLS} cells"
            )));
        }
        let binom = Binomial::new(cells)?;
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
                        "board size {rows} x {cols} is too large: counts overflow 64 bits"
                    ))
                })?;
            layer_sizes.push(size);
        }
        Ok(TwoColour {
            cells,
            binom,
            layer_sizes,
            tables: (0..=cells).map(|_| OnceLock::new()).collect(),
        })
    }

    /// Cells on the board.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Positions with `k` stones.
    pub fn layer_size(&self, k: usize) -> u64 {
        self.layer_sizes[k]
    }

    /// Bytes of every layer's first-part table once built, at most (`Game::table_bytes`):
    /// C(k, ceil(k/2)) rows of k + 1 entries of 4 bytes, where a layer has one.
    pub fn table_bytes(&self) -> u64 {
        (0..self.cells)
            .map(|k| {
                let entries = self
                    .binom
                    .get(k, k.div_ceil(2))
                    .saturating_mul(k as u64 + 1);
                match entries > MAX_TABLE_ENTRIES {
                    true => 0,
                    false => entries * 4,
                }
            })
            .sum()
    }

    /// Layer k's first-part table, built by every worker (`Game::prepare_layer`). Built
    /// serially in the first chunk, it held the other worker idle: layers 15 and 14 of
    /// twins 4 x 4 (6435 and 3432 rows) took 0.91 and 1.32 ms on two threads against 1.07
    /// and 2.32 on one.
    pub fn prepare_layer(&self, k: usize) {
        if self.tables[k].get().is_none() {
            // Built outside the cell, so no thread can wait on it while this one is busy;
            // a table some query built meanwhile wins, and they are equal.
            let _ = self.tables[k].set(self.build_table(k, true));
        }
    }

    /// The position of rank `rank` in layer `k`.
    pub fn unrank(&self, k: usize, rank: u64) -> Position {
        let per_set = self.binom.get(k, k.div_ceil(2));
        let (rank_occupied, rank_first) = (rank / per_set, rank % per_set);
        self.position(
            colex_unrank_mask(&self.binom, rank_occupied, k),
            colex_unrank_mask(&self.binom, rank_first, k.div_ceil(2)),
            rank_occupied,
            rank_first,
            self.table(k),
        )
    }

    /// The rank of a position in its layer.
    #[inline]
    pub fn rank(&self, pos: &Position) -> u64 {
        pos.rank_occupied * pos.per_set + pos.rank_first
    }

    /// Step to the next position in rank order.
    #[inline]
    pub fn advance(&self, pos: &mut Position) {
        pos.rank_first += 1;
        if pos.rank_first < pos.per_set {
            // More than one subset, so `first` is not empty.
            pos.first = colex_next_mask(pos.first);
            pos.row += pos.stones + 1;
        } else {
            pos.rank_first = 0;
            pos.row = 0;
            pos.first = (1u64 << pos.stones.div_ceil(2)) - 1;
            // Layer 0 has one position, so there is a stone to step.
            pos.occupied = colex_next_mask(pos.occupied);
            debug_assert!(
                pos.occupied >> self.cells == 0,
                "advance past the last position of a layer"
            );
            pos.rank_occupied += 1;
            self.refresh_occupied(pos);
        }
    }

    /// Calls `f(child_rank)` for every empty cell, in ascending cell order.
    #[inline]
    pub fn for_each_child(&self, pos: &Position, mut f: impl FnMut(u64)) {
        let n = pos.empties;
        let (parts, js) = (&pos.empty_part[..n], &pos.empty_j[..n]);
        match &pos.table {
            Some(table) => {
                let row = &table[pos.row..pos.row + pos.stones + 1];
                for (&part, &j) in parts.iter().zip(js) {
                    f(part + u64::from(row[j as usize]));
                }
            }
            None => {
                if n == 0 {
                    return;
                }
                let mut first_part = [0u64; MAX_CELLS + 1];
                self.first_parts(pos.stones, pos.first, &mut first_part);
                for (&part, &j) in parts.iter().zip(js) {
                    f(part + first_part[j as usize]);
                }
            }
        }
    }

    /// Marks per cell, row-major: 0 empty, 1 the first player's, 2 the second's.
    pub fn marks(&self, pos: &Position) -> Vec<u8> {
        let mut marks = vec![0u8; self.cells];
        let mut rest = pos.occupied;
        let mut p = 0;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            marks[c] = if pos.first >> p & 1 == 1 { 1 } else { 2 };
            rest &= rest - 1;
            p += 1;
        }
        marks
    }

    /// The position with these marks (as `marks` gives them). The counts must be legal:
    /// the first player has as many marks as the second, or one more.
    pub fn position_from_marks(&self, marks: &[u8]) -> Position {
        let mut occupied = 0u64;
        let mut first = 0u64;
        let mut p = 0;
        for (c, &m) in marks.iter().enumerate() {
            if m != 0 {
                occupied |= 1 << c;
                first |= u64::from(m == 1) << p;
                p += 1;
            }
        }
        // No table here: query and play build positions one at a time, and their children
        // are ranked from prefix sums.
        self.position(
            occupied,
            first,
            colex_rank_mask(&self.binom, occupied),
            colex_rank_mask(&self.binom, first),
            None,
        )
    }

    fn position(
        &self,
        occupied: u64,
        first: u64,
        rank_occupied: u64,
        rank_first: u64,
        table: Option<Arc<[u32]>>,
    ) -> Position {
        let k = occupied.count_ones() as usize;
        let mut pos = Position {
            stones: k,
            occupied,
            first,
            rank_occupied,
            rank_first,
            per_set: self.binom.get(k, k.div_ceil(2)),
            empties: 0,
            empty_part: [0; MAX_CELLS],
            empty_j: [0; MAX_CELLS],
            table,
            row: rank_first as usize * (k + 1),
        };
        self.refresh_occupied(&mut pos);
        pos
    }

    /// Recompute the per-empty-cell rank parts after the occupied set changed.
    fn refresh_occupied(&self, pos: &mut Position) {
        let k = pos.stones;
        pos.empties = self.cells - k;
        if k == self.cells {
            return;
        }
        let mult = self.binom.get(k + 1, (k + 1).div_ceil(2));
        let mut occupied = [0u8; MAX_CELLS];
        let mut rest = pos.occupied;
        for s in occupied.iter_mut().take(k) {
            *s = rest.trailing_zeros() as u8;
            rest &= rest - 1;
        }
        // suffix[j] = sum over i >= j of C(s_i, i + 2): the cells above the new one move up.
        let mut suffix = [0u64; MAX_CELLS + 1];
        for i in (0..k).rev() {
            suffix[i] = suffix[i + 1] + self.binom.get(occupied[i] as usize, i + 2);
        }
        let (mut prefix, mut j, mut e) = (0u64, 0usize, 0usize);
        for c in 0..self.cells {
            if j < k && occupied[j] as usize == c {
                prefix += self.binom.get(c, j + 1);
                j += 1;
                continue;
            }
            pos.empty_part[e] = (prefix + self.binom.get(c, j + 1) + suffix[j]) * mult;
            pos.empty_j[e] = j as u8;
            e += 1;
        }
        debug_assert_eq!(e, pos.empties);
    }

    /// The child's first-rank for each insertion point j in 0..=k, for `k` stones of which
    /// the ones at the positions in the mask `first` are the first player's: out[j] when
    /// the new stone lands at position j of S.
    fn first_parts(&self, k: usize, first: u64, out: &mut [u64; MAX_CELLS + 1]) {
        let first_moves = k.is_multiple_of(2);
        let mut pos = [0u8; MAX_CELLS];
        let mut h = 0;
        let mut rest = first;
        while rest != 0 {
            pos[h] = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            h += 1;
        }
        // suffix[l] = sum over first stones l.. of their rank terms after shifting up by
        // one position in S (and, for a first player's move, also up by one place among
        // the first player's stones).
        let mut suffix = [0u64; MAX_CELLS + 1];
        for l in (0..h).rev() {
            let t = pos[l] as usize + 1;
            suffix[l] = suffix[l + 1] + self.binom.get(t, l + 1 + usize::from(first_moves));
        }
        let (mut prefix, mut p) = (0u64, 0usize);
        for (j, slot) in out.iter_mut().enumerate().take(k + 1) {
            while p < h && (pos[p] as usize) < j {
                prefix += self.binom.get(pos[p] as usize, p + 1);
                p += 1;
            }
            let new = if first_moves {
                self.binom.get(j, p + 1)
            } else {
                0
            };
            *slot = prefix + new + suffix[p];
        }
    }

    /// Layer k's first-part table, built on first use; None for the full layer and where
    /// the table would be too large (or its entries would not fit u32). The lazy build is
    /// serial: it may run inside a rayon task, where a nested parallel build could steal a
    /// task that asks for the same table and block on it.
    fn table(&self, k: usize) -> Option<Arc<[u32]>> {
        self.tables[k]
            .get_or_init(|| self.build_table(k, false))
            .clone()
    }

    /// `table(k)`'s rows, built in parallel when `parallel` (blocks of rows, each block
    /// started from its first row's unranked subset and stepped in colex order).
    fn build_table(&self, k: usize, parallel: bool) -> Option<Arc<[u32]>> {
        if k == self.cells {
            return None;
        }
        let h = k.div_ceil(2);
        let rows = self.binom.get(k, h);
        let entries = rows.checked_mul(k as u64 + 1)?;
        let child_sets = self.binom.get(k + 1, (k + 1).div_ceil(2));
        if entries > MAX_TABLE_ENTRIES || child_sets > u64::from(u32::MAX) {
            return None;
        }
        let mut table = vec![0u32; entries as usize];
        let block = |(b, out): (usize, &mut [u32])| {
            let mut parts = [0u64; MAX_CELLS + 1];
            let mut first = colex_unrank_mask(&self.binom, (b * TABLE_BLOCK_ROWS) as u64, h);
            for (r, row) in out.chunks_mut(k + 1).enumerate() {
                if r > 0 {
                    first = colex_next_mask(first);
                }
                self.first_parts(k, first, &mut parts);
                for (slot, &part) in row.iter_mut().zip(&parts) {
                    *slot = part as u32;
                }
            }
        };
        let block_len = TABLE_BLOCK_ROWS * (k + 1);
        if parallel {
            table.par_chunks_mut(block_len).enumerate().for_each(block);
        } else {
            table.chunks_mut(block_len).enumerate().for_each(block);
        }
        Some(table.into())
    }
}

/// The marks of a position written row by row, rows separated by '/', each cell `first`
/// (the first player's letter), `second` or '.': 0 empty, 1 first, 2 second. Checks the
/// shape and that the first player's marks equal the second's or exceed them by one; the
/// error says what is wrong, for the game to wrap in its own message.
pub fn parse_marks(
    text: &str,
    rows: usize,
    cols: usize,
    first: char,
    second: char,
) -> std::result::Result<Vec<u8>, String> {
    let lines: Vec<&str> = text.split('/').collect();
    if lines.len() != rows {
        return Err(format!(
            "expected {rows} rows separated by '/', found {}",
            lines.len()
        ));
    }
    let mut marks = Vec::with_capacity(rows * cols);
    for (i, line) in lines.iter().enumerate() {
        let mut len = 0;
        for ch in line.chars() {
            marks.push(match ch {
                '.' => 0,
                c if c.eq_ignore_ascii_case(&first) => 1,
                c if c.eq_ignore_ascii_case(&second) => 2,
                other => {
                    return Err(format!(
                        "row {} holds {other:?}; cells are '{first}', '{second}' or '.'",
                        i + 1
                    ));
                }
            });
            len += 1;
        }
        if len != cols {
            return Err(format!("row {} has {len} cells, expected {cols}", i + 1));
        }
    }
    let a = marks.iter().filter(|&&m| m == 1).count();
    let b = marks.iter().filter(|&&m| m == 2).count();
    if a != b && a != b + 1 {
        return Err(format!(
            "{a} {first} and {b} {second}: {first} moves first, so {first} must equal {second} or exceed it by one"
        ));
    }
    Ok(marks)
}

/// Marks (0 empty, 1 first, 2 second; row-major from the top row) in the notation
/// `parse_marks` reads: rows of `first`, `second` and `.` separated by `/`.
pub fn format_marks(marks: &[u8], cols: usize, first: char, second: char) -> String {
    let chars = ['.', first, second];
    let rows: Vec<String> = marks
        .chunks(cols)
        .map(|row| row.iter().map(|&m| chars[m as usize]).collect())
        .collect();
    rows.join("/")
}

/// Marks as a drawing: one line per row, cells one space apart.
pub fn draw_marks(marks: &[u8], cols: usize, first: char, second: char) -> String {
    let chars = ['.', first, second];
    let mut out = String::new();
    for row in marks.chunks(cols) {
        let cells: Vec<String> = row.iter().map(|&m| chars[m as usize].to_string()).collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table path (positions from `unrank`) and the prefix-sum path (positions built
    /// from marks) give the same children, on every position of small boards.
    #[test]
    fn table_and_prefix_sums_rank_children_alike() {
        for (r, c) in [(1, 1), (1, 4), (2, 3), (3, 3), (2, 5)] {
            let ranking = TwoColour::new(r, c).unwrap();
            for k in 0..=ranking.cells() {
                let mut pos = ranking.unrank(k, 0);
                assert_eq!(pos.table.is_some(), k < ranking.cells());
                for i in 0..ranking.layer_size(k) {
                    if i > 0 {
                        ranking.advance(&mut pos);
                    }
                    let slow = ranking.position_from_marks(&ranking.marks(&pos));
                    assert!(slow.table.is_none());
                    assert_eq!(ranking.rank(&slow), i);
                    let (mut fast_children, mut slow_children) = (Vec::new(), Vec::new());
                    ranking.for_each_child(&pos, |ch| fast_children.push(ch));
                    ranking.for_each_child(&slow, |ch| slow_children.push(ch));
                    assert_eq!(fast_children, slow_children);
                    assert_eq!(fast_children.len(), ranking.cells() - k);
                }
            }
        }
    }

    #[test]
    fn tables_built_in_blocks_match_each_row_from_scratch() {
        // 4 x 4: up to C(15, 8) = 6435 rows, so many blocks, the last one partial.
        let ranking = TwoColour::new(4, 4).unwrap();
        let mut parts = [0u64; MAX_CELLS + 1];
        for k in 0..ranking.cells() {
            let h = k.div_ceil(2);
            let parallel = ranking.build_table(k, true).unwrap();
            let serial = ranking.build_table(k, false).unwrap();
            assert_eq!(parallel, serial);
            let rows = ranking.binom.get(k, h) as usize;
            assert_eq!(parallel.len(), rows * (k + 1));
            for (r, row) in parallel.chunks(k + 1).enumerate() {
                let first = colex_unrank_mask(&ranking.binom, r as u64, h);
                ranking.first_parts(k, first, &mut parts);
                let expected: Vec<u32> = parts[..=k].iter().map(|&p| p as u32).collect();
                assert_eq!(row, &expected[..], "layer {k} row {r}");
            }
        }
        assert!(ranking.build_table(ranking.cells(), true).is_none());
    }

    #[test]
    fn spread_places_bits_on_the_mask() {
        assert_eq!(spread(0b101, 0b1011_0100), 0b0010_0100);
        assert_eq!(spread(0b1111, 0b1011_0100), 0b1011_0100);
        assert_eq!(spread(0, u64::MAX), 0);
    }
}
