//! The fixpoint without counters: a layer with moves inside it (`LayerKind::Fixpoint`) solved
//! level by level of remoteness, as `fixpoint.rs` solves it, but with a 16-bit word a
//! position and no count of children left, in the shape of the fastest endgame generators
//! (Syzygy's `rtbgen`, Romein and Bal's 2-bit Awari scheme, Tanaka et al.'s Quixo):
//!
//! - A first pass folds each position's children outside the layer into its word, as the
//!   counting pass does (`Outside::pending`: a win pending at a level, a floor, or "never
//!   loses"), and keeps nothing of the count of moves inside the layer but whether there is
//!   one: a position with none loses at its floor whatever the layer holds.
//! - Level d decides, then tells. A position offered a win (a child lost at d - 1) wins at
//!   d. A position marked for a check (a child won at d - 1) loses at d where its floor is
//!   reached and every move inside the layer leads to a win decided before d, which it
//!   checks by its own moves, forward, stopping at the first move that does not
//!   (`Game::for_each_child_within`). A position whose floor is still ahead waits for it,
//!   noted in its word and in `Ready`.
//! - Telling is marking: the parents of a loss are marked offered, those of a win marked for
//!   a check, a bit each in two bitmaps a sixteenth of the words' size, so that the random
//!   writes of a level fall in a few cache lines; only the deciding pass writes words, each
//!   by the thread that owns its chunk, so no word needs an atomic read-modify-write.
//!
//! What a position loses is checked again for every child that wins (each check reads its
//! children's words, ranked, until one is not a win), where the counters worker pays one
//! count per position and an atomic decrement per parent of a win. Which is cheaper depends
//! on the game's cost of ranking a child against a cache miss: `solve::fixpoint_worker` chooses.
//!
//! Deciding at level d reads only what levels before d wrote (a child decided at d, by any
//! thread, is not a win before d), so the values are the counters worker's exactly, byte
//! for byte. The words hold levels up to `MAX_LEVEL`: a layer that goes deeper is solved
//! again by the counters worker (`Deeper`), which holds any remoteness the values do.
//! Memory during a layer's solve: 2 bytes a position, three bitmaps (offered, checked,
//! decided at this level) and `Ready`'s 2 bytes per 64 positions.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::layers::Finished;
use super::levels::{BLOCK, Marks, NONE, Ready};
use super::outside::{CHUNK, Counting, Outside, each_counted};
use crate::error::Result;
use crate::game::{Game, Wdl};
use crate::progress::{Progress, check_stopped};
use crate::stored::Value;

/// The deepest level a 16-bit word holds, pending or decided.
const MAX_LEVEL: u32 = (1 << 13) - 1;

/// A layer whose levels go past `MAX_LEVEL`: the caller solves it with counters.
pub(super) struct Deeper;

/// Layer `k` (the whole layer, on one process) into `out`, from the finished layers its
/// moves lead to outside it; `Ok(Err(Deeper))` where a level passes what the words hold.
pub(super) fn solve_layer<G: Game, V: Value>(
    game: &G,
    k: usize,
    out: &mut [V],
    finished: &Finished<'_, V>,
    progress: &dyn Progress,
) -> Result<std::result::Result<(), Deeper>> {
    let n = out.len();
    let trace = std::env::var_os("RETRO_TRACE").is_some();
    let started = std::time::Instant::now();
    let words = Words::new(n);
    let ready = Ready::new(n);
    if first_pass(game, k, &words, &ready, finished, progress).is_err() {
        check_stopped(progress)?;
        return Ok(Err(Deeper));
    }
    check_stopped(progress)?;
    if trace {
        eprintln!(
            "layer {k}: first pass in {:.2} s (no counters)",
            started.elapsed().as_secs_f64()
        );
    }
    let level = Level {
        game,
        k,
        words: &words,
        ready: &ready,
        offered: Marks::new(n),
        checked: Marks::new(n),
        decided: Marks::new(n),
        checks: AtomicU64::new(0),
        read: AtomicU64::new(0),
        progress,
    };
    let (mut t_decide, mut t_tell, mut levels) = (0f64, 0f64, 0u32);
    let mut d = match ready.least() {
        Some(d) => d,
        None => {
            words.into_values(out);
            return Ok(Ok(()));
        }
    };
    loop {
        if d > MAX_LEVEL {
            return Ok(Err(Deeper));
        }
        progress.level(k, d);
        let t0 = std::time::Instant::now();
        levels += 1;
        level.decide(d);
        check_stopped(progress)?;
        let t1 = std::time::Instant::now();
        level.tell();
        check_stopped(progress)?;
        t_decide += (t1 - t0).as_secs_f64();
        t_tell += t1.elapsed().as_secs_f64();
        // The next level with anything to decide: d + 1 where this one told a parent, else
        // the least level a block is ready at.
        d = if level.offered.any() || level.checked.any() {
            d + 1
        } else {
            match ready.least() {
                Some(l) => l.max(d + 1),
                None => break,
            }
        };
    }
    if trace {
        eprintln!(
            "layer {k}: {} checks read {} children",
            level.checks.load(Relaxed),
            level.read.load(Relaxed)
        );
        eprintln!("layer {k}: decide {t_decide:.2} s tell {t_tell:.2} s levels {levels}");
    }
    drop(level);
    words.into_values(out);
    Ok(Ok(()))
}

