//! `retro play` driven through stdin as a script would: the labelled board, running scores,
//! and the prompt's commands (help, hint, undo, quit), for both games and both sides.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::{retro, shipped};

fn build(dir: &Path, game: &str, file: &str) -> PathBuf {
    // Named after the board, as a build refuses to replace another board's table.
    let stem = file.trim_end_matches(".txt");
    let path = dir.join(format!("{game}-{stem}.retro"));
    let out = retro(
        &[
            "build",
            game,
            &shipped(file),
            "-o",
            path.to_str().unwrap(),
            "-q",
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// Run `retro play TABLE extra...` on `script`; it must succeed. Returns stdout.
fn play(table: &Path, extra: &[&str], script: &str) -> String {
    let out = play_raw(table, extra, script);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn play_raw(table: &Path, extra: &[&str], script: &str) -> Output {
    let mut args = vec!["play", table.to_str().unwrap()];
    args.extend_from_slice(extra);
    retro(&args, script)
}

/// Every board drawn, in order: each turn starts with a blank line, then the column
/// labels and `rows` labelled rows.
fn boards(text: &str, rows: usize) -> Vec<String> {
    text.split("\n\n")
        // The weights are drawn once, before the first board.
        .filter(|turn| !turn.starts_with("first's weights") && !turn.starts_with("pair weights"))
        .map(|turn| {
            let turn = turn.trim_start_matches('\n');
            turn.lines().take(rows + 1).collect::<Vec<_>>().join("\n")
        })
        .collect()
}

/// The `scores: ...` lines, in order.
fn score_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("scores: ")).collect()
}

/// The principal variation from the empty board as `row col` lines, and the root value.
fn principal_variation(table: &Path, empty: &str) -> (Vec<String>, i64) {
    let out = retro(
        &["query", table.to_str().unwrap(), empty, "--pv", "--json"],
        "",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = v["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}\n", s["cell"][0], s["cell"][1]))
        .collect();
    (cells, v["value"].as_i64().unwrap())
}

/// `first N, second M; result R` from the game-over line.
fn final_scores(text: &str) -> (i64, i64, i64) {
    let last = text
        .lines()
        .find(|l| l.starts_with("game over: "))
        .unwrap_or_else(|| panic!("no game-over line: {text}"));
    let rest = last
        .strip_prefix("game over: first ")
        .unwrap_or_else(|| panic!("not a game-over line: {last}"));
    let nums: Vec<i64> = rest
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter_map(|t| t.parse().ok())
        .collect();
    assert_eq!(nums.len(), 3, "{last}");
    (nums[0], nums[1], nums[2])
}

/// Our moves from the principal variation: the first side's or the second's.
fn our_moves(pv: &[String], parity: usize) -> String {
    pv.iter().skip(parity).step_by(2).cloned().collect()
}

#[test]
fn a_full_young_game_ends_with_scores_that_make_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let (pv, value) = principal_variation(&t, "0,0");
    assert_eq!(value, 2);
    let text = play(&t, &[], &our_moves(&pv, 0));
    // The spec's optimal line: first collects 2+9+1, second 7+2+1.
    assert_eq!(final_scores(&text), (12, 10, 2), "{text}");
    let drawn = boards(&text, 2);
    assert_eq!(drawn.len(), 7, "{text}");
    assert_eq!(drawn[0], "   1 2 3\n1  + . .\n2  . . .");
    assert_eq!(drawn[6], "   1 2 3\n1  # # #\n2  # # #");
    // Scores after every move, with the value and who is to move.
    assert_eq!(
        score_lines(&text),
        [
            "scores: first 0, second 0; on course for result 2; first to move (you)",
            "scores: first 2, second 0; on course for result 2; second to move (retro)",
            "scores: first 2, second 7; on course for result 2; first to move (you)",
            "scores: first 11, second 7; on course for result 2; second to move (retro)",
            "scores: first 11, second 9; on course for result 2; first to move (you)",
            "scores: first 12, second 9; on course for result 2; second to move (retro)",
        ]
    );
    assert!(
        text.contains("retro plays 1,2 (on course for result 2)"),
        "{text}"
    );

    // A weaker line still ends with scores whose difference is the result.
    let text = play(&t, &[], "1 1\n2 1\n2 2\n");
    let (first, second, result) = final_scores(&text);
    assert_eq!(first - second, result, "{text}");
}

#[test]
fn playing_second_the_table_opens() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let (pv, _) = principal_variation(&t, "0,0");
    let text = play(&t, &["--as", "second"], &our_moves(&pv, 1));
    let first_prompt = text.find("your move").unwrap();
    assert!(
        text[..first_prompt].contains("retro plays 1,1 (on course for result 2)"),
        "{text}"
    );
    assert!(text.contains("first to move (retro)") && text.contains("second to move (you)"));
    assert_eq!(final_scores(&text), (12, 10, 2), "{text}");

    // From a given position, second to move: the human moves at once.
    let text = play(&t, &["--as", "second", "--from", "1,0"], "quit\n");
    assert!(
        text.contains("second to move (you)") && !text.contains("retro plays"),
        "{text}"
    );
}

