//! The twins game: o and x fill an R x C grid; adjacent equal marks pay the first player.
//!
//! Ranking. Layer k holds (the set S of k occupied cells) x (which h = ceil(k/2) of them
//! hold o). S is ranked in colex order among the R*C cells, the o stones in colex order
//! among the k positions of S: rank = rank(S) * C(k, h) + rank(o within S).
//! A move on an empty cell c, with j cells of S below it, shifts the S positions >= j up by
//! one, so the child's rank is (S part for c) * C(k+1, h') + (o part for j): the first
//! depends on S only, the second on the o-subset and j only.
//!
//! The sweep walks o-subsets inner and occupied sets outer. The S parts are recomputed
//! (O(R*C), with prefix sums) only when S changes. The o parts depend on nothing but
//! (k, rank of the o-subset, j), so each layer gets a table of them, built once on first
//! use: C(k, h) rows of k + 1 entries. Walking a layer reads that table row by row, so a
//! position costs one add and one table load per child, and `advance` is a few bit
//! operations. The table is at most about as large as the layer itself (k + 1 <= C(RC, k)
//! for 0 < k < RC); for boards too large to sweep it is not built, and children are ranked
//! from prefix sums over the o positions instead (still O(R*C) per position).

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use serde::{Deserialize, Serialize};

use super::{Board, Game, GameSpec, Move, Scores, check_weights, parse_integers};
use crate::error::{Error, Result};
use crate::random::SplitMix;
use crate::rank::{Binomial, colex_next_mask, colex_rank_mask, colex_unrank_mask};

/// Boards up to this many cells: a cell set fits a u64 mask and any layer count fits u64.
pub const MAX_CELLS: usize = 62;

/// Largest o-part table built for one layer, in entries (u32 each: 128 MiB). Every board
/// whose layers fit in memory stays far below it (4 x 5: 1.8 million entries at most);
/// beyond it the prefix-sum fallback ranks the children.
const MAX_TABLE_ENTRIES: u64 = 1 << 25;

/// Rows of an o-part table per parallel task.
const TABLE_BLOCK_ROWS: usize = 256;

/// A twins board: `vert` holds rows of C weights for the pairs (i,j)-(i+1,j),
/// `horiz` R rows of C-1 weights for the pairs (i,j)-(i,j+1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TwinsSpec {
    /// Rows R.
    pub rows: usize,
    /// Columns C.
    pub cols: usize,
    /// rows of C weights, row-major: the pair (i,j)-(i+1,j).
    pub vert: Vec<i64>,
    /// R rows of C-1 weights, row-major: the pair (i,j)-(i,j+1).
    pub horiz: Vec<i64>,
}

impl Board for TwinsSpec {
    /// The contest input, whose size comes from `rows`/`cols` where given and from the
    /// input's layout or count otherwise (see `infer_size`).
    fn parse(text: &str, rows: Option<usize>, cols: Option<usize>) -> Result<Self> {
        Self::parse_inferred(text, rows, cols)
    }

    fn random(rows: usize, cols: usize, rng: &mut SplitMix, max: u64) -> Result<Self> {
        Ok(TwinsSpec {
            rows,
            cols,
            vert: rng.weights((rows - 1) * cols, max),
            horiz: rng.weights(rows * (cols - 1), max),
        })
    }

    /// One row of weights per line, rows without weights left out, so `infer_size` reads
    /// the size back from it.
    fn to_input(&self) -> String {
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

    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
}

impl TwinsSpec {
    /// Parse the contest input for an R x C board (the file carries no size).
    pub fn parse(text: &str, rows: usize, cols: usize) -> Result<Self> {
        Self::from_numbers(parse_integers(text)?, rows, cols)
    }

    /// Parse the contest input, taking the size from `rows`/`cols` where given and from
    /// the input otherwise (see `infer_size`).
    pub fn parse_inferred(text: &str, rows: Option<usize>, cols: Option<usize>) -> Result<Self> {
        let nums = parse_integers(text)?;
        let (rows, cols) = infer_size(text, nums.len(), rows, cols)?;
        Self::from_numbers(nums, rows, cols)
    }

