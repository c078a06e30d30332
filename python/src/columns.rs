//! The column buffers `query_many` and a layer's export fill in place, and the lines of a
//! batch of positions.

use crate::*;

/// How many of a batch's bad positions keep their message (`query_many`): the rest are
/// counted and masked, not described.
pub(crate) const MESSAGES_KEPT: usize = 8;

/// Python `bytearray`s of `lens` bytes, zeroed, then filled by `fill` (which may release
/// the GIL: nothing else holds them yet). NumPy reads them in place (`numpy.frombuffer`),
/// so each column is written once, where it stays. A length of 0 is a column not asked
/// for.
pub(crate) fn filled<'py, const N: usize>(
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
pub(crate) fn nested<'py>(
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
pub(crate) fn pieces(buf: &mut [u8], width: usize, chunks: usize) -> Vec<&mut [u8]> {
    if buf.is_empty() {
        return (0..chunks).map(|_| <&mut [u8]>::default()).collect();
    }
    buf.chunks_mut(CHUNK * width).collect()
}

/// `n` bytes per row times `rows`, or an error a caller can read (never an overflow).
pub(crate) fn column_bytes(rows: u64, n: usize) -> retro::Result<usize> {
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
pub(crate) fn result_code(v: retro::game::Verdict) -> u8 {
    use retro::game::Verdict;
    match v {
        Verdict::Win => 0,
        Verdict::Loss => 1,
        Verdict::Tie => 2,
        Verdict::Draw => 3,
    }
}

/// A `query_many` line that is not a position.
pub(crate) const NO_RESULT: u8 = 4;

/// A layer's `reachable` byte where the table cannot know (`Probe::reachable_known`).
pub(crate) const REACHABLE_NOT_KNOWN: u8 = 2;

/// Where one chunk of rows goes: per row its value (8 bytes, little-endian i64), result
/// code (1 byte) and remoteness (8 bytes), who moves (1 byte: 0 first, 1 second, 2 none)
/// and how many positions share the row's entry (8 bytes, little-endian i64) for a layer,
/// whether it is masked (1 byte) for `query_many`; for a layer also whether play reaches
/// it (1 byte: 0, 1, or `REACHABLE_NOT_KNOWN`), its first best move as `NUMBERS` integers (4 bytes each, little-endian
/// u32, 1-based, 0 where the move has no such part: `retro::move_numbers`), and the
/// stones in hand (x's, o's: 4 bytes each) for a game that has them, and the stones on the
/// board (4 bytes: `Gameplay::stones`, which a layer's number is not for morris). Empty
/// slices are columns not asked for.
#[derive(Default)]
pub(crate) struct Columns<'a> {
    pub(crate) values: &'a mut [u8],
    pub(crate) results: &'a mut [u8],
    pub(crate) remoteness: &'a mut [u8],
    pub(crate) to_move: &'a mut [u8],
    pub(crate) orbit_size: &'a mut [u8],
    pub(crate) mask: &'a mut [u8],
    pub(crate) reachable: &'a mut [u8],
    pub(crate) numbers: &'a mut [u8],
    pub(crate) hands: &'a mut [u8],
    pub(crate) stones: &'a mut [u8],
}

/// The most integer columns a best move has (`from_row`, `from_col`, `row`, `col`).
pub(crate) const NUMBERS: usize = 4;

impl Columns<'_> {
    /// Row `i`'s value, and its outcome where the columns hold one (a value of a game with
    /// outcomes always has one: without, the table is damaged).
    pub(crate) fn put(
        &mut self,
        i: usize,
        value: i64,
        outcome: impl FnOnce() -> Option<Outcome>,
    ) -> bool {
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
pub(crate) struct BadLines<'a> {
    /// With errors="raise": the lowest index of a bad line any chunk has found. A chunk
    /// stops at its first bad line and skips lines past that index: only the first is
    /// reported, so nothing after it needs reading.
    pub(crate) first: Option<&'a AtomicUsize>,
    pub(crate) count: usize,
    /// The first `MESSAGES_KEPT` of them: index and message.
    pub(crate) kept: Vec<(usize, String)>,
}

impl BadLines<'_> {
    /// Whether a bad line before `index` has been found (errors="raise").
    pub(crate) fn passed(&self, index: usize) -> bool {
        self.first.is_some_and(|f| index > f.load(Relaxed))
    }

    /// Line `index` is bad; whether to go on with the chunk.
    pub(crate) fn record(&mut self, index: usize, e: &Error) -> bool {
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
pub(crate) fn line_chunks(text: &str, count: usize) -> PyResult<Vec<(usize, usize)>> {
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
