//! The workers for values of the side to move (`Values::SideToMove`: Teeko, Quixo, Morris): a layer
//! may have moves that stay inside it, so positions repeat, and a position may be a draw
//! because neither side can force anything. The driver (`crate::solve`) hands each layer
//! the finished layers its moves lead to (`Finished`).
//!
//! A layer with moves inside it (`LayerKind::Fixpoint`; a layer without any is `pass.rs`'s)
//! is solved to a fixpoint by classic retrograde analysis
//! with child counters and predecessor generation, level by level of remoteness:
//!
//! - Every position first counts its children inside the layer (`Game::children_within`:
//!   distinct entries, or moves where the game weighs its parents so) and folds its
//!   children in the next layer into one pending word: the earliest level at which it wins
//!   (a child that loses), or else the level before which it cannot lose (the slowest child
//!   that wins), or "never loses" (a child that draws). Both go in the position's 32-bit
//!   word, which holds its value instead once it is decided.
//! - Level d first decides the positions whose value has remoteness d: a win where the
//!   pending word says d, a loss where no child within the layer is left unresolved and the
//!   floor is reached. It then tells their parents: a win takes from each the weight the
//!   game gives it (`Game::for_each_parent_within`), a loss
//!   offers each a win at d + 1 (each an atomic compare-and-swap on the parent's word, which
//!   leaves a decided parent alone). Deciding reads only what earlier levels wrote, so each
//!   phase is one parallel pass without a lock. Only the candidates the last level made are
//!   looked at, and the blocks of 64 positions holding a position ready at this level by
//!   what it held from the start (`Ready`: a win pending from a child outside the layer, a
//!   floor reached with no child left within); a level with neither is skipped.
//! - Where they are scattered over large layers, the values of children outside the layer
//!   and the words of the parents told are fetched a batch at a time ahead of their use, so
//!   that the cache misses overlap.
//! - Positions never resolved are draws.
//!
//! Memory during a layer's solve: the word (4 bytes a position), two bitmaps (the
//! candidates of the next level, the positions decided at this one) and 2 bytes per 64
//! positions for `Ready`, besides the finished layers it reads; the layer's values are made
//! from the words at the end, block by block, each block of words freed once written.
//!
//! Values are for the side to move (`Wdl`): 0 a draw, r + 1 a win in r plies, -(r + 1) a
//! loss in r plies (a position where play has ended is a loss in 0, or a win in 0 where the
//! other side completed the mover's line). The workers compute in `i16` words and write the
//! table's value type.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::layers::Finished;
use super::levels::{BLOCK, Marks, NONE, Ready, least_over};
use super::outside::{CHUNK, COUNT_BATCH, FLOOR, NEVER, Outside, child_value, too_far};
use super::ranks::{Cut, Ranks};
use crate::error::Result;
use crate::game::values::MAX_REMOTENESS;
use crate::game::{Edge, Game, Wdl};
use crate::progress::{Progress, check_stopped};
use crate::stored::Value;

/// How a position of a batch starts its layer's solve.
#[derive(Clone, Copy)]
enum Start {
    /// Play has ended in a win for the side to move.
    Won,
    /// Play has ended in a loss for the side to move.
    Lost,
    /// Play goes on.
    Open,
}

/// Parents told at once in a batch (their words fetched ahead of the updates).
const TELL_BATCH: usize = 256;

