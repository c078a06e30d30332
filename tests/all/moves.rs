//! Tables of best moves (`build --moves L`): every value read through the stored moves
//! equals the plain table's, every stored move is the first best one, and every command
//! (query, verify, export, resume) works on them as on the others.

use crate::common;

use std::path::Path;

use common::random_board;
use common::retro;
use retro::Registry;
use retro::answers::probe;
use retro::build::{self, BuildOptions};
use retro::game::{AnyBoard, Registered, Visitor};
use retro::table::{Encoding, Table};
use retro::{Driver, Silent};

fn build(spec: &AnyBoard, path: &Path, moves: Option<u32>) -> Table {
    let options = BuildOptions {
        moves,
        force: true,
        ..Default::default()
    };
    build::build_board::<retro::Builtin>(
        spec,
        path,
        &options,
        Driver::Parallel,
        &Silent,
        &mut |_| Ok(()),
    )
    .expect("build");
    Table::open(path).expect("open")
}

/// Every position of the board, in every table, against the plain table: the value, and
/// the first best move the query tool picks (which `--pv` follows).
fn same_everywhere(spec: &AnyBoard, every: &[u32]) {
    let dir = tempfile::tempdir().unwrap();
    let plain = build(spec, &dir.path().join("plain.retro"), None);
    for &l in every {
        let moves = build(spec, &dir.path().join(format!("moves-{l}.retro")), Some(l));
        assert_eq!(moves.header.encoding, Encoding::Moves { values_every: l });
        moves.verify_checksum().expect("checksum");
        retro::Builtin::visit(
            spec,
            Compare {
                spec,
                plain: &plain,
                moves: &moves,
                l,
            },
        )
        .expect("reads");
    }
}

/// A table of best moves against the plain table, on the board's game.
struct Compare<'a> {
    spec: &'a AnyBoard,
    plain: &'a Table,
    moves: &'a Table,
    l: u32,
}

impl Visitor for Compare<'_> {
    type Output = ();
    fn visit<G: Registered>(self, game: G) -> retro::Result<()> {
        let Compare {
            spec,
            plain,
            moves,
            l,
        } = self;
        compare(&game, spec, plain, moves, l)
    }
}

