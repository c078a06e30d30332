//! The two halves of a connect position's rank: its column heights (`Heights`, a dense
//! numbering of the bounded compositions of k) and which of its stones are x's
//! (`ColourRank`, colex ranks read from byte tables).
//!
//! Folding the left-right mirror happens here, on the height vectors: a folded layer numbers
//! only the canonical vectors (each the lesser of itself and its mirror image, in
//! lexicographic order), and a position whose vector is not canonical is ranked as its
//! mirror image. A vector that is its own mirror image (a palindrome) keeps every colouring,
//! though a colouring and its mirror image are one orbit there: that is the slack of the
//! index, and it is small, since palindromes are about (H + 1)^(W / 2) of the (H + 1)^W
//! vectors: on 6 x 4, 4.2% of the positions lie on them, so the table has 83,168,680
//! entries where one per orbit would be about 79.8 million (5 x 4: 11.9%, 3,145,591 entries for
//! 5,621,939 positions). Ranking those colourings by orbit exactly would need a sorted list
//! of canonical colourings per palindrome, up to C(24, 12) = 2.7 million of them on 6 x 4.

use crate::error::{Error, Result};
use crate::game::rank::Binomial;

/// Most height vectors (over all layers) a board may have: (H + 1)^W. Their tables cost
/// 16 bytes per column with room plus 12 per vector (folded: those of the canonical vectors,
/// and 4 bytes per vector): 7 x 6, 823,543 vectors, runs in 92 MB
/// in all (`retro solve connect 7x6`, peak RSS before it refuses the layers); 7 x 7 has
/// 2.1 million and 8 x 7 16.7 million, and are refused (their layers would not fit a
/// machine anyway).
pub const MAX_HEIGHT_VECTORS: u64 = 1 << 20;

/// One column with room, of one height vector: what the child's rank needs.
#[derive(Debug, Clone, Copy)]
pub struct Drop {
    /// The child's height-vector rank times the child layer's colourings per vector.
    pub base: u64,
    /// The child's height-vector rank (in a folded layer: of the child's mirror image
    /// where `mirrored`).
    pub child: u32,
    /// Stones before the new one in stone order (columns to the left, then those below
    /// it): where its bit goes into the colouring mask.
    pub below: u8,
    /// The bit of the cell the stone lands on.
    pub cell: u8,
    /// Whether the child's vector is the mirror image of the one ranked (a folded layer):
    /// its colouring is then ranked in the mirrored stone order.
    pub mirrored: bool,
}

/// Where a height vector is among its layer's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The rank of the vector, or of its mirror image where `mirrored`.
    pub rank: u64,
    /// Stones on the board.
    pub stones: usize,
    /// Whether the vector is the mirror image of the one ranked.
    pub mirrored: bool,
}

/// The height vectors of every layer, densely numbered in lexicographic order (column 0
/// most significant), with each vector's bitboard and drops; where the game folds the
/// mirror, only the canonical vectors are numbered.
pub struct Heights {
    width: usize,
    height: usize,
    /// `compositions[c * (cells + 1) + s]`: height vectors of `c` columns summing to `s`.
    compositions: Vec<u64>,
    layers: Vec<Layer>,
    folded: bool,
}

struct Layer {
    /// Occupied cells of each vector, by rank.
    occupied: Vec<u64>,
    /// Drops of vector r: `drops[starts[r]..starts[r + 1]]`, left to right.
    drops: Vec<Drop>,
    starts: Vec<u32>,
    /// Every vector of the layer, folded or not.
    vectors: u64,
    /// Folded: per vector in lexicographic order, the rank of the canonical one, with
    /// `MIRRORED` set where it is the vector's mirror image. Empty where nothing folds.
    canonical: Vec<u32>,
}

/// The flag of `Layer::canonical` that says the vector is the mirror image of the one ranked.
const MIRRORED: u32 = 1 << 31;

