//! The dense ranking of a layer's orbits (`Orbits`, the module's note above says how).

use std::sync::OnceLock;

use super::bits::{deposit, pext};
use super::{GridSymmetries, MAX_SYMMETRIES, NARROW_CHUNKS};
use crate::error::{Error, Result};
use crate::game::rank::{
    Binomial, POP8, colex_chunk_table, colex_next_mask, colex_unrank_mask, compress,
};

/// `Layer::entry`: where the symmetries to the canonical set start (the top 16 bits).
const HOW_SHIFT: u32 = 48;
/// `Layer::entry`: the orbit's set is its own image under a symmetry other than the identity.
const SPECIAL: u64 = 1 << 47;
/// `Layer::entry`: the bits of the first rank or the list's index.
const LOW: u64 = SPECIAL - 1;

/// The most colour patterns a layer keeps by rank (`Layer::pattern_unrank`, 4 bytes each):
/// every layer of the boards played here but the largest of Teeko's and Quixo's 5 x 5.
const PATTERN_TABLE: u64 = 1 << 20;

/// `Layer::direct`: the low bits of an entry hold the count of symmetries (at most 16).
const DIRECT_FIXED_BITS: u32 = 5;

/// The most bytes a layer's direct tables of special orbits may take (`Layer::direct`).
const DIRECT_BYTES: u64 = 8 << 20;

/// The cells `Orbits::pattern_rank` covers: patterns of more are ranked by chunks.
const PATTERN_BITS: usize = 16;

/// The most occupied sets a layer's orbit table may cover (`Orbits`): 2^28 sets take about
/// 1.3 GiB of tables. A board past it does not fold (its layers are far beyond any table
/// anyway).
pub const MAX_SETS: u64 = 1 << 28;

/// A dense ranking of the orbits of (occupied set, colouring) pairs, layer by layer (see the
/// module's docs). Layer k has k occupied cells; `xs[k]` says how many of them are x's
/// (None: any number).
#[derive(Debug)]
pub struct Orbits {
    sym: GridSymmetries,
    binom: Binomial,
    cells: usize,
    /// Per layer: the cells its keyed sets hold, the cells its patterns spread over, and
    /// how many of those are x's (None: any number).
    specs: Vec<Spec>,
    sizes: Vec<u64>,
    /// Colex ranks by 8-cell chunk: entry `(c * (cells + 1) + t) * 256 + bits` is what chunk
    /// c's set bits add when t set bits lie below it. In 32-bit words where the board has at
    /// most 32 cells (every colex rank of such a board fits), as the symmetries' tables are
    /// (`GridSymmetries::map`), else in 64-bit ones (`chunk_rank_wide`; the other empty).
    chunk_rank: Vec<u32>,
    chunk_rank_wide: Vec<u64>,
    /// The colex rank of every colour pattern of the 16 lowest cells among those with as
    /// many bits, for layers of a given number of x's: a pattern's rank does not depend on
    /// the layer, so one table of 128 KiB serves them all (empty where no layer counts x's).
    /// The ranks are below C(16, 8) = 12,870, so 16 bits hold them.
    pattern_rank: Vec<u16>,
    layers: Vec<OnceLock<Layer>>,
    /// `DIRECT_BYTES` (a test sets 0, to rank every special orbit by its list).
    direct_max: u64,
}

/// What a layer's ranks are keyed on (`Orbits::with_layers`, `Orbits::with_outer_layers`).
#[derive(Debug, Clone, Copy)]
struct Spec {
    /// The cells of a keyed set: the occupied set, or the outer side's stones.
    set: usize,
    /// The positions a pattern's bits stand for: the keyed set's own cells (`set`), or the
    /// cells it leaves free (`cells - set`).
    width: usize,
    /// Set bits of a pattern (None: any number).
    xs: Option<usize>,
    /// Whether a pattern spreads over the cells the set leaves free (the outer key) rather
    /// than over the set's own (the occupied key).
    free: bool,
}

