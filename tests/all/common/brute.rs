#![allow(dead_code)]
//! Brute-force oracles for the tests: plain recursive minimax over full move sequences, with
//! no memo, no ranking and no shared code with the crate, so that they are obviously correct.
//! They are exponential; keep boards tiny (young up to ~12 cells, twins up to 3x3), or use
//! the memoised young variant.

use std::collections::HashMap;

/// Value of the young position with row lengths `rows` (length `n`, non-increasing, each
/// <= `m`): first player's minus second player's score over the stones still to be placed,
/// under optimal play. The first player moves when the stone count is even.
pub fn young_value(n: usize, m: usize, a: &[Vec<i64>], b: &[Vec<i64>], rows: &[usize]) -> i64 {
    assert_eq!(rows.len(), n, "rows must have n entries");
    assert!(rows.iter().all(|&r| r <= m), "row length above m");
    assert!(
        rows.windows(2).all(|w| w[0] >= w[1]),
        "rows must be non-increasing"
    );
    let mut rows = rows.to_vec();
    young_rec(n, m, a, b, &mut rows, &mut None)
}

/// Values of every young position, by the same recursion as `young_value` with a memo keyed
/// by the row lengths (still no ranking), for boards too large to search without one
/// (every diagram of a 10 x 10 box).
pub fn young_values_memo(
    n: usize,
    m: usize,
    a: &[Vec<i64>],
    b: &[Vec<i64>],
) -> HashMap<Vec<usize>, i64> {
    let mut memo = Some(HashMap::new());
    young_rec(n, m, a, b, &mut vec![0; n], &mut memo);
    memo.unwrap_or_default()
}

fn young_rec(
    n: usize,
    m: usize,
    a: &[Vec<i64>],
    b: &[Vec<i64>],
    rows: &mut [usize],
    memo: &mut Option<HashMap<Vec<usize>, i64>>,
) -> i64 {
    if let Some(&v) = memo.as_ref().and_then(|memo| memo.get(&*rows)) {
        return v;
    }
    let stones: usize = rows.iter().sum();
    let first = stones.is_multiple_of(2);
    let mut best: Option<i64> = None;
    for i in 0..n {
        // The next cell of row i needs the cell above it filled (and the row not full).
        if rows[i] < m && (i == 0 || rows[i - 1] > rows[i]) {
            let j = rows[i];
            rows[i] += 1;
            let sub = young_rec(n, m, a, b, rows, memo);
            rows[i] -= 1;
            let v = if first { a[i][j] + sub } else { sub - b[i][j] };
            best = Some(match best {
                None => v,
                Some(x) if first => x.max(v),
                Some(x) => x.min(v),
            });
        }
    }
    let value = if stones == n * m {
        0
    } else {
        best.expect("a non-full diagram always has a move")
    };
    if let Some(memo) = memo {
        memo.insert(rows.to_vec(), value);
    }
    value
}

/// Value of the twins position `cells` (R*C entries row-major; 0 empty, 1 o, 2 x): the first
/// player's final score under optimal play. The first player moves when the stone count is
/// even. `vert` is (r-1) rows of c weights, `horiz` is r rows of c-1 weights.
pub fn twins_value(r: usize, c: usize, vert: &[Vec<i64>], horiz: &[Vec<i64>], cells: &[u8]) -> i64 {
    assert_eq!(cells.len(), r * c, "cells must have r*c entries");
    assert!(cells.iter().all(|&x| x <= 2), "cell values are 0, 1 or 2");
    let mut cells = cells.to_vec();
    twins_rec(r, c, vert, horiz, &mut cells)
}

fn twins_rec(r: usize, c: usize, vert: &[Vec<i64>], horiz: &[Vec<i64>], cells: &mut [u8]) -> i64 {
    let stones = cells.iter().filter(|&&x| x != 0).count();
    if stones == r * c {
        return twins_score(r, c, vert, horiz, cells);
    }
    let first = stones.is_multiple_of(2);
    let mark = if first { 1 } else { 2 };
    let mut best: Option<i64> = None;
    for p in 0..r * c {
        if cells[p] == 0 {
            cells[p] = mark;
            let v = twins_rec(r, c, vert, horiz, cells);
            cells[p] = 0;
            best = Some(match best {
                None => v,
                Some(x) if first => x.max(v),
                Some(x) => x.min(v),
            });
        }
    }
    best.expect("a non-full board always has a move")
}

/// First player's score on a full board: the weights of adjacent pairs with equal marks.
pub fn twins_score(r: usize, c: usize, vert: &[Vec<i64>], horiz: &[Vec<i64>], cells: &[u8]) -> i64 {
    let mut s = 0;
    for i in 0..r {
        for j in 0..c {
            if i + 1 < r && cells[i * c + j] == cells[(i + 1) * c + j] {
                s += vert[i][j];
            }
            if j + 1 < c && cells[i * c + j] == cells[i * c + j + 1] {
                s += horiz[i][j];
            }
        }
    }
    s
}

/// Tiny deterministic PRNG (splitmix64) so tests can draw random weights without a crate.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0); the modulo bias is irrelevant for test weights.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0) has no values");
        self.next_u64() % n
    }

    /// A `rows` x `cols` matrix of weights in 0..=max.
    pub fn matrix(&mut self, rows: usize, cols: usize, max: i64) -> Vec<Vec<i64>> {
        (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| self.below(max as u64 + 1) as i64)
                    .collect()
            })
            .collect()
    }
}

/// The mover's result from its children's results (each for the side to move there): win
/// in the fewest plies, else tie, else lose in the most. The win/loss/tie brute forces
/// (mnk, connect) share this step and nothing else; None without children.
pub fn best_of_children(
    children: impl IntoIterator<Item = (retro::game::Verdict, usize)>,
) -> Option<(retro::game::Verdict, usize)> {
    use retro::game::Verdict;
    let rank = |v: (Verdict, usize)| match v.0 {
        Verdict::Win => (2, -(v.1 as i64)),
        Verdict::Tie | Verdict::Draw => (1, 0),
        Verdict::Loss => (0, v.1 as i64),
    };
    let mut best: Option<(Verdict, usize)> = None;
    for (theirs, r) in children {
        let mine = match theirs {
            Verdict::Win => (Verdict::Loss, r + 1),
            Verdict::Loss => (Verdict::Win, r + 1),
            Verdict::Tie => (Verdict::Tie, r + 1),
            // These games have no draws: a board that fills is a tie.
            Verdict::Draw => (Verdict::Draw, 0),
        };
        if best.is_none_or(|b| rank(mine) > rank(b)) {
            best = Some(mine);
        }
    }
    best
}
