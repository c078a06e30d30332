//! The young game: stones fill a Young diagram inside an n x m box. This file holds the
//! game and its ranking; `board.rs` the board and its input, `templates.rs` the suffix
//! templates that let the sweep treat runs of positions at once.
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
//!
//! The cursor keeps, per row, the child's rank minus the rank (`YoungPosition`); these depend
//! on the row and the rows above only, so stepping to the successor (which changes the rows
//! from some row down) redoes just those rows, with one table entry (`Step`) per row.

mod board;
mod gameplay;
mod templates;

use templates::{Head, SuffixChain, Templates};

pub use board::YoungBoard;

use super::{Edge, Game, Move, RunSink, Values, check_weights};
use crate::error::{Error, Result};

/// The young game on one board: binomial tables and suffix templates, built once.
pub struct Young {
    board: YoungBoard,
    n: usize,
    m: usize,
    /// T(rows, r, s) at `(rows * (m + 2) + r) * s_stride + s` (rank and unrank).
    counts: Vec<u64>,
    s_stride: usize,
    /// Per (row, r, s) with r <= s <= (rows below + 1) * r, the two differences the
    /// stepping cursor needs (see `Step`), one block per (row, r), rows top to bottom: the
    /// blocks of the bottom rows, which change most often, are small and adjacent.
    steps: Vec<Step>,
    /// Per row j and length r (at `j * (m + 1) + r`): where its step entries start and the
    /// rewards of its move (zero for a full row, which has none).
    rows_info: Vec<RowInfo>,
    /// For a row i and `fill` cells to spread over the n - 1 - i rows below it:
    /// (fill / (n - 1 - i), fill % (n - 1 - i)) at `i * split_stride + fill`.
    splits: Vec<[u8; 2]>,
    split_stride: usize,
    layer_sizes: Vec<u64>,
    value_range: (i64, i64),
    /// Suffix templates (see `Templates`).
    tpl: Templates,
}

/// Completions of at most this many suffixes get a template. Longer runs mean more moves
/// shared by a whole run; 128 measured 4% fewer instructions than 64 (young 13 x 13) for
/// 12 MiB of templates at 15 x 15, and 256 gained little more for twice the memory.
const TEMPLATE_MAX: u64 = 128;
/// Moves of at least this many consecutive suffixes of a template with consecutive
/// children form a chain (a vectorised pass in the sweep); shorter runs go move by move.
const CHAIN_MIN: usize = 3;
const NO_TEMPLATE: u32 = u32::MAX;

/// For a row with `b` rows below it, length r and rem s (the cells of this row and below):
/// `child` = T(b, r + 1, s + 1) - T(b, r, s), what the row's own term gains when it takes the
/// stone; `carry` = T(b, r, s + 1) - T(b, r, s), what its term gains when a row below takes
/// it (its rem grows by one). Both wrapping.
#[derive(Debug, Clone, Copy, Default)]
struct Step {
    child: u64,
    carry: u64,
}

#[derive(Debug, Clone, Copy)]
struct RowInfo {
    /// Index of the (row, r) block in `steps`, less r (wrapping): entry = base + rem.
    base: usize,
    /// Reward of a stone at the end of the row: [0] = +a (first player), [1] = -b.
    reward: [i64; 2],
}

/// One child slot per row: the child's rank minus this rank (wrapping), and the reward.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct RowChild {
    delta: u64,
    reward: i64,
}

/// Rows a board may have (the movable rows are a 64-bit mask).
const MAX_ROWS: usize = 64;

/// Row lengths, top to bottom (derefs to a slice of n lengths), stored after a sentinel
/// entry m so that "the row above" needs no special case for the top row.
#[derive(Clone, PartialEq, Eq)]
pub struct Rows {
    n: usize,
    cells: [u8; MAX_ROWS + 1 + ROW_PAD],
}

/// Template row lengths are stored, and copied, in blocks of this many (zero-padded), so
/// `Rows` has room for the overrun past its last row (which stays zero).
const ROW_PAD: usize = 16;

impl Rows {
    fn new(m: usize, lengths: &[u32]) -> Self {
        let mut cells = [0; MAX_ROWS + 1 + ROW_PAD];
        cells[0] = m as u8;
        for (cell, &r) in cells[1..=lengths.len()].iter_mut().zip(lengths) {
            *cell = r as u8;
        }
        Rows {
            n: lengths.len(),
            cells,
        }
    }
}

