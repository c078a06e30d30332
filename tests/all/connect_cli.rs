//! connect through the commands people use: moves are columns in `query` (text, `--pv`,
//! `--json`, `--batch`), in `play` (typed as one column number, shown under numbered
//! columns), in `export` and in `serve`; `info`, `build` and `serve` name the board by its
//! label (`4x4k4`, width first).

use crate::common;
use crate::support::browser as browser_support;
use crate::support::server;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fails, ok_silent, retro};
use serde_json::Value;

/// A 4 x 4 connect table (K 4 by default) in `dir`.
fn build(dir: &Path) -> PathBuf {
    let path = dir.join("c.retro");
    ok_silent(&retro(
        &["build", "connect", "-o", path.to_str().unwrap(), "-q"],
        "4x4\n",
    ));
    path
}

fn query(table: &Path, args: &[&str]) -> String {
    let mut all = vec!["query", table.to_str().unwrap()];
    all.extend_from_slice(args);
    ok_silent(&retro(&all, ""))
}

fn query_json(table: &Path, position: &str) -> Value {
    serde_json::from_str(&query(table, &[position, "--json", "--pv"])).unwrap()
}

#[test]
fn query_lists_columns() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    let text = query(&table, &["empty"]);
    assert!(
        text.contains("moves     move     position              result\n"),
        "{text}"
    );
    assert!(
        text.contains("          column 1 ..../..../..../x...   tie  best\n"),
        "{text}"
    );
    assert!(!text.contains("(4,1)"), "{text}");

    // Column 1 full: its move is gone, the others land on the bottom row.
    let text = query(&table, &["o.../x.../o.../x..."]);
    assert!(!text.contains("column 1 "), "{text}");
    assert!(text.contains("column 2 o.../x.../o.../xx.."), "{text}");
}

#[test]
fn json_adds_the_column_beside_the_cell() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    let json = query_json(&table, "..../..../..../x...");
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4);
    for (j, m) in moves.iter().enumerate() {
        assert_eq!(m["column"], j + 1, "{m}");
        assert_eq!(m["cell"][1], j + 1, "{m}");
        // The landing cell: column 1 holds a stone, so o lands on row 3.
        assert_eq!(m["cell"][0], if j == 0 { 3 } else { 4 }, "{m}");
    }
    let pv = json["pv"].as_array().unwrap();
    assert!(!pv.is_empty());
    for step in pv {
        assert_eq!(step["column"], step["cell"][1], "{step}");
    }

    // --batch --json carries it too, and the other games' JSON has no `column`.
    let batch = ok_silent(&retro(
        &["query", table.to_str().unwrap(), "--batch", "--json"],
        "empty\n",
    ));
    let line: Value = serde_json::from_str(batch.trim()).unwrap();
    assert_eq!(line["moves"][2]["column"], 3, "{line}");
    let young = dir.path().join("y.retro");
    let sample = format!("{}/tables/young-sample.txt", env!("CARGO_MANIFEST_DIR"));
    ok_silent(&retro(
        &[
            "build",
            "young",
            &sample,
            "-o",
            young.to_str().unwrap(),
            "-q",
        ],
        "",
    ));
    let text = query(&young, &["empty", "--json", "--pv"]);
    assert!(!text.contains("column"), "{text}");
}

#[test]
fn principal_variation_names_columns() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    let text = query(&table, &["empty", "--pv"]);
    let steps: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "principal variation")
        .skip(1)
        .collect();
    // A tie with best play: the board fills, 16 moves, then the result.
    assert_eq!(steps.len(), 17, "{text}");
    assert!(steps[0].starts_with("    1. first  column "), "{text}");
    assert!(steps[1].starts_with("    2. second column "), "{text}");
    assert!(steps[16].starts_with("  result tie"), "{text}");
}

