//! Binomial tables and the combinatorial number system (colex order).
//!
//! A k-subset {s_0 < s_1 < ... < s_{k-1}} of 0..n has the colex rank
//! sum_i C(s_i, i + 1), a dense number in 0..C(n, k). The twins game ranks both its set
//! of occupied cells and the o stones inside it this way; young has its own count table
//! (Gaussian binomials) in `game/young.rs`.

use crate::error::{Error, Result};

/// The colex rank of a set of cells read a byte of its mask at a time (Quixo's cubes, the
/// occupied sets of `symmetry::Orbits`): entry `(c * (cells + 1) + t) * 256 + byte` is what
/// the set bits of byte `c` add to the rank when `t` cells of the set lie below that byte.
/// Cells are `0..cells`, so a bit at `cells` or past it (the last byte of a board whose
/// cells are not a multiple of 8) adds nothing: no set of the board has one.
pub fn colex_chunk_table(binom: &Binomial, cells: usize) -> Vec<u64> {
    let chunks = cells.div_ceil(8).max(1);
    let mut table = vec![0u64; chunks * (cells + 1) * 256];
    for c in 0..chunks {
        for t in 0..=cells {
            for bits in 0..256usize {
                let (mut rest, mut j, mut sum) = (bits as u64, t, 0);
                while rest != 0 {
                    let at = 8 * c + rest.trailing_zeros() as usize;
                    if at < cells {
                        sum += binom.get(at, j + 1);
                    }
                    rest &= rest - 1;
                    j += 1;
                }
                table[(c * (cells + 1) + t) * 256 + bits] = sum;
            }
        }
    }
    table
}

/// Pascal's triangle up to `n`, every entry checked to fit in a u64.
#[derive(Debug, Clone)]
pub struct Binomial {
    n: usize,
    table: Vec<u64>,
}

impl Binomial {
    /// Binomial coefficients C(i, j) for i, j <= n; fails if one overflows 64 bits.
    pub fn new(n: usize) -> Result<Self> {
        // C(68, 34) already passes u64; refuse before sizing the table.
        if n > 67 {
            return Err(Error::input(format!(
                "C({n}, {}) does not fit in 64 bits",
                n / 2
            )));
        }
        let width = n + 2;
        let mut table = vec![0u64; (n + 1) * width];
        for i in 0..=n {
            table[i * width] = 1;
            for j in 1..=i {
                let above =
                    table[(i - 1) * width + j - 1] as u128 + table[(i - 1) * width + j] as u128;
                table[i * width + j] = u64::try_from(above)
                    .map_err(|_| Error::input(format!("C({i}, {j}) does not fit in 64 bits")))?;
            }
        }
        Ok(Binomial { n, table })
    }

    /// C(i, j); zero when j > i. `i` must be at most the table's `n`.
    #[inline(always)]
    pub fn get(&self, i: usize, j: usize) -> u64 {
        debug_assert!(i <= self.n);
        if j > i {
            0
        } else {
            self.table[i * (self.n + 2) + j]
        }
    }
}

/// Colex rank of the sorted subset `set`.
pub fn colex_rank(binom: &Binomial, set: &[u8]) -> u64 {
    set.iter()
        .enumerate()
        .map(|(i, &s)| binom.get(s as usize, i + 1))
        .sum()
}

/// The subset of size `k` with colex rank `rank`, largest element first determined.
/// `rank` must be below C(n, k) for the universe 0..n it was ranked in.
pub fn colex_unrank(binom: &Binomial, mut rank: u64, k: usize, out: &mut Vec<u8>) {
    out.clear();
    out.resize(k, 0);
    let mut hi = binom.n;
    for i in (0..k).rev() {
        // Largest s with C(s, i+1) <= rank.
        let mut s = hi;
        while binom.get(s, i + 1) > rank {
            s -= 1;
        }
        rank -= binom.get(s, i + 1);
        out[i] = s as u8;
        hi = s.saturating_sub(1);
    }
}

/// Step `set` (sorted, elements below `n`) to its colex successor. Returns false, leaving
/// `set` as the first subset again, when it was the last one.
pub fn colex_next(set: &mut [u8], n: usize) -> bool {
    let k = set.len();
    for i in 0..k {
        let limit = if i + 1 < k { set[i + 1] as usize } else { n };
        if (set[i] as usize) + 1 < limit {
            set[i] += 1;
            for (j, s) in set.iter_mut().enumerate().take(i) {
                *s = j as u8;
            }
            return true;
        }
    }
    for (j, s) in set.iter_mut().enumerate() {
        *s = j as u8;
    }
    false
}

/// Colex rank of the subset whose elements are the set bits of `mask`.
pub fn colex_rank_mask(binom: &Binomial, mut mask: u64) -> u64 {
    let (mut rank, mut i) = (0, 0);
    while mask != 0 {
        rank += binom.get(mask.trailing_zeros() as usize, i + 1);
        mask &= mask - 1;
        i += 1;
    }
    rank
}