/// One layer's orbit tables.
#[derive(Debug)]
struct Layer {
    /// Set bits of a pattern (None: any number).
    xs: Option<usize>,
    /// Patterns spread over the cells the set leaves free (`Spec::free`).
    free: bool,
    /// Every cell of the board.
    all: u64,
    /// By the colex rank of an occupied set, in one word so that ranking a position reads
    /// one entry of the table (the tables outgrow the caches): the symmetries (bit g) that
    /// carry it onto its orbit's canonical set in the top 16 bits, then `SPECIAL` where the
    /// orbit's set is its own image under another symmetry, and in the low bits the orbit's
    /// first rank (or, where `SPECIAL`, its index in `lists` and `special_offset`).
    entry: Vec<u64>,
    /// Each orbit's canonical (least) set.
    canon: Vec<u64>,
    /// Each orbit's first rank; one past the layer's last at the end.
    offset: Vec<u64>,
    /// For each orbit whose canonical set is its own image under a symmetry other than the
    /// identity, an index into `lists`; `u32::MAX` for the others.
    special: Vec<u32>,
    /// The canonical colour patterns of such orbits, each list sorted.
    lists: Vec<Box<[u64]>>,
    /// Per such orbit, where the layer keeps them (`Orbits::keeps_direct`), by the rank of
    /// a pattern of the canonical set: the index in its list of the least of the
    /// pattern's images under the symmetries that fix the set, shifted up by
    /// `DIRECT_FIXED_BITS`, and how many of them map the pattern onto that least one. A
    /// position whose set is its own image then ranks with one `pext` and one read, as
    /// others do, rather than one per symmetry and a search of the list (Quixo's fullest
    /// layers are all such sets); empty where not kept.
    direct: Vec<Box<[u32]>>,
    /// The first rank of each such orbit, by its index in `lists`.
    special_offset: Vec<u64>,
    /// The colour patterns of h bits by rank, where there are at most `PATTERN_TABLE`
    /// (`Exactly`): unranking a position reads one entry rather than walking binomials
    /// (Nine Men's Morris's moving layers tell some 10^9 positions' parents, each
    /// unranked first).
    pattern_unrank: Vec<u32>,
}

impl Orbits {
    /// The orbits of a grid's positions under `sym`, layers 0..xs.len(), layer k with k
    /// occupied cells of which `xs[k]` are x's. Fails where a layer has more sets than
    /// `MAX_SETS` or the symmetries are more than 8.
    pub fn new(sym: GridSymmetries, xs: Vec<Option<usize>>) -> Result<Orbits> {
        let specs = xs.into_iter().enumerate().collect();
        Orbits::with_layers(sym, specs)
    }

    /// The orbits of positions under `sym` in layers of any shape: layer i has `specs[i].0`
    /// occupied cells, `specs[i].1` of them x's (None: any number). A game whose layers are
    /// not numbered by their stones (morris: by the stones of each side) ranks them here.
    /// Fails where a layer has more sets than `MAX_SETS` or the symmetries are more than 16.
    pub fn with_layers(sym: GridSymmetries, specs: Vec<(usize, Option<usize>)>) -> Result<Orbits> {
        let specs = specs
            .into_iter()
            .map(|(k, xs)| Spec {
                set: k,
                width: k,
                xs,
                free: false,
            })
            .collect();
        Orbits::of_specs(sym, specs)
    }

    /// The orbits of positions keyed on one side's stones (the outer set) rather than on
    /// the occupied cells: layer i's positions have `specs[i].0` outer stones and
    /// `specs[i].1` inner ones, and a position is `(outer, inner)` wherever this type takes
    /// or gives `(set, x)`. The layer sizes are those of `with_layers` with
    /// `(outer + inner, Some(inner))`; only the order within a layer differs. A solver whose
    /// moves keep one side's stones in place ranks all the positions one position leads to
    /// (or comes from) against one outer set (`Orbits::outer`), and the outer tables are
    /// C(cells, outer) words rather than C(cells, outer + inner).
    pub fn with_outer_layers(sym: GridSymmetries, specs: Vec<(usize, usize)>) -> Result<Orbits> {
        let cells = sym.cells;
        let mut out = Vec::with_capacity(specs.len());
        for (outer, inner) in specs {
            if outer + inner > cells {
                return Err(Error::too_large(format!(
                    "a layer of {} stones on {cells} cells",
                    outer + inner
                )));
            }
            out.push(Spec {
                set: outer,
                width: cells - outer,
                xs: Some(inner),
                free: true,
            });
        }
        Orbits::of_specs(sym, out)
    }

