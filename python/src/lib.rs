//! `retro._retro`: the Rust half of the Python package `retro` (`python/retro/` is the
//! other half, which callers import). Every answer comes from the same library functions
//! the command line calls (`probe::Prober::query_json` for `query --json`,
//! `summary::info_json` for `info --json`, `job::build`, `job::solve`), so the two cannot
//! drift apart. Long work releases the GIL; nothing here panics on what a caller passes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyIndexError, PyOSError, PyPermissionError, PyRuntimeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList, PyString};
use rayon::prelude::*;

use retro::error::{Error, Kind};
use retro::game::{Builtin, Gameplay, Registered, Registry, Visitor};
use retro::job::{self, BuildOptions, Estimate};
use retro::probe::{self, MoveStyle, Prober};
use retro::sweep::{Driver, Progress};

create_exception!(
    retro,
    TableError,
    PyException,
    "A table file that is damaged, truncated, foreign or of another version."
);

/// retro's error as the Python exception a caller expects, with the command line's
/// one-line message: a damaged or foreign table is a `TableError`, bad input (a position,
/// a board, an option) a `ValueError`, an operating-system failure an `OSError` of its
/// kind, anything else a `RuntimeError`.
fn py_err(e: Error) -> PyErr {
    let message = e.to_string();
    match e.kind() {
        Kind::Input => PyValueError::new_err(message),
        Kind::Corrupt => TableError::new_err(message),
        Kind::Io(std::io::ErrorKind::NotFound) => PyFileNotFoundError::new_err(message),
        Kind::Io(std::io::ErrorKind::PermissionDenied) => PyPermissionError::new_err(message),
        Kind::Io(_) => PyOSError::new_err(message),
        Kind::TooLarge | Kind::Other => PyRuntimeError::new_err(message),
    }
}

/// A JSON value as the Python object `json.loads` would give for it.
fn to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, value) in map {
                dict.set_item(key, to_py(py, value)?)?;
            }
            dict.into_any()
        }
    })
}

/// Little-endian bytes of `values`, for `numpy.frombuffer` on the Python side (one copy
/// into a `bytearray`, no NumPy C API to build against).
fn le_bytes<T: Copy, const N: usize>(values: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * N);
    for &v in values {
        out.extend_from_slice(&f(v));
    }
    out
}

/// The positions of a batch that are not positions of the game: their index and the input
/// error's message.
type Bad = Vec<(usize, String)>;

/// Positions per chunk of parallel work: as the sweep and export use.
const CHUNK: usize = 1 << 13;

/// A layer's columns, as `retro export` writes its rows (see `Probe::layer`).
#[derive(Default)]
struct LayerColumns {
    values: Vec<i64>,
    /// 0 win, 1 loss, 2 tie, 3 draw (for the side to move); empty for a game of scores.
    results: Vec<i8>,
    remoteness: Vec<i64>,
    positions: Vec<String>,
    /// 0 first, 1 second, 2 none (play has ended).
    to_move: Vec<i8>,
    best_moves: Vec<Option<String>>,
}

/// What the table object needs of its game, behind a trait object: the table's game is
/// known only once its header is read (`Builtin::visit`).
trait Probe: Send + Sync {
    /// `query --json`'s object (with `pv` when asked for).
    fn query(&self, table: &retro::Table, text: &str, pv: bool)
    -> retro::Result<serde_json::Value>;
    /// `query --pv --json`'s `pv` array.
    fn pv(&self, table: &retro::Table, text: &str) -> retro::Result<serde_json::Value>;
    /// The value of each position (`query --batch`): per position its value or its
    /// input error; another error (a damaged table) stops the whole batch.
    fn values(&self, table: &retro::Table, texts: &[&str]) -> retro::Result<(Vec<i64>, Bad)>;
    /// Layer `k`'s values (and outcomes), with the positions' text and first best moves
    /// when asked for.
    fn layer(
        &self,
        table: &retro::Table,
        k: usize,
        text: bool,
        moves: bool,
    ) -> retro::Result<LayerColumns>;
    /// The position of rank `rank` in layer `k`, in the game's notation.
    fn position(&self, k: usize, rank: u64) -> retro::Result<String>;
    /// A position's layer and rank.
    fn locate(&self, text: &str) -> retro::Result<(usize, u64)>;
    /// Whether the game's values are wins, losses, ties or draws with a remoteness.
    fn has_outcomes(&self) -> bool;
}