/// Each position's word from its children outside the layer (and whether it has a move
/// inside it), and each block's ready level; `Err(Deeper)` where a pending level passes
/// `MAX_LEVEL`.
fn first_pass<G: Game, V: Value>(
    game: &G,
    k: usize,
    words: &Words,
    ready: &Ready,
    finished: &Finished<'_, V>,
    progress: &dyn Progress,
) -> std::result::Result<(), Deeper> {
    let n = words.len();
    let deep = AtomicBool::new(false);
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        if progress.stopped() {
            return;
        }
        let range = c * CHUNK..n.min((c + 1) * CHUNK);
        let len = range.len();
        let mut least = [NONE; CHUNK / BLOCK];
        each_counted(
            game,
            k,
            0,
            range,
            finished,
            Counting::Every,
            |at, seen, within| {
                // `Every` folds every position's children: none waits.
                let Some(seen) = seen else { return };
                let Some(word) = Word::open(seen, within > 0) else {
                    deep.store(true, Relaxed);
                    return;
                };
                words.set(at, word);
                let b = (at - c * CHUNK) / BLOCK;
                least[b] = least[b].min(Word::ready(word));
            },
        );
        ready.set_chunk(c, &least);
        progress.advance(len as u64);
    });
    match deep.load(Relaxed) {
        true => Err(Deeper),
        false => Ok(()),
    }
}

/// What a level's two passes share.
struct Level<'a, G: Game> {
    game: &'a G,
    k: usize,
    words: &'a Words,
    ready: &'a Ready,
    /// Positions a child's loss at the last level offered a win.
    offered: Marks,
    /// Positions a child's win at the last level may have left lost.
    checked: Marks,
    /// Positions decided at this level, whose parents are told.
    decided: Marks,
    /// Checks made and children's words they read, for `RETRO_TRACE`.
    checks: AtomicU64,
    read: AtomicU64,
    progress: &'a dyn Progress,
}

