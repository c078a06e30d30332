//! The jobs behind the commands, as library calls (the CLI, the Python package, the
//! benchmarks and the tests all go through here): solve a board, build a table. The checks
//! on a build's path are made here, each once; what the table takes from the solve is
//! `sink.rs`.

use std::path::Path;
use std::time::Instant;

use crate::error::Error;
use crate::error::Result;
use crate::game::{AnyBoard, Board, Game, Registered, Registry, Visitor};
use crate::memory::{self, free_bytes, peak_rss};
use crate::progress::Progress;
use crate::solve as driver_;
use crate::solve::Driver;
use crate::stored::Value;
use crate::stored::with_value_type;
pub mod footprint;
pub(crate) mod sink;

use crate::table::Encoding;
use crate::table::blocks;
use crate::table::header::{self, Header};
use crate::table::writer::partial_path;
use sink::{Layout, TableSink};

/// Value of the empty board, holding only the layers the solve needs at once (after
/// checking they fit in memory).
pub fn solve<G: Game>(game: &G, driver: Driver, progress: &dyn Progress) -> Result<i64> {
    let vt = driver_::value_type(game);
    driver_::check_memory(game, vt.width(), None)?;
    with_value_type!(vt, V => driver_::solve::<G, V>(game, driver, progress))
}

/// What a finished build reports.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// Positions the table answers for.
    pub positions: u64,
    /// Entries it stores: the positions, or one per orbit where the game folds them.
    pub entries: u64,
    /// How many positions the game's symmetries fold onto one entry at most (1: none).
    pub symmetries: u32,
    /// Wall time of the build, in seconds.
    pub seconds: f64,
    /// Size of the table file in bytes.
    pub file_bytes: u64,
    /// Bytes of values (without header and padding).
    pub value_bytes: u64,
    /// Value of the empty board.
    pub root_value: i64,
    /// Peak resident memory of the process (VmHWM), where the OS reports it.
    pub peak_rss: Option<u64>,
    /// The layer a resumed build continued below, if it resumed.
    pub resumed_below: Option<usize>,
}

impl BuildReport {
    /// The object `retro build --json` prints for this build of `game` into `path`. The
    /// root's stored number is `root_value` for a game of scores; a game that ends in a win,
    /// a loss, a tie or a draw stores a code, given as `root_code` beside `root_result` and
    /// `root_remoteness` (as `info --json` gives them).
    pub fn to_json<G: Registered>(&self, game: &G, path: &Path) -> serde_json::Value {
        let mut out = serde_json::json!({
            "table": path.display().to_string(),
            "game": G::NAME,
            "board": game.board().label(),
            "positions": self.positions,
            "entries": self.entries,
            "symmetries": self.symmetries,
            "seconds": self.seconds,
            "file_bytes": self.file_bytes,
            "value_bytes": self.value_bytes,
            "value_bytes_per_position": self.value_bytes as f64 / self.positions as f64,
            "peak_rss": self.peak_rss,
            "resumed_below": self.resumed_below,
        });
        match game.outcome(self.root_value, 0) {
            Some(o) => {
                out["root_code"] = self.root_value.into();
                out["root_result"] = o.result.as_str().into();
                out["root_remoteness"] = o.remoteness.into();
            }
            None => out["root_value"] = self.root_value.into(),
        }
        out
    }
}

/// How to build.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Store values in blocks of per-block bit widths.
    pub compact: bool,
    /// Store best moves (`Some(L)`): values in every L-th layer and the full layer only,
    /// compact; every other layer holds each position's first best move.
    pub moves: Option<u32>,
    /// Ignore an interrupted build's partial file and start over.
    pub fresh: bool,
    /// Skip the free-disk check.
    pub force: bool,
    /// Test hook: stop after writing this layer.
    pub stop_after: Option<usize>,
    /// Test hook: pretend the output file system has this many free bytes.
    pub assume_free: Option<u64>,
    /// Test hook: store values for the side to move as halved codes
    /// (`ValueType::Halved`) from the first layer on, as `Game::halved_values` asks, for a
    /// game whose values `i8` holds too (so that the two tables can be compared).
    pub halve: bool,
}

impl BuildOptions {
    /// The encoding these options ask for; `--moves 0` is refused.
    pub fn encoding(&self) -> Result<Encoding> {
        match self.moves {
            Some(0) => Err(Error::input(
                "--moves 0: values must be stored every L >= 1 layers",
            )),
            Some(values_every) => Ok(Encoding::Moves { values_every }),
            None if self.compact => Ok(Encoding::Blocked),
            None => Ok(Encoding::Plain),
        }
    }
}