    fn of_specs(sym: GridSymmetries, specs: Vec<Spec>) -> Result<Orbits> {
        let cells = sym.cells;
        if sym.len() > MAX_SYMMETRIES {
            return Err(Error::other(format!(
                "at most {MAX_SYMMETRIES} symmetries of a board are folded"
            )));
        }
        let binom = Binomial::new(cells)?;
        for spec in &specs {
            let k = spec.set;
            if k > cells || binom.get(cells, k) > MAX_SETS {
                return Err(Error::too_large(format!(
                    "a layer of {k} stones on {cells} cells has too many occupied sets to fold"
                )));
            }
        }
        let wide = colex_chunk_table(&binom, cells);
        let (chunk_rank, chunk_rank_wide) = match sym.chunks <= NARROW_CHUNKS {
            true => (wide.iter().map(|&r| r as u32).collect(), Vec::new()),
            false => (Vec::new(), wide),
        };
        let sizes: Vec<u64> = specs
            .iter()
            .map(|s| match (s.free, s.xs) {
                // (outer, inner) pairs are (occupied, x's) pairs with the inner as x's.
                (true, Some(h)) => burnside(&sym, s.set + h, Some(h)),
                _ => burnside(&sym, s.set, s.xs),
            })
            .collect();
        if sizes.iter().any(|&n| n >= LOW) {
            return Err(Error::too_large("a layer has too many orbits to fold"));
        }
        let layers = specs.iter().map(|_| OnceLock::new()).collect();
        let pattern_rank = match specs.iter().any(|s| s.xs.is_some()) {
            true => (0..1u64 << cells.min(PATTERN_BITS))
                .map(|p| {
                    let mut rest = p;
                    let (mut rank, mut i) = (0, 0);
                    while rest != 0 {
                        i += 1;
                        rank += binom.get(rest.trailing_zeros() as usize, i);
                        rest &= rest - 1;
                    }
                    rank as u16
                })
                .collect(),
            false => Vec::new(),
        };
        Ok(Orbits {
            sym,
            binom,
            cells,
            specs,
            sizes,
            chunk_rank,
            chunk_rank_wide,
            pattern_rank,
            layers,
            direct_max: DIRECT_BYTES,
        })
    }

    /// The symmetries folded.
    pub fn symmetries(&self) -> &GridSymmetries {
        &self.sym
    }

    /// The occupied cells of layer i's positions.
    pub fn occupied(&self, i: usize) -> usize {
        let spec = self.specs[i];
        match (spec.free, spec.xs) {
            (true, Some(h)) => spec.set + h,
            _ => spec.set,
        }
    }

    /// Orbits in layer k.
    pub fn layer_size(&self, k: usize) -> u64 {
        self.sizes[k]
    }

    /// Build layer k's tables now (the solver's `prepare_layer`), rather than at first use.
    pub fn prepare(&self, k: usize) {
        self.layer(k);
    }

    /// Bytes the tables of every layer take once each is built (they are kept to the end),
    /// at most, plus what building the largest holds for a moment (`layer_bytes`).
    pub fn table_bytes(&self) -> u64 {
        let shared = (self.chunk_rank.len() * 4
            + self.chunk_rank_wide.len() * 8
            + self.pattern_rank.len() * 2) as u64;
        let layers = (0..self.specs.len()).map(|i| self.layer_bytes(i));
        let building = (0..self.specs.len())
            .map(|i| {
                self.binom
                    .get(self.cells, self.specs[i].set)
                    .saturating_mul(6)
            })
            .max()
            .unwrap_or(0);
        layers.fold(shared.saturating_add(building), u64::saturating_add)
    }

    /// Bytes layer i's tables take once built, at most, worked out from counts without
    /// building them. Near a full board most sets are their own image under some symmetry,
    /// and their orbits' colour patterns are listed one by one (8 bytes each): Quixo 5 x
    /// 5's two fullest counts list 300 MiB of them. Only a set some symmetry other than the
    /// identity fixes can be special, so the lists hold at most the layer's orbits less
    /// those of the sets no symmetry fixes. (While a layer is built, each set's orbit and
    /// symmetries, 6 bytes, are held beside its entry: `table_bytes` adds the largest.)
    pub fn layer_bytes(&self, i: usize) -> u64 {
        let spec = self.specs[i];
        let (k, xs) = (spec.set, spec.xs);
        let sets = self.binom.get(self.cells, k) as u128;
        let by_g: Vec<u128> = (0..self.sym.len())
            .map(|g| sets_fixed(&self.sym.cycles(g), k))
            .collect();
        let g_count = self.sym.len() as u128;
        let set_orbits = by_g.iter().sum::<u128>() / g_count;
        // Sets some symmetry other than the identity fixes (counted with repeats).
        let special_sets = by_g.iter().skip(1).sum::<u128>().min(sets);
        let free_orbits = (sets - special_sets) / g_count;
        let listed =
            (self.sizes[i] as u128).saturating_sub(free_orbits * self.patterns(spec) as u128);
        let specials = set_orbits - free_orbits.min(set_orbits);
        let unrank = match xs {
            Some(h) if self.binom.get(spec.width, h) <= PATTERN_TABLE => {
                self.binom.get(spec.width, h) as u128
            }
            _ => 0,
        };
        // entry; canon, offset, special; the lists (a boxed slice each, and its first
        // rank); the patterns by rank; the direct tables.
        let direct = match self.keeps_direct(i) {
            true => self.direct_bytes(i) as u128 + specials * 16,
            false => 0,
        };
        let bytes = sets * 8 + set_orbits * 20 + listed * 8 + specials * 24 + unrank * 4 + direct;
        bytes.min(u64::MAX as u128) as u64
    }