#[test]
fn a_full_twins_game() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "twins", "twins-sample1.txt");
    let (pv, value) = principal_variation(&t, ".../.../...");
    assert_eq!(value, 15);
    let text = play(&t, &[], &our_moves(&pv, 0));
    let (first, second, result) = final_scores(&text);
    // Every pair is scored by one side; the spec's answer is 15 and 80.
    assert_eq!((first, second, result), (15, 80, 15), "{text}");
    let drawn = boards(&text, 3);
    assert_eq!(drawn.len(), 10, "{text}");
    assert_eq!(drawn[0], "   1 2 3\n1  . . .\n2  . . .\n3  . . .");
    assert!(
        drawn[9]
            .lines()
            .skip(1)
            .all(|l| l.len() == 8 && !l.contains('.')),
        "{}",
        drawn[9]
    );
    // Running scores are the pairs already decided: none until two neighbours are filled.
    assert_eq!(
        score_lines(&text)[0],
        "scores: first 0, second 0; on course for result 15; first to move (you)"
    );
    assert!(
        score_lines(&text)
            .last()
            .unwrap()
            .starts_with("scores: first 15, second 55;")
    );
}

#[test]
fn hint_names_a_best_move_without_playing_it() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let text = play(&t, &[], "hint\nquit\n");
    assert!(
        text.contains("hint: best move 1,1 (on course for result 2)\n"),
        "{text}"
    );
    assert!(!text.contains("you play"), "{text}");

    // Twins opening: several cells keep the value; all of them are named.
    let t = build(dir.path(), "twins", "twins-sample1.txt");
    let text = play(&t, &[], "hint\nquit\n");
    assert!(
        text.contains("hint: best moves 1,2 1,3 2,1 2,3 3,1 3,2 3,3 (on course for result 15)\n"),
        "{text}"
    );
}

#[test]
fn undo_restores_the_position_before_your_move() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let text = play(&t, &[], "undo\n1 1\n2 1\nundo\nundo\nundo\n1 1\nquit\n");
    assert!(
        text.contains("nothing to undo: you have not moved yet"),
        "{text}"
    );
    assert!(
        text.contains("undo: took back your 2,1 and retro's 1,3\n"),
        "{text}"
    );
    assert!(
        text.contains("undo: took back your 1,1 and retro's 1,2\n"),
        "{text}"
    );
    // Boards: start, 1 1, reply, 2 1, reply, undo, undo, 1 1, reply.
    let drawn = boards(&text, 2);
    assert_eq!(drawn.len(), 9, "{text}");
    assert_eq!(drawn[5], drawn[2]);
    assert_eq!(drawn[6], drawn[0]);
    assert_eq!(drawn[7], drawn[1]);
    let scores = score_lines(&text);
    assert_eq!(scores[5], scores[2]);
    assert_eq!(scores[6], scores[0]);
    // The third undo was at the start again.
    assert_eq!(text.matches("nothing to undo").count(), 2, "{text}");

    // Twins, playing second: undo goes back to the table's opening, not before it.
    let t = build(dir.path(), "twins", "twins-sample1.txt");
    let text = play(&t, &["--as", "second"], "2 2\nundo\nundo\nquit\n");
    let drawn = boards(&text, 3);
    assert_eq!(drawn[4], drawn[1], "{text}");
    assert!(text.contains("nothing to undo"), "{text}");
    assert_eq!(text.matches("retro plays").count(), 2, "{text}");
}

