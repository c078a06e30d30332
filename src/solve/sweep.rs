//! The placement sweep: the worker for layers no move stays inside, of games whose values
//! are the first player's (scores, lines), each layer computed from the layer after it
//! (`crate::solve` drives it layer by layer). One kernel (`compute_chunk`) serves the serial and the parallel
//! driver; the parallel one hands rayon disjoint chunks of the output layer with the next
//! layer borrowed read-only, so the inner loop has no locks and no atomics. The game walks
//! each chunk (`Game::visit_runs`) and feeds the kernel's loops (`Kernel`).

use rayon::prelude::*;

use std::sync::atomic::AtomicU64;

use super::children::{self, Fetched, Local};
pub use super::children::{CHUNK, ChildValues};
use super::layers::Driver;
use super::ranks::Ranks;
use crate::error::Result;
use crate::game::{Game, RunSink};
use crate::progress::Progress;
use crate::stored::Value;

/// Chains of at most this many moves take the kernel's plain loop.
const SHORT_CHAIN: usize = 8;

/// Compute the values of positions `start..start + out.len()` of layer `k` from the values
/// of layer `k + 1` (`next`; empty for the full layer).
///
/// On x86-64 the same code also runs compiled for AVX2 and for AVX-512, on CPUs that have
/// them: the default target (SSE2) has no 32-bit vector min/max, and the kernel's loops
/// are mostly those. Measured on young 15 x 15, one thread: SSE2 0.92 s, AVX2 0.88 s,
/// AVX-512 0.85 s (`retro bench young FILE --threads 1 --repeat 7`).
pub fn compute_chunk<G: Game, V: Value, C: ChildValues<V> + ?Sized>(
    game: &G,
    k: usize,
    start: u64,
    out: &mut [V],
    next: &C,
) {
    #[cfg(target_arch = "x86_64")]
    match x86::detected() {
        // SAFETY: the CPU has every feature `chunk_avx512` is compiled for (detected).
        x86::Level::Avx512 => return unsafe { x86::chunk_avx512(game, k, start, out, next) },
        // SAFETY: the CPU has every feature `chunk_avx2` is compiled for (detected).
        x86::Level::Avx2 => return unsafe { x86::chunk_avx2(game, k, start, out, next) },
        x86::Level::Baseline => {}
    }
    chunk_kernel(game, k, start, out, next);
}

/// `chunk_kernel` compiled for wider vectors, with the game's and the kernel's loops
/// inlined into it. Each function enables exactly the features its `Level` checks.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::is_x86_feature_detected as has;

    use super::{ChildValues, Game, Value, chunk_kernel};

    pub enum Level {
        Avx512,
        Avx2,
        Baseline,
    }

    /// The widest level this CPU has (std caches the CPUID answers).
    #[inline]
    pub fn detected() -> Level {
        let avx2 = has!("avx2") && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
        if avx2 && has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("avx512dq") {
            Level::Avx512
        } else if avx2 {
            Level::Avx2
        } else {
            Level::Baseline
        }
    }

    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    pub fn chunk_avx2<G: Game, V: Value, C: ChildValues<V> + ?Sized>(
        g: &G,
        k: usize,
        start: u64,
        out: &mut [V],
        next: &C,
    ) {
        chunk_kernel(g, k, start, out, next);
    }

    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512vl,avx512dq")]
    pub fn chunk_avx512<G: Game, V: Value, C: ChildValues<V> + ?Sized>(
        g: &G,
        k: usize,
        start: u64,
        out: &mut [V],
        next: &C,
    ) {
        chunk_kernel(g, k, start, out, next);
    }
}

