//! `retro build` and `retro solve` under MPI: the distributed sweep and its entry points.

use std::cell::Cell;
use std::io::IsTerminal;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::thread::ScopedJoinHandle;
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use rayon::prelude::*;

use super::exchange::{self, MAX_MESSAGE, Traffic};
use super::plan;
use super::split;
use super::writer::{self, HeaderOwner, Shared};
use crate::error::{Error, Result, io_error};
use crate::game::{AnyBoard, Game, Gameplay, Registered};
use crate::job::{BuildOptions, Estimate};
use crate::memory::peak_rss;
use crate::progress::{Progress, Silent};
use crate::solve::sweep::{self, CHUNK};
use crate::table::blocks::{self, BLOCK, DIR_ENTRY, SLACK};
use crate::table::header::{Encoding, Header};
use crate::table::reader::Table;
use crate::table::writer::partial_path;
use crate::value::Value;

/// Whether this process was started by an MPI launcher (Open MPI's mpirun, a PMI or PMIx
/// launcher such as MPICH's or Slurm's srun). Checked from the environment so that a plain
/// `retro build` never initialises MPI.
pub fn under_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// The refusal of a game the placement sweep does not solve whole (`solve::beyond_sweep`): its layers are solved to
/// a fixpoint in one process; the distributed sweep computes a layer in one pass. Said as
/// `refused` says it.
pub fn refuse_moving(game: &str) -> Error {
    refused(Error::input(format!(
        "{game}: MPI builds do not take games whose stones move yet (their layers are solved to a fixpoint in one process); run retro without mpirun"
    )))
}

/// A request every rank refuses before MPI is started: rank 0 says it, in one line; the
/// other ranks, which the launcher numbers in the environment, exit with the same code
/// without a word.
pub fn refused(error: Error) -> Error {
    let rank = ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok())
        .and_then(|r| r.parse::<u64>().ok())
        .unwrap_or(0);
    if rank != 0 {
        std::process::exit(error.exit_code());
    }
    error
}

/// One rank's view of the run. Every method is collective: all ranks call it, in the same
/// order, from the main thread.
struct Ctx {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    max_message: u64,
    /// Whether an error was shared with every rank (`agree`): then all ranks return it
    /// together; any other error must abort the job (`settle`).
    agreed: Cell<bool>,
}

/// Exit code of a job a rank aborts.
const ABORTED: i32 = 70;

impl Ctx {
    fn init() -> Result<(Universe, Ctx)> {
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
            agreed: Cell::new(false),
        };
        Ok((universe, ctx))
    }

    /// The end of a run on this rank. An error the other ranks have not heard of would
    /// leave them waiting in their next collective and this rank in MPI_Finalize waiting
    /// for them: it aborts the job instead.
    fn settle<T>(&self, result: Result<T>) -> Result<T> {
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
    fn agree<T>(&self, result: Result<T>) -> Result<T> {
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

    fn reduce(&self, x: u64, op: SystemOperation) -> u64 {
        let mut out = 0u64;
        self.world.all_reduce_into(&x, &mut out, op);
        out
    }
    fn min(&self, x: u64) -> u64 {
        self.reduce(x, SystemOperation::min())
    }
    fn max(&self, x: u64) -> u64 {
        self.reduce(x, SystemOperation::max())
    }
    fn sum(&self, x: u64) -> u64 {
        self.reduce(x, SystemOperation::sum())
    }
    /// Sum over lower ranks (0 on rank 0, where MPI leaves it undefined).
    fn exscan(&self, x: u64) -> u64 {
        let mut out = 0u64;
        self.world
            .exclusive_scan_into(&x, &mut out, SystemOperation::sum());
        if self.rank == 0 { 0 } else { out }
    }
    fn broadcast(&self, values: &mut [u64]) {
        self.world.process_at_rank(0).broadcast_into(values);
    }
}

/// A panic unwinding on one rank would reach MPI_Finalize (the `Universe`'s drop), which
/// waits for ranks that wait in a collective for this one: mpirun would never end. After
/// the usual message, the hook aborts the job.
fn abort_on_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        SimpleCommunicator::world().abort(ABORTED);
    }));
}

