//! Board input and position text: twins size inference, young's guidance on twins input,
//! position shorthands and the errors that show the expected form.

use crate::common;

use std::process::Output;

use common::random_board;
use common::{retro, shipped, stdout};
use retro::Registry;
use retro::game::{Game, Gameplay, Twins, Young};

/// `common::fails`, and nothing was printed on stdout.
fn fails(out: &Output, code: i32, needle: &str) -> String {
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(out));
    common::fails(out, code, needle)
}

fn parse_error(game: &str, text: &str, rows: Option<usize>, cols: Option<usize>) -> String {
    match retro::Builtin::parse_sized(game, text, rows, cols) {
        Ok(spec) => panic!("{text:?} parsed as {:?}", spec.dims()),
        Err(e) => e.to_string(),
    }
}

/// 24 weights in four lines of six: the layout of no 24-weight board.
fn twins_24_unlaid() -> String {
    let nums: Vec<String> = (1..=24).map(|w| w.to_string()).collect();
    nums.chunks(6).map(|l| l.join(" ") + "\n").collect()
}

#[test]
fn twins_size_comes_back_from_gen_output_for_every_board_up_to_5x5() {
    for r in 1..=5 {
        for c in 1..=5 {
            let spec = random_board("twins", r, c, (r * 10 + c) as u64, 100);
            let text = spec.to_input();
            let spaced = text.replace('\n', "\n\n");
            for input in [&text, &spaced] {
                let parsed = retro::Builtin::parse("twins", input)
                    .unwrap_or_else(|e| panic!("{r} x {c}: {}", e));
                assert_eq!(parsed, spec, "{r} x {c}");
            }
            // One line of weights fits a one-row and a one-column board alike, and 1 x 1
            // has none: gen says the size on a first line for those.
            let sized = text.starts_with(&format!("{r}x{c}\n"));
            assert_eq!(sized, r == 1 || (r, c) == (2, 1), "{r} x {c}: {text:?}");
            if r == 1 && c > 1 {
                // Without that line, retro names both boards the count fits.
                let weights = text.split_once('\n').map_or("", |(_, w)| w);
                let err = parse_error("twins", weights, None, None);
                assert!(err.contains(&format!("1 x {c}")), "{err}");
                assert!(err.contains(&format!("{c} x 1")), "{err}");
            }
        }
    }
}

#[test]
fn gen_output_solves_without_flags() {
    for size in ["4x4", "2x5", "5x1"] {
        let generated = retro(&["gen", "twins", size], "");
        assert_eq!(generated.status.code(), Some(0));
        let text = stdout(&generated);
        let (r, c) = size.split_once('x').unwrap();
        let inferred = retro(&["solve", "twins", "--threads", "1"], &text);
        let given = retro(
            &["solve", "twins", "--threads", "1", "--rows", r, "--cols", c],
            &text,
        );
        assert_eq!(inferred.status.code(), Some(0), "{size}");
        assert_eq!(stdout(&inferred), stdout(&given), "{size}");
        assert_eq!(stdout(&inferred).lines().count(), 2);
    }
}

#[test]
fn an_ambiguous_count_names_the_candidates() {
    let out = retro(&["solve", "twins"], &twins_24_unlaid());
    let err = fails(&out, 2, "");
    assert_eq!(
        err,
        "error: stdin: 24 twins weights fit 4 x 4, 1 x 25 and 25 x 1 boards; \
         say which with --rows R --cols C\n"
    );
}

#[test]
fn contest_samples_need_no_flags() {
    for (name, first, second) in [
        ("twins-sample1.txt", 15, 80),
        ("twins-sample2.txt", 72, 107),
    ] {
        let text = std::fs::read_to_string(shipped(name)).unwrap();
        assert_eq!(
            retro::Builtin::parse("twins", &text).unwrap().dims(),
            (3, 3)
        );
        let out = retro(&["solve", "twins", &shipped(name)], "");
        assert_eq!(stdout(&out), format!("{first}\n{second}\n"), "{name}");
    }
}

