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
//!   that wins), or "never loses" (a child that draws). The count goes in a byte a
//!   position, the pending word in 16 bits, which hold the value instead once the position
//!   is decided (a bit a position says which).
//! - Level d first decides the positions whose value has remoteness d: a win where the
//!   pending word says d, a loss where no child within the layer is left unresolved and the
//!   floor is reached. It then tells their parents: a win takes from each the weight the
//!   game gives it (`Game::for_each_parent_within`: an atomic subtraction from the parent's
//!   count byte, so the tells of wins, most of a level's, touch a quarter of the memory a
//!   32-bit word would), a loss offers each a win at d + 1 (an atomic compare-and-swap on
//!   the parent's pending word, which leaves a decided parent alone). A parent whose count
//!   runs out is a candidate of the next level. Deciding reads only what earlier levels wrote, so each
//!   phase is one parallel pass without a lock. Only the candidates the last level made are
//!   looked at, and the blocks of 64 positions holding a position ready at this level by
//!   what it held from the start (`Ready`: a win pending from a child outside the layer, a
//!   floor reached with no child left within); a level with neither is skipped.
//! - Where they are scattered over large layers, the values of children outside the layer
//!   and the words of the parents told are fetched a batch at a time ahead of their use, so
//!   that the cache misses overlap.
//! - Positions never resolved are draws.
//!
//! Memory during a layer's solve: the count and the word (3 bytes a position), three
//! bitmaps (decided, the candidates of the next level, the positions decided at this one)
//! and 2 bytes per 64
//! positions for `Ready`, besides the finished layers it reads; the layer's values are made
//! from the words at the end, block by block, each block of words freed once written.
//! (`checks.rs` solves the same layers without counts, in 2 bytes a position.)
//!
//! Values are for the side to move (`Wdl`): 0 a draw, r + 1 a win in r plies, -(r + 1) a
//! loss in r plies (a position where play has ended is a loss in 0, or a win in 0 where the
//! other side completed the mover's line). The workers compute in `i16` words and write the
//! table's value type.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::Later;
use super::layers::{Finished, Layer};
use super::levels::{BLOCK, Marks, NONE, Ready, least_over};
use super::outside::{CHUNK, Counting, FLOOR, NEVER, each_counted, too_far};
use super::ranks::{Cut, Ranks};
use crate::error::Result;
use crate::game::values::MAX_REMOTENESS;
use crate::game::{Game, Wdl};
use crate::progress::{Progress, check_stopped};
use crate::stored::Value;

/// Parents told at once in a batch (their words fetched ahead of the updates).
const TELL_BATCH: usize = 256;

