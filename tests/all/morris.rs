//! The Morris family against a brute force written here from the rules alone: the points,
//! lines and mills typed again from the diagrams, every position reachable from the start as
//! a plain key (both sides' points, both hands, the side to move), an explicit graph of
//! moves, and a plain level-by-level fixpoint over it (no ranking, no code of the library).
//! Every reachable position's value, remoteness included, is compared with the library's,
//! folded and unfolded, through the position's text; the reachable counts with those of an
//! independent solver of the same rules.

use std::collections::HashMap;

use rayon::prelude::*;

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

/// Twelve men's morris's diagonals: lines and mills of the 24-point board too.
const DIAGONALS_24: [[&str; 3]; 4] = [
    ["a1", "b2", "c3"],
    ["g1", "f2", "e3"],
    ["g7", "f6", "e5"],
    ["a7", "b6", "c5"],
];

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
    fn new(points: usize, stones: u32, flying: bool, diagonals: bool) -> Rules {
        let names: Vec<&'static str> = if points == 16 {
            POINTS_16.to_vec()
        } else {
            POINTS_24.to_vec()
        };
        let at = |n: &str| names.iter().position(|&p| p == n).unwrap();
        let mut mills: Vec<Vec<usize>> = if points == 16 {
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
        if diagonals {
            mills.extend(
                DIAGONALS_24
                    .iter()
                    .map(|m| m.iter().map(|p| at(p)).collect()),
            );
        }
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

    /// Whether the stone on `point` is in a mill of `stones`.
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
            let flies = self.flying && mine.count_ones() == 3;
            for f in (0..n).filter(|&p| mine >> p & 1 == 1) {
                for &t in &empty {
                    if flies || self.neighbours[f].contains(&t) {
                        steps.push((Some(f), t));
                    }
                }
            }
        }
        // The opponent's stones a mill may take: those in no mill of theirs, or any.
        let all: Vec<usize> = (0..n).filter(|&p| theirs >> p & 1 == 1).collect();
        let free: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&p| !self.in_mill(theirs, p))
            .collect();
        let takes = if free.is_empty() { all } else { free };
        let mut out = Vec::new();
        for (from, to) in steps {
            let mut moved = mine | 1 << to;
            if let Some(f) = from {
                moved &= !(1 << f);
            }
            let child = |t: u32| {
                let (nx, no) = if side == 0 { (moved, t) } else { (t, moved) };
                key(nx, no, after, 1 - side)
            };
            if self.in_mill(moved, to) && theirs != 0 {
                out.extend(takes.iter().map(|&p| child(theirs & !(1 << p))));
            } else {
                out.push(child(theirs));
            }
        }
        out
    }

    /// Every position reachable from the start, in the order a breadth-first search meets
    /// them, with their children (indices) as one list: position i's are
    /// `children[first[i]..first[i + 1]]`.
    fn graph(&self) -> (Vec<Key>, Vec<u32>, Vec<u32>) {
        let start = key(0, 0, [self.stones, self.stones], 0);
        let mut index: HashMap<Key, u32> = HashMap::from([(start, 0)]);
        let mut keys = vec![start];
        let (mut children, mut first) = (Vec::new(), vec![0u32]);
        let mut i = 0;
        while i < keys.len() {
            for c in self.children(keys[i]) {
                let at = *index.entry(c).or_insert_with(|| {
                    keys.push(c);
                    (keys.len() - 1) as u32
                });
                children.push(at);
            }
            first.push(children.len() as u32);
            i += 1;
        }
        (keys, first, children)
    }

    /// Every reachable position's value by plain retrograde analysis over the explicit
    /// graph, level by level: positions without a child are lost in 0; a position with a
    /// child lost in d wins in d + 1 (the first such level is the fastest), one whose last
    /// undecided child is won in d loses in d + 1 (the last is the slowest); what is never
    /// decided draws.
    fn solve(&self) -> (Vec<Key>, Vec<Wdl>) {
        let (keys, first, children) = self.graph();
        let n = keys.len();
        let mut parents_first = vec![0u32; n + 1];
        for &c in &children {
            parents_first[c as usize + 1] += 1;
        }
        for i in 0..n {
            parents_first[i + 1] += parents_first[i];
        }
        let mut fill = parents_first.clone();
        let mut parents = vec![0u32; children.len()];
        for i in 0..n {
            for &c in &children[first[i] as usize..first[i + 1] as usize] {
                parents[fill[c as usize] as usize] = i as u32;
                fill[c as usize] += 1;
            }
        }
        let mut open: Vec<u32> = (0..n).map(|i| first[i + 1] - first[i]).collect();
        let mut value: Vec<Option<Wdl>> = vec![None; n];
        let mut level: Vec<usize> = (0..n).filter(|&i| open[i] == 0).collect();
        for &i in &level {
            value[i] = Some(Wdl::Loss(0));
        }
        while !level.is_empty() {
            let mut next = Vec::new();
            for &c in &level {
                let v = value[c].unwrap();
                for &p in &parents[parents_first[c] as usize..parents_first[c + 1] as usize] {
                    let p = p as usize;
                    if value[p].is_some() {
                        continue;
                    }
                    match v {
                        Wdl::Loss(d) => {
                            value[p] = Some(Wdl::Win(d + 1));
                            next.push(p);
                        }
                        Wdl::Win(d) => {
                            open[p] -= 1;
                            if open[p] == 0 {
                                value[p] = Some(Wdl::Loss(d + 1));
                                next.push(p);
                            }
                        }
                        Wdl::Draw => unreachable!(),
                    }
                }
            }
            level = next;
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

/// The brute force and the library agree on every reachable position (folded, and where
/// `self_check`, unfolded too); returns the reachable count and the start's value. A
/// `twelve` variant has the diagonals. `self_check` also runs the library's own checks of the game over every rank (`testing::check_game`: ranking, runs,
/// parents, parallel against serial), which take minutes past a million positions.
fn check(
    variant: &str,
    points: usize,
    stones: u32,
    flying: bool,
    self_check: bool,
) -> (usize, Wdl) {
    let rules = Rules::new(points, stones, flying, variant.starts_with("twelve"));
    let (keys, values) = rules.solve();
    let board: MorrisBoard = retro::game::Board::parse(variant).unwrap();
    // The unfolded game on the boards checked in full; the folded one, the default, always.
    let mut games = vec![Morris::new(board.clone()).unwrap()];
    if self_check {
        games.push(Morris::unfolded(board).unwrap());
    }
    for game in games {
        if self_check {
            retro::testing::check_game(&game);
        }
        let layers = solved(&game);
        keys.par_iter().zip(&values).for_each(|(&k, &want)| {
            let text = rules.text(k);
            let pos = game
                .parse_position(&text)
                .unwrap_or_else(|e| panic!("{variant}: {text} refused: {e}"));
            let got = layers[game.layer_of(&pos)][game.rank(&pos) as usize];
            assert_eq!(Wdl::decode(got as i64), want, "{variant}: {text}");
        });
    }
    (keys.len(), values[0])
}

#[test]
fn six_with_three_stones_matches_the_brute_force_on_every_reachable_position() {
    let (reachable, root) = check("six stones=3", 16, 3, false, true);
    assert_eq!(reachable, 368_513);
    assert_eq!(root, Wdl::Draw);
}

#[test]
fn six_with_three_stones_and_flying_matches_the_brute_force() {
    check("six stones=3 flying", 16, 3, true, true);
}

#[test]
fn six_with_four_stones_matches_the_brute_force() {
    let (reachable, root) = check("six stones=4", 16, 4, false, false);
    assert_eq!(reachable, 4_111_151);
    assert_eq!(root, Wdl::Draw);
}

#[test]
fn nine_with_three_stones_matches_the_brute_force() {
    let (reachable, root) = check("nine stones=3", 24, 3, true, false);
    assert_eq!(reachable, 5_798_245);
    assert_eq!(root, Wdl::Win(23));
}

#[test]
fn six_with_four_stones_and_flying_matches_the_brute_force() {
    check("six stones=4 flying", 16, 4, true, false);
}

/// A table of six men's morris with 3 stones in every command: the start a draw, moves
/// named as players write them (a removal after the move), the hands shown and exported,
/// positions that cannot arise refused with the reason.
#[test]
fn morris_in_the_commands() {
    use crate::common::{fails, ok, retro};
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("m.retro");
    let table = table.to_str().unwrap();
    ok(&retro(
        &["build", "morris", "six stones=3", "-o", table],
        "",
    ));
    let start = ok(&retro(&["query", table, "start"], ""));
    assert!(start.contains("draw"), "{start}");
    assert!(start.contains("in hand x 3, o 3"), "{start}");
    // x closes a5-c5-e5 by placing on e5 and takes one of o's stones (none is in a mill).
    let text = "xx./oo./..../.../... 1 1 x";
    let answer = ok(&retro(&["query", table, text], ""));
    for mv in ["e5xb4", "e5xc4", "a3"] {
        assert!(answer.contains(mv), "{mv} in {answer}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&ok(&retro(&["query", table, text, "--json"], ""))).unwrap();
    assert_eq!(json["in_hand"], serde_json::json!({"x": 1, "o": 1}));
    assert_eq!(json["stones"], 4);
    assert_eq!(json["result"], "win");
    assert_eq!(json["remoteness"], 1);
    let capture = json["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "e5xb4")
        .unwrap_or_else(|| panic!("no e5xb4 in {json}"));
    // e5 is row 1, column 5 of the 5 x 5 grid; b4 row 2, column 2.
    assert_eq!(capture["cell"], serde_json::json!([1, 5]));
    assert_eq!(capture["take"], serde_json::json!([2, 2]));
    // The best move wins at once: it closes the mill and leaves o with 2 stones.
    let best = json["best"][0].as_str().unwrap();
    assert!(best.starts_with("e5x"), "{best}");
    fails(
        &retro(&["query", table, "xx./.../..../o../... 0 0 o"], ""),
        2,
        "x has fewer than 3 stones",
    );
    fails(
        &retro(&["query", table, "xx./.../..../oo./... 1 1 o"], ""),
        2,
        "x places first",
    );
    let csv = dir.path().join("m.csv");
    ok(&retro(&["export", table, "-o", csv.to_str().unwrap()], ""));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "position,stones,x_in_hand,o_in_hand,to_move,value_to_move,best_move,result,remoteness,reachable,orbit_size"
    );
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&first[..4], [".../.../..../.../... 3 3 x", "0", "3", "3"]);
    // Every best move of a position with moves is a point's name: `a5`, `a5-a3`, `e5xb4`.
    for line in csv.lines().skip(1) {
        let best = line.split(',').nth(6).unwrap();
        assert!(
            best.is_empty() || best.as_bytes()[0].is_ascii_lowercase(),
            "{line}"
        );
    }
    ok(&retro(&["verify", table], ""));
    let info = ok(&retro(&["info", table], ""));
    assert!(
        info.contains("placement by placements made") && !info.contains("stones)"),
        "{info}"
    );
    // `play` reads moves as the list writes them and draws the board with its own labels.
    let game = ok(&retro(&["play", table], "a5\nc5\nquit\n"));
    assert!(game.contains("you play a5"), "{game}");
    assert!(
        game.contains("illegal move \"c5\"; legal moves: "),
        "{game}"
    );
    assert!(game.contains("  a   b   c   d   e"), "{game}");
}

#[test]
fn twelve_with_three_stones_matches_the_brute_force() {
    let (_, root) = check("twelve stones=3", 24, 3, true, false);
    // With the diagonals x wins in 9 plies (without them, in 23: nine stones=3).
    assert_eq!(root, Wdl::Win(9));
}

/// The moving phase alone (`moving`: both hands empty, Gasser's databases) holds the same
/// values as the whole game's movement layers, position by position, and refuses positions
/// with stones in hand and the start.
#[test]
fn the_moving_phase_alone_matches_the_whole_game() {
    for variant in ["six stones=4", "nine stones=3", "six stones=3 flying"] {
        let whole: MorrisBoard = retro::game::Board::parse(variant).unwrap();
        let moving: MorrisBoard = retro::game::Board::parse(&format!("{variant} moving")).unwrap();
        assert!(moving.moving && !whole.moving);
        let (whole, moving) = (Morris::new(whole).unwrap(), Morris::new(moving).unwrap());
        let (all, part) = (solved(&whole), solved(&moving));
        let mut compared = 0usize;
        for (k, values) in part.iter().enumerate() {
            (0..values.len() as u64).into_par_iter().for_each(|r| {
                let pos = moving.unrank(k, r);
                let text = moving.format_position(&pos);
                let there = whole.parse_position(&text).unwrap();
                let want = all[whole.layer_of(&there)][whole.rank(&there) as usize];
                assert_eq!(values[r as usize], want, "{variant} moving: {text}");
            });
            compared += values.len();
        }
        // Every movement entry of the whole game is in the moving table (and the lost one).
        let movement: usize = (0..=whole.last_layer())
            .filter(|&k| {
                let pos = whole.unrank(k, 0);
                whole.hands(&pos) == Some([0, 0])
            })
            .map(|k| whole.layer_size(k) as usize)
            .sum();
        assert_eq!(compared, movement, "{variant}");
        let start = moving.parse_position("start").unwrap_err().to_string();
        assert!(start.contains("no start"), "{start}");
        let text = whole.format_position(&whole.parse_position("start").unwrap());
        let placing = moving.parse_position(&text).unwrap_err().to_string();
        assert!(placing.contains("moving phase only"), "{placing}");
    }
}

/// A table written before the board had the `moving` option (its header's board is one
/// field shorter) opens, verifies and answers as a table built now, position by position.
#[test]
fn a_table_from_before_the_moving_option_opens_and_answers() {
    use crate::common::{ok, retro};
    let old = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/morris-six-stones3-before-moving.retro"
    );
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("n.retro");
    let new = new.to_str().unwrap();
    ok(&retro(
        &["build", "morris", "six stones=3", "-o", new, "-q"],
        "",
    ));
    let info = ok(&retro(&["info", old], ""));
    assert!(
        info.contains("six men's morris: 16 points, 3 stones each"),
        "{info}"
    );
    ok(&retro(&["verify", old, "-q"], ""));
    let export = |table: &str| {
        let out = dir.path().join("e.csv");
        let out = out.to_str().unwrap();
        ok(&retro(&["export", table, "--csv", "-o", out, "-q"], ""));
        std::fs::read_to_string(out).unwrap()
    };
    let (before, now) = (export(old), export(new));
    assert_eq!(before.lines().count(), 13_767);
    assert_eq!(before, now);
}

/// Nine Men's Morris's moving phase has wins 203 plies long: past what an `i8` holds, so
/// morris stores its values in one byte as halved codes (wins are in odd plies, losses in
/// even) from its first layer on. Forced on a small Teeko board (the `--halve-values` test
/// hook), whose values fit an `i8` too, the halved table holds the same values as the `i8`
/// one, plain and compact, verifies, and a build cut short at any step resumes to the same
/// bytes. Quixo, where a push may complete the other side's line (a win in 0 plies), has
/// values without a code: the forced build stops with an error.
#[test]
fn halved_one_byte_values_read_back_as_the_values() {
    use crate::common::{fails, ok, retro};
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (plain, halved, compact) = (path("p.retro"), path("h.retro"), path("hc.retro"));
    let build = |out: &str, extra: &[&str]| {
        let mut args = vec!["build", "teeko", "4x4s3", "-q", "-o", out];
        args.extend_from_slice(extra);
        retro(&args, "")
    };
    ok(&build(&plain, &[]));
    ok(&build(&halved, &["--halve-values"]));
    ok(&build(&compact, &["--halve-values", "--compact"]));
    let value_type = |t: &str| -> String {
        let info: serde_json::Value =
            serde_json::from_str(&ok(&retro(&["info", t, "--json"], ""))).unwrap();
        info["value_type"].as_str().unwrap().to_string()
    };
    assert_eq!(value_type(&plain), "i8");
    assert_eq!(value_type(&halved), "i8-halved");
    assert_eq!(value_type(&compact), "i8-halved");
    let morris = path("m.retro");
    ok(&retro(
        &["build", "morris", "six stones=3", "-q", "-o", &morris],
        "",
    ));
    assert_eq!(value_type(&morris), "i8-halved");
    let quixo = path("q.retro");
    fails(
        &retro(
            &[
                "build",
                "quixo",
                "3x3",
                "-q",
                "--halve-values",
                "-o",
                &quixo,
            ],
            "",
        ),
        1,
        "does not fit the table's one-byte values",
    );
    assert!(!std::path::Path::new(&quixo).exists());
    for t in [&halved, &compact] {
        let diff = ok(&retro(&["diff", &plain, t], ""));
        assert!(diff.contains("agree"), "{diff}");
        ok(&retro(&["verify", t], ""));
        // Every position's value in words, as the i8 table gives it.
        let csv = |t: &str, name: &str| {
            let out = path(name);
            ok(&retro(&["export", t, "--csv", "-o", &out], ""));
            std::fs::read(&out).unwrap()
        };
        assert_eq!(csv(&plain, "p.csv"), csv(t, "h.csv"));
    }
    // Some values are stored as codes other than themselves: wins of more than 1 ply.
    let stats: serde_json::Value =
        serde_json::from_str(&ok(&retro(&["stats", &halved, "--json"], ""))).unwrap();
    assert!(
        stats["total"]["longest_win"].as_u64().unwrap() > 3,
        "{stats}"
    );
    // Cut short before each step of its writes, a halved build resumes to the same bytes.
    let want = std::fs::read(&halved).unwrap();
    let cut = path("cut.retro");
    let mut steps = 0;
    for step in 1.. {
        let _ = std::fs::remove_file(&cut);
        let n = step.to_string();
        let run = build(&cut, &["--halve-values", "--crash-before-step", &n]);
        if run.status.success() {
            break;
        }
        steps += 1;
        ok(&build(&cut, &["--halve-values"]));
        assert_eq!(std::fs::read(&cut).unwrap(), want, "step {step}");
    }
    assert!(steps > 10, "only {steps} steps");
}

/// Positions the rules say cannot arise are refused with the reason, before any value is
/// read (the side to move with fewer than 3 stones was once answered "has lost" first);
/// no position play reaches is refused; and `export`'s `reachable` column, from the
/// forward pass, marks exactly the positions the brute force reaches.
#[test]
fn positions_that_cannot_arise_are_refused_and_reachable_is_exact() {
    use std::collections::HashSet;
    let rules = Rules::new(16, 3, false, false);
    let (keys, _, _) = rules.graph();
    let board: MorrisBoard = retro::game::Board::parse("six stones=3").unwrap();
    let game = Morris::new(board).unwrap();
    keys.par_iter().for_each(|&k| {
        let text = rules.text(k);
        let pos = game.parse_position(&text).unwrap();
        if let Err(e) = game.check_reachable(&pos) {
            panic!("{text} is reached, but refused: {e}");
        }
    });
    // Every position, those lost for want of stones too (one entry, a row each).
    let reached: HashSet<String> = keys.iter().map(|&k| rules.text(k)).collect();
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("six3.retro");
    let t = table.to_str().unwrap();
    crate::common::ok(&crate::common::retro(
        &["build", "morris", "six stones=3", "-q", "-o", t],
        "",
    ));
    let csv = crate::common::ok(&crate::common::retro(
        &["export", t, "--all", "--csv", "-o", "-", "-q"],
        "",
    ));
    let mut marked = 0;
    for line in csv.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let text = fields[0].replace('/', "");
        let reachable = fields[fields.len() - 1] == "true";
        assert_eq!(reachable, reached.contains(&text), "{text}");
        marked += usize::from(reachable);
    }
    assert_eq!(marked, reached.len());
    // What the position itself shows, with the reason.
    for (variant, position, why) in [
        (
            "six",
            "ooo.o........... 2 2 x",
            "a side loses a stone only to a mill",
        ),
        ("six", "o.o.o........... 2 3 x", "it is o's turn"),
        ("six moving", "x............ooo 1 0 x", "moving phase only"),
        (
            "six stones=3",
            "xxx/ooo/..../.../... 0 0 o",
            "x's last move closed one",
        ),
    ] {
        // A table per board: a build does not replace another board's table.
        let table = dir
            .path()
            .join(format!("{}.retro", variant.replace(' ', "-")));
        let t = table.to_str().unwrap();
        crate::common::ok(&crate::common::retro(
            &["build", "morris", variant, "-q", "--fresh", "-o", t],
            "",
        ));
        crate::common::fails(&crate::common::retro(&["query", t, position], ""), 2, why);
    }
    // A position that passes says that reaching it was not checked; given as moves from the
    // start (none here), it is reached.
    let out = crate::common::ok(&crate::common::retro(&["query", t, "start"], ""));
    assert!(out.contains("reached   yes"), "{out}");
    let start = out
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("position")
        .trim();
    let out = crate::common::ok(&crate::common::retro(&["query", t, start], ""));
    assert!(out.contains("reached   not checked"), "{out}");
}

/// Whether the side to move at `k` has fewer than 3 stones, on the board and in hand: lost
/// for want of stones.
fn lost_for_want_of_stones(k: Key) -> bool {
    let (x, o, hands, side) = unkey(k);
    let mine = if side == 0 { x } else { o };
    mine.count_ones() + hands[side as usize] < 3
}

/// C(n, k), for counts written out here.
fn choose(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |c, i| c * (n - i) / (i + 1))
}