#[test]
fn quit_ends_the_game_with_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    // Input after quit is never read.
    let text = play(&t, &[], "1 1\nquit\n2 1\n");
    assert!(
        text.ends_with("quit: first 2, second 7; on course for result 2\n"),
        "{text}"
    );
    assert!(!text.contains("game over"), "{text}");
}

#[test]
fn help_lists_the_commands_and_the_move_format() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let text = play(&t, &[], "help\nquit\n");
    for needle in [
        "moves: `row,col`, 1-based",
        "\n  help ",
        "\n  hint ",
        "\n  undo ",
        "\n  quit ",
        "\non course for result R: the result the game ends at",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from {text}");
    }
    // Help does not redraw the board or move.
    assert_eq!(boards(&text, 2).len(), 1, "{text}");
    // A game with results is played in words: its help says values so, and leaves the
    // stored codes to `query --json`.
    let morris = dir.path().join("m.retro");
    crate::common::ok(&retro(
        &[
            "build",
            "morris",
            "six stones=3",
            "-q",
            "-o",
            morris.to_str().unwrap(),
        ],
        "",
    ));
    let text = play(&morris, &[], "help\nquit\n");
    assert!(
        text.contains("\nvalue: said for the side to move, a win or a loss in r plies or a draw"),
        "{text}"
    );
    assert!(
        text.contains("value draw: neither side can force a win"),
        "{text}"
    );
}

#[test]
fn illegal_moves_and_unknown_input_list_the_legal_moves() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let text = play(&t, &[], "3 3\n1 2\nfoo\n\n1 1\n1 1\nquit\n");
    assert!(
        text.contains("illegal move \"3 3\"; legal moves: 1,1\n"),
        "{text}"
    );
    assert!(
        text.contains("illegal move \"1 2\"; legal moves: 1,1\n"),
        "{text}"
    );
    assert!(
        text.contains("unknown input \"foo\" (type help for commands); legal moves: 1,1\n"),
        "{text}"
    );
    assert!(
        text.contains("unknown input \"\" (type help for commands); legal moves: 1,1\n"),
        "{text}"
    );
    // After the table's reply (1 2), the filled cell is illegal and both frontier cells are listed.
    assert!(
        text.contains("illegal move \"1 1\"; legal moves: 1,3 2,1\n"),
        "{text}"
    );
    // Each refusal prompts again: one prompt per input line.
    assert_eq!(text.matches("your move (row,col, or help): ").count(), 7);
}

/// The end of input (Ctrl-D at a terminal) ends the game quietly: exit 0, nothing on
/// stderr, the prompt's line ended.
#[test]
fn input_ending_early_leaves_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let out = play_raw(&t, &[], "1 1\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.ends_with("your move (row,col, or help): \n"), "{text}");
}

#[test]
fn two_digit_labels_line_up() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-10x10.txt");
    let text = play(&t, &[], "quit\n");
    let drawn = boards(&text, 10);
    let lines: Vec<&str> = drawn[0].lines().collect();
    assert_eq!(lines[0], "     1  2  3  4  5  6  7  8  9 10");
    assert_eq!(lines[1], " 1   +  .  .  .  .  .  .  .  .  .");
    assert_eq!(lines[10], "10   .  .  .  .  .  .  .  .  .  .");
}