    /// At most how many special orbits (whose set is its own image under a symmetry
    /// other than the identity) layer i has, from counts: every set some other symmetry
    /// fixes is taken to be one orbit of its own.
    fn specials_at_most(&self, i: usize) -> u128 {
        let k = self.specs[i].set;
        let sets = self.binom.get(self.cells, k) as u128;
        let by_g: Vec<u128> = (0..self.sym.len())
            .map(|g| sets_fixed(&self.sym.cycles(g), k))
            .collect();
        let g_count = self.sym.len() as u128;
        let set_orbits = by_g.iter().sum::<u128>() / g_count;
        let special_sets = by_g.iter().skip(1).sum::<u128>().min(sets);
        let free_orbits = (sets - special_sets) / g_count;
        set_orbits - free_orbits.min(set_orbits)
    }

    /// Bytes of layer i's direct tables (`Layer::direct`) at most, were they kept.
    fn direct_bytes(&self, i: usize) -> u64 {
        let bytes = self.specials_at_most(i) * self.patterns(self.specs[i]) as u128 * 4;
        bytes.min(u64::MAX as u128) as u64
    }

    /// Whether layer i keeps direct tables for its special orbits: where they take at
    /// most `DIRECT_BYTES` (decided from counts alone, so that `layer_bytes` agrees with
    /// the tables built).
    fn keeps_direct(&self, i: usize) -> bool {
        self.direct_bytes(i) <= self.direct_max
    }

    /// Whether layer i's tables are built.
    pub fn is_built(&self, i: usize) -> bool {
        self.layers[i].get().is_some()
    }

    #[inline]
    fn layer(&self, k: usize) -> &Layer {
        self.layers[k].get_or_init(|| self.build(k))
    }

    /// The colex rank of a set of cells.
    #[inline(always)]
    fn set_rank(&self, set: u64) -> u64 {
        match self.sym.chunks {
            1 => self.set_rank_narrow::<1>(set),
            2 => self.set_rank_narrow::<2>(set),
            3 => self.set_rank_narrow::<3>(set),
            4 => self.set_rank_narrow::<4>(set),
            n => self.set_rank_wide(set, n),
        }
    }

    /// The set rank over `N` bytes of 32-bit table words (the loop unrolls).
    #[inline(always)]
    fn set_rank_narrow<const N: usize>(&self, set: u64) -> u64 {
        let (mut rank, mut t) = (0u32, 0);
        let stride = self.cells + 1;
        for c in 0..N {
            let bits = (set >> (8 * c) & 255) as usize;
            rank += self.chunk_rank[(c * stride + t) * 256 + bits];
            t += POP8[bits] as usize;
        }
        u64::from(rank)
    }

    /// The set rank over `chunks` bytes of 64-bit table words.
    #[inline(always)]
    fn set_rank_wide(&self, set: u64, chunks: usize) -> u64 {
        let (mut rank, mut t) = (0, 0);
        let stride = self.cells + 1;
        for c in 0..chunks {
            let bits = (set >> (8 * c) & 255) as usize;
            rank += self.chunk_rank_wide[(c * stride + t) * 256 + bits];
            t += POP8[bits] as usize;
        }
        rank
    }

    /// The number of patterns of a layer's sets.
    fn patterns(&self, spec: Spec) -> u64 {
        match spec.xs {
            None => 1u64 << spec.width,
            Some(h) => self.binom.get(spec.width, h),
        }
    }

