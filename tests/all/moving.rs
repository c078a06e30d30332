//! Teeko and Quixo through the commands: tables built, resumed and verified, answers in
//! words, moves between cells in one notation, the refusals. Their values themselves are
//! checked against brute forces in `teeko.rs` and `quixo.rs`; here the command line must
//! say what the solver found.

use crate::common;
use crate::support::browser as browser_support;
use crate::support::server;

use std::path::{Path, PathBuf};

use common::{fails, ok, retro};
use serde_json::Value;

fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retro-moving-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A table of every position (`--no-fold`): these tests read positions and counts as the
/// rules list them; `tests/symmetry.rs` checks that folded tables answer the same.
fn build(game: &str, board: &str, table: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "build",
        game,
        "-o",
        table.to_str().unwrap(),
        "-q",
        "--no-fold",
    ];
    args.extend_from_slice(extra);
    ok(&retro(&args, board))
}

fn json(table: &Path, position: &str) -> Value {
    let out = ok(&retro(
        &["query", table.to_str().unwrap(), position, "--json", "--pv"],
        "",
    ));
    serde_json::from_str(&out).unwrap()
}

#[test]
fn quixo_3x3_table_answers_in_words_and_verifies() {
    let d = dir("q3");
    let t = d.join("q3.retro");
    build("quixo", "3x3", &t, &[]);
    let info: Value =
        serde_json::from_str(&ok(&retro(&["info", t.to_str().unwrap(), "--json"], ""))).unwrap();
    assert_eq!(info["game"], "quixo");
    assert_eq!(info["positions"], 2 * 3u64.pow(9));
    // The largest remoteness of 3 x 3 fits in a byte: the table is narrowed to i8.
    assert_eq!(info["value_type"], "i8");

    let a = json(&t, "empty");
    assert_eq!(a["result"], "win");
    assert_eq!(a["remoteness"], 7);
    assert_eq!(a["to_move"], "first");
    // Every move names the cube taken and the end it goes in at, as it is written.
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(
        moves.len(),
        20,
        "8 border cubes: 4 corners x 2 + 4 edges x 3"
    );
    for m in moves {
        let text = m["move"].as_str().unwrap();
        let from = m["from"].as_array().unwrap();
        let cell = m["cell"].as_array().unwrap();
        assert_eq!(
            text,
            format!("{},{}-{},{}", from[0], from[1], cell[0], cell[1])
        );
    }
    // The best line is a forced win: 7 plies, ending where x has a line.
    let pv = a["pv"].as_array().unwrap();
    assert_eq!(pv.len(), 7);
    let last = pv.last().unwrap()["position"].as_str().unwrap();
    let end = json(&t, last);
    assert_eq!(end["to_move"], "none");
    assert_eq!(end["result"], "loss");
    assert_eq!(end["remoteness"], 0);

    let text = ok(&retro(&["query", t.to_str().unwrap(), "empty"], ""));
    assert!(text.contains("x to move wins in 7"), "{text}");

    let v = ok(&retro(&["verify", t.to_str().unwrap()], ""));
    assert!(v.contains("39366 positions checked"), "{v}");
    let v = ok(&retro(
        &["verify", t.to_str().unwrap(), "--sample", "2000"],
        "",
    ));
    assert!(v.contains("2000"), "{v}");
}

#[test]
fn verify_finds_a_changed_value_in_a_loop_layer() {
    let d = dir("damaged");
    let t = d.join("q3.retro");
    build("quixo", "3x3", &t, &[]);
    // A plain table's values are raw bytes: change the last one (layer 9, o to move,
    // every cube marked) to a draw or, if it was one, to a loss. The checksums would
    // catch that too, so recompute nothing and ask verify to re-derive the values.
    let mut bytes = std::fs::read(&t).unwrap();
    let n = bytes.len();
    bytes[n - 1] = if bytes[n - 1] == 0 { 0xff } else { 0 };
    std::fs::write(&t, &bytes).unwrap();
    let out = retro(&["verify", t.to_str().unwrap()], "");
    assert!(!out.status.success(), "a damaged table must not verify");
}