/// Every way of writing a cell that `query`, `export` and the explorer print is read:
/// `1,2`, `1 2`, `(1,2)`.
#[test]
fn moves_are_read_as_every_command_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    for first in ["1,1", "1 1", "(1,1)", " 1, 1 "] {
        let text = play(&t, &[], &format!("{first}\nquit\n"));
        assert!(
            text.contains("you play 1,1 (on course for result 2)\n"),
            "{first}: {text}"
        );
    }
}

/// The weights come before the first board (and on `weights`), with a line saying whose
/// they are: young's a and b, twins' pairs.
#[test]
fn the_weights_are_shown_with_whose_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    let text = play(&t, &[], "weights\nquit\n");
    let a = "first's weights (a: first earns a cell's a by playing there):\n   1 2 3\n1  2 7 3\n2  9 1 2\n";
    let b = "second's weights (b: second earns a cell's b by playing there):\n   1 2 3\n1  3 7 2\n2  2 3 1\n";
    assert!(text.starts_with(&format!("{a}{b}")), "{text}");
    assert!(
        text.contains(&format!("your move (row,col, or help): {a}{b}")),
        "{text}"
    );
    let t = build(dir.path(), "twins", "twins-sample1.txt");
    let text = play(&t, &[], "quit\n");
    // Twins' sample: vertical pairs 0 15 0 / 0 0 25, horizontal 20 10 / 0 0 / 25 0.
    assert!(
        text.contains("o 20 o 10 o\n0    15   0\no 0  o 0  o\n0    0    25\no 25 o 0  o\n"),
        "{text}"
    );
    // Ten columns of six-digit weights keep their columns.
    let t = build(dir.path(), "young", "young-10x10.txt");
    let text = play(&t, &[], "quit\n");
    let grid: Vec<&str> = text.lines().skip(1).take(11).collect();
    assert!(grid.iter().all(|l| l.len() == grid[0].len()), "{text}");
}

/// A move that is not best says so, what it gave away and which move was best; undo
/// works once the game is over, and quit on a game won by a line says the value in words.
#[test]
fn mistakes_are_named_and_undo_works_after_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    // Young sample after 1,1 and retro's 1,2: 2,1 keeps value 7, 1,3 would not.
    let text = play(&t, &[], "1,1\n1,3\nquit\n");
    assert!(
        text.contains("you play 1,3 (on course for result -4): a mistake, 6 less than 2,1 (on course for result 2) for you\n"),
        "{text}"
    );
    // Play to the end, then take the last move back and leave.
    let (pv, _) = principal_variation(&t, "0,0");
    let text = play(&t, &[], &format!("{}undo\nquit\n", our_moves(&pv, 0)));
    let over = text
        .find("game over: first 12, second 10; result 2\n")
        .expect(&text);
    let after = &text[over..];
    assert!(
        after.contains("undo to take back your last move, anything else to leave: undo: took back your 2,2 and retro's 2,3\n"),
        "{text}"
    );
    assert!(
        after.ends_with("quit: first 11, second 9; on course for result 2\n"),
        "{text}"
    );

    // Tic-tac-toe: a losing move is named as such, and quit says the value in words.
    let ttt = dir.path().join("ttt.retro");
    let ttt_s = ttt.to_str().unwrap();
    assert!(
        retro(&["build", "mnk", "3x3k3", "-q", "-o", ttt_s], "")
            .status
            .success()
    );
    let text = play(&ttt, &["--from", "x.o/.x./..."], "");
    assert!(text.contains("retro plays 3,3 (tie)\n"), "{text}");
    let text = play(
        &ttt,
        &["--as", "second", "--from", "x.o/.x./..."],
        "1,2\nquit\n",
    );
    assert!(
        text.contains("you play 1,2 (loss in 2): a mistake, this position was a tie with 3,3\n"),
        "{text}"
    );
    let text = play(&ttt, &[], "quit\n");
    assert!(
        text.ends_with("quit: tie with best play (remoteness 9: the board fills)\n"),
        "{text}"
    );
    assert!(!text.contains("first 0, second 0"), "{text}");
}

