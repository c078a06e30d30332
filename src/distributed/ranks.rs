//! One rank's view of an MPI run (`Ctx`): start-up, the collectives, and the solve
//! driver's `Ranks` over them (slices cut in whole blocks, children fetched with two
//! all-to-alls, a fixpoint level's tells traded with one); what one rank saw (`Stats`);
//! and what makes a failing rank end the job rather than hang it.

use std::cell::{Cell, RefCell};
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::exchange::{self, MAX_MESSAGE, Traffic};
use super::split;
use crate::error::{Error, Result};
use crate::solve::{Ranks, children::Span};
use crate::stored::Value;

/// Whether this process was started by an MPI launcher (Open MPI's mpirun, a PMI or PMIx
/// launcher such as MPICH's or Slurm's srun) with other ranks beside it. Checked from the
/// environment so that a plain `retro build` never initialises MPI. A job of one rank (the
/// launcher says so) takes the plain process's path, byte for byte the same table: with no
/// one to exchange with, MPI would only add its own costs.
pub fn under_mpi() -> bool {
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    launched && launcher_size() != Some(1)
}

/// The number of ranks the launcher started, where its environment says (Open MPI, PMI,
/// Slurm); None where it does not (a PMIx launcher other than these).
fn launcher_size() -> Option<u64> {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "SLURM_STEP_NUM_TASKS",
        "SLURM_NTASKS",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// This process's rank as its launcher gives it (Open MPI's, PMI's or PMIx's variable),
/// before MPI is initialised; None where none says it.
pub fn launcher_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// One rank's view of the run. Every method is collective: all ranks call it, in the same
/// order, from the main thread.
pub(super) struct Ctx {
    pub(super) world: SimpleCommunicator,
    pub(super) rank: usize,
    pub(super) size: usize,
    pub(super) max_message: u64,
    /// What this rank's exchanges moved, and the time they took.
    pub(super) stats: RefCell<Stats>,
    /// Whether an error was shared with every rank (`agree`): then all ranks return it
    /// together; any other error must abort the job (`settle`).
    pub(super) agreed: Cell<bool>,
}

/// Exit code of a job a rank aborts.
pub(super) const ABORTED: i32 = 70;

impl Ctx {
    pub(super) fn init() -> Result<(Universe, Ctx)> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .ok_or_else(|| Error::other("MPI was already initialised"))?;
        if threading == mpi::Threading::Single {
            return Err(Error::other(
                "this MPI library does not allow threads (funneled support needed)",
            ));
        }
        abort_on_panic();
        let world = universe.world();
        let max_message = std::env::var("RETRO_MPI_MAX_MESSAGE")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&m: &u64| m > 0)
            .unwrap_or(MAX_MESSAGE)
            .min(MAX_MESSAGE);
        let ctx = Ctx {
            rank: world.rank() as usize,
            size: world.size() as usize,
            world,
            max_message,
            stats: RefCell::default(),
            agreed: Cell::new(false),
        };
        Ok((universe, ctx))
    }

    /// The end of a run on this rank. An error the other ranks have not heard of would
    /// leave them waiting in their next collective and this rank in MPI_Finalize waiting
    /// for them: it aborts the job instead.
    pub(super) fn settle<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Err(e) if !self.agreed.get() => {
                eprintln!("error: rank {}: {e}", self.rank);
                self.world.abort(ABORTED)
            }
            other => other,
        }
    }

    /// Every rank learns whether any failed. A failure is reported with its rank; the
    /// other ranks stop with a line naming it, instead of waiting in the next collective.
    pub(super) fn agree<T>(&self, result: Result<T>) -> Result<T> {
        let mine = if result.is_err() {
            self.rank as u64
        } else {
            u64::MAX
        };
        let first = self.min(mine);
        self.agreed.set(first != u64::MAX);
        match result {
            Err(e) => Err(e.context(format!("rank {}", self.rank))),
            Ok(_) if first != u64::MAX => Err(Error::other(format!(
                "rank {}: stopping because rank {first} failed",
                self.rank
            ))),
            Ok(v) => Ok(v),
        }
    }

    pub(super) fn reduce(&self, x: u64, op: SystemOperation) -> u64 {
        let mut out = 0u64;
        self.world.all_reduce_into(&x, &mut out, op);
        out
    }
    pub(super) fn min(&self, x: u64) -> u64 {
        self.reduce(x, SystemOperation::min())
    }
    pub(super) fn max(&self, x: u64) -> u64 {
        self.reduce(x, SystemOperation::max())
    }
    pub(super) fn sum(&self, x: u64) -> u64 {
        self.reduce(x, SystemOperation::sum())
    }
    /// Sum over lower ranks (0 on rank 0, where MPI leaves it undefined).
    pub(super) fn exscan(&self, x: u64) -> u64 {
        let mut out = 0u64;
        self.world
            .exclusive_scan_into(&x, &mut out, SystemOperation::sum());
        if self.rank == 0 { 0 } else { out }
    }
    /// Every rank's `values`, in rank order, on every rank.
    pub(super) fn all_gather(&self, values: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; values.len() * self.size];
        self.world.all_gather_into(values, &mut out[..]);
        out
    }
    pub(super) fn broadcast(&self, values: &mut [u64]) {
        self.world.process_at_rank(0).broadcast_into(values);
    }
}

