//! `retro._retro`: the Rust half of the Python package `retro` (`python/retro/` is the
//! other half, which callers import). Every answer comes from the same library functions
//! the command line calls (`probe::Prober::query_json` for `query --json`,
//! `answers::info::info_json` for `info --json`, `build::build`, `build::solve`), so the two cannot
//! drift apart. Long work releases the GIL; nothing here panics on what a caller passes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, mpsc};
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyIndexError, PyOSError, PyPermissionError, PyRuntimeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList, PyString};
use rayon::prelude::*;

use retro::answers::probe::{self, Prober};
use retro::build::{BuildOptions, Estimate};
use retro::error::{Error, Kind};
use retro::game::{Builtin, Outcome, Registered, Registry, Visitor};
use retro::{Driver, Progress};

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

/// The process that loaded this module. rayon's global pool has its worker threads in that
/// process only: `fork` copies just the thread that calls it, so in a child the global
/// pool's workers do not exist and work handed to them would wait forever.
static LOADED_IN: OnceLock<u32> = OnceLock::new();

/// The pools of a process forked from the one that loaded the module, built on first use.
struct Forked {
    /// The process they were started in: a child of a child starts its own.
    pid: u32,
    /// For the work.
    work: Arc<rayon::ThreadPool>,
    /// For the table writer's packing, which runs on a thread of its own outside the
    /// work's pool (`progress::Progress::pool`): a pool apart, so it never waits on a worker
    /// that waits on it.
    writer: Arc<rayon::ThreadPool>,
}

static FORKED: Mutex<Option<Forked>> = Mutex::new(None);

/// In a process forked from the one that loaded the module (a `multiprocessing` worker
/// started with the `fork` method), its own pools, with as many threads as the global
/// pool has; None where rayon's global pool works.
fn forked_pools() -> retro::Result<Option<(Arc<rayon::ThreadPool>, Arc<rayon::ThreadPool>)>> {
    let pid = std::process::id();
    if LOADED_IN.get().is_none_or(|&loaded| loaded == pid) {
        return Ok(None);
    }
    let mut slot = FORKED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(f) = slot.as_ref().filter(|f| f.pid == pid) {
        return Ok(Some((Arc::clone(&f.work), Arc::clone(&f.writer))));
    }
    let build = || {
        rayon::ThreadPoolBuilder::new()
            .build()
            .map(Arc::new)
            .map_err(|e| Error::other(format!("cannot start worker threads: {e}")))
    };
    let (work, writer) = (build()?, build()?);
    *slot = Some(Forked {
        pid,
        work: Arc::clone(&work),
        writer: Arc::clone(&writer),
    });
    Ok(Some((work, writer)))
}

/// Run `work`, and the parallel work in it, on rayon's global pool, or in a forked child
/// on the child's own (`forked_pools`).
fn parallel<T: Send>(work: impl FnOnce() -> T + Send) -> retro::Result<T> {
    Ok(match forked_pools()? {
        None => work(),
        Some((pool, _)) => pool.install(work),
    })
}

/// Positions per chunk of parallel work: as the sweep and export use.
const CHUNK: usize = 1 << 13;

/// How many of a batch's bad positions keep their message (`query_many`): the rest are
/// counted and masked, not described.
const MESSAGES_KEPT: usize = 8;

/// Python `bytearray`s of `lens` bytes, zeroed, then filled by `fill` (which may release
/// the GIL: nothing else holds them yet). NumPy reads them in place (`numpy.frombuffer`),
/// so each column is written once, where it stays. A length of 0 is a column not asked
/// for.
fn filled<'py, const N: usize>(
    py: Python<'py>,
    lens: [usize; N],
    fill: impl FnOnce([&mut [u8]; N]) -> PyResult<()>,
) -> PyResult<[Bound<'py, PyByteArray>; N]> {
    let internal = || PyRuntimeError::new_err("internal error: a column was not allocated");
    let mut fill = Some(fill);
    let mut made = Vec::with_capacity(N);
    nested(py, &lens, Vec::with_capacity(N), &mut made, &mut |bufs| {
        let bufs: [&mut [u8]; N] = bufs.try_into().map_err(|_| internal())?;
        fill.take().ok_or_else(internal)?(bufs)
    })?;
    // The innermost array is made first.
    made.reverse();
    made.try_into().map_err(|_| internal())
}