impl Heights {
    /// The vectors of a `width` x `height` board, only the canonical ones where `fold`;
    /// `per_set(k)` is the number of colourings of layer k (`ColourRank::per_set`).
    pub fn new(width: usize, height: usize, colours: &ColourRank, fold: bool) -> Result<Self> {
        let cells = width * height;
        let base = height as u64 + 1;
        let vectors = (0..width).try_fold(1u64, |n, _| n.checked_mul(base));
        let vectors = vectors
            .filter(|&n| n <= MAX_HEIGHT_VECTORS)
            .ok_or_else(|| {
                Error::too_large(format!(
                    "connect {width} x {height}: {}^{width} column-height vectors, more than the \
                 {MAX_HEIGHT_VECTORS} this ranking tabulates",
                    height + 1
                ))
            })?;
        let mut compositions = vec![0u64; (width + 1) * (cells + 1)];
        compositions[0] = 1;
        for c in 1..=width {
            for s in 0..=cells {
                compositions[c * (cells + 1) + s] = (0..=height.min(s))
                    .map(|v| compositions[(c - 1) * (cells + 1) + s - v])
                    .sum();
            }
        }
        let mut heights = Heights {
            width,
            height,
            compositions,
            layers: Vec::new(),
            folded: fold,
        };
        let mut occupied: Vec<Vec<u64>> = vec![Vec::new(); cells + 1];
        let mut all: Vec<u64> = vec![0; cells + 1];
        let mut canonical: Vec<Vec<u32>> = vec![Vec::new(); cells + 1];
        // Counting in base H + 1 with column 0 the most significant digit walks the
        // vectors in lexicographic order, so each layer's list comes out in rank order, and
        // a vector's mirror image, where it comes later, has been numbered by then.
        let mut digits = vec![0usize; width];
        for _ in 0..vectors {
            let stones: usize = digits.iter().sum();
            let bits = digits.iter().enumerate().fold(0u64, |m, (c, &d)| {
                m | ((1u64 << d) - 1) << heights.bit(c, 0)
            });
            all[stones] += 1;
            if fold {
                let reversed: Vec<usize> = digits.iter().rev().copied().collect();
                if digits <= reversed {
                    canonical[stones].push(occupied[stones].len() as u32);
                    occupied[stones].push(bits);
                } else {
                    let image = heights.full_rank(&reversed, stones) as usize;
                    let entry = canonical[stones][image] | MIRRORED;
                    canonical[stones].push(entry);
                }
            } else {
                occupied[stones].push(bits);
            }
            for d in digits.iter_mut().rev() {
                *d += 1;
                if *d <= height {
                    break;
                }
                *d = 0;
            }
        }
        // Rank of the vectors in u32 with a flag bit: at most 2^20 of them.
        debug_assert!(vectors < MIRRORED as u64);
        for (k, (occupied, canonical)) in occupied.into_iter().zip(canonical).enumerate() {
            heights.layers.push(Layer {
                occupied,
                drops: Vec::new(),
                starts: Vec::new(),
                vectors: all[k],
                canonical,
            });
        }
        for k in 0..=cells {
            let mut drops = Vec::new();
            let mut starts = Vec::with_capacity(heights.layers[k].occupied.len() + 1);
            for &bits in &heights.layers[k].occupied {
                starts.push(drops.len() as u32);
                if k == cells {
                    continue;
                }
                for c in 0..width {
                    let h = heights.column_height(bits, c);
                    if h == height {
                        continue;
                    }
                    let cell = heights.bit(c, h);
                    let child = heights
                        .place_of(bits | 1 << cell)
                        .expect("a drop lands on the lowest empty cell");
                    drops.push(Drop {
                        base: child.rank * colours.per_set(k + 1),
                        child: child.rank as u32,
                        below: (bits & ((1u64 << cell) - 1)).count_ones() as u8,
                        cell: cell as u8,
                        mirrored: child.mirrored,
                    });
                }
            }
            starts.push(drops.len() as u32);
            heights.layers[k].drops = drops;
            heights.layers[k].starts = starts;
        }
        Ok(heights)
    }

    /// Whether only canonical vectors are numbered.
    pub fn folded(&self) -> bool {
        self.folded
    }

    /// The bit of row `row` (from the bottom) of column `col`.
    #[inline(always)]
    pub fn bit(&self, col: usize, row: usize) -> u32 {
        (col * (self.height + 1) + row) as u32
    }

    /// Height vectors with k stones that are numbered (folded: the canonical ones).
    pub fn count(&self, k: usize) -> u64 {
        self.layers[k].occupied.len() as u64
    }

    /// Height vectors with k stones, all of them.
    pub fn vectors(&self, k: usize) -> u64 {
        self.layers[k].vectors
    }

    /// The mirror image of a bitboard: column c becomes column W - 1 - c.
    #[inline]
    pub fn mirror(&self, bits: u64) -> u64 {
        let stride = self.height + 1;
        let column = (1u64 << stride) - 1;
        (0..self.width).fold(0, |m, c| {
            m | ((bits >> (c * stride)) & column) << ((self.width - 1 - c) * stride)
        })
    }

    /// The occupied cells of vector `rank` of layer k.
    #[inline(always)]
    pub fn occupied(&self, k: usize, rank: u64) -> u64 {
        self.layers[k].occupied[rank as usize]
    }