/// This rank's slice of layer `k` (`cut`; on one process the whole layer) into `out`,
/// solved to a fixpoint with the other ranks, from the finished layers its moves lead to
/// outside it.
///
/// Over several ranks, each rank holds the words of its own slice; a level's decisions are
/// told to the parents in the rank's own slice in place, and to the others' through one
/// exchange (`Ranks::trade`: the parents' positions and what each is told, bucketed by
/// owner), after which each rank applies what it received; the levels go on while any rank
/// has a candidate. A value does not depend on the order the updates come in (a win takes
/// the fastest, a loss the slowest), so every rank count writes the same values.
pub fn solve_layer<G: Game, V: Value, R: Ranks>(
    game: &G,
    k: usize,
    cut: &Cut,
    out: &mut [V],
    (finished, later): (&Finished<'_, V>, Option<Later<'_, V>>),
    progress: &dyn Progress,
    ranks: &R,
) -> Result<()> {
    let n = out.len();
    let started = std::time::Instant::now();
    let trace = std::env::var_os("RETRO_TRACE").is_some();
    let words = Words::new(n);
    let ready = Ready::new(n);
    let counting = Counter {
        game,
        k,
        base: cut.start(),
        words: &words,
        ready: &ready,
        progress,
    };
    match later {
        None => {
            let counted = counting.pass(finished, Counting::Every);
            ranks.agree(check_stopped(progress).and(counted))?;
        }
        Some(later) => counting.over_ranks(finished, later, ranks)?,
    }
    if trace {
        eprintln!(
            "layer {k}: counted in {:.2} s",
            started.elapsed().as_secs_f64()
        );
    }
    let levels = Levels {
        game,
        k,
        cut,
        words: &words,
        ready: &ready,
        next: Marks::new(n),
        now: Marks::new(n),
        remote: Mutex::new(vec![Vec::new(); cut.ranks()]),
        told: AtomicU64::new(0),
        progress,
    };
    let Some(mut d) = least_over(ranks, &ready) else {
        // Nothing can be decided: every position draws.
        words.into_values(out);
        return Ok(());
    };
    // Where a layer's levels spend their time, for `RETRO_TRACE`: deciding against telling,
    // and what the levels' exchanges cost (seconds, parents told by other ranks).
    let (mut t_decide, mut t_tell, mut scans) = (0f64, 0f64, 0u32);
    let (mut t_trade, mut traded) = (0f64, 0u64);
    // Asked to stop (`Progress::stopped`): each pass skips its remaining chunks, and the
    // solve ends with the interrupted error right after the pass, since a pass cut short
    // leaves the words half told.
    loop {
        if d > MAX_REMOTENESS {
            return Err(too_far(k));
        }
        progress.level(k, d);
        let t0 = std::time::Instant::now();
        scans += 1;
        levels.decide(d);
        check_stopped(progress)?;
        t_decide += t0.elapsed().as_secs_f64();
        let t0 = std::time::Instant::now();
        levels.tell(d);
        if !cut.whole() {
            let t = std::time::Instant::now();
            traded += levels.trade(ranks, d)?;
            t_trade += t.elapsed().as_secs_f64();
        }
        // A parent pass cut short may leave no candidates, which must not read as the end.
        check_stopped(progress)?;
        let more = ranks.any(levels.next.any());
        t_tell += t0.elapsed().as_secs_f64();
        if trace {
            eprintln!(
                "layer {k}: level {d}: told, at {:.2} s",
                started.elapsed().as_secs_f64()
            );
        }
        // Level d + 1 resolves what level d resolved leads to (`next`); with none, the next
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
        eprintln!(
            "layer {k}: decide {t_decide:.2} s tell {t_tell:.2} s levels {scans}, {} parents told",
            levels.told.load(Relaxed)
        );
        if !cut.whole() {
            eprintln!(
                "layer {k}: rank {}: {traded} parents received from other ranks in {scans} exchanges, {t_trade:.3} s",
                ranks.rank()
            );
        }
    }
    drop(levels);
    // Positions never decided are draws. The words go block by block as their values are
    // written, so the layer's solve never holds both whole.
    words.into_values(out);
    Ok(())
}

/// The counting pass: each position's count of children within the layer and its pending
/// word from those outside it, and each block's ready level.
struct Counter<'a, G> {
    game: &'a G,
    k: usize,
    base: u64,
    words: &'a Words,
    ready: &'a Ready,
    progress: &'a dyn Progress,
}