/// The `k`-subset of colex rank `rank`, as a bit mask; `rank` must be below C(binom's n, k).
pub fn colex_unrank_mask(binom: &Binomial, mut rank: u64, k: usize) -> u64 {
    let (mut mask, mut hi) = (0u64, binom.n);
    for i in (0..k).rev() {
        // Largest s with C(s, i+1) <= rank.
        let mut s = hi;
        while binom.get(s, i + 1) > rank {
            s -= 1;
        }
        rank -= binom.get(s, i + 1);
        mask |= 1 << s;
        hi = s.saturating_sub(1);
    }
    mask
}

/// The colex successor of a non-empty subset given as a bit mask: the next larger integer
/// with the same number of set bits (Gosper's hack, without the division). The caller
/// checks the result against its universe; `mask` must not have bit 63 set.
#[inline(always)]
pub fn colex_next_mask(mask: u64) -> u64 {
    debug_assert!(mask != 0 && mask >> 63 == 0);
    let t = mask | (mask - 1);
    (t + 1) | (((!t & (t + 1)) - 1) >> (mask.trailing_zeros() + 1))
}

/// The bits of `value` at the set bits of `mask`, packed low (a software pext).
pub fn compress(value: u64, mask: u64) -> u64 {
    let (mut out, mut bit, mut rest) = (0u64, 0, mask);
    while rest != 0 {
        let low = rest & rest.wrapping_neg();
        if value & low != 0 {
            out |= 1 << bit;
        }
        bit += 1;
        rest &= rest - 1;
    }
    out
}

/// `value` with the bits at `holes` taken out, those above each moving down one: the same
/// as `compress(value, !holes)` where `value` has none at `holes`, and cheaper where the
/// holes are few.
pub fn squeeze_out(value: u64, holes: u64) -> u64 {
    let (mut out, mut rest) = (value, holes);
    while rest != 0 {
        let hole = 63 - rest.leading_zeros();
        let below = (1u64 << hole) - 1;
        out = (out & below) | (out >> 1 & !below);
        rest &= !(1u64 << hole);
    }
    out
}

/// Set bits of every byte, for colex ranks by 8-cell chunk (Quixo, `symmetry::Orbits`): the
/// default x86-64 target has no popcount instruction.
pub(crate) static POP8: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    table
};

/// The cells of a mask, lowest first: the walk every game's move generator makes over
/// its stones, empty cells and ring.
#[inline]
pub(crate) fn bits(mask: u64) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            b
        })
    })
}

/// The cells of a mask as one-bit masks, lowest first: the same walk as `bits`, for move
/// generators that place and lift stones by mask (Teeko).
#[inline]
pub(crate) fn cells(mask: u64) -> impl Iterator<Item = u64> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let cell = rest & rest.wrapping_neg();
            rest &= rest - 1;
            cell
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_cells_walk_a_mask_lowest_first() {
        let mask = 0b1001_0000_0110u64 | 1 << 63;
        assert_eq!(bits(mask).collect::<Vec<_>>(), vec![1, 2, 8, 11, 63]);
        assert_eq!(
            cells(mask).collect::<Vec<_>>(),
            vec![1 << 1, 1 << 2, 1 << 8, 1 << 11, 1 << 63]
        );
        assert_eq!(bits(0).count(), 0);
        assert_eq!(cells(0).count(), 0);
    }

    #[test]
    fn compress_squeeze_out_and_spread_agree() {
        let mask = 0b1011_0110_1101u64;
        for value in 0..1u64 << 12 {
            let inside = value & mask;
            let packed = compress(inside, mask);
            assert_eq!(squeeze_out(inside, !mask & 0xfff), packed);
            assert_eq!(crate::game::two_colour::spread(packed, mask), inside);
        }
    }

    #[test]
    fn colex_rank_unrank_and_successor_agree() {
        let binom = Binomial::new(12).unwrap();
        for n in 0..=12usize {
            for k in 0..=n {
                let count = binom.get(n, k);
                let mut set: Vec<u8> = (0..k as u8).collect();
                let mut out = Vec::new();
                for r in 0..count {
                    assert_eq!(colex_rank(&binom, &set), r);
                    colex_unrank(&binom, r, k, &mut out);
                    assert_eq!(out, set);
                    let more = colex_next(&mut set, n);
                    assert_eq!(more, r + 1 < count);
                }
            }
        }
    }

    #[test]
    fn binomial_overflow_is_an_error() {
        assert!(Binomial::new(67).is_ok());
        assert!(Binomial::new(70).is_err());
    }

    #[test]
    fn mask_helpers_agree_with_the_slice_ones() {
        let binom = Binomial::new(12).unwrap();
        for n in 0..=12usize {
            for k in 0..=n {
                let mut set: Vec<u8> = (0..k as u8).collect();
                let mut mask = (1u64 << k) - 1;
                for r in 0..binom.get(n, k) {
                    assert_eq!(set.iter().fold(0u64, |m, &s| m | 1 << s), mask);
                    assert_eq!(colex_rank_mask(&binom, mask), r);
                    assert_eq!(colex_unrank_mask(&binom, r, k), mask);
                    colex_next(&mut set, n);
                    if k > 0 {
                        mask = colex_next_mask(mask);
                    }
                }
            }
        }
    }
}