fn compare<G: Registered>(
    game: &G,
    spec: &AnyBoard,
    plain: &Table,
    moves: &Table,
    l: u32,
) -> retro::Result<()> {
    let mut checked = 0u64;
    for k in 0..=game.last_layer() {
        let values = moves.read_range(k, 0, game.layer_size(k) as usize)?;
        for r in 0..game.layer_size(k) {
            let want = plain.value(k, r)?;
            assert_eq!(
                moves.value(k, r)?,
                want,
                "{spec:?} L {l} layer {k} rank {r}"
            );
            assert_eq!(values[r as usize], want);
            let pos = game.unrank(k, r);
            // Boards play cannot reach (mnk) are refused by `answer`; their
            // values were compared above.
            if !moves.stores_values(k) && game.check_reachable(&pos).is_ok() {
                let a = probe::answer(game, plain, pos)?;
                // A position where play has ended (mnk) has no move; it stores 0.
                assert_eq!(
                    moves.best_move(k, r)?,
                    a.first_best().map_or(0, |i| i as u64),
                    "first best move, layer {k} rank {r}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, game.total_positions());
    let root = game.unrank(0, 0);
    let pv = |t: &Table| -> retro::error::Result<Vec<(usize, usize)>> {
        Ok(probe::principal_variation(game, t, &root)?
            .steps
            .iter()
            .map(|s| (s.mv.row, s.mv.col))
            .collect())
    };
    assert_eq!(pv(moves)?, pv(plain)?);
    let checked = retro::verify_all(game, moves, &Silent)?;
    assert_eq!(checked.ok(), Some(game.total_positions()));
    let sampled = retro::verify_sample(game, moves, 300, 5)?;
    assert!(sampled.is_ok());
    Ok(())
}

#[test]
fn young_values_through_moves_equal_plain_values() {
    for (rows, cols, seed) in [(4, 5, 1), (5, 6, 2), (6, 6, 3), (3, 9, 4)] {
        let spec = random_board("young", rows, cols, seed, 1000);
        same_everywhere(&spec, &[1, 2, 3, 8]);
    }
    // Small weights: many ties, so "first best" is tested, not just "best".
    let spec = random_board("young", 5, 5, 9, 2);
    same_everywhere(&spec, &[4]);
}

#[test]
fn twins_values_through_moves_equal_plain_values() {
    for (rows, cols, seed) in [(2, 3, 1), (3, 3, 2), (3, 4, 3)] {
        let spec = random_board("twins", rows, cols, seed, 100);
        same_everywhere(&spec, &[2, 5, 8]);
    }
}

#[test]
fn mnk_values_through_moves_equal_plain_values() {
    // Positions where play ends early sit in layers of moves too: their value comes from
    // the position itself.
    for board in ["3 3 3", "3 4 3", "4 3 4"] {
        let spec = retro::Builtin::parse("mnk", board).unwrap();
        same_everywhere(&spec, &[2, 3, 5]);
    }
}

#[test]
fn a_wrong_stored_move_is_caught_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let spec = random_board("young", 4, 4, 7, 1000);
    let path = dir.path().join("m.retro");
    let table = build(&spec, &path, Some(4));
    // Layer 5 holds moves, in one block: raise its minimum by one, so every stored index
    // is one past the move it was. The checksum sees it, and so does a verify of the
    // moves themselves, which reads no checksums.
    let entry = table.header.layers[5];
    assert!(!table.stores_values(5) && entry.positions <= 4096);
    drop(table);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[(entry.offset + entry.bytes - 16) as usize] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let out = retro(&["verify", path.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("checksum mismatch in layer 5"), "{err}");
    let table = Table::open(&path).unwrap();
    struct Verify<'a>(&'a Table);
    impl Visitor for Verify<'_> {
        type Output = ();
        fn visit<G: Registered>(self, game: G) -> retro::Result<()> {
            let found = retro::verify_all(&game, self.0, &Silent);
            // Either the damaged index names no move (an error), or a mismatch is reported.
            match found {
                Ok(Ok(_)) => panic!("a damaged move passed verify"),
                Ok(Err(m)) => assert_eq!(m.layer, 5),
                Err(e) => assert!(e.to_string().contains("best move"), "{e}"),
            }
            Ok(())
        }
    }
    retro::Builtin::visit(&spec, Verify(&table)).unwrap();
}

#[test]
fn commands_work_on_tables_of_moves() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let board = retro(&["gen", "twins", "3x4", "--seed", "5"], "");
    std::fs::write(d("b.txt"), &board.stdout).unwrap();
    let ok = |args: &[&str]| {
        let out = retro(args, "");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    ok(&["build", "twins", &d("b.txt"), "-o", &d("p.retro"), "-q"]);
    ok(&[
        "build",
        "twins",
        &d("b.txt"),
        "-o",
        &d("m.retro"),
        "-q",
        "--moves",
        "3",
    ]);
    let info = ok(&["info", &d("m.retro")]);
    assert!(
        info.contains("best moves") && info.contains("at most 3 lookups"),
        "{info}"
    );
    let json = ok(&["info", &d("m.retro"), "--json"]);
    assert!(json.contains("\"encoding\":\"moves\"") && json.contains("\"values_every\":3"));
    ok(&["verify", &d("m.retro")]);
    ok(&["verify", &d("m.retro"), "--sample", "200"]);
    for args in [&["empty", "--pv"][..], &["empty", "--json"]] {
        let p = ok(&[&["query", &d("p.retro")][..], args].concat());
        let m = ok(&[&["query", &d("m.retro")][..], args].concat());
        assert_eq!(p, m, "query {args:?}");
    }
    let positions: String = ["empty\n"; 3].concat();
    let batch = |t: &str| {
        let out = retro(&["query", &d(t), "--batch"], &positions);
        assert!(out.status.success());
        out.stdout
    };
    assert_eq!(batch("p.retro"), batch("m.retro"));
    ok(&["export", &d("p.retro"), "--csv", "-o", &d("p.csv")]);
    ok(&["export", &d("m.retro"), "--csv", "-o", &d("m.csv")]);
    assert_eq!(
        std::fs::read(d("p.csv")).unwrap(),
        std::fs::read(d("m.csv")).unwrap()
    );
    let out = retro(
        &[
            "build",
            "twins",
            &d("b.txt"),
            "-o",
            &d("z.retro"),
            "--moves",
            "0",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    let out = retro(
        &[
            "build",
            "twins",
            &d("b.txt"),
            "-o",
            &d("z.retro"),
            "--moves",
            "2",
            "--compact",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_interrupted_build_of_moves_resumes_to_an_identical_table() {
    let dir = tempfile::tempdir().unwrap();
    let spec = random_board("young", 5, 6, 11, 1000);
    let whole = dir.path().join("whole.retro");
    build(&spec, &whole, Some(4));
    // 30 is the full layer, 24 and 0 layers of values, 17 and 2 layers of moves.
    for stop in [30, 24, 17, 2, 0] {
        let path = dir.path().join(format!("resumed-{stop}.retro"));
        let mut options = BuildOptions {
            moves: Some(4),
            force: true,
            stop_after: Some(stop),
            ..Default::default()
        };
        let err = build::build_board::<retro::Builtin>(
            &spec,
            &path,
            &options,
            Driver::Parallel,
            &Silent,
            &mut |_| Ok(()),
        );
        assert!(err.is_err(), "stop {stop}");
        options.stop_after = None;
        let report = build::build_board::<retro::Builtin>(
            &spec,
            &path,
            &options,
            Driver::Serial,
            &Silent,
            &mut |_| Ok(()),
        )
        .unwrap()
        .report;
        // Layers of moves are written again from the lowest finished layer of values.
        let expect = match stop {
            17 => Some(20),
            2 => Some(4),
            values => Some(values),
        };
        assert_eq!(report.resumed_below, expect, "stop {stop}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&whole).unwrap(),
            "stop {stop}"
        );
    }
}
