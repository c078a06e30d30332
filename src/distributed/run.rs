//! `retro build` and `retro solve` under MPI: the distributed sweep and its entry points.

use std::io::IsTerminal;
use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::exchange::{self, MAX_MESSAGE, Traffic};
use super::plan;
use super::split;
use super::writer::{self, Shared};
use crate::error::{Error, Result, io_error};
use crate::game::{Game, GameSpec};
use crate::job::{BuildOptions, Estimate, peak_rss};
use crate::sweep::{self, CHUNK, Progress, Silent, human_bytes};
use crate::table::blocks::{BLOCK, DIR_ENTRY, SLACK};
use crate::table::header::{Encoding, Header};
use crate::table::reader::Table;
use crate::table::writer::partial_path;
use crate::value::Value;

/// Child intervals closer than this are fetched as one (a request costs 16 bytes).
const GAP: u64 = 8;

/// Whether this process was started by an MPI launcher (Open MPI's mpirun, a PMI or PMIx
/// launcher such as MPICH's or Slurm's srun). Checked from the environment so that a plain
/// `retro build` never initialises MPI.
pub fn under_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// One rank's view of the run. Every method is collective: all ranks call it, in the same
/// order, from the main thread.
struct Ctx {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    max_message: u64,
}

impl Ctx {
    fn init() -> Result<(Universe, Ctx)> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .ok_or_else(|| Error::other("MPI was already initialised"))?;
        if threading == mpi::Threading::Single {
            return Err(Error::other(
                "this MPI library does not allow threads (funneled support needed)",
            ));
        }
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
        };
        Ok((universe, ctx))
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

/// What one rank saw; reduced over ranks at the end.
#[derive(Debug, Default)]
struct Stats {
    traffic: Traffic,
    /// Bytes of layer buffers (own slices, fetched children, staging) at their peak.
    peak_buffers: u64,
    plan: f64,
    exchange: f64,
    compute: f64,
    write: f64,
    checksum: f64,
}

/// The distributed sweep from layer `top - 1` down to 0; `mine` is this rank's slice of
/// layer `top` (empty when `top` is past the full layer). `on_layer` sees each finished
/// slice. Returns the value of the empty board on every rank.
fn sweep<G: Game, V: Value + Equivalence>(
    ctx: &Ctx,
    game: &G,
    top: usize,
    mut mine: Vec<V>,
    progress: &dyn Progress,
    stats: &mut Stats,
    mut on_layer: impl FnMut(usize, &Range<u64>, &[V], &mut Stats) -> Result<()>,
) -> Result<i64> {
    let width = std::mem::size_of::<V>() as u64;
    let cells = game.cells();
    for k in (0..top).rev() {
        let n = game.layer_size(k);
        let slice = split::slice(n, ctx.size, ctx.rank);
        progress.layer(k, n);
        game.prepare_layer(k);
        let mut out = vec![V::default(); (slice.end - slice.start) as usize];
        if k == cells {
            let t = Instant::now();
            compute(game, k, &slice, &mut out, &[] as &[V]);
            stats.compute += t.elapsed().as_secs_f64();
        } else {
            let t = Instant::now();
            let spans = plan::plan_slice(game, k, slice.clone(), GAP);
            stats.plan += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let next = game.layer_size(k + 1);
            let fetched = exchange::fetch(&ctx.world, &spans, next, &mine, ctx.max_message);
            let (fetched, traffic, staged) = ctx.agree(fetched)?;
            stats.exchange += t.elapsed().as_secs_f64();
            stats.traffic.sent += traffic.sent;
            stats.traffic.received += traffic.received;
            let exchanging = (mine.len() + fetched.len()) as u64 * width + staged;
            let computing = (fetched.len() + out.len()) as u64 * width;
            stats.peak_buffers = stats.peak_buffers.max(exchanging).max(computing);
            drop(std::mem::take(&mut mine));
            let t = Instant::now();
            compute(game, k, &slice, &mut out, &fetched);
            stats.compute += t.elapsed().as_secs_f64();
        }
        on_layer(k, &slice, &out, stats)?;
        progress.advance(n);
        mine = out;
    }
    let root = match split::slice(game.layer_size(0), ctx.size, ctx.rank).is_empty() {
        true => i64::MIN,
        false => mine.first().map_or(i64::MIN, |v| v.to_i64()),
    };
    Ok(ctx.max((root as u64) ^ (1 << 63)) as i64 ^ i64::MIN)
}