/// A table written over in place while `play` has it open (`cp other.retro t.retro`) is an
/// error at the next answer, not a game that goes on with the other file's values.
#[test]
fn a_table_written_over_during_the_game_is_an_error() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    // Another young 2 x 3 table: the same layout, other values.
    let board = dir.path().join("other.txt");
    let generated = retro(&["gen", "young", "2x3", "--seed", "3"], "");
    std::fs::write(&board, common::ok(&generated)).unwrap();
    let other = dir.path().join("other.retro");
    common::ok(&retro(
        &[
            "build",
            "young",
            board.to_str().unwrap(),
            "-o",
            other.to_str().unwrap(),
            "-q",
        ],
        "",
    ));
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["play", t.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run retro play");
    // The first prompt: the table is open and the first position answered.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("your move") {
        let n = stdout.read(&mut buf).expect("read stdout");
        assert!(
            n > 0,
            "play ended early: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    // As `cp` writes: the same file, cut to nothing, then the other table's bytes.
    let mut f = std::fs::File::options().write(true).open(&t).unwrap();
    f.set_len(0).unwrap();
    f.write_all(&std::fs::read(&other).unwrap()).unwrap();
    drop(f);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"1,1\nquit\n").unwrap();
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    common::fails(&out, 1, "the file changed on disk while it was being read");
    assert!(!rest.contains("quit:"), "{rest}");
}

