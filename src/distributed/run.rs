//! `retro build` and `retro solve` under MPI: the entry points. The layers are solved by the
//! one driver (`crate::solve`), as in one process, over the ranks of `ranks.rs` (`Ctx`),
//! into the table's one sink (`crate::build::sink`), which rank 0 opens, records and seals
//! as one process does while every rank writes its slices.

use std::io::IsTerminal;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use super::budget::{Figures, check_rank_memory};
use super::ranks::{Ctx, test_failure};
use crate::build::sink::TableSink;
use crate::build::{BuildOptions, Estimate};
use crate::error::{Error, Result, io_error};
use crate::game::{AnyBoard, Gameplay, Registered, Registry, Visitor};
use crate::memory::peak_rss;
use crate::progress::{AllRanks, Forwarded, Progress, Silent};
use crate::solve::{Cut, Driver, Hooks, StartAt};
use crate::stored::Value;
use crate::table::writer::partial_path;

/// How far a distributed build has gone with its table, for what an interrupt says the
/// stop kept (`retro build`'s handler). Rank 0 keeps it; the other ranks have their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The partial file is not this build's yet (not opened, or another build's): a stop
    /// leaves it as it was.
    Starting = 0,
    /// Rank 0 holds the partial file: a stop keeps its finished layers.
    Open = 1,
    /// Every layer is written, and rank 0 seals the table.
    Sealing = 2,
    /// The table is sealed under its own name.
    Sealed = 3,
    /// The build has ended, and said how (its error, or the summary to come).
    Done = 4,
}

static STAGE: AtomicU8 = AtomicU8::new(Stage::Starting as u8);

pub(super) fn set_stage(stage: Stage) {
    STAGE.store(stage as u8, Ordering::SeqCst);
}

/// This process's `Stage`.
pub fn stage() -> Stage {
    match STAGE.load(Ordering::SeqCst) {
        1 => Stage::Open,
        2 => Stage::Sealing,
        3 => Stage::Sealed,
        4 => Stage::Done,
        _ => Stage::Starting,
    }
}

/// Test hook: `RETRO_MPI_TEST_TERM=sealing` (or `sealed`) makes rank 0 send SIGTERM to
/// the mpirun that started it, as a scheduler's stop does, once every layer is written (or
/// once the table is sealed), and wait there for the stop to reach it.
fn test_signal(at: &str) {
    if std::env::var("RETRO_MPI_TEST_TERM").ok().as_deref() != Some(at) {
        return;
    }
    // SAFETY: plain system calls on this process's parent.
    unsafe {
        libc::kill(libc::getppid(), libc::SIGTERM);
    }
    for _ in 0..300 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

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
    /// `retro build --json`'s object: one process's, with the ranks' figures.
    pub json: serde_json::Value,
}

/// What one rank of a distributed build did (`--json`'s `per_rank`).
#[derive(Debug, Clone, Copy, Default)]
struct RankFigures {
    /// Seconds solving its slices, exchanges, writing and checksums apart.
    pub compute: f64,
    /// Seconds exchanging values and updates, waiting for the other ranks included.
    pub exchange: f64,
    /// Bytes it sent to other ranks.
    pub sent: u64,
    /// Bytes it received from them.
    pub received: u64,
}

impl RankFigures {
    fn words(&self) -> [u64; 4] {
        [
            self.compute.to_bits(),
            self.exchange.to_bits(),
            self.sent,
            self.received,
        ]
    }

    fn of_words(w: &[u64]) -> RankFigures {
        RankFigures {
            compute: f64::from_bits(w[0]),
            exchange: f64::from_bits(w[1]),
            sent: w[2],
            received: w[3],
        }
    }

    fn to_json(self, rank: usize) -> serde_json::Value {
        serde_json::json!({
            "rank": rank,
            "compute_seconds": self.compute,
            "exchange_seconds": self.exchange,
            "sent_bytes": self.sent,
            "received_bytes": self.received,
        })
    }
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
    // Rank 0 shows one bar for the whole build: every rank's entries, the layer, the level,
    // on its stderr, which mpirun copies to its own as it comes.
    let watched = std::io::stderr().is_terminal() || launcher_watched();
    let bar = (ctx.rank == 0 && !quiet && watched).then(|| {
        let sizes: Vec<u64> = (0..=game.last_layer())
            .map(|k| game.layer_size(k))
            .collect();
        let own = sizes
            .iter()
            .map(|&n| Cut::of(&ctx, n).len() as u64)
            .collect();
        let target = indicatif::ProgressDrawTarget::term_like_with_hz(Box::new(Forwarded), 10);
        AllRanks::new(sizes, own, target)
    });
    let progress: &dyn Progress = match &bar {
        Some(bar) => bar,
        None => &Silent,
    };
    let vt = crate::solve::value_type(game);
    let result = crate::stored::with_value_type!(vt, V => build_layers::<_, V>(&ctx, game, path, options, progress, start));
    if let Some(bar) = bar {
        bar.bar.finish_and_clear();
    }
    let result = ctx.settle(result);
    set_stage(Stage::Done);
    result
}