impl std::ops::Deref for Rows {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.cells[1..=self.n]
    }
}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A diagram with its layer and rank, plus what ranks its children: for every row that can
/// take a stone, the difference between the child's rank and this one's. Stepping to the
/// next diagram changes only the rows from some row down, so only their part is redone.
///
/// With rank = sum_i T(b_i, r_i, rem_i), a stone on row j raises rem_i of rows i <= j by one
/// and r_j by one, so child - rank = acc_j + child(j), where acc_j = sum over rows i < j of
/// carry(i). acc_j depends on rows above j only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YoungPosition {
    /// Stones on the board (the layer).
    pub stones: usize,
    /// Rank within the layer.
    pub rank: u64,
    /// Row lengths, top row first.
    pub rows: Rows,
    /// First row of the suffix covered by a template; rows 0..j are the prefix.
    j: usize,
    /// The template, the current suffix (global entry index) and the template's last one.
    head: u32,
    entry: usize,
    last: usize,
    /// acc_j: what the prefix rows' terms gain when a suffix row takes a stone.
    tacc: u64,
    /// Bit i set: prefix row i (< j) can take a stone.
    movable: u64,
    /// Per prefix row; meaningful where `movable` is set.
    kids: [RowChild; MAX_ROWS],
    /// Per row i <= j: rem_i and acc_i.
    rem: [u32; MAX_ROWS + 1],
    acc: [u64; MAX_ROWS + 1],
}

impl Young {
    /// Build the game for a board; fails for boards whose counts overflow 64 bits.
    pub fn new(board: YoungBoard) -> Result<Self> {
        let (n, m) = (board.rows, board.cols);
        // Sizes may come from a table header, so no arithmetic on them may overflow.
        let cells = n.checked_mul(m);
        if n == 0 || m == 0 || cells.is_none_or(|c| board.a.len() != c || board.b.len() != c) {
            return Err(Error::input("young board: dimensions and weights disagree"));
        }
        if n > MAX_ROWS || m > 64 {
            return Err(Error::input(format!(
                "board size {n} x {m} is too large: at most {MAX_ROWS} rows and 64 columns"
            )));
        }
        // C(n + m, n) diagrams in all: refuse before sizing any table if that passes u64.
        crate::game::rank::Binomial::new(n + m).map_err(|_| {
            Error::input(format!(
                "board size {n} x {m} is too large: counts overflow 64 bits"
            ))
        })?;
        let hi = check_weights("a", &board.a)?;
        let lo = -check_weights("b", &board.b)?;
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
        let t = |b: usize, r: usize, s: usize| counts[(b * r_stride + r) * s_stride + s];
        let mut steps = Vec::new();
        let mut rows_info = Vec::with_capacity(n * (m + 1));
        for j in 0..n {
            let b = n - 1 - j;
            for r in 0..=m {
                let reward = if r < m {
                    [board.a[j * m + r], -board.b[j * m + r]]
                } else {
                    [0, 0]
                };
                rows_info.push(RowInfo {
                    base: steps.len().wrapping_sub(r),
                    reward,
                });
                for s in r..=(b + 1) * r {
                    steps.push(Step {
                        child: t(b, r + 1, s + 1).wrapping_sub(t(b, r, s)),
                        carry: t(b, r, s + 1).wrapping_sub(t(b, r, s)),
                    });
                }
            }
        }
        let split_stride = cells + 1;
        let mut splits = vec![[0u8; 2]; n * split_stride];
        for i in 0..n - 1 {
            let span = n - 1 - i;
            for fill in 0..split_stride {
                // q <= m <= 64 and the remainder < n <= 64 whenever fill < span * (m + 1).
                splits[i * split_stride + fill] = [(fill / span) as u8, (fill % span) as u8];
            }
        }
        let mut young = Young {
            board,
            splits,
            split_stride,
            n,
            m,
            counts,
            s_stride,
            steps,
            rows_info,
            layer_sizes: Vec::new(),
            value_range: (lo, hi),
            tpl: Templates::default(),
        };
        young.layer_sizes = (0..=cells)
            .map(|k| young.shorter(n - 1, m + 1, k))
            .collect();
        let total: u128 = young.layer_sizes.iter().map(|&x| x as u128).sum();
        if total > u64::MAX as u128 {
            return Err(too_large());
        }
        young.tpl = young.build_templates();
        Ok(young)
    }