/// This rank's slice of layer `k`, in chunks on the rank's rayon pool.
fn compute<G: Game, V: Value, C: sweep::ChildValues<V> + ?Sized>(
    game: &G,
    k: usize,
    slice: &Range<u64>,
    out: &mut [V],
    next: &C,
) {
    use rayon::prelude::*;
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(i, chunk)| {
            sweep::compute_chunk(game, k, slice.start + (i * CHUNK) as u64, chunk, next);
        });
}

/// `retro solve` under MPI: the answer on rank 0's stdout.
pub fn solve(spec: &GameSpec) -> Result<i32> {
    let (_universe, ctx) = Ctx::init()?;
    let value = crate::with_game!(spec, game => {
        let vt = sweep::value_type(&game);
        crate::with_value_type!(vt, V => sweep::<_, V>(&ctx, &game, game.cells() + 1, Vec::new(), &Silent, &mut Stats::default(), |_, _, _, _| Ok(())))
    })?;
    if ctx.rank == 0 {
        let answer =
            crate::with_game!(spec, game => Ok(crate::game::Game::contest_answer(&game, value)))?;
        println!("{answer}");
    }
    Ok(0)
}

/// `retro build` under MPI: the table at `path`, byte for byte what one process writes.
pub fn build(spec: &GameSpec, path: &Path, options: &BuildOptions, quiet: bool) -> Result<i32> {
    let (_universe, ctx) = Ctx::init()?;
    let start = Instant::now();
    // Rank 0's bar counts whole layers as they finish.
    let bar = (ctx.rank == 0 && !quiet && std::io::stderr().is_terminal()).then(|| {
        let total = spec.layer_sizes().map_or(0, |s| s.iter().sum());
        indicatif::ProgressBar::new(total)
    });
    let progress: &dyn Progress = match &bar {
        Some(bar) => bar,
        None => &Silent,
    };
    let result = crate::with_game!(spec, game => {
        let vt = sweep::value_type(&game);
        crate::with_value_type!(vt, V => build_game::<_, V>(&ctx, &game, path, options, progress, quiet, start))
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

/// Where a resumed or fresh build starts, as rank 0 found it.
const NO_LAYER: u64 = u64::MAX;

#[allow(clippy::too_many_arguments)]
fn build_game<G: Game, V: Value + Equivalence>(
    ctx: &Ctx,
    game: &G,
    path: &Path,
    options: &BuildOptions,
    progress: &dyn Progress,
    quiet: bool,
    start: Instant,
) -> Result<i32> {
    let sizes: Vec<u64> = (0..=game.cells()).map(|k| game.layer_size(k)).collect();
    let encoding = if options.compact {
        Encoding::Blocked
    } else {
        Encoding::Plain
    };
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
            let spec = crate::job::registered(game)?;
            Estimate::of(&spec, path, options)?.check_disk(path, options)?;
            let wanted = Header::blank(spec, V::TYPE, encoding, &sizes);
            let (o, end, resume) = writer::create_or_resume(path, wanted, options.fresh)?;
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
        NO_LAYER => (game.cells() + 1, Vec::new()),
        l => {
            let l = l as usize;
            let slice = split::slice(sizes[l], ctx.size, ctx.rank);
            let read = (|| {
                let table = Table::open_partial(&partial)?;
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
            (l, ctx.agree(read)?)
        }
    };
    let width = V::TYPE.width() as u64;
    let mut stats = Stats::default();
    let mut write_layer =
        |k: usize, slice: &Range<u64>, values: &[V], stats: &mut Stats| -> Result<()> {
            let t = Instant::now();
            let bytes = match encoding {
                Encoding::Plain => {
                    ctx.agree(
                        file.write_plain(end, slice, values)
                            .and_then(|_| file.sync()),
                    )?;
                    sizes[k] * width
                }
                // Never Moves: `build` refuses --moves under MPI.
                Encoding::Blocked | Encoding::Moves { .. } => {
                    let (data, dir) = writer::pack_blocks(values);
                    stats.peak_buffers = stats
                        .peak_buffers
                        .max(values.len() as u64 * width * 2 + data.len() as u64);
                    let data_at = ctx.exscan(data.len() as u64);
                    let total = ctx.sum(data.len() as u64);
                    let dir_at =
                        end + total + SLACK as u64 + slice.start / BLOCK as u64 * DIR_ENTRY as u64;
                    let mut entries = Vec::with_capacity(dir.len() * DIR_ENTRY);
                    for &(min, at, w) in &dir {
                        entries.extend_from_slice(&crate::table::blocks::dir_entry(
                            min,
                            data_at + at,
                            w,
                        ));
                    }
                    let wrote = file
                        .write_at(&data, end + data_at)
                        .and_then(|_| file.write_at(&entries, dir_at))
                        .and_then(|_| match ctx.rank {
                            0 => file.write_at(&[0u8; SLACK], end + total),
                            _ => Ok(()),
                        })
                        .and_then(|_| file.sync());
                    ctx.agree(wrote)?;
                    writer::compact_layer_bytes(sizes[k], total)
                }
            };
            stats.write += t.elapsed().as_secs_f64();
            // Every rank's bytes are on disk (the agreement above follows each rank's sync):
            // rank 0 hashes the layer and records it.
            let t = Instant::now();
            let recorded = match &mut owner {
                Some(o) => (|| {
                    let checksum = file.checksum(end, bytes)?;
                    let entry = &mut o.header.layers[k];
                    entry.offset = end;
                    entry.bytes = bytes;
                    entry.checksum = checksum;
                    o.write(&file.file, &partial)?;
                    file.sync()
                })(),
                None => Ok(()),
            };
            ctx.agree(recorded)?;
            stats.checksum += t.elapsed().as_secs_f64();
            end += bytes;
            if options.stop_after == Some(k) {
                return Err(Error::other(format!(
                    "rank {}: stopped after layer {k} (test hook); {} holds the finished layers",
                    ctx.rank,
                    partial.display()
                )));
            }
            Ok(())
        };
    let root_value = sweep::<G, V>(ctx, game, top, mine, progress, &mut stats, &mut write_layer)?;
    let finished = match &mut owner {
        Some(o) => (|| {
            o.header.checksum = Header::combined_checksum(&o.header.layers);
            o.write(&file.file, &partial)?;
            file.file.sync_all().map_err(|e| io_error(&partial, e))?;
            std::fs::rename(&partial, path).map_err(|e| io_error(path, e))
        })(),
        None => Ok(()),
    };
    ctx.agree(finished)?;
    let positions: u64 = sizes.iter().sum();
    let sent = ctx.sum(stats.traffic.sent);
    let peak_buffers = ctx.max(stats.peak_buffers);
    let rss = ctx.max(peak_rss().unwrap_or(0));
    if ctx.rank == 0 {
        let seconds = start.elapsed().as_secs_f64();
        let resumed = match resume {
            NO_LAYER => String::new(),
            l => format!(" (resumed below layer {l})"),
        };
        println!(
            "{}: {positions} positions in {seconds:.2} s{resumed}, {} ({end} bytes), {} ranks x {} threads, {:.3} bytes exchanged per position, largest rank's layer buffers at peak {}, peak memory {} (largest rank), root value {root_value}",
            path.display(),
            human_bytes(end as f64),
            ctx.size,
            rayon::current_num_threads(),
            sent as f64 / positions as f64,
            human_bytes(peak_buffers as f64),
            human_bytes(rss as f64),
        );
        if !quiet {
            eprintln!(
                "rank 0 seconds: plan {:.2}, exchange {:.2}, compute {:.2}, write {:.2}, checksum {:.2}",
                stats.plan, stats.exchange, stats.compute, stats.write, stats.checksum
            );
        }
    }
    Ok(0)
}