/// The positions lost for want of stones are one entry of the table, but counted, reached
/// and exported one by one: on `six stones=3`, the count the rules give (the side to move
/// left with 2 stones against 3 while moving, or with 1 on the board and 1 in hand after
/// x's third stone closed a mill), the reachable ones the brute force reaches, and a row
/// each in `export --all`, marked reachable exactly where the brute force reaches it.
#[test]
fn lost_positions_are_counted_reached_and_exported_one_by_one() {
    use std::collections::HashSet;
    let rules = Rules::new(16, 3, false, false);
    let (keys, _, _) = rules.graph();
    let reached: HashSet<String> = keys
        .iter()
        .filter(|&&k| lost_for_want_of_stones(k))
        .map(|&k| rules.text(k))
        .collect();
    assert_eq!(reached.len(), 1352);
    assert_eq!(keys.len(), 368_513);
    // Moving: either side to move, 2 stones against 3 on the 16 points. Placing: o to move
    // with 1 stone on the board and 1 in hand, x's 3 on the board.
    let counted = 2 * choose(16, 2) * choose(14, 3) + choose(16, 3) * choose(13, 1);
    assert_eq!(counted, 94_640);

    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("six3.retro");
    let t = table.to_str().unwrap();
    let retro = crate::common::retro;
    let ok = crate::common::ok;
    ok(&retro(
        &["build", "morris", "six stones=3", "-q", "-o", t],
        "",
    ));
    let stats: serde_json::Value =
        serde_json::from_str(&ok(&retro(&["stats", t, "--json", "--reachable"], ""))).unwrap();
    let layers = stats["layers"].as_array().unwrap();
    let lost = layers.last().unwrap();
    assert_eq!(lost["entries"], 1, "{lost}");
    assert_eq!(lost["lumped"], true, "{lost}");
    assert_eq!(lost["positions"].as_u64(), Some(counted), "{lost}");
    assert_eq!(lost["losses"].as_u64(), Some(counted), "{lost}");
    assert_eq!(
        lost["reachable"].as_u64(),
        Some(reached.len() as u64),
        "{lost}"
    );
    assert_eq!(stats["total"]["reachable"].as_u64(), Some(368_513));
    assert!(
        layers[..layers.len() - 1]
            .iter()
            .all(|l| l.get("lumped").is_none())
    );
    let k = lost["layer"].to_string();
    // The text says which layer is counted and not stored.
    let text = ok(&retro(&["stats", t], ""));
    let note = format!("(layer {k}: one entry stands for its {counted} positions");
    assert!(text.contains(&note), "{text}");
    let info: serde_json::Value =
        serde_json::from_str(&ok(&retro(&["info", t, "--json"], ""))).unwrap();
    let positions: u64 = (0..layers.len())
        .map(|i| layers[i]["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(info["positions"].as_u64(), Some(positions), "{info}");
    assert_eq!(info["lumped_layers"], serde_json::json!([lost["layer"]]));
    assert!(
        ok(&retro(&["info", t], ""))
            .contains(&format!("layer {k}, one entry for its {counted} positions"))
    );
    // A row per lost position, each once, in the lost layer, and marked reachable where
    // the brute force reaches it; folded or not, the same rows.
    let unfolded = dir.path().join("six3u.retro");
    let u = unfolded.to_str().unwrap();
    ok(&retro(
        &[
            "build",
            "morris",
            "six stones=3",
            "-q",
            "--no-fold",
            "-o",
            u,
        ],
        "",
    ));
    let mut exports = Vec::new();
    for t in [t, u] {
        let csv = ok(&retro(
            &[
                "export", t, "--all", "--csv", "-o", "-", "-q", "--layer", &k,
            ],
            "",
        ));
        let mut rows = HashSet::new();
        let mut marked = HashSet::new();
        for line in csv.lines().skip(1) {
            let fields: Vec<&str> = line.split(',').collect();
            let text = fields[0].replace('/', "");
            assert!(rows.insert(text.clone()), "{text} written twice");
            assert_eq!(fields[fields.len() - 3], "loss", "{line}");
            if fields[fields.len() - 1] == "true" {
                marked.insert(text);
            }
        }
        assert_eq!(rows.len() as u64, counted);
        assert_eq!(marked, reached);
        let mut rows: Vec<String> = rows.into_iter().collect();
        rows.sort_unstable();
        exports.push(rows);
    }
    assert_eq!(exports[0], exports[1]);
    // The lost layer's positions are numbered without gaps, each parses back into the
    // lost layer and passes `query`'s checks; a walk from any index goes on from there.
    for variant in ["six stones=3", "six stones=4", "nine stones=3 moving"] {
        let game = Morris::new(retro::game::Board::parse(variant).unwrap()).unwrap();
        let last = game.last_layer();
        assert!(game.lumped(last) && !game.lumped(0), "{variant}");
        let n = game.layer_positions(last);
        let mut seen = 0;
        for (i, pos) in game.lumped_positions(last, 0).enumerate() {
            assert_eq!(game.lumped_index(&pos), Some(i as u64), "{variant}");
            let text = game.format_position(&pos);
            let parsed = game.parse_position(&text).unwrap();
            assert_eq!(game.layer_of(&parsed), last, "{text}");
            assert!(game.check_reachable(&parsed).is_ok(), "{text}");
            seen += 1;
        }
        assert_eq!(seen, n, "{variant}");
        let from = n - n / 3;
        let rest: Vec<u64> = game
            .lumped_positions(last, from)
            .map(|p| game.lumped_index(&p).unwrap())
            .collect();
        assert_eq!(rest, (from..n).collect::<Vec<u64>>(), "{variant}");
        assert!(game.lumped_positions(last, n).next().is_none(), "{variant}");
        assert!(game.lumped_positions(0, 0).next().is_none(), "{variant}");
    }
}