#[test]
fn teeko_positions_moves_and_refusals() {
    let d = dir("t3");
    let t = d.join("t.retro");
    build("teeko", "3x3s2", &t, &[]);
    let ts = t.to_str().unwrap();
    // All stones down: the side to move is needed, and named after the grid.
    fails(&retro(&["query", ts, "x.o/.../ox."], ""), 2, "add :x or :o");
    let a = json(&t, "x.o/.../ox.:o");
    assert_eq!(a["position"], "x.o/.../ox.:o");
    assert_eq!(a["to_move"], "second");
    for m in a["moves"].as_array().unwrap() {
        // Slides only: from an o to a neighbouring empty cell.
        assert!(m["from"].is_array(), "{m}");
    }
    // Upper case reads as lower case; a side that the stone count contradicts is refused.
    let upper = json(&t, "XO./.../...");
    assert_eq!(upper["position"], "xo./.../...");
    fails(
        &retro(&["query", ts, "xo./.../...:o"], ""),
        2,
        "x is to move",
    );
    // Both players with a line of 2 cannot arise.
    fails(
        &retro(&["query", ts, "xx./oo./...:x"], ""),
        2,
        "cannot arise",
    );
    fails(
        &retro(&["query", ts, "xx./o../o..:o"], ""),
        2,
        "cannot arise",
    );

    // Export writes every position with its best move in the same notation.
    let csv = d.join("t.csv");
    ok(&retro(
        &["export", ts, "--csv", "-o", csv.to_str().unwrap(), "-q"],
        "",
    ));
    let text = std::fs::read_to_string(&csv).unwrap();
    let info: Value = serde_json::from_str(&ok(&retro(&["info", ts, "--json"], ""))).unwrap();
    assert_eq!(
        text.lines().count() as u64,
        info["positions"].as_u64().unwrap() + 1
    );
    let slides = text
        .lines()
        .filter(|l| l.contains(":x,") || l.contains(":o,"))
        .filter(|l| l.contains('-'))
        .count();
    assert!(
        slides > 0,
        "positions of the last layer have slides as best moves"
    );

    // A draw's principal variation stops when it comes back to a position: on 4 x 4 with
    // 3 stones, the first drawn position of the last layer.
    let t43 = d.join("t43.retro");
    build("teeko", "4x4s3", &t43, &[]);
    let csv = d.join("t43.csv");
    ok(&retro(
        &[
            "export",
            t43.to_str().unwrap(),
            "--csv",
            "-o",
            csv.to_str().unwrap(),
            "-q",
        ],
        "",
    ));
    let text = std::fs::read_to_string(&csv).unwrap();
    let drawn = text
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[1] == "6" && f[3] == "0")
        .map(|f| f[0].to_string())
        .expect("4 x 4 Teeko with 3 stones has drawn positions");
    let a = json(&t43, &drawn);
    assert_eq!(a["result"], "draw");
    let pv: Vec<&str> = a["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["position"].as_str().unwrap())
        .collect();
    let last = pv.last().expect("a drawn position has moves");
    assert!(
        pv[..pv.len() - 1].contains(last) || *last == drawn,
        "the line ends where it comes back: {pv:?}"
    );
    // Its last step says which ply it repeats (0: the start), and so does the text.
    let end = a["pv"].as_array().unwrap().last().unwrap().clone();
    let earlier = end["repeats"]
        .as_u64()
        .expect("the last step names the ply") as usize;
    let repeated = match earlier {
        0 => drawn.as_str(),
        e => pv[e - 1],
    };
    assert_eq!(repeated, *last, "{end}");
    let note = format!(
        "the position after ply {} repeats {}: a draw",
        pv.len(),
        match earlier {
            0 => "the start".to_string(),
            e => format!("ply {e}"),
        }
    );
    assert_eq!(end["note"], note.as_str());
    // A line that ends in a win names no repeat.
    let won = json(&t43, "x.x./o.o./..../x.o.:x");
    assert!(
        won["pv"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s.get("note").is_none()),
        "{won}"
    );
    let words = ok(&retro(
        &["query", t43.to_str().unwrap(), &drawn, "--pv"],
        "",
    ));
    assert!(words.contains(&format!("  {note}\n")), "{words}");
    assert!(
        words.contains("draw: neither side can force a win"),
        "{words}"
    );
}