/// Whether the process that started this rank writes its standard error to a terminal:
/// mpirun starts the ranks of its own node itself, and hands each a pipe for its stderr
/// whatever its own is (and a pseudo-terminal for its stdout, even when its own goes to a
/// file, so that says nothing either). A launcher this cannot see into (another node's
/// daemon, Slurm's step daemon) counts as no terminal: no bar is drawn into a log.
fn launcher_watched() -> bool {
    let launcher = std::os::unix::process::parent_id();
    std::fs::read_link(format!("/proc/{launcher}/fd/2")).is_ok_and(|p| {
        let p = p.to_string_lossy();
        p.starts_with("/dev/pts/") || p.starts_with("/dev/tty")
    })
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

/// A name beside the partial file that no one can guess, for the token rank 0 leaves there
/// (`build_layers`): 64 bits from the system's random source (else from the standard
/// library's randomly seeded hasher, the process and the time).
fn token() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::io::Read;
    let mut bytes = [0u8; 8];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    match random {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => hasher.finish(),
    }
}

/// The token file's name for `token`, beside the partial file.
fn token_path(partial: &Path, token: u64) -> std::path::PathBuf {
    let mut name = partial.as_os_str().to_owned();
    name.push(format!(".token-{token:016x}"));
    std::path::PathBuf::from(name)
}

/// Rank 0 leaves a token beside the partial file that every rank must read back: ranks
/// that do not share the file system would otherwise each build a different file. The
/// file is created, never opened: its name is new and no one can guess it.
///
/// Returns the partial file's state as rank 0 opened it (its end, the layers resumed, its
/// value type), the same on every rank.
fn share_the_file(ctx: &Ctx, sink: Option<&TableSink>, partial: &Path) -> Result<[u64; 3]> {
    let token = token();
    let check = token_path(partial, token);
    let left = match sink {
        Some(_) => std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&check)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &token.to_le_bytes()))
            .map_err(|e| io_error(&check, e)),
        None => Ok(()),
    };
    ctx.agree(left)?;
    let mut shared = [0u64; 4];
    if let Some(sink) = sink {
        shared[..3].copy_from_slice(&sink.state());
        shared[3] = token;
    }
    ctx.broadcast(&mut shared);
    let [end, resumed, ty, token] = shared;
    let check = token_path(partial, token);
    let seen = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&check)
        .and_then(|mut f| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut bytes).map(|_| bytes)
        })
        .ok();
    let same = seen.as_deref() == Some(&token.to_le_bytes()[..]);
    let shares = match same {
        true => Ok(()),
        false => Err(Error::other(format!(
            "{} is not on a file system this rank shares with rank 0; MPI builds need the table's directory on a shared file system",
            partial.display()
        ))),
    };
    let shares = ctx.agree(shares);
    if sink.is_some() {
        let _ = std::fs::remove_file(&check);
    }
    shares?;
    Ok([end, resumed, ty])
}

