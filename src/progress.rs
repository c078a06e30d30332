//! How long work (a solve, a build, an export, a verify) reports how far it has got, and how
//! its caller stops it: the [`Progress`] the work is handed; [`Silent`], which reports
//! nothing; the `interrupted` error stopped work ends with ([`check_stopped`],
//! [`is_interrupted`]); the progress bar of the command line (indicatif's
//! `ProgressBar`), and rank 0's bar over every rank of an MPI build (`AllRanks`).

use crate::error::{Error, Result};

/// Reports finished work; called once per chunk from worker threads.
pub trait Progress: Sync {
    /// The sweep starts layer `k`, of `size` positions.
    fn layer(&self, _k: usize, _size: u64) {}
    /// `positions` more positions are done.
    fn advance(&self, _positions: u64) {}
    /// A layer solved to a fixpoint starts level `d`: the positions decided `d` plies from
    /// the end (called from the thread that drives the layer, once per level).
    fn level(&self, _k: usize, _d: u32) {}
    /// Whether the caller wants the work stopped (Ctrl-C in `retro build`, a library
    /// caller's own). The sweep asks once per chunk, the retrograde solver once per chunk
    /// and per level; both then stop before they hand on the layer they were computing, so
    /// every layer a build wrote is whole and the build resumes below the last one
    /// (`check_stopped`).
    fn stopped(&self) -> bool {
        false
    }
    /// The pool the layer handed on (`sweep`'s `on_layer`, the table writer, on a thread
    /// of its own) runs its parallel work on; None for rayon's global pool. A library
    /// caller whose global pool has no workers (a process forked after it started) gives
    /// one of its own.
    fn pool(&self) -> Option<&rayon::ThreadPool> {
        None
    }
}

/// The text of the error a stopped sweep ends with.
const INTERRUPTED: &str = "interrupted";

/// The error a sweep stops with when `Progress::stopped` says so.
pub fn check_stopped(progress: &dyn Progress) -> Result<()> {
    if progress.stopped() {
        return Err(Error::other(INTERRUPTED));
    }
    Ok(())
}

/// Whether `e` is the error of a stopped sweep (`check_stopped`).
pub fn is_interrupted(e: &Error) -> bool {
    matches!(e, Error::Other(m) if m == INTERRUPTED)
}

/// No reporting (tests, benchmarks, `--quiet`).
pub struct Silent;
impl Progress for Silent {}

impl Progress for indicatif::ProgressBar {
    fn layer(&self, k: usize, size: u64) {
        self.set_message(format!("layer {k} ({size} positions)"));
    }
    fn advance(&self, positions: u64) {
        self.inc(positions);
    }
    fn level(&self, k: usize, d: u32) {
        self.set_message(format!("layer {k}, level {d}"));
    }
}

/// Rank 0's progress bar over an MPI build (`distributed`): the entries of every rank. Exact at each
/// layer's start, since every rank has then finished the layers above it (a layer's
/// children are fetched from them); within a layer, rank 0's share of its own slice taken
/// for every rank's (the slices are of a size, and a fixpoint's levels keep the ranks in
/// step). The message names the layer, and the level of a fixpoint.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) struct AllRanks {
    pub(crate) bar: indicatif::ProgressBar,
    /// Each layer's entries over all ranks, and rank 0's.
    sizes: Vec<u64>,
    own: Vec<u64>,
    /// The layer under way (`usize::MAX` before the first), and rank 0's entries of it done.
    layer: std::sync::atomic::AtomicUsize,
    done: std::sync::atomic::AtomicU64,
}

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
impl AllRanks {
    pub(crate) fn new(
        sizes: Vec<u64>,
        own: Vec<u64>,
        target: indicatif::ProgressDrawTarget,
    ) -> AllRanks {
        let bar = indicatif::ProgressBar::with_draw_target(Some(sizes.iter().sum()), target);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg:28} [{bar:30}] {percent:>3}% ETA {eta}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        AllRanks {
            bar,
            sizes,
            own,
            layer: std::sync::atomic::AtomicUsize::new(usize::MAX),
            done: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Where the bar stands with rank 0 `done` entries into layer k: the layers above
    /// whole, and that share of layer k.
    fn position(&self, k: usize, done: u64) -> u64 {
        let above: u64 = self.sizes[k + 1..].iter().sum();
        let (size, own) = (self.sizes[k], self.own[k]);
        let share = match own {
            0 => 0,
            _ => (done as u128 * size as u128 / own as u128).min(size as u128) as u64,
        };
        above + share
    }
}

impl Progress for AllRanks {
    fn layer(&self, k: usize, size: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.layer.store(k, Relaxed);
        self.done.store(0, Relaxed);
        self.bar.set_position(self.position(k, 0));
        self.bar.set_message(format!("layer {k} ({size} entries)"));
    }
    fn advance(&self, positions: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        // Finished layers read back on resuming come before the first layer: its start
        // places the bar.
        let k = self.layer.load(Relaxed);
        if k < self.sizes.len() {
            let done = self.done.fetch_add(positions, Relaxed) + positions;
            self.bar.set_position(self.position(k, done));
        }
    }
    fn level(&self, k: usize, d: u32) {
        self.bar.level(k, d);
    }
}

/// A rank's stderr drawn on as a terminal (`AllRanks`): mpirun copies it to its own.
#[derive(Debug)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) struct Forwarded;

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
impl Forwarded {
    fn put(&self, s: &str) -> std::io::Result<()> {
        use std::io::Write;
        std::io::stderr().write_all(s.as_bytes())
    }

    /// The cursor `n` places in the direction ANSI's `code` names (A up, B down, C right,
    /// D left).
    fn step(&self, n: usize, code: char) -> std::io::Result<()> {
        match n {
            0 => Ok(()),
            _ => self.put(&format!("\x1b[{n}{code}")),
        }
    }
}

impl indicatif::TermLike for Forwarded {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.step(n, 'A')
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.step(n, 'B')
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.step(n, 'C')
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.step(n, 'D')
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.put(&format!("{s}\n"))
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.put(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.put("\r\x1b[2K")
    }
    fn flush(&self) -> std::io::Result<()> {
        use std::io::Write;
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bar over all ranks: the layers above a layer whole at its start, rank 0's share
    /// of its own slice scaled to the layer, never past the layer's end.
    #[test]
    fn the_bar_counts_every_rank_s_entries() {
        // Layers 0..3 of 100, 40, 10 entries; rank 0 owns 50, 20 and 10 of them.
        let hidden = indicatif::ProgressDrawTarget::hidden;
        let bar = AllRanks::new(vec![100, 40, 10], vec![50, 20, 10], hidden());
        assert_eq!(bar.position(2, 0), 0);
        assert_eq!(bar.position(2, 10), 10);
        assert_eq!(bar.position(1, 0), 10);
        assert_eq!(bar.position(1, 10), 30);
        assert_eq!(bar.position(0, 25), 100);
        assert_eq!(bar.position(0, 80), 150);
        bar.layer(1, 40);
        bar.advance(5);
        assert_eq!(bar.bar.position(), 20);
        // A rank that owns none of a layer moves the bar at the layer's ends only.
        let bar = AllRanks::new(vec![8, 4], vec![0, 4], hidden());
        assert_eq!(bar.position(0, 3), 4);
    }
}
