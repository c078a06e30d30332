//! The memory bound of a layer solved to a fixpoint: what its solve must at least do to
//! memory, with nothing computed. Per entry, `reads` random reads of a finished layer of
//! `finished` bytes (the children outside the layer, a byte a position) and `updates` random
//! atomic updates of a word array of `entries` words `width` bytes wide (the parents told),
//! the addresses of each batch of 2,048 asked for ahead of their use, as the workers do.
//!
//! cargo bench --bench fixpoint_bound                # the games' own figures (below)
//! cargo bench --bench fixpoint_bound -- ENTRIES WIDTH UPDATES READS FINISHED
//!
//! The games' figures are their largest fixpoint layer's, read off `RETRO_TRACE=1 retro build
//! ...` (its "entries, children outside read" and "parents told" lines): what the workers
//! touch, not what they compute. Prints one markdown row per board, width and thread count:
//! nanoseconds an entry (median of 3), the floor under that layer's solve.

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

/// Addresses asked for at once, ahead of their use.
const BATCH: usize = 2048;

/// A word array of one width: an atomic subtraction at `i`.
trait Words: Sync {
    fn new(n: usize) -> Self;
    fn touch(&self, i: usize);
    fn prefetch(&self, i: usize);
}

macro_rules! words {
    ($name:ident, $atomic:ty) => {
        struct $name(Vec<$atomic>);
        impl Words for $name {
            fn new(n: usize) -> Self {
                $name((0..n).map(|_| <$atomic>::new(0)).collect())
            }
            #[inline]
            fn touch(&self, i: usize) {
                self.0[i].fetch_sub(1, Relaxed);
            }
            #[inline]
            fn prefetch(&self, i: usize) {
                prefetch(&self.0[i]);
            }
        }
    };
}
words!(Bytes, AtomicU8);
words!(Halves, AtomicU16);
words!(Words32, AtomicU32);

#[inline]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p: *const T = value;
        // SAFETY: a prefetch reads no value and never faults; `p` comes from a reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// A cheap random index stream (xorshift), one per chunk of entries.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Seconds for `entries` entries of `updates` updates and `reads` reads each.
fn pass<W: Words>(words: &W, finished: &[u8], entries: usize, updates: f64, reads: f64) -> f64 {
    let start = Instant::now();
    let n = words_len(entries);
    let sum: u64 = (0..entries.div_ceil(BATCH))
        .into_par_iter()
        .map(|c| {
            let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ (c as u64 + 1);
            let first = c * BATCH;
            let len = BATCH.min(entries - first);
            let (u, r) = (
                (len as f64 * updates) as usize,
                (len as f64 * reads) as usize,
            );
            let mut at = vec![0usize; u.max(r)];
            let mut sum = 0u64;
            for a in &mut at[..r] {
                *a = next(&mut state) as usize % finished.len();
                prefetch(&finished[*a]);
            }
            for &a in &at[..r] {
                sum += finished[a] as u64;
            }
            for a in &mut at[..u] {
                *a = next(&mut state) as usize % n;
                words.prefetch(*a);
            }
            for &a in &at[..u] {
                words.touch(a);
            }
            sum
        })
        .sum();
    std::hint::black_box(sum);
    start.elapsed().as_secs_f64()
}

fn words_len(entries: usize) -> usize {
    entries.max(1)
}

fn median<W: Words>(entries: usize, finished: usize, updates: f64, reads: f64) -> f64 {
    let words = W::new(words_len(entries));
    let finished = vec![1u8; finished.max(1)];
    let mut times: Vec<f64> = (0..3)
        .map(|_| pass(&words, &finished, entries, updates, reads))
        .collect();
    times.sort_by(f64::total_cmp);
    times[1] * 1e9 / entries as f64
}

fn row(board: &str, entries: usize, finished: usize, updates: f64, reads: f64, widths: &[usize]) {
    for &width in widths {
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            let ns = pool.install(|| match width {
                1 => median::<Bytes>(entries, finished, updates, reads),
                2 => median::<Halves>(entries, finished, updates, reads),
                _ => median::<Words32>(entries, finished, updates, reads),
            });
            println!(
                "| {board} | {entries} | {updates:.2} | {reads:.2} | {width} | {threads} | {ns:.1} |"
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    println!(
        "| board | entries | updates an entry | reads an entry | word bytes | threads | ns an entry |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    if let [entries, width, updates, reads, finished] = args.as_slice() {
        let parse = |s: &String| s.parse::<f64>().expect("a number");
        row(
            "given",
            parse(entries) as usize,
            parse(finished) as usize,
            parse(updates),
            parse(reads),
            &[parse(width) as usize],
        );
        return;
    }
    // The largest fixpoint layer of each board, as `RETRO_TRACE=1` reports it: entries,
    // parents told an entry, children outside read an entry, and the finished layer's size
    // (docs/performance.md, "The two fixpoint workers").
    for &(board, entries, updates, reads, finished) in GAMES {
        row(board, entries, finished, updates, reads, &[4, 2, 1]);
    }
}

/// Board, entries, updates an entry, reads an entry, bytes of the finished layers read.
const GAMES: &[(&str, usize, f64, f64, usize)] = &[
    // Standard Teeko's movement layer: no move leaves it.
    ("teeko 5x5s4, layer 8", 9_469_965, 6.87, 0.0, 1),
    // Quixo 4 x 4's largest layer; its children outside are in i16 values.
    ("quixo 4x4, layer 41", 505_284, 8.77, 8.89, 2 * 505_284),
    // Six men's morris's largest movement layer, its captures read at a byte a value.
    ("morris six, layer 71", 253_032, 4.20, 1.12, 253_032),
    // `nine stones=6 moving`'s largest layer (solved last); its captures read layer 1.
    (
        "morris nine stones=6 moving, layer 0",
        156_229_360,
        1.33,
        1.96,
        144_232_144,
    ),
];
