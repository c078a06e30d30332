//! Teeko and its family against a brute force written here from the rules alone: every
//! position as a plain grid and a side to move, an explicit graph of moves, and a plain
//! fixpoint over it (no ranking, no code of the library), compared value by value with the
//! retrograde solver, remoteness included; and the positions a search from the empty board
//! reaches, compared with the ones `check_reachable` accepts.

use crate::common;

use std::collections::{HashMap, HashSet};

use common::{fails, ok, retro};

use retro::game::{Game, Gameplay, Wdl};
use retro::game::{Teeko, TeekoBoard, TeekoPosition};

/// Every layer's values, solved in memory by the library.
fn all_values<G: Game>(game: &G) -> retro::Result<Vec<Vec<i16>>> {
    retro::solve::all_values::<G, i16>(game, retro::Driver::Parallel)
}

/// A position: cells 0 (empty), 1 (x), 2 (o), and the side to move (1 x, 2 o).
type Grid = (Vec<u8>, u8);

struct Rules {
    rows: usize,
    cols: usize,
    stones: usize,
    patterns: Vec<Vec<usize>>,
    no_centre_first: bool,
}

impl Rules {
    fn new(board: &TeekoBoard) -> Rules {
        let (rows, cols, s) = (
            board.rows as isize,
            board.cols as isize,
            board.stones as isize,
        );
        let mut patterns = Vec::new();
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
            for r in 0..rows {
                for c in 0..cols {
                    let cells: Vec<(isize, isize)> =
                        (0..s).map(|i| (r + dr * i, c + dc * i)).collect();
                    if cells
                        .iter()
                        .all(|&(a, b)| a >= 0 && a < rows && b >= 0 && b < cols)
                    {
                        patterns.push(
                            cells
                                .iter()
                                .map(|&(a, b)| (a * cols + b) as usize)
                                .collect(),
                        );
                    }
                }
            }
        }
        if s == 4 {
            let largest = if board.advanced { rows.min(cols) } else { 2 };
            for size in 2..=largest {
                for r in 0..=rows - size {
                    for c in 0..=cols - size {
                        let f = size - 1;
                        let mut p: Vec<usize> = [(r, c), (r, c + f), (r + f, c), (r + f, c + f)]
                            .iter()
                            .map(|&(a, b)| (a * cols + b) as usize)
                            .collect();
                        p.sort();
                        patterns.push(p);
                    }
                }
            }
        }
        Rules {
            rows: board.rows,
            cols: board.cols,
            stones: board.stones,
            patterns,
            no_centre_first: board.no_centre_first,
        }
    }

    fn won(&self, grid: &[u8], mark: u8) -> bool {
        self.patterns
            .iter()
            .any(|p| p.iter().all(|&c| grid[c] == mark))
    }

    fn children(&self, (grid, side): &Grid) -> Vec<Grid> {
        if self.won(grid, 1) || self.won(grid, 2) {
            return Vec::new();
        }
        let mine = grid.iter().filter(|&&m| m == *side).count();
        let other = 3 - side;
        let mut out = Vec::new();
        if mine < self.stones {
            let stones = grid.iter().filter(|&&m| m != 0).count();
            for c in 0..grid.len() {
                let centre = self.rows % 2 == 1
                    && self.cols % 2 == 1
                    && c == (self.rows / 2) * self.cols + self.cols / 2;
                if grid[c] == 0 && !(self.no_centre_first && stones == 0 && centre) {
                    let mut g = grid.clone();
                    g[c] = *side;
                    out.push((g, other));
                }
            }
            return out;
        }
        for from in 0..grid.len() {
            if grid[from] != *side {
                continue;
            }
            let (r, c) = ((from / self.cols) as isize, (from % self.cols) as isize);
            for dr in -1..=1 {
                for dc in -1..=1 {
                    let (nr, nc) = (r + dr, c + dc);
                    if (dr, dc) == (0, 0)
                        || nr < 0
                        || nc < 0
                        || nr >= self.rows as isize
                        || nc >= self.cols as isize
                    {
                        continue;
                    }
                    let to = (nr * self.cols as isize + nc) as usize;
                    if grid[to] == 0 {
                        let mut g = grid.clone();
                        g[from] = 0;
                        g[to] = *side;
                        out.push((g, other));
                    }
                }
            }
        }
        out
    }

    /// Every position with legal stone counts: x has as many stones as o or one more while
    /// stones are in hand (the count says who moves), both have all once they are down.
    fn positions(&self) -> Vec<Grid> {
        let n = self.rows * self.cols;
        let mut out = Vec::new();
        let mut grid = vec![0u8; n];
        fn fill(i: usize, grid: &mut Vec<u8>, out: &mut Vec<Vec<u8>>, s: usize) {
            if i == grid.len() {
                let x = grid.iter().filter(|&&m| m == 1).count();
                let o = grid.iter().filter(|&&m| m == 2).count();
                if x <= s && o <= s && (x == o || x == o + 1) {
                    out.push(grid.clone());
                }
                return;
            }
            for m in 0..3 {
                grid[i] = m;
                fill(i + 1, grid, out, s);
            }
            grid[i] = 0;
        }
        let mut grids = Vec::new();
        fill(0, &mut grid, &mut grids, self.stones);
        for g in grids {
            let x = g.iter().filter(|&&m| m == 1).count();
            let o = g.iter().filter(|&&m| m == 2).count();
            if x == self.stones && o == self.stones {
                out.push((g.clone(), 1));
                out.push((g, 2));
            } else {
                out.push((g, if x == o { 1 } else { 2 }));
            }
        }
        out
    }

    /// Every position's value by a plain fixpoint over the explicit graph: at level d, a
    /// position wins in d (d odd) if a child loses in d - 1, loses in d (d even) if every
    /// child wins in at most d - 1; what is never decided draws.
    fn solve(&self) -> HashMap<Grid, Wdl> {
        let positions = self.positions();
        let index: HashMap<&Grid, usize> =
            positions.iter().enumerate().map(|(i, p)| (p, i)).collect();
        let children: Vec<Vec<usize>> = positions
            .iter()
            .map(|p| self.children(p).iter().map(|c| index[c]).collect())
            .collect();
        let mut value: Vec<Option<Wdl>> = vec![None; positions.len()];
        let (mut d, mut quiet) = (0u32, 0);
        // Two quiet levels in a row end it: a win needs a loss one level down and a loss a
        // win one level down, so nothing can follow them.
        while quiet < 2 {
            let before = value.clone();
            let mut changed = false;
            for i in 0..positions.len() {
                if before[i].is_some() {
                    continue;
                }
                let kids = &children[i];
                let decided = if d % 2 == 1 {
                    kids.iter().any(|&c| before[c] == Some(Wdl::Loss(d - 1)))
                } else {
                    kids.iter()
                        .all(|&c| matches!(before[c], Some(Wdl::Win(r)) if r < d))
                        && (kids.is_empty()
                            || kids
                                .iter()
                                .any(|&c| d > 0 && before[c] == Some(Wdl::Win(d - 1))))
                };
                if decided {
                    value[i] = Some(if d % 2 == 1 {
                        Wdl::Win(d)
                    } else {
                        Wdl::Loss(d)
                    });
                    changed = true;
                }
            }
            quiet = if changed { 0 } else { quiet + 1 };
            d += 1;
        }
        positions
            .into_iter()
            .zip(value)
            .map(|(p, v)| (p, v.unwrap_or(Wdl::Draw)))
            .collect()
    }
}

