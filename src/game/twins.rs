//! The twins game: o and x fill an R x C grid; adjacent equal marks pay the first player.
//!
//! o is the first player. Positions are ranked by `two_colour` (occupied cells, then which
//! of them hold o), the ranking twins shares with mnk.

use serde::{Deserialize, Serialize};

pub use super::two_colour::MAX_CELLS;
use super::two_colour::{self, TwoColour};
use super::{Board, Game, GameSpec, Move, Scores, check_weights, parse_integers};
use crate::error::{Error, Result};
use crate::random::SplitMix;

/// A twins board: `vert` holds rows of C weights for the pairs (i,j)-(i+1,j),
/// `horiz` R rows of C-1 weights for the pairs (i,j)-(i,j+1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TwinsSpec {
    /// Rows R.
    pub rows: usize,
    /// Columns C.
    pub cols: usize,
    /// rows of C weights, row-major: the pair (i,j)-(i+1,j).
    pub vert: Vec<i64>,
    /// R rows of C-1 weights, row-major: the pair (i,j)-(i,j+1).
    pub horiz: Vec<i64>,
}

impl Board for TwinsSpec {
    /// The contest input, whose size comes from `rows`/`cols` where given and from the
    /// input's layout or count otherwise (see `infer_size`).
    fn parse(text: &str, rows: Option<usize>, cols: Option<usize>) -> Result<Self> {
        Self::parse_inferred(text, rows, cols)
    }

    fn random(rows: usize, cols: usize, rng: &mut SplitMix, max: u64) -> Result<Self> {
        Ok(TwinsSpec {
            rows,
            cols,
            vert: rng.weights((rows - 1) * cols, max),
            horiz: rng.weights(rows * (cols - 1), max),
        })
    }

    /// One row of weights per line, rows without weights left out, so `infer_size` reads
    /// the size back from it.
    fn to_input(&self) -> String {
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

    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }
}

impl TwinsSpec {
    /// Parse the contest input for an R x C board (the file carries no size).
    pub fn parse(text: &str, rows: usize, cols: usize) -> Result<Self> {
        Self::from_numbers(parse_integers(text)?, rows, cols)
    }

    /// Parse the contest input, taking the size from `rows`/`cols` where given and from
    /// the input otherwise (see `infer_size`).
    pub fn parse_inferred(text: &str, rows: Option<usize>, cols: Option<usize>) -> Result<Self> {
        let nums = parse_integers(text)?;
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
        let spec = TwinsSpec {
            rows,
            cols,
            vert: nums[..nv].to_vec(),
            horiz: nums[nv..].to_vec(),
        };
        check_weights("vertical", &spec.vert)?;
        check_weights("horizontal", &spec.horiz)?;
        spec.total_weight()?;
        Ok(spec)
    }

    /// The sum of all weights (both final scores add up to it); fails if it overflows.
    pub fn total_weight(&self) -> Result<i64> {
        let v = check_weights("vertical", &self.vert)?;
        let h = check_weights("horizontal", &self.horiz)?;
        v.checked_add(h)
            .ok_or_else(|| Error::input("the weights sum past 64-bit values"))
    }
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

/// Whether `text` reads as a twins position (only o, x, . and /), which no young
/// position does: lets a young table name the game the text belongs to.
pub(crate) fn looks_like_position(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|ch| matches!(ch, 'o' | 'x' | 'O' | 'X' | '.' | '/'))
}

/// The twins game on one board: ranking tables and the pairs, built once.
pub struct Twins {
    spec: TwinsSpec,
    cells: usize,
    ranking: TwoColour,
    /// (cell, cell, weight) for every adjacent pair.
    pairs: Vec<(u8, u8, i64)>,
    total: i64,
}

/// A twins position: the shared two-colour cursor, o being the first player.
pub type TwinsPosition = two_colour::Position;

impl Twins {
    /// Build the game for a board; fails for boards too large to rank.
    pub fn new(spec: TwinsSpec) -> Result<Self> {
        let (r, c) = (spec.rows, spec.cols);
        if r == 0
            || c == 0
            || r.saturating_mul(c) > MAX_CELLS
            || spec.vert.len() != (r - 1) * c
            || spec.horiz.len() != r * (c - 1)
        {
            return Err(Error::input("twins board: dimensions and weights disagree"));
        }
        let total = spec.total_weight()?;
        let cells = r * c;
        let mut pairs = Vec::new();
        for i in 0..r.saturating_sub(1) {
            for j in 0..c {
                pairs.push((
                    (i * c + j) as u8,
                    ((i + 1) * c + j) as u8,
                    spec.vert[i * c + j],
                ));
            }
        }
        for i in 0..r {
            for j in 0..c - 1 {
                pairs.push((
                    (i * c + j) as u8,
                    (i * c + j + 1) as u8,
                    spec.horiz[i * (c - 1) + j],
                ));
            }
        }
        let ranking = TwoColour::new(r, c)?;
        Ok(Twins {
            spec,
            cells,
            ranking,
            pairs,
            total,
        })
    }