/// What a build will need, worked out before anything is allocated.
#[derive(Debug, Clone)]
pub struct Estimate {
    /// Plain tables: exact; compact tables: the most they can take.
    pub table_bytes: u64,
    /// The disk the build holds at its peak: the table, and where it is written again in
    /// one byte a value at the end, the one-byte copies beside it
    /// (`TableWriter::rewrite`).
    pub disk_bytes: u64,
    /// Each layer's bytes in the table (`table_bytes` is their sum and the header).
    pub layer_bytes: Vec<u64>,
    /// The table's size once written again in one byte a value, where a build does that
    /// when every value fits a byte (values for the side to move computed wider); a table
    /// with a value that does not fit stays `table_bytes`.
    pub narrow_table_bytes: Option<u64>,
    /// Memory of the layers the solve holds at once at its peak (for a placement game the
    /// two largest adjacent layers), in bytes.
    pub layer_memory: u64,
    /// The same, while it solves each layer (`layer_memory` is the largest).
    pub layer_peaks: Vec<u64>,
    /// Bytes the final rewrite in one byte a value holds at once (0: none;
    /// `footprint::narrowing_bytes`), which a process holds in place of its layers.
    pub narrowing_bytes: u64,
    /// The process's peak resident memory: the layers, the game's ranking tables, the
    /// binary and its buffers (`footprint::process_bytes`).
    pub peak_memory: u64,
    /// CPU seconds the solve takes on one thread of a box like the one the costs were
    /// measured on (`footprint::seconds`).
    pub cpu_seconds: f64,
    /// Free bytes on the output's file system, where known.
    pub free_disk: Option<u64>,
}

impl Estimate {
    /// Work out what building `game`'s table into `path` will take.
    pub fn of<G: Registered>(game: &G, path: &Path, options: &BuildOptions) -> Result<Estimate> {
        let vt = driver_::value_type(game);
        let width = stored_type(game, options).width() as u64;
        let encoding = options.encoding()?;
        let sizes: Vec<u64> = (0..=game.last_layer())
            .map(|k| game.layer_size(k))
            .collect();
        let header = Header::blank(AnyBoard::of(game), vt, encoding, &sizes);
        let values_start = header::values_start(header::encode(&header)?.len() as u64);
        // A best move takes at most a byte (its index is at most `MAX_INDEX`).
        let layer_bytes = |k: usize, n: u64| {
            let width = if encoding.stores_values(k, game.last_layer()) {
                width
            } else {
                1
            };
            if encoding.blocked() {
                blocks::layer_bytes_bound(n, width)
            } else {
                n.saturating_mul(width)
            }
        };
        let layer_bytes: Vec<u64> = sizes
            .iter()
            .enumerate()
            .map(|(k, &n)| layer_bytes(k, n))
            .collect();
        let table_bytes = layer_bytes
            .iter()
            .fold(values_start, |sum, &b| sum.saturating_add(b));
        let spills = (encoding == Encoding::Plain).then_some(width as usize);
        let fixpoint = driver_::planned_fixpoint(game, vt.width(), spills);
        let layer_peaks: Vec<u64> = driver_::layer_peak_bytes(game, vt.width(), spills, fixpoint)
            .into_iter()
            .map(|b| b.min(u64::MAX as u128) as u64)
            .collect();
        let layer_memory = layer_peaks.iter().copied().max().unwrap_or(0);
        let narrowing = footprint::narrowing_bytes(game, vt.width() as u64, width);
        let copies = match narrowing {
            0 => 0,
            _ => sizes.iter().enumerate().fold(0u64, |sum, (k, &n)| {
                let one_byte = match encoding.blocked() {
                    true => blocks::layer_bytes_bound(n, 1),
                    false => n,
                };
                sum.saturating_add(if encoding.stores_values(k, game.last_layer()) {
                    one_byte
                } else {
                    0
                })
            }),
        };
        let peak_memory = footprint::process_bytes(game, layer_memory, narrowing);
        let cpu_seconds = footprint::seconds(
            game,
            footprint::costs(G::NAME, &game.board().label()),
            vt.width() as u64,
            table_bytes,
        );
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let free_disk = options.assume_free.or_else(|| free_bytes(dir));
        Ok(Estimate {
            table_bytes,
            disk_bytes: table_bytes.saturating_add(copies),
            layer_bytes,
            // The rewrite writes the one-byte copies after a header like this one.
            narrow_table_bytes: (narrowing > 0).then(|| values_start.saturating_add(copies)),
            layer_memory,
            layer_peaks,
            narrowing_bytes: narrowing,
            peak_memory,
            cpu_seconds,
            free_disk,
        })
    }

    /// Refuse a board whose build does not fit in available memory (a plain table's
    /// finished layers are read back from the file, so it holds less).
    pub fn check_memory<G: Game>(game: &G, options: &BuildOptions) -> Result<()> {
        let spills =
            (options.encoding()? == Encoding::Plain).then_some(stored_type(game, options).width());
        driver_::check_memory(game, driver_::value_type(game).width(), spills)
    }