impl<G: Game> Counter<'_, G> {
    /// Over several ranks: every position whose children outside the layer are in this
    /// rank's own slices is counted first, the grains of the others' children marked; then
    /// the marked grains are fetched, and the positions that waited counted.
    fn over_ranks<V: Value, R: Ranks>(
        &self,
        own: &Finished<'_, V>,
        later: Later<'_, V>,
        ranks: &R,
    ) -> Result<()> {
        let t = std::time::Instant::now();
        let waiting =
            crate::memory::zeroed_atomics(self.words.len().div_ceil(64), || AtomicU64::new(0));
        let holding = Counting::Holding {
            marks: &later.marks,
            waiting: &waiting,
        };
        let counted = self.pass(own, holding);
        ranks.agree(check_stopped(self.progress).and(counted))?;
        let first = t.elapsed().as_secs_f64();
        let fetched = (later.fetch)(later.marks)?;
        let all = Finished::of(
            self.game.last_layer(),
            fetched.iter().map(|(j, f)| (*j, Layer::Fetched(f))),
        );
        let t = std::time::Instant::now();
        let counted = self.pass(&all, Counting::Waiting(&waiting));
        if std::env::var_os("RETRO_TRACE").is_some() {
            let waited: u64 = waiting
                .iter()
                .map(|w| w.load(Relaxed).count_ones() as u64)
                .sum();
            eprintln!(
                "layer {}: rank {}: counted in {first:.2} s, {waited} positions waited for fetched children and were counted in {:.2} s",
                self.k,
                ranks.rank(),
                t.elapsed().as_secs_f64()
            );
        }
        ranks.agree(check_stopped(self.progress).and(counted))
    }

    /// One pass over the positions `counting` wants, reading `finished`.
    fn pass<V: Value>(&self, finished: &Finished<'_, V>, counting: Counting<'_>) -> Result<()> {
        let (game, k, words, ready) = (self.game, self.k, self.words, self.ready);
        let n = words.len();
        let far = AtomicBool::new(false);
        let outside = AtomicU64::new(0);
        // The second pass over ranks, of the positions that waited, opens their words and
        // lowers their blocks' ready levels; the first sets every chunk's.
        let again = matches!(counting, Counting::Waiting(_));
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            if self.progress.stopped() {
                return;
            }
            let range = c * CHUNK..n.min((c + 1) * CHUNK);
            let len = range.len();
            if let Counting::Waiting(waiting) = counting {
                let words = range.start / 64..range.end.div_ceil(64);
                if waiting[words].iter().all(|w| w.load(Relaxed) == 0) {
                    return;
                }
            }
            let mut least = [NONE; CHUNK / BLOCK];
            let read = each_counted(
                game,
                k,
                self.base,
                range,
                finished,
                counting,
                |at, seen, within| {
                    if within > u8::MAX as usize {
                        far.store(true, Relaxed);
                        return;
                    }
                    let Some(seen) = seen else {
                        // Waits for children another rank holds: its count is kept for the
                        // second pass, which folds those children alone.
                        words.open(at, 0, within as u8);
                        return;
                    };
                    if seen.win.is_some_and(|r| r > MAX_REMOTENESS) || seen.floor > MAX_REMOTENESS {
                        far.store(true, Relaxed);
                        return;
                    }
                    let count = match again {
                        true => words.count(at),
                        false => within as u8,
                    };
                    let pending = seen.pending();
                    words.open(at, pending, count);
                    let level = ready_level(pending, count);
                    match again {
                        true if level != NONE => ready.lower(at, level),
                        true => {}
                        false => {
                            let b = (at - c * CHUNK) / BLOCK;
                            least[b] = least[b].min(level);
                        }
                    }
                },
            );
            if !again {
                ready.set_chunk(c, &least);
                self.progress.advance(len as u64);
            }
            outside.fetch_add(read, Relaxed);
        });
        if std::env::var_os("RETRO_TRACE").is_some() {
            eprintln!(
                "layer {k}: {n} entries, {} children outside read",
                outside.load(Relaxed)
            );
        }
        match far.load(Relaxed) {
            true => Err(too_far(k)),
            false => Ok(()),
        }
    }
}

/// What a layer's levels share: the words, the ready levels, the candidates of the next
/// level (`next`), the positions decided at this one (`now`), and the parents other ranks
/// own, bucketed by owner as they are found.
struct Levels<'a, G: Game> {
    game: &'a G,
    k: usize,
    cut: &'a Cut,
    words: &'a Words,
    ready: &'a Ready,
    next: Marks,
    now: Marks,
    remote: Mutex<Vec<Vec<u64>>>,
    /// Parents told, for `RETRO_TRACE`.
    told: AtomicU64,
    progress: &'a dyn Progress,
}