/// The one kernel behind both drivers and both instruction sets.
#[inline(always)]
fn chunk_kernel<G: Game, V: Value, C: ChildValues<V> + ?Sized>(
    game: &G,
    k: usize,
    start: u64,
    out: &mut [V],
    next: &C,
) {
    if out.is_empty() {
        return;
    }
    if k == game.last_layer() {
        // The full board: every position has ended.
        let mut pos = game.unrank(k, start);
        for (i, slot) in out.iter_mut().enumerate() {
            if i > 0 {
                game.advance(&mut pos);
            }
            *slot = V::from_i64(game.ended(&pos).unwrap_or(0));
        }
    } else if k.is_multiple_of(2) {
        // The first player maximises, the second minimises: one kernel for each, so the
        // innermost loops carry no sign.
        let len = out.len();
        game.visit_runs(
            k,
            start,
            len,
            &mut Kernel::<V, C, true>::new(out, next, start),
        );
    } else {
        let len = out.len();
        game.visit_runs(
            k,
            start,
            len,
            &mut Kernel::<V, C, false>::new(out, next, start),
        );
    }
}

/// The innermost loops of the program: every position of a run starts at the identity of
/// its player's choice and keeps the better of it and each move's reward plus child value.
struct Kernel<'a, V, C: ?Sized, const MAX: bool> {
    out: &'a mut [V],
    next: &'a C,
    /// Rank of `out[0]`.
    start: u64,
    /// Where the current run starts in `out`.
    at: usize,
    /// `ChildValues::values`'s memory between calls.
    hint: usize,
}

impl<'a, V: Value, C: ChildValues<V> + ?Sized, const MAX: bool> Kernel<'a, V, C, MAX> {
    fn new(out: &'a mut [V], next: &'a C, start: u64) -> Self {
        Kernel {
            out,
            next,
            start,
            at: 0,
            hint: 0,
        }
    }

    #[inline(always)]
    fn better(a: V, b: V) -> V {
        if MAX { a.max(b) } else { a.min(b) }
    }
}

impl<V: Value, C: ChildValues<V> + ?Sized, const MAX: bool> RunSink for Kernel<'_, V, C, MAX> {
    #[inline(always)]
    fn run(&mut self, rank: u64, len: usize) {
        self.at = (rank - self.start) as usize;
        let identity = if MAX { V::LOWEST } else { V::HIGHEST };
        self.out[self.at..self.at + len].fill(identity);
    }

    #[inline(always)]
    fn run_with_range(&mut self, rank: u64, len: usize, child: u64, reward: i64) {
        // The run's first move writes its slots outright: no identity fill and no
        // comparison on this pass.
        self.at = (rank - self.start) as usize;
        let reward = V::from_i64(reward);
        let children = self.next.values(child, len, &mut self.hint);
        let run = &mut self.out[self.at..][..len];
        for (best, &value) in run.iter_mut().zip(children) {
            *best = reward.plus(value);
        }
    }

    #[inline(always)]
    fn range(&mut self, i: usize, len: usize, child: u64, reward: i64) {
        let reward = V::from_i64(reward);
        let children = self.next.values(child, len, &mut self.hint);
        let run = &mut self.out[self.at + i..][..len];
        for (best, &value) in run.iter_mut().zip(children) {
            *best = Self::better(*best, reward.plus(value));
        }
    }

    #[inline(always)]
    fn chain(&mut self, i: usize, child: u64, rewards: &[i64]) {
        let len = rewards.len();
        let children = self.next.values(child, len, &mut self.hint);
        let run = &mut self.out[self.at + i..][..len];
        if len <= SHORT_CHAIN {
            // Most chains are this short (young 15 x 15: nine in ten, three to eight
            // moves); a plain loop skips the vector loop's set-up and tail (measured: 1.08 s
            // against 1.17 s at young 15 x 15, one thread).
            for t in 0..len {
                run[t] = Self::better(run[t], V::from_i64(rewards[t]).plus(children[t]));
            }
            return;
        }
        for ((best, &value), &reward) in run.iter_mut().zip(children).zip(rewards) {
            *best = Self::better(*best, V::from_i64(reward).plus(value));
        }
    }

    #[inline(always)]
    fn single(&mut self, i: usize, child: u64, reward: i64) {
        let best = &mut self.out[self.at + i];
        let value = self.next.values(child, 1, &mut self.hint)[0];
        *best = Self::better(*best, V::from_i64(reward).plus(value));
    }

    #[inline(always)]
    fn terminal(&mut self, i: usize, value: i64) {
        self.out[self.at + i] = V::from_i64(value);
    }
}

