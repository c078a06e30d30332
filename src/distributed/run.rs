//! `retro build` and `retro solve` under MPI: the entry points, and the table's layers
//! written by every rank into one file. The layers are solved by the one driver
//! (`crate::solve`), as in one process, over the ranks of `ranks.rs` (`Ctx`).

use std::io::IsTerminal;
use std::path::Path;
use std::thread::ScopedJoinHandle;
use std::time::Instant;

use super::ranks::{Ctx, test_failure};
use super::writer::{self, HeaderOwner, Shared};
use crate::build::{BuildOptions, Estimate};
use crate::error::{Error, Result, io_error};
use crate::game::{AnyBoard, Gameplay, Registered, Registry, Visitor};
use crate::memory::peak_rss;
use crate::progress::{Progress, Silent};
use crate::solve::{Cut, Driver, Hooks, OnLayer, Solved, StartAt};
use crate::stored::{Value, ValueType};
use crate::table::blocks::{self, BLOCK, DIR_ENTRY, SLACK};
use crate::table::header::{Encoding, Header};
use crate::table::reader::Table;
use crate::table::writer::partial_path;

/// `retro solve` under MPI: the contest answer, on rank 0 (None on the other ranks).
pub fn solve<G: Gameplay>(game: &G) -> Result<Option<String>> {
    let (_universe, ctx) = Ctx::init()?;
    let solved = (|| {
        test_failure(ctx.rank)?;
        let vt = crate::solve::value_type(game);
        let value = crate::stored::with_value_type!(vt, V => crate::solve::solve_layers::<_, V, _>(
            game,
            Driver::Parallel,
            &Silent,
            StartAt::Top,
            Hooks::none(),
            &ctx,
        ))?;
        Ok((ctx.rank == 0).then(|| game.contest_answer(value)))
    })();
    ctx.settle(solved)
}

/// What a distributed build did, as rank 0 saw it (the largest rank's figures where each
/// rank has its own).
#[derive(Debug, Clone)]
pub struct DistributedReport {
    /// The build's figures as one process reports them.
    pub build: crate::build::BuildReport,
    /// The root's value in words.
    pub root_text: String,
    /// Ranks, and threads per rank.
    pub ranks: usize,
    /// Threads per rank.
    pub threads: usize,
    /// Bytes sent between ranks, over all ranks.
    pub bytes_exchanged: u64,
    /// Rank 0's seconds in each part of the build.
    pub split: Split,
}

/// Rank 0's seconds per part of a distributed build.
#[derive(Debug, Clone, Copy, Default)]
pub struct Split {
    /// Exchanging values and updates with the other ranks, waiting for them included.
    pub exchange: f64,
    /// How many exchanges.
    pub exchanges: u64,
    /// Solving its slices, exchanges apart.
    pub compute: f64,
    /// Writing its slices.
    pub write: f64,
    /// Hashing the layers back from the file, and sealing the table.
    pub checksum: f64,
    /// The most seconds any rank spent in exchanges.
    pub most_exchange: f64,
    /// The most bytes any rank received from the others (what `retro plan`'s per-rank
    /// figures estimate).
    pub most_received: u64,
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
    // Rank 0's bar counts the entries of its own slices.
    let bar = (ctx.rank == 0 && !quiet && std::io::stderr().is_terminal()).then(|| {
        let own: u64 = (0..=game.last_layer())
            .map(|k| Cut::of(&ctx, game.layer_size(k)).len() as u64)
            .sum();
        indicatif::ProgressBar::new(own)
    });
    let progress: &dyn Progress = match &bar {
        Some(bar) => bar,
        None => &Silent,
    };
    let vt = crate::solve::value_type(game);
    let result = crate::stored::with_value_type!(vt, V => build_layers::<_, V>(&ctx, game, path, options, progress, start));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    ctx.settle(result)
}

/// `build` for a board of any game of registry `R`, after the check a build on one process
/// makes first (`build::check_encoding`).
pub fn build_board<R: Registry>(
    board: &AnyBoard,
    path: &Path,
    options: &BuildOptions,
    quiet: bool,
) -> Result<Option<DistributedReport>> {
    struct Build<'a> {
        path: &'a Path,
        options: &'a BuildOptions,
        quiet: bool,
    }
    impl Visitor for Build<'_> {
        type Output = Option<DistributedReport>;
        fn visit<G: Registered>(self, game: G) -> Result<Option<DistributedReport>> {
            crate::build::check_encoding(&game, self.options)?;
            build(&game, self.path, self.options, self.quiet)
        }
    }
    R::visit(
        board,
        Build {
            path,
            options,
            quiet,
        },
    )
}