impl<G: Game> Levels<'_, G> {
    /// Decide the positions whose value has remoteness `d`: the candidates the last level
    /// made, and those of the blocks ready at `d` by what they held (each block scanned,
    /// and its least ready level worked out again). A decision at level d reads only what
    /// levels before d wrote, whatever the order the threads take the candidates in.
    fn decide(&self, d: u32) {
        let n = self.words.len();
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let scan = self.ready.chunk(c) == d as u16;
            if !(scan || self.next.chunk_marked(c)) || self.progress.stopped() {
                return;
            }
            let mut any = false;
            if scan {
                self.ready.scan_chunk(c, d, n, |at| {
                    if self.decide_one(at, d) {
                        self.now.mark_own(at);
                        any = true;
                        NONE
                    } else if self.words.decided(at) {
                        NONE
                    } else {
                        ready_level(self.words.pending(at), self.words.count(at))
                    }
                });
            }
            if self.next.chunk_marked(c) {
                // The candidates' words are scattered over the chunk: asked for first, so
                // that their misses overlap.
                self.next.take_chunk(c, |at| self.words.prefetch(at));
                self.next.take_chunk(c, |at| {
                    if self.decide_one(at, d) {
                        self.now.mark_own(at);
                        any = true;
                    } else {
                        self.wait_for_floor(at, d);
                    }
                });
                self.next.clear_chunk(c);
            }
            if any {
                self.now.flag_chunk(c);
            }
        });
    }

    /// Decide position `at` at level `d` if its value has remoteness `d`: a win pending at
    /// `d`, or a loss with no child within the layer left and its floor reached. Only the
    /// thread that takes the position's chunk calls it.
    fn decide_one(&self, at: usize, d: u32) -> bool {
        if self.words.decided(at) {
            return false;
        }
        let (p, count) = (self.words.pending(at), self.words.count(at));
        let win = p == d as u16;
        let loss = p >= FLOOR && p != NEVER && (p & !FLOOR) as u32 <= d && count == 0;
        if !win && !loss {
            return false;
        }
        let value = if win { Wdl::Win(d) } else { Wdl::Loss(d) }.encode();
        self.words.decide(at, value);
        true
    }

    /// A candidate left undecided whose children within the layer have all won, but whose
    /// floor (a slower win outside the layer) is still ahead: it loses at its floor, which
    /// its block's ready level now says.
    fn wait_for_floor(&self, at: usize, d: u32) {
        if self.words.decided(at) || self.words.count(at) != 0 {
            return;
        }
        let p = self.words.pending(at);
        if p >= FLOOR && p != NEVER && (p & !FLOOR) as u32 > d {
            self.ready.lower(at, p & !FLOOR);
        }
    }

    /// Tell the parents of the positions decided at level `d`: a win takes its weight from
    /// each parent's count, and a parent whose count runs out is a candidate of the next
    /// level; a loss offers each parent a win at the next level. Parents other ranks own are
    /// kept for `trade`.
    fn tell(&self, d: u32) {
        let n = self.words.len();
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            if !self.now.chunk_marked(c) || self.progress.stopped() {
                return;
            }
            // The parents' words are scattered over the layer: they are gathered a batch
            // at a time and fetched ahead of the updates, so that the cache misses overlap.
            let mut batch: Vec<(u64, u8)> = Vec::with_capacity(TELL_BATCH + 128);
            let mut away: Vec<Vec<u64>> = Vec::new();
            let mut told = 0u64;
            self.now.take_chunk(c, |at| {
                let win = self.words.value(at) > 0;
                let pos = self.game.unrank(self.k, self.cut.start() + at as u64);
                self.game.for_each_parent_within(&pos, |q, weight| {
                    let message = Tell::of(win, weight);
                    match self.cut.local(q) {
                        Some(l) => batch.push((l as u64, message)),
                        None if !self.cut.whole() => {
                            away.resize_with(self.cut.ranks(), Vec::new);
                            away[self.cut.owner(q)].push(Tell::message(q, message));
                        }
                        // A parent past the layer: a game's bug, which no rank owns.
                        None => {}
                    }
                });
                if batch.len() >= TELL_BATCH {
                    told += batch.len() as u64;
                    self.tell_batch(&batch, d);
                    batch.clear();
                }
            });
            told += batch.len() as u64;
            self.tell_batch(&batch, d);
            self.now.clear_chunk(c);
            self.told.fetch_add(told, Relaxed);
            if away.iter().any(|b| !b.is_empty())
                && let Ok(mut remote) = self.remote.lock()
            {
                for (to, b) in remote.iter_mut().zip(away) {
                    to.extend(b);
                }
            }
        });
    }

    /// The parents other ranks own, told through one exchange, and what this rank received
    /// applied here in batches as the own ones were; how many it received.
    fn trade<R: Ranks>(&self, ranks: &R, d: u32) -> Result<u64> {
        let buckets = match self.remote.lock() {
            Ok(mut r) => r.iter_mut().map(std::mem::take).collect(),
            Err(_) => vec![Vec::new(); self.cut.ranks()],
        };
        let received = ranks.trade(buckets)?;
        received.par_chunks(TELL_BATCH).for_each(|part| {
            let batch: Vec<(u64, u8)> = part
                .iter()
                .filter_map(|&m| {
                    let (q, told) = Tell::read(m);
                    self.cut.local(q).map(|l| (l as u64, told))
                })
                .collect();
            self.tell_batch(&batch, d);
        });
        Ok(received.len() as u64)
    }

    /// Tell a batch of parents in this rank's slice, their words fetched ahead.
    fn tell_batch(&self, batch: &[(u64, u8)], d: u32) {
        for &(q, told) in batch {
            self.words.prefetch_for(q as usize, told);
        }
        for &(q, told) in batch {
            let q = q as usize;
            let candidate = match told {
                Tell::LOSS => self.words.offer(q, (d + 1) as u16),
                weight => self.words.take(q, weight),
            };
            if candidate {
                self.next.mark(q);
            }
        }
    }
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