/// Test hook: `RETRO_MPI_TEST_FAIL=R:panic` or `R:error` makes rank R fail at its first
/// layer, without telling the other ranks.
fn test_failure(rank: usize) -> Result<()> {
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
struct Stats {
    traffic: Traffic,
    /// Bytes of layer buffers (own slices, fetched children, staging) at their peak.
    peak_buffers: u64,
    plan: f64,
    wait: f64,
    exchange: f64,
    compute: f64,
    write: f64,
    checksum: f64,
    /// Chunks of the slices computed with fetched children, of all chunks (layers below
    /// the full one).
    remote_chunks: u64,
    chunks: u64,
}

/// The distributed sweep from layer `top - 1` down to 0; `mine` is this rank's slice of
/// layer `top` (empty when `top` is past the full layer). `on_layer` sees each finished
/// slice on the main thread; it may keep the slice (shared) while the sweep goes on.
/// On the layers where `moves_at` says so (a table of best moves) it also gets the
/// slice's best moves (`table::moves::best_moves`), derived while the children's values
/// are at hand. Returns the value of the empty board on every rank.
#[allow(clippy::too_many_arguments)]
fn sweep<G: Game, V: Value + Equivalence>(
    ctx: &Ctx,
    game: &G,
    top: usize,
    mut mine: Arc<Vec<V>>,
    progress: &dyn Progress,
    stats: &mut Stats,
    moves_at: impl Fn(usize) -> bool,
    mut on_layer: impl FnMut(
        usize,
        &Range<u64>,
        &Arc<Vec<V>>,
        Option<Vec<u8>>,
        &mut Stats,
    ) -> Result<()>,
) -> Result<i64> {
    let width = std::mem::size_of::<V>() as u64;
    let cells = game.last_layer();
    test_failure(ctx.rank)?;
    let mut speculate = true;
    for k in (0..top).rev() {
        let n = game.layer_size(k);
        progress.layer(k, n);
        game.prepare_layer(k);
        let slice = split::slice(n, ctx.size, ctx.rank);
        let mut out = vec![V::default(); (slice.end - slice.start) as usize];
        let mut moves = None;
        if k == cells {
            let t = Instant::now();
            compute(game, k, &slice, &mut out, &[] as &[V]);
            stats.compute += t.elapsed().as_secs_f64();
        } else if ctx.size == 1 {
            // The own slice is the whole next layer: the single-process kernel, nothing to
            // plan or fetch.
            let t = Instant::now();
            compute(game, k, &slice, &mut out, &mine[..]);
            if moves_at(k) {
                moves = Some(ctx.agree(best_moves(game, k, &slice, &out, &mine[..]))?);
            }
            stats.compute += t.elapsed().as_secs_f64();
            let held = (mine.len() + out.len()) as u64 * width;
            stats.peak_buffers = stats.peak_buffers.max(held);
        } else {
            let next = game.layer_size(k + 1);
            let own = split::slice(next, ctx.size, ctx.rank);
            let marks = plan::blank_marks(next);
            let piece = CHUNK;
            let chunks = out.len().div_ceil(piece);
            // First pass: either compute every chunk from the own slice, marking what
            // the chunks that leave it need, or (where the last layer's chunks mostly
            // left it, so they would all be computed twice) only plan.
            let t = Instant::now();
            let (deferred, remote) = if speculate {
                let placeholder = vec![V::default(); CHUNK];
                let deferred = first_pass(
                    game,
                    k,
                    piece,
                    &slice,
                    &mut out,
                    &mine,
                    own.start,
                    &placeholder,
                    &marks,
                );
                stats.compute += t.elapsed().as_secs_f64();
                let remote = deferred.iter().filter(|&&d| d).count();
                (deferred, remote)
            } else {
                let remote = plan::plan_chunks(game, k, slice.clone(), piece, own.clone(), &marks);
                stats.plan += t.elapsed().as_secs_f64();
                // Every chunk is computed in the second pass.
                (vec![true; chunks], remote)
            };
            stats.remote_chunks += remote as u64;
            stats.chunks += chunks as u64;
            let t = Instant::now();
            let mut marks: Vec<u64> = marks.into_iter().map(AtomicU64::into_inner).collect();
            plan::keep_fetched(&mut marks, &own, next);
            let spans = plan::spans(&marks, next);
            stats.plan += t.elapsed().as_secs_f64();
            // Waiting for the slowest rank to finish its first pass, apart from the
            // exchange itself.
            let t = Instant::now();
            ctx.world.barrier();
            stats.wait += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let fetched = exchange::fetch(&ctx.world, &spans, next, &mine, ctx.max_message);
            let (values, traffic, served) = ctx.agree(fetched)?;
            drop(spans);
            stats.exchange += t.elapsed().as_secs_f64();
            stats.traffic.sent += traffic.sent;
            stats.traffic.received += traffic.received;
            let held = (mine.len() + values.len()) as u64 * width;
            stats.peak_buffers = stats
                .peak_buffers
                .max(held + served)
                .max(held + out.len() as u64 * width);
            let t = Instant::now();
            let fetched = plan::Fetched::new(&mine, own.start, marks, values);
            second_pass(game, k, piece, &slice, &mut out, &fetched, &deferred);
            if moves_at(k) {
                moves = Some(ctx.agree(best_moves(game, k, &slice, &out, &fetched))?);
            }
            stats.compute += t.elapsed().as_secs_f64();
            // Speculate on the next layer unless most of this one's chunks needed
            // fetched children (twins, mnk: children scatter over the whole next layer).
            speculate = remote * 2 <= chunks;
        }
        mine = Arc::new(out);
        on_layer(k, &slice, &mine, moves, stats)?;
        progress.advance(n);
    }
    let root = match split::slice(game.layer_size(0), ctx.size, ctx.rank).is_empty() {
        true => i64::MIN,
        false => mine.first().map_or(i64::MIN, |v| v.to_i64()),
    };
    Ok(ctx.max((root as u64) ^ (1 << 63)) as i64 ^ i64::MIN)
}

/// This rank's slice of layer `k`, in chunks on the rank's rayon pool.
fn compute<G: Game, V: Value, C: sweep::ChildValues<V> + Sync + ?Sized>(
    game: &G,
    k: usize,
    slice: &Range<u64>,
    out: &mut [V],
    next: &C,
) {
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(i, chunk)| {
            sweep::compute_chunk(game, k, slice.start + (i * CHUNK) as u64, chunk, next);
        });
}

