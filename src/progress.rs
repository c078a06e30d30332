//! How long work (a solve, a build, an export, a verify) reports how far it has got, and how
//! its caller stops it: the [`Progress`] the work is handed; [`Silent`], which reports
//! nothing; the `interrupted` error stopped work ends with ([`check_stopped`],
//! [`is_interrupted`]); and the progress bar of the command line (indicatif's
//! `ProgressBar`).

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
