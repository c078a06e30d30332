//! connect (Connect Four with gravity): every position of every board up to 4 x 4, every K,
//! against a brute-force minimax with remoteness written here; the checks every game must
//! pass (`retro::testing`); known results; refusals; the command line.

use std::collections::{HashMap, HashSet};

use crate::common;
use common::{ok, retro};

use retro::game::{Board, Connect, ConnectBoard, Game, Gameplay, Verdict};
use retro::testing::{all_values, check_game, walk};
use retro::{Driver, Silent};

// ---------------------------------------------------------------------------------------
// The brute force: boards as mark vectors (0 empty, 1 x, 2 o), row-major with row 0 at
// the top as the notation writes them; a move picks a column and the stone lands on its
// lowest empty cell; lines found by walking the grid; values by plain memoised recursion
// over win/loss/tie and remoteness. Nothing is shared with the library but the rules.

struct Brute {
    width: usize,
    height: usize,
    k: usize,
    /// Per board (base-3 code), the solved (verdict for the side to move, remoteness).
    memo: HashMap<u64, (Verdict, usize)>,
}

impl Brute {
    fn new(width: usize, height: usize, k: usize) -> Self {
        Brute {
            width,
            height,
            k,
            memo: HashMap::new(),
        }
    }

    fn cells(&self) -> usize {
        self.width * self.height
    }

    fn code(board: &[u8]) -> u64 {
        board.iter().rev().fold(0, |c, &m| c * 3 + m as u64)
    }

    fn stones(board: &[u8]) -> usize {
        board.iter().filter(|&&m| m != 0).count()
    }

