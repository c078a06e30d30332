//! Retrograde analysis for games whose stones move once they are placed (Teeko, Quixo): a
//! layer may have moves that stay inside it, so positions repeat, and a position may be a
//! draw because neither side can force anything.
//!
//! Layers are still by stone count, which never decreases, and are still solved from the
//! fullest back to the empty one; a layer's moves lead into the layer itself or into the next
//! one, which is finished. A layer without moves inside it is computed in one parallel pass,
//! as the placement sweep does. A layer with moves inside it is solved to a fixpoint by
//! classic retrograde analysis with child counters and predecessor generation, level by
//! level of remoteness:
//!
//! - Every position first counts its distinct children inside the layer and folds its
//!   children in the next layer into one pending word: the earliest level at which it wins
//!   (a child that loses), or else the level before which it cannot lose (the slowest child
//!   that wins), or "never loses" (a child that draws). Both go in the position's 32-bit
//!   word, which holds its value instead once it is decided.
//! - Level d first decides the positions whose value has remoteness d: a win where the
//!   pending word says d, a loss where no child within the layer is left unresolved and the
//!   floor is reached. It then tells their parents: a win takes a counter from each, a loss
//!   offers each a win at d + 1 (each an atomic compare-and-swap on the parent's word, which
//!   leaves a decided parent alone). Deciding reads only what earlier levels wrote, so each
//!   phase is one parallel pass without a lock. Only the candidates the last level made are
//!   looked at, and the whole layer only at levels some position was pending for from the
//!   start.
//! - Positions never resolved are draws.
//!
//! Memory during a layer's solve: the word (4 bytes a position) and the candidate lists,
//! besides the finished next layer; the layer's values (2 bytes) are made from the words at
//! the end.
//!
//! Values are for the side to move, as an `i16`: 0 a draw, r + 1 a win in r plies,
//! -(r + 1) a loss in r plies (a position where play has ended is a loss in 0).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::sweep::{Progress, Silent, check_stopped};

/// Positions per parallel task.
const CHUNK: usize = 4096;

/// A child of a position: in its own layer, or in the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Child {
    /// Rank in the position's own layer (a stone moved).
    Within(u64),
    /// Rank in the next layer (a stone was added).
    Next(u64),
}

/// A game with layers by stone count, some of whose layers have moves inside them, as the
/// retrograde solver sees it.
pub trait MovementGame: Send + Sync {
    /// A decoded position; also the cursor that walks a layer in rank order.
    type Position: Send;

    /// The last layer; the layers are `0..=last_layer()`.
    fn last_layer(&self) -> usize;
    /// Positions in layer `k`.
    fn layer_size(&self, k: usize) -> u64;
    /// Whether moves can stay in layer `k`; such a layer is solved to a fixpoint.
    fn moves_within(&self, k: usize) -> bool;
    /// The position of rank `rank` in layer `k`.
    fn unrank(&self, k: usize, rank: u64) -> Self::Position;
    /// Step to the next rank; never called on a layer's last position.
    fn advance(&self, pos: &mut Self::Position);
    /// Where play has ended: `Wdl::Loss(0)` when the side to move has lost, `Wdl::Win(0)`
    /// when it has won (Quixo: the other side completed its line), None where play goes
    /// on. Such a position has no moves.
    fn ended(&self, pos: &Self::Position) -> Option<Wdl>;
    /// Every move's child: each child in the next layer once per move, each distinct child
    /// within the layer once (a game whose different moves can lead to the same position
    /// reports it once). A position where play goes on and that has no move is lost for the side
    /// to move.
    fn for_each_child(&self, pos: &Self::Position, f: impl FnMut(Child));
    /// In a layer with moves inside it: every position of the layer where play goes on and
    /// has this one among its children, each once.
    fn for_each_parent_within(&self, pos: &Self::Position, f: impl FnMut(u64));
    /// The children in the next layer alone (`for_each_child`'s `Next`); a game overrides it
    /// where that saves ranking the children within the layer.
    fn for_each_child_next(&self, pos: &Self::Position, mut f: impl FnMut(u64)) {
        self.for_each_child(pos, |child| {
            if let Child::Next(r) = child {
                f(r)
            }
        });
    }
    /// How many distinct children within the layer (`for_each_child`'s `Within`); a game
    /// overrides it where counting is cheaper than ranking them.
    fn children_within(&self, pos: &Self::Position) -> usize {
        let mut n = 0;
        self.for_each_child(pos, |child| {
            if let Child::Within(_) = child {
                n += 1;
            }
        });
        n
    }
}