fn build_layers<G: Registered, V: Value>(
    ctx: &Ctx,
    game: &G,
    path: &Path,
    options: &BuildOptions,
    progress: &dyn Progress,
    start: Instant,
) -> Result<Option<DistributedReport>> {
    let layout = crate::build::layout(game, options)?;
    let partial = partial_path(path);
    // Memory before disk, as on one process: rank 0 works out what a rank holds at its
    // peak over these ranks, by what `retro plan --ranks P` prints (`Figures`), and every
    // rank checks it against its own memory.
    let mut need = [0u64; 2];
    let planned = match ctx.rank {
        0 if ctx.size <= super::estimate::MAX_RANKS => {
            let threads = rayon::current_num_threads();
            Figures::of(game, ctx.size, threads, options, 1e9).map(|f| {
                need = [f.peak_memory, f.layer_memory];
            })
        }
        _ => Ok(()),
    };
    ctx.agree(planned)?;
    ctx.broadcast(&mut need);
    ctx.agree(check_rank_memory(
        ctx.size,
        need,
        crate::memory::available_memory(),
    ))?;
    // Rank 0 opens the table as one process does (`TableSink::open`): it takes the partial
    // file's lock, held until the table is sealed, so that a second build of this table, on
    // one process or over ranks, is refused; it resumes the file in the type its header
    // says, whatever the number of ranks that wrote it.
    let opened = match ctx.rank {
        0 => (|| {
            crate::table::partial::check_unlocked(path, crate::table::partial::Kind::Table)?;
            Estimate::of(game, path, options)?.check_disk(path, options)?;
            TableSink::open::<G, V>(game, path, &layout).map(Some)
        })(),
        _ => Ok(None),
    };
    let sink = ctx.agree(opened)?;
    if sink.is_some() {
        set_stage(Stage::Open);
    }
    let [end, resumed, ty] = share_the_file(ctx, sink.as_ref(), &partial)?;
    let joined = match sink {
        Some(sink) => Ok(sink),
        None => TableSink::join(game, path, &layout, [end, resumed, ty]),
    };
    let mut sink = ctx.agree(joined)?;
    let resumed_below = sink.resumed_below();
    let solving = Instant::now();
    test_failure(ctx.rank)?;
    let root_value = sink.solve::<G, V, _>(game, Driver::Parallel, progress, ctx)?;
    let solved = solving.elapsed().as_secs_f64();
    let seconds = sink.seconds();
    // Every layer is in the file: rank 0 seals it as one process seals its table (every
    // layer's checksum checked, values for the side to move narrowed to one byte where they
    // fit), through the same writer, so the table is the same bytes.
    let t = Instant::now();
    if ctx.rank == 0 {
        set_stage(Stage::Sealing);
        test_signal("sealing");
    }
    let sealed = ctx.agree(sink.seal(&Silent))?;
    set_stage(Stage::Sealed);
    if ctx.rank == 0 {
        test_signal("sealed");
    }
    let stats = ctx.stats.take();
    let mine = RankFigures {
        compute: (solved - stats.exchange - seconds.write - seconds.checksum).max(0.0),
        exchange: stats.exchange,
        sent: stats.traffic.sent,
        received: stats.traffic.received,
    };
    let per_rank: Vec<RankFigures> = ctx
        .all_gather(&mine.words())
        .chunks(4)
        .map(RankFigures::of_words)
        .collect();
    let sent = ctx.sum(stats.traffic.sent);
    // Non-negative f64s order as their bits do.
    let most_exchange = f64::from_bits(ctx.max(stats.exchange.to_bits()));
    let most_received = ctx.max(stats.traffic.received);
    let rss = ctx.max(peak_rss().unwrap_or(0));
    let Some(sealed) = sealed else {
        return Ok(None);
    };
    let build = crate::build::BuildReport {
        positions: (0..=game.last_layer())
            .map(|k| game.layer_positions(k))
            .sum(),
        entries: sealed.entries,
        symmetries: game.symmetries().max(1) as u32,
        seconds: start.elapsed().as_secs_f64(),
        file_bytes: sealed.file_bytes,
        value_bytes: sealed.value_bytes,
        root_value,
        peak_rss: Some(rss),
        resumed_below,
    };
    let threads = rayon::current_num_threads();
    let built = crate::build::Built::of(game, path, build)?;
    let mut json = built.json;
    json["ranks"] = ctx.size.into();
    json["threads"] = threads.into();
    json["bytes_exchanged"] = sent.into();
    json["bytes_exchanged_per_entry"] = (sent as f64 / built.report.entries.max(1) as f64).into();
    json["per_rank"] = per_rank
        .iter()
        .enumerate()
        .map(|(r, f)| f.to_json(r))
        .collect::<Vec<_>>()
        .into();
    Ok(Some(DistributedReport {
        root_text: built.root_text,
        build: built.report,
        ranks: ctx.size,
        threads,
        bytes_exchanged: sent,
        json,
        split: Split {
            exchange: stats.exchange,
            exchanges: stats.exchanges,
            compute: mine.compute,
            write: seconds.write,
            checksum: seconds.checksum + t.elapsed().as_secs_f64(),
            most_exchange,
            most_received,
        },
    }))
}
