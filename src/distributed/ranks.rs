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

thread_local! {
    /// MPI, where it was started before the build to share a board read from standard
    /// input (`share_input`): the build takes it over (`Ctx::init`).
    static STARTED: RefCell<Option<Universe>> = const { RefCell::new(None) };
}

/// The error this rank printed itself while the job still ran (`print_before_leaving`):
/// `main` does not print it a second time.
static PRINTED: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Print this rank's error now, before it leaves the job: a rank that leaves with an
/// error has mpirun stop every other rank, which may not have printed its own yet.
fn print_before_leaving(e: &Error) {
    use std::io::Write;
    let line = e.to_string();
    // One write: mpirun copies each rank's writes to its own stderr as they come, so the
    // pieces of a line written in parts may come between another rank's.
    let _ = std::io::stderr().write_all(format!("error: {line}\n").as_bytes());
    if let Ok(mut printed) = PRINTED.lock() {
        *printed = Some(line);
    }
}

/// Whether `e` was printed already by the rank (`print_before_leaving`).
pub fn printed(e: &Error) -> bool {
    PRINTED
        .lock()
        .is_ok_and(|p| p.as_deref() == Some(e.to_string().as_str()))
}

/// The error of a rank that stops because `rank` failed: it was printed there, and this
/// rank leaves quietly (marked printed), with the same line kept for a library caller.
fn quiet_stop(me: usize, rank: usize) -> Error {
    let e = Error::other(format!("rank {me}: stopping because rank {rank} failed"));
    if let Ok(mut printed) = PRINTED.lock() {
        *printed = Some(e.to_string());
    }
    e
}

/// MPI started, with the threads retro needs, and a panic made to end the job.
fn start() -> Result<Universe> {
    if let Some(universe) = STARTED.with(|s| s.borrow_mut().take()) {
        return Ok(universe);
    }
    let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .ok_or_else(|| Error::other("MPI was already initialised"))?;
    if threading == mpi::Threading::Single {
        return Err(Error::other(
            "this MPI library does not allow threads (funneled support needed)",
        ));
    }
    abort_on_panic();
    Ok(universe)
}

/// A board on standard input reaches rank 0 alone (mpirun and srun give their input to
/// rank 0 only): rank 0 reads it with `read`, which also checks it, and sends its bytes to
/// every rank. MPI starts here, and the build goes on with it (`Ctx::init`). Where rank 0
/// fails, it prints its error and the others stop without a line of their own.
pub fn share_input(read: impl FnOnce() -> Result<Vec<u8>>) -> Result<Vec<u8>> {
    let universe = start()?;
    let world = universe.world();
    let rank = world.rank() as usize;
    let read = match rank {
        0 => Some(read()),
        _ => None,
    };
    let mut len = match &read {
        Some(Ok(bytes)) => bytes.len() as u64,
        Some(Err(_)) => u64::MAX,
        None => 0,
    };
    world.process_at_rank(0).broadcast_into(&mut len);
    if len == u64::MAX {
        let e = match read {
            Some(Err(e)) => {
                print_before_leaving(&e);
                e
            }
            _ => quiet_stop(rank, 0),
        };
        // Every rank leaves MPI after rank 0 has printed.
        super::run::set_stage(super::run::Stage::Done);
        world.barrier();
        drop(world);
        drop(universe);
        return Err(e);
    }
    let mut bytes = match read {
        Some(Ok(bytes)) => bytes,
        _ => vec![0; len as usize],
    };
    // MPI counts are 32-bit: in pieces of at most 1 GiB.
    for piece in bytes.chunks_mut(1 << 30) {
        world.process_at_rank(0).broadcast_into(piece);
    }
    STARTED.with(|s| *s.borrow_mut() = Some(universe));
    Ok(bytes)
}

/// The ranks agree, after `share_input`, on steps that each rank takes on its own before
/// the build (the checks of the output path, which a file system not shared could fail on
/// one rank alone): where any rank failed, each prints its error, or that it stops because
/// of the first that failed, and every rank leaves MPI. Nothing where MPI was not started
/// early.
pub fn agree_early<T>(result: Result<T>) -> Result<T> {
    let Some(universe) = STARTED.with(|s| s.borrow_mut().take()) else {
        return result;
    };
    let world = universe.world();
    let rank = world.rank() as u64;
    let mine = if result.is_err() { rank } else { u64::MAX };
    let mut first = u64::MAX;
    world.all_reduce_into(&mine, &mut first, SystemOperation::min());
    if first == u64::MAX {
        drop(world);
        STARTED.with(|s| *s.borrow_mut() = Some(universe));
        return result;
    }
    let e = match result {
        Err(e) => e.context(format!("rank {rank}")),
        Ok(_) => Error::other(format!("rank {rank}: stopping because rank {first} failed")),
    };
    super::run::set_stage(super::run::Stage::Done);
    print_before_leaving(&e);
    world.barrier();
    drop(world);
    drop(universe);
    Err(e)
}

/// After an error before the build took MPI over (`share_input`), one every rank meets at
/// the same step (the board's game refusing the options): rank 0 prints it, the others
/// stay quiet, and every rank leaves MPI (which waits for them all). Nothing where MPI was
/// not started early.
pub fn leave(e: &Error) {
    let Some(universe) = STARTED.with(|s| s.borrow_mut().take()) else {
        return;
    };
    super::run::set_stage(super::run::Stage::Done);
    match universe.world().rank() {
        0 => print_before_leaving(e),
        _ => {
            if let Ok(mut printed) = PRINTED.lock() {
                *printed = Some(e.to_string());
            }
        }
    }
    drop(universe);
}

impl Ctx {
    pub(super) fn init() -> Result<(Universe, Ctx)> {
        let universe = start()?;
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
    ///
    /// An error every rank agreed on (`agree`) is printed here, by every rank, before
    /// any leaves: a rank that ended first would have mpirun stop the others, and the
    /// error of the rank that failed would be lost (what `main` prints comes too late).
    pub(super) fn settle<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Err(e) if !self.agreed.get() => {
                eprintln!("error: rank {}: {e}", self.rank);
                self.world.abort(ABORTED)
            }
            Err(e) => {
                print_before_leaving(&e);
                self.world.barrier();
                Err(e)
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