/// `filled`'s arrays, one inside the writing of the other (`PyByteArray::new_with` lends
/// its bytes only while it runs): `bufs` holds the outer ones' bytes, `made` gets the
/// arrays, innermost first.
fn nested<'py>(
    py: Python<'py>,
    lens: &[usize],
    bufs: Vec<&mut [u8]>,
    made: &mut Vec<Bound<'py, PyByteArray>>,
    fill: &mut dyn FnMut(Vec<&mut [u8]>) -> PyResult<()>,
) -> PyResult<()> {
    let Some((&len, rest)) = lens.split_first() else {
        return fill(bufs);
    };
    let array = PyByteArray::new_with(py, len, |bytes| {
        let mut bufs: Vec<&mut [u8]> = bufs;
        bufs.push(bytes);
        nested(py, rest, bufs, made, fill)
    })?;
    made.push(array);
    Ok(())
}

/// `buf` cut into `chunks` pieces of `CHUNK` rows of `width` bytes; an empty buffer (a
/// column not asked for) gives empty pieces.
fn pieces(buf: &mut [u8], width: usize, chunks: usize) -> Vec<&mut [u8]> {
    if buf.is_empty() {
        return (0..chunks).map(|_| <&mut [u8]>::default()).collect();
    }
    buf.chunks_mut(CHUNK * width).collect()
}

/// `n` bytes per row times `rows`, or an error a caller can read (never an overflow).
fn column_bytes(rows: u64, n: usize) -> retro::Result<usize> {
    usize::try_from(rows)
        .ok()
        .and_then(|r| r.checked_mul(n))
        .ok_or_else(|| {
            Error::too_large(format!(
                "{rows} rows do not fit in this address space: read fewer at a time"
            ))
        })
}

/// The result code of a result column: 0 win, 1 loss, 2 tie, 3 draw (for the side to
/// move); `query_many` writes `NO_RESULT` for a line that is not a position.
fn result_code(v: retro::game::Verdict) -> u8 {
    use retro::game::Verdict;
    match v {
        Verdict::Win => 0,
        Verdict::Loss => 1,
        Verdict::Tie => 2,
        Verdict::Draw => 3,
    }
}

/// A `query_many` line that is not a position.
const NO_RESULT: u8 = 4;

/// Where one chunk of rows goes: per row its value (8 bytes, little-endian i64), result
/// code (1 byte) and remoteness (8 bytes), who moves (1 byte: 0 first, 1 second, 2 none)
/// and how many positions share the row's entry (8 bytes, little-endian i64) for a layer,
/// whether it is masked (1 byte) for `query_many`; for a layer also whether play reaches
/// it (1 byte), its first best move as `NUMBERS` integers (4 bytes each, little-endian
/// u32, 1-based, 0 where the move has no such part: `retro::move_numbers`), and the
/// stones in hand (x's, o's: 4 bytes each) for a game that has them, and the stones on the
/// board (4 bytes: `Gameplay::stones`, which a layer's number is not for morris). Empty
/// slices are columns not asked for.
#[derive(Default)]
struct Columns<'a> {
    values: &'a mut [u8],
    results: &'a mut [u8],
    remoteness: &'a mut [u8],
    to_move: &'a mut [u8],
    orbit_size: &'a mut [u8],
    mask: &'a mut [u8],
    reachable: &'a mut [u8],
    numbers: &'a mut [u8],
    hands: &'a mut [u8],
    stones: &'a mut [u8],
}

/// The most integer columns a best move has (`from_row`, `from_col`, `row`, `col`).
const NUMBERS: usize = 4;

impl Columns<'_> {
    /// Row `i`'s value, and its outcome where the columns hold one (a value of a game with
    /// outcomes always has one: without, the table is damaged).
    fn put(&mut self, i: usize, value: i64, outcome: impl FnOnce() -> Option<Outcome>) -> bool {
        if !self.values.is_empty() {
            self.values[i * 8..i * 8 + 8].copy_from_slice(&value.to_le_bytes());
        }
        if !self.results.is_empty() {
            let Some(o) = outcome() else { return false };
            self.results[i] = result_code(o.result);
            self.remoteness[i * 8..i * 8 + 8].copy_from_slice(&(o.remoteness as i64).to_le_bytes());
        }
        true
    }
}