    /// The row lengths of position `rank` of layer `k`, top row first, each handed to `set`
    /// with its row's index: the walk `unrank` and `move_in_order` share.
    #[inline(always)]
    fn unrank_rows(&self, k: usize, rank: u64, mut set: impl FnMut(usize, usize)) {
        let (mut left, mut rem, mut cap) = (rank, k, self.m);
        for i in 0..self.n {
            let below = self.n - 1 - i;
            // The longest row length whose preceding block does not pass `left`.
            let mut v = cap.min(rem);
            while self.shorter(below, v, rem) > left {
                v -= 1;
            }
            left -= self.shorter(below, v, rem);
            set(i, v);
            rem -= v;
            cap = v;
        }
    }

    /// How long row `i` of `pos` may grow: the board's width for the top row, else the
    /// length of the row above it.
    fn room(&self, pos: &YoungPosition, i: usize) -> usize {
        match i {
            0 => self.m,
            _ => pos.rows[i - 1] as usize,
        }
    }

    #[inline(always)]
    /// T(rows, r, s) (the module's note): the diagrams whose current row is shorter than r.
    fn shorter(&self, rows: usize, r: usize, s: usize) -> u64 {
        self.counts[(rows * (self.m + 2) + r) * self.s_stride + s]
    }

    fn position_from_rows(&self, rows: Vec<u32>) -> YoungPosition {
        let n = self.n;
        let stones: usize = rows.iter().map(|&r| r as usize).sum();
        let mut pos = YoungPosition {
            stones,
            rank: 0,
            rows: Rows::new(self.m, &rows),
            j: 0,
            head: 0,
            entry: 0,
            last: 0,
            tacc: 0,
            movable: 0,
            kids: [RowChild::default(); MAX_ROWS],
            rem: [0; MAX_ROWS + 1],
            acc: [0; MAX_ROWS + 1],
        };
        let (mut prefix_rank, mut rem, mut acc) = (0u64, stones, 0u64);
        let par = stones & 1;
        let mut j = 0;
        let id = loop {
            let (cap, r) = (
                u32::from(pos.rows.cells[j]),
                u32::from(pos.rows.cells[j + 1]),
            );
            pos.rem[j] = rem as u32;
            pos.acc[j] = acc;
            debug_assert!(j < n, "no template for {rows:?}");
            let id = self.template_at(j, cap as usize, rem);
            if id != NO_TEMPLATE {
                break id;
            }
            let (step, reward) = self.slot(j, r, rem, par);
            pos.movable |= u64::from(r < cap) << j;
            pos.kids[j] = RowChild {
                delta: acc.wrapping_add(step.child),
                reward,
            };
            acc = acc.wrapping_add(step.carry);
            prefix_rank += self.shorter(n - 1 - j, r as usize, rem);
            rem -= r as usize;
            j += 1;
        };
        let mut idx = 0u64;
        let mut left = rem;
        for (i, &r) in rows.iter().enumerate().skip(j) {
            idx += self.shorter(n - 1 - i, r as usize, left);
            left -= r as usize;
        }
        let Head { first, len, .. } = self.tpl.heads[id as usize];
        debug_assert!(idx < u64::from(len));
        pos.head = id;
        pos.j = j;
        pos.tacc = acc;
        pos.entry = first as usize + idx as usize;
        pos.last = (first + len - 1) as usize;
        pos.rank = prefix_rank + idx;
        debug_assert!(
            self.tpl.rows[self.row_range(&pos)]
                .iter()
                .zip(&rows[j..])
                .all(|(&a, &b)| u32::from(a) == b)
        );
        pos
    }

    /// What a position of this board looks like, with an example, for error messages.
    fn position_form(&self) -> String {
        let example: Vec<String> = [3, 1]
            .into_iter()
            .chain(std::iter::repeat(0))
            .take(self.n)
            .map(|r: usize| r.min(self.m).to_string())
            .collect();
        format!(
            "young {} x {} positions look like {} (row lengths, non-increasing, each at most {}; \
             zeros at the end may be left off)",
            self.n,
            self.m,
            example.join(","),
            self.m
        )
    }

