//! `retro build`: sweep a board and write its table.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

use xxhash_rust::xxh3::xxh3_64;

use super::{BoardArgs, progress_bar};
use crate::build::{self, BuildOptions};
use crate::error::{Result, io_error};
use crate::game::{AnyBoard, Registry};
use crate::memory::human_bytes;
use crate::progress::{self, Progress, Silent};
use crate::solve::Driver;
use crate::table::writer::{check_output, partial_path};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro build young tables/young-sample.txt          writes tables/young-sample.retro
  retro build young tables/young-10x10.txt --compact -o y10.retro
  retro build young tables/young-10x10.txt --moves 8 -o y10m.retro
  retro gen young 14x14 | retro build young -o y14.retro --threads 2
  retro build connect 6x5                            the board's words stand in for the file
  retro build teeko 4x4 advanced                     several words need no quotes")]
pub struct Args {
    #[command(flatten)]
    threads: super::Threads,
    #[command(flatten)]
    board: BoardArgs,
    /// Table file to write [default: tables/<input file stem>.retro, or from stdin
    /// tables/<game>-<board>.retro, the board as `info --json` names it (3x3k3), with a hash
    /// of the weights after it for young and twins: tables/twins-4x5-<hash>.retro].
    #[arg(short, long, value_name = "TABLE")]
    output: Option<PathBuf>,
    /// No progress bar and no estimate line.
    #[arg(short, long)]
    quiet: bool,
    /// Print the summary as one JSON object (under mpirun, with the ranks, the bytes they
    /// exchanged and each rank's seconds computing and exchanging: `per_rank`).
    #[arg(long)]
    json: bool,
    /// Store values compactly: blocks of 4096 with their own minimum and bit width.
    #[arg(long)]
    compact: bool,
    /// Store each position's best move instead of its value, and values (compact) only
    /// in every L-th layer and the full one: a fraction of the size; a value then takes
    /// up to L lookups, following best moves.
    #[arg(long, value_name = "L", conflicts_with = "compact")]
    moves: Option<u32>,
    /// Start over, ignoring an interrupted build of this table.
    #[arg(long)]
    fresh: bool,
    /// Go on where build would otherwise refuse: skip the free-disk check (not the memory
    /// check), and replace a finished table of another game or board at the output.
    #[arg(long)]
    force: bool,
    /// Start without asking, however long the build or large its memory (a build from a
    /// terminal asks first where it would take more than a few minutes or most of the
    /// memory; one whose input is not a terminal never asks).
    #[arg(short, long)]
    yes: bool,
    /// Test hook: stop after writing this layer, as if interrupted.
    #[arg(long, hide = true, value_name = "K")]
    stop_after_layer: Option<usize>,
    /// Test hook: ask the build to stop, as Ctrl-C does, at its Nth check for a stop (the
    /// solvers check between chunks, and the retrograde solver between levels too).
    #[arg(long, hide = true, value_name = "N")]
    stop_at_check: Option<u64>,
    /// Test hook: abort, as a kill would, just before the Nth write, sync, truncation or
    /// rename of the partial file (see `partial::crash_before_step`).
    #[arg(long, hide = true, value_name = "N")]
    crash_before_step: Option<u64>,
    /// Test hook: tear the Nth write of more than `--tear-at` bytes to the partial file
    /// after that many bytes, then abort (see `partial::tear_write`).
    #[arg(long, hide = true, value_name = "N", requires = "tear_at")]
    tear_write: Option<u64>,
    /// Test hook: where `--tear-write` tears its write.
    #[arg(long, hide = true, value_name = "BYTES", requires = "tear_write")]
    tear_at: Option<u64>,
    /// Test hook: cut the partial file short in the middle of layer K once it is written,
    /// as another program truncating it would (see `partial::cut_after_layer`).
    #[arg(long, hide = true, value_name = "K")]
    cut_after_layer: Option<u64>,
    /// Test hook: once layer K is written, move the partial file to `NAME.partial.moved`
    /// and create a new one under its name, as a second build would after a user removed
    /// the first's (see `partial::replace_after_layer`).
    #[arg(long, hide = true, value_name = "K")]
    replace_after_layer: Option<u64>,
    /// Test hook: pretend the output file system has this many free bytes.
    #[arg(long, hide = true, value_name = "BYTES")]
    assume_free_bytes: Option<u64>,
    /// Test hook: store values for the side to move as halved codes from the first layer
    /// on, as a game that says its values have them (morris) is stored.
    #[arg(long, hide = true)]
    halve_values: bool,
}

