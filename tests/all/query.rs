//! Batch queries, principal variations and scripted play, against the table itself.

use std::path::Path;
use std::process::Output;

use crate::common;
use common::retro;

use retro::Registry;
use retro::game::{AnyBoard, Gameplay, Registered, Twins, TwinsBoard, Visitor, Young, YoungBoard};
use retro::table::Table;
use retro::{Driver, Silent};

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn young_spec() -> AnyBoard {
    AnyBoard::new::<Young>(YoungBoard {
        rows: 3,
        cols: 4,
        a: (1..=12).map(|x| x * 7 % 11).collect(),
        b: (1..=12).map(|x| x * 5 % 13).collect(),
    })
}

fn twins_spec() -> AnyBoard {
    AnyBoard::new::<Twins>(TwinsBoard {
        rows: 3,
        cols: 3,
        vert: vec![18, 22, 15, 11, 16, 17],
        horiz: vec![4, 25, 22, 15, 10, 4],
    })
}

/// Every position's text, in layer and rank order.
fn all_positions<G: Gameplay>(game: &G) -> Vec<String> {
    let mut out = Vec::new();
    for k in 0..=game.last_layer() {
        let mut pos = game.unrank(k, 0);
        for r in 0..game.layer_size(k) {
            if r > 0 {
                game.advance(&mut pos);
            }
            out.push(game.format_position(&pos));
        }
    }
    out
}

fn build(spec: &AnyBoard, path: &Path) -> Table {
    retro::build::build_board::<retro::Builtin>(
        spec,
        path,
        &Default::default(),
        Driver::Parallel,
        &Silent,
        &mut |_| Ok(()),
    )
    .unwrap();
    Table::open(path).unwrap()
}

fn check_batch<G: Registered>(game: &G, table: &Table, path: &Path) {
    let positions = all_positions(game);
    let out = retro(
        &["query", path.to_str().unwrap(), "--batch"],
        &(positions.join("\n") + "\n"),
    );
    assert!(out.status.success());
    let lines: Vec<i64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(lines.len(), positions.len());
    for (text, got) in positions.iter().zip(&lines) {
        let pos = game.parse_position(text).unwrap();
        assert_eq!(
            *got,
            table.value(game.layer_of(&pos), game.rank(&pos)).unwrap(),
            "{text}"
        );
    }
    // Single queries of a spread of positions (the empty and the full board among them)
    // agree with the batch, in JSON too.
    let batch_json = retro(
        &["query", path.to_str().unwrap(), "--batch", "--json"],
        &(positions.join("\n") + "\n"),
    );
    assert!(batch_json.status.success());
    let objects: Vec<serde_json::Value> = String::from_utf8_lossy(&batch_json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), positions.len());
    let last = positions.len() - 1;
    for i in (0..positions.len()).step_by(97).chain([last]) {
        let single = json(&retro(
            &["query", path.to_str().unwrap(), &positions[i], "--json"],
            "",
        ));
        assert_eq!(single["value"], lines[i]);
        for field in ["position", "stones", "to_move", "value"] {
            assert_eq!(
                objects[i][field], single[field],
                "{field} of {}",
                positions[i]
            );
        }
    }
    assert_eq!(objects[last]["to_move"], "none");
}

#[test]
fn batch_equals_single_queries_on_every_position() {
    let dir = tempfile::tempdir().unwrap();
    let (ys, ts) = (young_spec(), twins_spec());
    let (yp, tp) = (dir.path().join("y.retro"), dir.path().join("t.retro"));
    let y = ys.get::<Young>().unwrap().clone();
    check_batch(&Young::new(y).unwrap(), &build(&ys, &yp), &yp);
    let t = ts.get::<Twins>().unwrap().clone();
    check_batch(&Twins::new(t).unwrap(), &build(&ts, &tp), &tp);
}