    /// What a template kid's `delta` is relative to: rank - entry + acc_j (wrapping).
    #[inline(always)]
    fn suffix_base(&self, pos: &YoungPosition) -> u64 {
        pos.rank
            .wrapping_sub(pos.entry as u64)
            .wrapping_add(pos.tacc)
    }

    /// The chains of the cursor's template.
    #[inline(always)]
    fn head_chains(&self, pos: &YoungPosition) -> &[SuffixChain] {
        let (start, end) = self.tpl.heads[pos.head as usize].chains;
        &self.tpl.chains[start as usize..end as usize]
    }

    /// The moves of the suffix rows (those of the cursor's template): its chains through
    /// the current suffix, then its kids.
    #[inline(always)]
    fn for_each_suffix_child(&self, pos: &YoungPosition, mut f: impl FnMut(u64, i64)) {
        let base = self.suffix_base(pos);
        let par = pos.stones & 1;
        let at = pos.entry as u32;
        for chain in self.head_chains(pos) {
            if (chain.at..chain.at + chain.len).contains(&at) {
                let skip = at - chain.at;
                let child = base.wrapping_add(chain.delta).wrapping_add(u64::from(skip));
                f(
                    child,
                    self.tpl.chain_rewards[par][(chain.rewards + skip) as usize],
                );
            }
        }
        let start = self.tpl.entries[pos.entry].kids as usize;
        let end = self.tpl.entries[pos.entry + 1].kids as usize;
        for kid in &self.tpl.kids[start..end] {
            f(base.wrapping_add(kid.delta), kid.reward[par]);
        }
    }

    /// Where the current suffix's row lengths lie in `tpl.rows`.
    #[inline(always)]
    fn row_range(&self, pos: &YoungPosition) -> std::ops::Range<usize> {
        let start = self.tpl.entries[pos.entry].rows as usize;
        start..start + (self.n - pos.j)
    }

    /// The step entry and the move reward of row j with length r and rem `rem` (cells in
    /// this row and below), for a stone count of parity `par`.
    #[inline(always)]
    fn slot(&self, j: usize, r: u32, rem: usize, par: usize) -> (Step, i64) {
        let cell = j * (self.m + 1) + r as usize;
        let row = &self.rows_info[cell];
        let idx = row.base.wrapping_add(rem);
        // In range for every diagram: `base` is the start of the (row, r) block less r, and
        // the block holds r <= rem <= (rows below + 1) * r. Since suffix templates took
        // stepping off the hot path, the bounds check costs nothing measurable.
        let step = self.steps[idx];
        (step, row.reward[par])
    }

    /// Step past the last suffix of a template: the lexicographic successor changes a
    /// prefix row (the lowest movable one above the last non-empty row), lays the rest out
    /// as flat as possible, and starts the first suffix of a new template.
    #[cold]
    #[inline(never)]
    fn next_run(&self, pos: &mut YoungPosition) {
        let n = self.n;
        let j = pos.j;
        let cells = &mut pos.rows.cells;
        // Rows from j down hold rem_j cells; if none, the last non-empty row is above j.
        let len = if pos.rem[j] > 0 {
            n
        } else {
            (0..j)
                .rev()
                .find(|&l| cells[l + 1] > 0)
                .map_or(0, |l| l + 1)
        };
        debug_assert!(len >= 2, "advance past the last position of a layer");
        let candidates = pos.movable & ((1u64 << (len - 1)) - 1);
        debug_assert!(candidates != 0, "advance past the last position of a layer");
        let i = 63 - candidates.leading_zeros() as usize;
        debug_assert!(i < j);
        // The rows below i share their cells less one: `extra` rows of q + 1, then q.
        let fill = pos.rem[i + 1] as usize - 1;
        let split = self.splits[i * self.split_stride + fill];
        let (q, extra) = (u32::from(split[0]), usize::from(split[1]));
        let mid = i + 1 + extra;
        cells[i + 1] += 1;
        for l in i + 1..n {
            cells[l + 1] = (q + u32::from(l < mid)) as u8;
        }
        let par = pos.stones & 1;
        let mut movable = pos.movable & ((1u64 << i) - 1);
        let mut acc = pos.acc[i];
        let mut rem = pos.rem[i] as usize;
        let mut l = i;
        let id = loop {
            let (cap, r) = (u32::from(cells[l]), u32::from(cells[l + 1]));
            let (step, reward) = self.slot(l, r, rem, par);
            movable |= u64::from(r < cap) << l;
            pos.kids[l] = RowChild {
                delta: acc.wrapping_add(step.child),
                reward,
            };
            acc = acc.wrapping_add(step.carry);
            rem -= r as usize;
            l += 1;
            pos.acc[l] = acc;
            pos.rem[l] = rem as u32;
            let id = self.template_at(l, r as usize, rem);
            if id != NO_TEMPLATE {
                break id;
            }
        };
        let Head { first, len, .. } = self.tpl.heads[id as usize];
        pos.head = id;
        pos.movable = movable;
        pos.j = l;
        pos.tacc = acc;
        pos.entry = first as usize;
        pos.last = (first + len - 1) as usize;
        debug_assert_eq!(
            &self.tpl.rows[self.row_range(pos)],
            &pos.rows.cells[l + 1..=n]
        );
    }
}

