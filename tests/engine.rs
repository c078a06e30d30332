//! The engine against independent brute-force minimax, and the ranking properties the
//! sweep relies on.

mod common;

use std::collections::HashSet;

use common::brute::{Rng, twins_value, young_value, young_values_memo};
use retro::game::{Game, GameSpec, RunSink, Twins, TwinsSpec, Young, YoungSpec};
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
        fast.sort_unstable();
        let mut slow: Vec<(u64, i64)> = game
            .moves(pos)
            .iter()
            .map(|mv| {
                let rebuilt = game
                    .parse_position(&game.format_position(&mv.child))
                    .unwrap();
                (game.rank(&rebuilt), mv.reward)
            })
            .collect();
        slow.sort_unstable();
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

/// Records what `Game::visit_runs` reports: (rank, child, reward) per move, and the runs.
#[derive(Default)]
struct Recorder {
    runs: Vec<(u64, usize)>,
    moves: Vec<(u64, u64, i64)>,
}

impl RunSink for Recorder {
    fn run(&mut self, rank: u64, len: usize) {
        assert!(len > 0);
        self.runs.push((rank, len));
    }
    fn range(&mut self, i: usize, len: usize, child: u64, reward: i64) {
        let &(rank, run) = self.runs.last().unwrap();
        assert!(
            len > 0 && i + len <= run,
            "range {i}+{len} outside a run of {run}"
        );
        for t in 0..len {
            self.moves
                .push((rank + (i + t) as u64, child + t as u64, reward));
        }
    }
    fn chain(&mut self, i: usize, child: u64, rewards: &[i64]) {
        let &(rank, run) = self.runs.last().unwrap();
        assert!(
            !rewards.is_empty() && i + rewards.len() <= run,
            "chain outside its run"
        );
        for (t, &reward) in rewards.iter().enumerate() {
            self.moves
                .push((rank + (i + t) as u64, child + t as u64, reward));
        }
    }
    fn single(&mut self, i: usize, child: u64, reward: i64) {
        let &(rank, run) = self.runs.last().unwrap();
        assert!(i < run, "move of position {i} outside a run of {run}");
        self.moves.push((rank + i as u64, child, reward));
    }
}

/// `visit_runs` over `start..start + len` reports exactly the moves `for_each_child` gives,
/// in runs that tile the range in order.
fn check_runs<G: Game>(game: &G, k: usize, start: u64, len: usize) {
    let mut seen = Recorder::default();
    game.visit_runs(k, start, len, &mut seen);
    let mut at = start;
    for &(rank, run) in &seen.runs {
        assert_eq!(rank, at, "layer {k}: runs must tile {start}+{len} in order");
        at += run as u64;
    }
    assert_eq!(at, start + len as u64);
    let mut expected = Vec::new();
    let mut pos = game.unrank(k, start);
    for i in 0..len as u64 {
        if i > 0 {
            game.advance(&mut pos);
        }
        game.for_each_child(&pos, |child, reward| {
            expected.push((start + i, child, reward))
        });
    }
    seen.moves.sort_unstable();
    expected.sort_unstable();
    assert_eq!(seen.moves, expected, "layer {k}, positions {start}+{len}");
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
        check_runs_of_every_layer(&young(n, m, &rng.matrix(n, m, 50), &rng.matrix(n, m, 50)));
    }
    check_runs_of_every_layer(&twins(3, 3, &rng.matrix(2, 3, 9), &rng.matrix(3, 2, 9)));
}

/// `check_runs` over every whole layer, and over windows that start and end inside runs.
fn check_runs_of_every_layer<G: Game>(game: &G) {
    for k in 0..game.cells() {
        let size = game.layer_size(k);
        check_runs(game, k, 0, size as usize);
        for len in [1u64, 2, 5, 13, 64, 100] {
            let mut start = 0;
            while start < size {
                let l = len.min(size - start);
                check_runs(game, k, start, l as usize);
                start += l + len / 2;
            }
        }
    }
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