#[test]
fn standard_teeko_4x4_with_3_stones_plays_by_its_notation() {
    let d = dir("play");
    let t = d.join("t.retro");
    build("teeko", "4x4s3", &t, &[]);
    let ts = t.to_str().unwrap();
    // Drops are `r,c`; a slide is typed as printed, or with spaces.
    let a = json(&t, "xx../oo../...x/..o.:o");
    let slide = a["best"][0].as_str().unwrap().to_string();
    let out = ok(&retro(
        &[
            "play",
            ts,
            "--as",
            "second",
            "--from",
            "xx../oo../...x/..o.:o",
        ],
        &format!("{slide}\nquit\n"),
    ));
    assert!(out.contains(&format!("you play {slide}")), "{out}");
    let spaced = slide.replace([',', '-'], " ");
    let out = ok(&retro(
        &[
            "play",
            ts,
            "--as",
            "second",
            "--from",
            "xx../oo../...x/..o.:o",
        ],
        &format!("{spaced}\nquit\n"),
    ));
    assert!(out.contains(&format!("you play {slide}")), "{out}");
}

#[test]
fn an_interrupted_build_resumes_to_the_same_table() {
    let d = dir("resume");
    let whole = d.join("whole.retro");
    // Folded tables (the default) resume as any other.
    ok(&retro(
        &["build", "quixo", "-o", whole.to_str().unwrap(), "-q"],
        "3x3",
    ));
    let t = d.join("t.retro");
    let ts = t.to_str().unwrap();
    let out = retro(
        &["build", "quixo", "-o", ts, "-q", "--stop-after-layer", "5"],
        "3x3",
    );
    assert!(!out.status.success());
    assert!(
        !t.exists(),
        "a stopped build leaves no table under its name"
    );
    let out = ok(&retro(&["build", "quixo", "-o", ts], "3x3"));
    assert!(
        out.contains("resumed") || out.contains("below layer 5"),
        "{out}"
    );
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&whole).unwrap());
}

#[test]
fn moves_tables_and_mpi_plans_say_what_they_cannot_do() {
    let d = dir("refuse");
    let t = d.join("t.retro");
    let out = retro(
        &["build", "quixo", "-o", t.to_str().unwrap(), "--moves", "2"],
        "3x3",
    );
    fails(&out, 2, "cannot store best moves");
    let plan = ok(&retro(
        &["plan", "quixo", "5x5", "--ranks", "64", "--total"],
        "",
    ));
    // Folded: 16 symmetries, a little over 1/16 of the 1,694,577,218,886 positions
    // (Burnside's count; `game::symmetry`'s tests check it against the orbit tables).
    assert!(
        plan.contains("105918450471 entries for 1694577218886 positions"),
        "{plan}"
    );
    // Layers solved to a fixpoint exchange children's values and updates between ranks.
    let total = plan.lines().last().unwrap_or_default();
    assert!(
        total.starts_with("total: ") && !total.contains("recv 0 B"),
        "{plan}"
    );
    // One plan for every game: each layer names its worker and what a rank exchanges.
    let plan = ok(&retro(
        &["plan", "teeko", "5x5", "--ranks", "4", "--no-fold"],
        "",
    ));
    let row = |k: &str| {
        plan.lines()
            .find(|l| l.split_whitespace().next() == Some(k))
            .unwrap_or_else(|| panic!("no layer {k}: {plan}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(&row("8")[..3], ["8", "fixpoint", "151420500"], "{plan}");
    assert_eq!(
        &row("7")[..4],
        ["7", "pass", "16824500", "4206592"],
        "{plan}"
    );
    assert_ne!(row("7")[4], "0", "{plan}");
    assert_ne!(row("7")[4], "-", "{plan}");
    let plan = ok(&retro(&["plan", "mnk", "3x3k3", "--ranks", "2"], ""));
    assert!(
        plan.lines()
            .any(|l| l.split_whitespace().nth(1) == Some("sweep")),
        "{plan}"
    );
}

/// The explorer on a Quixo table in headless Chromium: a move between cells is a click on
/// the cube to take, then one on the end it goes back in at; the API answers the same
/// position in JSON.
#[test]
fn the_explorer_plays_a_push_by_two_clicks() {
    use browser_support::{connect, start_driver, text, wait_for};
    use fantoccini::Locator;
    use std::time::Duration;

    let d = dir("explorer");
    let t = d.join("q.retro");
    build("quixo", "3x3", &t, &[]);
    let server = server::Server::start(std::slice::from_ref(&t), &["--quiet"]);
    let api = server::get(&server.addr, "/api/q/..x%2F...%2F...%3Ao").json();
    assert_eq!(api["position"], "..x/.../...:o");
    assert_eq!(api["to_move"], "second");
    if !browser_support::available() {
        return;
    }
    let (_driver, port) = start_driver();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let c = connect(port, &d.join("profile")).await;
        c.goto(&server.url("/q")).await.unwrap();
        wait_for("the value", || async {
            text(&c, "#value").await == "wins in 7"
        })
        .await;
        let click = |cell: &'static str| {
            let c = &c;
            async move {
                let css = format!("rect.legal[data-cell='{cell}']");
                c.wait()
                    .at_most(Duration::from_secs(20))
                    .for_element(Locator::Css(&css))
                    .await
                    .expect(&css)
                    .click()
                    .await
                    .expect(&css);
            }
        };
        // The top-left cube, then the top-right end of its row.
        click("1,1").await;
        wait_for("the cube to be chosen", || async {
            text(&c, "#to-move").await.contains("from 1,1")
        })
        .await;
        click("1,3").await;
        let want = server.url("/q?position=..x/.../...%3Ao");
        wait_for("the push", || async {
            c.current_url().await.unwrap().as_str() == want
        })
        .await;
        let _ = c.close().await;
    });
}