struct Game<G>(G);

/// The result code of `LayerColumns::results`.
fn result_code(v: retro::game::Verdict) -> i8 {
    use retro::game::Verdict;
    match v {
        Verdict::Win => 0,
        Verdict::Loss => 1,
        Verdict::Tie => 2,
        Verdict::Draw => 3,
    }
}

impl<G: Registered> Game<G> {
    fn checked_layer(&self, k: usize) -> retro::Result<u64> {
        let cells = self.0.cells();
        if k > cells {
            return Err(Error::input(format!(
                "layer {k} is out of range: the table has layers 0..={cells}"
            )));
        }
        Ok(self.0.layer_size(k))
    }

    /// Layer `k`'s positions `start..start + count`.
    fn layer_chunk(
        &self,
        table: &retro::Table,
        k: usize,
        start: u64,
        count: usize,
        text: bool,
        moves: bool,
    ) -> retro::Result<LayerColumns> {
        let game = &self.0;
        let values = table.read_range(k, start, count)?;
        let mut out = LayerColumns::default();
        if self.has_outcomes() {
            for &v in &values {
                // Every value of a game with outcomes has one.
                let o = game.outcome(v, k).ok_or_else(|| {
                    Error::corrupt(format!(
                        "{}: value {v} in layer {k} is not a value of {}",
                        table.path().display(),
                        G::NAME
                    ))
                })?;
                out.results.push(result_code(o.result));
                out.remoteness.push(o.remoteness as i64);
            }
        }
        if text || moves {
            let mut pos = game.unrank(k, start);
            for (i, &value) in values.iter().enumerate() {
                if i > 0 {
                    game.advance(&mut pos);
                }
                if text {
                    out.positions.push(game.format_position(&pos));
                }
                if moves {
                    let best = first_best_move(game, table, &pos, value)?;
                    // Nobody moves where play has ended, as `retro export` says.
                    out.to_move.push(match (&best, game.first_to_move(&pos)) {
                        (None, _) => 2,
                        (Some(_), true) => 0,
                        (Some(_), false) => 1,
                    });
                    out.best_moves.push(best);
                }
            }
        }
        out.values = values;
        Ok(out)
    }
}

/// The first best move (`retro::export::best_move`, the rule `retro export` uses), written
/// as export writes its `best_move` field; None where nobody moves.
fn first_best_move<G: Gameplay>(
    game: &G,
    table: &retro::Table,
    pos: &G::Position,
    value: i64,
) -> retro::Result<Option<String>> {
    Ok(retro::export::best_move(game, table, pos, value)?.map(|b| {
        probe::from_to_text(
            game.move_notation(),
            MoveStyle::Field,
            b.from,
            b.to.0,
            b.to.1,
        )
    }))
}

impl<G: Registered> Probe for Game<G> {
    fn query(
        &self,
        table: &retro::Table,
        text: &str,
        pv: bool,
    ) -> retro::Result<serde_json::Value> {
        self.0.query_json(table, text, pv)
    }

    fn pv(&self, table: &retro::Table, text: &str) -> retro::Result<serde_json::Value> {
        let answer = probe::answer_text(&self.0, table, text)?;
        let steps = probe::principal_variation(&self.0, table, &answer.position)?;
        Ok(probe::pv_json(&self.0, &steps))
    }