/// The level at which an open position may be decided by what it holds: its pending win,
/// or its floor once no child within the layer is left; `NONE` where neither.
fn ready_level(pending: u16, count: u8) -> u16 {
    if pending == NEVER {
        NONE
    } else if pending < FLOOR {
        pending
    } else if count == 0 {
        pending & !FLOOR
    } else {
        NONE
    }
}

/// The layer's words, in blocks that are freed one by one as the values are written: a
/// position's count of children within the layer not yet known to win (a byte), its pending
/// word while open and its value once decided (16 bits), and a bit that says which.
///
/// A count is only ever taken from by the children's tells, which together take exactly
/// what was counted, so it never wraps; a decided position's count goes on falling
/// unread, which spares the tells of wins a look at whether the parent is decided.
struct Words {
    counts: Vec<Box<[AtomicU8]>>,
    words: Vec<Box<[AtomicU16]>>,
    /// A bit a position: decided. Written only by the thread that decides the position's
    /// chunk (`Levels::decide`), read by the tells of the next phase.
    decided: Box<[AtomicU64]>,
    len: usize,
    /// One thread does all the work (the pool it was made in has one): tells then read and
    /// write a word without a locked read-modify-write, which costs some 20 cycles each.
    solo: bool,
}

impl Words {
    /// Positions per block (16 MiB of counts, 32 MiB of words).
    const SHIFT: u32 = 24;
    const BLOCK: usize = 1 << Self::SHIFT;

