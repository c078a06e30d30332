//! The engine against independent brute-force minimax, and the ranking properties the
//! sweep relies on.

mod common;

use std::collections::HashSet;

use common::brute::{Rng, twins_value, young_value};
use retro::game::{Game, GameSpec, Twins, TwinsSpec, Young, YoungSpec};
use retro::sweep::{self, Driver, Silent};
use retro::table::Table;

/// Every value of every layer, computed in memory (i64 values, whatever the board).
fn all_values<G: Game>(game: &G, driver: Driver) -> Vec<Vec<i64>> {
    let mut layers = vec![Vec::new(); game.cells() + 1];
    sweep::sweep::<G, i64>(game, driver, &Silent, |k, values| {
        layers[k] = values.to_vec();
        Ok(())
    })
    .unwrap();
    layers
}

fn flat(m: &[Vec<i64>]) -> Vec<i64> {
    m.iter().flatten().copied().collect()
}

fn young(n: usize, m: usize, a: &[Vec<i64>], b: &[Vec<i64>]) -> Young {
    Young::new(YoungSpec {
        rows: n,
        cols: m,
        a: flat(a),
        b: flat(b),
    })
    .unwrap()
}

fn twins(r: usize, c: usize, vert: &[Vec<i64>], horiz: &[Vec<i64>]) -> Twins {
    Twins::new(TwinsSpec {
        rows: r,
        cols: c,
        vert: flat(vert),
        horiz: flat(horiz),
    })
    .unwrap()
}

/// Every position of every layer, in rank order, by successor stepping.
fn walk<G: Game>(game: &G, mut f: impl FnMut(usize, u64, &G::Position)) {
    for k in 0..=game.cells() {
        let mut pos = game.unrank(k, 0);
        for r in 0..game.layer_size(k) {
            if r > 0 {
                game.advance(&mut pos);
            }
            f(k, r, &pos);
        }
    }
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
            let values = all_values(&game, Driver::Parallel);
            walk(&game, |k, r, pos| {
                let rows: Vec<usize> = pos.rows.iter().map(|&x| x as usize).collect();
                let expected = young_value(n, m, &a, &b, &rows);
                assert_eq!(values[k][r as usize], expected, "{n}x{m} rows {rows:?}");
                checked += 1;
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
                let values = all_values(&game, Driver::Parallel);
                walk(&game, |k, i, pos| {
                    let cells = game.marks(pos);
                    let expected = twins_value(r, c, &vert, &horiz, &cells);
                    assert_eq!(
                        values[k][i as usize],
                        expected,
                        "{r}x{c} {}",
                        game.format_position(pos)
                    );
                    checked += 1;
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

/// Rank/unrank is a bijection on every layer, successor stepping visits ranks in order,
/// the text notation round-trips, and every child's incrementally computed rank equals the
/// rank of the child built from scratch.
fn check_ranking<G: Game>(game: &G) {
    let mut seen = HashSet::new();
    walk(game, |k, r, pos| {
        assert_eq!(game.stones(pos), k);
        assert_eq!(game.rank(pos), r);
        let direct = game.unrank(k, r);
        let text = game.format_position(pos);
        assert_eq!(game.format_position(&direct), text);
        assert!(seen.insert(text.clone()), "position {text} ranked twice");
        let parsed = game.parse_position(&text).unwrap();
        assert_eq!(game.rank(&parsed), r);
        let mut fast = Vec::new();
        game.for_each_child(pos, |child, reward| fast.push((child, reward)));
        let slow: Vec<(u64, i64)> = game
            .moves(pos)
            .iter()
            .map(|mv| {
                let rebuilt = game
                    .parse_position(&game.format_position(&mv.child))
                    .unwrap();
                (game.rank(&rebuilt), mv.reward)
            })
            .collect();
        assert_eq!(fast, slow, "children of {text}");
        for &(child, _) in &fast {
            assert!(child < game.layer_size(k + 1));
        }
    });
    assert_eq!(seen.len() as u64, game.total_positions());
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
fn parallel_sweep_equals_serial_sweep() {
    let mut rng = Rng::new(8);
    let game = young(7, 8, &rng.matrix(7, 8, 1000), &rng.matrix(7, 8, 1000));
    assert_eq!(
        all_values(&game, Driver::Serial),
        all_values(&game, Driver::Parallel)
    );
    let game = twins(3, 4, &rng.matrix(2, 4, 100), &rng.matrix(3, 3, 100));
    assert_eq!(
        all_values(&game, Driver::Serial),
        all_values(&game, Driver::Parallel)
    );
}

fn round_trip(spec: GameSpec) -> retro::Result<()> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.retro");
    let report =
        retro::job::build(&spec, &path, &Default::default(), Driver::Parallel, &Silent).unwrap();
    let table = Table::open(&path).unwrap();
    table.verify_checksum().unwrap();
    assert_eq!(table.header.game, spec);
    assert_eq!(report.file_bytes, table.file_len);
    retro::with_game!(&spec, game => {
        let values = all_values(&game, Driver::Serial);
        assert_eq!(report.root_value, values[0][0]);
        walk(&game, |k, r, _| assert_eq!(table.value(k, r).unwrap(), values[k][r as usize]));
    });
    assert!(!retro::table::writer::partial_path(&path).exists());
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
        round_trip(retro::random::random_board(game, rows, cols, 9, max).unwrap()).unwrap();
    }
}