/// A value for the side to move, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wdl {
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies (0: play has ended).
    Loss(u32),
    /// Neither side can force a win.
    Draw,
}

impl Wdl {
    /// The stored value of `wdl` (see the module's docs).
    pub fn encode(self) -> i16 {
        match self {
            Wdl::Win(r) => (r + 1) as i16,
            Wdl::Loss(r) => -((r + 1) as i16),
            Wdl::Draw => 0,
        }
    }

    /// The outcome a stored value stands for.
    pub fn decode(value: i64) -> Wdl {
        match value {
            0 => Wdl::Draw,
            v if v > 0 => Wdl::Win((v - 1) as u32),
            v => Wdl::Loss((-v - 1) as u32),
        }
    }
}

/// The most plies a remoteness may take: its stored value must fit an `i16`.
pub const MAX_REMOTENESS: u32 = i16::MAX as u32 - 1;

/// Pending words: a win at level 1..0x8000, else a floor (`FLOOR | f`), else `NEVER`.
const FLOOR: u16 = 0x8000;
const NEVER: u16 = 0xffff;

/// Solve every layer from the last to 0, handing each finished layer to `write` (layer,
/// values); returns the empty board's value.
pub fn solve<G: MovementGame>(
    game: &G,
    mut write: impl FnMut(usize, &[i16]) -> Result<()>,
) -> Result<i16> {
    solve_from(game, game.last_layer(), Vec::new(), &Silent, &mut write)
}

/// Solve layers `top` down to 0, given the values of layer `top + 1` (`above`; empty when
/// `top` is the last layer): what a resumed build does.
pub fn solve_from<G: MovementGame>(
    game: &G,
    top: usize,
    mut above: Vec<i16>,
    progress: &dyn Progress,
    write: &mut dyn FnMut(usize, &[i16]) -> Result<()>,
) -> Result<i16> {
    for k in (0..=top).rev() {
        // Asked to stop (`Progress::stopped`): the layer being solved is dropped, and only
        // whole layers, all written before it, are kept. The solve asks between chunks and
        // between levels, so a stop waits for a chunk, not for a layer (standard Teeko's
        // first layer takes about a minute).
        let values = solve_layer(game, k, &above, progress)?;
        check_stopped(progress)?;
        // The layer above is no longer needed: free it before the writer reads this one.
        drop(std::mem::take(&mut above));
        write(k, &values)?;
        above = values;
    }
    Ok(above.first().copied().unwrap_or(0))
}

/// Every layer's values, in memory (tests, small boards).
pub fn all_values<G: MovementGame>(game: &G) -> Result<Vec<Vec<i16>>> {
    let mut layers = vec![Vec::new(); game.last_layer() + 1];
    solve(game, |k, values| {
        layers[k] = values.to_vec();
        Ok(())
    })?;
    Ok(layers)
}

/// The value a move gives the side that plays it, from its child's value (for the other
/// side): a child lost in r plies is a win in r + 1, one won in r a loss in r + 1, a draw
/// a draw. Values stay inside `i16` (remoteness at most `MAX_REMOTENESS`), so no overflow
/// for a value the solver wrote; a damaged table's are clamped.
pub fn back(child: i64) -> i64 {
    match child {
        0 => 0,
        c if c < 0 => (1 - c).min(i64::from(i16::MAX)),
        c => (-1 - c).max(-i64::from(i16::MAX)),
    }
}

/// Whether value `a` is better than `b` for the side to move: a faster win, then a draw,
/// then a slower loss.
pub fn better(a: i64, b: i64) -> bool {
    let key = |v: i64| match v {
        v if v > 0 => (2, -v),
        0 => (1, 0),
        v => (0, -v),
    };
    key(a) > key(b)
}