/// The best moves of this rank's slice of layer `k` (values `out`), children read
/// through `next`.
fn best_moves<G: Game, V: Value, C: sweep::ChildValues<V> + Sync + ?Sized>(
    game: &G,
    k: usize,
    slice: &Range<u64>,
    out: &[V],
    next: &C,
) -> Result<Vec<u8>> {
    let mut moves = vec![0u8; out.len()];
    crate::table::moves::best_moves_of(game, k, slice.start, out, next, &mut moves)?;
    Ok(moves)
}

/// The first pass over this rank's slice of layer `k`: every chunk computed from the own
/// slice `mine` of layer k + 1 (from `own_start`), the grains of the children outside
/// it marked in `marks`. Returns, per chunk, whether it needs them (its values are then
/// placeholders' until `second_pass`).
#[allow(clippy::too_many_arguments)]
fn first_pass<G: Game, V: Value>(
    game: &G,
    k: usize,
    piece: usize,
    slice: &Range<u64>,
    out: &mut [V],
    mine: &[V],
    own_start: u64,
    placeholder: &[V],
    marks: &[AtomicU64],
) -> Vec<bool> {
    out.par_chunks_mut(piece)
        .enumerate()
        .map(|(i, chunk)| {
            let local = plan::Local::new(mine, own_start, placeholder, marks);
            sweep::compute_chunk(game, k, slice.start + (i * piece) as u64, chunk, &local);
            local.finish()
        })
        .collect()
}