    /// The sum of all weights.
    pub fn total_weight(&self) -> i64 {
        self.total
    }

    /// What a position of this board looks like, with an example, for error messages.
    fn position_form(&self) -> String {
        let (r, c) = (self.spec.rows, self.spec.cols);
        // The 3 x 3 example cut (or padded with empty cells) to the board, then thinned
        // so it stays legal (o = x or x + 1) where the cut dropped the x.
        const PATTERN: [&[u8]; 3] = [b"o.x", b".o.", b"..."];
        let mut marks: Vec<u8> = (0..r * c)
            .map(|cell| {
                let (i, j) = (cell / c, cell % c);
                PATTERN
                    .get(i)
                    .and_then(|row| row.get(j))
                    .copied()
                    .unwrap_or(b'.')
            })
            .collect();
        let xs = marks.iter().filter(|&&m| m == b'x').count();
        let mut os = marks.iter().filter(|&&m| m == b'o').count();
        for m in marks.iter_mut().rev() {
            if os <= xs + 1 {
                break;
            }
            if *m == b'o' {
                *m = b'.';
                os -= 1;
            }
        }
        let rows: Vec<String> = marks
            .chunks(c)
            .map(|row| String::from_utf8_lossy(row).into_owned())
            .collect();
        format!(
            "twins {r} x {c} positions look like {} (rows of o, x, . separated by /)",
            rows.join("/")
        )
    }

    /// Marks per cell, row-major: 0 empty, 1 o, 2 x.
    pub fn marks(&self, pos: &TwinsPosition) -> Vec<u8> {
        self.ranking.marks(pos)
    }

    fn position_from_marks(&self, marks: &[u8]) -> TwinsPosition {
        self.ranking.position_from_marks(marks)
    }
}