/// This rank's slice of layer `k` (`cut`; on one process the whole layer) into `out`,
/// solved to a fixpoint with the other ranks, from the finished layers its moves lead to
/// outside it.
///
/// Over several ranks, each rank holds the words of its own slice; a level's decisions are
/// told to the parents in the rank's own slice in place, and to the others' through one
/// exchange (`Ranks::trade`: the parents' positions and what each is told, bucketed by owner), after which each
/// rank applies what it received; the levels go on while any rank has a candidate. A value
/// does not depend on the order the updates come in (a win takes the fastest, a loss the
/// slowest), so every rank count writes the same values.
pub fn solve_layer<G: Game, V: Value, R: Ranks>(
    game: &G,
    k: usize,
    cut: &Cut,
    out: &mut [V],
    finished: &Finished<'_, V>,
    progress: &dyn Progress,
    ranks: &R,
) -> Result<()> {
    let n = out.len();
    let base = cut.start();
    let far = AtomicBool::new(false);
    let started = std::time::Instant::now();
    let trace = std::env::var_os("RETRO_TRACE").is_some();
    // One word per position (`Word`): its counter and pending word while it is open, its
    // value once decided. Each block of positions keeps the least level at which one of
    // them may be decided by what it holds from the start (`Ready`), so that a level looks
    // only at the blocks with something to decide.
    let words = Words::new(n);
    let ready = Ready::new(n);
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        if progress.stopped() {
            return;
        }
        let range = c * CHUNK..n.min((c + 1) * CHUNK);
        let len = range.len();
        let mut pos = game.unrank(k, base + range.start as u64);
        let mut least = [NONE; CHUNK / BLOCK];
        // A batch of positions at a time: their children outside the layer are gathered
        // and their values fetched ahead (they are scattered over large finished layers),
        // then each position's are folded.
        let mut edges: Vec<Edge> = Vec::with_capacity(COUNT_BATCH * 8);
        let mut batch = [(Start::Open, 0usize, 0usize); COUNT_BATCH];
        let mut first = range.start;
        while first < range.end {
            let size = COUNT_BATCH.min(range.end - first);
            edges.clear();
            for (i, slot) in batch[..size].iter_mut().enumerate() {
                if first + i > c * CHUNK {
                    game.advance(&mut pos);
                }
                *slot = match game.ended(&pos).map(Wdl::decode) {
                    Some(Wdl::Win(_)) => (Start::Won, 0, edges.len()),
                    Some(_) => (Start::Lost, 0, edges.len()),
                    None => {
                        let within = game.count_children(&pos, |e| {
                            finished.prefetch(e.layer, e.rank);
                            edges.push(e);
                        });
                        (Start::Open, within, edges.len())
                    }
                };
            }
            let mut from = 0;
            for (i, &(start, within, to)) in batch[..size].iter().enumerate() {
                let at = first + i;
                let mut seen = Outside::new();
                match start {
                    // Won already: a win pending at level 0.
                    Start::Won => seen.win = Some(0),
                    // Lost (or a draw, which no game ends in): no children, floor 0.
                    Start::Lost => {}
                    Start::Open => {
                        for &e in &edges[from..to] {
                            seen.child(child_value(finished, e));
                        }
                        seen.any |= within > 0;
                    }
                }
                from = to;
                if within > u8::MAX as usize
                    || seen.win.is_some_and(|r| r > MAX_REMOTENESS)
                    || seen.floor > MAX_REMOTENESS
                {
                    far.store(true, Relaxed);
                    continue;
                }
                let word = Word::open(seen.pending(), within as u8);
                words.get(at).store(word, Relaxed);
                let b = (at - c * CHUNK) / BLOCK;
                least[b] = least[b].min(Word::ready(word));
            }
            first += size;
        }
        ready.set_chunk(c, &least);
        progress.advance(len as u64);
    });
    let counted = check_stopped(progress).and(match far.load(Relaxed) {
        true => Err(too_far(k)),
        false => Ok(()),
    });
    ranks.agree(counted)?;
    if trace {
        eprintln!(
            "layer {k}: counted in {:.2} s",
            started.elapsed().as_secs_f64()
        );
    }

    // The positions that may resolve at the next level (offered a win, or out of children),
    // and those decided at this level: bitmaps, a bit per position, with a flag per chunk
    // that has any bit set, so that a level costs what it finds, and the memory is bounded
    // whatever a level decides (a list of them could outgrow the layer's words).
    let next = Marks::new(n);
    let now = Marks::new(n);
    let Some(mut d) = least_over(ranks, &ready) else {
        // Nothing can be decided: every position draws.
        words.into_values(out);
        return Ok(());
    };
    // Where a layer's levels spend their time, for `RETRO_TRACE`: deciding against telling.
    let (mut t_decide, mut t_tell, mut scans) = (0f64, 0f64, 0u32);
    // And what the levels' exchanges cost: seconds, and parents told to other ranks.
    let (mut t_trade, mut traded) = (0f64, 0u64);
    // Parents in other ranks' slices, bucketed by owner as they are found.
    let remote = std::sync::Mutex::new(vec![Vec::<u64>::new(); cut.ranks()]);
    // Asked to stop (`Progress::stopped`): each pass below skips its remaining chunks, and
    // the solve ends with the interrupted error right after the pass, since a pass cut
    // short leaves the words half told.
    loop {
        if d > MAX_REMOTENESS {
            return Err(too_far(k));
        }
        // Decide first, then tell the parents: a decision at level d reads only what
        // levels before d wrote, whatever the order the threads take the candidates in.
        let decide = |at: usize| -> bool {
            let word = words.get(at);
            let w = word.load(Relaxed);
            if Word::decided(w) {
                return false;
            }
            let (p, count) = (Word::pending(w), Word::count(w));
            let win = p == d as u16;
            let loss = p >= FLOOR && p != NEVER && (p & !FLOOR) as u32 <= d && count == 0;
            if !win && !loss {
                return false;
            }
            let value = if win { Wdl::Win(d) } else { Wdl::Loss(d) }.encode();
            word.store(Word::value(value), Relaxed);
            true
        };
        let t0 = std::time::Instant::now();
        scans += 1;
        // The candidates the last level made, and the blocks ready at this level from what
        // they held (each scanned, and its least ready level worked out again).
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let scan = ready.chunk(c) == d as u16;
            if !(scan || next.chunk_marked(c)) || progress.stopped() {
                return;
            }
            let mut any = false;
            if scan {
                let mut least = [NONE; CHUNK / BLOCK];
                for (b, least) in least.iter_mut().enumerate() {
                    let start = c * CHUNK + b * BLOCK;
                    if start >= n {
                        break;
                    }
                    *least = ready.block(c, b);
                    if *least != d as u16 {
                        continue;
                    }
                    *least = NONE;
                    for at in start..n.min(start + BLOCK) {
                        if decide(at) {
                            now.mark_own(at);
                            any = true;
                        } else {
                            *least = (*least).min(Word::ready(words.get(at).load(Relaxed)));
                        }
                    }
                }
                ready.set_chunk(c, &least);
            }
            if next.chunk_marked(c) {
                // The candidates' words are scattered over the chunk's 16 KiB: asked for
                // first, so that their misses overlap.
                next.take_chunk(c, |at| words.prefetch(at));
                next.take_chunk(c, |at| {
                    if decide(at) {
                        now.mark_own(at);
                        any = true;
                    }
                });
                next.clear_chunk(c);
            }
            if any {
                now.flag_chunk(c);
            }
        });
        check_stopped(progress)?;
        t_decide += t0.elapsed().as_secs_f64();
        let t0 = std::time::Instant::now();
        // A win takes a counter from each parent; the last child to win leaves a parent that
        // loses, at the next level or at its floor (a slower win outside the layer). A loss
        // offers each parent a win at the next level. A decided parent is left alone.
        let tell = |batch: &[(u64, u8)]| {
            for &(q, _) in batch {
                words.prefetch(q as usize);
            }
            for &(q, told) in batch {
                tell_parent(&words, &ready, &next, q as usize, told, d);
            }
        };
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            if !now.chunk_marked(c) || progress.stopped() {
                return;
            }
            // The parents' words are scattered over the layer: they are gathered a batch at
            // a time and fetched ahead of the updates, so that the cache misses overlap.
            let mut batch: Vec<(u64, u8)> = Vec::with_capacity(TELL_BATCH + 128);
            let mut away: Vec<Vec<u64>> = Vec::new();
            now.take_chunk(c, |at| words.prefetch(at));
            now.take_chunk(c, |at| {
                let win = Word::final_value(words.get(at).load(Relaxed)) > 0;
                let pos = game.unrank(k, base + at as u64);
                game.for_each_parent_within(&pos, |q, weight| {
                    let told = Tell::of(win, weight);
                    match cut.local(q) {
                        Some(l) => batch.push((l as u64, told)),
                        None if !cut.whole() => {
                            away.resize_with(cut.ranks(), Vec::new);
                            away[cut.owner(q)].push(Tell::message(q, told));
                        }
                        // A parent past the layer: a game's bug, which no rank owns.
                        None => {}
                    }
                });
                if batch.len() >= TELL_BATCH {
                    tell(&batch);
                    batch.clear();
                }
            });
            tell(&batch);
            now.clear_chunk(c);
            if away.iter().any(|b| !b.is_empty())
                && let Ok(mut remote) = remote.lock()
            {
                for (to, b) in remote.iter_mut().zip(away) {
                    to.extend(b);
                }
            }
        });
        if !cut.whole() {
            // The parents other ranks own, told through one exchange, applied here in
            // batches as the own ones were.
            let t = std::time::Instant::now();
            let buckets = match remote.lock() {
                Ok(mut r) => r.iter_mut().map(std::mem::take).collect(),
                Err(_) => vec![Vec::new(); cut.ranks()],
            };
            let received = ranks.trade(buckets)?;
            traded += received.len() as u64;
            t_trade += t.elapsed().as_secs_f64();
            received.par_chunks(TELL_BATCH).for_each(|part| {
                let batch: Vec<(u64, u8)> = part
                    .iter()
                    .filter_map(|&m| {
                        let (q, told) = Tell::read(m);
                        cut.local(q).map(|l| (l as u64, told))
                    })
                    .collect();
                tell(&batch);
            });
        }
        // A parent pass cut short may leave no candidates, which must not read as the end.
        check_stopped(progress)?;
        let more = ranks.any(next.any());
        t_tell += t0.elapsed().as_secs_f64();
        if trace {
            eprintln!(
                "layer {k}: level {d}: told, at {:.2} s",
                started.elapsed().as_secs_f64()
            );
        }
        // Pass d + 1 resolves what pass d resolved leads to (`next`); with none, the next
        // level with anything to decide is the least a block is ready at.
        d = if more {
            d + 1
        } else {
            match least_over(ranks, &ready) {
                // Never below d + 1 (a block's level is past the levels it was scanned at).
                Some(l) => l.max(d + 1),
                None => break,
            }
        };
    }
    if trace {
        eprintln!("layer {k}: decide {t_decide:.2} s tell {t_tell:.2} s levels {scans}");
        if !cut.whole() {
            eprintln!(
                "layer {k}: rank {}: {traded} parents received from other ranks in {scans} exchanges, {t_trade:.3} s",
                ranks.rank()
            );
        }
    }
    drop((next, now));
    // Positions never decided are draws. The words go block by block as their values are
    // written, so the layer's solve never holds both whole.
    words.into_values(out);
    Ok(())
}