/// `--as` names a side by its mark too, any case, as the game marks it: x moves first in
/// mnk, o in twins; young's stones carry no mark, so x and o are refused there.
#[test]
fn as_names_a_side_by_its_mark() {
    let dir = tempfile::tempdir().unwrap();
    let mnk = dir.path().join("mnk.retro");
    let out = retro(
        &["build", "mnk", "3x3", "-o", mnk.to_str().unwrap(), "-q"],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let twins = build(dir.path(), "twins", "twins-sample1.txt");
    for (table, side, first) in [
        (&mnk, "x", true),
        (&mnk, "X", true),
        (&mnk, "o", false),
        (&mnk, "O", false),
        (&twins, "o", true),
        (&twins, "x", false),
    ] {
        let text = play(table, &["--as", side], "quit\n");
        let you = if first { "first" } else { "second" };
        assert!(
            text.contains(&format!("{you} to move (you)")),
            "--as {side}: {text}"
        );
        assert_eq!(text.contains("retro plays"), !first, "--as {side}: {text}");
    }
    let young = build(dir.path(), "young", "young-sample.txt");
    common::fails(
        &play_raw(&young, &["--as", "x"], "quit\n"),
        2,
        "young stones are not marked x or o; play --as first or --as second",
    );
}

/// The marks `--as` goes by are the ones the game writes: after the first move of every
/// built-in game, its position holds the first player's mark and not the second's.
#[test]
fn the_marks_are_the_ones_positions_show() {
    use retro::Registry;
    struct FirstChild;
    impl retro::Visitor for FirstChild {
        type Output = String;
        fn visit<G: retro::Registered>(self, game: G) -> retro::Result<String> {
            let start = game.unrank(0, 0);
            let child = &game.moves(&start)[0].child;
            // The side to move, which a moving game's position ends with (after `:`, or
            // after the hands, past a space), is not a stone.
            let text = game.format_position(child);
            Ok(text
                .split([':', ' '])
                .next()
                .unwrap_or_default()
                .to_string())
        }
    }
    for (name, notation) in retro::Builtin::notations() {
        let Some((first, second)) = notation.marks else {
            continue;
        };
        let board = common::random_board(name, 3, 3, 1, 9);
        let after = retro::Builtin::visit(&board, FirstChild).unwrap();
        assert!(
            after.contains(first) && !after.contains(second),
            "{name}: {after}"
        );
    }
}

/// Teeko and Quixo are played by cells, `row,col` and `row,col-row,col`: their boards are
/// labelled by row and column as mnk's, and a move that is not legal says why before the
/// list of legal ones.
#[test]
fn teeko_and_quixo_label_their_boards_and_say_why_a_move_is_illegal() {
    let dir = tempfile::tempdir().unwrap();
    let table = |game: &str, board: &str| {
        let path = dir.path().join(format!("{game}.retro"));
        common::ok(&retro(
            &["build", game, board, "-q", "-o", path.to_str().unwrap()],
            "",
        ));
        path
    };
    let teeko = table("teeko", "4x4s3");
    // All six stones down, x to move.
    let from = "xo../o.x./..../.x.o:x";
    let text = play(
        &teeko,
        &["--from", from],
        "1,3\n1,2-1,3\n1,1-1,2\n1,1-3,3\n1,1-9,9\nquit\n",
    );
    assert!(
        text.contains("   1 2 3 4\n1  x o . .\n2  o . x .\n"),
        "{text}"
    );
    for why in [
        "illegal move \"1,3\": all your stones are down: move one to an empty cell beside it, as 1,1-2,2; legal moves: 1,1-2,2 ",
        "illegal move \"1,2-1,3\": 1,2 is not one of your stones;",
        "illegal move \"1,1-1,2\": 1,2 is taken;",
        "illegal move \"1,1-3,3\": a stone moves one step, to an empty cell beside it (diagonals too)",
        "illegal move \"1,1-9,9\": the board has rows 1 to 4 and columns 1 to 4;",
    ] {
        assert!(text.contains(why), "{why}\n{text}");
    }
    let text = play(&teeko, &[], "1,1-2,2\nquit\n");
    assert!(
        text.contains("illegal move \"1,1-2,2\": you still have stones to put down: drop one on an empty cell, as 1,1;"),
        "{text}"
    );
    let quixo = table("quixo", "3x3");
    let text = play(&quixo, &[], "2,2-1,2\n1,1-2,1\n1,1\nquit\n");
    assert!(text.contains("   1 2 3\n1  . . .\n"), "{text}");
    for why in [
        "illegal move \"2,2-1,2\": 2,2 is not on the border: take a cube from the edge;",
        "illegal move \"1,1-2,1\": the cube from 1,1 goes back in at an end of its row or column: 1,3 or 3,1;",
        "illegal move \"1,1\": a move takes a cube from the border and pushes it back in at the end of its row or column: write where from and where to, as 1,1-1,3;",
    ] {
        assert!(text.contains(why), "{why}\n{text}");
    }
    // A cube showing the other side's mark cannot be taken (o's first push took the
    // blank cube at 1,3 and pushed it in at 1,1, over x's).
    let text = play(&quixo, &["--from", "ox./.../...:x"], "1,1-1,3\nquit\n");
    assert!(
        text.contains(
            "illegal move \"1,1-1,3\": the cube at 1,1 shows o: take a blank cube or one of yours;"
        ),
        "{text}"
    );
}

/// `query`'s table of moves fits a 5 x 5 board's positions: each result starts in one
/// column.
#[test]
fn the_moves_table_fits_five_by_five_positions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.retro");
    let path = path.to_str().unwrap();
    common::ok(&retro(&["build", "teeko", "5x5s3", "-q", "-o", path], ""));
    let text = common::ok(&retro(
        &["query", path, "x..../.o.../...../...../.....:x"],
        "",
    ));
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("moves"))
        .collect();
    assert!(lines.len() > 10, "{text}");
    let column = lines[0].find("result").unwrap();
    for line in &lines[1..] {
        let at = line
            .find(" loss in ")
            .or_else(|| line.find(" win in "))
            .unwrap()
            + 1;
        assert_eq!(at, column, "{text}");
    }
}

