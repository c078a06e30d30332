//! A twins board, its contest input, and how its size is read from the input.

use serde::{Deserialize, Serialize};

use super::MAX_CELLS;
use crate::error::{Error, Result};
use crate::game::{Board, check_weights, parse_integers};
use crate::random::SplitMix;

/// A twins board: `vert` holds rows of C weights for the pairs (i,j)-(i+1,j),
/// `horiz` R rows of C-1 weights for the pairs (i,j)-(i,j+1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TwinsBoard {
    /// Rows R.
    pub rows: usize,
    /// Columns C.
    pub cols: usize,
    /// rows of C weights, row-major: the pair (i,j)-(i+1,j).
    pub vert: Vec<i64>,
    /// R rows of C-1 weights, row-major: the pair (i,j)-(i,j+1).
    pub horiz: Vec<i64>,
}

impl Board for TwinsBoard {
    /// The contest input, whose size comes from the input's layout or count (see
    /// `infer_size`).
    fn parse(text: &str) -> Result<Self> {
        Self::parse_inferred(text, None, None)
    }

    /// The contest input with the size, or one side of it, given apart (`--rows/--cols`):
    /// the contest's files carry no size.
    fn parse_sized(text: &str, rows: Option<usize>, cols: Option<usize>) -> Option<Result<Self>> {
        Some(Self::parse_inferred(text, rows, cols))
    }

    fn random(rows: usize, cols: usize, rng: &mut SplitMix, max: u64) -> Result<Self> {
        Ok(TwinsBoard {
            rows,
            cols,
            vert: rng.weights((rows - 1) * cols, max),
            horiz: rng.weights(rows * (cols - 1), max),
        })
    }

    /// One row of weights per line, rows without weights left out, so `infer_size` reads
    /// the size back from it; where it cannot (1 x 1 has no weights, 1 x 2 and 2 x 1 one
    /// each), a first line `RxC` says the size.
    fn to_input(&self) -> String {
        let body = self.weight_lines();
        let n = self.vert.len() + self.horiz.len();
        match infer_size(&body, n, None, None) {
            Ok(size) if n > 0 && size == (self.rows, self.cols) => body,
            _ => format!("{}x{}\n{body}", self.rows, self.cols),
        }
    }

    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
}

impl TwinsBoard {
    /// The weights, one row per line, rows without weights left out.
    fn weight_lines(&self) -> String {
        let mut out = String::new();
        for (w, width) in [(&self.vert, self.cols), (&self.horiz, self.cols - 1)] {
            if width == 0 {
                continue;
            }
            for row in w.chunks(width) {
                let line: Vec<String> = row.iter().map(|x| x.to_string()).collect();
                out.push_str(&line.join(" "));
                out.push('\n');
            }
        }
        out
    }

    /// Parse the contest input for an R x C board (the file carries no size).
    pub fn parse(text: &str, rows: usize, cols: usize) -> Result<Self> {
        Self::from_numbers(parse_integers(text)?, rows, cols)
    }

    /// Parse the contest input, taking the size from `rows`/`cols` where given and from
    /// the input otherwise (see `infer_size`).
    pub fn parse_inferred(text: &str, rows: Option<usize>, cols: Option<usize>) -> Result<Self> {
        let (text, rows, cols) = size_line(text, rows, cols)?;
        let nums = parse_integers(text)?;
        if nums.is_empty() && rows.is_none() && cols.is_none() {
            return Err(Error::input(
                "no weights: the input is empty (a 1 x 1 board, which has none, is written 1x1)",
            ));
        }
        let (rows, cols) = infer_size(text, nums.len(), rows, cols)?;
        Self::from_numbers(nums, rows, cols)
    }

    fn from_numbers(nums: Vec<i64>, rows: usize, cols: usize) -> Result<Self> {
        check_size(rows, cols)?;
        let (nv, nh) = ((rows - 1) * cols, rows * (cols - 1));
        if nums.len() != nv + nh {
            let kind = if nums.len() < nv + nh {
                "missing"
            } else {
                "extra"
            };
            return Err(Error::input(format!(
                "{kind} numbers: a {rows} x {cols} board needs {} weights ({} vertical, then {} horizontal), found {}",
                nv + nh,
                nv,
                nh,
                nums.len()
            )));
        }
        let board = TwinsBoard {
            rows,
            cols,
            vert: nums[..nv].to_vec(),
            horiz: nums[nv..].to_vec(),
        };
        check_weights("vertical", &board.vert)?;
        check_weights("horizontal", &board.horiz)?;
        board.total_weight()?;
        Ok(board)
    }

    /// The sum of all weights (both final scores add up to it); fails if it overflows.
    pub fn total_weight(&self) -> Result<i64> {
        let v = check_weights("vertical", &self.vert)?;
        let h = check_weights("horizontal", &self.horiz)?;
        v.checked_add(h)
            .ok_or_else(|| Error::input("the weights sum past 64-bit values"))
    }
}