/// The chunks of this rank's slice of layer `k` marked in `deferred`, computed from the
/// own slice and the fetched values.
fn second_pass<G: Game, V: Value>(
    game: &G,
    k: usize,
    piece: usize,
    slice: &Range<u64>,
    out: &mut [V],
    next: &plan::Fetched<'_, V>,
    deferred: &[bool],
) {
    out.par_chunks_mut(piece)
        .zip(deferred.par_iter())
        .enumerate()
        .filter(|(_, (_, d))| **d)
        .for_each(|(i, (chunk, _))| {
            sweep::compute_chunk(game, k, slice.start + (i * piece) as u64, chunk, next);
        });
}

/// `retro solve` under MPI: the contest answer, on rank 0 (None on the other ranks).
pub fn solve<G: Gameplay>(game: &G) -> Result<Option<String>> {
    let (_universe, ctx) = Ctx::init()?;
    let solved = (|| {
        let vt = crate::solve::value_type(game);
        let value = crate::with_value_type!(vt, V => sweep::<_, V>(&ctx, game, game.last_layer() + 1, Arc::default(), &Silent, &mut Stats::default(), |_| false, |_, _, _, _, _| Ok(())))?;
        Ok((ctx.rank == 0).then(|| game.contest_answer(value)))
    })();
    ctx.settle(solved)
}

/// What a distributed build did, as rank 0 saw it (the largest rank's figures where each
/// rank has its own).
#[derive(Debug, Clone)]
pub struct DistributedReport {
    /// The build's figures as one process reports them.
    pub build: crate::job::BuildReport,
    /// The root's value in words.
    pub root_text: String,
    /// Ranks, and threads per rank.
    pub ranks: usize,
    /// Threads per rank.
    pub threads: usize,
    /// Bytes sent between ranks, over all ranks.
    pub bytes_exchanged: u64,
    /// The largest rank's layer buffers at their peak.
    pub peak_buffers: u64,
    /// Rank 0's seconds in each part of the build.
    pub split: Split,
}

/// Rank 0's seconds per part of a distributed build.
#[derive(Debug, Clone, Copy, Default)]
pub struct Split {
    /// Working out which values to fetch.
    pub plan: f64,
    /// Waiting, before an exchange, for the other ranks' first passes.
    pub wait: f64,
    /// Exchanging values between ranks (their requests, then the values).
    pub exchange: f64,
    /// Computing the slice's values.
    pub compute: f64,
    /// Writing the slice.
    pub write: f64,
    /// Hashing the layers back from the file.
    pub checksum: f64,
    /// The share of rank 0's chunks (below the full layer) that needed fetched children.
    pub remote_chunks: f64,
    /// The most seconds any rank spent computing: what rank 0's exchange waited for.
    pub slowest_compute: f64,
    /// The largest share of any rank's chunks that needed fetched children.
    pub most_remote_chunks: f64,
}

/// `retro build` under MPI: the table at `path`, byte for byte what one process writes.
/// Rank 0 returns the report; the other ranks return None.
pub fn build<G: Registered>(
    game: &G,
    path: &Path,
    options: &BuildOptions,
    quiet: bool,
) -> Result<Option<DistributedReport>> {
    let (_universe, ctx) = Ctx::init()?;
    let start = Instant::now();
    // Rank 0's bar counts whole layers as they finish.
    let bar = (ctx.rank == 0 && !quiet && std::io::stderr().is_terminal()).then(|| {
        let total = game.total_positions();
        indicatif::ProgressBar::new(total)
    });
    let progress: &dyn Progress = match &bar {
        Some(bar) => bar,
        None => &Silent,
    };
    let vt = crate::solve::value_type(game);
    let result = crate::with_value_type!(vt, V => build_layers::<_, V>(&ctx, game, path, options, progress, start));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    ctx.settle(result)
}