/// `retro play TABLE extra...` on `script`; it must succeed.
fn play(table: &Path, extra: &[&str], script: &str) -> String {
    let mut args = vec!["play", table.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok_silent(&retro(&args, script))
}

#[test]
fn play_reads_columns_and_numbers_them() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    // Column 1 is full from the start; bad input is refused on one line, then re-asked.
    let script = "help\nhint\n1\n5\n0\n1 2\nfoo\n2\nundo\n2\nquit\n";
    let text = play(&table, &["--from", "o.../x.../o.../x..."], script);
    assert!(
        text.starts_with("\n1 2 3 4\no . . .\nx . . .\no . . .\nx . . .\n"),
        "{text}"
    );
    let prompt = "your move (column, or help): ";
    assert!(
        text.contains(&format!("{prompt}moves: a column number")),
        "{text}"
    );
    assert!(text.contains(&format!("{prompt}hint: best move")), "{text}");
    let legal = "; legal moves: column 2, column 3, column 4\n";
    for refusal in [
        "illegal move \"1\": column 1 is full",
        "illegal move \"5\": the columns are 1 to 4",
        "illegal move \"0\": the columns are 1 to 4",
        "illegal move \"1 2\": a move is one column number",
        "unknown input \"foo\" (type help for commands)",
    ] {
        assert!(
            text.contains(&format!("{prompt}{refusal}{legal}")),
            "{refusal}: {text}"
        );
    }
    assert!(
        text.contains(&format!("{prompt}you play column 2 (")),
        "{text}"
    );
    let reply = text
        .lines()
        .find_map(|l| l.strip_prefix("retro plays column "))
        .expect("a reply");
    let column = reply.split(' ').next().unwrap();
    assert!(
        text.contains(&format!(
            "undo: took back your column 2 and retro's column {column}\n"
        )),
        "{text}"
    );
    assert!(text.contains(&format!("{prompt}quit: ")), "{text}");
    // No row numbers: every drawn row is the cells alone.
    assert!(!text.contains("1  o"), "{text}");
}

#[test]
fn scripted_play_reaches_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    // Cycling through the columns always finds a legal one within four lines.
    let script = "1\n2\n3\n4\n".repeat(20);
    for side in ["first", "second"] {
        let text = play(&table, &["--as", side], &script);
        // The game ends, and the next line of input (not `undo`) leaves at the offer
        // to take a move back.
        let over = text.lines().rev().nth(1).unwrap();
        assert!(over.starts_with("game over: "), "{side}: {text}");
        assert!(
            text.ends_with("undo to take back your last move, anything else to leave: "),
            "{side}: {text}"
        );
        let played =
            text.matches("you play column ").count() + text.matches("retro plays column ").count();
        // Over when the board is full, or earlier with a line of four.
        assert!((7..=16).contains(&played), "{side}: {text}");
    }
}

#[test]
fn info_build_and_serve_name_the_board_width_first_with_k() {
    let dir = tempfile::tempdir().unwrap();
    // From stdin without -o the default name carries the label.
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["build", "connect", "-q", "--json"])
        .current_dir(dir.path())
        .stdin(std::fs::File::open(write(dir.path(), "b.txt", "3x4k3\n")).unwrap())
        .output()
        .unwrap();
    let json: Value = serde_json::from_str(&ok_silent(&out)).unwrap();
    assert_eq!(json["board"], "3x4k3", "{json}");
    let path = json["table"].as_str().unwrap();
    // The label is the whole board: no hash after it (young and twins keep one).
    assert_eq!(path, "tables/connect-3x4k3.retro");
    let table = dir.path().join(path);

    let text = ok_silent(&retro(&["info", table.to_str().unwrap()], ""));
    assert!(
        text.contains("\nboard        3 x 4 (width x height), 3 in a row\n"),
        "{text}"
    );
    let info: Value = serde_json::from_str(&ok_silent(&retro(
        &["info", table.to_str().unwrap(), "--json"],
        "",
    )))
    .unwrap();
    assert_eq!(info["board"], "3x4k3");
    let four = build(dir.path());
    let info: Value = serde_json::from_str(&ok_silent(&retro(
        &["info", four.to_str().unwrap(), "--json"],
        "",
    )))
    .unwrap();
    assert_eq!(info["board"], "4x4k4");

    let server = server::Server::start(std::slice::from_ref(&table), &["--quiet"]);
    let list = server::get(&server.addr, "/api/tables").json();
    assert_eq!(
        list[0]["board_words"], "3 x 4 (width x height), 3 in a row",
        "{list}"
    );
    // Rows and columns as the positions are written: 4 rows of 3.
    assert_eq!(list[0]["rows"], 4, "{list}");
    assert_eq!(list[0]["cols"], 3, "{list}");
    let name = table.file_stem().unwrap().to_str().unwrap();
    let answer = server::get(&server.addr, &format!("/api/{name}/empty")).json();
    assert_eq!(answer["moves"][2]["column"], 3, "{answer}");
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn verify_and_export_take_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    ok_silent(&retro(&["verify", table.to_str().unwrap()], ""));
    let csv = dir.path().join("c.csv");
    ok_silent(&retro(
        &[
            "export",
            table.to_str().unwrap(),
            "--csv",
            "--all",
            "-q",
            "-o",
            csv.to_str().unwrap(),
        ],
        "",
    ));
    // Every position (`--all`), not one row per entry of the folded table.
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("position,stones,to_move,value,best_move,result,remoteness,reachable,best_column")
    );
    assert_eq!(
        lines.next(),
        Some("..../..../..../....,0,first,0,1,tie,16,true,1")
    );
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 201755);
    let (mut ended, mut queried) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 9, "{row:?}");
        let stones: usize = row[1].parse().unwrap();
        if row[4].is_empty() {
            // Nobody moves: a full board, or a line of four already.
            assert_eq!(row[2], "none", "{row:?}");
            ended += usize::from(stones < 16);
        } else {
            let column: usize = row[4].parse().unwrap();
            assert!((1..=4).contains(&column), "{row:?}");
        }
        // A few rows against query (which refuses positions play never reaches): the best
        // move is its first best column.
        if i % 20011 == 0 && row[7] == "true" {
            queried += 1;
            let json = query_json(&table, row[0]);
            assert_eq!(json["to_move"], row[2], "{row:?}");
            let first_best = json["moves"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["code"] == json["code"])
                .map(|m| m["column"].to_string())
                .unwrap_or_default();
            assert_eq!(first_best, row[4], "{row:?}");
        }
    }
    assert!(ended > 0, "no won position exported");
    assert!(queried >= 3, "{queried} rows queried");
}