impl<G: Game> Level<'_, G> {
    /// Decide the positions whose value has remoteness `d`: those of the blocks ready at `d`
    /// by what their words held, and the last level's candidates. Each chunk's words are
    /// written by the one thread that takes the chunk.
    fn decide(&self, d: u32) {
        let n = self.words.len();
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let scan = self.ready.chunk(c) == d as u16;
            let offered = self.offered.chunk_marked(c);
            let checked = self.checked.chunk_marked(c);
            if !(scan || offered || checked) || self.progress.stopped() {
                return;
            }
            let mut any = false;
            if scan {
                any |= self.scan_ready(c, d);
            }
            if offered {
                // Offered a win at the last level: a win at this one, unless decided.
                self.offered.take_chunk(c, |at| {
                    if !Word::decided(self.words.get(at)) {
                        self.words.set(at, Word::decided_as(true, d));
                        self.decided.mark_own(at);
                        any = true;
                    }
                });
                self.offered.clear_chunk(c);
            }
            if checked {
                let (mut checks, mut read) = (0, 0);
                self.checked.take_chunk(c, |at| {
                    checks += 1;
                    if self.check(at, d, &mut read) {
                        self.decided.mark_own(at);
                        any = true;
                    }
                });
                self.checked.clear_chunk(c);
                self.checks.fetch_add(checks, Relaxed);
                self.read.fetch_add(read, Relaxed);
            }
            if any {
                self.decided.flag_chunk(c);
            }
        });
    }

    /// The blocks of chunk c ready at level `d`: each position whose word decides it at `d`
    /// is decided, and each block's least level worked out again. Whether any was decided.
    fn scan_ready(&self, c: usize, d: u32) -> bool {
        let mut any = false;
        self.ready.scan_chunk(c, d, self.words.len(), |at| {
            let w = self.words.get(at);
            match Word::ready(w) {
                l if l == d as u16 => {
                    self.words.set(at, Word::decided_as(Word::pends_win(w), d));
                    self.decided.mark_own(at);
                    any = true;
                    NONE
                }
                l => l,
            }
        });
        any
    }

    /// A position marked for a check at level `d`: whether it loses at `d`, which it does
    /// where every move inside the layer leads to a win decided before `d` and its floor
    /// is reached. A position whose moves all win but whose floor is still ahead is noted to
    /// lose at its floor.
    fn check(&self, at: usize, d: u32, read: &mut u64) -> bool {
        let w = self.words.get(at);
        let Some(floor) = Word::floor(w) else {
            // Decided, or it wins (or never loses) by a child outside the layer.
            return false;
        };
        let pos = self.game.unrank(self.k, at as u64);
        let mut all_win = true;
        self.game.for_each_child_within(&pos, |child| {
            *read += 1;
            match self.words.won_before(child as usize, d) {
                true => ControlFlow::Continue(()),
                false => {
                    all_win = false;
                    ControlFlow::Break(())
                }
            }
        });
        if !all_win {
            return false;
        }
        if floor <= d {
            self.words.set(at, Word::decided_as(false, d));
            return true;
        }
        self.words.set(at, Word::floor_reached(floor));
        self.ready.lower(at, floor as u16);
        false
    }

    /// Tell the parents of the positions decided at this level: those of a loss are offered
    /// a win, those of a win are marked for a check, each a bit set.
    fn tell(&self) {
        let n = self.words.len();
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            if !self.decided.chunk_marked(c) || self.progress.stopped() {
                return;
            }
            self.decided.take_chunk(c, |at| {
                let marks = match Word::won(self.words.get(at)) {
                    true => &self.checked,
                    false => &self.offered,
                };
                let pos = self.game.unrank(self.k, at as u64);
                self.game.for_each_parent_within(&pos, |q, _| {
                    if (q as usize) < n {
                        marks.mark(q as usize);
                    }
                });
            });
            self.decided.clear_chunk(c);
        });
    }
}

/// The layer's 16-bit words, in blocks that are freed one by one as the values are written.
struct Words {
    blocks: Vec<Box<[AtomicU16]>>,
    len: usize,
}

impl Words {
    /// Positions per block (32 MiB of words).
    const SHIFT: u32 = 24;
    const BLOCK: usize = 1 << Self::SHIFT;

    fn new(n: usize) -> Words {
        let blocks = (0..n.div_ceil(Self::BLOCK))
            .map(|b| {
                let len = Self::BLOCK.min(n - b * Self::BLOCK);
                crate::memory::zeroed_atomics(len, || AtomicU16::new(0))
            })
            .collect();
        Words { blocks, len: n }
    }

    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn word(&self, at: usize) -> &AtomicU16 {
        &self.blocks[at >> Self::SHIFT][at & (Self::BLOCK - 1)]
    }

    #[inline]
    fn get(&self, at: usize) -> u16 {
        self.word(at).load(Relaxed)
    }

    #[inline]
    fn set(&self, at: usize, w: u16) {
        self.word(at).store(w, Relaxed)
    }

    /// Whether position `at` is decided a win at a level before `d` (a child out of range,
    /// which only a game's bug gives, is not).
    #[inline]
    fn won_before(&self, at: usize, d: u32) -> bool {
        at < self.len && Word::won_at(self.get(at)).is_some_and(|r| r < d)
    }

    /// Each position's value into `out`, freeing each block once written.
    fn into_values<V: Value>(self, out: &mut [V]) {
        for (block, out) in self.blocks.into_iter().zip(out.chunks_mut(Self::BLOCK)) {
            out.par_chunks_mut(CHUNK)
                .zip(block.par_chunks(CHUNK))
                .for_each(|(out, words)| {
                    for (v, w) in out.iter_mut().zip(words) {
                        *v = V::from_i64(Word::value(w.load(Relaxed)).into());
                    }
                });
        }
    }
}

/// A position's 16-bit word. Decided: bit 15, bit 14 for a win, and the remoteness in bits
/// 0..14. Open: in bits 13..15 what its children outside the layer say, and a level in
/// bits 0..13: a floor not reached yet (`FLOOR`: some move inside the layer may not win),
/// a floor reached (`REACHED`: no move inside the layer is left that does not win), a win
/// pending at a level (`WINS`), or "never loses" (`NEVER`: a child outside draws).
struct Word;

impl Word {
    const DECIDED: u16 = 1 << 15;
    const WIN: u16 = 1 << 14;
    const KIND: u16 = 3 << 13;
    const FLOOR: u16 = 0;
    const REACHED: u16 = 1 << 13;
    const WINS: u16 = 2 << 13;
    const NEVER: u16 = 3 << 13;
    const LEVEL: u16 = (1 << 13) - 1;