/// A build's finished layers on their way to disk. Each rank writes its slice of a layer on
/// a thread while the sweep computes the next one; once every rank has written it (the
/// agreement in `settle`), rank 0 hashes the layer back from the file and records it in
/// the header, on a thread too. Only the main thread calls MPI.
struct Layers<'s, 'e> {
    scope: &'s std::thread::Scope<'s, 'e>,
    file: &'e Shared,
    /// Rank 0's header, while no thread has it.
    owner: Option<HeaderOwner>,
    /// This rank's write of layer k at `offset`, `bytes` long in all.
    writing: Option<(usize, u64, u64, ScopedJoinHandle<'s, Result<()>>)>,
    /// Rank 0 hashing a layer; the header comes back with the result.
    hashing: Option<ScopedJoinHandle<'s, (HeaderOwner, Result<()>)>>,
    /// Where the next layer starts.
    end: u64,
    stop_after: Option<usize>,
}

impl<'s, 'e: 's> Layers<'s, 'e> {
    /// Wait for the layer being written, on every rank, then hand it to rank 0's hashing.
    /// Collective.
    fn settle(&mut self, ctx: &Ctx, stats: &mut Stats) -> Result<()> {
        let Some((k, offset, bytes, writing)) = self.writing.take() else {
            return Ok(());
        };
        let t = Instant::now();
        let written = writing
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        stats.write += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let hashed = self.hashed();
        ctx.agree(written.and(hashed))?;
        stats.checksum += t.elapsed().as_secs_f64();
        if let Some(mut o) = self.owner.take() {
            let file = self.file;
            self.hashing = Some(self.scope.spawn(move || {
                let recorded = (|| {
                    let checksum = file.checksum(offset, bytes)?;
                    let entry = &mut o.header.layers[k];
                    entry.offset = offset;
                    entry.bytes = bytes;
                    entry.checksum = checksum;
                    o.write(&file.file, &file.partial, offset + bytes)?;
                    file.sync()
                })();
                (o, recorded)
            }));
        }
        if self.stop_after == Some(k) {
            let hashed = self.hashed();
            ctx.agree(hashed)?;
            return Err(Error::other(format!(
                "rank {}: stopped after layer {k} (test hook); {} holds the finished layers",
                ctx.rank,
                self.file.partial.display()
            )));
        }
        Ok(())
    }

    /// Rank 0: wait for the layer being hashed and take the header back.
    fn hashed(&mut self) -> Result<()> {
        match self.hashing.take() {
            Some(h) => {
                let (o, recorded) = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                self.owner = Some(o);
                recorded
            }
            None => Ok(()),
        }
    }

