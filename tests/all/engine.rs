//! The engine against independent brute-force minimax, and the ranking properties the
//! sweep relies on.

use crate::common;

use common::brute::{Rng, twins_value, young_value, young_values_memo};
use retro::Registry;
use retro::game::{AnyBoard, Game, Registered, Twins, TwinsBoard, Visitor, Young, YoungBoard};
use retro::table::Table;
use retro::testing::{
    all_values, check_parallel_equals_serial, check_ranking, check_runs, check_values, walk,
};
use retro::{Driver, Silent};

fn flat(m: &[Vec<i64>]) -> Vec<i64> {
    m.iter().flatten().copied().collect()
}

fn young(n: usize, m: usize, a: &[Vec<i64>], b: &[Vec<i64>]) -> Young {
    Young::new(YoungBoard {
        rows: n,
        cols: m,
        a: flat(a),
        b: flat(b),
    })
    .unwrap()
}

fn twins(r: usize, c: usize, vert: &[Vec<i64>], horiz: &[Vec<i64>]) -> Twins {
    Twins::new(TwinsBoard {
        rows: r,
        cols: c,
        vert: flat(vert),
        horiz: flat(horiz),
    })
    .unwrap()
}

#[test]
fn young_matches_brute_force_on_every_position_of_small_boards() {
    let mut rng = Rng::new(2);
    let mut checked = 0;
    for (n, m) in (1..=3)
        .flat_map(|n| (1..=4).map(move |m| (n, m)))
        .chain((1..=3).map(|m| (4, m)))
    {
        for max in [3, 20, 100_000] {
            let (a, b) = (rng.matrix(n, m, max), rng.matrix(n, m, max));
            let game = young(n, m, &a, &b);
            checked += check_values(&game, |pos| {
                let rows: Vec<usize> = pos.rows.iter().map(|&x| x as usize).collect();
                young_value(n, m, &a, &b, &rows)
            });
        }
    }
    assert!(checked > 500, "only {checked} positions checked");
}

#[test]
fn twins_matches_brute_force_on_every_position_up_to_nine_cells() {
    let mut rng = Rng::new(3);
    let mut checked = 0;
    for r in 1..=9 {
        for c in 1..=9 / r {
            for max in [2, 100] {
                let (vert, horiz) = (rng.matrix(r - 1, c, max), rng.matrix(r, c - 1, max));
                let game = twins(r, c, &vert, &horiz);
                checked += check_values(&game, |pos| {
                    twins_value(r, c, &vert, &horiz, &game.marks(pos))
                });
            }
        }
    }
    assert!(checked > 12_000, "only {checked} positions checked");
}

#[test]
fn contest_samples() {
    let game = young(
        2,
        3,
        &[vec![2, 7, 3], vec![9, 1, 2]],
        &[vec![3, 7, 2], vec![2, 3, 1]],
    );
    assert_eq!(all_values(&game, Driver::Serial)[0][0], 2);
    let game = twins(
        3,
        3,
        &[vec![0, 15, 0], vec![0, 0, 25]],
        &[vec![20, 10], vec![0, 0], vec![25, 0]],
    );
    assert_eq!(all_values(&game, Driver::Serial)[0][0], 15);
    let game = twins(
        3,
        3,
        &[vec![18, 22, 15], vec![11, 16, 17]],
        &[vec![4, 25], vec![22, 15], vec![10, 4]],
    );
    assert_eq!(all_values(&game, Driver::Serial)[0][0], 72);
}

#[test]
fn young_ranking_is_a_bijection_up_to_6x6() {
    let mut rng = Rng::new(5);
    for n in 1..=6 {
        for m in 1..=6 {
            let game = young(n, m, &rng.matrix(n, m, 9), &rng.matrix(n, m, 9));
            check_ranking(&game);
        }
    }
}

#[test]
fn twins_ranking_is_a_bijection_up_to_12_cells() {
    let mut rng = Rng::new(6);
    for r in 1..=12 {
        for c in 1..=12 / r {
            let game = twins(r, c, &rng.matrix(r - 1, c, 9), &rng.matrix(r, c - 1, 9));
            check_ranking(&game);
        }
    }
}

#[test]
fn runs_report_every_move_exactly_once() {
    let mut rng = Rng::new(11);
    for (n, m) in [
        (1, 5),
        (5, 1),
        (2, 2),
        (3, 4),
        (4, 4),
        (6, 7),
        (8, 5),
        (9, 9),
    ] {
        check_runs(&young(n, m, &rng.matrix(n, m, 50), &rng.matrix(n, m, 50)));
    }
    check_runs(&twins(3, 3, &rng.matrix(2, 3, 9), &rng.matrix(3, 2, 9)));
}