/// The explorer on Teeko: it says how to move before the first click, why a stone that
/// cannot move does not, labels rows and columns, marks the stones that have a best move,
/// names the winner of a finished game, and keeps a bad position from the URL in the box
/// with the error beside it.
#[test]
fn the_explorer_says_how_to_move_and_why_a_stone_cannot() {
    use browser_support::{connect, start_driver, text, wait_for};
    use fantoccini::Locator;

    let d = dir("explorer-teeko");
    let t = d.join("t.retro");
    build("teeko", "4x4s3", &t, &[]);
    let server = server::Server::start(std::slice::from_ref(&t), &["--quiet"]);
    if !browser_support::available() {
        return;
    }
    let (_driver, port) = start_driver();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let c = connect(port, &d.join("profile")).await;
        // All six stones down, x to move.
        c.goto(&server.url("/t?position=xo../o.x./..../.x.o%3Ax"))
            .await
            .unwrap();
        wait_for("the value", || async {
            !text(&c, "#value").await.is_empty()
        })
        .await;
        let legend = text(&c, "#legend").await;
        assert!(
            legend.contains("Click one of your stones, then an empty cell beside it"),
            "{legend}"
        );
        let count = |css: &'static str| {
            let c = &c;
            async move { c.find_all(Locator::Css(css)).await.unwrap().len() }
        };
        assert_eq!(count("svg text.label-row").await, 4);
        assert_eq!(count("svg text.label-col").await, 4);
        assert!(count("svg rect.has-best").await >= 1);
        assert!(count("svg text.best-mark").await >= 1);
        // o's stone at 1,2 cannot start x's move.
        c.find(Locator::Css("svg rect.cell:nth-of-type(2)"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for("the reason", || async {
            text(&c, "#legend").await == "1,2 is not one of your stones: you play x."
        })
        .await;
        // A finished game names its winner.
        c.goto(&server.url("/t?position=xxx./oo../..../...."))
            .await
            .unwrap();
        wait_for("the winner", || async {
            text(&c, "#value").await == "x has won"
        })
        .await;
        assert_eq!(text(&c, "#to-move").await, "game over: x has won");
        // A bad position in the URL stays in the box, its error beside it.
        c.goto(&server.url("/t?position=zzz")).await.unwrap();
        wait_for("the error", || async {
            text(&c, "#position-error")
                .await
                .contains("bad position \"zzz\"")
        })
        .await;
        let typed = c
            .find(Locator::Css("#position-input"))
            .await
            .unwrap()
            .prop("value")
            .await
            .unwrap();
        assert_eq!(typed.as_deref(), Some("zzz"));
        let _ = c.close().await;
    });
}