    /// The open word of what a position's children outside the layer say, and whether it
    /// has a move inside the layer; None where a level passes `MAX_LEVEL`.
    fn open(seen: &Outside, within: bool) -> Option<u16> {
        let (kind, level) = match (seen.win, seen.draw) {
            (Some(r), _) => (Self::WINS, r),
            (None, true) => (Self::NEVER, 0),
            (None, false) if within => (Self::FLOOR, seen.floor),
            (None, false) => (Self::REACHED, seen.floor),
        };
        (level <= MAX_LEVEL).then_some(kind | level as u16)
    }

    fn decided(w: u16) -> bool {
        w & Self::DECIDED != 0
    }

    fn decided_as(win: bool, d: u32) -> u16 {
        Self::DECIDED | if win { Self::WIN } else { 0 } | d as u16
    }

    fn won(w: u16) -> bool {
        w & (Self::DECIDED | Self::WIN) == Self::DECIDED | Self::WIN
    }

    /// The level a decided win was decided at.
    #[inline]
    fn won_at(w: u16) -> Option<u32> {
        Self::won(w).then_some((w & (Self::WIN - 1)) as u32)
    }

    /// An open word that waits for a win pending from outside the layer.
    fn pends_win(w: u16) -> bool {
        w & Self::KIND == Self::WINS
    }

    /// The floor of an open word that may still lose by its moves inside the layer.
    fn floor(w: u16) -> Option<u32> {
        (!Self::decided(w) && w & Self::KIND == Self::FLOOR).then_some((w & Self::LEVEL) as u32)
    }

    fn floor_reached(floor: u32) -> u16 {
        Self::REACHED | floor as u16
    }

    /// The level at which an open word is decided by what it holds (a pending win, a floor
    /// reached); `NONE` otherwise.
    fn ready(w: u16) -> u16 {
        if Self::decided(w) {
            return NONE;
        }
        match w & Self::KIND {
            Self::WINS | Self::REACHED => w & Self::LEVEL,
            _ => NONE,
        }
    }

    /// The value: a decided word's, a draw for one never decided.
    fn value(w: u16) -> i16 {
        if !Self::decided(w) {
            return 0;
        }
        let r = (w & (Self::WIN - 1)) as u32;
        if w & Self::WIN != 0 {
            Wdl::Win(r)
        } else {
            Wdl::Loss(r)
        }
        .encode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decided_word_holds_its_value() {
        for d in [0, 1, 7, 254, MAX_LEVEL] {
            let (won, lost) = (Word::decided_as(true, d), Word::decided_as(false, d));
            assert_eq!(Word::value(won), Wdl::Win(d).encode());
            assert_eq!(Word::value(lost), Wdl::Loss(d).encode());
            assert_eq!(Word::won_at(won), Some(d));
            assert_eq!(Word::won_at(lost), None);
            assert!(Word::decided(won) && Word::decided(lost));
            assert_eq!((Word::ready(won), Word::floor(lost)), (NONE, None));
        }
    }

    #[test]
    fn an_open_word_holds_what_its_children_outside_say() {
        // A child that loses in 2: a win pending at 3, never a loss.
        let mut wins = Outside::new();
        wins.child(Wdl::Loss(2).encode());
        let w = Word::open(&wins, true).unwrap();
        assert!(Word::pends_win(w) && !Word::decided(w));
        assert_eq!(
            (Word::ready(w), Word::floor(w), Word::value(w)),
            (3, None, 0)
        );
        // A child that wins in 4: a floor of 5, reached at once without a move inside.
        let mut floor = Outside::new();
        floor.child(Wdl::Win(4).encode());
        let w = Word::open(&floor, true).unwrap();
        assert_eq!((Word::ready(w), Word::floor(w)), (NONE, Some(5)));
        let w = Word::open(&floor, false).unwrap();
        assert_eq!((Word::ready(w), Word::floor(w)), (5, None));
        assert_eq!(Word::ready(Word::floor_reached(5)), 5);
        // A child that draws: never lost, never ready.
        let mut draw = Outside::new();
        draw.child(0);
        let w = Word::open(&draw, true).unwrap();
        assert_eq!(
            (Word::ready(w), Word::floor(w), Word::value(w)),
            (NONE, None, 0)
        );
        // A level past what the word holds is refused (the counters worker takes over).
        let mut deep = Outside::new();
        deep.child(Wdl::Win(MAX_LEVEL).encode());
        assert!(Word::open(&deep, true).is_none());
    }
}
