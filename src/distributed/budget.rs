//! What a build of a board over P ranks of T threads needs, each figure worked out in one
//! place: `retro plan` prints these (as text and as JSON), and a build refuses by them. On
//! one process they are the build's own estimate (`build::Estimate`, the line `retro build`
//! prints before it starts); over MPI ranks, rank 0 works them out before the build starts
//! and every rank checks its memory against the peak per rank (`distributed::run`), so that
//! what a refused build quotes is what the plan for that rank count says.

use std::path::Path;

use super::estimate::{self, Costs, LayerPlan};
use crate::build::{BuildOptions, Estimate, footprint};
use crate::error::{Error, Result};
use crate::game::{Board, Registered};
#[cfg(feature = "mpi")]
use crate::memory::human_bytes;
use crate::stored::ValueType;

/// The figures of a build over `ranks` ranks of `threads` threads each; per-rank figures
/// are the largest rank's.
#[derive(Debug, Clone)]
pub struct Figures {
    /// MPI ranks (1: a build without MPI).
    pub ranks: usize,
    /// Worker threads per rank.
    pub threads: usize,
    /// The type the solve computes values in.
    pub computed: ValueType,
    /// The type the finished table holds its values in where every value fits it: a table
    /// of values for the side to move computed wider is written again in `I8` once they
    /// are known to fit (else it stays `computed`).
    pub written: ValueType,
    /// What an entry costs a thread.
    pub costs: Costs,
    /// Each layer's figures, from the last layer down.
    pub layers: Vec<LayerPlan>,
    /// The build's estimate on one process: the table, the disk (whatever the ranks: they
    /// write one table), and on one rank the memory and the time.
    pub estimate: Estimate,
    /// Bytes of layers a rank holds at its peak.
    pub layer_memory: u64,
    /// A rank's process at its peak: its layers, the game's ranking tables, the binary
    /// (`footprint::process_bytes`).
    pub peak_memory: u64,
    /// CPU seconds of a rank, all its threads together (one process: the whole build's).
    pub cpu_seconds: f64,
    /// Seconds from start to end on `threads` threads a rank that other work does not
    /// share: the CPU time over the threads, and the traffic on the wire.
    pub wall_seconds: f64,
    /// Bytes a rank receives from the others, and sends them (the largest rank's, layer
    /// by layer).
    pub received_bytes: u64,
    /// See `received_bytes`.
    pub sent_bytes: u64,
    /// The share of a rank's entries computed twice: those of the chunks whose children
    /// are not all in the rank's own slice of the next layer, computed a first time from
    /// it and again once the other ranks' values are fetched.
    pub twice: f64,
}

impl Figures {
    /// The figures of building `game` with `options` over `ranks` ranks of `threads`
    /// threads, the network giving each rank `bytes_per_second`.
    pub fn of<G: Registered>(
        game: &G,
        ranks: usize,
        threads: usize,
        options: &BuildOptions,
        bytes_per_second: f64,
    ) -> Result<Figures> {
        if ranks > estimate::MAX_RANKS {
            return Err(Error::input(format!(
                "--ranks {ranks} is more than plan describes: at most {}",
                estimate::MAX_RANKS
            )));
        }
        let (ranks, threads) = (ranks.max(1), threads.max(1));
        let computed = crate::solve::value_type(game);
        let width = computed.width() as u64;
        let costs = estimate::costs(G::NAME, &game.board().label());
        // The free disk is not a figure of the build; the path only names its directory.
        let one = Estimate::of(game, Path::new("plan"), options)?;
        let mut layers = estimate::plan(
            game,
            ranks,
            threads,
            width,
            options.compact,
            costs,
            bytes_per_second,
        );
        for l in &mut layers {
            // Every rank count writes the one table the build sizes.
            l.disk_bytes = one.layer_bytes.get(l.k).copied().unwrap_or(l.disk_bytes);
            // One process holds what its driver holds (finished layers read back from the
            // table file, the fixpoint worker the memory allows).
            if ranks == 1 {
                l.peak_bytes = one.layer_peaks.get(l.k).copied().unwrap_or(l.peak_bytes);
            }
        }
        let written = match crate::build::stored_type(game, options) {
            _ if one.narrow_table_bytes.is_some() => ValueType::I8,
            t => t,
        };
        let bytes = |values: &dyn Fn(&LayerPlan) -> u64| {
            layers
                .iter()
                .map(|l| values(l) * width + l.told_bytes())
                .sum::<u64>()
        };
        let (received_bytes, sent_bytes) = (bytes(&|l| l.received), bytes(&|l| l.sent));
        let entries: u64 = layers.iter().map(|l| l.per_rank).sum();
        let twice = layers
            .iter()
            .map(|l| l.per_rank as f64 * l.remote_share)
            .sum::<f64>()
            / entries.max(1) as f64;
        let (layer_memory, peak_memory, cpu_seconds, wall_seconds) = match ranks {
            // One process is a build without MPI: the build's own estimate, so that the two
            // never differ.
            1 => (
                one.layer_memory,
                one.peak_memory,
                one.cpu_seconds,
                one.cpu_seconds / threads as f64,
            ),
            _ => {
                let layer_memory = layers.iter().map(|l| l.peak_bytes).max().unwrap_or(0);
                (
                    layer_memory,
                    // Rank 0 rewrites the table in one byte a value at the end, as one
                    // process does.
                    footprint::process_bytes(game, layer_memory, one.narrowing_bytes),
                    layers.iter().map(|l| l.cpu_seconds).sum(),
                    layers.iter().map(|l| l.seconds).sum(),
                )
            }
        };
        Ok(Figures {
            ranks,
            threads,
            computed,
            written,
            costs,
            layers,
            estimate: one,
            layer_memory,
            peak_memory,
            cpu_seconds,
            wall_seconds,
            received_bytes,
            sent_bytes,
            twice,
        })
    }

    /// Entries of the largest rank's slices, over all layers.
    pub fn entries_per_rank(&self) -> u64 {
        self.layers.iter().map(|l| l.per_rank).sum()
    }
}

/// Refuse a build over `ranks` ranks on a rank that has `available` bytes of memory (where
/// known) and needs more at its peak: `Figures`' `[peak_memory, layer_memory]`, which rank
/// 0 works out and sends the others.
#[cfg(feature = "mpi")]
pub fn check_rank_memory(
    ranks: usize,
    [peak, layers]: [u64; 2],
    available: Option<u64>,
) -> Result<()> {
    match available {
        Some(avail) if peak > avail => Err(Error::too_large(format!(
            "board too large for memory: each of the {ranks} ranks needs about {} at its peak ({} of layers: retro plan ... --ranks {ranks}), this rank has {} available",
            human_bytes(peak as f64),
            human_bytes(layers as f64),
            human_bytes(avail as f64)
        ))),
        _ => Ok(()),
    }
}