/// A first line `RxC` (as `gen` writes where the weights alone do not tell the size) gives
/// the size; it must agree with `--rows`/`--cols` where those are given too. Returns the
/// rest of the text and the size so far.
fn size_line(
    text: &str,
    rows: Option<usize>,
    cols: Option<usize>,
) -> Result<(&str, Option<usize>, Option<usize>)> {
    let trimmed = text.trim_start();
    let (first, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    let Some((r, c)) = first.trim().split_once(['x', 'X']) else {
        return Ok((text, rows, cols));
    };
    let (Ok(r), Ok(c)) = (r.trim().parse::<usize>(), c.trim().parse::<usize>()) else {
        return Ok((text, rows, cols));
    };
    for (flag, given, said) in [("--rows", rows, r), ("--cols", cols, c)] {
        if let Some(g) = given
            && g != said
        {
            return Err(Error::input(format!(
                "the input says {r}x{c} but {flag} is {g}"
            )));
        }
    }
    Ok((rest, Some(r), Some(c)))
}

fn check_size(rows: usize, cols: usize) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Err(Error::input(format!(
            "board size {rows} x {cols}: rows and columns must be at least 1"
        )));
    }
    if rows.saturating_mul(cols) > MAX_CELLS {
        return Err(Error::input(format!(
            "board size {rows} x {cols} is too large: at most {MAX_CELLS} cells"
        )));
    }
    Ok(())
}

/// The boards of at most `MAX_CELLS` cells that hold exactly `n` weights, squarest first.
/// (R-1)C + R(C-1) = n is (2R-1)(2C-1) = 2n+1, so they come from the divisors of 2n+1;
/// 1 x (n+1) and (n+1) x 1 always qualify when small enough, so a count alone rarely
/// settles the size.
pub fn sizes_for_count(n: usize) -> Vec<(usize, usize)> {
    let odd = 2 * n + 1;
    let mut sizes: Vec<(usize, usize)> = (1..=MAX_CELLS)
        .filter(|&r| odd.is_multiple_of(2 * r - 1))
        .map(|r| (r, (odd / (2 * r - 1)).div_ceil(2)))
        .filter(|&(r, c)| r * c <= MAX_CELLS)
        .collect();
    sizes.sort_by_key(|&(r, c)| (r.abs_diff(c), r));
    sizes
}

/// Numbers per non-blank line. A row of zero weights (C = 1, or R = 1's vertical part)
/// has no line at all, which is how `to_input` writes it.
fn line_lengths(text: &str) -> Vec<usize> {
    text.lines()
        .map(|l| l.split_whitespace().count())
        .filter(|&n| n > 0)
        .collect()
}

fn layout_matches(lines: &[usize], rows: usize, cols: usize) -> bool {
    let expected = std::iter::repeat_n(cols, rows - 1)
        .chain(std::iter::repeat_n(cols - 1, rows))
        .filter(|&n| n > 0);
    lines.iter().copied().eq(expected)
}

/// The boards holding `n` weights whose row layout is exactly the one of `text`.
pub(crate) fn sizes_by_layout(text: &str, n: usize) -> Vec<(usize, usize)> {
    let lines = line_lengths(text);
    sizes_for_count(n)
        .into_iter()
        .filter(|&(r, c)| layout_matches(&lines, r, c))
        .collect()
}

/// The size of a twins board of `n` weights written as `text`: the command line's where
/// given (a missing one follows from the count), else the only size whose row layout the
/// lines follow, else the only size the count allows.
fn infer_size(
    text: &str,
    n: usize,
    rows: Option<usize>,
    cols: Option<usize>,
) -> Result<(usize, usize)> {
    // (2R-1)(2C-1) = 2n+1 with one side known gives the other, if it is whole.
    let other_side = |known: usize, flag: &str, other: &str| -> Result<usize> {
        if known == 0 {
            return Err(Error::input(format!("{flag} must be at least 1")));
        }
        // A side past the cell limit fits no board, and 2 * known must not wrap.
        if known > MAX_CELLS {
            return Err(Error::input(format!(
                "{flag} {known} is too large: a board has at most {MAX_CELLS} cells"
            )));
        }
        let odd = 2 * n + 1;
        let d = 2 * known - 1;
        if odd.is_multiple_of(d) {
            Ok((odd / d).div_ceil(2))
        } else {
            Err(Error::input(format!(
                "{n} twins weights fit no board with {flag} {known}; give {other} too, \
                 or check the input ((R-1) rows of C weights, then R rows of C-1)"
            )))
        }
    };
    match (rows, cols) {
        (Some(r), Some(c)) => return Ok((r, c)),
        (Some(r), None) => return Ok((r, other_side(r, "--rows", "--cols")?)),
        (None, Some(c)) => return Ok((other_side(c, "--cols", "--rows")?, c)),
        (None, None) => {}
    }
    // One line of weights says nothing about the rows: every count fits a one-row board,
    // and reading a contest board written on one line as 1 x (n+1) would be a quiet
    // wrong answer. Such input goes by the count, which names the sizes that fit.
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > 1
        && let [size] = sizes_by_layout(text, n)[..]
    {
        return Ok(size);
    }
    let sizes = sizes_for_count(n);
    if let [size] = sizes[..] {
        return Ok(size);
    }
    let names: Vec<String> = sizes.iter().map(|(r, c)| format!("{r} x {c}")).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => Err(Error::input(format!(
            "{n} twins weights fit {} and {last} boards; say which with --rows R --cols C",
            rest.join(", ")
        ))),
        _ => Err(Error::input(format!(
            "{n} twins weights fit no board of at most {MAX_CELLS} cells"
        ))),
    }
}
