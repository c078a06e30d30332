//! The m,n,k-games: x (first) and o take turns marking an empty cell of an R x C board;
//! K of one's marks in a row, a column or a diagonal win at once, a full board without such
//! a line is a tie. 3 x 3 with K = 3 is tic-tac-toe.
//!
//! Positions are ranked by `two_colour` (occupied cells, then which of them hold x), the
//! ranking mnk shares with twins. Values are those of every game won by a line
//! (`values::WinLoss`): cells + 1 - p when x completes a line at ply p, minus that when o does, 0
//! for a tie.
//!
//! The ranking counts every board with legal counts, including boards play never reaches
//! (both players have a line, play went on after a line, ...). Every board with a line is
//! treated as over, with the value of the player who has one (x: +(cells + 1 - k) at k
//! stones, o: -(cells + 1 - k)) or 0 when both have; `check_reachable` tells them apart for
//! `query` and `play`.

mod board;
mod gameplay;

use super::lines;
use super::two_colour::{self, MAX_CELLS, TwoColour};
use super::{Edge, Game, Move, RunSink, Values, WinLoss};
use crate::error::{Error, Result};
pub use board::MnkBoard;

/// The m,n,k-game on one board: the two-colour ranking and the lines, built once.
pub struct Mnk {
    board: MnkBoard,
    cells: usize,
    ranking: TwoColour,
    values: WinLoss,
    /// Every K cells in a row, a column, a diagonal or an anti-diagonal, as a cell mask.
    lines: Vec<u64>,
}

/// An mnk position: the shared two-colour cursor, x being the first player.
pub type MnkPosition = two_colour::Position;

/// Who has a line, in one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lines {
    x: bool,
    o: bool,
}

impl Mnk {
    /// Build the game for a board; fails for boards too large to rank.
    pub fn new(board: MnkBoard) -> Result<Self> {
        let board = MnkBoard::checked(board.rows, board.cols, board.k)?;
        let ranking = TwoColour::new(board.rows, board.cols)?;
        let cols = board.cols;
        let lines = lines::lines(board.rows, cols, board.k, |i, j| (i * cols + j) as u32);
        Ok(Mnk {
            cells: board.rows * board.cols,
            values: WinLoss {
                cells: board.rows * board.cols,
            },
            board,
            ranking,
            lines,
        })
    }

    /// The board.
    pub fn board(&self) -> &MnkBoard {
        &self.board
    }

    /// x's and o's cells, as masks.
    fn cell_masks(&self, pos: &MnkPosition) -> (u64, u64) {
        let x = pos.first_cells();
        (x, pos.occupied() & !x)
    }

    fn lines_of(&self, pos: &MnkPosition) -> Lines {
        let (x, o) = self.cell_masks(pos);
        // A line is had when none of its cells lies outside the mask.
        let has = |m: u64| self.lines.iter().any(|&l| l & !m == 0);
        Lines {
            x: has(x),
            o: has(o),
        }
    }

    /// The lines fully inside `occupied`, as masks over the positions of the occupied
    /// cells (the positions the cursor's `first` mask uses): while a walk stays on one
    /// occupied set, checking a position is then a few ands.
    fn full_lines(&self, occupied: u64, out: &mut Vec<u64>) {
        out.clear();
        for &line in &self.lines {
            if line & occupied != line {
                continue;
            }
            let mut rel = 0u64;
            let mut rest = line;
            while rest != 0 {
                let cell = rest.trailing_zeros();
                rel |= 1 << (occupied & ((1u64 << cell) - 1)).count_ones();
                rest &= rest - 1;
            }
            out.push(rel);
        }
    }