/// Boards large enough that young's layers hold more than one suffix template (so runs
/// have shared moves, chains and single moves, and chunks cut templates), against the
/// memoised oracle.
#[test]
fn young_matches_memoised_minimax_on_boards_with_many_runs() {
    let mut rng = Rng::new(12);
    for (n, m, max) in [
        (8, 8, 100_000),
        (10, 10, 50),
        (6, 12, 9),
        (12, 5, 1000),
        (1, 30, 9),
    ] {
        let (a, b) = (rng.matrix(n, m, max), rng.matrix(n, m, max));
        let game = young(n, m, &a, &b);
        let values = all_values(&game, Driver::Parallel);
        let oracle = young_values_memo(n, m, &a, &b);
        assert_eq!(oracle.len() as u64, game.total_positions());
        walk(&game, |k, r, pos| {
            let rows: Vec<usize> = pos.rows.iter().map(|&x| x as usize).collect();
            assert_eq!(
                values[k][r as usize], oracle[&rows],
                "{n}x{m} rows {rows:?}"
            );
        });
    }
}

#[test]
fn parallel_sweep_equals_serial_sweep() {
    let mut rng = Rng::new(8);
    check_parallel_equals_serial(&young(
        7,
        8,
        &rng.matrix(7, 8, 1000),
        &rng.matrix(7, 8, 1000),
    ));
    check_parallel_equals_serial(&twins(3, 4, &rng.matrix(2, 4, 100), &rng.matrix(3, 3, 100)));
}

/// Every registered game passes the conformance checks on small random boards; a new
/// game is covered by adding its name and sizes here.
#[test]
fn every_game_passes_the_conformance_checks() {
    let boards: &[(&str, &[(usize, usize)])] = &[
        ("young", &[(1, 1), (2, 5), (4, 4), (5, 3)]),
        ("twins", &[(1, 1), (1, 4), (2, 3), (3, 3)]),
        ("mnk", &[(1, 1), (2, 3), (3, 3), (3, 4)]),
        // Width x height, with the default K (4, or max(W, H) if less).
        ("connect", &[(1, 1), (1, 4), (4, 1), (2, 3), (3, 3), (4, 3)]),
        // Stones each: 4, or fewer on a small board.
        ("teeko", &[(2, 2), (2, 3), (3, 3), (3, 4)]),
        ("quixo", &[(2, 2), (3, 3)]),
        // The smallest variant of the 16-point board (a 5 x 5 grid): six stones=3.
        ("morris", &[(5, 5)]),
    ];
    for name in retro::Builtin::names() {
        let (_, sizes) = boards
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("game {name} has no boards in this test"));
        for &(rows, cols) in *sizes {
            let spec = retro::Builtin::random(name, (rows, cols), 3, 50, "--max").unwrap();
            retro::Builtin::visit(&spec, Conformance).unwrap();
        }
    }
}

/// `testing::check_game` on a board's game.
struct Conformance;

impl Visitor for Conformance {
    type Output = ();
    fn visit<G: Registered>(self, game: G) -> retro::Result<()> {
        retro::testing::check_game(&game);
        Ok(())
    }
}

/// Every value of the table against a serial sweep of the board's game.
struct SameValues<'a> {
    table: &'a Table,
    root: i64,
}

impl Visitor for SameValues<'_> {
    type Output = ();
    fn visit<G: Registered>(self, game: G) -> retro::Result<()> {
        let values = all_values(&game, Driver::Serial);
        assert_eq!(self.root, values[0][0]);
        walk(&game, |k, r, _| {
            assert_eq!(self.table.value(k, r).unwrap(), values[k][r as usize])
        });
        Ok(())
    }
}

fn round_trip(spec: AnyBoard) -> retro::Result<()> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.retro");
    let report = retro::build::build_board::<retro::Builtin>(
        &spec,
        &path,
        &Default::default(),
        Driver::Parallel,
        &Silent,
        &mut |_| Ok(()),
    )
    .unwrap()
    .report;
    let table = Table::open(&path).unwrap();
    table.verify_checksum().unwrap();
    assert_eq!(table.header.game, spec);
    assert_eq!(report.file_bytes, table.file_len);
    retro::Builtin::visit(
        &spec,
        SameValues {
            table: &table,
            root: report.root_value,
        },
    )?;
    assert!(!retro::table::partial_path(&path).exists());
    Ok(())
}

#[test]
fn build_then_read_round_trips_every_position() {
    let boards = [
        ("young", 5, 6, 100_000),
        ("young", 4, 4, 5),
        ("twins", 3, 3, 100),
        ("twins", 1, 1, 100),
    ];
    for (game, rows, cols, max) in boards {
        round_trip(retro::Builtin::random(game, (rows, cols), 9, max, "--max").unwrap()).unwrap();
    }
}