    /// A pattern's rank among all patterns of the layer (all of them, or those of h bits).
    #[inline]
    fn rank_pattern(&self, layer: &Layer, p: u64) -> u64 {
        match layer.xs {
            None => p,
            Some(_) => match self.pattern_rank.get(p as usize) {
                Some(&r) => r as u64,
                // A pattern's colex rank is its rank as a set of cells (its bits below k).
                None => self.set_rank(p),
            },
        }
    }

    fn unrank_pattern(&self, layer: &Layer, rank: u64) -> u64 {
        match layer.xs {
            None => rank,
            Some(_) if !layer.pattern_unrank.is_empty() => {
                layer.pattern_unrank[rank as usize] as u64
            }
            Some(h) => colex_unrank_mask(&self.binom, rank, h),
        }
    }

    /// The first pattern, and the one after `p` (in rank order).
    fn first_pattern(xs: Option<usize>) -> u64 {
        match xs {
            None => 0,
            Some(h) => (1u64 << h) - 1,
        }
    }

    fn next_pattern(xs: Option<usize>, p: u64) -> u64 {
        match xs {
            None => p + 1,
            Some(0) => p,
            Some(_) => colex_next_mask(p),
        }
    }

    fn build(&self, i: usize) -> Layer {
        let spec = self.specs[i];
        let (k, xs) = (spec.set, spec.xs);
        let all = (1u64 << self.cells) - 1;
        let spread_over = |set: u64| if spec.free { all & !set } else { set };
        let sets = self.binom.get(self.cells, k) as usize;
        let g_count = self.sym.len();
        let mut orbit_of = vec![0u32; sets];
        let mut how = vec![0u16; sets];
        let mut canon = Vec::new();
        let mut set = (1u64 << k) - 1;
        for r in 0..sets {
            let mut least = set;
            let mut images = [0u64; MAX_SYMMETRIES];
            for (g, image) in images.iter_mut().enumerate().take(g_count) {
                *image = self.sym.map(g, set);
                least = least.min(*image);
            }
            let mut bits = 0u16;
            for (g, &image) in images.iter().enumerate().take(g_count) {
                if image == least {
                    bits |= 1 << g;
                }
            }
            how[r] = bits;
            orbit_of[r] = if least == set {
                canon.push(set);
                (canon.len() - 1) as u32
            } else {
                // The least image comes first in colex order: its orbit is known.
                orbit_of[self.set_rank(least) as usize]
            };
            if r + 1 < sets {
                set = colex_next_mask(set);
            }
        }
        let pattern_unrank = match xs {
            Some(h) if self.binom.get(spec.width, h) <= PATTERN_TABLE => {
                let mut p = (1u64 << h) - 1;
                (0..self.binom.get(spec.width, h))
                    .map(|_| {
                        let this = p as u32;
                        if h > 0 {
                            p = colex_next_mask(p);
                        }
                        this
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let mut offset = Vec::with_capacity(canon.len() + 1);
        let mut special = vec![u32::MAX; canon.len()];
        let mut lists = Vec::new();
        let mut directs = Vec::new();
        let direct = self.keeps_direct(i);
        let mut at = 0u64;
        let full = self.patterns(spec);
        for (o, &set) in canon.iter().enumerate() {
            offset.push(at);
            // The symmetries that map the set to itself.
            let stab = how[self.set_rank(set) as usize];
            if stab == 1 {
                at += full;
                continue;
            }
            let mut list = Vec::new();
            let mut table = Vec::with_capacity(if direct { full as usize } else { 0 });
            let mut p = Self::first_pattern(xs);
            // The symmetries that fix the set fix the cells it leaves free too.
            let over = spread_over(set);
            for _ in 0..full {
                let x = deposit(p, over);
                let images = (1..g_count)
                    .filter(|g| stab >> g & 1 == 1)
                    .map(|g| compress(self.sym.map(g, x), over));
                let least = images.clone().fold(p, u64::min);
                if least == p {
                    list.push(p);
                }
                if direct {
                    // Patterns come in rank order, so the least of this one's orbit is
                    // listed already.
                    let local = list.binary_search(&least).unwrap_or(0) as u32;
                    let fixed = 1 + images.filter(|&q| q == p).count() as u32;
                    table.push(local << DIRECT_FIXED_BITS | fixed);
                }
                p = Self::next_pattern(xs, p);
            }
            at += list.len() as u64;
            special[o] = lists.len() as u32;
            lists.push(list.into_boxed_slice());
            directs.push(table.into_boxed_slice());
        }
        offset.push(at);
        debug_assert_eq!(
            at, self.sizes[i],
            "layer {i}: orbits against Burnside's count"
        );
        let special_offset: Vec<u64> = (0..canon.len())
            .filter(|&o| special[o] != u32::MAX)
            .map(|o| offset[o])
            .collect();
        // Every rank reads this table at random (Morris's reach 20 MiB): on huge pages it
        // costs no TLB miss of its own where the kernel leaves the choice to the program.
        let mut entry: Vec<u64> = Vec::with_capacity(sets);
        crate::memory::huge_pages(entry.spare_capacity_mut());
        entry.extend(orbit_of.iter().zip(&how).map(|(&o, &h)| {
            let o = o as usize;
            let low = match special[o] {
                u32::MAX => offset[o],
                at => SPECIAL | at as u64,
            };
            u64::from(h) << HOW_SHIFT | low
        }));
        Layer {
            xs,
            free: spec.free,
            all,
            entry,
            canon,
            offset,
            special,
            lists,
            direct: directs,
            special_offset,
            pattern_unrank,
        }
    }

    /// The rank in layer k of the orbit of the position with occupied cells `set` and x's
    /// stones `x` (a subset of `set`; layer k = the number of cells in `set`).
    #[inline]
    pub fn rank(&self, k: usize, set: u64, x: u64) -> u64 {
        self.rank_fixed(k, set, x).0
    }

    /// How many of the symmetries map the position onto itself (`rank_fixed`'s count): one
    /// table read for most positions.
    #[inline]
    pub fn fixed(&self, k: usize, set: u64, x: u64) -> u32 {
        let e = self.layer(k).entry[self.set_rank(set) as usize];
        match e & SPECIAL {
            0 => 1,
            _ => self.rank_fixed(k, set, x).1,
        }
    }

    /// `rank`, and how many of the symmetries map the position onto itself (its orbit holds
    /// `len() / fixed` positions). Only a position whose set is its own image under another
    /// symmetry can be fixed by one, so for most the count costs nothing: a solver that
    /// weighs its parents by their orbits (`Game::for_each_parent_within`) asks it of each.
    #[inline]
    pub fn rank_fixed(&self, k: usize, set: u64, x: u64) -> (u64, u32) {
        self.outer(k, set).rank_fixed(x)
    }

    /// Layer k's orbit entry for a set: what ranking every position of that set needs, read
    /// once (`Outer::rank_fixed` ranks each). Where a layer is keyed on one side's stones
    /// (`with_outer_layers`) and a move leaves them in place, every position one position
    /// leads to or comes from shares it.
    #[inline]
    pub fn outer(&self, k: usize, set: u64) -> Outer<'_> {
        let layer = self.layer(k);
        let entry = layer.entry[self.set_rank(set) as usize];
        let how = (entry >> HOW_SHIFT) as u16;
        let g = how.trailing_zeros() as usize;
        // The canonical set is the set's image: no second table read.
        let canon = self.sym.map(g, set);
        Outer {
            orbits: self,
            layer,
            entry,
            g,
            over: layer.spread_over(canon),
        }
    }

    /// The ranks in layer k of `n` positions at once, the i-th given by `position(i)` as
    /// (occupied cells, x's cells), into `out[..n]`: as `rank` ranks each, but in stages over
    /// a few at a time, each table line asked for ahead of its use (the orbit entry, then
    /// the pattern's rank), so that their cache misses overlap rather than follow one
    /// another. Morris ranks a position's parents and its captures' children so: its large
    /// layers' entry tables (up to 20 MiB) outgrow the caches.
    #[inline]
    pub fn rank_many(
        &self,
        k: usize,
        n: usize,
        position: impl Fn(usize) -> (u64, u64),
        out: &mut [u64],
    ) {
        const AT_ONCE: usize = 16;
        let layer = self.layer(k);
        let mut first = 0;
        while first < n {
            let len = AT_ONCE.min(n - first);
            let mut entry = [0u32; AT_ONCE];
            for (i, e) in entry[..len].iter_mut().enumerate() {
                *e = self.set_rank(position(first + i).0) as u32;
                crate::memory::prefetch(&layer.entry[*e as usize]);
            }
            // The pattern of each position over its canonical set (or, for an orbit whose set
            // maps onto itself, its rank, found now: such sets are few).
            let mut pattern = [u64::MAX; AT_ONCE];
            for (i, p) in pattern[..len].iter_mut().enumerate() {
                let (set, x) = position(first + i);
                let e = layer.entry[entry[i] as usize];
                if e & SPECIAL != 0 {
                    out[first + i] = self.rank(k, set, x);
                    continue;
                }
                let g = ((e >> HOW_SHIFT) as u16).trailing_zeros() as usize;
                *p = pext(self.sym.map(g, x), layer.spread_over(self.sym.map(g, set)));
                if let (Some(_), Some(r)) = (layer.xs, self.pattern_rank.get(*p as usize)) {
                    crate::memory::prefetch(r);
                }
                out[first + i] = e & LOW;
            }
            for (out, &p) in out[first..first + len].iter_mut().zip(&pattern) {
                if p != u64::MAX {
                    *out += self.rank_pattern(layer, p);
                }
            }
            first += len;
        }
    }

    /// The canonical position of rank `rank` in layer k, as (occupied cells, x's cells), and
    /// a cursor for `advance`.
    pub fn unrank(&self, k: usize, rank: u64) -> (u64, u64, Cursor) {
        let layer = self.layer(k);
        let o = Self::orbit_of(layer, rank);
        let local = rank - layer.offset[o];
        let set = layer.canon[o];
        let p = match layer.special[o] {
            u32::MAX => self.unrank_pattern(layer, local),
            at => layer.lists[at as usize][local as usize],
        };
        let cursor = Cursor {
            orbit: o as u32,
            local,
            pattern: p,
        };
        (set, deposit(p, layer.spread_over(set)), cursor)
    }

    /// The orbit holding `rank`: the last whose first rank is at most `rank`. Callers
    /// unrank positions in rank order (a chunk's decided positions, its parents sorted),
    /// so the orbit found last on this thread, or one a few past it, is most often the
    /// one: looked at before the binary search over all of them, which misses the cache
    /// on every step in a layer of millions of orbits.
    #[inline]
    fn orbit_of(layer: &Layer, rank: u64) -> usize {
        thread_local! {
            /// The layer (its address) and the orbit found last.
            static LAST: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
        }
        const NEAR: usize = 4;
        let offset = &layer.offset;
        let id = layer as *const Layer as usize;
        let (last_id, last) = LAST.with(|c| c.get());
        let mut found = None;
        if last_id == id && last + 1 < offset.len() && offset[last] <= rank {
            found = (last..offset.len() - 1)
                .take(NEAR)
                .find(|&o| rank < offset[o + 1]);
        }
        let o = found.unwrap_or_else(|| offset.partition_point(|&start| start <= rank) - 1);
        LAST.with(|c| c.set((id, o)));
        o
    }

    /// The position after the one `cursor` is at, in rank order (within the layer).
    pub fn advance(&self, k: usize, cursor: &mut Cursor) -> (u64, u64) {
        let layer = self.layer(k);
        let o = cursor.orbit as usize;
        let count = layer.offset[o + 1] - layer.offset[o];
        cursor.local += 1;
        let o = if cursor.local == count {
            cursor.orbit += 1;
            cursor.local = 0;
            cursor.orbit as usize
        } else {
            o
        };
        let set = layer.canon[o.min(layer.canon.len() - 1)];
        cursor.pattern = match layer.special.get(o).copied().unwrap_or(u32::MAX) {
            u32::MAX if cursor.local == 0 => Self::first_pattern(layer.xs),
            u32::MAX => Self::next_pattern(layer.xs, cursor.pattern),
            at => layer.lists[at as usize][cursor.local as usize],
        };
        (set, deposit(cursor.pattern, layer.spread_over(set)))
    }

    /// How many positions the orbit of (`set`, `x`) holds under the grid's symmetries.
    pub fn orbit_size(&self, set: u64, x: u64) -> u64 {
        let fixed = (0..self.sym.len())
            .filter(|&g| self.sym.map(g, set) == set && self.sym.map(g, x) == x)
            .count();
        (self.sym.len() / fixed.max(1)) as u64
    }

    /// The distinct images of (`set`, `x`), itself first.
    pub fn images(&self, set: u64, x: u64) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::with_capacity(self.sym.len());
        for g in 0..self.sym.len() {
            let image = (self.sym.map(g, set), self.sym.map(g, x));
            if !out.contains(&image) {
                out.push(image);
            }
        }
        out
    }
}

/// A set's orbit entry in one layer (`Orbits::outer`): the positions of that set rank from
/// it with a symmetry image, a `pext` and a pattern's rank each.
pub struct Outer<'a> {
    orbits: &'a Orbits,
    layer: &'a Layer,
    entry: u64,
    /// The first symmetry carrying the set onto its orbit's canonical set.
    g: usize,
    /// The cells a pattern spreads over, on the canonical set's side.
    over: u64,
}

impl Outer<'_> {
    /// The rank of the position of this set with x's stones (or inner stones) `x`, and how
    /// many symmetries map it onto itself (`Orbits::rank_fixed`).
    #[inline]
    pub fn rank_fixed(&self, x: u64) -> (u64, u32) {
        let (orbits, layer, e) = (self.orbits, self.layer, self.entry);
        if e & SPECIAL == 0 {
            let p = pext(orbits.sym.map(self.g, x), self.over);
            return ((e & LOW) + orbits.rank_pattern(layer, p), 1);
        }
        let at = (e & LOW) as usize;
        if let Some(direct) = layer.direct.get(at).filter(|d| !d.is_empty()) {
            let p = pext(orbits.sym.map(self.g, x), self.over);
            let d = direct[orbits.rank_pattern(layer, p) as usize];
            let fixed = d & ((1 << DIRECT_FIXED_BITS) - 1);
            return (
                layer.special_offset[at] + u64::from(d >> DIRECT_FIXED_BITS),
                fixed,
            );
        }
        // The symmetries that carry the set onto the canonical one carry the position onto
        // its least image as many times as it has symmetries of its own.
        let mut rest = (e >> HOW_SHIFT) as u16;
        let (mut least, mut fixed) = (u64::MAX, 0);
        while rest != 0 {
            let g = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let p = pext(orbits.sym.map(g, x), self.over);
            if p < least {
                (least, fixed) = (p, 1);
            } else if p == least {
                fixed += 1;
            }
        }
        let list = &layer.lists[at];
        let rank =
            layer.special_offset[at] + list.binary_search(&least).unwrap_or_else(|i| i) as u64;
        (rank, fixed)
    }