/// Parquet holds what CSV holds, the result and remoteness columns and the moves between
/// cells included: each Parquet row, written as a CSV line, is that CSV line.
#[cfg(feature = "parquet")]
#[test]
fn parquet_rows_are_the_csv_rows() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    let d = dir("parquet");
    let t = d.join("q.retro");
    build("quixo", "3x3", &t, &[]);
    let (csv, pq) = (d.join("q.csv"), d.join("q.parquet"));
    for (flag, out) in [("--csv", &csv), ("--parquet", &pq)] {
        ok(&retro(
            &[
                "export",
                t.to_str().unwrap(),
                flag,
                "-o",
                out.to_str().unwrap(),
                "-q",
            ],
            "",
        ));
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "position,stones,to_move,value_to_move,best_move,result,remoteness,reachable,\
             best_from_row,best_from_col,best_row,best_col"
        )
    );
    let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
    let mut rows = 0;
    for (row, line) in reader.get_row_iter(None).unwrap().zip(lines) {
        let row = row.unwrap();
        let best = row.get_string(4).cloned().unwrap_or_default();
        let best = if best.contains(',') {
            format!("\"{best}\"")
        } else {
            best
        };
        let number = |i| row.get_int(i).map(|n| n.to_string()).unwrap_or_default();
        let written = format!(
            "{},{},{},{},{best},{},{},{},{},{},{},{}",
            row.get_string(0).unwrap(),
            row.get_int(1).unwrap(),
            row.get_string(2).unwrap(),
            row.get_long(3).unwrap(),
            row.get_string(5).unwrap(),
            row.get_int(6).unwrap(),
            row.get_bool(7).unwrap(),
            number(8),
            number(9),
            number(10),
            number(11),
        );
        assert_eq!(written, line);
        rows += 1;
    }
    assert_eq!(rows, 2 * 3u64.pow(9));
}

/// The games whose stones move store a code (r + 1 for a win in r, -(r + 1) for a loss in
/// r, 0 for a draw); every command says the result and the remoteness instead, and shows
/// the code only where it is named. Known values: Quixo 3 x 3 is `x to move wins in 7`
/// (tests/all/quixo.rs checks every position against a brute force), so after any best move o
/// to move loses in 6; Teeko 4 x 4 with 3 stones is `x to move wins in 5`.
#[test]
fn moving_games_say_results_and_remoteness_not_codes() {
    let d = dir("words");
    let q = d.join("q3.retro");
    let qs = q.to_str().unwrap();
    let built = build("quixo", "3x3", &q, &[]);
    assert!(
        built.contains("root value x to move wins in 7 (remoteness 7)"),
        "{built}"
    );

    // The move list: each move's result for the side playing it, in words.
    let text = ok(&retro(&["query", qs, "empty"], ""));
    assert!(
        text.contains("moves     move     position              result\n"),
        "{text}"
    );
    let moves: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("moves"))
        .skip(1)
        .collect();
    assert_eq!(moves.len(), 20, "{text}");
    for line in &moves {
        assert!(line.ends_with("win in 7  best"), "{line}");
        assert!(!line.contains(" 8 "), "a code in the move list: {line}");
    }
    let text = ok(&retro(&["query", qs, "..x/.../...:o"], ""));
    assert!(
        text.contains("value     o to move loses in 6 (remoteness 6)"),
        "{text}"
    );

    // --batch: words, and the stored codes only when asked for.
    let input = "empty\n..x/.../...:o\n";
    assert_eq!(
        ok(&retro(&["query", qs, "--batch"], input)),
        "win in 7\nloss in 6\n"
    );
    assert_eq!(
        ok(&retro(&["query", qs, "--batch", "--codes"], input)),
        "8\n-7\n"
    );
    fails(&retro(&["query", qs, "empty", "--codes"], ""), 2, "--batch");

    // JSON: result and remoteness, the code named as one, no `value`; per move too.
    let a = json(&q, "empty");
    assert_eq!(
        (&a["result"], &a["remoteness"], &a["code"]),
        (&"win".into(), &7.into(), &8.into())
    );
    assert!(a.get("value").is_none(), "{a}");
    for m in a["moves"].as_array().unwrap() {
        assert_eq!(
            (&m["result"], &m["remoteness"], &m["code"]),
            (&"win".into(), &7.into(), &8.into()),
            "{m}"
        );
        assert!(m.get("value").is_none(), "{m}");
    }
    let line: Value = serde_json::from_str(&ok(&retro(
        &["query", qs, "--batch", "--json"],
        "..x/.../...:o\n",
    )))
    .unwrap();
    assert_eq!(
        (&line["result"], &line["remoteness"], &line["code"]),
        (&"loss".into(), &6.into(), &(-7).into())
    );
    assert!(line.get("value").is_none(), "{line}");

    // info and build --json: the root's result and remoteness, its code as `root_code`.
    for object in [
        ok(&retro(&["info", qs, "--json"], "")),
        ok(&retro(
            &["build", "quixo", "3x3", "-o", qs, "-q", "--json", "--fresh"],
            "",
        )),
    ] {
        let object: Value = serde_json::from_str(&object).unwrap();
        assert_eq!(
            (
                &object["root_result"],
                &object["root_remoteness"],
                &object["root_code"]
            ),
            (&"win".into(), &7.into(), &8.into()),
            "{object}"
        );
        assert!(object.get("root_value").is_none(), "{object}");
    }
    let info = ok(&retro(&["info", qs], ""));
    assert!(
        info.contains("root value   x to move wins in 7 (remoteness 7)"),
        "{info}"
    );

    // Teeko: a win in 5 at the root, and a draw in a batch.
    let t = d.join("t43.retro");
    let ts = t.to_str().unwrap();
    let built = build("teeko", "4x4s3", &t, &[]);
    assert!(
        built.contains("root value x to move wins in 5 (remoteness 5)"),
        "{built}"
    );
    assert_eq!(
        ok(&retro(&["solve", "teeko", "4x4s3"], "")),
        "x to move wins in 5 (remoteness 5)\n"
    );
    let text = ok(&retro(&["query", ts, "empty"], ""));
    assert!(text.contains("position              result\n"), "{text}");
    for line in text.lines().skip_while(|l| !l.starts_with("moves")).skip(1) {
        // From the empty board every drop keeps x's win or gives it away.
        assert!(
            line.contains("  loss in ") || line.contains("  win in ") || line.contains("  draw"),
            "{line}"
        );
        assert!(!line.contains("  6  "), "a code in the move list: {line}");
    }
    let csv = d.join("t43.csv");
    ok(&retro(
        &["export", ts, "--csv", "-o", csv.to_str().unwrap(), "-q"],
        "",
    ));
    let rows = std::fs::read_to_string(&csv).unwrap();
    let drawn = rows
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[1] == "6" && f[3] == "0")
        .map(|f| f[0].to_string())
        .expect("4 x 4 Teeko with 3 stones has drawn positions");
    assert_eq!(
        ok(&retro(
            &["query", ts, "--batch"],
            &format!("empty\n{drawn}\n")
        )),
        "win in 5\ndraw\n"
    );
    let a = json(&t, &drawn);
    assert_eq!(
        (&a["result"], &a["remoteness"], &a["code"]),
        (&"draw".into(), &0.into(), &0.into())
    );
}

