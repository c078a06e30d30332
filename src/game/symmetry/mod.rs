//! Symmetry: a board's symmetries map positions to positions of the same value, so a game
//! that declares them stores one entry per orbit (the set of a position's images) instead of
//! one per position. The tables shrink with the orbit count and so does the work.
//!
//! A folding game's positions are an occupied set of cells with a colouring (which of the
//! occupied cells hold x's stones: any of them, or exactly h): Teeko, Quixo and mnk. Its
//! layers are ranked densely by orbits ([`Orbits`]):
//!
//! - The occupied sets of k cells are grouped into orbits once per layer: each set's colex
//!   rank leads to its orbit's index and to the symmetries that carry it onto the orbit's
//!   canonical set (its least mask). Such a table is a few bytes per set of the layer,
//!   C(cells, k) of them, and is built the first time the layer is used.
//! - Within an orbit of sets, a position is its colouring of the canonical set, as a pattern
//!   of k bits (bit i: the i-th occupied cell, in cell order, is x's). Where the canonical
//!   set is nobody's image but its own (most sets), every pattern is a different orbit and
//!   the patterns are ranked as they are (all 2^k, or the C(k, h) of h bits in colex order).
//!   Where some symmetry other than the identity maps the set to itself, the patterns it maps
//!   to each other are one orbit: the least of each is kept, in a sorted list, and a
//!   pattern's rank is its index there.
//!
//! So the index has no holes: every rank is one orbit, and a layer's size is its orbit
//! count, which Burnside's lemma gives without the tables (the average over the symmetries
//! of the positions each one fixes), so `plan` and a header's check cost nothing. Gasser's and
//! Malom's Nine Men's Morris indexes allow some slack where a set is its own image; the
//! sorted lists above cost less than that slack would on these boards (Teeko: 0.1% of the
//! orbits of its movement layer have a set that is its own image).
//!
//! Colours are the game's business: Quixo and Teeko's movement layer also fold the side to
//! move (exchanging x's and o's turns a position with o to move into one with x to move and
//! the same value), before they rank what is left here.

mod bits;
mod orbits;

pub(crate) use bits::pext;
pub use orbits::{Cursor, MAX_SETS, Orbits, Outer};

/// Which symmetries of a grid a game folds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridGroup {
    /// The square's eight (rotations and reflections); a board that is not square keeps the
    /// four of its rectangle.
    Dihedral,
    /// The left-right mirror only (Connect Four: gravity pulls down).
    Mirror,
}

/// A grid's symmetries as permutations of its cells (cell `r * cols + c`), applied to cell
/// masks by a byte table per symmetry.
#[derive(Debug, Clone)]
pub struct GridSymmetries {
    pub(super) cells: usize,
    /// 8-cell chunks of a mask.
    pub(super) chunks: usize,
    /// Per symmetry, the image of each cell.
    pub(super) images: Vec<Vec<u8>>,
    /// `tables[(g * chunks + c) * 256 + byte]`: the image of chunk c's cells `byte`, in
    /// 32-bit words where the board has at most 32 cells (`narrow`), else in 64-bit ones
    /// (`wide`; the other is empty). Ranking maps two masks a parent, so these tables are
    /// read as often as anything in a solve: narrow ones take half the cache (Teeko's eight
    /// symmetries of 4 chunks, 32 KiB rather than 64).
    narrow: Vec<u32>,
    wide: Vec<u64>,
}

impl GridSymmetries {
    /// The symmetries of a `rows` x `cols` grid (the identity first).
    pub fn grid(rows: usize, cols: usize, group: GridGroup) -> GridSymmetries {
        let cell = |r: usize, c: usize| (r * cols + c) as u8;
        let (last_r, last_c) = (rows - 1, cols - 1);
        let mut maps: Vec<Box<dyn Fn(usize, usize) -> u8>> =
            vec![Box::new(cell), Box::new(move |r, c| cell(r, last_c - c))];
        if group == GridGroup::Dihedral {
            maps.push(Box::new(move |r, c| cell(last_r - r, c)));
            maps.push(Box::new(move |r, c| cell(last_r - r, last_c - c)));
            if rows == cols {
                maps.push(Box::new(move |r, c| cell(c, r)));
                maps.push(Box::new(move |r, c| cell(last_c - c, last_r - r)));
                maps.push(Box::new(move |r, c| cell(c, last_r - r)));
                maps.push(Box::new(move |r, c| cell(last_c - c, r)));
            }
        }
        let images: Vec<Vec<u8>> = maps
            .iter()
            .map(|f| (0..rows * cols).map(|i| f(i / cols, i % cols)).collect())
            .collect();
        GridSymmetries::from_images(rows * cols, images)
    }