#[test]
fn batch_reports_bad_lines_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("y.retro");
    build(&young_spec(), &path);
    let out = retro(
        &["query", path.to_str().unwrap(), "--batch", "--json"],
        "0,0,0\n1,2,0\nnonsense\n4,4,4\n",
    );
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let values: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One output line per input line: the bad ones hold an error in their place.
    assert_eq!(values.len(), 4);
    assert_eq!(values[0]["line"], 1);
    for (bad, line) in [(&values[1], 2), (&values[2], 3)] {
        assert_eq!(bad["line"], line);
        assert!(
            bad["error"]
                .as_str()
                .is_some_and(|e| e.contains("bad young position"))
        );
        assert!(bad.get("value").is_none());
    }
    assert_eq!(values[3]["line"], 4);
    assert_eq!(values[3]["position"], "4,4,4");
    assert_eq!(values[3]["value"], 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 2:") && stderr.contains("line 3:") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// `--batch --quiet`: the same output lines and exit code 2, and on stderr instead of a
/// line per refusal one line at the end: how many were refused, and the first.
#[test]
fn quiet_batch_sums_up_the_refused_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("y.retro");
    build(&young_spec(), &path);
    let input = "0,0,0\n1,2,0\nnonsense\n4,4,4\n";
    for json in [false, true] {
        let mut args = vec!["query", path.to_str().unwrap(), "--batch"];
        if json {
            args.push("--json");
        }
        let loud = retro(&args, input);
        args.push("--quiet");
        let quiet = retro(&args, input);
        assert_eq!(quiet.status.code(), Some(2));
        assert_eq!(quiet.stdout, loud.stdout);
        let stderr = String::from_utf8_lossy(&quiet.stderr);
        let first = String::from_utf8_lossy(&loud.stderr)
            .lines()
            .next()
            .unwrap()
            .trim_start_matches("error: ")
            .to_string();
        assert!(first.starts_with("line 2: bad young position"), "{first}");
        assert_eq!(
            stderr,
            format!("error: 2 of 4 positions refused (first: {first})\n")
        );
    }
    // Nothing refused: nothing said, exit 0.
    let args = ["query", path.to_str().unwrap(), "--batch", "--quiet"];
    let out = retro(&args, "0,0,0\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    // Without --batch there is nothing to sum up.
    let out = retro(&["query", path.to_str().unwrap(), "0,0,0", "--quiet"], "");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: --quiet goes with --batch"),
        "{stderr}"
    );
}

#[test]
fn principal_variation_is_legal_and_ends_at_the_value() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, starts) in [
        (young_spec(), vec!["0,0,0", "2,1,0", "4,2,2"]),
        (
            twins_spec(),
            vec![".../.../...", "o../.x./...", "ox./xo./..."],
        ),
    ] {
        let path = dir.path().join("t.retro");
        build(&spec, &path);
        retro::Builtin::visit(
            &spec,
            Lines {
                path: &path,
                starts: &starts,
            },
        )
        .unwrap();
    }
}

/// Each start's principal variation, through the binary, replayed on the board's game.
struct Lines<'a> {
    path: &'a Path,
    starts: &'a [&'a str],
}

impl Visitor for Lines<'_> {
    type Output = ();
    fn visit<G: Registered>(self, game: G) -> retro::Result<()> {
        for &start in self.starts {
            let v = json(&retro(
                &[
                    "query",
                    self.path.to_str().unwrap(),
                    start,
                    "--pv",
                    "--json",
                ],
                "",
            ));
            let pv = v["pv"].as_array().unwrap();
            let mut pos = game.parse_position(start).unwrap();
            assert_eq!(pv.len(), game.last_layer() - game.layer_of(&pos));
            for step in pv {
                let next = step["position"].as_str().unwrap();
                let legal = game
                    .moves(&pos)
                    .into_iter()
                    .find(|m| game.format_position(&m.child) == next);
                let mv = legal.unwrap_or_else(|| {
                    panic!("{next} does not follow {}", game.format_position(&pos))
                });
                assert_eq!(step["cell"], serde_json::json!([mv.row + 1, mv.col + 1]));
                pos = mv.child;
            }
            let last = pv.last().unwrap();
            // What the line's final scores come to: first minus second (young), first's
            // (twins).
            let scores = retro::game::Scores {
                first: last["first_score"].as_i64().unwrap(),
                second: last["second_score"].as_i64().unwrap(),
            };
            let result = game.line_result(scores);
            assert_eq!(result, v["value"].as_i64().unwrap(), "{start}");
        }
        Ok(())
    }
}

#[test]
fn scripted_play_following_best_moves_ends_with_the_value() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, empty) in [(young_spec(), "0,0,0"), (twins_spec(), ".../.../...")] {
        let path = dir.path().join("p.retro");
        build(&spec, &path);
        let p = path.to_str().unwrap();
        let root = json(&retro(&["query", p, empty, "--pv", "--json"], ""));
        let pv = root["pv"].as_array().unwrap();
        for (side, parity) in [("first", 0), ("second", 1)] {
            // Our moves: the principal variation's, at our turns; the table answers with its own.
            let script: String = pv
                .iter()
                .skip(parity)
                .step_by(2)
                .map(|s| format!("{} {}\n", s["cell"][0], s["cell"][1]))
                .collect();
            let out = retro(&["play", p, "--as", side], &format!("9 9\n{script}"));
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(text.contains("illegal move"), "{text}");
            let last = text
                .lines()
                .find(|l| l.starts_with("game over: "))
                .unwrap_or_else(|| panic!("{text}"));
            assert!(
                last.ends_with(&format!("result {}", root["value"])),
                "{last}"
            );
        }
    }
}