    /// Whether `mark` has K in a row anywhere (longer runs included).
    fn has_line(&self, board: &[u8], mark: u8) -> bool {
        let (r, c, k) = (self.height as i64, self.width as i64, self.k as i64);
        for i in 0..r {
            for j in 0..c {
                for (di, dj) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let run = (0..k).all(|t| {
                        let (a, b) = (i + di * t, j + dj * t);
                        (0..r).contains(&a)
                            && (0..c).contains(&b)
                            && board[(a * c + b) as usize] == mark
                    });
                    if run {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The cell a stone dropped into `col` lands on: the lowest empty one; None if the
    /// column is full.
    fn landing(&self, board: &[u8], col: usize) -> Option<usize> {
        (0..self.height)
            .rev()
            .map(|i| i * self.width + col)
            .find(|&cell| board[cell] == 0)
    }

    /// The topmost stone of `col` (its last one dropped), if any.
    fn top(&self, board: &[u8], col: usize) -> Option<usize> {
        (0..self.height)
            .map(|i| i * self.width + col)
            .find(|&cell| board[cell] != 0)
    }

    /// Whether no stone floats above an empty cell.
    fn settled(&self, board: &[u8]) -> bool {
        (0..self.width).all(|j| {
            (1..self.height)
                .all(|i| board[(i - 1) * self.width + j] == 0 || board[i * self.width + j] != 0)
        })
    }

    /// The game from any settled board, for the side to move: win/loss/tie and the plies
    /// until it ends, the winner taking the fastest win and the loser the slowest loss. A
    /// line of the player who moved last ends the game (the side to move has lost).
    fn solve(&mut self, board: &mut [u8]) -> (Verdict, usize) {
        let code = Self::code(board);
        if let Some(&r) = self.memo.get(&code) {
            return r;
        }
        let stones = Self::stones(board);
        let (mover, last) = if stones.is_multiple_of(2) {
            (1, 2)
        } else {
            (2, 1)
        };
        let result = if self.has_line(board, last) {
            (Verdict::Loss, 0)
        } else if stones == self.cells() {
            (Verdict::Tie, 0)
        } else {
            let mut children = Vec::new();
            for col in 0..self.width {
                let Some(cell) = self.landing(board, col) else {
                    continue;
                };
                board[cell] = mover;
                children.push(self.solve(board));
                board[cell] = 0;
            }
            common::brute::best_of_children(children)
                .expect("a board that is not full has a column with room")
        };
        self.memo.insert(code, result);
        result
    }

    /// The documented value of any settled board with legal counts: from the solve for
    /// boards without a line (seen from x: cells + 1 - p for an x win at ply p, minus that
    /// for o, 0 a tie); a board with a line is over, its value the line holder's at this
    /// stone count (0 if both have one).
    fn value(&mut self, board: &mut [u8]) -> i64 {
        let stones = Self::stones(board);
        let win = (self.cells() + 1 - stones) as i64;
        match (self.has_line(board, 1), self.has_line(board, 2)) {
            (true, true) => return 0,
            (true, false) => return win,
            (false, true) => return -win,
            (false, false) => {}
        }
        let (verdict, r) = self.solve(board);
        let x_to_move = stones.is_multiple_of(2);
        let at_end = (self.cells() + 1 - (stones + r)) as i64;
        match verdict {
            Verdict::Tie => 0,
            Verdict::Win if x_to_move => at_end,
            Verdict::Loss if !x_to_move => at_end,
            _ => -at_end,
        }
    }

    /// Every board play reaches from the empty one (play stops at a line), as codes.
    fn reachable(&self) -> HashSet<u64> {
        let mut seen = HashSet::new();
        let mut stack = vec![vec![0u8; self.cells()]];
        while let Some(mut board) = stack.pop() {
            if !seen.insert(Self::code(&board)) {
                continue;
            }
            if self.has_line(&board, 1) || self.has_line(&board, 2) {
                continue;
            }
            let mover = if Self::stones(&board).is_multiple_of(2) {
                1
            } else {
                2
            };
            for col in 0..self.width {
                if let Some(cell) = self.landing(&board, col) {
                    board[cell] = mover;
                    stack.push(board.clone());
                    board[cell] = 0;
                }
            }
        }
        seen
    }

    /// Every settled board with legal counts (as many x as o, or one more), as codes: the
    /// column heights, then every colouring of their stones.
    fn all_boards(&self) -> HashSet<u64> {
        let (w, h) = (self.width, self.height);
        let mut out = HashSet::new();
        for v in 0..(h + 1).pow(w as u32) {
            let heights: Vec<usize> = (0..w)
                .map(|c| v / (h + 1).pow(c as u32) % (h + 1))
                .collect();
            let cells: Vec<usize> = (0..w)
                .flat_map(|c| (0..heights[c]).map(move |t| (h - 1 - t) * w + c))
                .collect();
            for colours in 0u64..1 << cells.len() {
                let xs = colours.count_ones() as usize;
                if xs != cells.len().div_ceil(2) {
                    continue;
                }
                let mut board = vec![0u8; w * h];
                for (i, &cell) in cells.iter().enumerate() {
                    board[cell] = if colours >> i & 1 == 1 { 1 } else { 2 };
                }
                out.insert(Self::code(&board));
            }
        }
        out
    }

    /// Why the lines of a board say it cannot arise, as the library words it, None if
    /// they do not: both players have one; the player who did not move last has one; or
    /// no top stone of the player who did has all of their lines through it (taking it
    /// back leaves a line, so play would have stopped before).
    fn line_refusal(&self, board: &[u8]) -> Option<&'static str> {
        let x_last = Self::stones(board) % 2 == 1;
        match (self.has_line(board, 1), self.has_line(board, 2)) {
            (false, false) => None,
            (true, true) => Some("both x and o have a line"),
            (true, false) if !x_last => Some("x has a line but o moved last"),
            (false, true) if x_last => Some("o has a line but x moved last"),
            (x_line, _) => {
                let mark = if x_line { 1 } else { 2 };
                let mut board = board.to_vec();
                let undone = (0..self.width).any(|col| match self.top(&board, col) {
                    Some(cell) if board[cell] == mark => {
                        board[cell] = 0;
                        let clear = !self.has_line(&board, mark);
                        board[cell] = mark;
                        clear
                    }
                    _ => false,
                });
                match (undone, x_line) {
                    (true, _) => None,
                    (false, true) => Some("x has lines that no single move completed"),
                    (false, false) => Some("o has lines that no single move completed"),
                }
            }
        }
    }
}

/// The marks of a position, read from its notation (rows of x, o, . separated by /).
fn marks_of(text: &str) -> Vec<u8> {
    text.chars()
        .filter(|&ch| ch != '/')
        .map(|ch| match ch {
            '.' => 0,
            'x' => 1,
            'o' => 2,
            other => panic!("unexpected cell {other:?} in {text}"),
        })
        .collect()
}

/// The game with every position its own entry: the brute force checks each rank.
fn connect(width: usize, height: usize, k: usize) -> Connect {
    Connect::unfolded(ConnectBoard::checked(width, height, k).expect("a valid board"))
        .expect("ranks")
}

/// The game as `build` makes it: folded by the mirror (`tests/all/symmetry.rs` checks every
/// position of it against the unfolded game).
fn folded(width: usize, height: usize, k: usize) -> Connect {
    Connect::new(ConnectBoard::checked(width, height, k).expect("a valid board")).expect("ranks")
}

/// Every board with 1 <= W, H <= 4 and every K from 1 to max(W, H).
fn small_boards() -> Vec<(usize, usize, usize)> {
    let mut boards = Vec::new();
    for width in 1..=4 {
        for height in 1..=4 {
            for k in 1..=width.max(height) {
                boards.push((width, height, k));
            }
        }
    }
    boards
}

#[test]
fn every_position_of_small_boards_matches_the_brute_force() {
    let mut checked = 0u64;
    for (w, h, k) in small_boards() {
        let game = connect(w, h, k);
        let values = all_values(&game, Driver::Parallel);
        let mut brute = Brute::new(w, h, k);
        let reachable = brute.reachable();
        let mut seen = HashSet::new();
        walk(&game, |layer, r, pos| {
            let text = game.format_position(pos);
            let mut board = marks_of(&text);
            let what = format!("{w}x{h}k{k} {text}");
            assert_eq!(board.len(), w * h, "{what}");
            assert!(brute.settled(&board), "{what}: a stone floats");
            assert_eq!(Brute::stones(&board), layer, "{what}");
            assert!(seen.insert(Brute::code(&board)), "{what} ranked twice");
            // The value: the solve's, or the defined value of a board with a line.
            let value = values[layer][r as usize];
            assert_eq!(value, brute.value(&mut board), "{what}");
            // Outcome and remoteness, wherever play from here is defined (no line, or
            // a line of the player who moved last: the game is over).
            let over_by_line = brute.has_line(&board, 1) || brute.has_line(&board, 2);
            if !over_by_line || reachable.contains(&Brute::code(&board)) {
                let (verdict, remoteness) = brute.solve(&mut board);
                let outcome = game.outcome(value, layer).expect("connect has outcomes");
                assert_eq!(
                    (outcome.result, outcome.remoteness),
                    (verdict, remoteness),
                    "{what}"
                );
            }
            // The moves: one per column with room, landing on its lowest empty cell, in
            // column order; none once a line is on the board.
            let expected: Vec<(usize, usize, u64)> = if over_by_line {
                Vec::new()
            } else {
                (0..w)
                    .filter_map(|col| {
                        let cell = brute.landing(&board, col)?;
                        let mut child = board.clone();
                        child[cell] = if layer.is_multiple_of(2) { 1 } else { 2 };
                        Some((cell / w, col, Brute::code(&child)))
                    })
                    .collect()
            };
            let moves: Vec<(usize, usize, u64)> = game
                .moves(pos)
                .iter()
                .map(|m| {
                    let child = marks_of(&game.format_position(&m.child));
                    assert_eq!(m.reward, 0, "{what}");
                    (m.row, m.col, Brute::code(&child))
                })
                .collect();
            assert_eq!(moves, expected, "{what}");
            // Reachability: exactly the boards play reaches are accepted; a refusal says
            // what the lines say, or else that no order of drops builds the board.
            let arises = reachable.contains(&Brute::code(&board));
            match game.check_reachable(pos) {
                Ok(()) => assert!(arises, "{what} accepted, but play never reaches it"),
                Err(e) => {
                    assert!(!arises, "{what} refused, but play reaches it: {e}");
                    let why = brute.line_refusal(&board).unwrap_or(
                        "no order of drops (x first, turns alternating) stacks these columns",
                    );
                    let msg = e.to_string();
                    assert!(
                        msg.contains(&format!("this position cannot arise: {why}")),
                        "{what}: {msg}"
                    );
                }
            }
            checked += 1;
        });
        // The ranking counts every settled board with legal counts, each once.
        assert_eq!(seen, brute.all_boards(), "{w}x{h}k{k}");
    }
    // Every rank of every board, so the count is the layers' total.
    let total: u64 = small_boards()
        .iter()
        .map(|&(w, h, k)| connect(w, h, k).total_positions())
        .sum();
    assert_eq!(checked, total);
}

#[test]
fn refusals_say_why_the_position_cannot_arise() {
    let why = |game: &Connect, text: &str| {
        let pos = game
            .parse_position(text)
            .expect("a settled board with legal counts");
        game.check_reachable(&pos).err().map(|e| e.to_string())
    };
    let said = |game: &Connect, text: &str, reason: &str| {
        let msg = why(game, text).unwrap_or_else(|| panic!("{text} accepted"));
        assert!(
            msg.contains(&format!("this position cannot arise: {reason}")),
            "{text}: {msg}"
        );
    };
    let four = connect(4, 4, 4);
    assert_eq!(why(&four, "empty"), None);
    assert_eq!(why(&four, "..../o.../oo../xxx."), None);
    // x has just completed the bottom row with its fourth stone.
    assert_eq!(why(&four, "..../..../ooo./xxxx"), None);
    said(&four, "..../..../oooo/xxxx", "both x and o have a line");
    said(
        &four,
        "..../o.../ooo./xxxx",
        "x has a line but o moved last",
    );
    said(
        &four,
        "..../xx../xxx./oooo",
        "o has a line but x moved last",
    );
    let three = connect(4, 4, 3);
    assert_eq!(why(&three, "..../..../oo../xxx."), None);
    // x's only line is the bottom row, and no top stone of x lies on it: the x above it
    // in column 3 came after the line, so play would have stopped before.
    said(
        &three,
        "..../..../oox./xxxo",
        "x has lines that no single move completed",
    );
    // Two lines of x (the bottom row, the right column) that no single drop made both.
    said(
        &three,
        "...x/oo.x/oo.x/xxxo",
        "x has lines that no single move completed",
    );
    // o's bottom row, under x's stones but for column 3, whose top o is not on it.
    said(
        &three,
        "..../x.../xxo./ooox",
        "o has lines that no single move completed",
    );
    // No line, but no order of play stacks the columns so: x moved first, yet o holds
    // every bottom cell (4 x 4), or o is under x in the only column (1 x 2); o, o, x from
    // the bottom of column 3 would need o to move twice in a row.
    let gravity = "no order of drops (x first, turns alternating) stacks these columns \
                   without a line ending the game sooner";
    said(&four, "x.../x.../xx../ooo.", gravity);
    said(&connect(1, 2, 2), "x/o", gravity);
    said(&four, "..../..x./..o./.xo.", gravity);
    assert_eq!(why(&connect(1, 2, 2), "o/x"), None);
    // x's two in a row end at its top stone, as the lines want, but o's stone under them
    // would have been the first.
    said(&connect(1, 3, 2), "x/x/o", gravity);
    // Lines meeting at a top stone are fine: the last drop (column 3) made both.
    assert_eq!(why(&three, "..../xo../ox.o/xxxo"), None);
}

#[test]
fn floating_stones_are_refused_naming_the_column() {
    let game = connect(4, 4, 4);
    for (text, col) in [
        ("..../x.../..../o...", 1),
        ("..../..../.x../o...", 2),
        ("..../..../..x./...o", 3),
        ("...x/..../..../o...", 4),
    ] {
        let err = game.parse_position(text).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "column {col} has a stone above an empty cell (stones fall to the lowest empty cell)"
            )),
            "{text}: {err}"
        );
        assert!(err.contains("rows from the top"), "{text}: {err}");
    }
    // Wrong counts and shapes are refused too, settled or not.
    for bad in [
        "..../..../..../xx..",
        "..../..../..../o...",
        "..../..../xxxx",
        "..../..../..../xo.?",
    ] {
        assert!(game.parse_position(bad).is_err(), "{bad}");
    }
    assert_eq!(game.layer_of(&game.parse_position("empty").unwrap()), 0);
}

