//! Hex's values against a brute force that shares nothing with the game: a memoised
//! minimax over plain grids with its own connection test, on every position of every
//! board up to 12 cells; retro's conformance checks; and the first player's win.

use std::collections::HashMap;

use hex::{Hex, HexBoard};
use retro::Driver;
use retro::prelude::*;
use retro::testing::{all_values, check_game, walk};

/// A grid of 0 (empty), 1 (x) and 2 (o), row by row.
struct Brute {
    rows: usize,
    cols: usize,
    memo: HashMap<Vec<u8>, i64>,
}

impl Brute {
    fn new(rows: usize, cols: usize) -> Brute {
        Brute {
            rows,
            cols,
            memo: HashMap::new(),
        }
    }

    /// Whether `mark`'s stones join its two sides: x top to bottom, o left to right.
    fn joined(&self, grid: &[u8], mark: u8) -> bool {
        let (rows, cols) = (self.rows as isize, self.cols as isize);
        let mut seen = vec![false; grid.len()];
        let mut stack: Vec<(isize, isize)> = Vec::new();
        for i in 0..rows.max(cols) {
            let start = if mark == 1 { (0, i) } else { (i, 0) };
            if start.0 < rows && start.1 < cols {
                stack.push(start);
            }
        }
        while let Some((r, c)) = stack.pop() {
            let at = (r * cols + c) as usize;
            if grid[at] != mark || seen[at] {
                continue;
            }
            seen[at] = true;
            if (mark == 1 && r == rows - 1) || (mark == 2 && c == cols - 1) {
                return true;
            }
            for (dr, dc) in [(0, 1), (0, -1), (1, 0), (-1, 0), (-1, 1), (1, -1)] {
                let (nr, nc) = (r + dr, c + dc);
                if nr >= 0 && nr < rows && nc >= 0 && nc < cols {
                    stack.push((nr, nc));
                }
            }
        }
        false
    }

    /// x's best outcome: cells + 1 - p if x joins at ply p, minus that if o does.
    fn value(&mut self, grid: &mut Vec<u8>) -> i64 {
        if let Some(&v) = self.memo.get(grid) {
            return v;
        }
        let cells = grid.len();
        let stones = grid.iter().filter(|&&m| m != 0).count();
        let win = (cells + 1 - stones) as i64;
        let v = match (self.joined(grid, 1), self.joined(grid, 2)) {
            (true, true) => 0,
            (true, false) => win,
            (false, true) => -win,
            (false, false) => {
                let mark = if stones % 2 == 0 { 1 } else { 2 };
                let mut best: Option<i64> = None;
                for c in 0..cells {
                    if grid[c] == 0 {
                        grid[c] = mark;
                        let v = self.value(grid);
                        grid[c] = 0;
                        best = Some(match best {
                            None => v,
                            Some(b) if mark == 1 => b.max(v),
                            Some(b) => b.min(v),
                        });
                    }
                }
                best.unwrap_or(0)
            }
        };
        self.memo.insert(grid.clone(), v);
        v
    }
}

/// The grid of a position, from its text (rows of x, o, . separated by /).
fn grid(text: &str) -> Vec<u8> {
    text.chars()
        .filter(|&c| c != '/')
        .map(|c| match c {
            'x' => 1,
            'o' => 2,
            _ => 0,
        })
        .collect()
}

fn game(rows: usize, cols: usize) -> Hex {
    Hex::new(HexBoard::checked(rows, cols).unwrap()).unwrap()
}

#[test]
fn every_position_matches_the_brute_force_up_to_twelve_cells() {
    for (rows, cols) in [
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
        (1, 5),
        (5, 1),
        (2, 3),
        (3, 2),
        (3, 3),
        (2, 5),
        (3, 4),
        (4, 3),
    ] {
        let g = game(rows, cols);
        let values = all_values(&g, Driver::Parallel);
        let mut brute = Brute::new(rows, cols);
        let mut checked = 0u64;
        walk(&g, |k, r, pos| {
            let text = g.format_position(pos);
            let want = brute.value(&mut grid(&text));
            assert_eq!(values[k][r as usize], want, "{rows}x{cols} {text}");
            checked += 1;
        });
        assert_eq!(checked, g.total_positions());
    }
}

#[test]
fn hex_passes_retros_conformance_checks() {
    for (rows, cols) in [(1, 1), (1, 3), (3, 1), (2, 2), (2, 3), (3, 3), (3, 4)] {
        check_game(&game(rows, cols));
    }
}

/// Strategy stealing: the first player wins every n x n board.
#[test]
fn the_first_player_wins_every_square_board_up_to_4x4() {
    for n in 1..=4 {
        let g = game(n, n);
        let root = retro::build::solve(&g, Driver::Parallel, &retro::Silent).unwrap();
        assert!(root > 0, "{n}x{n}: root {root}");
        let outcome = g.outcome(root, 0).unwrap();
        assert_eq!(outcome.result, retro::game::Verdict::Win, "{n}x{n}");
    }
}

/// The winning first moves, by the brute force, are the table's and are symmetric under
/// the half turn (which maps the board, and each side's edges, onto themselves).
#[test]
fn winning_first_moves_match_the_brute_force_and_the_half_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, cols) = (3, 3);
    let g = game(rows, cols);
    let path = dir.path().join("hex.retro");
    retro::build::build(
        &g,
        &path,
        &Default::default(),
        Driver::Parallel,
        &retro::Silent,
    )
    .unwrap();
    let table = Table::open_in::<Hex>(&path).unwrap();
    let answer = retro::answers::probe::answer_text(&g, &table, "empty").unwrap();
    let mut brute = Brute::new(rows, cols);
    let mut winning = Vec::new();
    for (mv, value) in &answer.moves {
        let mut grid = vec![0u8; rows * cols];
        grid[mv.row * cols + mv.col] = 1;
        assert_eq!(*value, brute.value(&mut grid), "({}, {})", mv.row, mv.col);
        if *value > 0 {
            winning.push((mv.row, mv.col));
        }
    }
    assert!(!winning.is_empty());
    for &(r, c) in &winning {
        assert!(
            winning.contains(&(rows - 1 - r, cols - 1 - c)),
            "({r}, {c})"
        );
    }
}

/// A board of the wrong form is one line that shows the right one.
#[test]
fn bad_boards_and_positions_say_the_expected_form() {
    use retro::Board;
    let err = HexBoard::parse("3").unwrap_err().to_string();
    assert!(err.contains("expected `RxC`"), "{err}");
    let err = HexBoard::parse("9x9").unwrap_err().to_string();
    assert!(err.contains("1 to 62 cells"), "{err}");
    let g = game(2, 2);
    let err = g.parse_position("xo/o").unwrap_err().to_string();
    assert!(err.contains("positions look like"), "{err}");
    // x joined top and bottom, but o moved last: play never gets there.
    let pos = g.parse_position("xo/xo").unwrap();
    let err = g.check_reachable(&pos).unwrap_err().to_string();
    assert!(err.contains("cannot arise"), "{err}");
}
