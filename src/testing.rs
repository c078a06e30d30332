//! Conformance checks for any [`Game`](crate::game::Game): what the sweep, the table and the query tool rely
//! on, as functions a game's tests call. They panic with a message naming the position on
//! the first violation, as test assertions do. A new game gets them all with one call to
//! [`check_game`], plus [`check_values`] against a brute force of its own.
//!
//! ```
//! use retro::game::{Board, Twins, TwinsBoard};
//! use retro::SplitMix;
//!
//! let spec = TwinsBoard::random(2, 3, &mut SplitMix(1), 9).unwrap();
//! retro::testing::check_game(&Twins::new(spec).unwrap());
//! ```

use std::collections::HashSet;

use crate::game::{Edge, Gameplay, LayerKind, RunSink};
use crate::solve::Driver;
use crate::solve::{Worker, worker};

/// Every check below that needs no oracle: the layers' declarations, ranking, successor
/// stepping, notation, children, runs (over whole layers and windows that cut runs), parents
/// within layers that have moves inside them, and one thread against several.
pub fn check_game<G: Gameplay>(game: &G) {
    crate::solve::check_layers(game).unwrap_or_else(|e| panic!("the layers: {e}"));
    check_ranking(game);
    check_runs(game);
    check_parents(game);
    check_parallel_equals_serial(game);
}