    /// Start writing this rank's slice of layer `k` (`positions` long). Collective.
    #[allow(clippy::too_many_arguments)]
    fn start<V: Value>(
        &mut self,
        ctx: &Ctx,
        k: usize,
        positions: u64,
        encoding: Encoding,
        slice: &Range<u64>,
        values: &Arc<Vec<V>>,
        moves: Option<Vec<u8>>,
        stats: &mut Stats,
    ) -> Result<()> {
        let t = Instant::now();
        let (file, end, width) = (self.file, self.end, V::TYPE.width() as u64);
        let (bytes, writing) = match encoding {
            Encoding::Plain => {
                let (values, slice) = (Arc::clone(values), slice.clone());
                let writing = self.scope.spawn(move || {
                    file.write_plain(end, &slice, &values)?;
                    file.sync()
                });
                (positions * width, writing)
            }
            // A layer of best moves is blocks of move indices, as compact values are.
            Encoding::Blocked | Encoding::Moves { .. } => {
                let (data, dir) = match &moves {
                    Some(moves) => writer::pack_blocks(moves, |&m| i64::from(m)),
                    None => writer::pack_blocks(values, |v| v.to_i64()),
                };
                let moves_bytes = moves.map_or(0, |m| m.len() as u64);
                stats.peak_buffers = stats
                    .peak_buffers
                    .max(values.len() as u64 * width + moves_bytes + data.len() as u64);
                let data_at = ctx.exscan(data.len() as u64);
                let total = ctx.sum(data.len() as u64);
                let dir_at = end + blocks::directory_entry_at(total, slice.start);
                let mut entries = Vec::with_capacity(dir.len() * DIR_ENTRY);
                for &(min, at, w) in &dir {
                    entries.extend_from_slice(&blocks::dir_entry(min, data_at + at, w));
                }
                let first = ctx.rank == 0;
                let writing = self.scope.spawn(move || {
                    file.write_at(&data, end + data_at)?;
                    file.write_at(&entries, dir_at)?;
                    if first {
                        file.write_at(&[0u8; SLACK], end + total)?;
                    }
                    file.sync()
                });
                (writer::compact_layer_bytes(positions, total), writing)
            }
        };
        self.writing = Some((k, end, bytes, writing));
        self.end += bytes;
        stats.write += t.elapsed().as_secs_f64();
        Ok(())
    }
}

/// Where a resumed or fresh build starts, as rank 0 found it.
const NO_LAYER: u64 = u64::MAX;

