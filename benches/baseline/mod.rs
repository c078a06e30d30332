#![allow(dead_code)]
//! Speed baseline: the straightforward memoised minimax that contest solutions write.
//!
//! Self-contained (std only, no `retro`), so the benchmarks compare the crate against an
//! independent implementation rather than against itself. Both solvers index their memo by
//! the raw state encoding, holes and all, exactly as contest code does: that waste is the
//! point of the comparison.

// ---------------------------------------------------------------------------------------
// young
// ---------------------------------------------------------------------------------------

/// Contest answer of the young game: first player's score minus second player's score under
/// optimal play from the empty `n` x `m` board.
///
/// State: the boundary of the Young diagram as an (n+m)-bit path from the bottom-left corner
/// to the top-right corner, bit t = 1 for an "up" step and 0 for a "right" step. The memo has
/// 2^(n+m) entries (1 GiB of i32 or 2 GiB of i64 at 14x14; 2^30 entries at n+m = 30).
///
/// Entry width: every value is a sum of at most n*m terms, each +a or -b of one distinct cell,
/// so |value| <= sum over cells of max(a, b). If that bound (checked exactly, in i128) stays
/// below i32::MAX the memo uses i32 with sentinel i32::MIN, which no value can reach; otherwise
/// it falls back to i64 with sentinel i64::MIN. Contest limits (<= 100000 per weight, n*m <= 225
/// here) give at most 2.25e7, so the i32 path is the one contest solutions take.
pub fn young_mask(n: usize, m: usize, a: &[Vec<i64>], b: &[Vec<i64>]) -> i64 {
    assert!(n >= 1 && m >= 1, "young board must be at least 1x1");
    assert!(n + m <= 32, "memo of 2^(n+m) entries is out of reach");
    assert!(a.len() == n && b.len() == n, "a and b must have n rows");
    assert!(
        a.iter().chain(b).all(|row| row.len() == m),
        "a and b rows must have m entries"
    );
    let bound: i128 = (0..n)
        .flat_map(|i| (0..m).map(move |j| (i, j)))
        .map(|(i, j)| (a[i][j] as i128).abs().max((b[i][j] as i128).abs()))
        .sum();
    if bound < i32::MAX as i128 {
        young_solve::<i32>(n, m, a, b)
    } else {
        young_solve::<i64>(n, m, a, b)
    }
}

/// Memo entry type: lets one solver body serve both entry widths.
trait Entry: Copy + PartialEq {
    const UNKNOWN: Self;
    fn to_i64(self) -> i64;
    fn from_i64(v: i64) -> Self;
}

impl Entry for i32 {
    const UNKNOWN: Self = i32::MIN;
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Self {
        // Guarded by the range bound in `young_mask`.
        v as i32
    }
}

impl Entry for i64 {
    const UNKNOWN: Self = i64::MIN;
    fn to_i64(self) -> i64 {
        self
    }
    fn from_i64(v: i64) -> Self {
        v
    }
}

struct Young<'a, T> {
    n: usize,
    m: usize,
    a: &'a [Vec<i64>],
    b: &'a [Vec<i64>],
    memo: Vec<T>,
}

fn young_solve<T: Entry>(n: usize, m: usize, a: &[Vec<i64>], b: &[Vec<i64>]) -> i64 {
    let mut g = Young {
        n,
        m,
        a,
        b,
        memo: vec![T::UNKNOWN; 1usize << (n + m)],
    };
    // Empty board: the path climbs all n rows first, then runs right m times.
    let empty = (1u64 << n) - 1;
    // Recursion depth is n*m (<= 225 when n+m <= 30), well within the default stack.
    g.dfs(empty, 0)
}

impl<T: Entry> Young<'_, T> {
    /// Value of the diagram `mask` holding `k` cells (k is implied by the mask; it is carried
    /// along only to know whose turn it is without recounting).
    fn dfs(&mut self, mask: u64, k: usize) -> i64 {
        let cached = self.memo[mask as usize];
        if cached != T::UNKNOWN {
            return cached.to_i64();
        }
        let len = self.n + self.m;
        // A cell can be added where the path goes "up" (bit t = 1) then "right" (bit t+1 = 0);
        // adding it turns that corner into "right then up". The last bit has no successor.
        let corners = mask & !(mask >> 1) & ((1u64 << (len - 1)) - 1);
        let first = k.is_multiple_of(2);
        let mut best = if first { i64::MIN } else { i64::MAX };
        let mut rest = corners;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            // Ups before step t count rows below the cell; rights before it count its column.
            let ups = (mask & ((1u64 << t) - 1)).count_ones() as usize;
            let (i, j) = (self.n - 1 - ups, t - ups);
            let child = mask ^ (0b11u64 << t);
            let sub = self.dfs(child, k + 1);
            if first {
                best = best.max(self.a[i][j] + sub);
            } else {
                best = best.min(sub - self.b[i][j]);
            }
        }
        if corners == 0 {
            // Full board: nothing left to score.
            best = 0;
        }
        self.memo[mask as usize] = T::from_i64(best);
        best
    }
}