    fn from_numbers(nums: Vec<i64>, rows: usize, cols: usize) -> Result<Self> {
        check_size(rows, cols)?;
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

    /// The sum of all weights (both final scores add up to it); fails if it overflows.
    pub fn total_weight(&self) -> Result<i64> {
        let v = check_weights("vertical", &self.vert)?;
        let h = check_weights("horizontal", &self.horiz)?;
        v.checked_add(h)
            .ok_or_else(|| Error::input("the weights sum past 64-bit values"))
    }
}

fn check_size(rows: usize, cols: usize) -> Result<()> {
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
    Ok(())
}

/// The boards of at most `MAX_CELLS` cells that hold exactly `n` weights, squarest first.
/// (R-1)C + R(C-1) = n is (2R-1)(2C-1) = 2n+1, so they come from the divisors of 2n+1;
/// 1 x (n+1) and (n+1) x 1 always qualify when small enough, so a count alone rarely
/// settles the size.
pub fn sizes_for_count(n: usize) -> Vec<(usize, usize)> {
    let odd = 2 * n + 1;
    let mut sizes: Vec<(usize, usize)> = (1..=MAX_CELLS)
        .filter(|&r| odd.is_multiple_of(2 * r - 1))
        .map(|r| (r, (odd / (2 * r - 1)).div_ceil(2)))
        .filter(|&(r, c)| r * c <= MAX_CELLS)
        .collect();
    sizes.sort_by_key(|&(r, c)| (r.abs_diff(c), r));
    sizes
}

/// Numbers per non-blank line. A row of zero weights (C = 1, or R = 1's vertical part)
/// has no line at all, which is how `to_input` writes it.
fn line_lengths(text: &str) -> Vec<usize> {
    text.lines()
        .map(|l| l.split_whitespace().count())
        .filter(|&n| n > 0)
        .collect()
}

fn layout_matches(lines: &[usize], rows: usize, cols: usize) -> bool {
    let expected = std::iter::repeat_n(cols, rows - 1)
        .chain(std::iter::repeat_n(cols - 1, rows))
        .filter(|&n| n > 0);
    lines.iter().copied().eq(expected)
}

/// The boards holding `n` weights whose row layout is exactly the one of `text`.
pub(crate) fn sizes_by_layout(text: &str, n: usize) -> Vec<(usize, usize)> {
    let lines = line_lengths(text);
    sizes_for_count(n)
        .into_iter()
        .filter(|&(r, c)| layout_matches(&lines, r, c))
        .collect()
}

/// The size of a twins board of `n` weights written as `text`: the command line's where
/// given (a missing one follows from the count), else the only size whose row layout the
/// lines follow, else the only size the count allows.
fn infer_size(
    text: &str,
    n: usize,
    rows: Option<usize>,
    cols: Option<usize>,
) -> Result<(usize, usize)> {
    // (2R-1)(2C-1) = 2n+1 with one side known gives the other, if it is whole.
    let other_side = |known: usize, flag: &str, other: &str| -> Result<usize> {
        if known == 0 {
            return Err(Error::input(format!("{flag} must be at least 1")));
        }
        let odd = 2 * n + 1;
        let d = 2 * known - 1;
        if odd.is_multiple_of(d) {
            Ok((odd / d).div_ceil(2))
        } else {
            Err(Error::input(format!(
                "{n} twins weights fit no board with {flag} {known}; give {other} too, \
                 or check the input ((R-1) rows of C weights, then R rows of C-1)"
            )))
        }
    };
    match (rows, cols) {
        (Some(r), Some(c)) => return Ok((r, c)),
        (Some(r), None) => return Ok((r, other_side(r, "--rows", "--cols")?)),
        (None, Some(c)) => return Ok((other_side(c, "--cols", "--rows")?, c)),
        (None, None) => {}
    }
    // One line of weights says nothing about the rows: every count fits a one-row board,
    // and reading a contest board written on one line as 1 x (n+1) would be a quiet
    // wrong answer. Such input goes by the count, which names the sizes that fit.
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > 1
        && let [size] = sizes_by_layout(text, n)[..]
    {
        return Ok(size);
    }
    let sizes = sizes_for_count(n);
    if let [size] = sizes[..] {
        return Ok(size);
    }
    let names: Vec<String> = sizes.iter().map(|(r, c)| format!("{r} x {c}")).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => Err(Error::input(format!(
            "{n} twins weights fit {} and {last} boards; say which with --rows R --cols C",
            rest.join(", ")
        ))),
        _ => Err(Error::input(format!(
            "{n} twins weights fit no board of at most {MAX_CELLS} cells"
        ))),
    }
}

/// Whether `text` reads as a twins position (only o, x, . and /), which no young
/// position does: lets a young table name the game the text belongs to.
pub(crate) fn looks_like_position(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|ch| matches!(ch, 'o' | 'x' | 'O' | 'X' | '.' | '/'))
}

