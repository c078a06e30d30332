//! The Morris family against a brute force written here from the rules alone: the points,
//! lines and mills typed again from the diagrams, every position reachable from the start as
//! a plain key (both sides' points, both hands, the side to move), an explicit graph of
//! moves, and a plain level-by-level fixpoint over it (no ranking, no code of the library).
//! Every reachable position's value, remoteness included, is compared with the library's,
//! folded and unfolded, through the position's text; the reachable counts with those of an
//! independent solver of the same rules.

use std::collections::HashMap;

use retro::game::{Game, Gameplay, Morris, MorrisBoard, Wdl};

/// The 16-point board's points in reading order, its mills and its two-point links.
const POINTS_16: [&str; 16] = [
    "a5", "c5", "e5", "b4", "c4", "d4", "a3", "b3", "d3", "e3", "b2", "c2", "d2", "a1", "c1", "e1",
];
const MILLS_16: [[&str; 3]; 8] = [
    ["a5", "c5", "e5"],
    ["e5", "e3", "e1"],
    ["a1", "c1", "e1"],
    ["a5", "a3", "a1"],
    ["b4", "c4", "d4"],
    ["d4", "d3", "d2"],
    ["b2", "c2", "d2"],
    ["b4", "b3", "b2"],
];
const LINKS_16: [[&str; 2]; 4] = [["a3", "b3"], ["d3", "e3"], ["c1", "c2"], ["c4", "c5"]];

const POINTS_24: [&str; 24] = [
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3",
    "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
];
const MILLS_24: [[&str; 3]; 16] = [
    ["a7", "d7", "g7"],
    ["g7", "g4", "g1"],
    ["a1", "d1", "g1"],
    ["a7", "a4", "a1"],
    ["b6", "d6", "f6"],
    ["f6", "f4", "f2"],
    ["b2", "d2", "f2"],
    ["b6", "b4", "b2"],
    ["c5", "d5", "e5"],
    ["e5", "e4", "e3"],
    ["c3", "d3", "e3"],
    ["c5", "c4", "c3"],
    ["a4", "b4", "c4"],
    ["e4", "f4", "g4"],
    ["d7", "d6", "d5"],
    ["d3", "d2", "d1"],
];

/// A position: x's points, o's points (bit i: the i-th point in reading order), both hands
/// and the side to move, packed in one word.
type Key = u64;

fn key(x: u32, o: u32, hands: [u32; 2], side: u32) -> Key {
    x as u64
        | (o as u64) << 24
        | (hands[0] as u64) << 48
        | (hands[1] as u64) << 53
        | (side as u64) << 58
}

fn unkey(k: Key) -> (u32, u32, [u32; 2], u32) {
    let m = (1u64 << 24) - 1;
    (
        (k & m) as u32,
        (k >> 24 & m) as u32,
        [(k >> 48 & 31) as u32, (k >> 53 & 31) as u32],
        (k >> 58 & 1) as u32,
    )
}

struct Rules {
    names: Vec<&'static str>,
    mills: Vec<Vec<usize>>,
    neighbours: Vec<Vec<usize>>,
    stones: u32,
    flying: bool,
}

