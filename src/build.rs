//! The jobs behind the commands, as library calls (the CLI, the benchmarks and the tests
//! all go through here): solve a board, build a table.

use std::path::Path;
use std::time::Instant;

use crate::error::Error;
use crate::error::Result;
use crate::game::{AnyBoard, Board, Game, Registered, Registry, Visitor};
use crate::memory::{self, free_bytes, peak_rss};
use crate::progress::{self, Progress};
use crate::solve::Driver;
use crate::solve::{self as driver_, StartAt};
use crate::table::Encoding;
use crate::table::blocks;
use crate::table::header::{self, Header};
use crate::table::mapped::GuardedMap;
use crate::table::writer::{Start, TableWriter, partial_path};
use crate::value::Value;
use crate::value::with_value_type;

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
            "bytes_per_position": self.value_bytes as f64 / self.positions as f64,
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
    /// Memory of the two largest adjacent layers, in bytes.
    pub peak_memory: u64,
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
        let table_bytes = sizes.iter().enumerate().fold(values_start, |sum, (k, &n)| {
            sum.saturating_add(layer_bytes(k, n))
        });
        let spills = (encoding == Encoding::Plain).then_some(width as usize);
        let peak_memory =
            driver_::peak_bytes(game, vt.width(), spills).min(u64::MAX as u128) as u64;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let free_disk = options.assume_free.or_else(|| free_bytes(dir));
        Ok(Estimate {
            table_bytes,
            peak_memory,
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
            .table_bytes
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

/// `build` for a front end that has made its checks itself, in the order it reports them
/// (`check_encoding`, then the estimate it prints, `Estimate::check_memory` and
/// `Estimate::check_disk`): the command line and the Python package, so that each check on
/// a build's path is made once.
pub fn build_checked<G: Registered>(
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
pub(crate) fn stored_type<G: Game>(game: &G, options: &BuildOptions) -> crate::value::ValueType {
    if game.values().for_side_to_move() && (game.halved_values() || options.halve) {
        crate::value::ValueType::Halved
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
    use crate::value::ValueType;
    let start = Instant::now();
    let sizes: Vec<u64> = (0..=game.last_layer())
        .map(|k| game.layer_size(k))
        .collect();
    let encoding = options.encoding()?;
    let side_to_move = game.values().for_side_to_move();
    // A partial file goes on in its type: one already narrowed to one byte, or one of
    // the type the solve computes in begun before its game stored halved codes.
    let partial = partial_path(path);
    let stored_type = match crate::table::Table::open_partial::<G>(&partial) {
        Ok(t)
            if !options.fresh
                && (side_to_move
                    && matches!(t.header.value_type, ValueType::I8 | ValueType::Halved)
                    || t.header.value_type == V::TYPE) =>
        {
            t.header.value_type
        }
        _ => stored_type(game, options),
    };
    let (mut writer, from) = TableWriter::open::<G>(
        path,
        AnyBoard::of(game),
        stored_type,
        encoding,
        &sizes,
        options.fresh,
    )?;
    writer.stop_after(options.stop_after);
    let resumed_below = match from {
        Start::Fresh => None,
        Start::Resume { layer } => Some(layer),
    };
    let from = match resumed_below {
        None => StartAt::Top,
        Some(layer) => StartAt::Below {
            layer,
            held: driver_::held_below(game, layer)
                .into_iter()
                .map(|j| Ok((j, writer.read_back::<V>(j)?)))
                .collect::<Result<_>>()?,
        },
    };
    let too_wide = |k: usize, stored: ValueType| {
        Error::other(format!(
            "layer {k}: a value does not fit the table's one-byte values ({}: {})",
            stored.name(),
            match stored {
                ValueType::Halved => "wins in odd plies and losses in even, up to 254",
                _ => "up to 127",
            }
        ))
    };
    let root_value = if let Encoding::Moves { .. } = encoding {
        // The layers of best moves: derived by the driver while each layer's children are
        // at hand.
        let last = game.last_layer();
        let moves_at = |k: usize| !encoding.stores_values(k, last);
        let mut write = |s: driver_::Solved<'_, V>| match s.moves {
            Some(moves) => writer.write_moves(s.layer, moves),
            None => writer.write_layer(s.layer, s.values),
        };
        let hooks = driver_::Hooks {
            on_layer: Some(driver_::OnLayer::Beside(&mut write)),
            map_layer: None,
            moves_at: Some(&moves_at),
        };
        driver_::solve_layers::<G, V, driver_::One>(
            game,
            driver,
            progress,
            from,
            hooks,
            &driver_::One,
        )?
    } else {
        // Finished layers a later layer reads are mapped back from the partial file rather
        // than held (a plain table of the values the solve computes in), each where the
        // writer put it.
        let stored = writer.value_type();
        let spills =
            encoding == Encoding::Plain && (stored == V::TYPE || stored == ValueType::Halved);
        let partial = writer.partial_file().to_path_buf();
        let placed: std::sync::Mutex<Vec<Option<(u64, u64)>>> =
            std::sync::Mutex::new(vec![None; sizes.len()]);
        // The partial file is this build's own, locked against other builds
        // (`crate::table::partial`); its finished layers are never written again while the solve
        // runs (the rewrite to i8 comes after it, once every map is dropped). A program
        // that cuts it short anyway meets the SIGBUS guard of `GuardedMap`, and the solve
        // reports it after the layer that read there.
        let map = |k: usize| -> Option<GuardedMap> {
            let (offset, bytes) = (*placed.lock().ok()?.get(k)?)?;
            let file = std::fs::File::open(&partial).ok()?;
            GuardedMap::range(&file, offset, usize::try_from(bytes).ok()?)
                .ok()
                .flatten()
        };
        let mut write = |s: driver_::Solved<'_, V>| {
            let (k, values) = (s.layer, s.values);
            if stored == V::TYPE {
                writer.write_layer(k, values)?;
            } else {
                // One byte a value: halved codes from the first layer, or a resumed build
                // of a table narrowed to one byte. Every value is checked before any is
                // written, so a layer is whole or absent.
                use rayon::prelude::*;
                if !values
                    .par_iter()
                    .all(|v| one_byte(stored, v.to_i64()).is_some())
                {
                    return Err(too_wide(k, stored));
                }
                writer.write_narrowed(k, values, |v| {
                    one_byte(stored, v.to_i64()).unwrap_or_default()
                })?;
            }
            if let Ok(mut placed) = placed.lock() {
                placed[k] = Some(writer.layer_place(k));
            }
            Ok(())
        };
        let hooks = driver_::Hooks {
            on_layer: Some(driver_::OnLayer::Beside(&mut write)),
            map_layer: spills.then_some(driver_::MapLayer { stored, map: &map }),
            moves_at: None,
        };
        driver_::solve_layers::<G, V, driver_::One>(
            game,
            driver,
            progress,
            from,
            hooks,
            &driver_::One,
        )?
    };
    if side_to_move && writer.value_type().width() > 1 {
        narrow_to_i8(&mut writer, sizes.len(), options.halve, progress)?;
    }
    let mut report = finish(writer, start, &sizes, root_value, resumed_below)?;
    report.positions = (0..=game.last_layer())
        .map(|k| game.layer_positions(k))
        .sum();
    report.symmetries = game.symmetries().max(1) as u32;
    Ok(report)
}

/// A value's byte in a table of one-byte type `stored` (`I8` or `Halved`), if it has one.
pub(crate) fn one_byte(stored: crate::value::ValueType, value: i64) -> Option<i8> {
    match stored {
        crate::value::ValueType::Halved => crate::value::ValueType::halved(value),
        _ => i8::try_from(value).ok(),
    }
}

/// Write a finished table of values for the side to move again in one byte a value if every
/// value fits: as `i8` where each does, else as halved codes (`ValueType::Halved`) where
/// each has one (wins in odd plies and losses in even, up to 254: Nine Men's Morris's moving
/// phase reaches 204).
/// A stop is honoured while the layers are checked (they are all on disk, and a resumed
/// build narrows them), not once they are being rewritten: a stop there would drop the
/// `i16` layers not yet written again, and the rewrite takes seconds where the solve took
/// minutes.
///
/// The layers are read in ranges, never whole as `i64`s: a plain table is rewritten in
/// place, each layer read whole as `i8`s and written where the one before it ended, which
/// is never past where its own `i16`s began (so the rewrite holds one layer's `i8`s, and the
/// disk no second copy). A compact table, whose blocks may not shrink, is read whole first.
fn narrow_to_i8(
    writer: &mut TableWriter,
    layers: usize,
    halve: bool,
    progress: &dyn Progress,
) -> Result<()> {
    use crate::value::ValueType;
    const RANGE: usize = 1 << 22;
    let old = writer.current()?;
    // Do all fit a byte, as i8s or as halved codes? Checked in ranges, a layer at a time.
    let (mut plain, mut halved) = (true, true);
    for k in 0..layers {
        progress::check_stopped(progress)?;
        let size = old.header.layers[k].positions;
        for start in (0..size).step_by(RANGE) {
            let part = old.read_range(k, start, RANGE.min((size - start) as usize))?;
            plain &= part.iter().all(|&v| i8::try_from(v).is_ok());
            halved &= part.iter().all(|&v| ValueType::halved(v).is_some());
            if !plain && !halved {
                return Ok(());
            }
        }
    }
    let stored = if plain && !(halve && halved) {
        ValueType::I8
    } else {
        ValueType::Halved
    };
    let narrow_layer = |k: usize| -> Result<Vec<i8>> {
        let size = old.header.layers[k].positions;
        let mut out = Vec::with_capacity(size as usize);
        for start in (0..size).step_by(RANGE) {
            let part = old.read_range(k, start, RANGE.min((size - start) as usize))?;
            for v in part {
                // Every value was checked above.
                out.push(one_byte(stored, v).unwrap_or_default());
            }
        }
        Ok(out)
    };
    // Layers in the order the file holds them (the build writes the last first).
    let mut order: Vec<usize> = (0..layers).collect();
    order.sort_by_key(|&k| old.header.layers[k].offset);
    if writer.encoding() != crate::table::Encoding::Plain {
        let mut narrow = Vec::with_capacity(layers);
        for k in 0..layers {
            narrow.push(narrow_layer(k)?);
        }
        writer.restart_as(stored)?;
        for &k in &order {
            writer.write_layer(k, &narrow[k])?;
        }
        return Ok(());
    }
    writer.restart_over_as(stored)?;
    for &k in &order {
        let values = narrow_layer(k)?;
        writer.write_layer(k, &values)?;
    }
    writer.cut()
}

/// Seal the table under its name and say what the build did.
fn finish(
    writer: TableWriter,
    start: Instant,
    sizes: &[u64],
    root_value: i64,
    resumed_below: Option<usize>,
) -> Result<BuildReport> {
    let value_bytes = writer.value_bytes();
    let file_bytes = writer.finish()?;
    Ok(BuildReport {
        positions: sizes.iter().sum(),
        entries: sizes.iter().sum(),
        symmetries: 1,
        seconds: start.elapsed().as_secs_f64(),
        file_bytes,
        value_bytes,
        root_value,
        peak_rss: peak_rss(),
        resumed_below,
    })
}

/// `build` for a board of any game of registry `R` (`Builtin` for retro's own games).
pub fn build_board<R: Registry>(
    board: &AnyBoard,
    path: &Path,
    options: &BuildOptions,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    struct Build<'a> {
        path: &'a Path,
        options: &'a BuildOptions,
        driver: Driver,
        progress: &'a dyn Progress,
    }
    impl Visitor for Build<'_> {
        type Output = BuildReport;
        fn visit<G: Registered>(self, game: G) -> Result<BuildReport> {
            build(&game, self.path, self.options, self.driver, self.progress)
        }
    }
    R::visit(
        board,
        Build {
            path,
            options,
            driver,
            progress,
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