/// A panic unwinding on one rank would reach MPI_Finalize (the `Universe`'s drop), which
/// waits for ranks that wait in a collective for this one: mpirun would never end. After
/// the usual message, the hook aborts the job.
pub(super) fn abort_on_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        SimpleCommunicator::world().abort(ABORTED);
    }));
}

/// Test hook: `RETRO_MPI_TEST_FAIL=R:panic` or `R:error` makes rank R fail at its first
/// layer, without telling the other ranks.
pub(super) fn test_failure(rank: usize) -> Result<()> {
    let Ok(hook) = std::env::var("RETRO_MPI_TEST_FAIL") else {
        return Ok(());
    };
    match hook.split_once(':') {
        Some((r, how)) if r.parse() == Ok(rank) => match how {
            "panic" => panic!("rank {rank}: failing as RETRO_MPI_TEST_FAIL asks"),
            _ => Err(Error::other("failing as RETRO_MPI_TEST_FAIL asks")),
        },
        _ => Ok(()),
    }
}

/// What one rank saw; reduced over ranks at the end.
#[derive(Debug, Default)]
pub(super) struct Stats {
    pub(super) traffic: Traffic,
    /// Collective exchanges (fetches of children, trades of a fixpoint level's updates).
    pub(super) exchanges: u64,
    /// Seconds in them, waiting for the other ranks included.
    pub(super) exchange: f64,
}

/// The solve driver's ranks, over MPI: slices cut in whole blocks (`split`), children
/// fetched with two all-to-alls, a level's updates traded with one.
impl Ranks for Ctx {
    fn count(&self) -> usize {
        self.size
    }
    fn rank(&self) -> usize {
        self.rank
    }
    fn bounds(&self, positions: u64) -> Vec<u64> {
        split::bounds(positions, self.size)
    }
    fn fetch<V: Value>(&self, positions: u64, spans: &[Span], mine: &[V]) -> Result<Vec<V>> {
        let t = Instant::now();
        let fetched = exchange::fetch(&self.world, spans, positions, mine, self.max_message);
        let (values, traffic, _) = Ctx::agree(self, fetched)?;
        let mut stats = self.stats.borrow_mut();
        stats.traffic.sent += traffic.sent;
        stats.traffic.received += traffic.received;
        stats.exchanges += 1;
        stats.exchange += t.elapsed().as_secs_f64();
        Ok(values)
    }
    /// Each other rank's tells go delta-coded (`codec`): sorted, a varint gap and a byte
    /// each, about a quarter of their eight bytes. This rank's own stay here.
    fn trade(&self, buckets: Vec<Vec<u64>>) -> Result<Vec<u64>> {
        if self.size == 1 {
            return Ok(buckets.into_iter().flatten().collect());
        }
        let t = Instant::now();
        let mut own = Vec::new();
        let mut counts = vec![0u64; self.size];
        let mut send: Vec<u8> = Vec::new();
        let mut sent_tells = 0;
        for (r, mut bucket) in buckets.into_iter().enumerate() {
            if r == self.rank {
                own = bucket;
                continue;
            }
            let before = send.len();
            sent_tells += bucket.len();
            super::codec::encode(&mut bucket, &mut send);
            counts[r] = (send.len() - before) as u64;
        }
        let received = exchange::all_to_all_v(&self.world, &send, &counts, self.max_message);
        let mut told = own;
        super::codec::decode(&received, self.size - 1, &mut told)
            .map_err(|e| Error::other(format!("a level's tells from another rank: {e}")))?;
        if std::env::var_os("RETRO_TRACE").is_some() {
            let tells: u64 = (0..self.size)
                .filter(|&r| r != self.rank)
                .map(|r| counts[r])
                .sum();
            eprintln!(
                "rank {}: traded {sent_tells} tells in {} bytes, received {} tells in {} bytes",
                self.rank,
                tells,
                told.len(),
                received.len()
            );
        }
        let mut stats = self.stats.borrow_mut();
        stats.traffic.sent += send.len() as u64;
        stats.traffic.received += received.len() as u64;
        stats.exchanges += 1;
        stats.exchange += t.elapsed().as_secs_f64();
        Ok(told)
    }
    fn any(&self, local: bool) -> bool {
        self.max(local as u64) == 1
    }
    fn min(&self, local: u64) -> u64 {
        Ctx::min(self, local)
    }
    fn max(&self, local: u64) -> u64 {
        Ctx::max(self, local)
    }
    fn agree<T>(&self, result: Result<T>) -> Result<T> {
        Ctx::agree(self, result)
    }
    fn scan(&self, local: u64) -> (u64, u64) {
        (self.exscan(local), self.sum(local))
    }
    fn broadcast(&self, values: &mut [u64]) {
        Ctx::broadcast(self, values)
    }
}