    fn values(&self, table: &retro::Table, texts: &[&str]) -> retro::Result<(Vec<i64>, Bad)> {
        let game = &self.0;
        let mut values = vec![0i64; texts.len()];
        // What `query --batch` does per line: parse, refuse an unreachable position, read
        // one entry.
        let bad: Vec<Bad> = values
            .par_chunks_mut(CHUNK)
            .zip(texts.par_chunks(CHUNK))
            .enumerate()
            .map(|(c, (out, texts))| {
                let mut bad = Vec::new();
                for (i, (v, text)) in out.iter_mut().zip(texts).enumerate() {
                    let looked_up = game
                        .parse_position(text)
                        .and_then(|pos| game.check_reachable(&pos).map(|()| pos))
                        .and_then(|pos| table.value(game.layer_of(&pos), game.rank(&pos)));
                    match looked_up {
                        Ok(value) => *v = value,
                        Err(e) if e.is_input() => bad.push((c * CHUNK + i, e.to_string())),
                        Err(e) => return Err(e),
                    }
                }
                Ok(bad)
            })
            .collect::<retro::Result<_>>()?;
        Ok((values, bad.into_iter().flatten().collect()))
    }

    fn layer(
        &self,
        table: &retro::Table,
        k: usize,
        text: bool,
        moves: bool,
    ) -> retro::Result<LayerColumns> {
        let size = self.checked_layer(k)?;
        let chunks: Vec<LayerColumns> = (0..size.div_ceil(CHUNK as u64))
            .into_par_iter()
            .map(|c| {
                let start = c * CHUNK as u64;
                let count = (CHUNK as u64).min(size - start) as usize;
                self.layer_chunk(table, k, start, count, text, moves)
            })
            .collect::<retro::Result<_>>()?;
        let mut all = LayerColumns::default();
        for c in chunks {
            all.values.extend(c.values);
            all.results.extend(c.results);
            all.remoteness.extend(c.remoteness);
            all.positions.extend(c.positions);
            all.to_move.extend(c.to_move);
            all.best_moves.extend(c.best_moves);
        }
        Ok(all)
    }

    fn position(&self, k: usize, rank: u64) -> retro::Result<String> {
        let size = self.checked_layer(k)?;
        if rank >= size {
            return Err(Error::input(format!(
                "rank {rank} is out of range: layer {k} has {size} positions"
            )));
        }
        Ok(self.0.format_position(&self.0.unrank(k, rank)))
    }

    fn locate(&self, text: &str) -> retro::Result<(usize, u64)> {
        let pos = self.0.parse_position(text)?;
        Ok((self.0.stones(&pos), self.0.rank(&pos)))
    }

    fn has_outcomes(&self) -> bool {
        self.0.outcome(0, 0).is_some()
    }
}

/// Builds the `Probe` of a table's game.
struct MakeProbe;

impl Visitor for MakeProbe {
    type Output = Box<dyn Probe>;
    fn visit<G: Registered>(self, game: G) -> retro::Result<Box<dyn Probe>> {
        Ok(Box::new(Game(game)))
    }
}

/// An open table: the file (read through a memory map, each layer's checksum checked on
/// its first read, as `query --batch` and `export` read) and its game.
#[pyclass(frozen, module = "retro._retro")]
struct RawTable {
    table: retro::Table,
    game: Box<dyn Probe>,
}