/// What a parent is told of a child decided at a level: `LOSS` (the child lost: the
/// parent may win), or the child won, with the weight the game gives the parent (how many
/// of the children it counted the child stands for, 1 to 255).
struct Tell;

impl Tell {
    const LOSS: u8 = 0;

    #[inline]
    fn of(win: bool, weight: u32) -> u8 {
        debug_assert!((1..=255).contains(&weight), "a parent's weight");
        if win { weight as u8 } else { Self::LOSS }
    }

    /// A tell to a parent another rank owns, as one word: the parent's rank in the layer
    /// above 8 bits of what it is told.
    #[inline]
    fn message(q: u64, told: u8) -> u64 {
        q << 8 | told as u64
    }

    #[inline]
    fn read(m: u64) -> (u64, u8) {
        (m >> 8, m as u8)
    }
}

/// Tell the parent at `q` (in this rank's slice) that a child was decided at level `d`
/// (`Tell`): a win takes its weight from the parent's count, and the last child to win
/// leaves a parent that loses, at the next level or at its floor (a slower win outside the
/// layer); a loss offers it a win at the next level. A decided parent is left alone.
#[inline]
fn tell_parent(words: &Words, ready: &Ready, next: &Marks, q: usize, told: u8, d: u32) {
    let word = words.get(q);
    if told != Tell::LOSS {
        let weight = told as u32;
        let taken = word.fetch_update(Relaxed, Relaxed, |w| {
            debug_assert!(
                Word::decided(w) || Word::count(w) as u32 >= weight,
                "counts"
            );
            (!Word::decided(w)).then(|| w - weight)
        });
        if let Ok(w) = taken
            && Word::count(w) as u32 == weight
        {
            let p = Word::pending(w);
            match p & !FLOOR {
                f if p >= FLOOR && p != NEVER && f as u32 > d + 1 => ready.lower(q, f),
                _ => next.mark(q),
            }
        }
    } else {
        let offer = (d + 1) as u16;
        let offered = word.fetch_update(Relaxed, Relaxed, |w| {
            (!Word::decided(w) && Word::pending(w) > offer).then(|| Word::with_pending(w, offer))
        });
        if offered.is_ok() {
            next.mark(q);
        }
    }
}