/// A Morris move that closes a mill, typed without the stone it takes, is answered with the
/// stones it may take, not as an illegal move.
#[test]
fn a_move_closing_a_mill_says_which_stones_it_may_take() {
    let dir = tempfile::tempdir().unwrap();
    let six = dir.path().join("six.retro");
    common::ok(&retro(
        &["build", "morris", "six", "-q", "-o", six.to_str().unwrap()],
        "",
    ));
    let text = play(
        &six,
        &["--as", "x", "--from", "x.x.o.....o..... 4 4 x"],
        "c5\nquit\n",
    );
    assert!(
        text.contains(
            "\"c5\" closes a mill, so it takes one of the other side's stones: say which, as c5xc4, c5xb2"
        ),
        "{text}"
    );
    assert!(!text.contains("illegal move \"c5\""), "{text}");
}

/// A table without a start (Morris's moving phase alone) opens where the explorer opens: a
/// position that can arise and is not over, named, with a line saying why there.
#[test]
fn a_table_without_a_start_opens_where_the_explorer_opens() {
    use retro::game::{Gameplay, Morris, MorrisBoard, Registered};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.retro");
    let t = path.to_str().unwrap();
    common::ok(&retro(
        &["build", "morris", "six stones=3 moving", "-o", t, "-q"],
        "",
    ));
    let board = <MorrisBoard as retro::game::Board>::parse("six stones=3 moving").unwrap();
    let game = <Morris as Registered>::new(board).unwrap();
    let (opening, _) = game.opening();
    let opening = game.format_position(&opening);
    let out = retro(&["play", t], "quit\n");
    let shown = common::ok(&out);
    assert!(
        shown.starts_with(&format!("this table has no start: play opens on {opening}")),
        "{shown}"
    );
    assert!(!shown.contains("game over"), "{shown}");
    assert!(shown.contains("to move (you)"), "{shown}");
}

/// A game of scores says the result it is on course for, the scores banked and the stones
/// to come together: after a mistake every line says the result the game then ends at, not
/// a move's reward or the stones to come alone.
#[test]
fn a_game_of_scores_says_the_result_it_is_on_course_for() {
    let dir = tempfile::tempdir().unwrap();
    let t = build(dir.path(), "young", "young-sample.txt");
    // 1,3 after 1,1 and retro's 1,2 is a mistake (2,1 keeps 2); then best play to the end.
    let text = play(&t, &[], "1,1\n1,3\n2,2\n");
    assert!(
        text.contains("game over: first 6, second 10; result -4\n"),
        "{text}"
    );
    let lines = score_lines(&text);
    assert_eq!(lines.len(), 6, "{text}");
    for line in &lines[3..] {
        assert!(line.contains("; on course for result -4;"), "{text}");
    }
    assert!(
        text.contains("retro plays 2,1 (on course for result -4)\n"),
        "{text}"
    );
    assert!(
        text.contains("you play 2,2 (on course for result -4)\n"),
        "{text}"
    );
    assert!(!text.contains("value"), "{text}");
}