impl Rules {
    fn new(points: usize, stones: u32, flying: bool) -> Rules {
        let names: Vec<&'static str> = if points == 16 {
            POINTS_16.to_vec()
        } else {
            POINTS_24.to_vec()
        };
        let at = |n: &str| names.iter().position(|&p| p == n).unwrap();
        let mills: Vec<Vec<usize>> = if points == 16 {
            MILLS_16
                .iter()
                .map(|m| m.iter().map(|p| at(p)).collect())
                .collect()
        } else {
            MILLS_24
                .iter()
                .map(|m| m.iter().map(|p| at(p)).collect())
                .collect()
        };
        let mut neighbours = vec![Vec::new(); points];
        let mut link = |a: usize, b: usize| {
            neighbours[a].push(b);
            neighbours[b].push(a);
        };
        for m in &mills {
            link(m[0], m[1]);
            link(m[1], m[2]);
        }
        if points == 16 {
            for l in LINKS_16 {
                link(at(l[0]), at(l[1]));
            }
        }
        Rules {
            names,
            mills,
            neighbours,
            stones,
            flying,
        }
    }

    fn in_mill(&self, stones: u32, point: usize) -> bool {
        self.mills
            .iter()
            .any(|m| m.contains(&point) && m.iter().all(|&p| stones >> p & 1 == 1))
    }

    /// The position's children, one per move (the same child may come twice); none where
    /// the side to move has fewer than 3 stones.
    fn children(&self, k: Key) -> Vec<Key> {
        let (x, o, hands, side) = unkey(k);
        let (mine, theirs) = if side == 0 { (x, o) } else { (o, x) };
        let s = side as usize;
        if mine.count_ones() + hands[s] < 3 {
            return Vec::new();
        }
        let n = self.names.len();
        let empty: Vec<usize> = (0..n).filter(|&p| (x | o) >> p & 1 == 0).collect();
        // (from, to) pairs.
        let mut steps = Vec::new();
        let mut after = hands;
        if hands[s] > 0 {
            after[s] -= 1;
            steps.extend(empty.iter().map(|&t| (None, t)));
        } else {
            for f in (0..n).filter(|&p| mine >> p & 1 == 1) {
                for &t in &empty {
                    let flies = self.flying && mine.count_ones() == 3;
                    if flies || self.neighbours[f].contains(&t) {
                        steps.push((Some(f), t));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (from, to) in steps {
            let mut moved = mine | 1 << to;
            if let Some(f) = from {
                moved &= !(1 << f);
            }
            let mut theirs_after = vec![theirs];
            if self.in_mill(moved, to) && theirs != 0 {
                let all: Vec<usize> = (0..n).filter(|&p| theirs >> p & 1 == 1).collect();
                let free: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&p| !self.in_mill(theirs, p))
                    .collect();
                let pick = if free.is_empty() { all } else { free };
                theirs_after = pick.iter().map(|&p| theirs & !(1 << p)).collect();
            }
            for t in theirs_after {
                let (nx, no) = if side == 0 { (moved, t) } else { (t, moved) };
                out.push(key(nx, no, after, 1 - side));
            }
        }
        out
    }

    /// Every position reachable from the start, with its children (indices).
    fn graph(&self) -> (Vec<Key>, Vec<Vec<u32>>) {
        let start = key(0, 0, [self.stones, self.stones], 0);
        let mut index: HashMap<Key, u32> = HashMap::from([(start, 0)]);
        let mut keys = vec![start];
        let mut children = Vec::new();
        let mut i = 0;
        while i < keys.len() {
            let kids: Vec<u32> = self
                .children(keys[i])
                .into_iter()
                .map(|c| {
                    *index.entry(c).or_insert_with(|| {
                        keys.push(c);
                        (keys.len() - 1) as u32
                    })
                })
                .collect();
            children.push(kids);
            i += 1;
        }
        (keys, children)
    }

    /// Every reachable position's value by a plain fixpoint: at level d, a position wins in d
    /// (d odd) if a child loses in d - 1, loses in d (d even) if every child wins in less than
    /// d and one in d - 1 (or it has no child: lost in 0); what is never decided draws.
    fn solve(&self) -> (Vec<Key>, Vec<Wdl>) {
        let (keys, children) = self.graph();
        let mut value: Vec<Option<Wdl>> = vec![None; keys.len()];
        let mut open: Vec<usize> = (0..keys.len()).collect();
        let (mut d, mut quiet) = (0u32, 0);
        while quiet < 2 {
            let mut decided = Vec::new();
            for &i in &open {
                let kids = &children[i];
                let now = if d % 2 == 1 {
                    kids.iter()
                        .any(|&c| value[c as usize] == Some(Wdl::Loss(d - 1)))
                } else {
                    kids.iter()
                        .all(|&c| matches!(value[c as usize], Some(Wdl::Win(r)) if r < d))
                        && (kids.is_empty()
                            || kids
                                .iter()
                                .any(|&c| d > 0 && value[c as usize] == Some(Wdl::Win(d - 1))))
                };
                if now {
                    decided.push(i);
                }
            }
            for &i in &decided {
                value[i] = Some(if d % 2 == 1 {
                    Wdl::Win(d)
                } else {
                    Wdl::Loss(d)
                });
            }
            open.retain(|&i| value[i].is_none());
            quiet = if decided.is_empty() { quiet + 1 } else { 0 };
            d += 1;
        }
        (
            keys,
            value.into_iter().map(|v| v.unwrap_or(Wdl::Draw)).collect(),
        )
    }

    /// A position in the notation: the points in reading order, both hands, the side.
    fn text(&self, k: Key) -> String {
        let (x, o, hands, side) = unkey(k);
        let points: String = (0..self.names.len())
            .map(|p| {
                if x >> p & 1 == 1 {
                    'x'
                } else if o >> p & 1 == 1 {
                    'o'
                } else {
                    '.'
                }
            })
            .collect();
        format!(
            "{points} {} {} {}",
            hands[0],
            hands[1],
            if side == 0 { 'x' } else { 'o' }
        )
    }
}

/// Every layer's values, solved in memory by the library.
fn solved(game: &Morris) -> Vec<Vec<i16>> {
    retro::solve::all_values::<Morris, i16>(game, retro::Driver::Parallel).unwrap()
}

/// The brute force and the library, folded and unfolded, agree on every reachable
/// position; returns the reachable count and the start's value.
fn check(variant: &str, points: usize, stones: u32, flying: bool) -> (usize, Wdl) {
    let rules = Rules::new(points, stones, flying);
    let (keys, values) = rules.solve();
    let board: MorrisBoard = retro::game::Board::parse(variant).unwrap();
    for game in [
        Morris::new(board.clone()).unwrap(),
        Morris::unfolded(board).unwrap(),
    ] {
        retro::testing::check_game(&game);
        let layers = solved(&game);
        for (&k, &want) in keys.iter().zip(&values) {
            let text = rules.text(k);
            let pos = game
                .parse_position(&text)
                .unwrap_or_else(|e| panic!("{variant}: {text} refused: {e}"));
            let got = layers[game.layer_of(&pos)][game.rank(&pos) as usize];
            assert_eq!(Wdl::decode(got as i64), want, "{variant}: {text}");
        }
    }
    (keys.len(), values[0])
}

#[test]
fn six_with_three_stones_matches_the_brute_force_on_every_reachable_position() {
    let (reachable, root) = check("six stones=3", 16, 3, false);
    assert_eq!(reachable, 368_513);
    assert_eq!(root, Wdl::Draw);
}

#[test]
fn six_with_three_stones_and_flying_matches_the_brute_force() {
    check("six stones=3 flying", 16, 3, true);
}