/// The value a position must have, from its children's values (`Wdl` encoding) read by
/// `value_of`: the best `back` over them for the side to move, a loss in 0 with no move
/// (or where play has ended as `ended` says).
pub fn expected<G: MovementGame>(
    game: &G,
    pos: &G::Position,
    mut value_of: impl FnMut(Child) -> i64,
) -> i64 {
    if let Some(end) = game.ended(pos) {
        return end.encode().into();
    }
    let mut best: Option<i64> = None;
    game.for_each_child(pos, |child| {
        let v = back(value_of(child));
        if best.is_none_or(|b| better(v, b)) {
            best = Some(v);
        }
    });
    best.unwrap_or(Wdl::Loss(0).encode().into())
}

/// The first position of layer `k` (values `here`, next layer's `next`) whose value is not
/// what its moves give (`expected`): its rank, the stored and the expected value. This is
/// a complete check: a labelling that agrees with `expected` everywhere is the true one,
/// because a win's or a loss's remoteness counts down along its moves to a position where
/// play has ended, and a draw with no move to a loss and a move to a draw cannot hide a
/// win or a loss, which would be found by induction on the remoteness.
pub fn check_layer<G: MovementGame>(
    game: &G,
    k: usize,
    here: &[i16],
    next: &[i16],
    progress: &dyn Progress,
) -> Option<(u64, i64, i64)> {
    here.par_chunks(CHUNK)
        .enumerate()
        .find_map_first(|(c, chunk)| {
            let start = c * CHUNK;
            let mut pos = game.unrank(k, start as u64);
            for (i, &stored) in chunk.iter().enumerate() {
                if i > 0 {
                    game.advance(&mut pos);
                }
                let value_of = |child: Child| -> i64 {
                    let v = match child {
                        Child::Within(r) => here.get(r as usize),
                        Child::Next(r) => next.get(r as usize),
                    };
                    v.copied().map_or(i64::MIN, i64::from)
                };
                let e = expected(game, &pos, value_of);
                if e != i64::from(stored) {
                    return Some(((start + i) as u64, i64::from(stored), e));
                }
            }
            progress.advance(chunk.len() as u64);
            None
        })
}

/// Bytes the solver holds at its peak: per layer, the finished layer above (2 bytes a
/// position), and the layer's own values (2); in a layer with moves inside it also each
/// position's word (4) and the candidate lists, counted as 2 bytes a position more (standard
/// Teeko: 1.21 GB estimated, 1129 MiB = 1.18 GB measured).
pub fn peak_bytes<G: MovementGame>(game: &G) -> u128 {
    (0..=game.last_layer())
        .map(|k| {
            let n = game.layer_size(k) as u128;
            let above = if k < game.last_layer() {
                game.layer_size(k + 1) as u128
            } else {
                0
            };
            let per = if game.moves_within(k) { 2 + 4 + 2 } else { 2 };
            n * per + above * 2
        })
        .max()
        .unwrap_or(0)
}

/// The retrograde solver of one game, behind a trait object (`Game::retrograde`), so the
/// build, `verify` and `plan` reach it without knowing the game's type. Every
/// `MovementGame` is one.
pub trait Retrograde: Sync {
    /// `MovementGame::last_layer`.
    fn last_layer(&self) -> usize;
    /// `MovementGame::moves_within`.
    fn moves_within(&self, k: usize) -> bool;
    /// `solve_from`.
    fn solve_from(
        &self,
        top: usize,
        above: Vec<i16>,
        progress: &dyn Progress,
        write: &mut dyn FnMut(usize, &[i16]) -> Result<()>,
    ) -> Result<i16>;
    /// `check_layer`.
    fn check_layer(
        &self,
        k: usize,
        here: &[i16],
        next: &[i16],
        progress: &dyn Progress,
    ) -> Option<(u64, i64, i64)>;
    /// `peak_bytes`.
    fn peak_bytes(&self) -> u128;
    /// `expected` for position `rank` of layer `k`.
    fn expected_at(&self, k: usize, rank: u64, value_of: &mut dyn FnMut(Child) -> i64) -> i64;
    /// Every layer's values, solved in memory (`all_values`).
    fn all_values(&self) -> Result<Vec<Vec<i16>>>;
    /// What the game reports of position `rank` of layer `k`, for conformance checks
    /// (`crate::testing::check_game`): whether play has ended there, its children
    /// (`for_each_child`), its children in the next layer alone (`for_each_child_next`),
    /// its count of children within (`children_within`) and its parents within the layer
    /// (`for_each_parent_within`; empty outside layers with moves inside them).
    fn report(&self, k: usize, rank: u64) -> Report;
}