impl Game for Twins {
    fn name(&self) -> &'static str {
        "twins"
    }

    fn describe_value(&self, value: i64) -> String {
        let second = self.total_weight() - value;
        format!("{value} (final scores: first {value}, second {second})")
    }

    fn value_meaning(&self) -> &'static str {
        "value: first's final score, with perfect play"
    }

    fn final_scores(&self, value: i64) -> Option<Scores> {
        Some(Scores {
            first: value,
            second: self.total_weight() - value,
        })
    }

    /// The pairs already decided (both cells filled): same marks score for first,
    /// different marks for second.
    fn board_scores(&self, pos: &TwinsPosition) -> Option<Scores> {
        let marks = self.marks(pos);
        let mut s = Scores::default();
        for &(a, b, w) in &self.pairs {
            let (a, b) = (marks[a as usize], marks[b as usize]);
            if a != 0 && b != 0 {
                if a == b {
                    s.first += w;
                } else {
                    s.second += w;
                }
            }
        }
        Some(s)
    }

    fn line_result(&self, scores: Scores) -> i64 {
        scores.first
    }

    fn contest_answer(&self, root: i64) -> String {
        format!("{root}\n{}", self.total_weight() - root)
    }

    type Position = TwinsPosition;

    fn spec(&self) -> Option<GameSpec> {
        Some(GameSpec::Twins(self.spec.clone()))
    }

    fn cells(&self) -> usize {
        self.cells
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.ranking.layer_size(k)
    }

    fn value_range(&self) -> (i64, i64) {
        (0, self.total)
    }

    fn prepare_layer(&self, k: usize) {
        self.ranking.prepare_layer(k);
    }

    fn unrank(&self, k: usize, rank: u64) -> TwinsPosition {
        self.ranking.unrank(k, rank)
    }

    fn rank(&self, pos: &TwinsPosition) -> u64 {
        self.ranking.rank(pos)
    }

    fn stones(&self, pos: &TwinsPosition) -> usize {
        pos.stones()
    }

    #[inline]
    fn advance(&self, pos: &mut TwinsPosition) {
        self.ranking.advance(pos);
    }

    fn terminal_value(&self, pos: &TwinsPosition) -> i64 {
        // On a full board position p of S is cell p, so `first` is the mask of o cells.
        let o_mask = pos.first;
        self.pairs
            .iter()
            .filter(|&&(a, b, _)| (o_mask >> a & 1) == (o_mask >> b & 1))
            .map(|&(_, _, w)| w)
            .sum()
    }

    #[inline]
    fn for_each_child(&self, pos: &TwinsPosition, mut f: impl FnMut(u64, i64)) {
        self.ranking.for_each_child(pos, |child| f(child, 0));
    }

    fn moves(&self, pos: &TwinsPosition) -> Vec<Move<TwinsPosition>> {
        let mark = if pos.stones().is_multiple_of(2) { 1 } else { 2 };
        let marks = self.marks(pos);
        (0..self.cells)
            .filter(|&c| marks[c] == 0)
            .map(|c| {
                let mut child = marks.clone();
                child[c] = mark;
                Move {
                    row: c / self.spec.cols,
                    col: c % self.spec.cols,
                    reward: 0,
                    child: self.position_from_marks(&child),
                }
            })
            .collect()
    }

    fn parse_position(&self, text: &str) -> Result<TwinsPosition> {
        let bad = |why: String| {
            Error::input(format!(
                "bad twins position {}: {why}; {}",
                crate::error::excerpt(text),
                self.position_form()
            ))
        };
        let (r, c) = (self.spec.rows, self.spec.cols);
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("empty") {
            return Ok(self.position_from_marks(&vec![0; self.cells]));
        }
        if trimmed.is_empty() {
            return Err(bad("no position given".into()));
        }
        // Young positions are digits and commas, which no twins position holds.
        if trimmed.chars().any(|ch| ch.is_ascii_digit())
            && trimmed
                .chars()
                .all(|ch| ch.is_ascii_digit() || ch == ',' || ch.is_whitespace())
        {
            return Err(bad(format!(
                "this is a twins table; {} looks like a young position",
                crate::error::excerpt(trimmed)
            )));
        }
        let lines: Vec<&str> = trimmed.split('/').collect();
        if lines.len() != r {
            return Err(bad(format!(
                "expected {r} rows separated by '/', found {}",
                lines.len()
            )));
        }
        let mut marks = Vec::with_capacity(self.cells);
        for (i, line) in lines.iter().enumerate() {
            let mut len = 0;
            for ch in line.chars() {
                marks.push(match ch {
                    '.' => 0,
                    'o' => 1,
                    'x' => 2,
                    other => {
                        return Err(bad(format!(
                            "row {} holds {other:?}; cells are 'o', 'x' or '.'",
                            i + 1
                        )));
                    }
                });
                len += 1;
            }
            if len != c {
                return Err(bad(format!("row {} has {len} cells, expected {c}", i + 1)));
            }
        }
        let os = marks.iter().filter(|&&m| m == 1).count();
        let xs = marks.iter().filter(|&&m| m == 2).count();
        if os != xs && os != xs + 1 {
            return Err(bad(format!(
                "{os} o and {xs} x: o must equal x or exceed it by one"
            )));
        }
        Ok(self.position_from_marks(&marks))
    }

    fn format_position(&self, pos: &TwinsPosition) -> String {
        let marks = self.marks(pos);
        let rows: Vec<String> = marks
            .chunks(self.spec.cols)
            .map(|row| row.iter().map(|&m| ['.', 'o', 'x'][m as usize]).collect())
            .collect();
        rows.join("/")
    }

    fn draw(&self, pos: &TwinsPosition) -> String {
        let marks = self.marks(pos);
        let mut out = String::new();
        for row in marks.chunks(self.spec.cols) {
            let cells: Vec<String> = row
                .iter()
                .map(|&m| ['.', 'o', 'x'][m as usize].to_string())
                .collect();
            out.push_str(&cells.join(" "));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_counts_match_the_spec() {
        let t = |r, c| {
            let spec = TwinsSpec {
                rows: r,
                cols: c,
                vert: vec![1; (r - 1) * c],
                horiz: vec![1; r * (c - 1)],
            };
            Twins::new(spec).unwrap().total_positions()
        };
        assert_eq!(t(3, 3), 6_046);
        assert_eq!(t(4, 4), 10_165_779);
        assert_eq!(t(4, 5), 741_365_049);
    }
}