fn check(board: TeekoBoard) -> (usize, Wdl) {
    let rules = Rules::new(&board);
    let brute = rules.solve();
    let game = Teeko::unfolded(board.clone()).unwrap();
    let layers = all_values(&game).unwrap();
    let cells = board.rows * board.cols;
    let mut checked = 0;
    for (k, values) in layers.iter().enumerate() {
        assert_eq!(values.len() as u64, game.layer_size(k));
        for (r, &v) in values.iter().enumerate() {
            let pos = game.unrank(k, r as u64);
            assert_eq!(game.rank(&pos), r as u64, "layer {k}");
            let key = grid_of(&pos, cells);
            let want = brute
                .get(&key)
                .unwrap_or_else(|| panic!("layer {k} rank {r}: {key:?} is no position"));
            assert_eq!(
                Wdl::decode(v as i64),
                *want,
                "{board:?} layer {k} rank {r}: {key:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, brute.len(), "every position, once");
    (checked, Wdl::decode(layers[0][0] as i64))
}

fn board(rows: usize, cols: usize, stones: usize) -> TeekoBoard {
    TeekoBoard {
        rows,
        cols,
        stones,
        advanced: false,
        no_centre_first: false,
    }
}

#[test]
fn small_teekos_match_the_brute_force_on_every_position() {
    for b in [
        board(2, 2, 1),
        board(2, 3, 2),
        board(3, 3, 2),
        board(3, 3, 3),
    ] {
        let (positions, root) = check(b.clone());
        eprintln!("{b:?}: {positions} positions, root {root:?}");
    }
}

#[test]
fn teeko_4x4_with_3_stones_matches_the_brute_force() {
    let (positions, root) = check(board(4, 4, 3));
    eprintln!("4x4, 3 stones: {positions} positions, root {root:?}");
}

#[test]
fn variants_match_the_brute_force() {
    let mut b = board(3, 3, 2);
    b.no_centre_first = true;
    check(b);
    let mut b = board(3, 4, 2);
    b.advanced = true;
    check(b);
}

#[test]
fn standard_teeko_layers_have_the_published_sizes() {
    let game = Teeko::unfolded(TeekoBoard::standard()).unwrap();
    let sizes: Vec<u64> = (0..=8).map(|k| game.layer_size(k)).collect();
    assert_eq!(
        sizes,
        [
            1,
            25,
            600,
            6_900,
            75_900,
            531_300,
            3_542_000,
            16_824_500,
            151_420_500
        ]
    );
    assert_eq!(game.patterns().len(), 44);
    let mut advanced = TeekoBoard::standard();
    advanced.advanced = true;
    assert_eq!(Teeko::unfolded(advanced).unwrap().patterns().len(), 58);
}

/// Every position play reaches from the empty board, by a search over the moves of the
/// rules above (a won position has none).
fn reached(rules: &Rules) -> HashSet<Grid> {
    let start: Grid = (vec![0; rules.rows * rules.cols], 1);
    let mut seen = HashSet::from([start.clone()]);
    let mut todo = vec![start];
    while let Some(p) = todo.pop() {
        for c in rules.children(&p) {
            if seen.insert(c.clone()) {
                todo.push(c);
            }
        }
    }
    seen
}

/// A position of the library as the brute force's grid.
fn grid_of(pos: &TeekoPosition, cells: usize) -> Grid {
    let marks = (0..cells)
        .map(|c| {
            if pos.x >> c & 1 == 1 {
                1
            } else if pos.o >> c & 1 == 1 {
                2
            } else {
                0
            }
        })
        .collect();
    (marks, pos.side + 1)
}

/// `check_reachable` (and so export's `reachable` column) accepts exactly the positions a
/// search from the empty board reaches, on every board of up to 12 cells with every
/// stone count: with and without the first-drop rule where the board has a centre, and
/// advanced where S = 4 and larger squares fit. It catches the first-drop rule's layer of
/// two stones (x alone on the centre, beside an o) and positions with all stones down
/// where x cannot have just slid.
#[test]
fn check_reachable_accepts_exactly_what_play_reaches() {
    let mut boards = 0;
    for rows in 1..=12 {
        for cols in (1..=12).filter(|c| rows * c <= 12) {
            let centre = rows % 2 == 1 && cols % 2 == 1;
            for stones in (1..).take_while(|s| 2 * s < rows * cols) {
                for advanced in [false, true] {
                    for no_centre_first in [false, true] {
                        // Larger squares fit only where both sides have 3 cells or more.
                        let squares = rows.min(cols) >= 3;
                        if (advanced && (stones != 4 || !squares)) || (no_centre_first && !centre) {
                            continue;
                        }
                        // No pattern fits (no line of S, no square of four): refused.
                        if stones > rows.max(cols) && !(stones == 4 && rows.min(cols) >= 2) {
                            continue;
                        }
                        let b = TeekoBoard {
                            rows,
                            cols,
                            stones,
                            advanced,
                            no_centre_first,
                        };
                        let seen = reached(&Rules::new(&b));
                        let game = Teeko::unfolded(b.clone()).unwrap();
                        let mut accepted = 0;
                        for k in 0..=2 * stones {
                            for r in 0..game.layer_size(k) {
                                let pos = game.unrank(k, r);
                                let grid = grid_of(&pos, rows * cols);
                                let verdict = game.check_reachable(&pos);
                                assert_eq!(
                                    verdict.is_ok(),
                                    seen.contains(&grid),
                                    "{b:?}: {} ({verdict:?})",
                                    game.format_position(&pos)
                                );
                                accepted += usize::from(verdict.is_ok());
                            }
                        }
                        assert_eq!(accepted, seen.len(), "{b:?}");
                        boards += 1;
                    }
                }
            }
        }
    }
    // 141 boards, less the two no pattern fits (3 x 4 and 4 x 3 with 5 stones each).
    assert_eq!(boards, 139);
}

/// Under the first-drop rule x's lone stone on the centre, with or without an o beside
/// it, is refused by `query` and marked unreachable by `export`; a board without a centre
/// cell refuses the rule in one line.
#[test]
fn the_first_drop_rule_in_the_commands() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    let table = table.to_str().unwrap();
    ok(&retro(
        &["build", "teeko", "--no-fold", "-o", table],
        "3x3 no-centre-first\n",
    ));
    for position in [".../.x./...", ".../.x./..o"] {
        fails(&retro(&["query", table, position], ""), 2, "x's first drop");
    }
    ok(&retro(&["query", table, "..x/.x./..o"], ""));
    let csv = dir.path().join("t.csv");
    ok(&retro(&["export", table, "-o", csv.to_str().unwrap()], ""));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|&c| c == "reachable").unwrap();
    let reachable = |position: &str| {
        let line = csv
            .lines()
            .find(|l| l.starts_with(&format!("{position},")))
            .unwrap_or_else(|| panic!("{position} is not exported"));
        // No field before `reachable` holds a comma but the quoted best move.
        let fields: Vec<&str> = line.split(',').collect();
        fields[column + fields.len() - header.len()] == "true"
    };
    assert!(!reachable(".../.x./..."));
    assert!(!reachable(".../.x./..o"));
    assert!(reachable("..x/.x./..o"));
    for board in [
        "4x4s3 no-centre-first",
        "3x4 no-centre-first",
        "4x5 no-centre-first",
    ] {
        fails(
            &retro(&["build", "teeko", "-o", table], &format!("{board}\n")),
            2,
            "needs a board with a centre cell (odd rows and odd columns)",
        );
    }
}

/// A side to move that cannot slide (every stone hemmed in) has lost, as docs/games.md
/// says: on 3 x 3 with 4 stones each, x to move at `xxx/xoo/oo.:x` has no move and is lost
/// in 0, and o wins in 1 by the slide that leaves x so.
#[test]
fn a_side_that_cannot_slide_has_lost() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    let table = table.to_str().unwrap();
    ok(&retro(
        &["build", "teeko", "-q", "-o", table],
        "3x3s4
",
    ));
    let json = |position: &str| -> serde_json::Value {
        serde_json::from_str(&ok(&retro(&["query", table, position, "--json"], ""))).unwrap()
    };
    let stuck = json("xxx/xoo/oo.:x");
    assert_eq!(stuck["moves"], serde_json::json!([]), "{stuck}");
    assert_eq!(
        (stuck["result"].as_str(), stuck["remoteness"].as_u64()),
        (Some("loss"), Some(0))
    );
    let before = json("xxx/xo./ooo:o");
    assert_eq!(
        (before["result"].as_str(), before["remoteness"].as_u64()),
        (Some("win"), Some(1))
    );
    assert_eq!(before["best"], serde_json::json!(["3,3-2,3"]), "{before}");
}

/// Boards whose lists of stone layouts would be too large to keep (36 cells with 6 or more
/// stones) unrank their layouts from binomials instead: every sampled rank of every layer
/// reads back to itself, and the first positions of a layer step on as the lookup does.
/// (Past 6 stones a line fits only a longer board: 2 x 18.)
#[test]
fn boards_past_the_layout_lists_rank_and_unrank() {
    for (rows, cols, stones) in [(6, 6, 5), (6, 6, 6), (2, 18, 9), (2, 18, 17)] {
        let game = Teeko::unfolded(board(rows, cols, stones)).unwrap();
        for k in 0..=2 * stones {
            let n = game.layer_size(k);
            let samples = (0..64u64)
                .map(|i| i * (n - 1) / 63)
                .chain(n.saturating_sub(3)..n);
            for r in samples {
                let pos = game.unrank(k, r);
                assert_eq!(game.rank(&pos), r, "{rows}x{cols}s{stones} layer {k}");
                assert_eq!((pos.x | pos.o).count_ones() as usize, k);
                assert_eq!(pos.x & pos.o, 0);
                if r + 1 < n {
                    let mut next = pos;
                    game.advance(&mut next);
                    assert_eq!(next, game.unrank(k, r + 1));
                }
            }
        }
    }
}