    /// Symmetries given as the image of each cell, the identity first.
    pub fn from_images(cells: usize, images: Vec<Vec<u8>>) -> GridSymmetries {
        let chunks = cells.div_ceil(8).max(1);
        let mut tables = vec![0u64; images.len() * chunks * 256];
        for (g, image) in images.iter().enumerate() {
            for c in 0..chunks {
                for byte in 0..256usize {
                    let mut out = 0u64;
                    for bit in 0..8 {
                        let at = 8 * c + bit;
                        if byte >> bit & 1 == 1 && at < cells {
                            out |= 1 << image[at];
                        }
                    }
                    tables[(g * chunks + c) * 256 + byte] = out;
                }
            }
        }
        let (narrow, wide) = match chunks <= NARROW_CHUNKS {
            true => (tables.iter().map(|&t| t as u32).collect(), Vec::new()),
            false => (Vec::new(), tables),
        };
        GridSymmetries {
            cells,
            chunks,
            images,
            narrow,
            wide,
        }
    }

    /// How many symmetries (the identity included).
    pub fn len(&self) -> usize {
        self.images.len()
    }

    /// Whether there is none but the identity.
    pub fn is_empty(&self) -> bool {
        self.images.len() <= 1
    }

    /// The image of a cell mask under symmetry `g`.
    #[inline(always)]
    pub fn map(&self, g: usize, mask: u64) -> u64 {
        // The common sizes with their loops unrolled: ranking a child maps two masks, and
        // morris ranks some ten children a position.
        match self.chunks {
            1 => self.map_narrow::<1>(g, mask),
            2 => self.map_narrow::<2>(g, mask),
            3 => self.map_narrow::<3>(g, mask),
            4 => self.map_narrow::<4>(g, mask),
            n => self.map_wide(g, mask, n),
        }
    }

    /// The image over `N` bytes of 32-bit table words (the loop unrolls).
    #[inline(always)]
    fn map_narrow<const N: usize>(&self, g: usize, mask: u64) -> u64 {
        let table = &self.narrow[g * N * 256..(g + 1) * N * 256];
        let mut out = 0;
        for c in 0..N {
            out |= table[c * 256 + (mask >> (8 * c) & 255) as usize];
        }
        u64::from(out)
    }

    /// The image over `chunks` bytes of 64-bit table words.
    #[inline(always)]
    fn map_wide(&self, g: usize, mask: u64, chunks: usize) -> u64 {
        let table = &self.wide[g * chunks * 256..(g + 1) * chunks * 256];
        let mut out = 0;
        for c in 0..chunks {
            out |= table[c * 256 + (mask >> (8 * c) & 255) as usize];
        }
        out
    }

    /// The image of one cell under symmetry `g`.
    pub fn map_cell(&self, g: usize, cell: usize) -> usize {
        self.images[g][cell] as usize
    }

    /// The cycle lengths of symmetry `g` on the cells.
    fn cycles(&self, g: usize) -> Vec<usize> {
        let mut seen = vec![false; self.cells];
        let mut out = Vec::new();
        for start in 0..self.cells {
            let (mut at, mut len) = (start, 0);
            while !seen[at] {
                seen[at] = true;
                at = self.images[g][at] as usize;
                len += 1;
            }
            if len > 0 {
                out.push(len);
            }
        }
        out
    }
}

/// Boards of at most this many 8-cell chunks (32 cells) keep their cell masks' tables in
/// 32-bit words.
pub(super) const NARROW_CHUNKS: usize = 4;

/// The most symmetries folded: a table word keeps one bit per symmetry.
pub const MAX_SYMMETRIES: usize = 16;
