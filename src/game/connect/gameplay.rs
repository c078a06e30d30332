//! What people see of connect: its notation, drawing and words (`Gameplay`), and its
//! name and board (`Registered`).

use super::*;
use crate::game::{Gameplay, MoveNotation, Registered};

impl Gameplay for Connect {
    fn move_notation(&self) -> MoveNotation {
        MoveNotation::Column
    }

    fn parse_position(&self, text: &str) -> Result<ConnectPosition> {
        let bad = |why: String| {
            Error::input(format!(
                "bad connect position {}: {why}; {}",
                crate::error::excerpt(text),
                self.position_form()
            ))
        };
        let (w, h) = (self.board.width, self.board.height);
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("empty") {
            return Ok(self.unrank(0, 0));
        }
        if trimmed.is_empty() {
            return Err(bad("no position given".into()));
        }
        // The columns played from the empty board (`4455`): the position the line reaches.
        if let Some(line) = self.line_of_play(trimmed) {
            return Ok(line?.pop().map_or_else(|| self.unrank(0, 0), |m| m.child));
        }
        let marks = two_colour::parse_marks(trimmed, h, w, 'x', 'o').map_err(bad)?;
        let (mut occupied, mut x) = (0u64, 0u64);
        for (cell, &m) in marks.iter().enumerate() {
            let (i, j) = (cell / w, cell % w);
            let bit = 1u64 << self.heights.bit(j, h - 1 - i);
            if m != 0 {
                occupied |= bit;
            }
            if m == 1 {
                x |= bit;
            }
        }
        self.position_of(occupied, x).ok_or_else(|| {
            let col = (0..w)
                .find(|&j| {
                    let column = (occupied >> self.heights.bit(j, 0)) & ((1u64 << h) - 1);
                    column & (column + 1) != 0
                })
                .unwrap_or(0);
            bad(format!(
                "column {} has a stone above an empty cell (stones fall to the lowest empty cell)",
                col + 1
            ))
        })
    }

    fn check_reachable(&self, pos: &ConnectPosition) -> Result<()> {
        let o = pos.occupied ^ pos.x;
        let full =
            |m: u64| -> Vec<u64> { self.lines.iter().copied().filter(|&l| m & l == l).collect() };
        // The last stone dropped is the top stone of its column.
        let tops = (0..self.board.width)
            .filter_map(|col| {
                let height = self.heights.column_height(pos.occupied, col);
                (height > 0).then(|| 1u64 << self.heights.bit(col, height - 1))
            })
            .fold(0, |m, b| m | b);
        let why = lines::unreachable(pos.stones, (pos.x, &full(pos.x)), (o, &full(o)), tops)
            .or_else(|| {
                // The lines allow it; gravity and turns may not (in one column, o under
                // x and nothing else: x moves first).
                (!self.buildable(pos.occupied, pos.x, &mut HashSet::new())).then_some(
                    "no order of drops (x first, turns alternating) stacks these columns \
                     without a line ending the game sooner",
                )
            });
        match why {
            Some(why) => Err(Error::input(format!("this position cannot arise: {why}"))),
            None => Ok(()),
        }
    }

    fn winning_cells(&self, pos: &ConnectPosition) -> Vec<(usize, usize)> {
        let (w, h) = (self.board.width, self.board.height);
        // A bit is column * (height + 1) + height from the bottom (`Heights::bit`).
        let cell_of = |b: u32| {
            let (col, up) = (b as usize / (h + 1), b as usize % (h + 1));
            (h - 1 - up.min(h - 1), col.min(w - 1))
        };
        crate::game::lines::cells_of_full_lines(&self.lines, pos.x, pos.occupied ^ pos.x, cell_of)
    }

    /// The columns played from the empty board, 1-based as `play` numbers them (`4455`),
    /// as Connect Four solvers and databases write games; boards up to 9 columns wide, one
    /// digit a move (wider, `12` would be column 12 or 1 then 2).
    fn line_of_play(&self, text: &str) -> Option<Result<Vec<Move<ConnectPosition>>>> {
        let trimmed = text.trim();
        let digits = !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit());
        (self.board.width <= 9 && digits).then(|| {
            self.play_columns(trimmed).map_err(|why| {
                Error::input(format!(
                    "bad connect position {}: {why}; {}",
                    crate::error::excerpt(text),
                    self.position_form()
                ))
            })
        })
    }

    fn format_position(&self, pos: &ConnectPosition) -> String {
        two_colour::format_marks(&self.marks(pos), self.board.width, 'x', 'o')
    }

    fn draw(&self, pos: &ConnectPosition) -> String {
        two_colour::draw_marks(&self.marks(pos), self.board.width, 'x', 'o')
    }
}

impl Connect {
    /// The moves of dropping in these columns (digits, 1-based) from the empty board, x
    /// first; why not where a column is off the board or full, or the game was over before
    /// the move.
    fn play_columns(
        &self,
        columns: &str,
    ) -> std::result::Result<Vec<Move<ConnectPosition>>, String> {
        let w = self.board.width;
        let mut pos = self.unrank(0, 0);
        let mut line = Vec::with_capacity(columns.len());
        for (i, digit) in columns.bytes().enumerate() {
            let col = usize::from(digit - b'0');
            if !(1..=w).contains(&col) {
                return Err(format!(
                    "move {} is column {col}; the columns are 1 to {w}",
                    i + 1
                ));
            }
            let moves = self.moves(&pos);
            if moves.is_empty() && self.layer_of(&pos) == self.last_layer() {
                return Err(format!("the board is full after move {i}"));
            }
            if moves.is_empty() {
                return Err(format!(
                    "the game is over after move {i} (a line of {}), before column {col}",
                    self.board.k
                ));
            }
            match moves.into_iter().find(|m| m.col + 1 == col) {
                Some(m) => {
                    pos = m.child.clone();
                    line.push(m);
                }
                None => return Err(format!("move {} is column {col}, which is full", i + 1)),
            }
        }
        Ok(line)
    }
}

impl Registered for Connect {
    const NAME: &'static str = "connect";
    type Board = ConnectBoard;

    fn new(board: ConnectBoard) -> Result<Self> {
        Connect::new(board)
    }

    fn unfolded(board: ConnectBoard) -> Result<Self> {
        Connect::unfolded(board)
    }

    fn board(&self) -> &ConnectBoard {
        &self.board
    }

    fn notation() -> crate::game::Notation {
        crate::game::Notation {
            summary: "Connect Four and its sizes: stones drop down columns, K in a row wins",
            board: "`WxH` or `WxHkK` (or `W H K`), width first, K = 4 when left out (the longer side where that is less): `7x6` is Connect Four",
            position: "rows of x, o, . separated by /, top row first (x moves first): `..../..../..../x...`",
            moves: "a column, 1-based from the left: `column 3` (play reads `3`)",
            marks: Some(('x', 'o')),
        }
    }
}