    /// Refuse a build whose process would not fit in available memory: its layers fit
    /// (`check_memory`), but not with the game's ranking tables and the rest the process
    /// holds (`peak_memory`).
    pub fn check_process_memory(&self) -> Result<()> {
        match memory::available_memory() {
            Some(avail) if self.peak_memory > avail => Err(Error::too_large(format!(
                "board too large for memory: the build needs about {} at its peak ({} of layers, the rest the game's ranking tables and the process), {} available",
                memory::human_bytes(self.peak_memory as f64),
                memory::human_bytes(self.layer_memory as f64),
                memory::human_bytes(avail as f64)
            ))),
            _ => Ok(()),
        }
    }

    /// Refuse a build the output file system has no room for (unless forced).
    pub fn check_disk(&self, path: &Path, options: &BuildOptions) -> Result<()> {
        if options.force {
            return Ok(());
        }
        // A resumed build already holds part of the table on disk.
        let held = std::fs::metadata(partial_path(path))
            .map(|m| m.len())
            .unwrap_or(0);
        let need = self
            .disk_bytes
            .saturating_sub(if options.fresh { 0 } else { held });
        match self.free_disk {
            Some(free) if free < need => Err(Error::too_large(format!(
                "not enough disk for {}: the table needs about {}, the file system has {} free (--force skips this check)",
                path.display(),
                memory::human_bytes(need as f64),
                memory::human_bytes(free as f64)
            ))),
            _ => Ok(()),
        }
    }
}

/// Solve the board and write its complete table to `path`, resuming an interrupted build
/// of the same board unless told otherwise.
///
/// A game whose values are for the side to move is solved in `i16` and written as it is
/// solved, layer by layer as for any game (so a build resumes below its last finished
/// layer); once every layer is in, the largest remoteness is known, and a table whose values
/// all fit in `i8` is written again in `i8` before it takes its name. A build interrupted
/// during that rewrite resumes in `i8`.
pub fn build<G: Registered>(
    game: &G,
    path: &Path,
    options: &BuildOptions,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    check_encoding(game, options)?;
    Estimate::check_memory(game, options)?;
    build_checked(game, path, options, driver, progress)
}

/// `build` once the checks are made.
fn build_checked<G: Registered>(
    game: &G,
    path: &Path,
    options: &BuildOptions,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    let vt = driver_::value_type(game);
    with_value_type!(vt, V => build_layers::<G, V>(game, path, options, driver, progress))
}

/// The type a fresh build of `game` writes its values in: halved one-byte codes from the
/// first layer on where the game's values have them (`Game::halved_values`, or the test
/// hook), else the type the solve computes in (a game of values for the side to move
/// narrows its table to one byte once every value is known).
pub(crate) fn stored_type<G: Game>(game: &G, options: &BuildOptions) -> crate::stored::ValueType {
    if game.values().for_side_to_move() && (game.halved_values() || options.halve) {
        crate::stored::ValueType::Halved
    } else {
        driver_::value_type(game)
    }
}

/// Refuse options the game cannot be built with: a table of best moves for a game whose
/// layers the placement sweep does not solve (moves stay inside layers, so a layer's values
/// depend on each other, and a best move's index could not be resolved layer by layer).
pub fn check_encoding<G: Registered>(game: &G, options: &BuildOptions) -> Result<()> {
    if options.moves.is_some() && driver_::beyond_sweep(game) {
        return Err(Error::input(format!(
            "--moves: a table of {} cannot store best moves instead of values (its moves stay inside layers, so a layer's values depend on each other); build it plain or --compact",
            G::NAME
        )));
    }
    Ok(())
}

fn build_layers<G: Registered, V: Value>(
    game: &G,
    path: &Path,
    options: &BuildOptions,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    let start = Instant::now();
    let layout = layout(game, options)?;
    let mut sink = TableSink::open::<G, V>(game, path, &layout)?;
    let resumed_below = sink.resumed_below();
    let root_value = sink.solve::<G, V, _>(game, driver, progress, &driver_::One)?;
    let sealed = sink
        .seal(progress)?
        .ok_or_else(|| Error::other("a build on one process has no table writer"))?;
    Ok(BuildReport {
        positions: (0..=game.last_layer())
            .map(|k| game.layer_positions(k))
            .sum(),
        entries: sealed.entries,
        symmetries: game.symmetries().max(1) as u32,
        seconds: start.elapsed().as_secs_f64(),
        file_bytes: sealed.file_bytes,
        value_bytes: sealed.value_bytes,
        root_value,
        peak_rss: peak_rss(),
        resumed_below,
    })
}