    /// Whether no symmetry other than the identity maps the set's orbit onto itself: then
    /// every position of the set is fixed by the identity alone.
    #[inline]
    pub fn is_plain(&self) -> bool {
        self.entry & SPECIAL == 0
    }
}

impl Layer {
    /// The cells a pattern of `set` spreads over.
    #[inline(always)]
    fn spread_over(&self, set: u64) -> u64 {
        if self.free { self.all & !set } else { set }
    }
}

/// Where `Orbits::advance` is: an orbit and a pattern within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cursor {
    orbit: u32,
    local: u64,
    pattern: u64,
}

/// The number of orbits of layer k (k occupied cells, `xs` of them x's, or any number) under
/// `sym`: by Burnside's lemma, the average over the symmetries of the positions each fixes.
/// A symmetry fixes a position where every one of its cycles of cells is all empty, all x's
/// or all o's.
/// The sets of `k` cells a symmetry whose cycles have lengths `cycles` maps onto themselves:
/// the unions of whole cycles with `k` cells.
fn sets_fixed(cycles: &[usize], k: usize) -> u128 {
    let mut ways = vec![0u128; k + 1];
    ways[0] = 1;
    for &len in cycles {
        for size in (len..=k).rev() {
            ways[size] += ways[size - len];
        }
    }
    ways[k]
}

fn burnside(sym: &GridSymmetries, k: usize, xs: Option<usize>) -> u64 {
    let mut total: u128 = 0;
    for g in 0..sym.len() {
        // ways[occupied][x's]
        let mut ways = vec![vec![0u128; k + 1]; k + 1];
        ways[0][0] = 1;
        for len in sym.cycles(g) {
            let mut next = ways.clone();
            for occupied in 0..=k {
                for x in 0..=occupied {
                    let w = ways[occupied][x];
                    if w == 0 || occupied + len > k {
                        continue;
                    }
                    next[occupied + len][x + len] += w;
                    next[occupied + len][x] += w;
                }
            }
            ways = next;
        }
        total += match xs {
            Some(h) if h <= k => ways[k][h],
            Some(_) => 0,
            None => ways[k].iter().sum(),
        };
    }
    (total / sym.len() as u128) as u64
}

#[cfg(test)]
mod tests;
