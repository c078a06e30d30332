//! Builds and solves run from Python: their progress, their pools, their boards.

use crate::*;

/// What a running build or solve reports, read by the Python thread that waits for it.
pub(crate) struct Watch {
    pub(crate) done: AtomicU64,
    pub(crate) total: AtomicU64,
    /// The layer being computed; `usize::MAX` before the first.
    pub(crate) layer: AtomicUsize,
    pub(crate) stop: AtomicBool,
    /// The table writer's pool in a forked child (`forked_pools`); None: the global pool.
    pub(crate) writer: Option<Arc<rayon::ThreadPool>>,
}

impl Watch {
    pub(crate) fn new(writer: Option<Arc<rayon::ThreadPool>>) -> Watch {
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
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// More worker threads than this many per core only cost start-up time (as the command
/// line's `--threads`).
pub(crate) const THREADS_PER_CORE: usize = 4;

/// A pool of `threads` workers, or None for rayon's global pool (all cores); refuses the
/// counts `--threads` refuses.
pub(crate) fn pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
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
pub(crate) fn watched<T: Send>(
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
pub(crate) fn parse_board(
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

#[pyfunction]
#[pyo3(signature = (game, board, path, *, source=None, rows=None, cols=None, threads=None,
                    encoding="plain", values_every=None, fresh=false, force=false,
                    progress=None, stop_after_layer=None, fold=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn build<'py>(
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
        // The checks `retro build` makes before it starts (encoding, memory, disk), then
        // the build; the progress callback's total once it is known.
        let mut before = |p: &retro::build::Prepared<'_>| {
            watch.total.store(p.positions, Relaxed);
            Ok(())
        };
        retro::build::build_board::<Builtin>(
            &board,
            &path,
            &options,
            Driver::Parallel,
            watch,
            &mut before,
        )
        .map(|built| built.json)
    })?;
    to_py(py, &report)
}

/// The empty board's value, as `retro solve` computes it (two layers in memory).
pub(crate) struct Solve<'a> {
    pub(crate) watch: &'a Watch,
}

/// The root's stored value, and its result and remoteness where the game has outcomes.
pub(crate) type Solved = (i64, Option<(&'static str, usize)>);

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
pub(crate) fn solve<'py>(
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