#[test]
fn rows_and_cols_override_the_input() {
    let text = twins_24_unlaid();
    for (rows, cols) in [(Some(4), Some(4)), (Some(4), None), (None, Some(4))] {
        let spec = retro::Builtin::parse_sized("twins", &text, rows, cols).unwrap();
        assert_eq!(spec.dims(), (4, 4));
    }
    assert_eq!(
        retro::Builtin::parse_sized("twins", &text, Some(1), None)
            .unwrap()
            .dims(),
        (1, 25)
    );
    // The flags win over a layout that says 3 x 3.
    let sample = std::fs::read_to_string(shipped("twins-sample1.txt")).unwrap();
    assert_eq!(
        retro::Builtin::parse_sized("twins", &sample, Some(1), Some(13))
            .unwrap()
            .dims(),
        (1, 13)
    );
    let err = parse_error("twins", &text, Some(3), None);
    assert!(err.contains("fit no board with --rows 3"), "{err}");
    let err = parse_error("twins", &text, None, Some(0));
    assert!(err.contains("--cols must be at least 1"), "{err}");
    let err = parse_error("twins", &sample, Some(4), Some(4));
    assert!(err.contains("needs 24 weights"), "{err}");
    fails(
        &retro(&["solve", "twins", "--rows", "3"], &text),
        2,
        "fit no board with --rows 3",
    );
    assert_eq!(
        stdout(&retro(
            &["solve", "twins", "--rows", "2"],
            "5 7 1\n1 2\n3 4\n"
        )),
        stdout(&retro(
            &["solve", "twins", "--rows", "2", "--cols", "3"],
            "5 7 1 1 2 3 4"
        )),
    );
}

#[test]
fn a_twins_file_given_to_young_is_named_as_one() {
    let err = fails(
        &retro(&["solve", "young", &shipped("twins-sample1.txt")], ""),
        2,
        "looks like a twins board",
    );
    assert!(!err.contains("board size"), "{err}");
    assert!(err.contains("3 x 3"), "{err}");
    let generated = stdout(&retro(&["gen", "twins", "4x4"], ""));
    let err = fails(
        &retro(&["solve", "young"], &generated),
        2,
        "looks like a twins board (24 numbers",
    );
    assert!(err.contains("expected `n m` then 2*n*m weights"), "{err}");
    // A young board that is merely short keeps its own message.
    fails(
        &retro(&["solve", "young"], "2 3\n2 7 3\n9 1 2\n3 7 2\n2 3"),
        2,
        "missing numbers",
    );
}

fn young(text: &str) -> Young {
    let board = retro::Builtin::parse("young", text).unwrap();
    Young::new(board.get::<Young>().unwrap().clone()).unwrap()
}

fn twins(text: &str) -> Twins {
    let board = retro::Builtin::parse("twins", text).unwrap();
    Twins::new(board.get::<Twins>().unwrap().clone()).unwrap()
}

fn position_error<G: Gameplay>(game: &G, text: &str) -> String {
    match game.parse_position(text) {
        Ok(pos) => panic!("{text:?} parsed as {}", game.format_position(&pos)),
        Err(e) => e.to_string(),
    }
}

#[test]
fn young_shorthands_mean_the_full_form() {
    let y = young(&random_board("young", 4, 3, 5, 9).to_input());
    let same = |short: &str, full: &str| {
        let (a, b) = (
            y.parse_position(short).unwrap(),
            y.parse_position(full).unwrap(),
        );
        assert_eq!((y.layer_of(&a), y.rank(&a)), (y.layer_of(&b), y.rank(&b)));
        assert_eq!(y.format_position(&a), full);
    };
    same("empty", "0,0,0,0");
    same(" EMPTY ", "0,0,0,0");
    same("3,1", "3,1,0,0");
    same("2", "2,0,0,0");
    same("3,3,1,0", "3,3,1,0");

    let t = twins(&std::fs::read_to_string(shipped("twins-sample1.txt")).unwrap());
    let (a, b) = (
        t.parse_position("empty").unwrap(),
        t.parse_position(".../.../...").unwrap(),
    );
    assert_eq!((t.layer_of(&a), t.rank(&a)), (t.layer_of(&b), t.rank(&b)));

    // Through the binary: the short and the full form answer alike.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("y.retro");
    let built = retro(
        &[
            "build",
            "young",
            &shipped("young-sample.txt"),
            "-o",
            table.to_str().unwrap(),
            "--quiet",
        ],
        "",
    );
    assert_eq!(built.status.code(), Some(0));
    let query = |pos: &str| stdout(&retro(&["query", table.to_str().unwrap(), pos], ""));
    assert_eq!(query("empty"), query("0,0"));
    assert_eq!(query("2"), query("2,0"));
    assert!(query("empty").contains("value     2 "));
}

