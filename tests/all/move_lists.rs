//! Moves in one shape, and positions as moves from the start, in every game: each move
//! `query --json` lists has its text as `move`, which `play` accepts and which, after
//! `start` and the moves before it, gives the position the list says; `best` lists the
//! best moves by that text; `--line` gives the value after each ply; the server and the
//! command line take the same positions.

use serde_json::Value;

use crate::common::{fails, ok, retro, shipped};
use crate::support::server::{Server, get};

/// One small board of each of the seven games, built in `dir`: (game, table).
fn tables(dir: &std::path::Path) -> Vec<(&'static str, String)> {
    let young = shipped("young-sample.txt");
    let twins = shipped("twins-sample1.txt");
    let boards: [(&str, &str); 7] = [
        ("young", &young),
        ("twins", &twins),
        ("mnk", "3x3k3"),
        ("connect", "4x4"),
        ("teeko", "4x4s3"),
        ("quixo", "3x3"),
        ("morris", "six stones=3"),
    ];
    boards
        .into_iter()
        .map(|(game, board)| {
            let table = dir.join(format!("{game}.retro"));
            let table = table.to_str().unwrap().to_string();
            ok(&retro(&["build", game, board, "-o", &table, "-q"], ""));
            (game, table)
        })
        .collect()
}

