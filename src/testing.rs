//! Conformance checks for any [`Game`](crate::game::Game): what the sweep, the table and the query tool rely
//! on, as functions a game's tests call. They panic with a message naming the position on
//! the first violation, as test assertions do. A new game gets them all with one call to
//! [`check_game`], plus [`check_values`] against a brute force of its own.
//!
//! ```
//! use retro::game::{Board, Twins, TwinsBoard};
//! use retro::random::SplitMix;
//!
//! let spec = TwinsBoard::random(2, 3, &mut SplitMix(1), 9).unwrap();
//! retro::testing::check_game(&Twins::new(spec).unwrap());
//! ```

use std::collections::HashSet;

use crate::game::{Gameplay, RunSink};
use crate::sweep::{self, Driver, Silent};

/// Every check below that needs no oracle: ranking, successor stepping, notation,
/// children, and runs (over whole layers and windows that cut runs).
pub fn check_game<G: Gameplay>(game: &G) {
    if let Some(solver) = game.retrograde() {
        return check_moving_game(game, solver);
    }
    check_ranking(game);
    check_runs(game);
    check_parallel_equals_serial(game);
}

/// Calls `f(layer, rank, position)` for every position of every layer, in rank order, by
/// successor stepping from each layer's first position.
pub fn walk<G: Gameplay>(game: &G, mut f: impl FnMut(usize, u64, &G::Position)) {
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

/// Every value of every layer, computed in memory as i64 (whatever the board's own value
/// type), indexed `[layer][rank]`.
pub fn all_values<G: Gameplay>(game: &G, driver: Driver) -> Vec<Vec<i64>> {
    let mut layers = vec![Vec::new(); game.cells() + 1];
    sweep::sweep::<G, i64>(game, driver, &Silent, |k, values| {
        layers[k] = values.to_vec();
        Ok(())
    })
    .expect("an in-memory sweep does not fail");
    layers
}

/// The sweep's value of every position equals `oracle(position)`, an independent
/// computation (a brute-force minimax written for the test). Returns the positions checked.
pub fn check_values<G: Gameplay>(game: &G, mut oracle: impl FnMut(&G::Position) -> i64) -> u64 {
    let values = all_values(game, Driver::Parallel);
    let mut checked = 0;
    walk(game, |k, r, pos| {
        let expected = oracle(pos);
        assert_eq!(
            values[k][r as usize],
            expected,
            "layer {k} rank {r} ({})",
            game.format_position(pos)
        );
        checked += 1;
    });
    checked
}

/// Rank/unrank is a bijection on every layer, successor stepping visits ranks in order,
/// the text notation round-trips, and every child's incrementally computed rank equals
/// the rank of the child rebuilt from its text, with the same reward as `moves` gives;
/// `for_each_move_in_order` and `move_in_order` report those children in `moves` order.
pub fn check_ranking<G: Gameplay>(game: &G) {
    let mut seen = HashSet::new();
    walk(game, |k, r, pos| {
        assert_eq!(game.stones(pos), k, "stones of rank {r} in layer {k}");
        assert_eq!(game.rank(pos), r, "rank of the position stepped to");
        let direct = game.unrank(k, r);
        let text = game.format_position(pos);
        assert_eq!(game.format_position(&direct), text, "unrank({k}, {r})");
        assert!(seen.insert(text.clone()), "position {text} ranked twice");
        let parsed = game
            .parse_position(&text)
            .unwrap_or_else(|e| panic!("{text} does not parse back: {e}"));
        assert_eq!(game.rank(&parsed), r, "rank of {text} parsed back");
        let mut fast = Vec::new();
        game.for_each_child(pos, |child, reward| fast.push((child, reward)));
        fast.sort_unstable();
        let mut slow: Vec<(u64, i64)> = game
            .moves(pos)
            .iter()
            .map(|mv| {
                let child = game.format_position(&mv.child);
                let rebuilt = game
                    .parse_position(&child)
                    .unwrap_or_else(|e| panic!("child {child} does not parse: {e}"));
                (game.rank(&rebuilt), mv.reward)
            })
            .collect();
        // `for_each_move_in_order` is `moves` in the same order: tables of best moves
        // store indices in it.
        let mut in_order = Vec::new();
        game.for_each_move_in_order(pos, |child, reward| {
            in_order.push((child, reward));
            std::ops::ControlFlow::Continue(())
        });
        assert_eq!(in_order, slow, "moves in order of {text}");
        if k < game.cells() {
            for (i, &mv) in slow.iter().enumerate() {
                assert_eq!(
                    game.move_in_order(k, r, i as u64),
                    Some(mv),
                    "move {i} of {text}"
                );
            }
            assert_eq!(
                game.move_in_order(k, r, slow.len() as u64),
                None,
                "past the moves of {text}"
            );
        }
        slow.sort_unstable();
        assert_eq!(fast, slow, "children of {text}");
        if game.early_value(pos).is_some() {
            assert!(fast.is_empty(), "{text}: play has ended, yet it has moves");
        }
        for &(child, _) in &fast {
            assert!(
                child < game.layer_size(k + 1),
                "child rank out of layer {}",
                k + 1
            );
        }
    });
    assert_eq!(seen.len() as u64, game.total_positions());
}

/// Records what `Game::visit_runs` reports: (rank, child, reward) per move, the runs,
/// and (rank, value) per position where play has ended.
#[derive(Default)]
struct Recorder {
    runs: Vec<(u64, usize)>,
    moves: Vec<(u64, u64, i64)>,
    ended: Vec<(u64, i64)>,
}

impl Recorder {
    fn current(&self) -> (u64, usize) {
        *self.runs.last().expect("a move reported before any run")
    }
}

impl RunSink for Recorder {
    fn run(&mut self, rank: u64, len: usize) {
        assert!(len > 0, "an empty run");
        self.runs.push((rank, len));
    }
    fn range(&mut self, i: usize, len: usize, child: u64, reward: i64) {
        let (rank, run) = self.current();
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
        let (rank, run) = self.current();
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
        let (rank, run) = self.current();
        assert!(i < run, "move of position {i} outside a run of {run}");
        self.moves.push((rank + i as u64, child, reward));
    }
    fn terminal(&mut self, i: usize, value: i64) {
        let (rank, run) = self.current();
        assert!(i < run, "ended position {i} outside a run of {run}");
        self.ended.push((rank + i as u64, value));
    }
}

/// `visit_runs` over `start..start + len` of layer `k` reports exactly the moves
/// `for_each_child` gives, in runs that tile the range in order.
pub fn check_runs_at<G: Gameplay>(game: &G, k: usize, start: u64, len: usize) {
    let mut seen = Recorder::default();
    game.visit_runs(k, start, len, &mut seen);
    let mut at = start;
    for &(rank, run) in &seen.runs {
        assert_eq!(rank, at, "layer {k}: runs must tile {start}+{len} in order");
        at += run as u64;
    }
    assert_eq!(
        at,
        start + len as u64,
        "layer {k}: runs must cover {start}+{len}"
    );
    let mut expected = Vec::new();
    let mut ended = Vec::new();
    let mut pos = game.unrank(k, start);
    for i in 0..len as u64 {
        if i > 0 {
            game.advance(&mut pos);
        }
        game.for_each_child(&pos, |child, reward| {
            expected.push((start + i, child, reward))
        });
        if let Some(value) = game.early_value(&pos) {
            ended.push((start + i, value));
        }
    }
    seen.moves.sort_unstable();
    expected.sort_unstable();
    assert_eq!(seen.moves, expected, "layer {k}, positions {start}+{len}");
    assert_eq!(
        seen.ended, ended,
        "ended positions of layer {k}, {start}+{len}"
    );
}

/// `check_runs_at` over every whole layer below the full one, and over windows that start
/// and end inside runs.
pub fn check_runs<G: Gameplay>(game: &G) {
    for k in 0..game.cells() {
        let size = game.layer_size(k);
        check_runs_at(game, k, 0, size as usize);
        for len in [1u64, 2, 5, 13, 64, 100] {
            let mut start = 0;
            while start < size {
                let l = len.min(size - start);
                check_runs_at(game, k, start, l as usize);
                start += l + len / 2;
            }
        }
    }
}

/// The parallel sweep computes the same values as the serial one.
pub fn check_parallel_equals_serial<G: Gameplay>(game: &G) {
    assert!(
        all_values(game, Driver::Serial) == all_values(game, Driver::Parallel),
        "the parallel sweep differs from the serial one"
    );
}

/// Game `G` on a random board of `rows` x `cols` (`Board::random`, weights in `0..=max`,
/// seeded): what `retro gen` prints, as the game itself.
pub fn random_game<G: crate::game::Registered>(
    rows: usize,
    cols: usize,
    seed: u64,
    max: u64,
) -> crate::Result<G> {
    use crate::game::Board;
    G::new(G::Board::random(
        rows,
        cols,
        &mut crate::random::SplitMix(seed),
        max,
    )?)
}

/// `check_game` for a game of the retrograde solver (`Game::retrograde`): ranks, stepping
/// and the notation round-trip; `moves` reaches exactly the children the solver is told of
/// (each distinct child within the layer once); the children in the next layer alone and
/// the count within agree with them; parents within a layer and children within it are
/// each other's inverse, over positions where play goes on; and the solve on one thread
/// equals the solve on several.
pub fn check_moving_game<G: Gameplay>(game: &G, solver: &dyn crate::retrograde::Retrograde) {
    use crate::retrograde::Child;
    let mut seen = HashSet::new();
    let mut reports = Vec::new();
    walk(game, |k, r, pos| {
        assert_eq!(game.stones(pos), k, "stones of rank {r} in layer {k}");
        assert_eq!(game.rank(pos), r, "rank of the position stepped to");
        let text = game.format_position(pos);
        assert_eq!(
            game.format_position(&game.unrank(k, r)),
            text,
            "unrank({k}, {r})"
        );
        assert!(seen.insert(text.clone()), "position {text} ranked twice");
        let parsed = game
            .parse_position(&text)
            .unwrap_or_else(|e| panic!("{text} does not parse back: {e}"));
        assert_eq!(game.rank(&parsed), r, "rank of {text} parsed back");
        let report = solver.report(k, r);
        let mut told: Vec<(usize, u64)> = report
            .children
            .iter()
            .map(|c| match *c {
                Child::Within(q) => (k, q),
                Child::Next(q) => (k + 1, q),
            })
            .collect();
        let mut within: Vec<u64> = told.iter().filter(|c| c.0 == k).map(|c| c.1).collect();
        within.sort_unstable();
        let distinct = within.len();
        within.dedup();
        assert_eq!(
            within.len(),
            distinct,
            "{text}: a child within the layer told twice"
        );
        assert_eq!(report.within, distinct, "children_within of {text}");
        let mut next: Vec<u64> = told.iter().filter(|c| c.0 == k + 1).map(|c| c.1).collect();
        next.sort_unstable();
        let mut next_alone = report.next.clone();
        next_alone.sort_unstable();
        assert_eq!(next, next_alone, "for_each_child_next of {text}");
        let mut moved: Vec<(usize, u64)> = game
            .moves(pos)
            .iter()
            .map(|m| (game.stones(&m.child), game.rank(&m.child)))
            .collect();
        moved.sort_unstable();
        moved.dedup();
        told.sort_unstable();
        told.dedup();
        assert_eq!(
            moved, told,
            "the moves of {text} against the solver's children"
        );
        assert_eq!(
            report.ended.is_some(),
            game.early_value(pos).is_some(),
            "{text}: ended"
        );
        if !solver.moves_within(k) {
            assert_eq!(
                distinct, 0,
                "{text}: a move within a layer said to have none"
            );
        }
        reports.push((k, r, report));
    });
    // Parents and children within a layer are each other's inverse.
    let index: std::collections::HashMap<(usize, u64), usize> = reports
        .iter()
        .enumerate()
        .map(|(i, (k, r, _))| ((*k, *r), i))
        .collect();
    for (k, r, report) in &reports {
        for &q in &report.parents {
            let parent = &reports[index[&(*k, q)]].2;
            assert!(
                parent.ended.is_none(),
                "layer {k}: parent {q} of {r} has ended"
            );
            assert!(
                parent.children.contains(&Child::Within(*r)),
                "layer {k}: {q} is told as a parent of {r}, which is not its child"
            );
        }
        for c in &report.children {
            if let Child::Within(c) = *c {
                let child = &reports[index[&(*k, c)]].2;
                assert!(
                    child.parents.contains(r),
                    "layer {k}: {r} is a parent of {c}, which does not tell it"
                );
            }
        }
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool of one thread")
        .install(|| solver.all_values())
        .expect("a solve in memory");
    let many = solver.all_values().expect("a solve in memory");
    assert_eq!(one, many, "one thread and several solve alike");
}