// ---------------------------------------------------------------------------------------
// twins
// ---------------------------------------------------------------------------------------

/// First player's final score of the twins game under optimal play from the empty `r` x `c`
/// board. `vert` is (r-1) rows of c weights for pairs (i,j)-(i+1,j); `horiz` is r rows of c-1
/// weights for pairs (i,j)-(i,j+1).
///
/// State: the whole board in base 3 (cell p = i*c + j has digit 0 empty, 1 o, 2 x at 3^p), so
/// the memo has 3^(r*c) entries (43M at 4x4, 3.5G at 4x5). Entries are i32 with -1 for
/// "unknown": twins scores are sums of non-negative weights, hence never negative (weights
/// must fit the i32 range in total, which is asserted).
pub fn twins_base3(r: usize, c: usize, vert: &[Vec<i64>], horiz: &[Vec<i64>]) -> i64 {
    assert!(r >= 1 && c >= 1, "twins board must be at least 1x1");
    assert!(
        vert.len() == r - 1 && vert.iter().all(|row| row.len() == c),
        "vert must be (r-1) x c"
    );
    assert!(
        horiz.len() == r && horiz.iter().all(|row| row.len() == c - 1),
        "horiz must be r x (c-1)"
    );
    let weights = vert.iter().chain(horiz).flatten();
    assert!(
        weights.clone().all(|&w| w >= 0),
        "twins weights must be non-negative"
    );
    assert!(
        weights.sum::<i64>() < i32::MAX as i64,
        "total weight must fit an i32 memo entry"
    );
    let cells = r * c;
    let states = 3usize
        .checked_pow(cells as u32)
        .expect("3^(r*c) overflows usize");
    let pow3: Vec<usize> = (0..cells).map(|p| 3usize.pow(p as u32)).collect();
    let mut g = Twins {
        r,
        c,
        vert,
        horiz,
        pow3,
        board: vec![0; cells],
        memo: vec![-1; states],
    };
    g.dfs(0, 0)
}

struct Twins<'a> {
    r: usize,
    c: usize,
    vert: &'a [Vec<i64>],
    horiz: &'a [Vec<i64>],
    pow3: Vec<usize>,
    /// The board matching the current code, kept alongside so moves and scoring need no
    /// decoding.
    board: Vec<u8>,
    memo: Vec<i32>,
}

impl Twins<'_> {
    fn dfs(&mut self, code: usize, k: usize) -> i64 {
        let cached = self.memo[code];
        if cached >= 0 {
            return cached as i64;
        }
        let cells = self.r * self.c;
        let value = if k == cells {
            self.score()
        } else {
            let first = k.is_multiple_of(2);
            let mark = if first { 1u8 } else { 2u8 };
            let mut best = if first { i64::MIN } else { i64::MAX };
            for p in 0..cells {
                if self.board[p] != 0 {
                    continue;
                }
                self.board[p] = mark;
                let sub = self.dfs(code + mark as usize * self.pow3[p], k + 1);
                self.board[p] = 0;
                best = if first { best.max(sub) } else { best.min(sub) };
            }
            best
        };
        self.memo[code] = value as i32;
        value
    }

    /// First player's score on the full board: weights of pairs holding equal marks.
    fn score(&self) -> i64 {
        let (r, c) = (self.r, self.c);
        let at = |i: usize, j: usize| self.board[i * c + j];
        let mut s = 0;
        for i in 0..r {
            for j in 0..c {
                if i + 1 < r && at(i, j) == at(i + 1, j) {
                    s += self.vert[i][j];
                }
                if j + 1 < c && at(i, j) == at(i, j + 1) {
                    s += self.horiz[i][j];
                }
            }
        }
        s
    }
}