/// A Quixo 3 x 3 table whose checksums are right but one of whose values lies (a draw
/// where the solver found a win or a loss, or a loss in 0 where it found a draw): verify
/// names the wrong entry by the results the codes stand for.
#[test]
fn verify_names_a_wrong_entry_by_its_result() {
    use retro::game::Quixo;
    use retro::game::{AnyBoard, Game};
    use retro::table::{Encoding, TableWriter};

    let d = dir("lying");
    let path = d.join("q3.retro");
    let game = Quixo::unfolded(3).unwrap();
    let mut layers = retro::solve::all_values::<_, i16>(&game, retro::Driver::Parallel).unwrap();
    let sizes: Vec<u64> = (0..=game.last_layer())
        .map(|k| game.layer_size(k))
        .collect();
    let lie = &mut layers[6][100];
    *lie = if *lie == 0 { -1 } else { 0 };
    let (mut writer, _) = TableWriter::open::<Quixo>(
        &path,
        AnyBoard::of(&game),
        retro::stored::ValueType::I16,
        Encoding::Plain,
        &sizes,
        true,
    )
    .unwrap();
    for k in (0..layers.len()).rev() {
        writer.write_layer(k, &layers[k]).unwrap();
    }
    writer.finish().unwrap();
    let err = fails(
        &retro(&["verify", path.to_str().unwrap(), "-q"], ""),
        1,
        "wrong entry in layer",
    );
    // `stored win in 3 (code 4), expected loss in 2 (code -3)`: results, each with its code.
    let said = |after: &str| {
        let rest = err.split(after).nth(1).unwrap_or_default();
        ["win in ", "loss in ", "draw"]
            .iter()
            .any(|w| rest.starts_with(w))
            && rest.contains("(code ")
    };
    assert!(said("stored ") && said("expected "), "{err}");
}

/// `retro build` with `RETRO_TRACE` (the retrograde solver's levels on stderr), stopping
/// at its Nth check for a stop (`--stop-at-check`, the stop Ctrl-C asks for).
fn build_stopped_at(game: &str, board: &str, table: &Path, check: u64) -> std::process::Output {
    let check = check.to_string();
    std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["build", game, board, "-q", "--no-fold", "-o"])
        .arg(table)
        .args(["--stop-at-check", &check])
        .env("RETRO_TRACE", "1")
        .output()
        .unwrap()
}