/// A build's finished layers on their way to disk. Each rank writes its slice of a layer
/// (a compact one on a thread while the next layer is solved); once every rank has written
/// it (the agreement in `settle`), rank 0 hashes the layer back from the file and records
/// it in the header, on a thread too. Only the main thread calls MPI.
struct Layers<'s, 'e> {
    scope: &'s std::thread::Scope<'s, 'e>,
    file: &'e Shared,
    /// Rank 0's header, while no thread has it.
    owner: Option<HeaderOwner>,
    /// This rank's write of layer k at `offset`, `bytes` long in all; it ends with the
    /// layer's checksum where this rank wrote every byte of it (one rank, plain).
    writing: Option<(usize, u64, u64, Writing<'s>)>,
    /// Rank 0 hashing a layer; the header comes back with the result.
    hashing: Option<ScopedJoinHandle<'s, (HeaderOwner, Result<()>)>>,
    /// Where the next layer starts.
    end: u64,
    stop_after: Option<usize>,
}

/// A thread writing a rank's slice: the layer's checksum where it wrote the whole layer.
type Writing<'s> = ScopedJoinHandle<'s, Result<Option<u64>>>;

impl<'s, 'e: 's> Layers<'s, 'e> {
    /// Wait for the layer being written, on every rank, then hand it to rank 0's hashing.
    /// Collective.
    fn settle(&mut self, ctx: &Ctx) -> Result<()> {
        let Some((k, offset, bytes, writing)) = self.writing.take() else {
            return Ok(());
        };
        let t = Instant::now();
        let written = writing
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        ctx.stats.borrow_mut().write += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let hashed = self.hashed();
        let known = ctx.agree(written.and_then(|c| hashed.map(|_| c)))?;
        ctx.stats.borrow_mut().checksum += t.elapsed().as_secs_f64();
        if let Some(mut o) = self.owner.take() {
            let file = self.file;
            self.hashing = Some(self.scope.spawn(move || {
                let recorded = (|| {
                    // Read back, unless this rank wrote (and hashed) every byte.
                    let checksum = match known {
                        Some(c) => c,
                        None => file.checksum(offset, bytes)?,
                    };
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
            // Every rank stops here, together.
            return ctx.agree(Err(Error::other(format!(
                "stopped after layer {k} (test hook); {} holds the finished layers",
                self.file.partial.display()
            ))));
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

    /// Write this rank's slice of a finished layer (`positions` entries in all), its values
    /// stored as `stored`. Collective.
    fn start<V: Value>(
        &mut self,
        ctx: &Ctx,
        solved: Solved<'_, V>,
        positions: u64,
        encoding: Encoding,
        stored: ValueType,
    ) -> Result<()> {
        let t = Instant::now();
        let Solved {
            layer: k,
            start,
            values,
            moves,
            keep,
        } = solved;
        let (file, end) = (self.file, self.end);
        // One byte a value (halved codes, or a table narrowed to i8): every value checked
        // before any is written, so a layer is whole or absent.
        let codes: Option<Vec<i8>> = match stored == V::TYPE || moves.is_some() {
            true => None,
            false => Some(ctx.agree(narrow(k, values, stored))?),
        };
        let width = stored.width() as u64;
        let (bytes, writing) = match encoding {
            Encoding::Plain => {
                // On a thread while the next layer is solved: the codes, or the values the
                // driver shares (`Solved::keep`). A rank that writes the whole layer hashes
                // it as it goes, so that rank 0 need not read it back.
                let slice = start..start + values.len() as u64;
                let whole = slice.end - slice.start == positions;
                let write: Box<dyn FnOnce() -> Result<u64> + Send> = match codes {
                    Some(codes) => Box::new(move || file.write_plain(end, &slice, &codes)),
                    None => {
                        let kept = keep
                            .cloned()
                            .unwrap_or_else(|| std::sync::Arc::new(values.to_vec()));
                        Box::new(move || file.write_plain(end, &slice, &kept))
                    }
                };
                let writing = self.scope.spawn(move || {
                    let hash = write()?;
                    file.sync()?;
                    Ok(whole.then_some(hash))
                });
                (positions * width, writing)
            }
            // A layer of best moves is blocks of move indices, as compact values are.
            Encoding::Blocked | Encoding::Moves { .. } => {
                let (data, dir) = match (moves, &codes) {
                    (Some(moves), _) => writer::pack_blocks(moves, |&m| i64::from(m)),
                    (None, Some(codes)) => writer::pack_blocks(codes, |&c| i64::from(c)),
                    (None, None) => writer::pack_blocks(values, |v| v.to_i64()),
                };
                let data_at = ctx.exscan(data.len() as u64);
                let total = ctx.sum(data.len() as u64);
                let dir_at = end + blocks::directory_entry_at(total, start);
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
                    file.sync()?;
                    Ok(None)
                });
                (writer::compact_layer_bytes(positions, total), writing)
            }
        };
        self.writing = Some((k, end, bytes, writing));
        self.end += bytes;
        ctx.stats.borrow_mut().write += t.elapsed().as_secs_f64();
        Ok(())
    }
}

/// A slice's values as one-byte codes of `stored`, or the error a value without one gets.
fn narrow<V: Value>(k: usize, values: &[V], stored: ValueType) -> Result<Vec<i8>> {
    use rayon::prelude::*;
    values
        .par_iter()
        .map(|v| {
            crate::build::sink::one_byte(stored, v.to_i64()).ok_or_else(|| {
                Error::other(format!(
                    "layer {k}: a value does not fit the table's one-byte values ({})",
                    stored.name()
                ))
            })
        })
        .collect()
}

/// Where a resumed or fresh build starts, as rank 0 found it.
const NO_LAYER: u64 = u64::MAX;

fn build_layers<G: Registered, V: Value>(
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
    // The type one process stores values in while it builds (it narrows them at the end,
    // as rank 0 does here).
    let stored = crate::build::stored_type(game, options);
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
            let wanted = Header::blank(AnyBoard::of(game), stored, encoding, &sizes);
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
    let [end, resume, token] = shared;
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
    // A resumed build reads back its slices of the finished layers the rest reads.
    let from = match resume {
        NO_LAYER => StartAt::Top,
        l => {
            let layer = l as usize;
            let read = (|| {
                let table = Table::open_partial::<G>(&partial)?;
                let mut held = Vec::new();
                for j in crate::solve::held_below(game, layer) {
                    let slice = Cut::of(ctx, sizes[j]).slice();
                    let mut values = Vec::with_capacity((slice.end - slice.start) as usize);
                    let step = (BLOCK * 256) as u64;
                    let mut at = slice.start;
                    while at < slice.end {
                        let n = step.min(slice.end - at) as usize;
                        values.extend(table.read_range(j, at, n)?.into_iter().map(V::from_i64));
                        at += n as u64;
                    }
                    held.push((j, values));
                }
                Ok(held)
            })();
            StartAt::Below {
                layer,
                held: ctx.agree(read)?,
            }
        }
    };
    let solving = Instant::now();
    std::thread::scope(|scope| -> Result<()> {
        let mut layers = Layers {
            scope,
            file: &file,
            owner: owner.take(),
            writing: None,
            hashing: None,
            end,
            stop_after: options.stop_after,
        };
        let last = game.last_layer();
        let moves_at = |k: usize| !encoding.stores_values(k, last);
        let mut write = |solved: Solved<'_, V>| {
            layers.settle(ctx)?;
            let k = solved.layer;
            layers.start(ctx, solved, sizes[k], encoding, stored)
        };
        let hooks = Hooks {
            on_layer: Some(OnLayer::Inline(&mut write)),
            map_layer: None,
            moves_at: Some(&moves_at),
        };
        test_failure(ctx.rank)?;
        crate::solve::solve_layers::<G, V, _>(game, Driver::Parallel, progress, from, hooks, ctx)?;
        layers.settle(ctx)?;
        let t = Instant::now();
        let hashed = layers.hashed();
        ctx.agree(hashed)?;
        ctx.stats.borrow_mut().checksum += t.elapsed().as_secs_f64();
        owner = layers.owner.take();
        Ok(())
    })?;
    let solved = solving.elapsed().as_secs_f64();
    drop(file);
    // Every layer is in the file: rank 0 seals it as one process seals a build whose
    // layers are all finished (every layer's checksum checked, values for the side to move
    // narrowed to one byte where they fit), so the table is the same bytes.
    let t = Instant::now();
    let sealed = match owner.take() {
        Some(o) => {
            drop(o);
            let finish = BuildOptions {
                fresh: false,
                stop_after: None,
                ..options.clone()
            };
            crate::build::build(game, path, &finish, Driver::Parallel, &Silent).map(Some)
        }
        None => Ok(None),
    };
    let sealed = ctx.agree(sealed)?;
    let stats = ctx.stats.take();
    let sent = ctx.sum(stats.traffic.sent);
    // Non-negative f64s order as their bits do.
    let most_exchange = f64::from_bits(ctx.max(stats.exchange.to_bits()));
    let most_received = ctx.max(stats.traffic.received);
    let rss = ctx.max(peak_rss().unwrap_or(0));
    let Some(mut build) = sealed else {
        return Ok(None);
    };
    build.seconds = start.elapsed().as_secs_f64();
    build.peak_rss = Some(rss);
    build.resumed_below = (resume != NO_LAYER).then_some(resume as usize);
    Ok(Some(DistributedReport {
        root_text: game.root_text(build.root_value),
        build,
        ranks: ctx.size,
        threads: rayon::current_num_threads(),
        bytes_exchanged: sent,
        split: Split {
            exchange: stats.exchange,
            exchanges: stats.exchanges,
            compute: (solved - stats.exchange - stats.write - stats.checksum).max(0.0),
            write: stats.write,
            checksum: stats.checksum + t.elapsed().as_secs_f64(),
            most_exchange,
            most_received,
        },
    }))
}