#[test]
fn known_results() {
    let root = |w, h, k| {
        let unfolded =
            retro::solve::solve::<_, i8>(&connect(w, h, k), Driver::Parallel, &Silent).unwrap();
        let folded =
            retro::solve::solve::<_, i8>(&folded(w, h, k), Driver::Parallel, &Silent).unwrap();
        assert_eq!(folded, unfolded, "{w}x{h}k{k}");
        folded
    };
    // Connect Four on small boards (John Tromp's table): 4 x 4, 5 x 4 and 4 x 5 are ties;
    // 6 x 4 (6 columns of 4) is a win for the second player, who completes a line with the
    // last stone of the board (ply 24, value -(25 - 24)).
    assert_eq!(root(4, 4, 4), 0);
    assert_eq!(root(5, 4, 4), 0);
    assert_eq!(root(4, 5, 4), 0);
    assert_eq!(root(6, 4, 4), -1);
    // Three in a row on 4 x 4: x wins with its fifth stone, ply 9 (value 17 - 9).
    assert_eq!(root(4, 4, 3), 8);
    // Counts of the dense index: a height vector times x's stones among its stones.
    assert_eq!(connect(4, 4, 4).total_positions(), 201_755);
    assert_eq!(connect(6, 4, 4).total_positions(), 159_643_961);
}

