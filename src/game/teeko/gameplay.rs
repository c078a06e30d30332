//! What people see of Teeko: its notation, drawing and words (`Gameplay`), its solver's
//! view for the commands (`Game`, through the retrograde solver), and its name and board
//! (`Registered`).

use super::*;
use crate::game::{Gameplay, MoveNotation, Registered, grid};

impl Teeko {
    fn form(&self) -> String {
        format!(
            "a position is {} rows of {} cells ('x', 'o', '.') separated by '/', then :x or :o for the side to move (needed once all {} stones are down), or `empty`",
            self.board.rows,
            self.board.cols,
            2 * self.board.stones
        )
    }

    pub(super) fn cell(&self, mask: u64) -> (usize, usize) {
        let c = mask.trailing_zeros() as usize;
        (c / self.board.cols, c % self.board.cols)
    }
}

impl Gameplay for Teeko {
    fn move_notation(&self) -> MoveNotation {
        MoveNotation::FromTo
    }

    fn parse_position(&self, text: &str) -> Result<TeekoPosition> {
        let form = self.form();
        let grid = grid::parse_grid(text, self.board.rows, self.board.cols, &form)?;
        let bad = |why: String| {
            Error::input(format!(
                "bad teeko position {}: {why}; {form}",
                crate::error::excerpt(text)
            ))
        };
        let mask = |m: u8| {
            grid.marks
                .iter()
                .enumerate()
                .filter(|&(_, &v)| v == m)
                .fold(0u64, |acc, (c, _)| acc | 1 << c)
        };
        let (x, o) = (mask(1), mask(2));
        let (nx, no) = (x.count_ones() as usize, o.count_ones() as usize);
        let s = self.board.stones;
        if nx > s || no > s {
            return Err(bad(format!("x has {nx} stones and o {no}: each has {s}")));
        }
        if nx != no && nx != no + 1 {
            return Err(bad(format!(
                "x has {nx} stones and o {no}: x drops first, so x has as many as o or one more"
            )));
        }
        let k = nx + no;
        let side = if k == self.movement() {
            grid.side.ok_or_else(|| {
                bad("all stones are down, so the side to move must be given: add :x or :o".into())
            })?
        } else {
            let side = (k % 2) as u8;
            if grid.side.is_some_and(|named| named != side) {
                let who = if side == 0 { "x" } else { "o" };
                return Err(bad(format!(
                    "with {nx} x and {no} o on the board, {who} is to move"
                )));
            }
            side
        };
        Ok(self.position(x, o, side))
    }

    fn winning_cells(&self, pos: &TeekoPosition) -> Vec<(usize, usize)> {
        let cols = self.board.cols;
        crate::game::lines::cells_of_full_lines(&self.patterns, pos.x, pos.o, |b| {
            (b as usize / cols, b as usize % cols)
        })
    }

    /// Play reaches a position unless one of these holds (each follows from the moves):
    /// - the side to move has a pattern: the side that forms one has just moved;
    /// - x's only stone is on the centre under the first-drop rule: stones do not move
    ///   before all are down, so x's only stone is its first drop;
    /// - all stones are down, o is to move, and every slide back of one of x's stones
    ///   leaves x a pattern: x has just slid, and the game ended before that slide.
    ///
    /// Nothing else is needed. Before all stones are down no side has a pattern until its
    /// last drop, so the drops may come in any order (x's first on a cell off the centre).
    /// With all down and x to move, o's last drop may have made the position from the one
    /// with the same x stones and o's other stones, which play reaches while x has no
    /// pattern; with o to move, x has just slid from such a position.
    fn check_reachable(&self, pos: &TeekoPosition) -> Result<()> {
        let (mover, other) = if pos.side == 0 {
            ((pos.x, "x"), (pos.o, "o"))
        } else {
            ((pos.o, "o"), (pos.x, "x"))
        };
        let why = if self.has_pattern(mover.0) && self.has_pattern(other.0) {
            Some("both players have a winning pattern, but play stops at the first".to_string())
        } else if self.has_pattern(mover.0) {
            Some(format!(
                "{} has a winning pattern but is to move: the player who forms one has just moved",
                mover.1
            ))
        } else if self.board.no_centre_first && self.centre().is_some_and(|c| pos.x == 1 << c) {
            Some(
                "x's only stone is on the centre, so it was x's first drop, which may not be there in this game"
                    .to_string(),
            )
        } else if pos.k == self.movement() && pos.side == 1 && !self.x_could_have_slid(pos) {
            Some(
                "o is to move, so x has just slid a stone, but every slide back gives x a winning pattern: the game was over before it"
                    .to_string(),
            )
        } else {
            None
        };
        match why {
            Some(why) => Err(Error::input(format!("this position cannot arise: {why}"))),
            None => Ok(()),
        }
    }