#[allow(clippy::too_many_arguments)]
fn build_layers<G: Registered, V: Value + Equivalence>(
    ctx: &Ctx,
    game: &G,
    path: &Path,
    options: &BuildOptions,
    progress: &dyn Progress,
    start: Instant,
) -> Result<Option<DistributedReport>> {
    let sizes: Vec<u64> = (0..=game.last_layer())
        .map(|k| game.layer_size(k))
        .collect();
    let encoding = options.encoding()?;
    let partial = partial_path(path);
    let check = partial_path(&partial);
    // Rank 0 checks the disk, creates or resumes the partial file, and leaves a token
    // beside it that every rank must read back: ranks that do not share the file system
    // would otherwise each build a different file.
    let token = std::process::id() as u64
        ^ (start.elapsed().as_nanos() as u64).rotate_left(32)
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
    let mut owner = None;
    let opened = if ctx.rank == 0 {
        (|| {
            Estimate::of(game, path, options)?.check_disk(path, options)?;
            let wanted = Header::blank(AnyBoard::of(game), V::TYPE, encoding, &sizes);
            let (o, end, resume) = writer::create_or_resume::<G>(path, wanted, options.fresh)?;
            std::fs::write(&check, token.to_le_bytes()).map_err(|e| io_error(&check, e))?;
            owner = Some(o);
            Ok([end, resume.map_or(NO_LAYER, |l| l as u64), token])
        })()
    } else {
        Ok([0; 3])
    };
    let mut shared = ctx.agree(opened)?;
    ctx.broadcast(&mut shared);
    let [mut end, resume, token] = shared;
    let seen = std::fs::read(&check).ok();
    let same = seen.as_deref() == Some(&token.to_le_bytes()[..]);
    let opened = match same {
        true => Shared::open(path),
        false => Err(Error::other(format!(
            "{} is not on a file system this rank shares with rank 0; MPI builds need the table's directory on a shared file system",
            partial.display()
        ))),
    };
    let file = ctx.agree(opened)?;
    if ctx.rank == 0 {
        let _ = std::fs::remove_file(&check);
    }
    let (top, mine) = match resume {
        NO_LAYER => (game.last_layer() + 1, Arc::default()),
        l => {
            let l = l as usize;
            let slice = split::slice(sizes[l], ctx.size, ctx.rank);
            let read = (|| {
                let table = Table::open_partial::<G>(&partial)?;
                let mut values = Vec::with_capacity((slice.end - slice.start) as usize);
                let step = (BLOCK * 256) as u64;
                let mut at = slice.start;
                while at < slice.end {
                    let n = step.min(slice.end - at) as usize;
                    values.extend(table.read_range(l, at, n)?.into_iter().map(V::from_i64));
                    at += n as u64;
                }
                Ok(values)
            })();
            progress.advance(sizes[l..].iter().sum());
            (l, Arc::new(ctx.agree(read)?))
        }
    };
    let mut stats = Stats::default();
    let root_value = std::thread::scope(|scope| -> Result<i64> {
        let mut layers = Layers {
            scope,
            file: &file,
            owner: owner.take(),
            writing: None,
            hashing: None,
            end,
            stop_after: options.stop_after,
        };
        let root = sweep::<G, V>(
            ctx,
            game,
            top,
            mine,
            progress,
            &mut stats,
            |k| !encoding.stores_values(k, game.last_layer()),
            |k, slice, values, moves, stats| {
                layers.settle(ctx, stats)?;
                layers.start(ctx, k, sizes[k], encoding, slice, values, moves, stats)
            },
        )?;
        layers.settle(ctx, &mut stats)?;
        let t = Instant::now();
        let hashed = layers.hashed();
        ctx.agree(hashed)?;
        stats.checksum += t.elapsed().as_secs_f64();
        owner = layers.owner.take();
        end = layers.end;
        Ok(root)
    })?;
    let finished = match &mut owner {
        Some(o) => (|| {
            // Never seal a table whose bytes no longer match what the ranks wrote.
            for (k, l) in o.header.layers.iter().enumerate() {
                if file.checksum(l.offset, l.bytes)? != l.checksum {
                    return Err(Error::corrupt(format!(
                        "{}: layer {k} no longer matches what this build wrote; the table is not sealed: run the same command again with --fresh",
                        partial.display()
                    )));
                }
            }
            o.header.checksum = Header::combined_checksum(&o.header.layers);
            o.write(&file.file, &partial, end)?;
            file.file.sync_all().map_err(|e| io_error(&partial, e))?;
            o.cut(&file.file, &partial, end)?;
            file.file.sync_all().map_err(|e| io_error(&partial, e))?;
            std::fs::rename(&partial, path).map_err(|e| io_error(path, e))
        })(),
        None => Ok(()),
    };
    ctx.agree(finished)?;
    let positions: u64 = sizes.iter().sum();
    let sent = ctx.sum(stats.traffic.sent);
    let peak_buffers = ctx.max(stats.peak_buffers);
    // Non-negative f64s order as their bits do.
    let slowest_compute = f64::from_bits(ctx.max(stats.compute.to_bits()));
    let remote_share = stats.remote_chunks as f64 / stats.chunks.max(1) as f64;
    let most_remote_chunks = f64::from_bits(ctx.max(remote_share.to_bits()));
    let rss = ctx.max(peak_rss().unwrap_or(0));
    if ctx.rank != 0 {
        return Ok(None);
    }
    let build = crate::job::BuildReport {
        positions,
        entries: positions,
        symmetries: 1,
        seconds: start.elapsed().as_secs_f64(),
        file_bytes: end,
        value_bytes: owner.as_ref().map_or(0, |o| o.header.value_bytes()),
        root_value,
        peak_rss: Some(rss),
        resumed_below: (resume != NO_LAYER).then_some(resume as usize),
    };
    Ok(Some(DistributedReport {
        build,
        root_text: crate::probe::root_text(game, root_value),
        ranks: ctx.size,
        threads: rayon::current_num_threads(),
        bytes_exchanged: sent,
        peak_buffers,
        split: Split {
            plan: stats.plan,
            wait: stats.wait,
            exchange: stats.exchange,
            compute: stats.compute,
            write: stats.write,
            checksum: stats.checksum,
            remote_chunks: remote_share,
            slowest_compute,
            most_remote_chunks,
        },
    }))
}