/// Compute positions `start..start + out.len()` of layer `k` (a rank's slice, or the whole
/// layer) into `out` from `next`, layer k + 1's values.
pub fn compute_layer<G: Game, V: Value, C: ChildValues<V> + Sync + ?Sized>(
    game: &G,
    k: usize,
    start: u64,
    out: &mut [V],
    next: &C,
    driver: Driver,
    progress: &dyn Progress,
) {
    let run = |(i, chunk): (usize, &mut [V])| {
        // Asked to stop: the rest of the layer is skipped (the caller drops it).
        if progress.stopped() {
            return;
        }
        compute_chunk(game, k, start + (i * CHUNK) as u64, chunk, next);
        progress.advance(chunk.len() as u64);
    };
    match driver {
        Driver::Serial => out.chunks_mut(CHUNK).enumerate().for_each(run),
        Driver::Parallel => out.par_chunks_mut(CHUNK).enumerate().for_each(run),
    }
}

/// A rank's slice of layer `k` (positions `start..start + out.len()`, with other ranks
/// sharing the layer) from layer k + 1 (`next` entries), of which this rank holds `own`
/// from `own_start`: returns the view of layer k + 1 it computed through (its own slice
/// and the values it fetched), for the slice's best moves.
///
/// Where the last layer's chunks mostly found their children in the rank's own slice
/// (`speculate`: young, connect, whose children lie near their parents' ranks), every
/// chunk is first computed from the own slice, a chunk that reads outside it marking the
/// grains it needs (`Local`), and only those chunks are computed again once the grains are
/// fetched; otherwise (twins, mnk: children scatter, so most chunks would be computed twice)
/// the chunks are only marked first (`children::plan_chunks`), then computed once.
#[allow(clippy::too_many_arguments)]
pub(super) fn solve_slice<'a, G: Game, V: Value, R: Ranks>(
    game: &G,
    k: usize,
    start: u64,
    out: &mut [V],
    (own, own_start, next): (&'a [V], u64, u64),
    speculate: &mut bool,
    progress: &dyn Progress,
    ranks: &R,
) -> Result<Fetched<'a, V>> {
    let marks = children::blank_marks(next);
    let own_range = own_start..own_start + own.len() as u64;
    let chunks = out.len().div_ceil(CHUNK);
    let (deferred, remote) = if *speculate {
        let placeholder = vec![V::default(); CHUNK];
        let deferred: Vec<bool> = out
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(i, chunk)| {
                let local = Local::new(own, own_start, &placeholder, &marks);
                compute_chunk(game, k, start + (i * CHUNK) as u64, chunk, &local);
                local.finish()
            })
            .collect();
        let remote = deferred.iter().filter(|&&d| d).count();
        (deferred, remote)
    } else {
        let slice = start..start + out.len() as u64;
        let remote = children::plan_chunks(game, k, slice, CHUNK, own_range.clone(), &marks);
        (vec![true; chunks], remote)
    };
    let mut marks: Vec<u64> = marks.into_iter().map(AtomicU64::into_inner).collect();
    children::keep_fetched(&mut marks, &own_range, next);
    let spans = children::spans(&marks, next);
    let values = ranks.fetch(next, &spans, own)?;
    let fetched = Fetched::new(own, own_start, marks, values);
    out.par_chunks_mut(CHUNK)
        .zip(deferred.par_iter())
        .enumerate()
        .filter(|(_, (_, d))| **d)
        .for_each(|(i, (chunk, _))| {
            compute_chunk(game, k, start + (i * CHUNK) as u64, chunk, &fetched);
        });
    progress.advance(out.len() as u64);
    *speculate = remote * 2 <= chunks;
    Ok(fetched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Error, Result};
    use crate::game::{Twins, Young};
    use crate::progress::Silent;
    use crate::solve::{solve_each as sweep, value_type};
    use crate::testing::random_game;

    /// Every build of the kernel this CPU can run (portable, AVX2, AVX-512) against the
    /// sweep's values, layer by layer, in chunks of awkward sizes so that runs are cut at both
    /// ends. On a CPU without AVX2 only the portable build is checked.
    fn builds_agree<G: Game, V: Value>(game: &G) {
        let mut layers = vec![Vec::new(); game.last_layer() + 1];
        sweep::<G, V>(game, Driver::Serial, &Silent, |k, values| {
            layers[k] = values.to_vec();
            Ok(())
        })
        .expect("sweep");
        type Chunk<G, V> = fn(&G, usize, u64, &mut [V], &[V]);
        let mut builds: Vec<(&str, Chunk<G, V>)> = vec![("portable", chunk_kernel::<G, V, [V]>)];
        #[cfg(target_arch = "x86_64")]
        {
            let level = x86::detected();
            if matches!(level, x86::Level::Avx2 | x86::Level::Avx512) {
                // SAFETY: the CPU has AVX2 and the rest of `chunk_avx2`'s features.
                builds.push(("avx2", |g, k, s, o, n| unsafe {
                    x86::chunk_avx2(g, k, s, o, n)
                }));
            }
            if matches!(level, x86::Level::Avx512) {
                // SAFETY: the CPU has AVX-512 and the rest of `chunk_avx512`'s features.
                builds.push(("avx512", |g, k, s, o, n| unsafe {
                    x86::chunk_avx512(g, k, s, o, n)
                }));
            }
        }
        for (name, chunk) in builds {
            for k in 0..game.last_layer() {
                let mut out = vec![V::default(); layers[k].len()];
                for (i, part) in out.chunks_mut(37).enumerate() {
                    chunk(game, k, (i * 37) as u64, part, &layers[k + 1]);
                }
                assert!(out == layers[k], "{name} build, layer {k}");
            }
        }
    }

    #[test]
    fn kernel_builds_agree_young() -> Result<()> {
        for (rows, cols) in [(5, 6), (7, 7), (4, 9)] {
            let game: Young = random_game(rows, cols, 11, 1000)?;
            // The board's own value type (what the sweep runs) and the widest.
            crate::stored::with_value_type!(value_type(&game), V => builds_agree::<_, V>(&game));
            builds_agree::<_, i64>(&game);
        }
        Ok(())
    }

    #[test]
    fn kernel_builds_agree_twins() -> Result<()> {
        for (rows, cols) in [(3, 3), (3, 4)] {
            let game: Twins = random_game(rows, cols, 5, 100)?;
            // The board's own value type (what the sweep runs) and the widest.
            crate::stored::with_value_type!(value_type(&game), V => builds_agree::<_, V>(&game));
            builds_agree::<_, i64>(&game);
        }
        Ok(())
    }

    /// A caller that asks the sweep to stop (`Progress::stopped`) gets the `interrupted`
    /// error, and `on_layer` has seen only whole layers, each equal to an uninterrupted
    /// sweep's.
    #[test]
    fn a_stopped_sweep_hands_on_whole_layers_only() -> Result<()> {
        use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
        struct StopAt {
            layer: usize,
            stop: AtomicBool,
        }
        impl Progress for StopAt {
            fn layer(&self, k: usize, _size: u64) {
                if k == self.layer {
                    self.stop.store(true, Relaxed);
                }
            }
            fn stopped(&self) -> bool {
                self.stop.load(Relaxed)
            }
        }
        let game: Young = random_game(6, 6, 3, 1000)?;
        let mut whole = vec![Vec::new(); game.last_layer() + 1];
        sweep::<Young, i32>(&game, Driver::Parallel, &Silent, |k, v| {
            whole[k] = v.to_vec();
            Ok(())
        })?;
        let progress = StopAt {
            layer: 20,
            stop: AtomicBool::new(false),
        };
        let mut seen = Vec::new();
        let stopped = sweep::<Young, i32>(&game, Driver::Parallel, &progress, |k, v| {
            assert_eq!(v, &whole[k][..], "layer {k}");
            seen.push(k);
            Ok(())
        });
        assert!(matches!(stopped, Err(Error::Other(ref m)) if m == "interrupted"));
        // Layers 36..=21 were whole; 20 was cut short and never handed on.
        assert_eq!(seen, (21..=36).rev().collect::<Vec<_>>());
        Ok(())
    }
}
