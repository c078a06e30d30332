//! Quixo against a brute force written here from the rules alone: every board as a plain
//! grid with a side to move, an explicit graph of moves, and a plain fixpoint over it (no
//! ranking, no code of the library), compared value by value with the retrograde solver,
//! remoteness included.

use std::collections::HashMap;

use retro::game::Quixo;
use retro::game::{Game, Wdl};

/// Every layer's values, solved in memory by the library.
fn all_values<G: Game>(game: &G) -> retro::Result<Vec<Vec<i16>>> {
    retro::solve::all_values::<G, i16>(game, retro::Driver::Parallel)
}

/// Cells 0 (blank), 1 (x), 2 (o), and the side to move (1 x, 2 o).
type Board = (Vec<u8>, u8);

fn lines(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for i in 0..n {
        out.push((0..n).map(|j| i * n + j).collect());
        out.push((0..n).map(|j| j * n + i).collect());
    }
    out.push((0..n).map(|i| i * n + i).collect());
    out.push((0..n).map(|i| i * n + n - 1 - i).collect());
    out
}

fn has_line(n: usize, grid: &[u8], mark: u8) -> bool {
    lines(n).iter().any(|l| l.iter().all(|&c| grid[c] == mark))
}

/// What the side to move has, if play has ended: it wins if it has a line (the other side
/// just made it), loses if only the other side has one.
fn ended(n: usize, (grid, side): &Board) -> Option<Wdl> {
    if has_line(n, grid, *side) {
        Some(Wdl::Win(0))
    } else if has_line(n, grid, 3 - side) {
        Some(Wdl::Loss(0))
    } else {
        None
    }
}

fn children(n: usize, board: &Board) -> Vec<Board> {
    let (grid, side) = board;
    if ended(n, board).is_some() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let last = n - 1;
    for r in 0..n {
        for c in 0..n {
            let on_ring = r == 0 || c == 0 || r == last || c == last;
            let cube = grid[r * n + c];
            if !on_ring || (cube != 0 && cube != *side) {
                continue;
            }
            // Along the row to either end, along the column to either end; never back where
            // it came from.
            let mut ends = vec![(r, 0), (r, last), (0, c), (last, c)];
            ends.sort();
            ends.dedup();
            for (tr, tc) in ends {
                if (tr, tc) == (r, c) {
                    continue;
                }
                let mut line: Vec<usize> = if tr == r {
                    (0..n).map(|j| r * n + j).collect()
                } else {
                    (0..n).map(|i| i * n + c).collect()
                };
                let (from, to) = if tr == r { (c, tc) } else { (r, tr) };
                // Take the cube out, close the gap toward `from`, put it in at `to`.
                let mut values: Vec<u8> = line.iter().map(|&i| grid[i]).collect();
                values.remove(from);
                values.insert(to, *side);
                let mut g = grid.clone();
                for (i, v) in line.drain(..).zip(values) {
                    g[i] = v;
                }
                out.push((g, 3 - side));
            }
        }
    }
    out
}