/// Calls `f(layer, rank, position)` for every position of every layer, in rank order, by
/// successor stepping from each layer's first position.
pub fn walk<G: Gameplay>(game: &G, mut f: impl FnMut(usize, u64, &G::Position)) {
    for k in 0..=game.last_layer() {
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
    crate::solve::all_values::<G, i64>(game, driver).expect("an in-memory solve does not fail")
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
/// the text notation round-trips, and every child's incrementally computed layer and rank
/// equal those of the child rebuilt from its text, with the same reward as `moves` gives
/// (a child within the layer once however many moves reach it); the children outside the
/// layer alone and the count within agree with them; every child is in the layer itself (a
/// layer with moves inside it) or in one the layer declares; `for_each_move_in_order` and
/// `move_in_order` report the children in `moves` order.
pub fn check_ranking<G: Gameplay>(game: &G) {
    let mut seen = HashSet::new();
    walk(game, |k, r, pos| {
        assert_eq!(game.layer_of(pos), k, "stones of rank {r} in layer {k}");
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
        if game.ended(pos).is_none() {
            game.for_each_child(pos, |e| fast.push((e.layer, e.rank, e.reward)));
        }
        fast.sort_unstable();
        let within = fast.iter().filter(|c| c.0 == k).count();
        let mut distinct: Vec<_> = fast.iter().filter(|c| c.0 == k).collect();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            within,
            "{text}: a child within the layer told twice"
        );
        let (mut outside, mut both) = (Vec::new(), Vec::new());
        let (mut counted, mut counted_both) = (0, 0);
        if game.ended(pos).is_none() {
            game.for_each_child_outside(pos, |e| outside.push((e.layer, e.rank, e.reward)));
            counted = game.children_within(pos);
            counted_both = game.count_children(pos, |e| both.push((e.layer, e.rank, e.reward)));
        }
        outside.sort_unstable();
        both.sort_unstable();
        let told_outside: Vec<_> = fast.iter().copied().filter(|c| c.0 != k).collect();
        assert_eq!(outside, told_outside, "for_each_child_outside of {text}");
        // A game counts either its distinct children's entries or its moves within the
        // layer (`check_parents` checks the count against the weights told back).
        assert!(
            counted >= within,
            "children_within of {text}: {counted} < {within}"
        );
        assert_eq!(both, told_outside, "count_children's children of {text}");
        assert_eq!(counted_both, counted, "count_children's count of {text}");
        let declared = game.child_layers(k);
        for &(layer, rank, _) in &fast {
            assert!(
                declared.contains(&layer)
                    || (layer == k && game.layer_kind(k) == LayerKind::Fixpoint),
                "{text}: a child in layer {layer}, which layer {k} does not declare"
            );
            assert!(
                rank < game.layer_size(layer),
                "{text}: child rank {rank} out of layer {layer}"
            );
        }
        let children: Vec<(usize, u64, i64)> = game
            .moves(pos)
            .iter()
            .map(|mv| {
                let child = game.format_position(&mv.child);
                let rebuilt = game
                    .parse_position(&child)
                    .unwrap_or_else(|e| panic!("child {child} does not parse: {e}"));
                (game.layer_of(&rebuilt), game.rank(&rebuilt), mv.reward)
            })
            .collect();
        let slow: Vec<(u64, i64)> = children.iter().map(|c| (c.1, c.2)).collect();
        // `for_each_move_in_order` is `moves` in the same order: tables of best moves
        // store indices in it.
        let mut in_order = Vec::new();
        game.for_each_move_in_order(pos, |child, reward| {
            in_order.push((child, reward));
            std::ops::ControlFlow::Continue(())
        });
        assert_eq!(in_order, slow, "moves in order of {text}");
        if k < game.last_layer() {
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
        // Different moves may reach the same child within the layer, told once.
        let mut moved = children;
        moved.sort_unstable();
        let (mut kept, mut last_within) = (Vec::new(), None);
        for c in moved {
            if c.0 == k {
                if last_within == Some(c) {
                    continue;
                }
                last_within = Some(c);
            }
            kept.push(c);
        }
        assert_eq!(fast, kept, "children of {text}");
        if game.ended(pos).is_some() {
            assert!(
                game.moves(pos).is_empty(),
                "{text}: play has ended, yet it has moves"
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
        match game.ended(&pos) {
            Some(value) => ended.push((start + i, value)),
            None => {
                game.for_each_child(&pos, |e: Edge| expected.push((start + i, e.rank, e.reward)))
            }
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

/// `check_runs_at` over every whole layer the placement sweep solves below the full one, and
/// over windows that start and end inside runs.
pub fn check_runs<G: Gameplay>(game: &G) {
    for k in 0..game.last_layer() {
        if worker(game, k) != Worker::Sweep {
            continue;
        }
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

/// The serial and the parallel driver, and the parallel one on one thread and on several,
/// compute the same values.
pub fn check_parallel_equals_serial<G: Gameplay>(game: &G) {
    let many = all_values(game, Driver::Parallel);
    assert!(
        all_values(game, Driver::Serial) == many,
        "the parallel solve differs from the serial one"
    );
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool of one thread")
        .install(|| all_values(game, Driver::Parallel));
    assert!(one == many, "one thread and several solve differently");
}

/// In every layer with moves inside it, over positions where play goes on, parents within
/// the layer (`for_each_parent_within`) and children within it are each other's inverse,
/// no parent has ended, and each position's count of children (`children_within`) is the
/// sum of the weights its children tell it (however many tells they take).
pub fn check_parents<G: Gameplay>(game: &G) {
    use std::collections::HashMap;
    for k in 0..=game.last_layer() {
        if game.layer_kind(k) != LayerKind::Fixpoint {
            continue;
        }
        let mut children: HashMap<u64, Vec<u64>> = HashMap::new();
        let mut parents: HashMap<u64, Vec<u64>> = HashMap::new();
        let mut counted: HashMap<u64, usize> = HashMap::new();
        let mut weighed: HashMap<u64, usize> = HashMap::new();
        let mut ended = HashSet::new();
        let mut pos = game.unrank(k, 0);
        for r in 0..game.layer_size(k) {
            if r > 0 {
                game.advance(&mut pos);
            }
            if game.ended(&pos).is_some() {
                ended.insert(r);
            } else {
                let mut c = Vec::new();
                game.for_each_child(&pos, |e| {
                    if e.layer == k {
                        c.push(e.rank)
                    }
                });
                children.insert(r, c);
                counted.insert(r, game.children_within(&pos));
            }
            let mut p = Vec::new();
            game.for_each_parent_within(&pos, |q, weight| {
                assert!(weight > 0, "layer {k}: {r} tells parent {q} a weight of 0");
                p.push(q);
                *weighed.entry(q).or_default() += weight as usize;
            });
            // A parent may be told more than once (once per move undone): what must hold
            // is that its weights add up to its count, checked below.
            parents.insert(r, p);
        }
        for (&q, &count) in &counted {
            assert_eq!(
                weighed.get(&q).copied().unwrap_or(0),
                count,
                "layer {k}: {q} counts {count} children within, and is told other weights"
            );
        }
        for (&r, ps) in &parents {
            for &q in ps {
                assert!(
                    !ended.contains(&q),
                    "layer {k}: parent {q} of {r} has ended"
                );
                assert!(
                    children.get(&q).is_some_and(|c| c.contains(&r)),
                    "layer {k}: {q} is told as a parent of {r}, which is not its child"
                );
            }
        }
        for (&r, cs) in &children {
            for &c in cs {
                assert!(
                    parents.get(&c).is_some_and(|p| p.contains(&r)),
                    "layer {k}: {r} is a parent of {c}, which does not tell it"
                );
            }
        }
    }
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