/// How a build of `game` with `options` lays out its table (on one process or over MPI
/// ranks alike).
pub(crate) fn layout<G: Game>(game: &G, options: &BuildOptions) -> Result<Layout> {
    Ok(Layout {
        encoding: options.encoding()?,
        stored: stored_type(game, options),
        fresh: options.fresh,
        stop_after: options.stop_after,
        halve: options.halve,
    })
}

/// What a build will take, worked out before it starts: for a front end to say, and to
/// size its progress bar by.
pub struct Prepared<'a> {
    /// The table's size and the memory and disk the build needs.
    pub estimate: &'a Estimate,
    /// Whether the table's size is the most it takes (a compact table, or one whose values
    /// are narrowed once known) rather than its size.
    pub table_at_most: bool,
    /// Whether a layer is solved to a fixpoint: the memory is then that layer's and the
    /// layers it reads, not two adjacent layers'.
    pub fixpoint: bool,
    /// The positions the solve walks (a progress bar's total).
    pub positions: u64,
}

/// A finished build of a board of any game, with what its game says of it.
pub struct Built {
    /// What the build did.
    pub report: BuildReport,
    /// `retro build --json`'s object (`BuildReport::to_json`).
    pub json: serde_json::Value,
    /// The empty board's value in words (`Gameplay::root_text`); a table without a start
    /// says so and names where it opens, with the value there (`RootWords::line`).
    pub root_text: String,
}

impl Built {
    /// What a build of `game` into `path` reports, in words and as JSON.
    pub fn of<G: Registered>(game: &G, path: &Path, report: BuildReport) -> Result<Built> {
        let mut json = report.to_json(game, path);
        let root_text = match game.start_position() {
            Some(_) => game.root_text(report.root_value),
            // No start: the position the table opens on, named, with its value read back
            // from the table just written.
            None => {
                let table = crate::table::Table::open_in::<G>(path)?;
                let root = crate::answers::info::RootWords::of(game, &table)?;
                root.add_to(&mut json);
                root.line()
            }
        };
        Ok(Built {
            json,
            root_text,
            report,
        })
    }
}

/// Build a board of any game of registry `R` (`Builtin` for retro's own games) into
/// `path`, as the command line and the Python package do: the checks on a build's path,
/// each made once and in the order a user hears of them (options the game cannot be
/// built with; another build holding this table; then `before`, told the estimate; the
/// memory; the disk), then the build.
pub fn build_board<R: Registry>(
    board: &AnyBoard,
    path: &Path,
    options: &BuildOptions,
    driver: Driver,
    progress: &dyn Progress,
    before: &mut dyn FnMut(&Prepared<'_>) -> Result<()>,
) -> Result<Built> {
    struct Build<'a> {
        path: &'a Path,
        options: &'a BuildOptions,
        driver: Driver,
        progress: &'a dyn Progress,
        before: &'a mut dyn FnMut(&Prepared<'_>) -> Result<()>,
    }
    impl Visitor for Build<'_> {
        type Output = Built;
        fn visit<G: Registered>(self, game: G) -> Result<Built> {
            let Build {
                path,
                options,
                driver,
                progress,
                before,
            } = self;
            // A request that cannot be built is the more useful thing to hear first.
            check_encoding(&game, options)?;
            crate::table::partial::check_unlocked(path, crate::table::partial::Kind::Table)?;
            let estimate = Estimate::of(&game, path, options)?;
            before(&Prepared {
                estimate: &estimate,
                table_at_most: options.encoding()?.blocked() || game.values().for_side_to_move(),
                fixpoint: driver_::beyond_sweep(&game),
                positions: game.total_positions(),
            })?;
            // Memory before disk: a board that cannot be swept at all is the more useful
            // thing to hear.
            Estimate::check_memory(&game, options)
                .map_err(|e| e.then_say(game.when_too_large()))?;
            estimate
                .check_process_memory()
                .map_err(|e| e.then_say(game.when_too_large()))?;
            estimate.check_disk(path, options)?;
            let report = build_checked(&game, path, options, driver, progress)?;
            Built::of(&game, path, report)
        }
    }
    R::visit(
        board,
        Build {
            path,
            options,
            driver,
            progress,
            before,
        },
    )
}

/// `solve` for a board of any game of registry `R`.
pub fn solve_board<R: Registry>(
    board: &AnyBoard,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<i64> {
    struct Solve<'a> {
        driver: Driver,
        progress: &'a dyn Progress,
    }
    impl Visitor for Solve<'_> {
        type Output = i64;
        fn visit<G: Registered>(self, game: G) -> Result<i64> {
            solve(&game, self.driver, self.progress)
        }
    }
    R::visit(board, Solve { driver, progress })
}