    /// The drops of vector `rank` of layer k, left to right.
    #[inline(always)]
    pub fn drops(&self, k: usize, rank: u64) -> &[Drop] {
        let layer = &self.layers[k];
        let r = rank as usize;
        &layer.drops[layer.starts[r] as usize..layer.starts[r + 1] as usize]
    }

    /// Stones in column `col`, given that the column is filled from the bottom.
    #[inline]
    pub fn column_height(&self, occupied: u64, col: usize) -> usize {
        ((occupied >> self.bit(col, 0)) & ((1u64 << self.height) - 1)).count_ones() as usize
    }

    /// Where the vector of `occupied` is among its layer's entries; None if a column has a
    /// gap (a stone above an empty cell) or a cell outside the board is set.
    pub fn place_of(&self, occupied: u64) -> Option<Place> {
        let column_mask = (1u64 << self.height) - 1;
        let mut all = 0u64;
        let mut heights = Vec::with_capacity(self.width);
        for c in 0..self.width {
            let column = (occupied >> self.bit(c, 0)) & column_mask;
            if column & (column + 1) != 0 {
                return None;
            }
            all |= column << self.bit(c, 0);
            heights.push(column.count_ones() as usize);
        }
        if all != occupied {
            return None;
        }
        let stones: usize = heights.iter().sum();
        let rank = self.full_rank(&heights, stones);
        let canonical = &self.layers[stones].canonical;
        Some(match canonical.get(rank as usize) {
            Some(&entry) => Place {
                rank: (entry & !MIRRORED) as u64,
                stones,
                mirrored: entry & MIRRORED != 0,
            },
            None => Place {
                rank,
                stones,
                mirrored: false,
            },
        })
    }

    /// The lexicographic rank of a vector of `stones` stones among all such vectors.
    fn full_rank(&self, heights: &[usize], stones: usize) -> u64 {
        let cells = self.width * self.height;
        let (mut rank, mut rest) = (0u64, stones);
        for (c, &h) in heights.iter().enumerate() {
            let after = self.width - 1 - c;
            for v in 0..h {
                rank += self.compositions[after * (cells + 1) + rest - v];
            }
            rest -= h;
        }
        rank
    }
}

/// Colex ranks of x's stones among a layer's stones, by byte tables: the rank of a mask is
/// the sum over its set bits s_i (the i-th lowest) of C(s_i, i + 1), and a byte's share
/// depends only on the byte, its place and the number of set bits below it.
pub struct ColourRank {
    binom: Binomial,
    /// Bytes in a mask of `cells` bits.
    chunks: usize,
    /// Most set bits below a byte, plus one: ceil(cells / 2) + 1.
    counts: usize,
    /// `table[(j * counts + t) * 256 + b]`: byte j holding b with t set bits below it.
    table: Vec<u64>,
    /// C(k, ceil(k / 2)) per layer k.
    per_set: Vec<u64>,
}

impl ColourRank {
    /// The tables of a board of `cells` cells (at most 64).
    pub fn new(cells: usize) -> Result<Self> {
        let chunks = cells.div_ceil(8).max(1);
        let binom = Binomial::new(8 * chunks)?;
        let counts = cells.div_ceil(2) + 1;
        let mut table = vec![0u64; chunks * counts * 256];
        for j in 0..chunks {
            for t in 0..counts {
                for b in 0..256usize {
                    let mut sum = 0u64;
                    let mut ones = t;
                    for q in 0..8 {
                        if b >> q & 1 == 1 {
                            ones += 1;
                            sum = sum.saturating_add(binom.get(8 * j + q, ones));
                        }
                    }
                    table[(j * counts + t) * 256 + b] = sum;
                }
            }
        }
        let per_set = (0..=cells).map(|k| binom.get(k, k.div_ceil(2))).collect();
        Ok(ColourRank {
            binom,
            chunks,
            counts,
            table,
            per_set,
        })
    }

    /// The binomials the tables were built from.
    pub fn binomial(&self) -> &Binomial {
        &self.binom
    }

    /// Colourings per height vector in layer k: C(k, ceil(k/2)).
    #[inline(always)]
    pub fn per_set(&self, k: usize) -> u64 {
        self.per_set[k]
    }

    /// The colex rank of `mask` (at most ceil(cells / 2) bits set).
    #[inline(always)]
    pub fn rank(&self, mask: u64) -> u64 {
        let (mut rank, mut below) = (0u64, 0usize);
        for j in 0..self.chunks {
            let byte = (mask >> (8 * j)) as u8 as usize;
            rank += self.table[(j * self.counts + below) * 256 + byte];
            below += byte.count_ones() as usize;
        }
        rank
    }
}