/// tables/<input file stem>.retro, or for stdin tables/<game>-<board>.retro (the board's
/// `AnyBoard::label`), with a hash of the input after it where the label does not name
/// the whole board (weights).
fn default_path(board: &AnyBoard, file: Option<&Path>) -> PathBuf {
    let stem = file
        .and_then(|f| f.file_stem())
        .map(|s| s.to_string_lossy().into_owned());
    let name = stem.unwrap_or_else(|| {
        if board.label_names_it() {
            return format!("{}-{}", board.name(), board.label());
        }
        let hash = xxh3_64(board.to_input().as_bytes()) as u32;
        format!("{}-{}-{hash:08x}", board.name(), board.label())
    });
    PathBuf::from("tables").join(format!("{name}.retro"))
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    args.threads.start()?;
    if let Some(n) = args.crash_before_step {
        crate::table::partial::crash_before_step(n);
    }
    if let Some(k) = args.cut_after_layer {
        crate::table::partial::cut_after_layer(k);
    }
    if let Some(k) = args.replace_after_layer {
        crate::table::partial::replace_after_layer(k);
    }
    if let (Some(n), Some(bytes)) = (args.tear_write, args.tear_at) {
        crate::table::partial::tear_write(n, bytes);
    }
    let board = args.board.load_on_every_rank::<R>()?;
    let prepared = prepare::<R>(&args, board);
    // Where rank 0 shared its board, the ranks agree on the checks of the output before
    // the build (`distributed::agree_early`).
    #[cfg(feature = "mpi")]
    let prepared = crate::distributed::agree_early(prepared);
    let (board, path) = prepared?;
    let built = build_board::<R>(&board, &args, &path);
    // An error before the ranks' build took MPI over: every rank has it.
    #[cfg(feature = "mpi")]
    if let Err(e) = &built {
        crate::distributed::leave(e);
    }
    built
}

/// The board as built (every position, for a table of best moves) and the output path,
/// checked.
fn prepare<R: Registry>(args: &Args, board: AnyBoard) -> Result<(AnyBoard, PathBuf)> {
    // A stored best move is an index into the moves of the position itself, not of its
    // orbit's canonical position: tables of best moves keep every position.
    let board = if args.moves.is_some() {
        board.unfolded()
    } else {
        board
    };
    let input = args.board.input_file::<R>();
    let path = match &args.output {
        Some(path) => path.clone(),
        None => {
            let path = default_path(&board, input);
            // Said where it is made, so a build outside the repository does not leave a
            // directory behind unannounced.
            let tables = Path::new("tables");
            if !tables.exists() {
                std::fs::create_dir_all(tables).map_err(|e| io_error(tables, e))?;
                if !args.quiet {
                    eprintln!(
                        "created the directory tables/ for the table (-o names another place)"
                    );
                }
            }
            path
        }
    };
    check_output(&path)?;
    if !args.force {
        keep_another_table::<R>(&path, &board)?;
    }
    if let Some(input) = input {
        crate::table::partial::check_not_input(&path, &[(input, "the board file being read")])?;
    }
    Ok((board, path))
}

/// Refuse to write over a finished table of another game or board: `-o` naming it is
/// more likely a slip than a wish, and the table may have taken hours to build (`--force`
/// replaces it). A table of this board is built again (a folded one as well as an unfolded
/// one: the same answers); a file that is no table this retro reads is left to the checks
/// of the partial file and the rename, as before.
fn keep_another_table<R: Registry>(path: &Path, board: &AnyBoard) -> Result<()> {
    let Ok(table) = crate::table::Table::open_in::<R>(path) else {
        return Ok(());
    };
    let found = &table.header.game;
    if found == board {
        return Ok(());
    }
    Err(crate::error::Error::input(format!(
        "{}: holds a finished table of {} {}, not {} {}; --force replaces it, or -o names another file",
        path.display(),
        found.name(),
        found.label(),
        board.name(),
        board.label()
    )))
}