#[test]
fn board_limits() {
    // A bitboard column is H + 1 bits: W x (H + 1) must fit 64.
    assert!(ConnectBoard::checked(9, 7, 4).is_err());
    assert!(ConnectBoard::checked(1, 63, 4).is_ok());
    assert!(ConnectBoard::checked(1, 64, 4).is_err());
    assert!(ConnectBoard::checked(1, usize::MAX, 2).is_err());
    assert!(ConnectBoard::checked(usize::MAX, 1, 2).is_err());
    // At most 2^20 height vectors ((H + 1)^W): 7 x 6 has 823,543 and ranks, 20 x 1 has
    // exactly 2^20; 21 x 1 (2^21), 7 x 7 (2.1 million) and 8 x 7 (16.7 million, though its
    // bits fit) are refused as input.
    assert!(ConnectBoard::checked(20, 1, 2).is_ok());
    for (w, h) in [(8, 7), (7, 7), (21, 1), (22, 1)] {
        let err = ConnectBoard::checked(w, h, 4)
            .err()
            .unwrap_or_else(|| panic!("{w} x {h} is refused"));
        assert!(err.is_input(), "{err}");
        assert!(err.to_string().contains("column-height vectors"), "{err}");
    }
    let standard = connect(7, 6, 4);
    assert_eq!(standard.last_layer(), 42);
    assert!(standard.total_positions() > 7_000_000_000_000);
    // Its positions read, and play's order is searched on them too: a full board without
    // a line that play reaches, and one with x's only stone on o's.
    let full = standard
        .parse_position("xoxoxox/xoxoxox/oxoxoxo/oxoxoxo/xoxoxox/ooxoxox")
        .unwrap();
    assert_eq!(standard.layer_of(&full), 42);
    assert!(standard.check_reachable(&full).is_ok());
    let pos = standard
        .parse_position("......./......./......./......./x....../o......")
        .unwrap();
    assert!(standard.check_reachable(&pos).is_err());
    // K from 1 to max(W, H); the default is 4, or max(W, H) when that is less.
    assert!(ConnectBoard::checked(3, 2, 4).is_err());
    assert!(ConnectBoard::checked(4, 4, 0).is_err());
    for (text, (w, h, k)) in [
        ("7 6 4", (7, 6, 4)),
        ("7x6k4", (7, 6, 4)),
        ("7x6", (7, 6, 4)),
        ("6 7", (6, 7, 4)),
        ("3x2", (3, 2, 3)),
        ("1 2", (1, 2, 2)),
        ("5x1k2", (5, 1, 2)),
    ] {
        let spec = ConnectBoard::parse(text).unwrap();
        assert_eq!((spec.width, spec.height, spec.k), (w, h, k), "{text}");
        assert_eq!(spec.dims(), (h, w), "{text}: dims are rows, columns");
    }
}