/// What a stopped build said, from its last line: the layer it was computing (None once
/// every layer was finished), and the finished layers it kept (highest, lowest).
fn stopped_in(out: &std::process::Output) -> (Option<usize>, Option<(usize, usize)>) {
    let err = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("interrupted"), "{err}");
    let layer = |text: &str| -> usize {
        let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().unwrap_or_else(|_| panic!("{last}"))
    };
    let at = last
        .strip_prefix("interrupted while computing layer ")
        .map(layer);
    let kept = if last.contains("no layer was finished yet") {
        None
    } else if let Some(rest) = last.split("keeps the finished layers ").nth(1) {
        let low = rest.split(" down to ").nth(1).map(layer);
        Some((layer(rest), low.unwrap_or_else(|| panic!("{last}"))))
    } else {
        let rest = last.split("keeps the finished layer ").nth(1);
        let k = layer(rest.unwrap_or_else(|| panic!("{last}")));
        Some((k, k))
    };
    (at, kept)
}

/// Stop a build at check `check`, check what it kept, resume it and compare the table with
/// `want`; returns the layer it stopped in and the finished layers it kept.
fn stop_and_resume(
    game: &str,
    board: &str,
    table: &Path,
    check: u64,
    want: &[u8],
) -> (Option<usize>, Option<(usize, usize)>) {
    let partial = PathBuf::from(format!("{}.partial", table.display()));
    let _ = std::fs::remove_file(table);
    let _ = std::fs::remove_file(&partial);
    let out = build_stopped_at(game, board, table, check);
    let (at, kept) = stopped_in(&out);
    assert!(
        !table.exists(),
        "a stopped build left a table under its name"
    );
    // The finished layers are all those above the layer it was computing, or all of them.
    match (at, kept) {
        (Some(at), Some((high, low))) => {
            assert_eq!(low, at + 1, "check {check}: kept {high} down to {low}")
        }
        (None, Some((_, low))) => assert_eq!(low, 0, "check {check}"),
        (_, None) => assert!(partial.exists(), "check {check}: no partial file"),
    }
    let rerun = ok(&retro(
        &[
            "build",
            game,
            board,
            "--no-fold",
            "-o",
            table.to_str().unwrap(),
        ],
        "",
    ));
    match kept {
        Some((_, low)) => assert!(
            rerun.contains(&format!("(resumed below layer {low})")),
            "check {check}: {rerun}"
        ),
        None => assert!(!rerun.contains("resumed"), "check {check}: {rerun}"),
    }
    assert_eq!(
        std::fs::read(table).unwrap(),
        want,
        "check {check}: the resumed table differs from an uninterrupted build's"
    );
    (at, kept)
}

/// A Quixo build asked to stop in the middle of a layer's fixpoint (its levels begun, not
/// ended) stops there, keeps every layer it finished, says so, and the same command resumes
/// it to the table an uninterrupted build writes.
#[test]
fn a_build_stopped_mid_fixpoint_keeps_its_finished_layers() {
    let d = dir("mid");
    let whole = d.join("whole.retro");
    // Folded tables (the default) resume as any other.
    ok(&retro(
        &[
            "build",
            "quixo",
            "-o",
            whole.to_str().unwrap(),
            "-q",
            "--no-fold",
        ],
        "3x3",
    ));
    let want = std::fs::read(&whole).unwrap();
    let t = d.join("t.retro");
    // Check 185 falls in a layer's levels (each level checks once per chunk that has work,
    // to decide and to tell; the layers above took the checks before). 3 x 3 has 30 layers,
    // by each side's cubes, the last (29) with every cube taken.
    let out = build_stopped_at("quixo", "3x3", &t, 185);
    let err = common::text(&out.stderr);
    let (at, kept) = stopped_in(&out);
    let at = at.unwrap_or_else(|| panic!("{err}"));
    assert!((1..29).contains(&at), "{err}");
    assert_eq!(kept, Some((29, at + 1)), "{err}");
    assert!(
        err.contains(&format!("layer {at}: level 0:")),
        "the stop came before layer {at}'s levels: {err}"
    );
    assert_eq!(
        stop_and_resume("quixo", "3x3", &t, 185, &want),
        (Some(at), kept)
    );
}