#[pymethods]
impl RawTable {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        py.detach(|| {
            let table = retro::Table::open(&path)?
                .with_mmap()?
                .check_layers_as_read();
            let game = Builtin::visit(&table.header.game, MakeProbe)?;
            Ok(RawTable { table, game })
        })
        .map_err(py_err)
    }

    /// `info --json`'s object; `check` verifies the value checksum first (reads the file).
    fn info<'py>(&self, py: Python<'py>, check: bool) -> PyResult<Bound<'py, PyAny>> {
        let info = py
            .detach(|| retro::summary::info_json::<Builtin>(&self.table, check))
            .map_err(py_err)?;
        to_py(py, &info)
    }

    fn query<'py>(&self, py: Python<'py>, position: &str, pv: bool) -> PyResult<Bound<'py, PyAny>> {
        let answer = py
            .detach(|| self.game.query(&self.table, position, pv))
            .map_err(py_err)?;
        to_py(py, &answer)
    }

    fn pv<'py>(&self, py: Python<'py>, position: &str) -> PyResult<Bound<'py, PyAny>> {
        let steps = py
            .detach(|| self.game.pv(&self.table, position))
            .map_err(py_err)?;
        to_py(py, &steps)
    }

    /// Values of the positions in `text`, one per line (`count` of them): the values as
    /// little-endian i64 bytes, and the input errors as (index, message).
    fn values<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        count: usize,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bad)> {
        let texts: Vec<&str> = if count == 0 {
            Vec::new()
        } else {
            text.split('\n').collect()
        };
        if texts.len() != count {
            return Err(PyValueError::new_err(
                "a position holds a line break: not a position",
            ));
        }
        let (values, bad) = py
            .detach(|| {
                let answered = self.game.values(&self.table, &texts);
                // A file written over while it was read gives garbage: that is the error.
                self.table.unless_changed(answered)
            })
            .map_err(py_err)?;
        let bytes = py.detach(|| le_bytes(&values, i64::to_le_bytes));
        Ok((PyByteArray::new(py, &bytes), bad))
    }

    /// Layer `k`'s columns: a dict of little-endian bytes (values i64, results i8,
    /// remoteness i64, to_move i8) and lists (positions, best moves).
    fn layer<'py>(
        &self,
        py: Python<'py>,
        k: usize,
        text: bool,
        moves: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let columns = py
            .detach(|| {
                self.table
                    .unless_changed(self.game.layer(&self.table, k, text, moves))
            })
            .map_err(py_err)?;
        let out = PyDict::new(py);
        let (values, results, remoteness) = py.detach(|| {
            (
                le_bytes(&columns.values, i64::to_le_bytes),
                le_bytes(&columns.results, i8::to_le_bytes),
                le_bytes(&columns.remoteness, i64::to_le_bytes),
            )
        });
        out.set_item("value", PyByteArray::new(py, &values))?;
        if self.game.has_outcomes() {
            out.set_item("result", PyByteArray::new(py, &results))?;
            out.set_item("remoteness", PyByteArray::new(py, &remoteness))?;
        }
        if text {
            out.set_item("position", PyList::new(py, &columns.positions)?)?;
        }
        if moves {
            let to_move = le_bytes(&columns.to_move, i8::to_le_bytes);
            out.set_item("to_move", PyByteArray::new(py, &to_move))?;
            out.set_item("best_move", PyList::new(py, &columns.best_moves)?)?;
        }
        Ok(out)
    }

    fn position(&self, k: usize, rank: u64) -> PyResult<String> {
        self.game.position(k, rank).map_err(|e| match e.kind() {
            Kind::Input => PyIndexError::new_err(e.to_string()),
            _ => py_err(e),
        })
    }

    fn locate(&self, position: &str) -> PyResult<(usize, u64)> {
        self.game.locate(position).map_err(py_err)
    }

    fn has_outcomes(&self) -> bool {
        self.game.has_outcomes()
    }
}

/// What a running build or solve reports, read by the Python thread that waits for it.
struct Watch {
    done: AtomicU64,
    total: AtomicU64,
    /// The layer being computed; `usize::MAX` before the first.
    layer: AtomicUsize,
    stop: AtomicBool,
}

impl Watch {
    fn new() -> Watch {
        Watch {
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            layer: AtomicUsize::new(usize::MAX),
            stop: AtomicBool::new(false),
        }
    }
}

impl Progress for Watch {
    fn layer(&self, k: usize, _size: u64) {
        self.layer.store(k, Relaxed);
    }
    fn advance(&self, positions: u64) {
        self.done.fetch_add(positions, Relaxed);
    }
    fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }
}