/// The rest of `build`, on the board: over MPI's ranks where started under `mpirun`, else
/// in this process with the estimate on stderr and a progress bar.
fn build_board<R: Registry>(board: &AnyBoard, args: &Args, path: &Path) -> Result<i32> {
    let options = BuildOptions {
        compact: args.compact,
        moves: args.moves,
        fresh: args.fresh,
        force: args.force,
        stop_after: args.stop_after_layer,
        assume_free: args.assume_free_bytes,
        halve: args.halve_values,
    };
    // MPI: every rank builds its slices of the one table (see `distributed`). The ranks
    // open the partial file all at once, so they do not take the lock's check below.
    #[cfg(feature = "mpi")]
    if crate::distributed::under_mpi() {
        report_on_interrupt::<R>(path);
        let built = crate::distributed::build_board::<R>(board, path, &options, args.quiet)?;
        if let Some(report) = built {
            match args.json {
                true => super::outln!("{}", report.json)?,
                false => print_distributed(path, &report, args.quiet)?,
            }
        }
        return Ok(0);
    }
    let bar = progress_bar(0, args.quiet);
    let progress = Stoppable {
        bar: match &bar {
            Some(bar) => bar,
            None => &Silent,
        },
        stop_at: args.stop_at_check,
        checks: AtomicU64::new(0),
        layer: AtomicUsize::new(usize::MAX),
    };
    let mut before = |p: &build::Prepared<'_>| {
        let estimate = p.estimate;
        let seconds = estimate.cpu_seconds / rayon::current_num_threads() as f64;
        if !args.quiet {
            let free = estimate
                .free_disk
                .map_or("unknown".into(), |f| human_bytes(f as f64));
            // A table written again in one byte a value once every value fits: that size
            // first, as `retro plan` says it.
            let table = match estimate.narrow_table_bytes {
                Some(narrow) => format!(
                    "{}{} in i8 (at most {} where a value does not fit a byte)",
                    if args.compact { "at most " } else { "" },
                    human_bytes(narrow as f64),
                    human_bytes(estimate.table_bytes as f64)
                ),
                None => format!(
                    "{}{}",
                    if p.table_at_most { "at most " } else { "" },
                    human_bytes(estimate.table_bytes as f64)
                ),
            };
            eprintln!(
                "estimate: table {table}, peak memory {} (layers {}: {}), time {}, disk needed {} ({free} free)",
                human_bytes(estimate.peak_memory as f64),
                human_bytes(estimate.layer_memory as f64),
                if p.fixpoint {
                    "a layer solved to a fixpoint and the layers it reads"
                } else {
                    "two adjacent layers"
                },
                human_seconds(seconds),
                human_bytes(estimate.disk_bytes as f64),
            );
        }
        if !args.yes {
            confirm(estimate, seconds, args.force)?;
        }
        if let Some(bar) = &bar {
            bar.set_length(p.positions);
        }
        stop_on_interrupt(args.quiet);
        Ok(())
    };
    let built = build::build_board::<R>(
        board,
        path,
        &options,
        Driver::Parallel,
        &progress,
        &mut before,
    );
    let stopped_in = progress.layer.load(Relaxed);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Err(e) = &built
        && STOP.load(Relaxed)
        && progress::is_interrupted(e)
    {
        eprintln!("{}", interrupted::<R>(path, stopped_in));
        return Ok(crate::error::Exit::Interrupted.code());
    }
    let built = built?;
    let report = &built.report;
    let peak = report
        .peak_rss
        .map_or("unknown".into(), |b| human_bytes(b as f64));
    if args.json {
        super::outln!("{}", built.json)?;
        return Ok(0);
    }
    let resumed = report
        .resumed_below
        .map_or(String::new(), |k| format!(" (resumed below layer {k})"));
    // A folded table says how many entries its positions take.
    let entries = if report.entries == report.positions {
        String::new()
    } else {
        format!(
            " ({} entries: folded by {} symmetries)",
            report.entries, report.symmetries
        )
    };
    super::outln!(
        "{}: {} positions{entries} in {:.2} s{resumed}, {} ({} bytes, {:.3} bytes per position), peak memory {peak}, root value {}",
        path.display(),
        report.positions,
        report.seconds,
        human_bytes(report.file_bytes as f64),
        report.file_bytes,
        // The file's bytes, header and all, as the size before it says.
        report.file_bytes as f64 / report.positions as f64,
        built.root_text
    )?;
    Ok(0)
}

/// A duration for people: "under 1 s", "40 s", "25 min", "3.2 h".
fn human_seconds(s: f64) -> String {
    match s {
        s if s < 1.0 => "under 1 s".into(),
        s if s < 120.0 => format!("about {s:.0} s"),
        s if s < 7200.0 => format!("about {:.0} min", s / 60.0),
        s => format!("about {:.1} h", s / 3600.0),
    }
}

