//! Building and solving over several MPI ranks (`--features mpi`, launched by `mpirun` or
//! `srun`).
//!
//! Every layer is cut into one contiguous slice per rank (`split`, the same on every rank,
//! never sent). Before computing its slice of layer k, a rank lists the intervals of layer
//! k + 1 its positions' children lie in (`plan`), asks their owners for them, and serves
//! the other ranks' requests from its own slice of layer k + 1 (`exchange`: all-to-all of
//! counts, then all-to-all-v of requests and of values). Then it computes its slice with
//! the single-process kernel reading the fetched intervals, and writes it in place into
//! the shared partial file, through the table's sink (`crate::build::sink`), which rank 0
//! holds as one process does. Only the main thread of a rank calls MPI: one rank's
//! view of the run and its collectives are `ranks`, the entry points `run`.
//!
//! `split`, `plan`, `estimate` and `budget` (what `retro plan` prints, and what an MPI
//! build refuses by) need no MPI and are always built.

pub mod budget;
pub mod codec;
pub mod estimate;
pub mod plan;
pub mod split;

#[cfg(feature = "mpi")]
mod exchange;
#[cfg(feature = "mpi")]
mod ranks;
#[cfg(feature = "mpi")]
mod run;

#[cfg(feature = "mpi")]
pub use ranks::{agree_early, launcher_rank, leave, printed, share_input, under_mpi};
#[cfg(feature = "mpi")]
pub use run::{DistributedReport, Stage, build_board, solve, stage};