impl Game for Young {
    type Position = YoungPosition;

    /// The suffix templates, three times over: while they are built the parts and the
    /// joined copy are held at once, and the heap they leave is not all returned (young
    /// 14 x 14 and 16 x 16 peaked 19 and 30 MiB above their layers and the baseline, with 8
    /// and about 12 MiB of templates).
    fn table_bytes(&self) -> u64 {
        3 * self.tpl.bytes()
    }

    fn last_layer(&self) -> usize {
        self.n * self.m
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.layer_sizes[k]
    }

    fn values(&self) -> Values {
        let (lo, hi) = self.value_range;
        Values::Scores { lo, hi }
    }

    fn unrank(&self, k: usize, rank: u64) -> YoungPosition {
        let mut rows = vec![0u32; self.n];
        self.unrank_rows(k, rank, |i, v| rows[i] = v as u32);
        let pos = self.position_from_rows(rows);
        debug_assert_eq!(pos.rank, rank);
        pos
    }

    fn rank(&self, pos: &YoungPosition) -> u64 {
        pos.rank
    }

    fn layer_of(&self, pos: &YoungPosition) -> usize {
        pos.stones
    }

    #[inline(always)]
    fn advance(&self, pos: &mut YoungPosition) {
        pos.rank += 1;
        if pos.entry < pos.last {
            // Same prefix: the next suffix of the template. Copy its row lengths in whole
            // zero-padded blocks (the padding lands on rows past the last, which are zero).
            pos.entry += 1;
            let j = pos.j;
            let start = self.tpl.entries[pos.entry].rows as usize;
            let src: &[u8; ROW_PAD] = self.tpl.rows[start..start + ROW_PAD]
                .try_into()
                .expect("a slice of ROW_PAD bytes");
            let dst: &mut [u8; ROW_PAD] = (&mut pos.rows.cells[j + 1..j + 1 + ROW_PAD])
                .try_into()
                .expect("a slice of ROW_PAD bytes");
            *dst = *src;
            let len = self.n - j;
            if len > ROW_PAD {
                let len = len.next_multiple_of(ROW_PAD);
                pos.rows.cells[j + 1 + ROW_PAD..j + 1 + len]
                    .copy_from_slice(&self.tpl.rows[start + ROW_PAD..start + len]);
            }
            return;
        }
        self.next_run(pos);
    }

    /// The full board: nothing more to score.
    fn ended(&self, pos: &YoungPosition) -> Option<i64> {
        (pos.stones == self.n * self.m).then_some(0)
    }

