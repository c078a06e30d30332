//! The twins game: o and x fill an R x C grid; adjacent equal marks pay the first player.
//! This file holds the game; `board.rs` the board, its input and how its size is inferred.
//!
//! o is the first player. Positions are ranked by `two_colour` (occupied cells, then which
//! of them hold o), the ranking twins shares with mnk.

mod board;
mod gameplay;

pub use board::TwinsBoard;
pub(crate) use board::sizes_by_layout;

pub use super::two_colour::MAX_CELLS;
use super::two_colour::{self, TwoColour};
use super::{Edge, Game, Move, Values};
use crate::error::{Error, Result};

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
    board: TwinsBoard,
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
    pub fn new(board: TwinsBoard) -> Result<Self> {
        let (r, c) = (board.rows, board.cols);
        if r == 0
            || c == 0
            || r.saturating_mul(c) > MAX_CELLS
            || board.vert.len() != (r - 1) * c
            || board.horiz.len() != r * (c - 1)
        {
            return Err(Error::input("twins board: dimensions and weights disagree"));
        }
        let total = board.total_weight()?;
        let cells = r * c;
        let mut pairs = Vec::new();
        for i in 0..r.saturating_sub(1) {
            for j in 0..c {
                pairs.push((
                    (i * c + j) as u8,
                    ((i + 1) * c + j) as u8,
                    board.vert[i * c + j],
                ));
            }
        }
        for i in 0..r {
            for j in 0..c - 1 {
                pairs.push((
                    (i * c + j) as u8,
                    (i * c + j + 1) as u8,
                    board.horiz[i * (c - 1) + j],
                ));
            }
        }
        let ranking = TwoColour::new(r, c)?;
        Ok(Twins {
            board,
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
        let (r, c) = (self.board.rows, self.board.cols);
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

impl Twins {
    /// A full board's value: the pairs it scores for the first player. Kept out of line, so
    /// the sweep's loop over a layer's positions (which asks `ended` of each) stays small.
    #[inline(never)]
    fn score(&self, pos: &TwinsPosition) -> i64 {
        // On a full board position p of S is cell p, so `first` is the mask of o cells.
        let o_mask = pos.first;
        self.pairs
            .iter()
            .filter(|&&(a, b, _)| (o_mask >> a & 1) == (o_mask >> b & 1))
            .map(|&(_, _, w)| w)
            .sum()
    }
}

impl Game for Twins {
    type Position = TwinsPosition;

    fn last_layer(&self) -> usize {
        self.cells
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.ranking.layer_size(k)
    }

    /// Values are the first player's final score (what the board scores for the first
    /// player), not a difference.
    fn values(&self) -> Values {
        Values::Scores {
            lo: 0,
            hi: self.total,
        }
    }

    fn prepare_layer(&self, k: usize) {
        self.ranking.prepare_layer(k);
    }

    fn table_bytes(&self) -> u64 {
        self.ranking.table_bytes()
    }

    fn unrank(&self, k: usize, rank: u64) -> TwinsPosition {
        self.ranking.unrank(k, rank)
    }

    fn rank(&self, pos: &TwinsPosition) -> u64 {
        self.ranking.rank(pos)
    }

    fn layer_of(&self, pos: &TwinsPosition) -> usize {
        pos.stones()
    }

    #[inline]
    fn advance(&self, pos: &mut TwinsPosition) {
        self.ranking.advance(pos);
    }

    /// The full board: the pairs it scores.
    #[inline]
    fn ended(&self, pos: &TwinsPosition) -> Option<i64> {
        (pos.stones() == self.cells).then(|| self.score(pos))
    }

    #[inline]
    fn for_each_child(&self, pos: &TwinsPosition, mut f: impl FnMut(Edge)) {
        let layer = pos.stones() + 1;
        self.ranking.for_each_child(pos, |rank| {
            f(Edge {
                layer,
                rank,
                reward: 0,
            })
        });
    }

    fn for_each_move_in_order(
        &self,
        pos: &TwinsPosition,
        mut f: impl FnMut(u64, i64) -> std::ops::ControlFlow<()>,
    ) {
        // `for_each_child` reports the empty cells in cell order, which is `moves` order.
        let mut stopped = false;
        self.for_each_child(pos, |e| {
            if !stopped {
                stopped = f(e.rank, e.reward).is_break();
            }
        });
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
                    from: None,
                    row: c / self.board.cols,
                    col: c % self.board.cols,
                    reward: 0,
                    take: None,
                    child: self.position_from_marks(&child),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::game::{Board, Gameplay};

    #[test]
    fn layer_counts_match_the_spec() {
        let t = |r, c| {
            let board = TwinsBoard {
                rows: r,
                cols: c,
                vert: vec![1; (r - 1) * c],
                horiz: vec![1; r * (c - 1)],
            };
            Twins::new(board).unwrap().total_positions()
        };
        assert_eq!(t(3, 3), 6_046);
        assert_eq!(t(4, 4), 10_165_779);
        assert_eq!(t(4, 5), 741_365_049);
    }
}