/// What a `MovementGame` says of one position (`Retrograde::report`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// `ended`.
    pub ended: Option<Wdl>,
    /// `for_each_child`, in the order reported.
    pub children: Vec<Child>,
    /// `for_each_child_next`.
    pub next: Vec<u64>,
    /// `children_within`.
    pub within: usize,
    /// `for_each_parent_within`.
    pub parents: Vec<u64>,
}

impl<G: MovementGame> Retrograde for G {
    fn last_layer(&self) -> usize {
        MovementGame::last_layer(self)
    }
    fn moves_within(&self, k: usize) -> bool {
        MovementGame::moves_within(self, k)
    }
    fn solve_from(
        &self,
        top: usize,
        above: Vec<i16>,
        progress: &dyn Progress,
        write: &mut dyn FnMut(usize, &[i16]) -> Result<()>,
    ) -> Result<i16> {
        solve_from(self, top, above, progress, write)
    }
    fn check_layer(
        &self,
        k: usize,
        here: &[i16],
        next: &[i16],
        progress: &dyn Progress,
    ) -> Option<(u64, i64, i64)> {
        check_layer(self, k, here, next, progress)
    }
    fn peak_bytes(&self) -> u128 {
        peak_bytes(self)
    }
    fn expected_at(&self, k: usize, rank: u64, value_of: &mut dyn FnMut(Child) -> i64) -> i64 {
        expected(self, &self.unrank(k, rank), value_of)
    }
    fn all_values(&self) -> Result<Vec<Vec<i16>>> {
        all_values(self)
    }
    fn report(&self, k: usize, rank: u64) -> Report {
        let pos = self.unrank(k, rank);
        let mut report = Report {
            ended: self.ended(&pos),
            children: Vec::new(),
            next: Vec::new(),
            within: 0,
            parents: Vec::new(),
        };
        if report.ended.is_none() {
            self.for_each_child(&pos, |c| report.children.push(c));
            self.for_each_child_next(&pos, |r| report.next.push(r));
            report.within = self.children_within(&pos);
        }
        if MovementGame::moves_within(self, k) {
            self.for_each_parent_within(&pos, |q| report.parents.push(q));
        }
        report
    }
}

/// What a position's children in the next layer say, folded.
struct Outside {
    /// Fastest win through a child that loses (remoteness), if any.
    win: Option<u32>,
    /// Slowest loss so far: 1 + the largest remoteness of a child that wins.
    floor: u32,
    /// A child draws.
    draw: bool,
    /// Any child at all, inside the layer or not.
    any: bool,
}

impl Outside {
    fn new() -> Outside {
        Outside {
            win: None,
            floor: 0,
            draw: false,
            any: false,
        }
    }

    fn child(&mut self, value: i16) {
        self.any = true;
        match value {
            0 => self.draw = true,
            v if v < 0 => {
                let r = (-v) as u32;
                self.win = Some(self.win.map_or(r, |w| w.min(r)));
            }
            v => self.floor = self.floor.max(v as u32),
        }
    }

    /// The value of a position whose children are all outside the layer.
    fn value(&self) -> i16 {
        match (self.win, self.draw, self.any) {
            (Some(r), _, _) => Wdl::Win(r).encode(),
            (None, true, _) => 0,
            (None, false, true) => Wdl::Loss(self.floor).encode(),
            (None, false, false) => Wdl::Loss(0).encode(),
        }
    }

    /// The pending word of a position in a layer with moves inside it.
    fn pending(&self) -> u16 {
        match (self.win, self.draw) {
            (Some(r), _) => r as u16,
            (None, true) => NEVER,
            (None, false) => FLOOR | self.floor as u16,
        }
    }

    /// The level this word may resolve at (for the solve's last level).
    fn level(&self) -> u32 {
        match (self.win, self.draw) {
            (Some(r), _) => r,
            (None, true) => 0,
            (None, false) => self.floor,
        }
    }
}

fn too_far(k: usize) -> Error {
    Error::too_large(format!(
        "layer {k}: a remoteness past {MAX_REMOTENESS} plies does not fit the table's values"
    ))
}