    /// A run is the positions of one template from the cursor on: they share the prefix
    /// rows, so each movable prefix row is one shared move (its child's rank minus the
    /// position's rank is the same for the whole run), and the template lists the suffix
    /// rows' moves of all its positions in one flat array.
    #[inline(always)]
    fn visit_runs(&self, k: usize, start: u64, len: usize, sink: &mut impl RunSink) {
        let mut pos = self.unrank(k, start);
        let par = k & 1;
        let mut left = len;
        loop {
            let run = left.min(pos.last - pos.entry + 1);
            let mut bits = pos.movable;
            if bits == 0 {
                sink.run(pos.rank, run);
            } else {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let kid = pos.kids[i];
                sink.run_with_range(pos.rank, run, pos.rank.wrapping_add(kid.delta), kid.reward);
            }
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let kid = pos.kids[i];
                sink.range(0, run, pos.rank.wrapping_add(kid.delta), kid.reward);
            }
            let base = self.suffix_base(&pos);
            let (lo, hi) = (pos.entry as u32, (pos.entry + run) as u32);
            let rewards = &self.tpl.chain_rewards[par];
            let head = self.tpl.heads[pos.head as usize];
            if lo == head.first && hi == head.first + head.len {
                // The whole template, as for every run but those at a chunk's ends: no
                // clipping (measured: 0.98 s against 1.08 s at young 15 x 15, one thread).
                for chain in self.head_chains(&pos) {
                    let first = chain.rewards as usize;
                    sink.chain(
                        (chain.at - lo) as usize,
                        base.wrapping_add(chain.delta),
                        &rewards[first..first + chain.len as usize],
                    );
                }
            } else {
                for chain in self.head_chains(&pos) {
                    let from = chain.at.max(lo);
                    let to = (chain.at + chain.len).min(hi);
                    if from < to {
                        let skip = from - chain.at;
                        let first = (chain.rewards + skip) as usize;
                        sink.chain(
                            (from - lo) as usize,
                            base.wrapping_add(chain.delta).wrapping_add(u64::from(skip)),
                            &rewards[first..first + (to - from) as usize],
                        );
                    }
                }
            }
            let kids = self.tpl.entries[pos.entry].kids as usize
                ..self.tpl.entries[pos.entry + run].kids as usize;
            for kid in &self.tpl.kids[kids] {
                sink.single(
                    kid.at as usize - pos.entry,
                    base.wrapping_add(kid.delta),
                    kid.reward[par],
                );
            }
            left -= run;
            if left == 0 {
                return;
            }
            // The run ended at the template's last suffix; `next_run` reads only the
            // prefix rows, so the suffix rows need not be copied on the way.
            pos.rank += run as u64;
            pos.entry = pos.last;
            self.next_run(&mut pos);
        }
    }

    #[inline]
    fn for_each_child(&self, pos: &YoungPosition, mut f: impl FnMut(Edge)) {
        let layer = pos.stones + 1;
        let mut bits = pos.movable;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let kid = pos.kids[i];
            f(Edge {
                layer,
                rank: pos.rank.wrapping_add(kid.delta),
                reward: kid.reward,
            });
        }
        self.for_each_suffix_child(pos, |rank, reward| {
            f(Edge {
                layer,
                rank,
                reward,
            })
        });
    }

    /// `moves` lists rows top to bottom, and a stone on a higher row makes a diagram that
    /// comes later in the lexicographic ranking, so `moves` order is descending child rank.
    /// The prefix rows come first and are taken as they are; the suffix rows' moves, spread
    /// over the template's chains and kids, are gathered and sorted, only when no prefix
    /// move stopped the walk (a table of best moves mostly stops at a prefix row).
    #[inline]
    fn for_each_move_in_order(
        &self,
        pos: &YoungPosition,
        mut f: impl FnMut(u64, i64) -> std::ops::ControlFlow<()>,
    ) {
        let mut bits = pos.movable;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let kid = pos.kids[i];
            if f(pos.rank.wrapping_add(kid.delta), kid.reward).is_break() {
                return;
            }
        }
        // A suffix has a few movable rows (its template has at most TEMPLATE_MAX
        // completions); a small array is cheaper to set up than one per row of the board
        // (1 KiB zeroed per position is measurable in a build of best moves).
        const FEW: usize = 16;
        let mut few = [(0u64, 0i64); FEW];
        let mut many = Vec::new();
        let mut n = 0;
        self.for_each_suffix_child(pos, |child, reward| {
            if n < FEW {
                few[n] = (child, reward);
            } else {
                if many.is_empty() {
                    many.extend_from_slice(&few);
                }
                many.push((child, reward));
            }
            n += 1;
        });
        let kids = if n <= FEW {
            &mut few[..n]
        } else {
            &mut many[..]
        };
        // At most one move per row, a few on most suffixes: insertion sort.
        for i in 1..kids.len() {
            let mut j = i;
            while j > 0 && kids[j - 1].0 < kids[j].0 {
                kids.swap(j - 1, j);
                j -= 1;
            }
        }
        for &(child, reward) in kids.iter() {
            if f(child, reward).is_break() {
                return;
            }
        }
    }

    /// Row lengths by `unrank`'s loop, then the rank of the diagram with one more stone on
    /// the index-th row that can take one: O(n + m) table reads, no cursor (a cursor's
    /// templates and child offsets cost several times that, and a lookup through a table
    /// of best moves uses one position per layer only).
    fn move_in_order(&self, k: usize, rank: u64, index: u64) -> Option<(u64, i64)> {
        let mut rows = [0usize; MAX_ROWS];
        self.unrank_rows(k, rank, |i, v| rows[i] = v);
        let mut seen = 0;
        let mut row = None;
        for i in 0..self.n {
            let above = if i == 0 { self.m } else { rows[i - 1] };
            if rows[i] < above {
                if seen == index {
                    row = Some(i);
                    break;
                }
                seen += 1;
            }
        }
        let i = row?;
        let r = rows[i];
        rows[i] += 1;
        let (mut child, mut rem) = (0u64, k + 1);
        for (j, &len) in rows[..self.n].iter().enumerate() {
            child += self.shorter(self.n - 1 - j, len, rem);
            rem -= len;
        }
        let reward = if k.is_multiple_of(2) {
            self.board.a[i * self.m + r]
        } else {
            -self.board.b[i * self.m + r]
        };
        Some((child, reward))
    }

    fn moves(&self, pos: &YoungPosition) -> Vec<Move<YoungPosition>> {
        let first = pos.stones.is_multiple_of(2);
        let mut out = Vec::new();
        for i in 0..self.n {
            let r = pos.rows[i] as usize;
            if r < self.room(pos, i) {
                let mut rows: Vec<u32> = pos.rows.iter().map(|&r| u32::from(r)).collect();
                rows[i] += 1;
                let w = if first {
                    self.board.a[i * self.m + r]
                } else {
                    -self.board.b[i * self.m + r]
                };
                out.push(Move {
                    from: None,
                    row: i,
                    col: r,
                    reward: w,
                    take: None,
                    child: self.position_from_rows(rows),
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::game::{Board, Gameplay};

    fn board(n: usize, m: usize) -> Young {
        Young::new(YoungBoard {
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

    #[test]
    fn template_memory_stays_modest() {
        // Templates are built for every board in Young::new; they must not grow with the
        // table (12 MiB at 15 x 15, 20 MiB at 18 x 18, 70 MiB at 30 x 30 when written,
        // against hundreds of MiB of layers at 18 x 18 and terabytes at 30 x 30).
        for (n, m, mib) in [(14, 14, 16), (18, 18, 32), (30, 30, 128)] {
            let y = board(n, m);
            let (templates, suffixes) = y.template_counts();
            assert!(templates > 0 && suffixes >= templates);
            assert!(
                y.template_bytes() < mib << 20,
                "{n}x{m}: {} bytes",
                y.template_bytes()
            );
        }
    }

    #[test]
    fn advance_matches_unrank_and_moves() {
        for (n, m) in [(1, 3), (2, 2), (3, 3), (4, 4), (6, 6), (5, 9), (8, 8)] {
            let y = Young::new(YoungBoard {
                rows: n,
                cols: m,
                a: vec![1; n * m],
                b: vec![1; n * m],
            })
            .unwrap();
            for k in 0..=n * m {
                let mut pos = y.unrank(k, 0);
                for r in 0..y.layer_size(k) {
                    if r > 0 {
                        y.advance(&mut pos);
                    }
                    assert_eq!(pos.rank, r);
                    let fresh = y.unrank(k, r);
                    assert_eq!(fresh.rows, pos.rows);
                    let mut a = vec![];
                    y.for_each_child(&pos, |e| a.push((e.rank, e.reward)));
                    a.sort_unstable();
                    let mut b: Vec<_> = y
                        .moves(&pos)
                        .iter()
                        .map(|mv| (mv.child.rank, mv.reward))
                        .collect();
                    b.sort_unstable();
                    assert_eq!(a, b, "{n}x{m} k {k} r {r} {:?}", pos.rows);
                }
            }
        }
    }
}