/// The prompt and `help` offer the moves the position has: Quixo's pushes always go from
/// cell to cell, Teeko's stones are put down first and slide after; a position already
/// won says who won, with nobody to move.
#[test]
fn the_prompt_offers_the_moves_the_position_has() {
    let dir = tempfile::tempdir().unwrap();
    let table = |game: &str, board: &str| {
        let path = dir.path().join(format!("{game}.retro"));
        common::ok(&retro(
            &["build", game, board, "-q", "-o", path.to_str().unwrap()],
            "",
        ));
        path
    };
    let quixo = table("quixo", "3x3");
    let text = play(&quixo, &[], "help\nquit\n");
    assert!(
        text.contains("your move (row,col-row,col, or help): "),
        "{text}"
    );
    assert!(text.contains("pushes it back in"), "{text}");
    assert!(
        !text.contains("puts a stone") && !text.contains("row,col or "),
        "{text}"
    );
    let teeko = table("teeko", "4x4s3");
    let text = play(&teeko, &[], "help\nquit\n");
    assert!(text.contains("your move (row,col, or help): "), "{text}");
    assert!(
        text.contains("puts a stone on that cell") && !text.contains("pushes"),
        "{text}"
    );
    let text = play(&teeko, &["--from", "xo../o.x./..../.x.o:x"], "help\nquit\n");
    assert!(
        text.contains("your move (row,col-row,col, or help): "),
        "{text}"
    );
    assert!(
        text.contains("slides a stone") && !text.contains("puts a stone"),
        "{text}"
    );
    // Won by x: nobody is to move, and the value says who won.
    let text = play(&quixo, &["--from", "xxx/oo./...:o"], "");
    assert!(text.contains("game over: x has won\n"), "{text}");
    let query = common::ok(&retro(
        &["query", quixo.to_str().unwrap(), "xxx/oo./...:o"],
        "",
    ));
    assert!(
        query.contains("to move   nobody (the game is over)\nvalue     x has won\n"),
        "{query}"
    );
    assert!(!query.contains("to move has"), "{query}");
}

/// `--seed`: retro chooses at random among its equally good moves, each one `query` marks
/// best; seeds differ in some choice, one seed always plays the same game, and without a
/// seed retro plays the first best move, as before.
#[test]
fn a_seed_varies_retros_choice_among_its_best_moves() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("ttt.retro");
    let ts = t.to_str().unwrap();
    crate::common::ok(&retro(&["build", "mnk", "3x3k3", "-q", "-o", ts], ""));
    let first_reply = |text: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.starts_with("retro plays "))
            .unwrap_or_else(|| panic!("{text}"));
        line["retro plays ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    // From the empty board every move ties; after x takes the centre, only o's corners do.
    for (from, side) in [("start", "second"), ("start 2,2", "first")] {
        let query = crate::common::ok(&retro(&["query", ts, from, "--json"], ""));
        let query: serde_json::Value = serde_json::from_str(&query).unwrap();
        let best: Vec<String> = query["best"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert!(
            best.len() > 1 && best.len() < 9 || from == "start",
            "{best:?}"
        );
        let args = |seed: Option<String>| {
            let mut args = vec![
                "--as".to_string(),
                side.into(),
                "--from".into(),
                from.into(),
            ];
            if let Some(seed) = seed {
                args.extend(["--seed".to_string(), seed]);
            }
            args
        };
        let reply = |seed: Option<u64>| {
            let args = args(seed.map(|s| s.to_string()));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            first_reply(&play(&t, &args, "quit\n"))
        };
        let seeded: Vec<String> = (0..16).map(|s| reply(Some(s))).collect();
        for r in &seeded {
            assert!(best.contains(r), "{from}: {r} is not among {best:?}");
        }
        let mut distinct = seeded.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() > 1, "{from}: every seed played {seeded:?}");
        // Without a seed: the first best move, every time.
        assert_eq!(reply(None), best[0], "{from}");
    }
    // A whole game, the player typing every cell in turn (retro's are refused and asked
    // again): the same seed, the same game; other seeds, another game.
    let script = "1,1\n1,2\n1,3\n2,1\n2,2\n2,3\n3,1\n3,2\n3,3\n".repeat(5);
    let game = |seed: u64| {
        play(
            &t,
            &["--as", "second", "--seed", &seed.to_string()],
            &script,
        )
    };
    let once = game(3);
    assert!(once.contains("game over"), "{once}");
    assert_eq!(game(3), once);
    assert!((4..12).any(|s| game(s) != once), "{once}");
    // `help` says how retro chooses.
    let text = play(&t, &["--seed", "1"], "help\nquit\n");
    assert!(
        text.contains("chosen at random among equally good ones"),
        "{text}"
    );
    let text = play(&t, &[], "help\nquit\n");
    assert!(text.contains("the first of equally good ones"), "{text}");
}