/// Every board's value by a plain fixpoint: level 0 holds the ended boards; a board wins in
/// d if a child loses in d - 1, loses in d if every child wins and the slowest in d - 1.
fn brute(n: usize) -> HashMap<Board, Wdl> {
    let cells = n * n;
    let mut boards = Vec::new();
    for code in 0..3usize.pow(cells as u32) {
        let grid: Vec<u8> = (0..cells)
            .map(|i| (code / 3usize.pow(i as u32) % 3) as u8)
            .collect();
        boards.push((grid.clone(), 1));
        boards.push((grid, 2));
    }
    let index: HashMap<&Board, usize> = boards.iter().enumerate().map(|(i, b)| (b, i)).collect();
    let kids: Vec<Vec<usize>> = boards
        .iter()
        .map(|b| children(n, b).iter().map(|c| index[c]).collect())
        .collect();
    let mut value: Vec<Option<Wdl>> = boards.iter().map(|b| ended(n, b)).collect();
    for (i, k) in kids.iter().enumerate() {
        if value[i].is_none() && k.is_empty() {
            value[i] = Some(Wdl::Loss(0));
        }
    }
    let (mut d, mut quiet) = (1u32, 0);
    while quiet < 2 {
        let before = value.clone();
        let mut changed = false;
        for i in 0..boards.len() {
            if before[i].is_some() {
                continue;
            }
            let k = &kids[i];
            let win = k.iter().any(|&c| before[c] == Some(Wdl::Loss(d - 1)));
            let loss = k
                .iter()
                .all(|&c| matches!(before[c], Some(Wdl::Win(r)) if r < d))
                && k.iter().any(|&c| before[c] == Some(Wdl::Win(d - 1)));
            if win || loss {
                value[i] = Some(if win { Wdl::Win(d) } else { Wdl::Loss(d) });
                changed = true;
            }
        }
        quiet = if changed { 0 } else { quiet + 1 };
        d += 1;
    }
    boards
        .into_iter()
        .zip(value)
        .map(|(b, v)| (b, v.unwrap_or(Wdl::Draw)))
        .collect()
}

