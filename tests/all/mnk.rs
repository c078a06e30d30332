//! The m,n,k-games: every position of every board up to 3 x 4 (and 4 x 3), every K,
//! against a brute-force minimax with remoteness written here; the checks every game must
//! pass (`retro::testing`); known results; the command line.

use std::collections::HashSet;

use crate::common;
use common::{ok, retro};

use retro::game::{Board, Game, Gameplay, Mnk, MnkBoard, Twins, TwinsBoard, Verdict};
use retro::testing::{all_values, check_game, walk};
use retro::{Driver, Silent};

// ---------------------------------------------------------------------------------------
// The brute force: boards as mark vectors (0 empty, 1 x, 2 o), lines found by walking the
// grid, values by plain recursion over win/loss/tie and remoteness, nothing shared with
// the library but the rules.

struct Brute {
    rows: usize,
    cols: usize,
    k: usize,
    /// Per board (base-3 code), the solved (verdict for the side to move, remoteness).
    memo: Vec<Option<(Verdict, usize)>>,
}

impl Brute {
    fn new(rows: usize, cols: usize, k: usize) -> Self {
        Brute {
            rows,
            cols,
            k,
            memo: vec![None; 3usize.pow((rows * cols) as u32)],
        }
    }

    fn cells(&self) -> usize {
        self.rows * self.cols
    }

    fn code(board: &[u8]) -> usize {
        board.iter().rev().fold(0, |c, &m| c * 3 + m as usize)
    }