// ---------------------------------------------------------------------------------------
// What every game must guarantee, written once, generic over the game.

#[test]
fn every_game_check_holds_for_connect() {
    for (w, h, k) in [
        (1, 1, 1),
        (1, 4, 2),
        (4, 1, 3),
        (2, 3, 2),
        (3, 3, 3),
        (4, 3, 3),
        (3, 4, 4),
        (4, 4, 4),
    ] {
        check_game(&connect(w, h, k));
        check_game(&folded(w, h, k));
    }
}

// ---------------------------------------------------------------------------------------
// The command line.

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(&ok(out)).expect("one JSON object")
}

#[test]
fn command_line_builds_queries_verifies_and_exports() {
    assert_eq!(ok(&retro(&["gen", "connect", "7x6"], "")), "7x6k4\n");
    assert_eq!(ok(&retro(&["gen", "connect", "3x2"], "")), "3x2k3\n");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("c44.txt");
    std::fs::write(&input, "4x4\n").unwrap();
    let table = dir.path().join("c44.retro");
    let table = table.to_str().unwrap();
    let built = ok(&retro(
        &[
            "build",
            "connect",
            input.to_str().unwrap(),
            "-q",
            "-o",
            table,
        ],
        "",
    ));
    assert!(built.contains("201755 positions"), "{built}");
    assert!(built.contains("root value tie with best play"), "{built}");

    let text = ok(&retro(&["query", table, "empty"], ""));
    assert!(
        text.contains("value     tie with best play (remoteness 16: the board fills)"),
        "{text}"
    );
    // x to move completes the bottom row in column 4 at ply 7: 17 - 7 = 10.
    let text = ok(&retro(&["query", table, "..../o.../oo../xxx."], ""));
    assert!(
        text.contains("value     x to move wins in 1 (remoteness 1)"),
        "{text}"
    );
    let text = ok(&retro(&["query", table, "..../..../ooo./xxxx"], ""));
    assert!(
        text.contains("value     x has won (a line at ply 7, x's 4th stone)"),
        "{text}"
    );
    assert!(
        text.contains("to move   nobody (the game is over)"),
        "{text}"
    );
    // o to move completes column 1 at ply 8.
    let text = ok(&retro(&["query", table, "..../o.../ox../oxxx"], ""));
    assert!(
        text.contains("value     o to move wins in 1 (remoteness 1)"),
        "{text}"
    );

    let j = json(&retro(
        &["query", table, "..../o.../oo../xxx.", "--json", "--pv"],
        "",
    ));
    assert_eq!(j["game"], "connect");
    assert_eq!(
        (j["code"].as_i64(), j["stones"].as_u64()),
        (Some(10), Some(6))
    );
    assert_eq!((&j["result"], &j["remoteness"]), (&"win".into(), &1.into()));
    assert_eq!(j["to_move"], "first");
    let moves = j["moves"].as_array().unwrap();
    // One move per column, each `cell` the landing cell (row from the top, column).
    let cells: Vec<&serde_json::Value> = moves.iter().map(|m| &m["cell"]).collect();
    assert_eq!(
        cells,
        [
            &serde_json::json!([1, 1]),
            &serde_json::json!([2, 2]),
            &serde_json::json!([3, 3]),
            &serde_json::json!([4, 4]),
        ]
    );
    assert_eq!(moves[3]["position"], "..../o.../oo../xxxx");
    assert_eq!(
        (&moves[3]["code"], &moves[3]["result"]),
        (&10.into(), &"win".into())
    );
    // Best moves are named by their columns, as `play` reads them.
    assert_eq!(j["best"], serde_json::json!(["4"]));
    let pv = j["pv"].as_array().unwrap();
    assert_eq!(pv.len(), 1);
    assert_eq!(pv[0]["position"], "..../o.../oo../xxxx");
    // A game won by a line has no running scores.
    assert_eq!(pv[0].get("first_score"), None, "{pv:?}");
    // The finished board says who won, not only that the side to move lost.
    let done = json(&retro(
        &["query", table, "..../o.../oo../xxxx", "--json"],
        "",
    ));
    assert_eq!(
        (&done["to_move"], &done["result"], &done["winner"]),
        (&"none".into(), &"loss".into(), &"x".into())
    );
    // A tie's principal variation fills the board.
    let j = json(&retro(&["query", table, "empty", "--json", "--pv"], ""));
    assert_eq!(
        (&j["result"], &j["remoteness"]),
        (&"tie".into(), &16.into())
    );
    let pv = j["pv"].as_array().unwrap();
    assert_eq!(pv.len(), 16);
    let last = pv[15]["position"].as_str().unwrap();
    assert!(!last.contains('.'), "{last}");

    // Refusals: exit 2 and one line saying why.
    let out = retro(&["query", table, "..../..../oooo/xxxx"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("this position cannot arise: both x and o have a line"),
        "{err}"
    );
    // Every bottom stone is o's, but x dropped the first stone.
    let out = retro(&["query", table, "x.../x.../xx../ooo."], "");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("this position cannot arise: no order of drops (x first, turns alternating)"),
        "{err}"
    );
    let out = retro(&["query", table, "..../x.../..../o..."], "");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("column 1 has a stone above an empty cell"),
        "{err}"
    );

    let out = retro(
        &["query", table, "--batch"],
        "empty\n..../..../ooo./xxxx\n..../..../oooo/xxxx\n..../x.../..../o...\n..../o.../oo../xxx.\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "tie\nloss in 0\nerror\nerror\nwin in 1\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 3:") && err.contains("both x and o have a line"),
        "{err}"
    );
    assert!(
        err.contains("line 4:") && err.contains("column 1 has a stone"),
        "{err}"
    );

    let verified = ok(&retro(&["verify", table], ""));
    assert!(
        verified.contains("112861 entries checked (the table folds 2 symmetries), checksum ok"),
        "{verified}"
    );

    // The export holds every position once (`--all`: not one row per entry of the folded
    // table), each with the brute force's value.
    let csv = dir.path().join("c44.csv");
    ok(&retro(
        &[
            "export",
            table,
            "--csv",
            "--all",
            "-q",
            "-o",
            csv.to_str().unwrap(),
        ],
        "",
    ));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("position,stones,to_move,value,best_move,result,remoteness,reachable,best_column")
    );
    let mut brute = Brute::new(4, 4, 4);
    let reachable = brute.reachable();
    let mut seen = HashSet::new();
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let [
            position,
            stones,
            to_move,
            value,
            best,
            result,
            remoteness,
            reach,
            column,
        ] = fields[..]
        else {
            panic!("{line}");
        };
        // The integer column is the move's column, as the text says it.
        assert_eq!(best, column, "{line}");
        // The result and remoteness columns say the value in words: x wins at ply
        // 17 - |value|, for the side to move a win if that is its own line.
        let v: i64 = value.parse().unwrap();
        let s: i64 = stones.parse().unwrap();
        let (want_result, want_remoteness) = match v {
            0 => ("tie", 16 - s),
            _ => {
                let x_wins = v > 0;
                let x_moves = s % 2 == 0;
                let r = 17 - v.abs() - s;
                (if x_wins == x_moves { "win" } else { "loss" }, r)
            }
        };
        assert_eq!(
            (result, remoteness.parse::<i64>().unwrap()),
            (want_result, want_remoteness),
            "{line}"
        );
        let mut board = marks_of(position);
        assert!(seen.insert(Brute::code(&board)), "{line}");
        // Marked reachable exactly where play from the empty board gets.
        let arises = reachable.contains(&Brute::code(&board));
        assert_eq!(reach, if arises { "true" } else { "false" }, "{line}");
        let stones: usize = stones.parse().unwrap();
        assert_eq!(stones, Brute::stones(&board), "{line}");
        assert_eq!(
            value.parse::<i64>().unwrap(),
            brute.value(&mut board),
            "{line}"
        );
        let over = brute.has_line(&board, 1) || brute.has_line(&board, 2) || stones == 16;
        assert_eq!(best.is_empty(), over, "{line}");
        if !over {
            let expected = if stones.is_multiple_of(2) {
                "first"
            } else {
                "second"
            };
            assert_eq!(to_move, expected, "{line}");
        }
    }
    assert_eq!(seen.len(), 201_755);
}
