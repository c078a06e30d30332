//! The table object (`RawTable`): a table opened once and asked any number of times.

use crate::*;

/// An open table: the file (read through a memory map, each layer's checksum checked on
/// its first read, as `query --batch` and `export` read) and its game. Every answer is
/// checked against the file as it was opened (`Table::unless_changed`, as `query`,
/// `export` and `serve` check): a file written over in place is an error, not an answer
/// read from its new bytes.
#[pyclass(frozen, module = "retro._retro")]
pub(crate) struct RawTable {
    pub(crate) table: retro::Table,
    pub(crate) game: Box<dyn Probe>,
}

impl RawTable {
    /// `work`'s answer, without the GIL, unless the file changed meanwhile.
    pub(crate) fn answer<T: Send>(
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
    pub(crate) fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
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
    pub(crate) fn info<'py>(&self, py: Python<'py>, check: bool) -> PyResult<Bound<'py, PyAny>> {
        let info = self.answer(py, || retro::info_json::<Builtin>(&self.table, check))?;
        to_py(py, &info)
    }

    /// `stats --json`'s object: each layer's counts and the totals, and with `split`
    /// (`--split`) each class's.
    pub(crate) fn stats<'py>(
        &self,
        py: Python<'py>,
        split: bool,
        reachable: bool,
        examples: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let asked = retro::answers::stats::Asked {
            split,
            reachable,
            examples,
            remoteness: false,
        };
        let stats = self.answer(py, || {
            retro::answers::stats::stats_json::<Builtin>(&self.table, asked)
        })?;
        to_py(py, &stats)
    }

    pub(crate) fn query<'py>(
        &self,
        py: Python<'py>,
        position: &str,
        pv: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let answer = self.answer(py, || {
            self.game.prober().query_json(&self.table, position, pv)
        })?;
        to_py(py, &answer)
    }

    pub(crate) fn pv<'py>(&self, py: Python<'py>, position: &str) -> PyResult<Bound<'py, PyAny>> {
        let steps = self.answer(py, || self.game.prober().pv_json(&self.table, position))?;
        to_py(py, &steps)
    }

    /// The positions in `text`, one per line (`count` of them), answered: a dict of
    /// little-endian columns (`value` i64, or with `outcomes` `result` u8 codes and
    /// `remoteness` i64; with `mask`, `mask` one byte per line, 1 where the line is not a
    /// position), `bad` the number of bad lines and `messages` the first of them as
    /// (index, message). Without `mask`, the batch stops at its first bad line (the only one
    /// reported) and the columns are not to be used.
    pub(crate) fn values<'py>(
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
    pub(crate) fn layer<'py>(
        &self,
        py: Python<'py>,
        k: usize,
        text: bool,
        moves: bool,
        start: u64,
        stop: Option<u64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let size = self.game.prober().layer_entries(k).map_err(py_err)?;
        let stop = stop.unwrap_or(size);
        if start > stop || stop > size {
            return Err(PyValueError::new_err(format!(
                "rows {start}..{stop} are out of range: layer {k} has {size} positions"
            )));
        }
        let rows = stop - start;
        let outcomes = self.game.has_outcomes();
        let folded = self.game.prober().folded();
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
        out.set_item("reachable_known", self.game.reachable_known())?;
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

    pub(crate) fn position(&self, k: usize, rank: u64) -> PyResult<String> {
        self.game
            .prober()
            .position_at(k, rank)
            .map_err(|e| match e.kind() {
                Kind::Input => PyIndexError::new_err(e.to_string()),
                _ => py_err(e),
            })
    }

    pub(crate) fn locate(&self, position: &str) -> PyResult<(usize, u64)> {
        self.game.prober().locate(position).map_err(py_err)
    }

    pub(crate) fn has_outcomes(&self) -> bool {
        self.game.has_outcomes()
    }
}