mod browser {
    //! The explorer on a connect table in headless Chromium (as tests/all/serve.rs drives it):
    //! a click anywhere in a column plays that column.

    use super::browser_support::{
        self as browser_support, connect, screenshot, start_driver, text, wait_for,
    };
    use super::*;
    use fantoccini::{Client, Locator};
    use std::time::Duration;

    async fn click_column(c: &Client, column: usize) {
        let css = format!("rect.column[data-column='{column}']");
        c.wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(&css))
            .await
            .expect(&css)
            .click()
            .await
            .expect(&css);
    }

    #[test]
    fn a_click_anywhere_in_a_column_plays_it() {
        if !browser_support::available() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let table = build(dir.path());
        let server = server::Server::start(&[table], &["--quiet"]);
        let (_driver, port) = start_driver();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let c = connect(port, &dir.path().join("profile")).await;
            let url = |position: &str| server.url(&format!("/c?position={position}"));
            c.goto(&server.url("/c")).await.unwrap();
            wait_for("the value", || async {
                text(&c, "#value").await == "tie with best play"
            })
            .await;
            let first = text(&c, "#moves button").await;
            assert!(first.starts_with("column "), "{first}");
            // The column's rectangle is clicked in its middle, two rows above where the
            // stone lands.
            click_column(&c, 3).await;
            let want = url("..../..../..../..x.");
            wait_for("the first move", || async {
                c.current_url().await.unwrap().as_str() == want
            })
            .await;
            click_column(&c, 3).await;
            let want = url("..../..../..o./..x.");
            wait_for("the second move", || async {
                c.current_url().await.unwrap().as_str() == want
            })
            .await;
            let _ = c.close().await;
        });
    }

    /// The outcome classes of the move buttons, in the order listed.
    async fn outcomes(c: &Client) -> Vec<String> {
        let mut all = Vec::new();
        for b in c.find_all(Locator::Css("#moves button")).await.unwrap() {
            all.push(b.attr("data-outcome").await.unwrap().unwrap_or_default());
        }
        all
    }

    /// Moves are coloured and worded by what they do for the mover, on positions whose
    /// results are known: every first move of 4 x 4 with three in a row wins for x; on
    /// connect 5 x 4 at `...../...../..o../.xx..` only column 4 wins for o (two columns
    /// tie, two lose). A move is played, undone, a position typed, and a finished board
    /// shows its winning line.
    #[test]
    fn moves_say_who_wins_and_the_page_keeps_a_history() {
        if !browser_support::available() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let mnk = dir.path().join("m443.retro");
        let four = dir.path().join("c54.retro");
        for (game, board, path) in [("mnk", "4x4k3", &mnk), ("connect", "5x4", &four)] {
            ok_silent(&retro(
                &["build", game, board, "-o", path.to_str().unwrap(), "-q"],
                "",
            ));
        }
        let server = server::Server::start(&[mnk, four], &["--quiet"]);
        let (_driver, port) = start_driver();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let c = connect(port, &dir.path().join("profile")).await;
            // 4 x 4, K 3: all sixteen first moves win for x, on the list and the board.
            c.goto(&server.url("/m443")).await.unwrap();
            wait_for("sixteen moves", || async {
                c.find_all(Locator::Css("#moves button"))
                    .await
                    .unwrap()
                    .len()
                    == 16
            })
            .await;
            assert_eq!(outcomes(&c).await, vec!["win"; 16]);
            let first = text(&c, "#moves button").await;
            assert!(
                first.contains("win in 5") && first.ends_with("★ best"),
                "{first}"
            );
            let cells = c.find_all(Locator::Css("rect.legal.win")).await.unwrap();
            assert_eq!(cells.len(), 16);
            screenshot(&c, "explorer-mnk.png").await;

            // Play a move from the list, then undo it.
            let url =
                |table: &str, position: &str| server.url(&format!("/{table}?position={position}"));
            c.find(Locator::Css("#moves button[data-cell='1,2']"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            let played = url("m443", ".x../..../..../....");
            wait_for("the move", || async {
                c.current_url().await.unwrap().as_str() == played
            })
            .await;
            wait_for("the history", || async {
                text(&c, "#history li:last-child button").await == "1,2"
            })
            .await;
            // The value history: each step shows the value of the position it led to, in
            // the words the page gives that position's value.
            let shown = text(&c, "#value").await;
            assert!(!shown.is_empty());
            assert_eq!(text(&c, "#history li:last-child .value").await, shown);
            let first = text(&c, "#history li:first-child .value").await;
            assert!(!first.is_empty());
            c.find(Locator::Id("undo"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            let start = server.url("/m443");
            wait_for("the undo", || async {
                c.current_url().await.unwrap().as_str() == start
                    && c.find_all(Locator::Css("#history li")).await.unwrap().len() == 1
            })
            .await;
            assert_eq!(text(&c, "#value").await, first);

            // A finished board: who won, and the winning line marked.
            let input = c.find(Locator::Id("position-input")).await.unwrap();
            input.clear().await.unwrap();
            input.send_keys("xxx./oo../..../....").await.unwrap();
            c.find(Locator::Css("#position-form button"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            wait_for("the typed position", || async {
                text(&c, "#to-move").await == "game over: x has won"
            })
            .await;
            assert_eq!(c.find_all(Locator::Css("rect.won")).await.unwrap().len(), 3);

            // Connect 5 x 4: one winning column, two ties, two losses, each in words.
            c.goto(&url("c54", "...../...../..o../.xx.."))
                .await
                .unwrap();
            wait_for("five moves", || async {
                c.find_all(Locator::Css("#moves button"))
                    .await
                    .unwrap()
                    .len()
                    == 5
            })
            .await;
            let mut seen = outcomes(&c).await;
            seen.sort();
            assert_eq!(seen, ["loss", "loss", "tie", "tie", "win"]);
            let best = text(&c, "#moves li.best button").await;
            assert!(
                best.starts_with("column 4 ") && best.contains("win in 17"),
                "{best}"
            );
            let tie = text(&c, "#moves button[data-outcome='tie']").await;
            assert!(tie.ends_with(" tie"), "{tie}");
            let loss = text(&c, "#moves button[data-outcome='loss']").await;
            assert!(loss.contains("loss in 4"), "{loss}");
            screenshot(&c, "explorer-connect.png").await;
            let _ = c.close().await;
        });
    }
}

/// A board whose input is only its size may stand where the file goes; a bare word that
/// is neither a file nor a board says both.
#[test]
fn a_size_stands_in_for_the_board_file() {
    assert_eq!(
        ok_silent(&retro(&["solve", "connect", "4x4k3"], "")),
        "x completes a line at ply 9, x's 5th stone\n"
    );
    assert_eq!(
        ok_silent(&retro(&["solve", "mnk", "3x3"], "")),
        "tie with best play\n"
    );
    // gen and plan read the game's own size notation, K included.
    assert_eq!(
        ok_silent(&retro(&["gen", "connect", "4x4k3"], "")),
        "4x4k3\n"
    );
    let plan = ok_silent(&retro(
        &["plan", "connect", "4x4k3", "--ranks", "2", "--total"],
        "",
    ));
    assert!(
        plan.starts_with("plan: connect 4x4k3, 112861 entries for 201755 positions"),
        "{plan}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.retro");
    let out = ok_silent(&retro(
        &[
            "build",
            "connect",
            "5x4",
            "-o",
            path.to_str().unwrap(),
            "-q",
        ],
        "",
    ));
    assert!(out.contains("5621939 positions"), "{out}");
    assert!(out.contains("root value tie with best play"), "{out}");
    let bad = retro(&["solve", "connect", "9x9"], "");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.starts_with("error: 9x9: no such file, nor a connect board (connect board 9 x 9")
            && err.lines().count() == 1,
        "{err}"
    );
}

/// A position may be the columns played from the empty board (`4455`), as Connect Four
/// solvers write them: the same position as its grid, and refusals naming the move.
#[test]
fn a_position_can_be_the_columns_played() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    let by_columns = query_json(&table, "2232");
    let by_grid = query_json(&table, "..../.o../.o../.xx.");
    assert_eq!(by_columns, by_grid);
    assert_eq!(by_columns["position"], "..../.o../.o../.xx.");
    // Every sequence of legal drops reads as the position play reaches.
    for seq in ["1", "12", "4321", "12341234", "21432143"] {
        let j = query_json(&table, seq);
        assert_eq!(j["stones"], seq.len(), "{seq}");
    }
    let t = table.to_str().unwrap();
    for (seq, why) in [
        ("11111", "move 5 is column 1, which is full"),
        ("15", "move 2 is column 5; the columns are 1 to 4"),
        ("1212121", ""),
        (
            "12121212",
            "the game is over after move 7 (a line of 4), before column 2",
        ),
    ] {
        let out = retro(&["query", t, seq], "");
        if why.is_empty() {
            assert!(out.status.success(), "{seq}: {out:?}");
        } else {
            fails(&out, 2, why);
        }
    }
}

/// A line of play from the start may be the columns played (`332`, 1-based as `play`
/// numbers them), alone or after `start`, or `start` and the moves as `play` reads and
/// writes them (`3`, `column 3`, `col 3`): every form reaches the position typed as its
/// grid, and `--line` shows the same plies for each.
#[test]
fn a_line_may_be_the_columns_played_or_plays_words() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(dir.path());
    let grid = query_json(&table, "..../..../..o./.xx.");
    let forms = [
        "332",
        "start 332",
        "start 3 3 2",
        "start column 3 column 3 column 2",
        "START Col 3 col 3 COLUMN 2",
        "start column3 3 col2",
    ];
    for form in forms {
        assert_eq!(query_json(&table, form), grid, "{form}");
    }
    let line = |form: &str| query(&table, &[form, "--line"]);
    let by_digits = line("332");
    assert!(
        by_digits.contains("3. first  column 2  -> ..../..../..o./.xx."),
        "{by_digits}"
    );
    for form in forms {
        assert_eq!(line(form), by_digits, "{form}");
    }
    let json = |form: &str| -> Value {
        serde_json::from_str(&query(&table, &[form, "--line", "--json"])).unwrap()
    };
    let plies = json("332")["line"].clone();
    assert_eq!(plies.as_array().map(Vec::len), Some(4), "{plies}");
    assert_eq!(json("start column 3 column 3 column 2")["line"], plies);
    // A bad digit list, or a move word that names no column, is one line naming the move.
    let t = table.to_str().unwrap();
    fails(
        &retro(&["query", t, "335", "--line"], ""),
        2,
        "move 3 is column 5; the columns are 1 to 4",
    );
    fails(
        &retro(&["query", t, "start 3 3 5", "--line"], ""),
        2,
        "move 3 (\"5\") is not legal",
    );
    fails(
        &retro(&["query", t, "start column 3 column", "--line"], ""),
        2,
        "move 2 (\"column\") is not legal",
    );
}
