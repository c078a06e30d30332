//! What people see of mnk: its notation, drawing and words (`Gameplay`), and its
//! name and board (`Registered`).

use super::*;
use crate::game::{Gameplay, Registered};

impl Gameplay for Mnk {
    fn parse_position(&self, text: &str) -> Result<MnkPosition> {
        let bad = |why: String| {
            Error::input(format!(
                "bad mnk position {}: {why}; {}",
                crate::error::excerpt(text),
                self.position_form()
            ))
        };
        let (r, c) = (self.board.rows, self.board.cols);
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("empty") {
            return Ok(self.position_of_marks(&vec![0; self.cells]));
        }
        if trimmed.is_empty() {
            return Err(bad("no position given".into()));
        }
        let marks = two_colour::parse_marks(trimmed, r, c, 'x', 'o').map_err(bad)?;
        Ok(self.position_of_marks(&marks))
    }

    fn check_reachable(&self, pos: &MnkPosition) -> Result<()> {
        let (x, o) = self.cell_masks(pos);
        let full =
            |m: u64| -> Vec<u64> { self.lines.iter().copied().filter(|&l| m & l == l).collect() };
        let every_cell = u64::MAX;
        match lines::unreachable(pos.stones(), (x, &full(x)), (o, &full(o)), every_cell) {
            Some(why) => Err(Error::input(format!("this position cannot arise: {why}"))),
            None => Ok(()),
        }
    }

    fn winning_cells(&self, pos: &MnkPosition) -> Vec<(usize, usize)> {
        let (x, o) = self.cell_masks(pos);
        let cols = self.board.cols;
        lines::cells_of_full_lines(&self.lines, x, o, |b| {
            (b as usize / cols, b as usize % cols)
        })
    }

    fn format_position(&self, pos: &MnkPosition) -> String {
        two_colour::format_marks(&self.marks(pos), self.board.cols, 'x', 'o')
    }

    fn draw(&self, pos: &MnkPosition) -> String {
        two_colour::draw_marks(&self.marks(pos), self.board.cols, 'x', 'o')
    }
}

impl Registered for Mnk {
    const NAME: &'static str = "mnk";
    type Board = MnkBoard;

    fn new(board: MnkBoard) -> Result<Self> {
        Mnk::new(board)
    }

    fn unfolded(board: MnkBoard) -> Result<Self> {
        Mnk::unfolded(board)
    }

    fn board(&self) -> &MnkBoard {
        &self.board
    }

    fn notation() -> crate::game::Notation {
        crate::game::Notation {
            summary: "x and o on R x C cells, K in a row wins (3x3k3 is tic-tac-toe)",
            board: "`RxC` or `RxCkK` (or `R C K`), K = min(R, C) when left out: `4x4k3`",
            position: "rows of x, o, . separated by /, top row first (x moves first): `x.o/.x./...`",
            moves: "a cell `row,col`, 1-based, row 1 the top: `1,2`",
            marks: Some(('x', 'o')),
        }
    }
}