    /// What a position of this board looks like, with an example, for error messages.
    fn position_form(&self) -> String {
        let (r, c) = (self.board.rows, self.board.cols);
        let example: Vec<String> = (0..r)
            .map(|i| {
                (0..c)
                    .map(|j| match i * c + j {
                        0 => 'x',
                        1 => 'o',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        format!(
            "mnk {r} x {c} positions look like {} (rows of x, o, . separated by /; x moves first)",
            example.join("/")
        )
    }
}

impl Game for Mnk {
    type Position = MnkPosition;

    fn last_layer(&self) -> usize {
        self.cells
    }

    fn layer_size(&self, k: usize) -> u64 {
        self.ranking.layer_size(k)
    }

    fn values(&self) -> Values {
        Values::Lines(self.values)
    }

    fn prepare_layer(&self, k: usize) {
        self.ranking.prepare_layer(k);
    }

    fn unrank(&self, k: usize, rank: u64) -> MnkPosition {
        self.ranking.unrank(k, rank)
    }

    fn rank(&self, pos: &MnkPosition) -> u64 {
        self.ranking.rank(pos)
    }

    fn layer_of(&self, pos: &MnkPosition) -> usize {
        pos.stones()
    }

    #[inline]
    fn advance(&self, pos: &mut MnkPosition) {
        self.ranking.advance(pos);
    }

    /// A line, or a full board (a tie).
    fn ended(&self, pos: &MnkPosition) -> Option<i64> {
        let lines = self.lines_of(pos);
        let stones = pos.stones();
        self.values
            .line_value(lines.x, lines.o, stones)
            .or((stones == self.cells).then_some(0))
    }

    fn for_each_child(&self, pos: &MnkPosition, mut f: impl FnMut(Edge)) {
        if self.ended(pos).is_none() {
            let layer = pos.stones() + 1;
            self.ranking.for_each_child(pos, |rank| {
                f(Edge {
                    layer,
                    rank,
                    reward: 0,
                })
            });
        }
    }

    /// One run over the whole stretch; the lines are looked up once per occupied set
    /// (`full_lines`), not per position.
    fn visit_runs(&self, k: usize, start: u64, len: usize, sink: &mut impl RunSink) {
        let mut pos = self.ranking.unrank(k, start);
        let mut full = Vec::with_capacity(self.lines.len());
        self.full_lines(pos.occupied(), &mut full);
        sink.run(start, len);
        for i in 0..len {
            if i > 0 {
                let occupied = pos.occupied();
                self.ranking.advance(&mut pos);
                if pos.occupied() != occupied {
                    self.full_lines(pos.occupied(), &mut full);
                }
            }
            let mut lines = Lines { x: false, o: false };
            for &rel in &full {
                let x = pos.first & rel;
                lines.x |= x == rel;
                lines.o |= x == 0;
            }
            match self.values.line_value(lines.x, lines.o, k) {
                Some(value) => sink.terminal(i, value),
                None => self
                    .ranking
                    .for_each_child(&pos, |child| sink.single(i, child, 0)),
            }
        }
    }

    fn moves(&self, pos: &MnkPosition) -> Vec<Move<MnkPosition>> {
        if self.ended(pos).is_some() {
            return Vec::new();
        }
        let mark = if pos.stones().is_multiple_of(2) { 1 } else { 2 };
        let marks = self.ranking.marks(pos);
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
                    child: self.ranking.position_from_marks(&child),
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
    fn inputs_read_back() {
        for text in ["4 4 4", "4x4k4", " 4X4K4\n", "4 4", "4x4"] {
            let board = MnkBoard::parse(text).unwrap();
            assert_eq!(
                board,
                MnkBoard {
                    rows: 4,
                    cols: 4,
                    k: 4
                },
                "{text:?}"
            );
            assert_eq!(MnkBoard::parse(&board.to_input()).unwrap(), board);
        }
        assert_eq!(MnkBoard::parse("4x5k3").unwrap().k, 3);
        for bad in [
            "", "4", "4 4 5", "4 4 0", "0 4 1", "4x", "4x4k", "4 4 4 4", "-1 3 3",
        ] {
            assert!(MnkBoard::parse(bad).is_err(), "{bad:?}");
        }
        // `--rows/--cols` size only a board whose input leaves its size out.
        let err = <crate::game::Builtin as crate::game::Registry>::parse_sized(
            "mnk",
            "3 3 3",
            Some(3),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("--rows/--cols") && err.contains("mnk"),
            "{err}"
        );
        assert!(
            <crate::game::Builtin as crate::game::Registry>::parse_sized(
                "mnk", "3 3 3", None, None
            )
            .is_ok()
        );
    }

    #[test]
    fn lines_of_tic_tac_toe() {
        let game = Mnk::new(MnkBoard {
            rows: 3,
            cols: 3,
            k: 3,
        })
        .unwrap();
        assert_eq!(game.lines.len(), 8);
        let game = Mnk::new(MnkBoard {
            rows: 4,
            cols: 5,
            k: 4,
        })
        .unwrap();
        assert_eq!(game.lines.len(), 8 + 5 + 2 + 2);
        let game = Mnk::new(MnkBoard {
            rows: 2,
            cols: 2,
            k: 1,
        })
        .unwrap();
        assert_eq!(game.lines.len(), 4);
    }
}