/// Layer `k`'s values, from the finished next layer `above`.
fn solve_layer<G: MovementGame>(
    game: &G,
    k: usize,
    above: &[i16],
    progress: &dyn Progress,
) -> Result<Vec<i16>> {
    let n = usize::try_from(game.layer_size(k))
        .map_err(|_| Error::too_large(format!("layer {k} does not fit in memory")))?;
    progress.layer(k, n as u64);
    let far = AtomicBool::new(false);
    if !game.moves_within(k) {
        let mut values = vec![0i16; n];
        values
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, out)| {
                // Asked to stop: the rest of the layer is skipped (the caller drops it).
                if progress.stopped() {
                    return;
                }
                let mut pos = game.unrank(k, (c * CHUNK) as u64);
                for (i, v) in out.iter_mut().enumerate() {
                    if i > 0 {
                        game.advance(&mut pos);
                    }
                    if let Some(end) = game.ended(&pos) {
                        *v = end.encode();
                        continue;
                    }
                    let mut seen = Outside::new();
                    game.for_each_child(&pos, |child| match child {
                        Child::Next(r) => seen.child(above[r as usize]),
                        // A game that says its layer has no moves inside has none.
                        Child::Within(_) => far.store(true, Relaxed),
                    });
                    if seen.win.is_some_and(|r| r > MAX_REMOTENESS) || seen.floor > MAX_REMOTENESS {
                        far.store(true, Relaxed);
                    }
                    *v = seen.value();
                }
                progress.advance(out.len() as u64);
            });
        check_stopped(progress)?;
        if far.load(Relaxed) {
            return Err(too_far(k));
        }
        return Ok(values);
    }

    let started = std::time::Instant::now();
    let trace = std::env::var_os("RETRO_TRACE").is_some();
    // One word per position (`Word`): its counter and pending word while it is open, its
    // value once decided. The levels that hold a pending word from the start are marked,
    // and only those are scanned whole.
    let words: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let seeded: Vec<AtomicBool> = (0..=MAX_REMOTENESS as usize + 1)
        .map(|_| AtomicBool::new(false))
        .collect();
    let last = AtomicU64::new(0);
    words.par_chunks(CHUNK).enumerate().for_each(|(c, chunk)| {
        if progress.stopped() {
            return;
        }
        let mut pos = game.unrank(k, (c * CHUNK) as u64);
        let mut top = 0u32;
        for (i, word) in chunk.iter().enumerate() {
            if i > 0 {
                game.advance(&mut pos);
            }
            let mut seen = Outside::new();
            let mut within = 0usize;
            match game.ended(&pos) {
                // Won already: a win pending at level 0.
                Some(Wdl::Win(_)) => seen.win = Some(0),
                // Lost (or a draw, which no game ends in): no children, floor 0.
                Some(_) => {}
                None => {
                    game.for_each_child_next(&pos, |r| seen.child(above[r as usize]));
                    within = game.children_within(&pos);
                    seen.any |= within > 0;
                }
            }
            if within > u8::MAX as usize
                || seen.win.is_some_and(|r| r > MAX_REMOTENESS)
                || seen.floor > MAX_REMOTENESS
            {
                far.store(true, Relaxed);
                continue;
            }
            word.store(Word::open(seen.pending(), within as u8), Relaxed);
            // A win waits for its level; a loss for its floor once nothing within the
            // layer is left (else the last child to win brings it).
            match (seen.win, seen.draw) {
                (Some(r), _) => seeded[r as usize].store(true, Relaxed),
                (None, false) if within == 0 => seeded[seen.floor as usize].store(true, Relaxed),
                _ => {}
            }
            top = top.max(seen.level());
        }
        last.fetch_max(top as u64, Relaxed);
        progress.advance(chunk.len() as u64);
    });
    check_stopped(progress)?;
    if far.load(Relaxed) {
        return Err(too_far(k));
    }
    let last = last.load(Relaxed) as u32;
    if trace {
        eprintln!(
            "layer {k}: counted in {:.2} s",
            started.elapsed().as_secs_f64()
        );
    }

    // Positions that may resolve at the next level: offered a win, or out of children.
    let mut next: Vec<u64> = Vec::new();
    let mut d: u32 = 0;
    // Asked to stop (`Progress::stopped`): each pass below skips its remaining chunks, and
    // the solve ends with the interrupted error right after the pass, since a pass cut
    // short leaves the words half told.
    loop {
        if d > MAX_REMOTENESS {
            return Err(too_far(k));
        }
        // Decide first, then tell the parents: a decision at level d reads only what
        // levels before d wrote, whatever the order the threads take the candidates in.
        let decide = |at: usize| -> Option<(u64, bool)> {
            let w = words[at].load(Relaxed);
            if Word::decided(w) {
                return None;
            }
            let (p, count) = (Word::pending(w), Word::count(w));
            let win = p == d as u16;
            let loss = p >= FLOOR && p != NEVER && (p & !FLOOR) as u32 <= d && count == 0;
            if !win && !loss {
                return None;
            }
            let value = if win { Wdl::Win(d) } else { Wdl::Loss(d) }.encode();
            // A position listed twice is decided once.
            words[at]
                .compare_exchange(w, Word::value(value), Relaxed, Relaxed)
                .ok()
                .map(|_| (at as u64, win))
        };
        let mut decided: Vec<(u64, bool)> = next
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                if progress.stopped() {
                    return Vec::new();
                }
                chunk
                    .iter()
                    .filter_map(|&at| decide(at as usize))
                    .collect::<Vec<_>>()
            })
            .collect();
        if seeded[d as usize].load(Relaxed) {
            // A level some positions were pending for from the start: scan the layer.
            let more: Vec<(u64, bool)> = (0..n.div_ceil(CHUNK))
                .into_par_iter()
                .flat_map_iter(|c| {
                    if progress.stopped() {
                        return Vec::new();
                    }
                    (c * CHUNK..n.min((c + 1) * CHUNK))
                        .filter_map(decide)
                        .collect::<Vec<_>>()
                })
                .collect();
            decided.extend(more);
        }
        check_stopped(progress)?;
        // A win takes a counter from each parent; the last child to win leaves a parent that
        // loses, at the next level or at its floor (a slower win outside the layer). A loss
        // offers each parent a win at the next level. A decided parent is left alone.
        let found: Vec<u64> = decided
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                let mut out = Vec::new();
                if progress.stopped() {
                    return out;
                }
                for &(at, win) in chunk {
                    let pos = game.unrank(k, at);
                    if win {
                        game.for_each_parent_within(&pos, |q| {
                            let word = &words[q as usize];
                            let taken = word.fetch_update(Relaxed, Relaxed, |w| {
                                (!Word::decided(w)).then(|| w - 1)
                            });
                            if let Ok(w) = taken
                                && Word::count(w) == 1
                            {
                                let p = Word::pending(w);
                                match p & !FLOOR {
                                    f if p >= FLOOR && p != NEVER && f as u32 > d + 1 => {
                                        seeded[f as usize].store(true, Relaxed)
                                    }
                                    _ => out.push(q),
                                }
                            }
                        });
                    } else {
                        let offer = (d + 1) as u16;
                        game.for_each_parent_within(&pos, |q| {
                            let word = &words[q as usize];
                            let offered = word.fetch_update(Relaxed, Relaxed, |w| {
                                (!Word::decided(w) && Word::pending(w) > offer)
                                    .then(|| Word::with_pending(w, offer))
                            });
                            if offered.is_ok() {
                                out.push(q);
                            }
                        });
                    }
                }
                out
            })
            .collect();
        if trace {
            eprintln!(
                "layer {k}: level {d}: {} candidates next, at {:.2} s",
                found.len(),
                started.elapsed().as_secs_f64()
            );
        }
        // A parent pass cut short may leave `found` empty, which must not read as the end.
        check_stopped(progress)?;
        next = found;
        // Pass d + 1 resolves only what pass d resolved leads to (`next`), and the levels
        // pending from the start, none of which is past `last`.
        if next.is_empty() && d >= last {
            break;
        }
        d += 1;
    }
    drop(next);
    // Positions never decided are draws.
    Ok(words
        .into_par_iter()
        .map(|w| Word::final_value(w.into_inner()))
        .collect())
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
    fn final_value(w: u32) -> i16 {
        if Self::decided(w) { w as u16 as i16 } else { 0 }
    }
}