    /// Whether `mark` has K in a row anywhere (longer runs included).
    fn has_line(&self, board: &[u8], mark: u8) -> bool {
        let (r, c, k) = (self.rows as i64, self.cols as i64, self.k as i64);
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

    /// The game from a reachable board, for the side to move: win/loss/tie and the plies
    /// until it ends, the winner taking the fastest win and the loser the slowest loss.
    fn solve(&mut self, board: &mut Vec<u8>) -> (Verdict, usize) {
        let code = Self::code(board);
        if let Some(r) = self.memo[code] {
            return r;
        }
        let stones = board.iter().filter(|&&m| m != 0).count();
        let (mover, last) = if stones % 2 == 0 { (1, 2) } else { (2, 1) };
        let result = if self.has_line(board, last) {
            (Verdict::Loss, 0)
        } else if stones == self.cells() {
            (Verdict::Tie, 0)
        } else {
            let mut children = Vec::new();
            for cell in 0..self.cells() {
                if board[cell] != 0 {
                    continue;
                }
                board[cell] = mover;
                children.push(self.solve(board));
                board[cell] = 0;
            }
            common::brute::best_of_children(children).expect("a board that is not full has a move")
        };
        self.memo[code] = Some(result);
        result
    }

    /// The documented value of any board with legal counts: reachable boards from the
    /// solve (seen from x: cells + 1 - p for an x win at ply p, minus that for o, 0 a
    /// tie); a board with a line is over, its value the line holder's (0 if both have one).
    fn value(&mut self, board: &mut Vec<u8>) -> i64 {
        let stones = board.iter().filter(|&&m| m != 0).count();
        let win = (self.cells() + 1 - stones) as i64;
        match (self.has_line(board, 1), self.has_line(board, 2)) {
            (true, true) => return 0,
            (true, false) => return win,
            (false, true) => return -win,
            (false, false) => {}
        }
        let (verdict, r) = self.solve(board);
        let x_to_move = stones % 2 == 0;
        let at_end = (self.cells() + 1 - (stones + r)) as i64;
        match verdict {
            Verdict::Tie => 0,
            Verdict::Win if x_to_move => at_end,
            Verdict::Loss if !x_to_move => at_end,
            _ => -at_end,
        }
    }

    /// Every board play reaches from the empty one (play stops at a line).
    fn reachable(&self) -> HashSet<Vec<u8>> {
        let mut seen = HashSet::new();
        let mut stack = vec![vec![0u8; self.cells()]];
        while let Some(board) = stack.pop() {
            if !seen.insert(board.clone()) {
                continue;
            }
            if self.has_line(&board, 1) || self.has_line(&board, 2) {
                continue;
            }
            let stones = board.iter().filter(|&&m| m != 0).count();
            let mover = if stones % 2 == 0 { 1 } else { 2 };
            for cell in 0..self.cells() {
                if board[cell] == 0 {
                    let mut child = board.clone();
                    child[cell] = mover;
                    stack.push(child);
                }
            }
        }
        seen
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

fn mnk(rows: usize, cols: usize, k: usize) -> Mnk {
    Mnk::new(MnkBoard { rows, cols, k }).expect("a valid board")
}

fn small_boards() -> Vec<(usize, usize, usize)> {
    let mut boards = Vec::new();
    for rows in 1..=4 {
        for cols in 1..=4 {
            if rows * cols <= 12 {
                for k in 1..=rows.max(cols) {
                    boards.push((rows, cols, k));
                }
            }
        }
    }
    boards
}

#[test]
fn every_position_of_small_boards_matches_the_brute_force() {
    let mut checked = 0u64;
    for (rows, cols, k) in small_boards() {
        let game = mnk(rows, cols, k);
        let values = all_values(&game, Driver::Parallel);
        let mut brute = Brute::new(rows, cols, k);
        let reachable = brute.reachable();
        walk(&game, |layer, r, pos| {
            let text = game.format_position(pos);
            let mut board = marks_of(&text);
            let what = format!("{rows}x{cols}k{k} {text}");
            let value = values[layer][r as usize];
            assert_eq!(value, brute.value(&mut board), "{what}");
            let arises = reachable.contains(&board);
            assert_eq!(game.check_reachable(pos).is_ok(), arises, "{what}");
            if arises {
                let (verdict, remoteness) = brute.solve(&mut board);
                let outcome = game.outcome(value, layer).expect("mnk has outcomes");
                assert_eq!(
                    (outcome.result, outcome.remoteness),
                    (verdict, remoteness),
                    "{what}"
                );
                let over = remoteness == 0;
                assert_eq!(game.moves(pos).is_empty(), over, "{what}");
            }
            checked += 1;
        });
    }
    // Every rank of every board, so the count is the layers' total.
    let total: u64 = small_boards()
        .iter()
        .map(|&(r, c, k)| mnk(r, c, k).total_positions())
        .sum();
    assert_eq!(checked, total);
}

#[test]
fn refusals_say_why_the_position_cannot_arise() {
    let game = mnk(3, 3, 3);
    let why = |text: &str| {
        let pos = game.parse_position(text).expect("legal counts");
        game.check_reachable(&pos).err().map(|e| e.to_string())
    };
    assert_eq!(why("xx./oo./x.."), None);
    assert_eq!(why("xxx/oo./..."), None);
    let said = |text: &str, reason: &str| {
        let msg = why(text).unwrap_or_else(|| panic!("{text} accepted"));
        assert!(
            msg.contains(&format!("this position cannot arise: {reason}")),
            "{text}: {msg}"
        );
    };
    said("ooo/xx./xx.", "o has a line but x moved last");
    said("xxx/ooo/x..", "both x and o have a line");
    said("xxx/oo./o..", "x has a line but o moved last");
    said("xxx/o.o/xoo", "x has a line but o moved last");
    // Two disjoint lines of x: no single move made both.
    let wide = mnk(3, 3, 2);
    let pos = wide.parse_position("xx./.../oxo").expect("legal counts");
    assert!(wide.check_reachable(&pos).is_ok());
    let pos = wide.parse_position("xxo/o../xxo").expect("legal counts");
    let msg = wide.check_reachable(&pos).unwrap_err().to_string();
    assert!(msg.contains("no single move"), "{msg}");
}

#[test]
fn known_results() {
    let root =
        |r, c, k| retro::solve::solve::<_, i64>(&mnk(r, c, k), Driver::Parallel, &Silent).unwrap();
    // Tic-tac-toe and 4 x 4 with four in a row are ties; three in a row on 4 x 4 is an x
    // win with x's third stone, at ply 5 (value 17 - 5 = 12).
    assert_eq!(root(3, 3, 3), 0);
    assert_eq!(root(4, 4, 4), 0);
    assert_eq!(root(4, 4, 3), 12);
    // The position counts of the dense index are twins's; folded, the layers' entries
    // answer for as many.
    for (r, c, k, positions) in [
        (3, 3, 3, 6_046),
        (4, 4, 4, 10_165_779),
        (4, 5, 4, 741_365_049),
    ] {
        let unfolded = Mnk::unfolded(MnkBoard {
            rows: r,
            cols: c,
            k,
        })
        .unwrap();
        assert_eq!(unfolded.total_positions(), positions);
        let folded = mnk(r, c, k);
        let answered: u64 = (0..=folded.last_layer())
            .map(|k| folded.layer_positions(k))
            .sum();
        assert_eq!(answered, positions);
        assert!(folded.total_positions() < positions);
    }
}

// ---------------------------------------------------------------------------------------
// What every game must guarantee, written once, generic over the game.

#[test]
fn every_game_check_holds_for_mnk_and_twins() {
    for (rows, cols, k) in [
        (1, 1, 1),
        (2, 2, 2),
        (3, 3, 3),
        (2, 4, 3),
        (3, 3, 2),
        (3, 4, 4),
    ] {
        check_game(&mnk(rows, cols, k));
    }
    // Every position its own entry (`--no-fold`, tables of best moves).
    for (rows, cols, k) in [(3, 3, 3), (2, 4, 3)] {
        check_game(&Mnk::unfolded(MnkBoard { rows, cols, k }).unwrap());
    }
    // Twins ranks through the same module; its checks pass through the same door.
    for (rows, cols) in [(2, 3), (3, 3)] {
        let spec = TwinsBoard::random(rows, cols, &mut retro::SplitMix(3), 9).unwrap();
        check_game(&Twins::new(spec).unwrap());
    }
}

// ---------------------------------------------------------------------------------------
// The command line.

#[test]
fn command_line_builds_queries_and_refuses() {
    // The board as its label, as connect's gen writes it, and `build` reads it back.
    assert_eq!(ok(&retro(&["gen", "mnk", "4x4"], "")), "4x4k4\n");
    assert_eq!(ok(&retro(&["gen", "mnk", "3x5"], "")), "3x5k3\n");
    let generated = ok(&retro(&["gen", "mnk", "3x3"], ""));
    assert_eq!(generated, "3x3k3\n");
    let from_gen = tempfile::tempdir().unwrap();
    let built = from_gen.path().join("g.retro");
    let built = built.to_str().unwrap();
    ok(&retro(&["build", "mnk", "-q", "-o", built], &generated));
    let info = ok(&retro(&["info", built, "--json"], ""));
    assert!(info.contains("\"board\":\"3x3k3\""), "{info}");
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("ttt.retro");
    let table = table.to_str().unwrap();
    ok(&retro(&["build", "mnk", "-q", "-o", table], "3x3k3\n"));
    let text = ok(&retro(&["query", table, "x.o/.x./..."], ""));
    assert!(text.contains("value     tie with best play"), "{text}");
    assert!(
        text.contains("3,3      x.o/.x./..o           tie  best"),
        "{text}"
    );
    let text = ok(&retro(&["query", table, "xx./oo./..."], ""));
    assert!(
        text.contains("value     x to move wins in 1 (remoteness 1)"),
        "{text}"
    );
    let out = retro(&["query", table, "x.o/.x./..o", "--json", "--pv"], "");
    let json: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(json["result"], "tie");
    assert_eq!(json["remoteness"], 5);
    assert_eq!(json["code"], 0);
    assert_eq!(json["moves"][0]["result"], "loss");
    assert_eq!(json["moves"][0]["remoteness"], 2);
    assert_eq!(json["pv"].as_array().unwrap().len(), 5);
    let text = ok(&retro(&["query", table, "ooo/xx./x.."], ""));
    assert!(
        text.contains("value     o has won (a line at ply 6, o's 3rd stone)"),
        "{text}"
    );
    assert!(
        text.contains("to move   nobody (the game is over)"),
        "{text}"
    );
    let out = retro(&["query", table, "ooo/xx./x..", "--json"], "");
    let json: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(json["to_move"], "none");
    assert_eq!(json["winner"], "o");
    assert_eq!(
        json["winning_line"],
        serde_json::json!([[1, 1], [1, 2], [1, 3]])
    );
    // In a batch, `line` stays the input's line number.
    let batch = retro(&["query", table, "--batch", "--json"], "ooo/xx./x..\n");
    let batch: serde_json::Value = serde_json::from_str(&ok(&batch)).unwrap();
    assert_eq!(
        (&batch["line"], &batch["winning_line"]),
        (&1.into(), &json["winning_line"])
    );
    // A tie that fills the board has no winner; a position still in play names none.
    let full = retro(&["query", table, "xox/xoo/oxx", "--json"], "");
    let full: serde_json::Value = serde_json::from_str(&ok(&full)).unwrap();
    assert_eq!(
        (&full["result"], &full["winner"]),
        (&"tie".into(), &serde_json::Value::Null)
    );
    let open = retro(&["query", table, "xx./oo./...", "--json", "--pv"], "");
    let open: serde_json::Value = serde_json::from_str(&ok(&open)).unwrap();
    assert_eq!(open.get("winner"), None);
    assert_eq!(open["pv"][0].get("first_score"), None);
    assert_eq!(
        (&json["result"], &json["remoteness"]),
        (&"loss".into(), &0.into())
    );
    let out = retro(&["query", table, "ooo/xxx/..."], "");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("this position cannot arise: both x and o have a line"),
        "{err}"
    );
    let out = retro(
        &["query", table, "--batch"],
        "empty\nooo/xx./xx.\nxxx/oo./...\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "tie\nerror\nloss in 0\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("o has a line but x moved last"), "{err}");
    let verified = ok(&retro(&["verify", table], ""));
    assert!(verified.contains("ok"), "{verified}");
    // retro plays o from a won position for x and loses at once.
    let played = ok(&retro(
        &["play", table, "--from", "xx./oo./...", "--as", "second"],
        "",
    ));
    assert!(
        played.contains("value x to move wins in 1 (remoteness 1); first to move (retro)"),
        "{played}"
    );
    assert!(
        played.contains("game over: x has won (a line at ply 5, x's 3rd stone)"),
        "{played}"
    );
}

/// The export marks exactly the boards play reaches (the brute force's search from the
/// empty board), so counting over reachable rows is right: tic-tac-toe has 5,478
/// reachable positions, 2,936 of them won for x. The integer move columns say the
/// `best_move` text as numbers. The tables fold; `--all` writes every position.
#[test]
fn export_marks_the_reachable_positions_and_gives_moves_as_numbers() {
    let dir = tempfile::tempdir().unwrap();
    for (r, c, k) in [(3, 3, 3), (3, 3, 2), (2, 4, 3), (3, 4, 3)] {
        let table = dir.path().join(format!("{r}x{c}k{k}.retro"));
        let table = table.to_str().unwrap();
        ok(&retro(
            &["build", "mnk", &format!("{r}x{c}k{k}"), "-q", "-o", table],
            "",
        ));
        let csv = dir.path().join(format!("{r}x{c}k{k}.csv"));
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
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(
                "position,stones,to_move,value,best_move,result,remoteness,reachable,best_row,best_col"
            )
        );
        let brute = Brute::new(r, c, k);
        let reachable = brute.reachable();
        let (mut rows, mut marked, mut x_wins) = (0, 0, 0);
        for line in lines {
            // Positions and moves hold no quotes' worth of commas here but the move.
            let fields: Vec<&str> = line.split(',').collect();
            let [position, _stones, to_move, value, ..] = fields[..] else {
                panic!("{line}");
            };
            let [best_row, best_col, reach] = [
                fields[fields.len() - 2],
                fields[fields.len() - 1],
                fields[fields.len() - 3],
            ];
            let is_reachable = reachable.contains(&marks_of(position));
            assert_eq!(reach, if is_reachable { "true" } else { "false" }, "{line}");
            rows += 1;
            if is_reachable {
                marked += 1;
                x_wins += usize::from(value.parse::<i64>().unwrap() > 0);
            }
            if to_move == "none" {
                assert_eq!((best_row, best_col), ("", ""), "{line}");
            } else {
                // The move text is quoted ("r,c"); the numbers are the same cell.
                let text = line.split('"').nth(1).unwrap();
                assert_eq!(text, format!("{best_row},{best_col}"), "{line}");
            }
        }
        assert_eq!(marked, reachable.len(), "{r}x{c}k{k}: {rows} rows");
        if (r, c, k) == (3, 3, 3) {
            assert_eq!((rows, marked, x_wins), (6046, 5478, 2936));
        }
    }
}

/// `export --moves` of tic-tac-toe against the brute force: each row's move puts the
/// mover's mark on an empty cell of its position and its child is that board; its result
/// and remoteness are the child's brute-force outcome seen from the mover (a child lost
/// for its side to move is the mover's win, one ply further). The rows are every legal
/// move of every position the plain export writes, in its order and in cell order, with
/// `--all` (every board), without (one position per entry, with its orbit's size) and with
/// `--layer`; Parquet holds the same rows.
#[test]
fn export_moves_give_each_moves_result_for_the_side_that_plays_it() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("ttt.retro");
    let t = table.to_str().unwrap();
    ok(&retro(&["build", "mnk", "3x3k3", "-q", "-o", t], ""));
    let mut brute = Brute::new(3, 3, 3);
    for extra in [&[][..], &["--all"], &["--layer", "5"]] {
        let export = |more: &[&str]| {
            let mut args = vec!["export", t, "--csv", "-q", "-o", "-"];
            args.extend_from_slice(extra);
            args.extend_from_slice(more);
            ok(&retro(&args, ""))
        };
        // The positions the plain export writes, and of them those where play goes on,
        // each with its moves' cells in order.
        let plain = export(&[]);
        let mut expected = Vec::new();
        for line in plain.lines().skip(1) {
            let position = line.split(',').next().unwrap().to_string();
            let board = marks_of(&position);
            if brute.has_line(&board, 1) || brute.has_line(&board, 2) {
                continue;
            }
            for cell in (0..9).filter(|&c| board[c] == 0) {
                expected.push((
                    position.clone(),
                    format!("{},{}", cell / 3 + 1, cell % 3 + 1),
                ));
            }
        }
        let moves = export(&["--moves"]);
        let mut lines = moves.lines();
        let orbits = !extra.contains(&"--all");
        let head = "position,move,child,result,remoteness";
        let want_head = if orbits {
            format!("{head},orbit_size")
        } else {
            head.to_string()
        };
        assert_eq!(lines.next(), Some(want_head.as_str()), "{extra:?}");
        let mut rows = Vec::new();
        for line in lines {
            // Only the move holds a comma: `.../.../...,"1,1",x../.../...,tie,9`.
            let parts: Vec<&str> = line.split('"').collect();
            let [position, mv, rest] = parts[..] else {
                panic!("{line}");
            };
            let position = position.strip_suffix(',').unwrap();
            let fields: Vec<&str> = rest.strip_prefix(',').unwrap().split(',').collect();
            assert_eq!(fields.len(), 3 + usize::from(orbits), "{line}");
            let (child, result, remoteness) = (fields[0], fields[1], fields[2]);
            let board = marks_of(position);
            let stones = board.iter().filter(|&&m| m != 0).count();
            let mover = if stones % 2 == 0 { 1 } else { 2 };
            let (r, c) = mv.split_once(',').unwrap();
            let cell = (r.parse::<usize>().unwrap() - 1) * 3 + c.parse::<usize>().unwrap() - 1;
            let mut after = board.clone();
            assert_eq!(after[cell], 0, "{line}");
            after[cell] = mover;
            assert_eq!(marks_of(child), after, "{line}");
            let (verdict, plies) = brute.solve(&mut after);
            let want = match verdict {
                Verdict::Win => "loss",
                Verdict::Loss => "win",
                _ => "tie",
            };
            assert_eq!(
                (result, remoteness),
                (want, (plies + 1).to_string().as_str()),
                "{line}"
            );
            if orbits {
                assert!(fields[3].parse::<u64>().unwrap() >= 1, "{line}");
            }
            rows.push((
                position.to_string(),
                mv.to_string(),
                child.to_string(),
                line.to_string(),
            ));
        }
        // One row per legal move of each exported position, in order.
        let keys: Vec<(String, String)> = rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
        assert_eq!(keys, expected, "{extra:?}");
        if extra.contains(&"--all") {
            // 16,167 moves over the 6,046 boards.
            assert_eq!(rows.len(), 16167);
        }
        #[cfg(feature = "parquet")]
        {
            use parquet::file::reader::{FileReader, SerializedFileReader};
            use parquet::record::RowAccessor;
            let pq = dir.path().join("moves.parquet");
            let mut args = vec!["export", t, "--moves", "-q", "-o", pq.to_str().unwrap()];
            args.extend_from_slice(extra);
            ok(&retro(&args, ""));
            let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
            let back: Vec<String> = reader
                .get_row_iter(None)
                .unwrap()
                .map(|row| {
                    let row = row.unwrap();
                    let mut line = format!(
                        "{},\"{}\",{},{},{}",
                        row.get_string(0).unwrap(),
                        row.get_string(1).unwrap(),
                        row.get_string(2).unwrap(),
                        row.get_string(3).unwrap(),
                        row.get_int(4).unwrap()
                    );
                    if orbits {
                        line.push_str(&format!(",{}", row.get_long(5).unwrap()));
                    }
                    line
                })
                .collect();
            let lines: Vec<String> = rows.into_iter().map(|r| r.3).collect();
            assert_eq!(back, lines, "{extra:?}");
        }
    }
}