/// Quixo 3 x 3 stopped at every 7th check, from the first until the build no longer
/// stops: each stop keeps exactly the layers above the one it was in, and resumes to the
/// uninterrupted table, byte for byte.
#[test]
fn quixo_builds_stopped_at_any_check_resume_byte_identical() {
    let d = dir("every");
    let whole = d.join("whole.retro");
    // Folded tables (the default) resume as any other.
    ok(&retro(
        &[
            "build",
            "quixo",
            "-o",
            whole.to_str().unwrap(),
            "-q",
            "--no-fold",
        ],
        "3x3",
    ));
    let want = std::fs::read(&whole).unwrap();
    let t = d.join("t.retro");
    let mut stops = std::collections::BTreeSet::new();
    let mut check = 1;
    loop {
        let _ = std::fs::remove_file(&t);
        let _ = std::fs::remove_file(d.join("t.retro.partial"));
        let out = build_stopped_at("quixo", "3x3", &t, check);
        if out.status.success() {
            break;
        }
        let (at, _) = stop_and_resume("quixo", "3x3", &t, check, &want);
        stops.insert(at);
        check += 7;
    }
    // Stops fell in every layer but the empty board's (a few checks only), and after the
    // last layer, while the finished layers were read back to be narrowed to i8.
    assert!(stops.len() >= 10, "stopped only in layers {stops:?}");
    assert!(stops.contains(&None), "{stops:?}");
}

/// Teeko's first layer (all stones down) is its only one with moves inside it, and its
/// largest: a stop in its fixpoint has no finished layer to keep and says so; a stop in a
/// drop layer after it keeps it. Both resume to the uninterrupted table.
#[test]
fn teeko_builds_stopped_in_and_after_the_movement_layer_resume_byte_identical() {
    let d = dir("teeko-stop");
    let whole = d.join("whole.retro");
    build("teeko", "4x4s4", &whole, &[]);
    let want = std::fs::read(&whole).unwrap();
    let t = d.join("t.retro");
    // Layer 8 (1,801,800 positions) takes about 440 checks to count, then up to 880 per
    // level (a check per chunk with work, to decide and to tell); check 2500 is among its
    // levels, 8000 past them.
    let out = build_stopped_at("teeko", "4x4s4", &t, 2500);
    let err = common::text(&out.stderr);
    assert_eq!(stopped_in(&out), (Some(8), None), "{err}");
    assert!(err.contains("layer 8: level 0:"), "{err}");
    assert!(err.contains("no layer was finished yet"), "{err}");
    assert_eq!(
        stop_and_resume("teeko", "4x4s4", &t, 2500, &want),
        (Some(8), None)
    );
    let (at, kept) = stop_and_resume("teeko", "4x4s4", &t, 8000, &want);
    let at = at.unwrap_or(usize::MAX);
    assert!(at < 8 && kept == Some((8, at + 1)), "{at} {kept:?}");
}

/// `quixo "3x3 min=7"` builds, names its file after the part it holds, says so in `info`,
/// answers its own positions as the whole game does, refuses the others in a line, and
/// verifies.
#[test]
fn a_quixo_board_of_part_of_the_game_builds_and_answers() {
    let d = dir("min");
    let whole = d.join("whole.retro");
    build("quixo", "3x3", &whole, &[]);
    // The default name says the part it holds.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["build", "quixo", "3x3 min=7", "-q", "--no-fold"])
        .current_dir(&d)
        .output()
        .unwrap();
    ok(&out);
    let named = d.join("tables").join("quixo-3x3-min=7.retro");
    assert!(named.exists(), "no {named:?}");
    let part = d.join("part.retro");
    std::fs::rename(&named, &part).unwrap();
    let info = ok(&retro(&["info", part.to_str().unwrap()], ""));
    assert!(info.contains("at least 7 cubes taken"), "{info}");
    for position in ["xox/oxo/o.x:o", "xxo/oox/xo.:x", "xox/oxo/oxo:x"] {
        let a = json(&whole, position);
        let b = json(&part, position);
        assert_eq!(a["value"], b["value"], "{position}");
        assert_eq!(a["result"], b["result"], "{position}");
    }
    fails(
        &retro(&["query", part.to_str().unwrap(), "x../.../...:o"], ""),
        2,
        "at least 7",
    );
    ok(&retro(&["verify", part.to_str().unwrap(), "-q"], ""));
    // A board past the cubes there are is refused.
    fails(
        &retro(&["build", "quixo", "3x3 min=10", "-q"], ""),
        2,
        "min is 0 to 9",
    );
}