/// How often the waiting Python thread looks at signals and calls the progress callback.
const POLL: Duration = Duration::from_millis(100);

/// More worker threads than this many per core only cost start-up time (as the command
/// line's `--threads`).
const THREADS_PER_CORE: usize = 4;

/// A pool of `threads` workers, or None for rayon's global pool (all cores); refuses the
/// counts `--threads` refuses.
fn pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
    let Some(n) = threads else { return Ok(None) };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let limit = THREADS_PER_CORE * cores;
    if n == 0 {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    if n > limit {
        return Err(PyValueError::new_err(format!(
            "threads={n} is too many: at most {limit} ({THREADS_PER_CORE} per core, {cores} cores here)"
        )));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map(Some)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start worker threads: {e}")))
}

/// Run `work` on a thread of its own (on `pool` where given) while this thread, the
/// caller's, waits without the GIL: every `POLL` it takes the GIL back briefly to let
/// Python handle signals (Ctrl-C raises `KeyboardInterrupt` here, in the main thread) and
/// to call `callback(done, total, layer)`. A signal's exception, or the callback's own,
/// asks the work to stop (`Progress::stopped`) and is raised once it has: a build then
/// leaves its partial file with every finished layer, to resume from.
fn watched<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    callback: Option<Bound<'_, PyAny>>,
    work: impl FnOnce(&Watch) -> retro::Result<T> + Send,
) -> PyResult<T> {
    let pool = pool(threads)?;
    let watch = Watch::new();
    let mut raised: Option<PyErr> = None;
    let outcome = std::thread::scope(|scope| {
        let (tx, mut rx) = mpsc::channel();
        let watch = &watch;
        let pool = &pool;
        scope.spawn(move || {
            let run = || work(watch);
            let result = match pool {
                Some(pool) => pool.install(run),
                None => run(),
            };
            // The receiver waits until it hears from us.
            let _ = tx.send(result);
        });
        loop {
            // The receiver goes along (it is Send, not Sync) and comes back.
            let received;
            (received, rx) = py.detach(move || (rx.recv_timeout(POLL), rx));
            let finished = match received {
                Ok(result) => Some(result),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                // The worker ended without a word: it panicked (the scope re-raises it).
                Err(mpsc::RecvTimeoutError::Disconnected) => Some(Err(Error::other(
                    "internal error: the worker thread panicked",
                ))),
            };
            if raised.is_none() {
                let reported = py.check_signals().and_then(|()| match &callback {
                    Some(f) => {
                        let layer = watch.layer.load(Relaxed);
                        let layer = (layer != usize::MAX).then_some(layer);
                        let total = watch.total.load(Relaxed);
                        // The final call says the work is all done.
                        let done = match &finished {
                            Some(Ok(_)) => total,
                            _ => watch.done.load(Relaxed).min(total),
                        };
                        f.call1((done, total, layer)).map(drop)
                    }
                    None => Ok(()),
                });
                if let Err(e) = reported {
                    watch.stop.store(true, Relaxed);
                    raised = Some(e);
                }
            }
            if let Some(result) = finished {
                return result;
            }
        }
    });
    match (raised, outcome) {
        // Stopped (or finished just as it was asked to stop): the caller's exception.
        (Some(e), _) => Err(e),
        (None, result) => result.map_err(py_err),
    }
}

/// The board of `game` in `text` (`source` names where it came from, for messages).
fn parse_board(
    game: &str,
    text: &str,
    source: Option<&str>,
    rows: Option<usize>,
    cols: Option<usize>,
) -> PyResult<retro::AnyBoard> {
    Builtin::parse(game, text, rows, cols)
        .map_err(|e| match source {
            Some(s) => e.context(s),
            None => e,
        })
        .map_err(py_err)
}