/// Estimated seconds past which a build from a terminal asks before it starts.
const ASK_SECONDS: f64 = 180.0;

/// Ask before a build that would take more than a few minutes (`ASK_SECONDS`) or more than
/// half the memory available, where the input is a terminal: a mistyped board should not
/// start hours of work unseen. Input that is not a terminal (a script, a pipe, the tests)
/// is never asked; nor is a build the checks after this refuse anyway (too large for
/// memory or, without `--force`, for the disk).
fn confirm(estimate: &build::Estimate, seconds: f64, force: bool) -> Result<()> {
    use std::io::{BufRead, IsTerminal, Write};
    let available = crate::memory::available_memory();
    let refused = available.is_some_and(|a| estimate.peak_memory > a)
        || (!force && estimate.free_disk.is_some_and(|f| f < estimate.table_bytes));
    let large = available.is_some_and(|a| estimate.peak_memory > a / 2);
    if refused || !(seconds > ASK_SECONDS || large) || !std::io::stdin().is_terminal() {
        return Ok(());
    }
    let memory = match available {
        Some(a) => format!(
            "{} of the {} of memory available",
            human_bytes(estimate.peak_memory as f64),
            human_bytes(a as f64)
        ),
        None => format!("{} of memory", human_bytes(estimate.peak_memory as f64)),
    };
    eprint!(
        "this build takes {} and {memory}; start it? [y/N] (--yes skips this question) ",
        human_seconds(seconds)
    );
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| crate::error::Error::other(format!("reading the answer: {e}")))?;
    match answer.trim() {
        "y" | "Y" | "yes" | "Yes" => Ok(()),
        _ => Err(crate::error::Error::other(
            "not started: the build was declined",
        )),
    }
}

/// Set by Ctrl-C (or the `--stop-at-check` test hook): the build stops at its next check.
static STOP: AtomicBool = AtomicBool::new(false);

/// The progress bar, and the stop that Ctrl-C asks for (`Progress::stopped`).
struct Stoppable<'a> {
    bar: &'a dyn Progress,
    /// Test hook: ask for the stop at this check.
    stop_at: Option<u64>,
    /// Checks so far.
    checks: AtomicU64,
    /// The layer being computed (`usize::MAX` before the first).
    layer: AtomicUsize,
}

impl Progress for Stoppable<'_> {
    fn layer(&self, k: usize, size: u64) {
        self.layer.store(k, Relaxed);
        self.bar.layer(k, size);
    }
    fn advance(&self, positions: u64) {
        self.bar.advance(positions);
    }
    fn level(&self, k: usize, d: u32) {
        self.bar.level(k, d);
    }
    fn stopped(&self) -> bool {
        if let Some(n) = self.stop_at
            && self.checks.fetch_add(1, Relaxed) + 1 >= n
        {
            STOP.store(true, Relaxed);
        }
        STOP.load(Relaxed)
    }
}

/// On Ctrl-C, ask the build to stop rather than end the process: the solvers check
/// between chunks (the retrograde solver between levels too), drop the layer they were
/// computing and return, so the build ends within a chunk's work with every finished layer
/// in the partial file, and no rewrite of finished layers (a table narrowed to i8) is cut
/// in the middle. A second Ctrl-C ends the process at once: the partial file is consistent
/// at every moment (a layer is listed in its header only once synced), so that keeps the
/// finished layers too.
fn stop_on_interrupt(quiet: bool) {
    // A handler may already be set (a library caller's); then it keeps its own.
    let _ = ctrlc::set_handler(move || {
        if STOP.swap(true, Relaxed) {
            eprintln!("\ninterrupted again: ending now");
            std::process::exit(crate::error::Exit::Interrupted.code());
        }
        if !quiet {
            eprintln!("\nstopping after the chunk being computed (Ctrl-C again ends at once)");
        }
    });
}

