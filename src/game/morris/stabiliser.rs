//! Which of the board's symmetries leave a set of stones where it is, found fast.
//!
//! The fixpoint asks it of the stones that stay put for every position it counts and every
//! position it tells its parents about (`Morris::classes`), and nearly always the answer is
//! none. Mapping the set by each of the 15 symmetries other than the identity (three byte
//! tables each) took a fifth of the moving phase's time (`perf`, `nine stones=5 moving`, one
//! thread). A symmetry carries each of a few regions of the board (the top, bottom, left
//! and right halves, each square) onto another, so it can only fix a set that has as many
//! stones in the one as in the other: those counts, compared once, rule out most
//! symmetries, and only the rest are mapped.

use crate::game::symmetry::GridSymmetries;

/// The regions' pairs compared, and for each outcome the symmetries still to be mapped.
pub struct Stabiliser {
    /// By byte j of a set and its value, for each pair of regions p a symmetry exchanges,
    /// the difference of the two regions' stones among that byte's points plus `BIAS`, in
    /// byte p. A set's differences are the sum of its bytes' entries (no byte carries into
    /// the next: four bytes' entries add up to at most 4 x (BIAS + 8) < 256), and a pair
    /// agrees where its byte is 4 x BIAS: no population count (not an instruction of
    /// baseline x86-64, and a dozen without it) and no loop over the pairs.
    differences: [[u64; 256]; 4],
    /// By the bits of the pairs whose counts agree (bit p: pair p), the symmetries other
    /// than the identity that stay candidates, a bit each.
    candidates: Vec<u32>,
}

/// What each byte's entry adds to a pair's difference, to keep it positive.
const BIAS: i64 = 16;

/// Pairs a word holds, a byte each; the 24-point board with its three squares has 7.
const MAX_PAIRS: usize = 8;

impl Stabiliser {
    /// Bytes of its tables.
    pub fn bytes(&self) -> u64 {
        (size_of_val(&self.differences) + self.candidates.len() * 4) as u64
    }

    /// The filter for these symmetries (the identity first) and these regions of the
    /// board; a symmetry that maps a region onto no region is always a candidate.
    pub fn new(sym: &GridSymmetries, regions: Vec<u32>) -> Stabiliser {
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut needs = vec![0u32; sym.len()];
        for (g, need) in needs.iter_mut().enumerate().skip(1) {
            for (i, &region) in regions.iter().enumerate() {
                let image = sym.map(g, u64::from(region)) as u32;
                let Some(j) = regions.iter().position(|&r| r == image) else {
                    continue;
                };
                if i == j {
                    continue;
                }
                let pair = (i.min(j), i.max(j));
                let bit = match pairs.iter().position(|&p| p == pair) {
                    Some(b) => b,
                    None => {
                        pairs.push(pair);
                        pairs.len() - 1
                    }
                };
                *need |= 1 << bit;
            }
        }
        if pairs.len() > MAX_PAIRS {
            // Not reached by the boards here: every symmetry stays a candidate.
            pairs.clear();
            needs.iter_mut().for_each(|n| *n = 0);
        }
        let mut differences = [[0u64; 256]; 4];
        for (j, table) in differences.iter_mut().enumerate() {
            for (byte, entry) in table.iter_mut().enumerate() {
                let set = (byte as u64) << (8 * j);
                let count = |r: usize| i64::from((set & u64::from(regions[r])).count_ones());
                for (p, &(a, b)) in pairs.iter().enumerate() {
                    *entry |= ((count(a) - count(b) + BIAS) as u64) << (8 * p);
                }
            }
        }
        let candidates = (0..1u32 << MAX_PAIRS)
            .map(|agree| {
                (1..sym.len())
                    .filter(|&g| needs[g] & !agree == 0)
                    .fold(0u32, |m, g| m | 1 << g)
            })
            .collect();
        Stabiliser {
            differences,
            candidates,
        }
    }

    /// The symmetries other than the identity that leave `stones` where they are, a bit
    /// each.
    #[inline]
    pub fn of(&self, sym: &GridSymmetries, stones: u32) -> u32 {
        let sum = (0..4).fold(0u64, |sum, j| {
            sum + self.differences[j][(stones >> (8 * j)) as u8 as usize]
        });
        // Bytes equal to 4 x BIAS (pairs that agree; unused bytes hold 0 and do not) become
        // zero, and each zero byte's top bit is gathered into bit p of `agree`.
        const AGREE: u64 = 0x0101_0101_0101_0101 * (4 * BIAS as u64);
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let x = sum ^ AGREE;
        let nonzero = ((x & LOW7) + LOW7) | x;
        let zero = !nonzero & 0x8080_8080_8080_8080;
        let agree = ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize;
        let mut rest = self.candidates[agree];
        let mut fixed = 0u32;
        while rest != 0 {
            let g = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if sym.map(g, u64::from(stones)) == u64::from(stones) {
                fixed |= 1 << g;
            }
        }
        fixed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::morris::{Geometry, MorrisBoard, regions};

    /// The filter finds exactly the symmetries that map each set onto itself, on both boards
    /// and with the diagonals: every set of up to 3 points, and random sets of every size.
    #[test]
    fn the_filter_finds_what_mapping_by_every_symmetry_finds() {
        for (variant, diagonals) in [("six", false), ("nine", false), ("twelve", true)] {
            let mut board = MorrisBoard::variant(variant).expect("a variant");
            board.diagonals = diagonals;
            let geometry = Geometry::of(&board);
            let n = geometry.names.len();
            let sym = GridSymmetries::from_images(n, geometry.symmetries.clone());
            let filter = Stabiliser::new(&sym, regions(&geometry));
            let plain = |set: u32| {
                (1..sym.len())
                    .filter(|&g| sym.map(g, u64::from(set)) == u64::from(set))
                    .fold(0u32, |m, g| m | 1 << g)
            };
            let mut sets: Vec<u32> = Vec::new();
            for a in 0..n {
                for b in a..n {
                    for c in b..n {
                        sets.push(1 << a | 1 << b | 1 << c);
                    }
                }
            }
            let mut rng = crate::random::SplitMix(11);
            let all = ((1u64 << n) - 1) as u32;
            for t in 0..200_000u32 {
                let r = rng.next_u64() as u32;
                // Sparse, half and dense sets, and symmetric ones made by a union of images.
                let set = match t % 4 {
                    0 => r & (rng.next_u64() as u32) & all,
                    1 => r & all,
                    2 => (r | rng.next_u64() as u32) & all,
                    _ => {
                        let g = (r as usize >> 24) % sym.len();
                        let half = r & (rng.next_u64() as u32) & all;
                        half | sym.map(g, u64::from(half)) as u32
                    }
                };
                sets.push(set);
            }
            let mut fixed = 0;
            for set in sets {
                let want = plain(set);
                fixed += usize::from(want != 0);
                assert_eq!(filter.of(&sym, set), want, "{variant}: {set:#x}");
            }
            assert!(fixed > 1000, "{variant}: {fixed} sets with a symmetry");
        }
    }
}