/// The bad lines of one chunk of a `query_many` batch.
struct BadLines<'a> {
    /// With errors="raise": the lowest index of a bad line any chunk has found. A chunk
    /// stops at its first bad line and skips lines past that index: only the first is
    /// reported, so nothing after it needs reading.
    first: Option<&'a AtomicUsize>,
    count: usize,
    /// The first `MESSAGES_KEPT` of them: index and message.
    kept: Vec<(usize, String)>,
}

impl BadLines<'_> {
    /// Whether a bad line before `index` has been found (errors="raise").
    fn passed(&self, index: usize) -> bool {
        self.first.is_some_and(|f| index > f.load(Relaxed))
    }

    /// Line `index` is bad; whether to go on with the chunk.
    fn record(&mut self, index: usize, e: &Error) -> bool {
        self.count += 1;
        if self.kept.len() < MESSAGES_KEPT {
            self.kept.push((index, e.to_string()));
        }
        match self.first {
            Some(first) => {
                first.fetch_min(index, Relaxed);
                false
            }
            None => true,
        }
    }
}

/// The byte ranges of `text`'s lines, `CHUNK` lines to a range; `count` lines in all (a
/// line break inside a position makes more, which is refused).
fn line_chunks(text: &str, count: usize) -> PyResult<Vec<(usize, usize)>> {
    let mut ranges = Vec::new();
    if count == 0 {
        return Ok(ranges);
    }
    let (mut start, mut lines) = (0, 1);
    for (at, _) in text.match_indices('\n') {
        if lines % CHUNK == 0 {
            ranges.push((start, at));
            start = at + 1;
        }
        lines += 1;
    }
    ranges.push((start, text.len()));
    if lines != count {
        return Err(PyValueError::new_err(
            "a position holds a line break: not a position",
        ));
    }
    Ok(ranges)
}

/// What the table object needs of its game, behind a trait object: the table's game is
/// known only once its header is read (`Builtin::visit`).
trait Probe: Send + Sync {
    /// `query --json`'s object (with `pv` when asked for).
    fn query(&self, table: &retro::Table, text: &str, pv: bool)
    -> retro::Result<serde_json::Value>;
    /// `query --pv --json`'s `pv` array.
    fn pv(&self, table: &retro::Table, text: &str) -> retro::Result<serde_json::Value>;
    /// One chunk of a batch (`query --batch`), its lines separated by line breaks, the
    /// first of them line `first` of the batch: per line its value or outcome into `out`,
    /// or its input error into `bad`; another error (a damaged table) stops the batch.
    fn answer_lines(
        &self,
        table: &retro::Table,
        lines: &str,
        first: usize,
        out: Columns<'_>,
        bad: &mut BadLines<'_>,
    ) -> retro::Result<()>;
    /// Rows `start..` of layer `k` into `out` (as many as it has room for), as
    /// `retro export` writes them; the positions' text and first best moves when asked for,
    /// and each row's orbit size where `out` has room for it.
    fn layer_rows(
        &self,
        table: &retro::Table,
        k: usize,
        start: u64,
        out: Columns<'_>,
        text: bool,
        moves: bool,
    ) -> retro::Result<LayerText>;
    /// The number of entries of layer `k` (an error past the last layer).
    fn layer_size(&self, k: usize) -> retro::Result<u64>;
    /// The names of the best move's integer columns, as `retro export` writes them.
    fn number_columns(&self) -> Vec<&'static str>;
    /// Whether the game's positions hold stones in hand (`Gameplay::hands`).
    fn has_hands(&self) -> bool;
    /// Whether the game folds symmetric positions onto one entry (`Gameplay::symmetries`).
    fn folded(&self) -> bool;
    /// The position of rank `rank` in layer `k`, in the game's notation.
    fn position(&self, k: usize, rank: u64) -> retro::Result<String>;
    /// A position's layer and rank.
    fn locate(&self, text: &str) -> retro::Result<(usize, u64)>;
    /// The outcome of the empty board's value, for a game that has outcomes.
    fn root_outcome(&self, value: i64) -> Option<Outcome>;
    /// Whether the game's values are wins, losses, ties or draws with a remoteness.
    fn has_outcomes(&self) -> bool {
        self.root_outcome(0).is_some()
    }
}