fn check(n: usize) -> (usize, Wdl) {
    let want = brute(n);
    let game = Quixo::unfolded(n).unwrap();
    let layers = all_values(&game).unwrap();
    let mut checked = 0;
    for (k, values) in layers.iter().enumerate() {
        assert_eq!(values.len() as u64, game.layer_size(k));
        for (r, &v) in values.iter().enumerate() {
            let pos = game.unrank(k, r as u64);
            assert_eq!(game.rank(&pos), r as u64, "layer {k}");
            let grid: Vec<u8> = (0..n * n)
                .map(|c| match (pos.marked >> c & 1, pos.x >> c & 1) {
                    (0, _) => 0,
                    (_, 1) => 1,
                    _ => 2,
                })
                .collect();
            let key = (grid, pos.side + 1);
            assert_eq!(
                Wdl::decode(v as i64),
                want[&key],
                "{n}x{n} layer {k} rank {r}: {key:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, want.len(), "every board, once");
    (checked, Wdl::decode(layers[0][0] as i64))
}

#[test]
fn quixo_2x2_and_3x3_match_the_brute_force_on_every_position() {
    for n in [2, 3] {
        let (positions, root) = check(n);
        eprintln!("quixo {n}x{n}: {positions} positions, root {root:?}");
    }
}

#[test]
fn quixo_layers_have_the_published_sizes() {
    let game = Quixo::unfolded(4).unwrap();
    let total: u64 = (0..=game.last_layer()).map(|k| game.layer_size(k)).sum();
    assert_eq!(total, 2 * 3u64.pow(16));
    assert_eq!(total, 86_093_442);
}

/// A board of the positions with at least `min` cubes taken holds the whole game's values
/// for them: no move leaves it, so nothing outside it is needed. Folded and not, every
/// position of every layer, against the whole game solved in memory.
#[test]
fn a_board_from_min_cubes_holds_the_whole_games_values() {
    use retro::game::{Gameplay, QuixoBoard, Registered};
    let whole = Quixo::unfolded(3).unwrap();
    let want = all_values(&whole).unwrap();
    for min in [1, 5, 8, 9] {
        for fold in [false, true] {
            let board = QuixoBoard { n: 3, min };
            let part = match fold {
                true => <Quixo as Registered>::new(board).unwrap(),
                false => <Quixo as Registered>::unfolded(board).unwrap(),
            };
            let got = all_values(&part).unwrap();
            let mut checked = 0;
            for (k, values) in got.iter().enumerate() {
                for (r, &v) in values.iter().enumerate() {
                    let pos = part.unrank(k, r as u64);
                    assert_eq!(part.rank(&pos), r as u64, "min={min} layer {k}");
                    assert!(pos.marked.count_ones() as usize >= min);
                    let text = part.format_position(&pos);
                    let there = whole.parse_position(&text).unwrap();
                    let expected = want[whole.layer_of(&there)][whole.rank(&there) as usize];
                    assert_eq!(v, expected, "min={min} fold={fold}: {text}");
                    checked += 1;
                }
            }
            // Every position with `min` cubes or more, once (folded: once per orbit).
            let positions: u64 = (0..=part.last_layer())
                .map(|k| part.layer_positions(k))
                .sum();
            let all: u64 = (min..=9u64 as usize)
                .map(|t| {
                    let c = |n: u64, r: u64| (0..r).fold(1u64, |a, i| a * (n - i) / (i + 1));
                    c(9, t as u64) * (1 << t) * 2
                })
                .sum();
            assert_eq!(positions, all, "min={min}");
            if !fold {
                assert_eq!(checked as u64, all, "min={min}");
            }
            // A position with fewer cubes is refused in a line.
            let err = part
                .parse_position(".../.../...:x")
                .map(|_| ())
                .unwrap_err();
            assert!(
                err.to_string().contains(&format!("at least {min}")),
                "{err}"
            );
        }
    }
}

/// Each layer holds the positions where one side has `a` cubes and the other `b`, and no
/// move within a layer changes either count.
#[test]
fn a_layer_holds_one_pair_of_cube_counts() {
    use retro::game::Gameplay;
    for game in [Quixo::unfolded(3).unwrap(), Quixo::new(3).unwrap()] {
        for k in 0..=game.last_layer() {
            let mut seen = std::collections::BTreeSet::new();
            for r in 0..game.layer_size(k) {
                let pos = game.unrank(k, r);
                let [x, o] = game.side_stones(&pos);
                seen.insert((x.min(o), x.max(o)));
                for m in game.moves(&pos) {
                    let [cx, co] = game.side_stones(&m.child);
                    let same = game.layer_of(&m.child) == k;
                    assert_eq!(same, (cx, co) == (x, o), "layer {k}");
                }
            }
            assert_eq!(seen.len(), 1, "layer {k}: {seen:?}");
        }
    }
}

/// A board as `query` writes it: rows of x, o, . separated by /, then the side to move.
fn notation(n: usize, (grid, side): &Board) -> String {
    let rows: Vec<String> = grid
        .chunks(n)
        .map(|row| row.iter().map(|&c| ['.', 'x', 'o'][c as usize]).collect())
        .collect();
    format!("{}:{}", rows.join("/"), if *side == 1 { 'x' } else { 'o' })
}

/// Every board play reaches from the empty board with x to move, by the brute force's own
/// moves.
fn reached_from_start(n: usize) -> std::collections::HashSet<Board> {
    let start: Board = (vec![0; n * n], 1);
    let mut seen = std::collections::HashSet::from([start.clone()]);
    let mut stack = vec![start];
    while let Some(board) = stack.pop() {
        for child in children(n, &board) {
            if seen.insert(child.clone()) {
                stack.push(child);
            }
        }
    }
    seen
}

/// What a Quixo position shows of its history rules out only positions play never
/// reaches: every 3 x 3 board the rule refuses is missing from a search from the empty
/// board (the rule is sound). It is not complete: it looks one push back, and 416 boards
/// pass it that the search never reaches. 4 x 4 is left out: its search walks 86 million
/// boards, too long for a test.
#[test]
fn what_a_quixo_position_shows_rules_out_only_what_play_never_reaches() {
    use retro::game::Gameplay;
    let n = 3;
    let reached = reached_from_start(n);
    assert_eq!(reached.len(), 32_027);
    let game = Quixo::new(n).unwrap();
    let (mut refused, mut passed_unreached) = (0, 0);
    for code in 0..3usize.pow((n * n) as u32) {
        let grid: Vec<u8> = (0..n * n)
            .map(|i| (code / 3usize.pow(i as u32) % 3) as u8)
            .collect();
        for side in [1, 2] {
            let board = (grid.clone(), side);
            let text = notation(n, &board);
            let pos = game.parse_position(&text).unwrap();
            match game.check_reachable(&pos) {
                Err(e) => {
                    assert!(
                        !reached.contains(&board),
                        "{text} is reached from the start, but refused: {e}"
                    );
                    let message = e.to_string();
                    assert!(
                        message.starts_with("this position cannot arise: ")
                            && !message.contains('\n'),
                        "{message}"
                    );
                    refused += 1;
                }
                Ok(()) if !reached.contains(&board) => passed_unreached += 1,
                Ok(()) => {}
            }
        }
    }
    assert_eq!(refused + passed_unreached, 2 * 3usize.pow(9) - 32_027);
    assert_eq!(passed_unreached, 416);
    // The cube counts alone: x moves first, and each side's first move takes a blank cube.
    for (text, why) in [
        ("oo./.../...:x", "x has 0 cubes and o 2 cubes"),
        ("xx./.../...:o", "o has taken no cube"),
        ("o../.x./...:o", "a cube showing x is on the border"),
        // Row 1 is x's line whatever push of o's made row 2.
        ("xxx/ooo/...:x", "every push of o's"),
    ] {
        let pos = game.parse_position(text).unwrap();
        let err = game.check_reachable(&pos).unwrap_err().to_string();
        assert!(err.contains(why), "{text}: {err}");
    }
}

/// A CSV line's fields (a best move such as `"1,1-1,3"` is quoted).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut field, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    out.push(field);
    out
}

fn run(args: &[&str]) -> std::process::Output {
    crate::common::retro(args, "")
}

/// A Quixo position says what it holds in the game's words: the cubes taken (not its
/// layer's number) and each side's, in `query`, its JSON and `export`'s `stones`.
#[test]
fn a_quixo_position_says_the_cubes_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("q3.retro");
    let t = t.to_str().unwrap();
    crate::common::ok(&run(&["build", "quixo", "3x3", "-o", t, "-q"]));
    let text = crate::common::ok(&run(&["query", t, "xo./.x./o..:x"]));
    assert!(
        text.contains("\ncubes     4 taken of 9: x 2, o 2\n"),
        "{text}"
    );
    assert!(!text.contains("stones"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&crate::common::ok(&run(&[
        "query",
        t,
        "xo./.x./o..:x",
        "--json",
    ])))
    .unwrap();
    assert_eq!(json["stones"], 4, "{json}");
    assert_eq!(json["cubes"], serde_json::json!({"x": 2, "o": 2}), "{json}");
    // Every row's `stones` is the cubes its position shows.
    let csv = crate::common::ok(&run(&["export", t, "-o", "-", "-q"]));
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = head.iter().position(|&c| c == "stones").unwrap();
    let mut rows = 0;
    for line in lines {
        let fields = csv_fields(line);
        let board = fields[0].split(':').next().unwrap();
        let cubes = board.chars().filter(|&c| c == 'x' || c == 'o').count();
        assert_eq!(fields[at], cubes.to_string(), "{line}");
        rows += 1;
    }
    assert_eq!(rows, 2862);
    // A position the cube counts rule out (x moves first, and each side's first push
    // takes a blank cube) is refused.
    crate::common::fails(
        &run(&["query", t, "oo./.../...:x"]),
        2,
        "this position cannot arise: with x to move",
    );
    // `--layer K` is a layer, whose meaning is the game's: export's help says so.
    let help = crate::common::ok(&run(&["export", "--help"]));
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("Export only layer K: in a placement game the positions with K stones; Quixo's and Morris's layers are their own, and `retro stats` says what each holds"),
        "{help}"
    );
}

/// A table without a start (`min=`) says so: its build and `info` print no root value,
/// and name the position they give a value for, the one the explorer and `play` open on.
/// Where play from the start cannot be followed, `export`'s `reachable` says "not known"
/// (an empty field) for every position the rules let pass, never true.
#[test]
fn a_quixo_table_without_a_start_names_its_positions() {
    use retro::game::{Gameplay, QuixoBoard, Registered};
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("qm.retro");
    let t = t.to_str().unwrap();
    let built = crate::common::ok(&run(&["build", "quixo", "3x3 min=5", "-o", t, "-q"]));
    let game = <Quixo as Registered>::new(QuixoBoard { n: 3, min: 5 }).unwrap();
    let (opening, _) = game.opening();
    let opening = game.format_position(&opening);
    let answer = crate::common::ok(&run(&["query", t, &opening]));
    let value = answer
        .lines()
        .find_map(|l| l.strip_prefix("value     "))
        .unwrap()
        .to_string();
    let said =
        format!("root value none (this table has no start); it opens on {opening}, where {value}");
    assert!(built.contains(&said), "{built}\nwant: {said}");
    let info = crate::common::ok(&run(&["info", t]));
    assert!(
        info.contains("root value   none (this table has no start)\n"),
        "{info}"
    );
    assert!(
        info.contains(&format!("opening      {opening}: {value}\n")),
        "{info}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&crate::common::ok(&run(&["info", t, "--json"]))).unwrap();
    assert_eq!(json["root_position"], opening.as_str(), "{json}");
    // `play` opens there too, and says why.
    let played = crate::common::retro(&["play", t], "quit\n");
    let shown = crate::common::ok(&played);
    assert!(shown.contains("no start"), "{shown}");
    assert!(shown.contains(&opening), "{shown}");
    assert!(!shown.contains("game over"), "{shown}");
    // `reachable`: false where the position shows it cannot arise, else not known.
    let csv = crate::common::ok(&run(&["export", t, "-o", "-", "-q"]));
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = head.iter().position(|&c| c == "reachable").unwrap();
    let (mut refused, mut unknown) = (0, 0);
    for line in lines {
        let fields = csv_fields(line);
        let field = fields[at].as_str();
        let pos = game.parse_position(&fields[0]).unwrap();
        match game.check_reachable(&pos) {
            Err(_) => {
                assert_eq!(field, "false", "{line}");
                refused += 1;
            }
            Ok(()) => {
                assert_eq!(field, "", "{line}");
                unknown += 1;
            }
        }
    }
    assert!(refused > 0 && unknown > 0, "{refused} {unknown}");
}

/// Quixo's positions do not show whether play reaches them, so `query` says it was not
/// checked; a position given as legal moves from the start is reached, and says so in the
/// text, in JSON and in a batch. The same position written out is still not checked.
#[test]
fn a_position_given_as_moves_from_the_start_is_reached() {
    use crate::common::{ok, retro};
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("q.retro");
    let t = table.to_str().unwrap();
    ok(&retro(&["build", "quixo", "3x3", "-o", t, "-q"], ""));
    let moves = "start 1,3-3,3 1,1-1,3";
    let text = ok(&retro(&["query", t, moves], ""));
    assert!(text.contains("reached   yes"), "{text}");
    assert!(!text.contains("not checked"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&retro(&["query", t, moves, "--json"], ""))).unwrap();
    assert_eq!(json["reachable_checked"], true, "{json}");
    let written = json["position"].as_str().unwrap().to_string();
    let text = ok(&retro(&["query", t, &written], ""));
    assert!(text.contains("reached   not checked"), "{text}");
    let batch = ok(&retro(
        &["query", t, "--batch", "--json"],
        &format!("{moves}\n{written}\n"),
    ));
    let lines: Vec<serde_json::Value> = batch
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["reachable_checked"], true, "{batch}");
    assert_eq!(lines[1]["reachable_checked"], false, "{batch}");
    assert_eq!(lines[0]["position"], lines[1]["position"], "{batch}");
}