    fn format_position(&self, pos: &TeekoPosition) -> String {
        let marks = grid::marks_of(pos.x, pos.o, self.cells);
        let side = (pos.k == self.movement()).then_some(pos.side);
        grid::format_grid(&marks, self.board.cols, side)
    }

    fn draw(&self, pos: &TeekoPosition) -> String {
        let marks = grid::marks_of(pos.x, pos.o, self.cells);
        crate::game::two_colour::draw_marks(&marks, self.board.cols, 'x', 'o')
    }

    fn first_to_move(&self, pos: &TeekoPosition) -> bool {
        pos.side == 0
    }

    fn why_illegal(
        &self,
        pos: &TeekoPosition,
        from: Option<(usize, usize)>,
        to: (usize, usize),
    ) -> Option<String> {
        let (rows, cols) = (self.board.rows, self.board.cols);
        let bit = |(r, c): (usize, usize)| (r < rows && c < cols).then(|| 1u64 << (r * cols + c));
        let moves = self.moves(pos);
        let example = moves.first().map(grid::move_text).unwrap_or_default();
        let (mine, theirs) = match pos.side {
            0 => (pos.x, pos.o),
            _ => (pos.o, pos.x),
        };
        let outside = || format!("the board has rows 1 to {rows} and columns 1 to {cols}");
        let Some(to_bit) = bit(to) else {
            return Some(outside());
        };
        let all_down = pos.k == self.movement();
        Some(match from {
            None if all_down => {
                format!(
                    "all your stones are down: move one to an empty cell beside it, as {example}"
                )
            }
            Some(_) if !all_down => format!(
                "you still have stones to put down: drop one on an empty cell, as {example}"
            ),
            Some(f) => match bit(f) {
                None => outside(),
                Some(b) if b & mine == 0 => {
                    format!("{} is not one of your stones", grid::cell_text(f))
                }
                Some(_) if to_bit & (mine | theirs) != 0 => {
                    format!("{} is taken", grid::cell_text(to))
                }
                Some(_) => format!(
                    "a stone moves one step, to an empty cell beside it (diagonals too), as {example}"
                ),
            },
            None if to_bit & (mine | theirs) != 0 => {
                format!("{} is taken", grid::cell_text(to))
            }
            None if self.board.no_centre_first && pos.k == 0 => {
                "x's first stone may not go on the centre in this game".to_string()
            }
            None => return None,
        })
    }
}

impl Registered for Teeko {
    const NAME: &'static str = "teeko";
    type Board = TeekoBoard;

    fn new(board: TeekoBoard) -> Result<Self> {
        Teeko::new(board)
    }

    fn unfolded(board: TeekoBoard) -> Result<Self> {
        Teeko::unfolded(board)
    }

    fn folded_as(board: TeekoBoard, format: u32) -> Result<Self> {
        match format {
            ..=3 => Teeko::keyed_on_occupied(board),
            _ => Teeko::new(board),
        }
    }

    fn board(&self) -> &TeekoBoard {
        &self.board
    }

    fn notation() -> crate::game::Notation {
        crate::game::Notation {
            summary: "Teeko: x and o drop their stones, then slide them; four in a line or on a 2 x 2 square win",
            board: "nothing (standard, 5x5 with 4 stones each), or `RxC` or `RxCsS` (S stones each), then `advanced` and/or `no-centre-first`: `4x4 advanced`",
            position: "rows of x, o, . separated by /, then `:x` or `:o` for the side to move (needed once all stones are down): `xo./ox./x.o:o`",
            moves: "`row,col` drops a stone, `row,col-row,col` slides one (1-based, row 1 the top): `2,1-3,2`",
            marks: Some(('x', 'o')),
        }
    }
}