#[test]
fn position_errors_show_the_expected_form() {
    let y = young(&std::fs::read_to_string(shipped("young-10x10.txt")).unwrap());
    let err = position_error(&y, "1,2");
    assert!(
        err.contains(
            "young 10 x 10 positions look like 3,1,0,0,0,0,0,0,0,0 \
             (row lengths, non-increasing, each at most 10"
        ),
        "{err}"
    );
    assert!(err.contains("longer than the row above"), "{err}");
    let err = position_error(&y, "o.x/.o./...");
    assert!(
        err.contains("this is a young table; \"o.x/.o./...\" looks like a twins position"),
        "{err}"
    );
    let err = position_error(&y, &["1"; 11].join(","));
    assert!(err.contains("at most 10 comma-separated"), "{err}");
    assert!(position_error(&y, "").contains("no position given"));

    let t = twins(&std::fs::read_to_string(shipped("twins-sample2.txt")).unwrap());
    let err = position_error(&t, "3,1,0");
    assert!(
        err.contains("this is a twins table; \"3,1,0\" looks like a young position"),
        "{err}"
    );
    assert!(
        err.contains(
            "twins 3 x 3 positions look like o.x/.o./... (rows of o, x, . separated by /)"
        ),
        "{err}"
    );
    assert!(position_error(&t, "o../...").contains("expected 3 rows"));

    // The example fits the table's own board and is a legal position of it.
    for (r, c) in [(1, 1), (1, 2), (2, 2), (2, 4), (4, 2), (4, 4)] {
        let game: Twins = retro::testing::random_game(r, c, 3, 9).unwrap();
        let err = position_error(&game, "?");
        let example = err
            .split("positions look like ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap();
        let pos = game.parse_position(example).unwrap();
        assert_eq!(game.format_position(&pos), example, "{r} x {c}");
    }

    // Through the binary, on one line.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    retro(
        &[
            "build",
            "twins",
            &shipped("twins-sample1.txt"),
            "-o",
            table.to_str().unwrap(),
            "--quiet",
        ],
        "",
    );
    fails(
        &retro(&["query", table.to_str().unwrap(), "3,1,0"], ""),
        2,
        "this is a twins table",
    );
}

#[test]
fn both_games_draw_cells_one_space_apart() {
    let y = young(&std::fs::read_to_string(shipped("young-sample.txt")).unwrap());
    let pos = y.parse_position("2").unwrap();
    assert_eq!(y.draw(&pos), "# # +\n+ . .\n");
    let t = twins(&std::fs::read_to_string(shipped("twins-sample1.txt")).unwrap());
    let pos = t.parse_position("o.x/.o./...").unwrap();
    assert_eq!(t.draw(&pos), "o . x\n. o .\n. . .\n");
}

/// An option given twice or contradicted in a board's words is refused in one line, in
/// every game that reads its board from words, never settled by the last word.
#[test]
fn board_words_given_twice_or_contradicted_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("t.retro");
    let out = out.to_str().expect("utf-8");
    for (game, board, says) in [
        (
            "morris",
            "nine flying no-flying",
            "say flying or no-flying once",
        ),
        (
            "morris",
            "six no-flying flying",
            "say flying or no-flying once",
        ),
        ("morris", "six stones=3 stones=4", "give stones=N once"),
        ("morris", "six moving moving", "moving given twice"),
        (
            "morris",
            "twelve diagonals diagonals",
            "diagonals given twice",
        ),
        ("teeko", "5x5 advanced advanced", "advanced given twice"),
        (
            "teeko",
            "no-centre-first no-center-first",
            "no-centre-first given twice",
        ),
        ("teeko", "5x5 4x4", "give the size once"),
        ("mnk", "4x4k3 4x4k4", "bad mnk board"),
        ("connect", "7x6 6x5", "bad connect board"),
        ("quixo", "4x4 5x5", "bad quixo board"),
    ] {
        crate::common::fails(
            &crate::common::retro(&["build", game, board, "-q", "-o", out], ""),
            2,
            says,
        );
        assert!(!std::path::Path::new(out).exists());
    }
}

/// One rule for default table names: `tables/<game>-<label>.retro`, with a hash of the
/// input after the label only where the label does not name the whole board (the weights
/// of young and twins). Every board given in its game's words reads back from its label.
#[test]
fn boards_given_in_words_are_named_by_their_label_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (game, board, name) in [
        ("morris", "nine stones=3", "morris-nine-stones=3"),
        ("morris", "six stones=3 no-flying", "morris-six-stones=3"),
        (
            "morris",
            "nine stones=3 no-flying",
            "morris-nine-stones=3-no-flying",
        ),
        (
            "morris",
            "six stones=3 moving",
            "morris-six-stones=3-moving",
        ),
        ("teeko", "3x3s2 advanced", "teeko-3x3s2-advanced"),
        ("quixo", "3x3", "quixo-3x3"),
        ("mnk", "3x3k3", "mnk-3x3k3"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(["build", game, board, "-q", "--json"])
            .current_dir(dir.path())
            .output()
            .expect("run");
        let json: serde_json::Value =
            serde_json::from_str(&crate::common::ok_silent(&out)).expect("json");
        assert_eq!(
            json["table"],
            format!("tables/{name}.retro"),
            "{game} {board}"
        );
    }
}