    fn new(n: usize) -> Words {
        let sizes = (0..n.div_ceil(Self::BLOCK)).map(|b| Self::BLOCK.min(n - b * Self::BLOCK));
        Words {
            counts: sizes
                .clone()
                .map(|len| crate::memory::zeroed_atomics(len, || AtomicU8::new(0)))
                .collect(),
            words: sizes
                .map(|len| crate::memory::zeroed_atomics(len, || AtomicU16::new(0)))
                .collect(),
            decided: crate::memory::zeroed_atomics(n.div_ceil(64), || AtomicU64::new(0)),
            len: n,
            solo: rayon::current_num_threads() == 1,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn count_at(&self, at: usize) -> &AtomicU8 {
        &self.counts[at >> Self::SHIFT][at & (Self::BLOCK - 1)]
    }

    #[inline]
    fn word_at(&self, at: usize) -> &AtomicU16 {
        &self.words[at >> Self::SHIFT][at & (Self::BLOCK - 1)]
    }

    fn open(&self, at: usize, pending: u16, count: u8) {
        self.word_at(at).store(pending, Relaxed);
        self.count_at(at).store(count, Relaxed);
    }

    #[inline]
    fn decided(&self, at: usize) -> bool {
        self.decided[at / 64].load(Relaxed) >> (at % 64) & 1 != 0
    }

    #[inline]
    fn count(&self, at: usize) -> u8 {
        self.count_at(at).load(Relaxed)
    }

    #[inline]
    fn pending(&self, at: usize) -> u16 {
        self.word_at(at).load(Relaxed)
    }

    /// A decided position's value (0 for one never decided: a draw).
    #[inline]
    fn value(&self, at: usize) -> i16 {
        match self.decided(at) {
            true => self.word_at(at).load(Relaxed) as i16,
            false => 0,
        }
    }

    /// Decide position `at`, from the thread that owns its chunk (no other writes its
    /// decided bits meanwhile, so a plain store does).
    #[inline]
    fn decide(&self, at: usize, value: i16) {
        self.word_at(at).store(value as u16, Relaxed);
        let bits = &self.decided[at / 64];
        bits.store(bits.load(Relaxed) | 1 << (at % 64), Relaxed);
    }

    /// Ask for what a tell of `told` to position `at` touches ahead of its use.
    #[inline]
    fn prefetch_for(&self, at: usize, told: u8) {
        match told {
            Tell::LOSS => crate::memory::prefetch(self.word_at(at)),
            _ => crate::memory::prefetch(self.count_at(at)),
        }
    }

    /// Ask for position `at`'s word and count ahead of a decision.
    #[inline]
    fn prefetch(&self, at: usize) {
        crate::memory::prefetch(self.word_at(at));
        crate::memory::prefetch(self.count_at(at));
    }

    /// A child of position `at` won: take its weight from the count; whether that was the
    /// last of it (the position may then lose).
    #[inline]
    fn take(&self, at: usize, weight: u8) -> bool {
        let count = self.count_at(at);
        let before = match self.solo {
            true => {
                let before = count.load(Relaxed);
                count.store(before.wrapping_sub(weight), Relaxed);
                before
            }
            false => count.fetch_sub(weight, Relaxed),
        };
        debug_assert!(before >= weight, "counts");
        before == weight
    }

    /// A child of position `at` lost: offer it a win at `level`; whether the offer stands
    /// (the position is open and had no faster win pending).
    #[inline]
    fn offer(&self, at: usize, level: u16) -> bool {
        if self.decided(at) {
            return false;
        }
        let word = self.word_at(at);
        match self.solo {
            true => {
                let stands = word.load(Relaxed) > level;
                if stands {
                    word.store(level, Relaxed);
                }
                stands
            }
            false => word
                .fetch_update(Relaxed, Relaxed, |p| (p > level).then_some(level))
                .is_ok(),
        }
    }

    /// Each position's value into `out`, freeing each block once written.
    fn into_values<V: Value>(self, out: &mut [V]) {
        let decided = &self.decided;
        let blocks = self.words.into_iter().zip(self.counts);
        for (b, ((words, counts), out)) in blocks.zip(out.chunks_mut(Self::BLOCK)).enumerate() {
            drop(counts);
            out.par_chunks_mut(CHUNK)
                .zip(words.par_chunks(CHUNK))
                .enumerate()
                .for_each(|(c, (out, words))| {
                    let first = b * Self::BLOCK + c * CHUNK;
                    for (i, (v, w)) in out.iter_mut().zip(words).enumerate() {
                        let at = first + i;
                        let value = match decided[at / 64].load(Relaxed) >> (at % 64) & 1 {
                            1 => w.load(Relaxed) as i16,
                            _ => 0,
                        };
                        *v = V::from_i64(value.into());
                    }
                });
        }
    }
}