fn query(table: &str, position: &str, extra: &[&str]) -> Value {
    let mut args = vec!["query", table, position, "--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(&retro(&args, ""))).unwrap()
}

/// The stored number of an answer or a move: `value`, or `code` for a game with results.
fn stored(v: &Value) -> i64 {
    v.get("code")
        .or_else(|| v.get("value"))
        .and_then(Value::as_i64)
        .unwrap_or_else(|| panic!("no value in {v}"))
}

/// `start` and the moves.
fn start(moves: &[String]) -> String {
    std::iter::once("start".to_string())
        .chain(moves.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Along the first plies of the best line from the start, in every game: every listed
/// move has a `move` that, after the moves before it, leads to the listed child, and that
/// `play` plays; `best` is the texts of the moves that keep the position's value.
#[test]
fn every_listed_move_is_played_by_its_text() {
    let dir = tempfile::tempdir().unwrap();
    for (game, table) in tables(dir.path()) {
        let mut line: Vec<String> = Vec::new();
        for _ in 0..4 {
            let at = query(&table, &start(&line), &[]);
            let moves = at["moves"].as_array().unwrap();
            if moves.is_empty() {
                break;
            }
            let mut best_texts = Vec::new();
            for m in moves {
                let text = m["move"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{game}: a move without its text: {m}"));
                let mut next = line.clone();
                next.push(text.to_string());
                let child = query(&table, &start(&next), &[]);
                assert_eq!(child["position"], m["position"], "{game}: {}", start(&next));
                if stored(m) == stored(&at) {
                    best_texts.push(Value::from(text));
                }
            }
            // One shape in every game: the best moves' texts.
            assert_eq!(at["best"], Value::from(best_texts), "{game}: {at}");
            // `play` takes the first listed move's text as the side to move.
            let first = moves[0]["move"].as_str().unwrap();
            let side = if at["to_move"] == "first" {
                "first"
            } else {
                "second"
            };
            let input = format!("{first}\nquit\n");
            let out = ok(&retro(
                &["play", &table, "--from", &start(&line), "--as", side],
                &input,
            ));
            assert!(out.contains("you play "), "{game}: {first}: {out}");
            assert!(
                !out.contains("illegal") && !out.contains("unknown input"),
                "{game}: {first}: {out}"
            );
            line.push(at["best"][0].as_str().unwrap().to_string());
        }
        assert!(!line.is_empty(), "{game}: no move from the start");
    }
}

/// A position given as moves from the start is the position they lead to, in every game,
/// in `query`, `query --batch` and `play --from`; a move that is not legal, a move after
/// the end, and a table without a start are refused in one line.
#[test]
fn positions_as_moves_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    for (game, table) in tables(dir.path()) {
        // The first moves of the best line, as `--pv` plays them.
        let pv = query(&table, "empty", &["--pv"]);
        let steps = pv["pv"].as_array().unwrap();
        let moves: Vec<String> = steps
            .iter()
            .take(3)
            .map(|s| s["move"].as_str().unwrap().to_string())
            .collect();
        let written = steps[moves.len() - 1]["position"].as_str().unwrap();
        // Moves from the start reach their position; the position written out says
        // whether the game's own check could tell: apart from that, the same answer.
        let reached = |mut answer: serde_json::Value| {
            if let Some(checked) = answer.as_object_mut().unwrap().remove("reachable_checked") {
                assert_eq!(checked, true, "{game}");
            }
            answer
        };
        let unchecked = |mut answer: serde_json::Value| {
            answer.as_object_mut().unwrap().remove("reachable_checked");
            answer
        };
        let by_moves = reached(query(&table, &start(&moves), &[]));
        assert_eq!(by_moves, unchecked(query(&table, written, &[])), "{game}");
        assert_eq!(
            reached(query(&table, "start", &[])),
            unchecked(query(&table, "empty", &[]))
        );
        // A batch line, as a single query.
        let batch = ok(&retro(
            &["query", &table, "--batch", "--codes"],
            &format!("{}\n{written}\n", start(&moves)),
        ));
        let lines: Vec<&str> = batch.lines().collect();
        assert_eq!(lines.len(), 2, "{game}: {batch}");
        assert_eq!(lines[0], lines[1], "{game}");
        assert_eq!(lines[0], stored(&by_moves).to_string(), "{game}");
        // Play starts there.
        let out = ok(&retro(
            &["play", &table, "--from", &start(&moves)],
            "quit\n",
        ));
        assert!(out.contains("quit: "), "{game}: {out}");
        // A move that is not legal after the first: the first again where its cell is
        // taken; a column past the board, a push of the middle cube.
        let illegal = match game {
            "connect" => "9".to_string(),
            "quixo" => "2,2-1,2".to_string(),
            _ => moves[0].clone(),
        };
        let again = start(&[moves[0].clone(), illegal]);
        let err = fails(&retro(&["query", &table, &again], ""), 2, "is not legal");
        assert!(err.contains("move 2 "), "{err}");
    }
    // Tic-tac-toe: x's line on its fifth move ends the game.
    let ttt = dir.path().join("mnk.retro");
    let ttt = ttt.to_str().unwrap();
    let won = query(ttt, "start 1,1 2,1 1,2 2,2 1,3", &[]);
    assert_eq!(won["winner"], "x", "{won}");
    fails(
        &retro(&["query", ttt, "start 1,1 2,1 1,2 2,2 1,3 3,3"], ""),
        2,
        "after the game is over",
    );
    // A table without a start has nothing to play from.
    let q5 = dir.path().join("q5.retro");
    let q5 = q5.to_str().unwrap();
    ok(&retro(&["build", "quixo", "3x3 min=5", "-o", q5, "-q"], ""));
    fails(&retro(&["query", q5, "start 1,1-1,3"], ""), 2, "no start");
}

/// `query --line`: the value after each ply of a line given as moves, equal to what
/// `query` says of each position on the way, and each move judged against its position's
/// value; without moves, `--line` is refused.
#[test]
fn line_gives_the_value_after_each_ply() {
    let dir = tempfile::tempdir().unwrap();
    for (game, table) in tables(dir.path()) {
        // The last listed move at each step: often not a best one.
        let mut moves: Vec<String> = Vec::new();
        let mut answers = vec![query(&table, "start", &[])];
        for _ in 0..3 {
            let at = answers.last().unwrap();
            let Some(last) = at["moves"].as_array().unwrap().last() else {
                break;
            };
            moves.push(last["move"].as_str().unwrap().to_string());
            answers.push(query(&table, &start(&moves), &[]));
        }
        let line = query(&table, &start(&moves), &["--line"]);
        let plies = line["line"].as_array().unwrap();
        assert_eq!(plies.len(), moves.len() + 1, "{game}: {line}");
        for (i, (ply, at)) in plies.iter().zip(&answers).enumerate() {
            assert_eq!(ply["ply"], i, "{game}");
            assert_eq!(ply["position"], at["position"], "{game} ply {i}");
            assert_eq!(stored(ply), stored(at), "{game} ply {i}");
            if i == 0 {
                assert!(ply["move"].is_null() && ply["best"].is_null(), "{ply}");
                continue;
            }
            let parent = &answers[i - 1];
            let played = parent["moves"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["move"] == ply["move"])
                .unwrap();
            let best = stored(played) == stored(parent);
            assert_eq!(ply["best"], best, "{game} ply {i}: {ply}");
            if !best {
                let named = ply["best_move"].as_str().unwrap();
                assert!(
                    parent["best"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|b| b == named)
                );
            }
        }
        // The text: a line per ply after its heading.
        let text = ok(&retro(&["query", &table, &start(&moves), "--line"], ""));
        let after: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "line of play")
            .skip(1)
            .collect();
        assert_eq!(after.len(), moves.len() + 1, "{game}: {text}");
        fails(
            &retro(&["query", &table, "empty", "--line"], ""),
            2,
            "--line needs a position given as moves from the start",
        );
    }
}

/// The server takes a position as moves from the start where the command line does, and
/// `/api/tables` says each root value in words beside the number.
#[test]
fn the_server_takes_moves_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let ttt = dir.path().join("ttt.retro");
    ok(&retro(
        &["build", "mnk", "3x3k3", "-o", ttt.to_str().unwrap(), "-q"],
        "",
    ));
    let six = dir.path().join("six.retro");
    ok(&retro(
        &[
            "build",
            "morris",
            "six stones=3",
            "-o",
            six.to_str().unwrap(),
            "-q",
        ],
        "",
    ));
    let server = Server::start(&[ttt.clone(), six.clone()], &["--quiet"]);
    for (name, table, moves) in [("ttt", &ttt, "start 2,2 1,1"), ("six", &six, "start a5 c5")] {
        let path = format!("/api/{name}/{}", moves.replace(' ', "%20"));
        let reply = get(&server.addr, &path);
        assert_eq!(reply.status, 200, "{}", reply.text());
        let mut served = reply.json();
        served.as_object_mut().unwrap().remove("pv");
        assert_eq!(served, query(table.to_str().unwrap(), moves, &[]), "{name}");
    }
    let bad = get(&server.addr, "/api/ttt/start%202,2%202,2");
    assert_eq!(bad.status, 400, "{}", bad.text());
    // `/api/tables`: the root value in words, as `info` says it.
    let tables = get(&server.addr, "/api/tables").json();
    for t in tables.as_array().unwrap() {
        let table = dir
            .path()
            .join(format!("{}.retro", t["name"].as_str().unwrap()));
        let info = ok(&retro(&["info", table.to_str().unwrap()], ""));
        let words = info
            .lines()
            .find_map(|l| l.strip_prefix("root value"))
            .unwrap()
            .trim();
        assert_eq!(t["root_words"], words, "{t}");
    }
}