/// The text columns of a chunk of a layer's rows.
#[derive(Default)]
struct LayerText {
    positions: Vec<String>,
    best_moves: Vec<Option<String>>,
}

/// A table's game, with the positions play reaches where the game cannot tell them from a
/// position alone (`retro::answers::reach`), found the first time a `reachable` column is asked for.
struct Game<G: Registered>(
    G,
    std::sync::OnceLock<Option<retro::answers::reach::Reachable<G>>>,
);

impl<G: Registered> Game<G> {
    /// A value of layer `k` that has no outcome, in a game whose values all have one.
    fn not_a_value(table: &retro::Table, value: i64, k: usize) -> Error {
        Error::corrupt(format!(
            "{}: value {value} in layer {k} is not a value of {}",
            table.path().display(),
            G::NAME
        ))
    }
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
        let line = probe::principal_variation(&self.0, table, &answer.position)?;
        Ok(probe::pv_json(&self.0, &line))
    }

    fn answer_lines(
        &self,
        table: &retro::Table,
        lines: &str,
        first: usize,
        mut out: Columns<'_>,
        bad: &mut BadLines<'_>,
    ) -> retro::Result<()> {
        let game = &self.0;
        for (i, text) in lines.split('\n').enumerate() {
            let index = first + i;
            if bad.passed(index) {
                break;
            }
            // What `query --batch` does per line: parse, refuse an unreachable position,
            // read one entry.
            let looked_up = game
                .parse_position(text)
                .and_then(|pos| game.check_reachable(&pos).map(|()| pos))
                .and_then(|pos| {
                    let k = game.layer_of(&pos);
                    table.value(k, game.rank(&pos)).map(|v| (v, k))
                });
            match looked_up {
                Ok((value, k)) => {
                    if !out.put(i, value, || game.outcome(value, k)) {
                        return Err(Self::not_a_value(table, value, k));
                    }
                }
                Err(e) if e.is_input() => {
                    if !out.results.is_empty() {
                        out.results[i] = NO_RESULT;
                    }
                    if !out.mask.is_empty() {
                        out.mask[i] = 1;
                    }
                    if !bad.record(index, &e) {
                        break;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn layer_rows(
        &self,
        table: &retro::Table,
        k: usize,
        start: u64,
        mut out: Columns<'_>,
        text: bool,
        moves: bool,
    ) -> retro::Result<LayerText> {
        let game = &self.0;
        let count = out.values.len() / 8;
        let values = table.read_range(k, start, count)?;
        for (i, &value) in values.iter().enumerate() {
            if !out.put(i, value, || game.outcome(value, k)) {
                return Err(Self::not_a_value(table, value, k));
            }
        }
        let mut texts = LayerText::default();
        let orbits = !out.orbit_size.is_empty();
        let reachable = !out.reachable.is_empty();
        let reach = match reachable && !game.check_reachable_is_exact() {
            true => match self.1.get() {
                Some(r) => r.as_ref(),
                None => {
                    let r = retro::answers::reach::Reachable::where_needed(game)?;
                    self.1.get_or_init(|| r).as_ref()
                }
            },
            false => None,
        };
        let hands = !out.hands.is_empty();
        let stones = !out.stones.is_empty();
        if text || moves || orbits || reachable || hands || stones {
            let notation = game.move_notation();
            let mut pos = game.unrank(k, start);
            for (i, &value) in values.iter().enumerate() {
                if i > 0 {
                    game.advance(&mut pos);
                }
                if orbits {
                    // At most the group's order: an i64 holds it.
                    let size = game.orbit_size(&pos) as i64;
                    out.orbit_size[i * 8..i * 8 + 8].copy_from_slice(&size.to_le_bytes());
                }
                if reachable {
                    // An entry is reached where any position it stands for is.
                    let reached = match reach {
                        Some(r) => game.images(&pos).iter().any(|p| r.contains(p)),
                        None => game.check_reachable(&pos).is_ok(),
                    };
                    out.reachable[i] = u8::from(reached);
                }
                if stones {
                    let n = u32::try_from(game.stones(&pos)).unwrap_or(u32::MAX);
                    out.stones[i * 4..i * 4 + 4].copy_from_slice(&n.to_le_bytes());
                }
                if hands {
                    let [x, o] = game.hands(&pos).unwrap_or_default();
                    out.hands[i * 8..i * 8 + 4].copy_from_slice(&x.to_le_bytes());
                    out.hands[i * 8 + 4..i * 8 + 8].copy_from_slice(&o.to_le_bytes());
                }
                if text {
                    texts.positions.push(game.format_position(&pos));
                }
                if moves {
                    let best = retro::best_move(game, table, &pos, value)?;
                    // Nobody moves where play has ended, as `retro export` says.
                    out.to_move[i] = match (&best, game.first_to_move(&pos)) {
                        (None, _) => 2,
                        (Some(_), true) => 0,
                        (Some(_), false) => 1,
                    };
                    let row = &mut out.numbers[i * 4 * NUMBERS..(i + 1) * 4 * NUMBERS];
                    for (j, n) in retro::move_numbers(notation, best)
                        .into_iter()
                        .enumerate()
                        .take(NUMBERS)
                    {
                        row[j * 4..j * 4 + 4].copy_from_slice(&n.unwrap_or(0).to_le_bytes());
                    }
                    texts.best_moves.push(best.map(|b| b.text(game)));
                }
            }
        }
        Ok(texts)
    }

    fn layer_size(&self, k: usize) -> retro::Result<u64> {
        let cells = self.0.last_layer();
        if k > cells {
            return Err(Error::input(format!(
                "layer {k} is out of range: the table has layers 0..={cells}"
            )));
        }
        Ok(self.0.layer_size(k))
    }

    fn folded(&self) -> bool {
        self.0.symmetries() > 1
    }

    fn number_columns(&self) -> Vec<&'static str> {
        retro::number_columns(self.0.move_notation())
    }

    fn has_hands(&self) -> bool {
        self.0.hands(&self.0.unrank(0, 0)).is_some()
    }

    fn position(&self, k: usize, rank: u64) -> retro::Result<String> {
        let size = self.layer_size(k)?;
        if rank >= size {
            return Err(Error::input(format!(
                "rank {rank} is out of range: layer {k} has {size} positions"
            )));
        }
        Ok(self.0.format_position(&self.0.unrank(k, rank)))
    }

    fn locate(&self, text: &str) -> retro::Result<(usize, u64)> {
        let pos = self.0.parse_position(text)?;
        Ok((self.0.layer_of(&pos), self.0.rank(&pos)))
    }

    fn root_outcome(&self, value: i64) -> Option<Outcome> {
        self.0.outcome(value, 0)
    }
}

/// Builds the `Probe` of a table's game.
struct MakeProbe;

impl Visitor for MakeProbe {
    type Output = Box<dyn Probe>;
    fn visit<G: Registered>(self, game: G) -> retro::Result<Box<dyn Probe>> {
        Ok(Box::new(Game(game, std::sync::OnceLock::new())))
    }
}

/// An open table: the file (read through a memory map, each layer's checksum checked on
/// its first read, as `query --batch` and `export` read) and its game. Every answer is
/// checked against the file as it was opened (`Table::unless_changed`, as `query`,
/// `export` and `serve` check): a file written over in place is an error, not an answer
/// read from its new bytes.
#[pyclass(frozen, module = "retro._retro")]
struct RawTable {
    table: retro::Table,
    game: Box<dyn Probe>,
}

impl RawTable {
    /// `work`'s answer, without the GIL, unless the file changed meanwhile.
    fn answer<T: Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce() -> retro::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| self.table.unless_changed(work()))
            .map_err(py_err)
    }
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
        let info = self.answer(py, || retro::info_json::<Builtin>(&self.table, check))?;
        to_py(py, &info)
    }

    /// `stats --json`'s object: each layer's counts and the totals, and with `split`
    /// (`--split`) each class's.
    fn stats<'py>(
        &self,
        py: Python<'py>,
        split: bool,
        reachable: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let asked = retro::answers::stats::Asked { split, reachable };
        let stats = self.answer(py, || {
            retro::answers::stats::stats_json::<Builtin>(&self.table, asked)
        })?;
        to_py(py, &stats)
    }

    fn query<'py>(&self, py: Python<'py>, position: &str, pv: bool) -> PyResult<Bound<'py, PyAny>> {
        let answer = self.answer(py, || self.game.query(&self.table, position, pv))?;
        to_py(py, &answer)
    }

    fn pv<'py>(&self, py: Python<'py>, position: &str) -> PyResult<Bound<'py, PyAny>> {
        let steps = self.answer(py, || self.game.pv(&self.table, position))?;
        to_py(py, &steps)
    }

    /// The positions in `text`, one per line (`count` of them), answered: a dict of
    /// little-endian columns (`value` i64, or with `outcomes` `result` u8 codes and
    /// `remoteness` i64; with `mask`, `mask` one byte per line, 1 where the line is not a
    /// position), `bad` the number of bad lines and `messages` the first of them as
    /// (index, message). Without `mask`, the batch stops at its first bad line (the only one
    /// reported) and the columns are not to be used.
    fn values<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        count: usize,
        outcomes: bool,
        mask: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let ranges = py.detach(|| line_chunks(text, count))?;
        let outcomes = outcomes && self.game.has_outcomes();
        let n = count as u64;
        let lens = [
            if outcomes {
                0
            } else {
                column_bytes(n, 8).map_err(py_err)?
            },
            if outcomes { count } else { 0 },
            if outcomes {
                column_bytes(n, 8).map_err(py_err)?
            } else {
                0
            },
            if mask { count } else { 0 },
        ];
        let first = AtomicUsize::new(usize::MAX);
        let mut found: Vec<(usize, Vec<(usize, String)>)> = Vec::new();
        let [values, results, remoteness, masked] = filled(py, lens, |[v, r, m, k]| {
            let chunks = ranges.len();
            let outs: Vec<Columns<'_>> = pieces(v, 8, chunks)
                .into_iter()
                .zip(pieces(r, 1, chunks))
                .zip(pieces(m, 8, chunks))
                .zip(pieces(k, 1, chunks))
                .map(|(((values, results), remoteness), mask)| Columns {
                    values,
                    results,
                    remoteness,
                    mask,
                    ..Columns::default()
                })
                .collect();
            let first = (!mask).then_some(&first);
            found = self.answer(py, || {
                parallel(|| {
                    outs.into_par_iter()
                        .zip(ranges.par_iter())
                        .enumerate()
                        .map(|(c, (out, &(from, to)))| {
                            let mut bad = BadLines {
                                first,
                                count: 0,
                                kept: Vec::new(),
                            };
                            self.game.answer_lines(
                                &self.table,
                                &text[from..to],
                                c * CHUNK,
                                out,
                                &mut bad,
                            )?;
                            Ok((bad.count, bad.kept))
                        })
                        .collect::<retro::Result<Vec<_>>>()
                })?
            })?;
            Ok(())
        })?;
        let bad: usize = found.iter().map(|(n, _)| n).sum();
        // Chunks are in order, and so are the lines kept in each.
        let messages: Vec<(usize, String)> = found
            .into_iter()
            .flat_map(|(_, kept)| kept)
            .take(MESSAGES_KEPT)
            .collect();
        let out = PyDict::new(py);
        if outcomes {
            out.set_item("result", results)?;
            out.set_item("remoteness", remoteness)?;
        } else {
            out.set_item("value", values)?;
        }
        if mask {
            out.set_item("mask", masked)?;
        }
        out.set_item("bad", bad)?;
        out.set_item("messages", messages)?;
        Ok(out)
    }

    /// Rows `start..stop` of layer `k`: a dict of little-endian columns (`value` i64;
    /// `result` u8 codes and `remoteness` i64 where the game has them; `to_move` u8 codes
    /// with `moves`; `orbit_size` i64 where the table folds symmetric positions) and lists
    /// (`position` with `text`, `best_move` with `moves`).
    #[pyo3(signature = (k, text, moves, start=0, stop=None))]
    fn layer<'py>(
        &self,
        py: Python<'py>,
        k: usize,
        text: bool,
        moves: bool,
        start: u64,
        stop: Option<u64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let size = self.game.layer_size(k).map_err(py_err)?;
        let stop = stop.unwrap_or(size);
        if start > stop || stop > size {
            return Err(PyValueError::new_err(format!(
                "rows {start}..{stop} are out of range: layer {k} has {size} positions"
            )));
        }
        let rows = stop - start;
        let outcomes = self.game.has_outcomes();
        let folded = self.game.folded();
        let hands = self.game.has_hands();
        let count = column_bytes(rows, 1).map_err(py_err)?;
        let lens = [
            column_bytes(rows, 8).map_err(py_err)?,
            if outcomes { count } else { 0 },
            if outcomes {
                column_bytes(rows, 8).map_err(py_err)?
            } else {
                0
            },
            if moves { count } else { 0 },
            if folded {
                column_bytes(rows, 8).map_err(py_err)?
            } else {
                0
            },
            count,
            if moves {
                column_bytes(rows, 4 * NUMBERS).map_err(py_err)?
            } else {
                0
            },
            if hands {
                column_bytes(rows, 8).map_err(py_err)?
            } else {
                0
            },
            column_bytes(rows, 4).map_err(py_err)?,
        ];
        let mut texts: Vec<LayerText> = Vec::new();
        let [
            values,
            results,
            remoteness,
            to_move,
            orbit_size,
            reachable,
            numbers,
            in_hand,
            stones,
        ] = filled(py, lens, |[v, r, m, t, o, a, n, h, s]| {
            let chunks = count.div_ceil(CHUNK);
            let outs: Vec<Columns<'_>> = pieces(v, 8, chunks)
                .into_iter()
                .zip(pieces(r, 1, chunks))
                .zip(pieces(m, 8, chunks))
                .zip(pieces(t, 1, chunks))
                .zip(pieces(o, 8, chunks))
                .zip(pieces(a, 1, chunks))
                .zip(pieces(n, 4 * NUMBERS, chunks))
                .zip(pieces(h, 8, chunks))
                .zip(pieces(s, 4, chunks))
                .map(
                    |(
                        (
                            (
                                (
                                    ((((values, results), remoteness), to_move), orbit_size),
                                    reachable,
                                ),
                                numbers,
                            ),
                            hands,
                        ),
                        stones,
                    )| Columns {
                        values,
                        results,
                        remoteness,
                        to_move,
                        orbit_size,
                        reachable,
                        numbers,
                        hands,
                        stones,
                        ..Columns::default()
                    },
                )
                .collect();
            texts = self.answer(py, || {
                parallel(|| {
                    outs.into_par_iter()
                        .enumerate()
                        .map(|(c, out)| {
                            let first = start + (c * CHUNK) as u64;
                            self.game
                                .layer_rows(&self.table, k, first, out, text, moves)
                        })
                        .collect::<retro::Result<Vec<_>>>()
                })?
            })?;
            Ok(())
        })?;
        let out = PyDict::new(py);
        out.set_item("value", values)?;
        if outcomes {
            out.set_item("result", results)?;
            out.set_item("remoteness", remoteness)?;
        }
        if folded {
            out.set_item("orbit_size", orbit_size)?;
        }
        out.set_item("reachable", reachable)?;
        out.set_item("stones", stones)?;
        if hands {
            out.set_item("in_hand", in_hand)?;
        }
        if text {
            let positions: Vec<String> = texts
                .iter_mut()
                .flat_map(|t| std::mem::take(&mut t.positions))
                .collect();
            out.set_item("position", PyList::new(py, positions)?)?;
        }
        if moves {
            let best: Vec<Option<String>> = texts
                .iter_mut()
                .flat_map(|t| std::mem::take(&mut t.best_moves))
                .collect();
            out.set_item("to_move", to_move)?;
            out.set_item("best_move", PyList::new(py, best)?)?;
            out.set_item("numbers", numbers)?;
            out.set_item("number_columns", self.game.number_columns())?;
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

/// MemAvailable of this machine in bytes (what the command line's memory checks compare
/// with), None where it cannot be read.
#[pyfunction]
fn available_memory() -> Option<u64> {
    retro::available_memory()
}

/// What a running build or solve reports, read by the Python thread that waits for it.
struct Watch {
    done: AtomicU64,
    total: AtomicU64,
    /// The layer being computed; `usize::MAX` before the first.
    layer: AtomicUsize,
    stop: AtomicBool,
    /// The table writer's pool in a forked child (`forked_pools`); None: the global pool.
    writer: Option<Arc<rayon::ThreadPool>>,
}

impl Watch {
    fn new(writer: Option<Arc<rayon::ThreadPool>>) -> Watch {
        Watch {
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            layer: AtomicUsize::new(usize::MAX),
            stop: AtomicBool::new(false),
            writer,
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
    fn pool(&self) -> Option<&rayon::ThreadPool> {
        self.writer.as_deref()
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
    let forked = forked_pools().map_err(py_err)?;
    // `threads` workers where asked for; else all cores, on the child's own pool in a
    // forked child.
    let pool = match pool(threads)? {
        Some(pool) => Some(Arc::new(pool)),
        None => forked.as_ref().map(|(work, _)| Arc::clone(work)),
    };
    let watch = Watch::new(forked.map(|(_, writer)| writer));
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
                        // The final call says the work is all done, and only it: a
                        // poll that finds every position done before the work has
                        // returned leaves the saying to it.
                        let done = match &finished {
                            Some(Ok(_)) => total,
                            _ => watch.done.load(Relaxed).min(total),
                        };
                        if finished.is_none() && done == total && total > 0 {
                            return Ok(());
                        }
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

/// The board of `game` in `text` (`source` names where it came from, for messages); its
/// game folds symmetric positions as it does by default, or with `fold` false stores
/// every position (`--no-fold`).
fn parse_board(
    game: &str,
    text: &str,
    source: Option<&str>,
    rows: Option<usize>,
    cols: Option<usize>,
    fold: bool,
) -> PyResult<retro::AnyBoard> {
    let board = Builtin::parse_sized(game, text, rows, cols)
        .map_err(|e| match source {
            Some(s) => e.context(s),
            None => e,
        })
        .map_err(py_err)?;
    Ok(if fold { board } else { board.unfolded() })
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
        retro::build::check_encoding(&game, self.options)?;
        let estimate = Estimate::of(&game, self.path, self.options)?;
        Estimate::check_memory(&game, self.options)?;
        estimate.check_disk(self.path, self.options)?;
        self.watch.total.store(game.total_positions(), Relaxed);
        let report = retro::build::build_checked(
            &game,
            self.path,
            self.options,
            Driver::Parallel,
            self.watch,
        )?;
        let mut json = report.to_json(&game, self.path);
        // A game with outcomes stores a code (teeko's 8 is "win in 7"): its root is said
        // as a result and a remoteness, and the code is named as one.
        if let (Some(o), Some(fields)) = (game.outcome(report.root_value, 0), json.as_object_mut())
        {
            fields.remove("root_value");
            fields.insert("root_code".into(), report.root_value.into());
            fields.insert("root_result".into(), o.result.as_str().into());
            fields.insert("root_remoteness".into(), o.remoteness.into());
        }
        Ok(json)
    }
}

#[pyfunction]
#[pyo3(signature = (game, board, path, *, source=None, rows=None, cols=None, threads=None,
                    encoding="plain", values_every=None, fresh=false, force=false,
                    progress=None, stop_after_layer=None, fold=true))]
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
    fold: bool,
) -> PyResult<Bound<'py, PyAny>> {
    // A stored best move is an index into the moves of the position itself, not of its
    // orbit's canonical position: tables of best moves keep every position, as
    // `retro build --moves` does.
    let fold = fold && values_every.is_none();
    let board = parse_board(game, board, source, rows, cols, fold)?;
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
    retro::table::check_output(&path).map_err(py_err)?;
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

/// The root's stored value, and its result and remoteness where the game has outcomes.
type Solved = (i64, Option<(&'static str, usize)>);

impl Visitor for Solve<'_> {
    type Output = Solved;
    fn visit<G: Registered>(self, game: G) -> retro::Result<Solved> {
        self.watch.total.store(game.total_positions(), Relaxed);
        let value = retro::build::solve(&game, Driver::Parallel, self.watch)?;
        let outcome = game.outcome(value, 0);
        Ok((value, outcome.map(|o| (o.result.as_str(), o.remoteness))))
    }
}

#[pyfunction]
#[pyo3(signature = (game, board, *, source=None, rows=None, cols=None, threads=None, progress=None,
                    fold=true))]
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
    fold: bool,
) -> PyResult<Solved> {
    let board = parse_board(game, board, source, rows, cols, fold)?;
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
    let _ = LOADED_IN.set(std::process::id());
    m.add("TableError", m.py().get_type::<TableError>())?;
    m.add_class::<RawTable>()?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(available_memory, m)?)?;
    Ok(())
}
