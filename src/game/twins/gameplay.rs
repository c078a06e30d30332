//! What people see of twins: its notation, drawing and words (`Gameplay`), and its
//! name and board (`Registered`).

use super::*;
use crate::game::{Gameplay, Registered, Scores};

impl Gameplay for Twins {
    /// The first player plays o: `marks` writes the first player's cells as 1 and the
    /// second's (x) as 2.
    fn side_stones(&self, pos: &TwinsPosition) -> [usize; 2] {
        let marks = self.marks(pos);
        let count = |m: u8| marks.iter().filter(|&&c| c == m).count();
        [count(2), count(1)]
    }

    fn describe_value(&self, value: i64) -> String {
        let second = self.total_weight() - value;
        let verdict = match value.cmp(&second) {
            std::cmp::Ordering::Greater => format!("first wins by {}", value - second),
            std::cmp::Ordering::Less => format!("second wins by {}", second - value),
            std::cmp::Ordering::Equal => "a tie".to_string(),
        };
        format!("{value} (final scores: first {value}, second {second}: {verdict})")
    }

    fn draw_weights(&self) -> Option<String> {
        let b = &self.board;
        let (rows, cols) = (b.rows, b.cols);
        // Cells are `o`, and each pair's weight sits between its two cells: on the row
        // for side by side, on the line below for one above the other.
        let mut lines = Vec::new();
        let width = b
            .vert
            .iter()
            .chain(&b.horiz)
            .map(|w| w.to_string().len())
            .max()
            .unwrap_or(1);
        for i in 0..rows {
            let mut line = String::new();
            for j in 0..cols {
                line.push('o');
                if j + 1 < cols {
                    line.push_str(&format!(" {:^width$} ", b.horiz[i * (cols - 1) + j]));
                }
            }
            lines.push(line);
            if i + 1 < rows {
                let mut line = String::new();
                for j in 0..cols {
                    let w = b.vert[i * cols + j].to_string();
                    line.push_str(&format!("{w:<width$}"));
                    if j + 1 < cols {
                        line.push_str(&" ".repeat(3));
                    }
                }
                lines.push(line.trim_end().to_string());
            }
        }
        Some(format!(
            "pair weights (a pair of neighbours with the same mark scores its weight for \
             first, different marks for second; below a cell: the pair with the cell under it):\n{}\n",
            lines.join("\n")
        ))
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

    fn parse_position(&self, text: &str) -> Result<TwinsPosition> {
        let bad = |why: String| {
            Error::input(format!(
                "bad twins position {}: {why}; {}",
                crate::error::excerpt(text),
                self.position_form()
            ))
        };
        let (r, c) = (self.board.rows, self.board.cols);
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
        let marks = two_colour::parse_marks(trimmed, r, c, 'o', 'x').map_err(bad)?;
        Ok(self.position_from_marks(&marks))
    }

    fn format_position(&self, pos: &TwinsPosition) -> String {
        two_colour::format_marks(&self.marks(pos), self.board.cols, 'o', 'x')
    }

    fn draw(&self, pos: &TwinsPosition) -> String {
        two_colour::draw_marks(&self.marks(pos), self.board.cols, 'o', 'x')
    }
}

impl Registered for Twins {
    const NAME: &'static str = "twins";
    type Board = TwinsBoard;

    fn new(board: TwinsBoard) -> Result<Self> {
        Twins::new(board)
    }

    fn board(&self) -> &TwinsBoard {
        &self.board
    }

    fn notation() -> crate::game::Notation {
        crate::game::Notation {
            summary: "o and x fill a board; each pair of neighbouring cells scores for the first player if their marks match, else for the second",
            board: "a file of pair weights: R-1 rows of C (pairs one above the other), then R rows of C-1 (side by side); --rows/--cols where several sizes fit",
            position: "rows of o, x, . separated by /, top row first (o moves first): `o.x/.o./...`",
            moves: "a cell `row,col`, 1-based, row 1 the top: `1,2`",
            marks: Some(('o', 'x')),
        }
    }
}