/// The twins game on one board: ranking tables and the pairs, built once.
pub struct Twins {
    spec: TwinsSpec,
    cells: usize,
    binom: Binomial,
    /// (cell, cell, weight) for every adjacent pair.
    pairs: Vec<(u8, u8, i64)>,
    total: i64,
    layer_sizes: Vec<u64>,
    /// Per layer k, built on first use by `unrank`: the o-part table (see the module
    /// notes), row r at r * (k + 1); None for the full layer and for tables too large.
    o_tables: Vec<OnceLock<Option<Arc<[u32]>>>>,
}

/// A twins position and the cached parts that rank its children.
#[derive(Debug, Clone)]
pub struct TwinsPosition {
    stones: usize,
    /// Occupied cells, as a bit mask over the cells.
    occupied: u64,
    /// Bit p set: the p-th lowest occupied cell holds an o.
    o: u64,
    rank_occupied: u64,
    rank_o: u64,
    /// C(stones, ceil(stones / 2)): the number of o-subsets per occupied set.
    per_set: u64,
    /// Number of empty cells; the first `empties` entries below are valid.
    empties: usize,
    /// Per empty cell, ascending: its part of the child's rank from the occupied set,
    /// already multiplied by C(k+1, h').
    empty_part: [u64; MAX_CELLS],
    /// Per empty cell: j = the number of occupied cells below it.
    empty_j: [u8; MAX_CELLS],
    /// The layer's o-part table (None: rank children from prefix sums) and the offset of
    /// this position's row in it, rank_o * (stones + 1).
    table: Option<Arc<[u32]>>,
    row: usize,
}