/// The rest of a build, on the board's game: the checks `retro build` makes before it
/// starts (encoding, memory, disk), then the build.
struct Build<'a> {
    path: &'a Path,
    options: &'a BuildOptions,
    watch: &'a Watch,
}

impl Visitor for Build<'_> {
    type Output = serde_json::Value;
    fn visit<G: Registered>(self, game: G) -> retro::Result<serde_json::Value> {
        job::check_encoding(&game, self.options)?;
        let estimate = Estimate::of(&game, self.path, self.options)?;
        Estimate::check_memory(&game)?;
        estimate.check_disk(self.path, self.options)?;
        self.watch.total.store(game.total_positions(), Relaxed);
        let report = job::build(&game, self.path, self.options, Driver::Parallel, self.watch)?;
        Ok(report.to_json(&game, self.path))
    }
}

#[pyfunction]
#[pyo3(signature = (game, board, path, *, source=None, rows=None, cols=None, threads=None,
                    encoding="plain", values_every=None, fresh=false, force=false,
                    progress=None, stop_after_layer=None))]
#[allow(clippy::too_many_arguments)]
fn build<'py>(
    py: Python<'py>,
    game: &str,
    board: &str,
    path: PathBuf,
    source: Option<&str>,
    rows: Option<usize>,
    cols: Option<usize>,
    threads: Option<usize>,
    encoding: &str,
    values_every: Option<u32>,
    fresh: bool,
    force: bool,
    progress: Option<Bound<'py, PyAny>>,
    stop_after_layer: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let board = parse_board(game, board, source, rows, cols)?;
    let (compact, moves) = match (encoding, values_every) {
        ("plain", None) => (false, None),
        ("compact", None) => (true, None),
        ("moves", Some(l)) => (false, Some(l)),
        ("moves", None) => {
            return Err(PyValueError::new_err(
                "encoding=\"moves\" needs values_every=L: values are stored every L layers",
            ));
        }
        ("plain" | "compact", Some(_)) => {
            return Err(PyValueError::new_err(
                "values_every goes with encoding=\"moves\" only",
            ));
        }
        (other, _) => {
            return Err(PyValueError::new_err(format!(
                "encoding {other:?}: expected \"plain\", \"compact\" or \"moves\""
            )));
        }
    };
    let options = BuildOptions {
        compact,
        moves,
        fresh,
        force,
        stop_after: stop_after_layer,
        ..Default::default()
    };
    options.encoding().map_err(py_err)?;
    retro::table::writer::check_output(&path).map_err(py_err)?;
    let report = watched(py, threads, progress, |watch| {
        Builtin::visit(
            &board,
            Build {
                path: &path,
                options: &options,
                watch,
            },
        )
    })?;
    to_py(py, &report)
}

/// The empty board's value, as `retro solve` computes it (two layers in memory).
struct Solve<'a> {
    watch: &'a Watch,
}

impl Visitor for Solve<'_> {
    type Output = i64;
    fn visit<G: Registered>(self, game: G) -> retro::Result<i64> {
        self.watch.total.store(game.total_positions(), Relaxed);
        job::solve(&game, Driver::Parallel, self.watch)
    }
}

#[pyfunction]
#[pyo3(signature = (game, board, *, source=None, rows=None, cols=None, threads=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn solve<'py>(
    py: Python<'py>,
    game: &str,
    board: &str,
    source: Option<&str>,
    rows: Option<usize>,
    cols: Option<usize>,
    threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<i64> {
    let board = parse_board(game, board, source, rows, cols)?;
    watched(py, threads, progress, |watch| {
        Builtin::visit(&board, Solve { watch })
    })
}

/// The games this retro has.
#[pyfunction]
fn games() -> Vec<&'static str> {
    Builtin::names()
}

#[pymodule]
fn _retro(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("TableError", m.py().get_type::<TableError>())?;
    m.add_class::<RawTable>()?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    Ok(())
}
