//! What the two fixpoint workers (`fixpoint.rs`, counters; `checks.rs`, no counters) keep
//! besides each position's word: the levels at which blocks of positions may be decided by
//! what they held from the start (`Ready`), and sets of positions (`Marks`: the candidates
//! of the next level, the positions decided at this one).

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::outside::CHUNK;
use super::ranks::Ranks;

/// The least level any block of any rank is ready at.
pub(super) fn least_over<R: Ranks>(ranks: &R, ready: &Ready) -> Option<u32> {
    let least = ranks.min(ready.least().map_or(u64::MAX, u64::from));
    u32::try_from(least).ok()
}

/// Positions per block of `Ready`.
pub(super) const BLOCK: usize = 64;
/// No level: nothing in the block is ready by itself.
pub(super) const NONE: u16 = u16::MAX;

/// Per block of `BLOCK` positions, the least level at which a position of the block may be
/// decided by what its word holds rather than because a child was decided the level
/// before (a win pending from a child outside the layer, a floor with no child left within),
/// and per chunk the least over its blocks: a level scans only the blocks ready at it. The
/// levels are lower bounds (exact after a scan, until a position of the block is decided as
/// a candidate), never past a position's own level, so nothing is missed; 2 bytes per 64
/// positions.
pub(super) struct Ready {
    blocks: Vec<AtomicU16>,
    chunks: Vec<AtomicU16>,
}

impl Ready {
    pub(super) fn new(n: usize) -> Ready {
        let blocks = n.div_ceil(BLOCK);
        Ready {
            blocks: crate::memory::zeroed_atomics(blocks, || AtomicU16::new(NONE)).into_vec(),
            chunks: (0..n.div_ceil(CHUNK))
                .map(|_| AtomicU16::new(NONE))
                .collect(),
        }
    }

    pub(super) fn chunk(&self, c: usize) -> u16 {
        self.chunks[c].load(Relaxed)
    }

    pub(super) fn block(&self, c: usize, b: usize) -> u16 {
        self.blocks[c * (CHUNK / BLOCK) + b].load(Relaxed)
    }

    /// Chunk c's blocks' levels, from the one thread that owns the chunk in this pass.
    pub(super) fn set_chunk(&self, c: usize, least: &[u16; CHUNK / BLOCK]) {
        let first = c * (CHUNK / BLOCK);
        for (b, &l) in least.iter().enumerate() {
            if let Some(block) = self.blocks.get(first + b) {
                block.store(l, Relaxed);
            }
        }
        let chunk = least.iter().copied().min().unwrap_or(NONE);
        self.chunks[c].store(chunk, Relaxed);
    }

    /// Visit the positions of chunk c's blocks ready at level `d` (of a layer of `n`), from
    /// the one thread that owns the chunk in this pass, and work out each block's least
    /// level again. `visit(at)` decides a position or gives the level it is ready at next
    /// (`NONE`: none, or decided). Both workers' decide passes scan so.
    pub(super) fn scan_chunk(
        &self,
        c: usize,
        d: u32,
        n: usize,
        mut visit: impl FnMut(usize) -> u16,
    ) {
        let mut least = [NONE; CHUNK / BLOCK];
        for (b, least) in least.iter_mut().enumerate() {
            let start = c * CHUNK + b * BLOCK;
            if start >= n {
                break;
            }
            *least = self.block(c, b);
            if *least != d as u16 {
                continue;
            }
            *least = (start..n.min(start + BLOCK))
                .map(&mut visit)
                .min()
                .unwrap_or(NONE);
        }
        self.set_chunk(c, &least);
    }

    /// Position `at` may be decided at level `level` (from any thread).
    pub(super) fn lower(&self, at: usize, level: u16) {
        self.blocks[at / BLOCK].fetch_min(level, Relaxed);
        self.chunks[at / CHUNK].fetch_min(level, Relaxed);
    }

    /// The least level any block is ready at.
    pub(super) fn least(&self) -> Option<u32> {
        let l = self.chunks.par_iter().map(|c| c.load(Relaxed)).min();
        l.filter(|&l| l != NONE).map(u32::from)
    }
}

/// A set of positions of the layer: a bit each, and a flag per chunk of `CHUNK` positions
/// that may have a bit set.
pub(super) struct Marks {
    bits: Vec<AtomicU64>,
    chunks: Vec<AtomicBool>,
}

impl Marks {
    pub(super) fn new(n: usize) -> Marks {
        Marks {
            bits: crate::memory::zeroed_atomics(n.div_ceil(64), || AtomicU64::new(0)).into_vec(),
            chunks: (0..n.div_ceil(CHUNK))
                .map(|_| AtomicBool::new(false))
                .collect(),
        }
    }

    /// Mark a position from any thread.
    #[inline]
    pub(super) fn mark(&self, at: usize) {
        let bit = 1u64 << (at % 64);
        let word = &self.bits[at / 64];
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
        let flag = &self.chunks[at / CHUNK];
        if !flag.load(Relaxed) {
            flag.store(true, Relaxed);
        }
    }

    /// Mark a position of a chunk the calling thread alone writes (no flag: `flag_chunk`).
    #[inline]
    pub(super) fn mark_own(&self, at: usize) {
        let word = &self.bits[at / 64];
        word.store(word.load(Relaxed) | 1u64 << (at % 64), Relaxed);
    }

    pub(super) fn flag_chunk(&self, c: usize) {
        self.chunks[c].store(true, Relaxed);
    }

    pub(super) fn chunk_marked(&self, c: usize) -> bool {
        self.chunks[c].load(Relaxed)
    }

    /// Calls `f` with each marked position of chunk c.
    pub(super) fn take_chunk(&self, c: usize, mut f: impl FnMut(usize)) {
        let words = c * CHUNK / 64..self.bits.len().min((c + 1) * CHUNK / 64);
        for w in words {
            let mut rest = self.bits[w].load(Relaxed);
            while rest != 0 {
                f(w * 64 + rest.trailing_zeros() as usize);
                rest &= rest - 1;
            }
        }
    }

    /// Unmark chunk c.
    pub(super) fn clear_chunk(&self, c: usize) {
        let words = c * CHUNK / 64..self.bits.len().min((c + 1) * CHUNK / 64);
        for w in &self.bits[words] {
            w.store(0, Relaxed);
        }
        self.chunks[c].store(false, Relaxed);
    }

    pub(super) fn any(&self) -> bool {
        self.chunks.par_iter().any(|f| f.load(Relaxed))
    }
}