impl Twins {
    /// Build the game for a board; fails for boards too large to rank.
    pub fn new(spec: TwinsSpec) -> Result<Self> {
        let (r, c) = (spec.rows, spec.cols);
        if r == 0
            || c == 0
            || r.saturating_mul(c) > MAX_CELLS
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
            o_tables: (0..=cells).map(|_| OnceLock::new()).collect(),
        })
    }

    /// The sum of all weights.
    pub fn total_weight(&self) -> i64 {
        self.total
    }

    /// What a position of this board looks like, with an example, for error messages.
    fn position_form(&self) -> String {
        let (r, c) = (self.spec.rows, self.spec.cols);
        // The 3 x 3 example cut (or padded with empty cells) to the board, then thinned
        // so it stays legal (o = x or x + 1) where the cut dropped the x.
        const PATTERN: [&[u8]; 3] = [b"o.x", b".o.", b"..."];
        let mut marks: Vec<u8> = (0..r * c)
            .map(|cell| {
                let (i, j) = (cell / c, cell % c);
                PATTERN
                    .get(i)
                    .and_then(|row| row.get(j))
                    .copied()
                    .unwrap_or(b'.')
            })
            .collect();
        let xs = marks.iter().filter(|&&m| m == b'x').count();
        let mut os = marks.iter().filter(|&&m| m == b'o').count();
        for m in marks.iter_mut().rev() {
            if os <= xs + 1 {
                break;
            }
            if *m == b'o' {
                *m = b'.';
                os -= 1;
            }
        }
        let rows: Vec<String> = marks
            .chunks(c)
            .map(|row| String::from_utf8_lossy(row).into_owned())
            .collect();
        format!(
            "twins {r} x {c} positions look like {} (rows of o, x, . separated by /)",
            rows.join("/")
        )
    }

    /// Marks per cell, row-major: 0 empty, 1 o, 2 x.
    pub fn marks(&self, pos: &TwinsPosition) -> Vec<u8> {
        let mut marks = vec![0u8; self.cells];
        let mut rest = pos.occupied;
        let mut p = 0;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            marks[c] = if pos.o >> p & 1 == 1 { 1 } else { 2 };
            rest &= rest - 1;
            p += 1;
        }
        marks
    }

    fn position_from_marks(&self, marks: &[u8]) -> TwinsPosition {
        let mut occupied = 0u64;
        let mut o = 0u64;
        let mut p = 0;
        for (c, &m) in marks.iter().enumerate() {
            if m != 0 {
                occupied |= 1 << c;
                o |= u64::from(m == 1) << p;
                p += 1;
            }
        }
        // No table here: query and play build positions one at a time, and their children
        // are ranked from prefix sums.
        self.position(
            occupied,
            o,
            colex_rank_mask(&self.binom, occupied),
            colex_rank_mask(&self.binom, o),
            None,
        )
    }

    fn position(
        &self,
        occupied: u64,
        o: u64,
        rank_occupied: u64,
        rank_o: u64,
        table: Option<Arc<[u32]>>,
    ) -> TwinsPosition {
        let k = occupied.count_ones() as usize;
        let mut pos = TwinsPosition {
            stones: k,
            occupied,
            o,
            rank_occupied,
            rank_o,
            per_set: self.binom.get(k, k.div_ceil(2)),
            empties: 0,
            empty_part: [0; MAX_CELLS],
            empty_j: [0; MAX_CELLS],
            table,
            row: rank_o as usize * (k + 1),
        };
        self.refresh_occupied(&mut pos);
        pos
    }

    /// Recompute the per-empty-cell rank parts after the occupied set changed.
    fn refresh_occupied(&self, pos: &mut TwinsPosition) {
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

    /// The child's o-rank for each insertion point j in 0..=k, for `k` stones of which the
    /// ones at the positions in the mask `o` hold o: out[j] when the new stone lands at
    /// position j of S.
    fn o_parts(&self, k: usize, o: u64, out: &mut [u64; MAX_CELLS + 1]) {
        let o_moves = k.is_multiple_of(2);
        let mut pos = [0u8; MAX_CELLS];
        let mut h = 0;
        let mut rest = o;
        while rest != 0 {
            pos[h] = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            h += 1;
        }
        // suffix[l] = sum over o stones l.. of their rank terms after shifting up by one
        // position in S (and, for an o move, also up by one place among the o stones).
        let mut suffix = [0u64; MAX_CELLS + 1];
        for l in (0..h).rev() {
            let t = pos[l] as usize + 1;
            suffix[l] = suffix[l + 1] + self.binom.get(t, l + 1 + usize::from(o_moves));
        }
        let (mut prefix, mut p) = (0u64, 0usize);
        for (j, slot) in out.iter_mut().enumerate().take(k + 1) {
            while p < h && (pos[p] as usize) < j {
                prefix += self.binom.get(pos[p] as usize, p + 1);
                p += 1;
            }
            let new = if o_moves { self.binom.get(j, p + 1) } else { 0 };
            *slot = prefix + new + suffix[p];
        }
    }

    /// Layer k's o-part table, built on first use; None for the full layer and where the
    /// table would be too large (or its entries would not fit u32). The lazy build is
    /// serial: it may run inside a rayon task, where a nested parallel build could steal a
    /// task that asks for the same table and block on it.
    fn o_table(&self, k: usize) -> Option<Arc<[u32]>> {
        self.o_tables[k]
            .get_or_init(|| self.build_o_table(k, false))
            .clone()
    }

    /// `o_table(k)`'s rows, built in parallel when `parallel` (blocks of rows, each block
    /// started from its first row's unranked o-subset and stepped in colex order).
    fn build_o_table(&self, k: usize, parallel: bool) -> Option<Arc<[u32]>> {
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
            let mut o = colex_unrank_mask(&self.binom, (b * TABLE_BLOCK_ROWS) as u64, h);
            for (r, row) in out.chunks_mut(k + 1).enumerate() {
                if r > 0 {
                    o = colex_next_mask(o);
                }
                self.o_parts(k, o, &mut parts);
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

impl Game for Twins {
    fn name(&self) -> &'static str {
        "twins"
    }

    fn describe_value(&self, value: i64) -> String {
        let second = self.total_weight() - value;
        format!("{value} (final scores: first {value}, second {second})")
    }

    fn value_meaning(&self) -> &'static str {
        "value: first's final score, with perfect play"
    }

    fn final_scores(&self, value: i64) -> Option<Scores> {
        Some(Scores {
            first: value,
            second: self.total_weight() - value,
        })
    }

    /// The pairs already decided (both cells filled): same marks score for first,
    /// different marks for second.
    fn board_scores(&self, pos: &TwinsPosition) -> Option<Scores> {
        let marks = self.marks(pos);
        let mut s = Scores::default();
        for &(a, b, w) in &self.pairs {
            let (a, b) = (marks[a as usize], marks[b as usize]);
            if a != 0 && b != 0 {
                if a == b {
                    s.first += w;
                } else {
                    s.second += w;
                }
            }
        }
        Some(s)
    }

    fn line_result(&self, scores: Scores) -> i64 {
        scores.first
    }

    fn contest_answer(&self, root: i64) -> String {
        format!("{root}\n{}", self.total_weight() - root)
    }

    type Position = TwinsPosition;

    fn spec(&self) -> Option<GameSpec> {
        Some(GameSpec::Twins(self.spec.clone()))
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

    /// Layer k's o-part table, built by every worker. Built serially in the first chunk,
    /// it held the other worker idle: layers 15 and 14 of twins 4 x 4 (6435 and 3432
    /// rows) took 0.91 and 1.32 ms on two threads against 1.07 and 2.32 on one.
    fn prepare_layer(&self, k: usize) {
        if self.o_tables[k].get().is_none() {
            // Built outside the cell, so no thread can wait on it while this one is busy;
            // a table some query built meanwhile wins, and they are equal.
            let _ = self.o_tables[k].set(self.build_o_table(k, true));
        }
    }

    fn unrank(&self, k: usize, rank: u64) -> TwinsPosition {
        let per_set = self.binom.get(k, k.div_ceil(2));
        let (rank_occupied, rank_o) = (rank / per_set, rank % per_set);
        self.position(
            colex_unrank_mask(&self.binom, rank_occupied, k),
            colex_unrank_mask(&self.binom, rank_o, k.div_ceil(2)),
            rank_occupied,
            rank_o,
            self.o_table(k),
        )
    }

    fn rank(&self, pos: &TwinsPosition) -> u64 {
        pos.rank_occupied * pos.per_set + pos.rank_o
    }

    fn stones(&self, pos: &TwinsPosition) -> usize {
        pos.stones
    }

    #[inline]
    fn advance(&self, pos: &mut TwinsPosition) {
        pos.rank_o += 1;
        if pos.rank_o < pos.per_set {
            // More than one o-subset, so o is not empty.
            pos.o = colex_next_mask(pos.o);
            pos.row += pos.stones + 1;
        } else {
            pos.rank_o = 0;
            pos.row = 0;
            pos.o = (1u64 << pos.stones.div_ceil(2)) - 1;
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

    fn terminal_value(&self, pos: &TwinsPosition) -> i64 {
        // On a full board position p of S is cell p, so `o` is the mask of o cells.
        let o_mask = pos.o;
        self.pairs
            .iter()
            .filter(|&&(a, b, _)| (o_mask >> a & 1) == (o_mask >> b & 1))
            .map(|&(_, _, w)| w)
            .sum()
    }

    #[inline]
    fn for_each_child(&self, pos: &TwinsPosition, mut f: impl FnMut(u64, i64)) {
        let n = pos.empties;
        let (parts, js) = (&pos.empty_part[..n], &pos.empty_j[..n]);
        match &pos.table {
            Some(table) => {
                let row = &table[pos.row..pos.row + pos.stones + 1];
                for (&part, &j) in parts.iter().zip(js) {
                    f(part + u64::from(row[j as usize]), 0);
                }
            }
            None => {
                if n == 0 {
                    return;
                }
                let mut o_part = [0u64; MAX_CELLS + 1];
                self.o_parts(pos.stones, pos.o, &mut o_part);
                for (&part, &j) in parts.iter().zip(js) {
                    f(part + o_part[j as usize], 0);
                }
            }
        }
    }

    fn for_each_move_in_order(
        &self,
        pos: &TwinsPosition,
        mut f: impl FnMut(u64, i64) -> std::ops::ControlFlow<()>,
    ) {
        // `for_each_child` reports the empty cells in cell order, which is `moves` order.
        let mut stopped = false;
        self.for_each_child(pos, |child, reward| {
            if !stopped {
                stopped = f(child, reward).is_break();
            }
        });
    }

    fn moves(&self, pos: &TwinsPosition) -> Vec<Move<TwinsPosition>> {
        let mark = if pos.stones.is_multiple_of(2) { 1 } else { 2 };
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
        let bad = |why: String| {
            Error::input(format!(
                "bad twins position {}: {why}; {}",
                crate::error::excerpt(text),
                self.position_form()
            ))
        };
        let (r, c) = (self.spec.rows, self.spec.cols);
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("empty") {
            return Ok(self.position_from_marks(&vec![0; self.cells]));
        }
        if trimmed.is_empty() {
            return Err(bad("no position given".into()));
        }
        // Young positions are digits and commas, which no twins position holds.
        if trimmed.chars().any(|ch| ch.is_ascii_digit())
            && trimmed
                .chars()
                .all(|ch| ch.is_ascii_digit() || ch == ',' || ch.is_whitespace())
        {
            return Err(bad(format!(
                "this is a twins table; {} looks like a young position",
                crate::error::excerpt(trimmed)
            )));
        }
        let lines: Vec<&str> = trimmed.split('/').collect();
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

    /// The table path (positions from `unrank`) and the prefix-sum path (positions built
    /// from marks) give the same children, on every position of small boards.
    #[test]
    fn table_and_prefix_sums_rank_children_alike() {
        for (r, c) in [(1, 1), (1, 4), (2, 3), (3, 3), (2, 5)] {
            let spec = TwinsSpec {
                rows: r,
                cols: c,
                vert: vec![1; (r - 1) * c],
                horiz: vec![1; r * (c - 1)],
            };
            let game = Twins::new(spec).unwrap();
            for k in 0..=game.cells() {
                let mut pos = game.unrank(k, 0);
                assert_eq!(pos.table.is_some(), k < game.cells());
                for i in 0..game.layer_size(k) {
                    if i > 0 {
                        game.advance(&mut pos);
                    }
                    let slow = game.position_from_marks(&game.marks(&pos));
                    assert!(slow.table.is_none());
                    assert_eq!(game.rank(&slow), i);
                    let (mut fast_children, mut slow_children) = (Vec::new(), Vec::new());
                    game.for_each_child(&pos, |ch, _| fast_children.push(ch));
                    game.for_each_child(&slow, |ch, _| slow_children.push(ch));
                    assert_eq!(fast_children, slow_children);
                    assert_eq!(fast_children.len(), game.cells() - k);
                }
            }
        }
    }

    #[test]
    fn o_tables_built_in_blocks_match_each_row_from_scratch() {
        // 4 x 4: up to C(15, 8) = 6435 rows, so many blocks, the last one partial.
        let spec = TwinsSpec {
            rows: 4,
            cols: 4,
            vert: vec![1; 12],
            horiz: vec![1; 12],
        };
        let game = Twins::new(spec).unwrap();
        let mut parts = [0u64; MAX_CELLS + 1];
        for k in 0..game.cells() {
            let h = k.div_ceil(2);
            let parallel = game.build_o_table(k, true).unwrap();
            let serial = game.build_o_table(k, false).unwrap();
            assert_eq!(parallel, serial);
            let rows = game.binom.get(k, h) as usize;
            assert_eq!(parallel.len(), rows * (k + 1));
            for (r, row) in parallel.chunks(k + 1).enumerate() {
                game.o_parts(k, colex_unrank_mask(&game.binom, r as u64, h), &mut parts);
                let expected: Vec<u32> = parts[..=k].iter().map(|&p| p as u32).collect();
                assert_eq!(row, &expected[..], "layer {k} row {r}");
            }
        }
        assert!(game.build_o_table(game.cells(), true).is_none());
    }
}