/// The layer's words, in blocks that are freed one by one as the values are written.
struct Words {
    blocks: Vec<Box<[AtomicU32]>>,
}

impl Words {
    /// Positions per block (64 MiB of words).
    const SHIFT: u32 = 24;
    const BLOCK: usize = 1 << Self::SHIFT;

    fn new(n: usize) -> Words {
        let blocks = (0..n.div_ceil(Self::BLOCK))
            .map(|b| {
                let len = Self::BLOCK.min(n - b * Self::BLOCK);
                crate::memory::zeroed_atomics(len, || AtomicU32::new(0))
            })
            .collect();
        Words { blocks }
    }

    #[inline]
    fn get(&self, at: usize) -> &AtomicU32 {
        &self.blocks[at >> Self::SHIFT][at & (Self::BLOCK - 1)]
    }

    /// Ask for position `at`'s word ahead of its use.
    #[inline]
    fn prefetch(&self, at: usize) {
        crate::memory::prefetch(self.get(at));
    }

    /// Each position's value into `out`, freeing each block once written.
    fn into_values<V: Value>(self, out: &mut [V]) {
        for (block, out) in self.blocks.into_iter().zip(out.chunks_mut(Self::BLOCK)) {
            out.par_chunks_mut(CHUNK)
                .zip(block.par_chunks(CHUNK))
                .for_each(|(out, words)| {
                    for (v, w) in out.iter_mut().zip(words) {
                        *v = V::from_i64(Word::final_value(w.load(Relaxed)).into());
                    }
                });
        }
    }
}

