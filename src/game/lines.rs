//! What games won by a line (mnk, connect, Hex) share besides their values (`values::WinLoss`):
//! the lines of a grid, the board input `A B K` / `AxBkK`, the cells of full lines, and which
//! boards with lines play cannot reach.

use crate::error::{Error, Result};

/// Why a position with these lines (as cell masks, of x and of o) cannot arise in
/// play, None if it can as far as lines tell. `last` holds the cells the last move
/// could have been played on (every empty-board cell for mnk; the top stone of each
/// column for connect): the mover's lines must all pass through one of them.
pub fn unreachable(
    stones: usize,
    (x, x_lines): (u64, &[u64]),
    (o, o_lines): (u64, &[u64]),
    last: u64,
) -> Option<&'static str> {
    let x_last = stones % 2 == 1;
    match (x_lines.is_empty(), o_lines.is_empty()) {
        (true, true) => None,
        (false, false) => Some("both x and o have a line"),
        (false, true) if !x_last => Some("x has a line but o moved last"),
        (true, false) if x_last => Some("o has a line but x moved last"),
        // The last move made every line the mover has, so they share a cell it could
        // have been played on.
        (false, true) if x_lines.iter().fold(x & last, |m, &l| m & l) == 0 => {
            Some("x has lines that no single move completed")
        }
        (true, false) if o_lines.iter().fold(o & last, |m, &l| m & l) == 0 => {
            Some("o has lines that no single move completed")
        }
        _ => None,
    }
}

/// Every K cells in a row, a column, a diagonal or an anti-diagonal of a `rows` x `cols`
/// grid, as masks with cell (i, j) at bit `bit(i, j)`.
pub fn lines(rows: usize, cols: usize, k: usize, bit: impl Fn(usize, usize) -> u32) -> Vec<u64> {
    let (r, c, k) = (rows as i64, cols as i64, k as i64);
    let mut lines = Vec::new();
    for (di, dj) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for i in 0..r {
            for j in 0..c {
                let (ei, ej) = (i + di * (k - 1), j + dj * (k - 1));
                if !(0..r).contains(&ei) || !(0..c).contains(&ej) {
                    continue;
                }
                let mask = (0..k).fold(0u64, |m, t| {
                    m | 1 << bit((i + di * t) as usize, (j + dj * t) as usize)
                });
                // With K = 1 every direction gives the same one-cell line.
                if !lines.contains(&mask) {
                    lines.push(mask);
                }
            }
        }
    }
    lines
}

/// Read `A B K`, `AxBkK`, or either without K (None), for error messages naming `game`
/// and its expected `form`.
pub fn parse_size_k(text: &str, game: &str, form: &str) -> Result<(usize, usize, Option<usize>)> {
    let t = text.trim();
    if t.is_empty() {
        return Err(Error::input(format!("empty {game} input: {form}")));
    }
    let bad = || {
        Error::input(format!(
            "bad {game} board {}: {form}",
            crate::error::excerpt(t)
        ))
    };
    let lower = t.to_ascii_lowercase();
    let parts: Vec<&str> = if lower.contains('x') {
        let (size, k) = match lower.split_once('k') {
            Some((size, k)) => (size, Some(k)),
            None => (lower.as_str(), None),
        };
        let (a, b) = size.split_once('x').ok_or_else(bad)?;
        [a, b].into_iter().chain(k).collect()
    } else {
        lower.split_whitespace().collect()
    };
    let numbers: Vec<usize> = parts
        .iter()
        .map(|p| p.trim().parse::<usize>().map_err(|_| bad()))
        .collect::<Result<_>>()?;
    match numbers[..] {
        [a, b] => Ok((a, b, None)),
        [a, b, k] => Ok((a, b, Some(k))),
        _ => Err(bad()),
    }
}

/// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The cells of `lines` (masks) that lie wholly inside `x` or inside `o`, as (row, col)
/// through `cell_of` (a mask bit to its cell), in row-major order.
pub fn cells_of_full_lines(
    lines: &[u64],
    x: u64,
    o: u64,
    cell_of: impl Fn(u32) -> (usize, usize),
) -> Vec<(usize, usize)> {
    let full = lines
        .iter()
        .filter(|&&l| l & x == l || l & o == l)
        .fold(0u64, |m, &l| m | l);
    let mut cells: Vec<(usize, usize)> = (0..64)
        .filter(|&b| full & (1u64 << b) != 0)
        .map(cell_of)
        .collect();
    cells.sort_unstable();
    cells
}