/// Under MPI, Ctrl-C or SIGTERM (mpirun passes either on to every rank) ends each rank at
/// once, since the ranks cannot agree to stop between chunks as one process does; rank 0
/// first says what the stop kept, as one process does, from how far the build had gone
/// (`distributed::Stage`): before rank 0 held the partial file, nothing of this build (the
/// file, if any, is not described: it may be another's, or a link); while it holds it, the
/// finished layers the file keeps, which the same command resumes below; while it seals
/// the table, that every layer is in; once the table is sealed, that it is whole (exit 0).
/// A build that has ended and said so (its error, or its summary to come) is let finish.
#[cfg(feature = "mpi")]
fn report_on_interrupt<R: Registry>(path: &Path) {
    use crate::distributed::{Stage, stage};
    let path = path.to_path_buf();
    let first = crate::distributed::launcher_rank() == Some(0);
    let _ = ctrlc::set_handler(move || {
        let stage = stage();
        if stage == Stage::Done {
            return;
        }
        let partial = partial_path(&path);
        // The seal renames the partial file to the table's name last.
        let whole = stage == Stage::Sealed
            || (stage == Stage::Sealing && path.is_file() && !partial.exists());
        if first && !STOP.swap(true, Relaxed) {
            let said = match stage {
                _ if whole => format!(
                    "interrupted after the table was sealed: {} is whole",
                    path.display()
                ),
                Stage::Starting => {
                    "interrupted before the build began; run the same command again".into()
                }
                Stage::Sealing => format!(
                    "interrupted while sealing the table: {} holds every layer; run the same command again to finish it",
                    partial.display()
                ),
                _ => interrupted::<R>(&path, usize::MAX),
            };
            eprintln!("{said}");
        }
        std::process::exit(match whole {
            true => 0,
            false => crate::error::Exit::Interrupted.code(),
        });
    });
}

/// What a stopped build leaves, having last begun layer `at` (`usize::MAX`: none): the
/// finished layers its partial file holds, and how to go on.
fn interrupted<R: Registry>(path: &Path, at: usize) -> String {
    let partial = partial_path(path);
    let kept = crate::table::Table::open_partial::<R>(&partial)
        .ok()
        .and_then(|t| {
            let finished: Vec<usize> = (0..t.header.layers.len())
                .filter(|&k| t.header.finished(k))
                .collect();
            Some((*finished.first()?, *finished.last()?))
        });
    // A build stops after its last layer too, while it reads its layers back to narrow
    // them (a game of the retrograde solver): then it was computing none.
    let during = match kept {
        Some((low, _)) if low <= at => String::new(),
        _ if at == usize::MAX => String::new(),
        _ => format!(" while computing layer {at}"),
    };
    let partial = partial.display();
    match kept {
        Some((low, high)) if low == high => format!(
            "interrupted{during}: {partial} keeps the finished layer {high}; run the same command again to resume"
        ),
        Some((low, high)) => format!(
            "interrupted{during}: {partial} keeps the finished layers {high} down to {low}; run the same command again to resume"
        ),
        None => format!(
            "interrupted{during}: no layer was finished yet ({partial} holds the table's header only); run the same command again to start over"
        ),
    }
}

/// Rank 0's lines for a distributed build: the summary on stdout, the time split on stderr.
#[cfg(feature = "mpi")]
fn print_distributed(
    path: &std::path::Path,
    r: &crate::distributed::DistributedReport,
    quiet: bool,
) -> Result<()> {
    let b = &r.build;
    let resumed = b
        .resumed_below
        .map_or(String::new(), |l| format!(" (resumed below layer {l})"));
    super::outln!(
        "{}: {} positions{} in {:.2} s{resumed}, {} ({} bytes), {} ranks x {} threads, {:.3} bytes exchanged per entry, peak memory {} (largest rank), root value {}",
        path.display(),
        b.positions,
        match b.entries == b.positions {
            true => String::new(),
            false => format!(
                " ({} entries: folded by {} symmetries)",
                b.entries, b.symmetries
            ),
        },
        b.seconds,
        human_bytes(b.file_bytes as f64),
        b.file_bytes,
        r.ranks,
        r.threads,
        r.bytes_exchanged as f64 / b.entries.max(1) as f64,
        human_bytes(b.peak_rss.unwrap_or(0) as f64),
        r.root_text,
    )?;
    if !quiet {
        let s = &r.split;
        eprintln!(
            "rank 0 seconds: compute {:.2}, exchange {:.2} ({} exchanges; the most any rank spent exchanging {:.2}, the most any received {}), write {:.2}, checksum and seal {:.2}",
            s.compute,
            s.exchange,
            s.exchanges,
            s.most_exchange,
            human_bytes(s.most_received as f64),
            s.write,
            s.checksum
        );
    }
    Ok(())
}