/// A position's word while its layer is solved: open, its count of children within the
/// layer not yet known to win (bits 0..8) and its pending word (bits 8..24); decided, bit 31
/// and its value (bits 0..16). One word, so telling a parent costs one cache line.
struct Word;

impl Word {
    const DECIDED: u32 = 1 << 31;

    fn open(pending: u16, count: u8) -> u32 {
        (pending as u32) << 8 | count as u32
    }
    fn decided(w: u32) -> bool {
        w & Self::DECIDED != 0
    }
    fn count(w: u32) -> u8 {
        w as u8
    }
    fn pending(w: u32) -> u16 {
        (w >> 8) as u16
    }
    fn with_pending(w: u32, pending: u16) -> u32 {
        w & 0xff | (pending as u32) << 8
    }
    fn value(value: i16) -> u32 {
        Self::DECIDED | value as u16 as u32
    }
    /// The level at which an open word may be decided by what it holds: its pending win, or
    /// its floor once no child within the layer is left; `NONE` for a decided word.
    fn ready(w: u32) -> u16 {
        let p = Self::pending(w);
        if Self::decided(w) || p == NEVER {
            NONE
        } else if p < FLOOR {
            p
        } else if Self::count(w) == 0 {
            p & !FLOOR
        } else {
            NONE
        }
    }
    fn final_value(w: u32) -> i16 {
        if Self::decided(w) { w as u16 as i16 } else { 0 }
    }
}
