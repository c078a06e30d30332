//! `retro stats`: each layer's counts against the table's own rows (`export`), counted
//! here: entries, positions (orbit sizes summed), wins, losses, draws, ties and the longest
//! win and loss, for folded tables of results, a compact one, and a game of scores.

use serde_json::Value;

use crate::common::{ok, retro};

/// (entries, positions, wins, losses, draws, ties, longest win, longest loss) per layer,
/// wins and the like counted in positions (each row weighed by its orbit's size), from
/// `export --csv`'s rows, which come layer by layer; `sizes` are the layers' entries.
fn counted(csv: &str, sizes: &[u64]) -> Vec<[i64; 8]> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (result, remoteness, orbit) = (col("result"), col("remoteness"), col("orbit_size"));
    let mut out = Vec::new();
    for &n in sizes {
        let mut c = [0i64, 0, 0, 0, 0, 0, -1, -1];
        for _ in 0..n {
            // Positions are quoted where they hold commas: split from the right.
            let line = lines.next().unwrap();
            let fields: Vec<&str> = line.rsplitn(header.len(), ',').collect();
            let field = |i: usize| fields[header.len() - 1 - i];
            let weight = field(orbit).parse::<i64>().unwrap();
            c[0] += 1;
            c[1] += weight;
            let r: i64 = field(remoteness).parse().unwrap();
            // Wins and the like count positions: an entry counts its orbit's.
            match field(result) {
                "win" => {
                    c[2] += weight;
                    c[6] = c[6].max(r);
                }
                "loss" => {
                    c[3] += weight;
                    c[7] = c[7].max(r);
                }
                "draw" => c[4] += weight,
                "tie" => c[5] += weight,
                other => panic!("result {other}"),
            }
        }
        out.push(c);
    }
    assert!(lines.next().is_none(), "more rows than entries");
    out
}

#[test]
fn stats_count_what_export_writes() {
    let dir = tempfile::tempdir().unwrap();
    for (game, board, extra) in [
        ("quixo", "3x3", &[][..]),
        ("morris", "six stones=3", &[][..]),
        ("teeko", "4x4s3", &["--compact"][..]),
        ("mnk", "3x4k3", &[][..]),
    ] {
        let table = dir.path().join(format!("{game}.retro"));
        let table = table.to_str().unwrap();
        let mut args = vec!["build", game, board, "-o", table, "-q"];
        args.extend_from_slice(extra);
        ok(&retro(&args, ""));
        let stats: Value =
            serde_json::from_str(&ok(&retro(&["stats", table, "--json"], ""))).unwrap();
        let layers = stats["layers"].as_array().unwrap();
        let sizes: Vec<u64> = layers
            .iter()
            .map(|l| l["entries"].as_u64().unwrap())
            .collect();
        let csv = dir.path().join("e.csv");
        let csv = csv.to_str().unwrap();
        ok(&retro(&["export", table, "--csv", "-o", csv, "-q"], ""));
        let want = counted(&std::fs::read_to_string(csv).unwrap(), &sizes);
        for (l, c) in layers.iter().zip(&want) {
            let n = |key: &str| l[key].as_i64().unwrap_or(-1);
            let got = [
                n("entries"),
                n("positions"),
                n("wins"),
                n("losses"),
                n("draws"),
                n("ties"),
                n("longest_win"),
                n("longest_loss"),
            ];
            assert_eq!(&got, c, "{game} {board} layer {}", l["layer"]);
        }
        let total = &stats["total"];
        let sum = |i: usize| want.iter().map(|c| c[i]).sum::<i64>();
        assert_eq!(total["entries"].as_i64(), Some(sum(0)), "{game}");
        assert_eq!(total["wins"].as_i64(), Some(sum(2)), "{game}");
        // The total has no layer number, and stored codes are not shown as values.
        assert!(total.get("layer").is_none(), "{total}");
        assert!(
            total["min_value"].is_null() && total["max_value"].is_null(),
            "{total}"
        );
        assert!(layers.iter().all(|l| l["max_value"].is_null()), "{game}");
        // Entries won and the like: the rows, each once.
        let rows = csv_rows(&std::fs::read_to_string(csv).unwrap());
        let wins = rows.iter().filter(|r| r["result"] == "win").count() as u64;
        assert_eq!(total["win_entries"].as_u64(), Some(wins), "{game}");
        // The table as people read it: a header, a row per layer, the totals, and a line
        // per phase where the game names them (morris: placing, moving and the lost
        // entry; quixo: each number of cubes taken).
        let text = ok(&retro(&["stats", table], ""));
        let phases = stats["phases"].as_array().map_or(0, |p| p.len());
        let named = match game {
            "morris" => 3,
            "quixo" => 10,
            _ => 0,
        };
        assert_eq!(phases, named, "{game}: {stats}");
        // A line per layer that is one entry for all its positions (morris's lost ones),
        // then a line saying that positions play never reaches are counted too.
        let lumped = layers.iter().filter(|l| l["lumped"] == true).count();
        assert_eq!(lumped, usize::from(game == "morris"), "{game}: {stats}");
        assert_eq!(
            text.lines().count(),
            layers.len() + 3 + phases + lumped,
            "{text}"
        );
        assert!(
            text.lines()
                .last()
                .unwrap()
                .contains("--reachable counts exactly"),
            "{text}"
        );
        if game == "morris" {
            // Each layer says what it holds: each side's stones, and what is in hand.
            assert_eq!(layers[0]["holds"], "stones 0-0, in hand 3-3", "{stats}");
            assert_eq!(layers[0]["phase"], "placing", "{stats}");
            let last = &layers[layers.len() - 2];
            assert_eq!(last["phase"], "moving", "{stats}");
            assert!(text.contains(" stones 0-0, in hand 3-3 "), "{text}");
            assert!(text.contains("placing: "), "{text}");
        } else if game == "quixo" {
            // Each layer: each side's cubes; its phase, the cubes taken.
            assert_eq!(layers[0]["holds"], "cubes 0-0", "{stats}");
            assert_eq!(layers[1]["phase"], "1 cube taken", "{stats}");
            assert_eq!(layers[4]["holds"], "cubes 0-3", "{stats}");
            assert_eq!(layers[5]["holds"], "cubes 1-2", "{stats}");
            assert!(text.contains("3 cubes taken: "), "{text}");
        } else {
            assert!(layers[0].get("holds").is_none(), "{stats}");
        }
        let all = text.lines().nth(layers.len() + 1).unwrap();
        assert!(all.starts_with("  all"), "{text}");
    }
    // A game of scores: each layer's least and greatest value.
    let young = dir.path().join("y.retro");
    let young = young.to_str().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tables/young-sample.txt");
    ok(&retro(&["build", "young", sample, "-o", young, "-q"], ""));
    let stats: Value = serde_json::from_str(&ok(&retro(&["stats", young, "--json"], ""))).unwrap();
    let root = ok(&retro(&["query", young, "empty", "--json"], ""));
    let root: Value = serde_json::from_str(&root).unwrap();
    assert_eq!(stats["layers"][0]["min_value"], root["value"]);
    assert_eq!(stats["layers"][0]["wins"], 0);
    let bad = retro(&["stats", "/nonexistent.retro"], "");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.starts_with("error: ") && err.lines().count() == 1,
        "{err}"
    );
}

/// `export --csv`'s rows as maps from column to field (fields that hold commas are
/// quoted).
fn csv_rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let fields = |line: &str| -> Vec<String> {
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
    };
    let mut lines = csv.lines();
    let header = fields(lines.next().unwrap());
    lines
        .map(|line| {
            let row = fields(line);
            assert_eq!(row.len(), header.len(), "{line}");
            header.iter().cloned().zip(row).collect()
        })
        .collect()
}

/// Each side's marks on the board in a position's text: the part before the side to move
/// (after `:` in Teeko's and Quixo's, the last three words in Morris's).
fn marks_of(game: &str, position: &str) -> (u64, u64) {
    let board = match game {
        "morris" => {
            let words: Vec<&str> = position.split_whitespace().collect();
            words[..words.len() - 3].concat()
        }
        _ => position.split(':').next().unwrap().to_string(),
    };
    let count = |m: char| board.chars().filter(|&c| c == m).count() as u64;
    (count('x'), count('o'))
}

/// The side a position's text says is to move.
fn position_side(word: Option<&str>) -> char {
    match word {
        Some("x") => 'x',
        Some("o") => 'o',
        other => panic!("side to move {other:?}"),
    }
}

/// `stats --split`: each layer's classes (each side's stones and the side to move) hold
/// exactly the positions of that class, counted here from `export --all`'s rows (every
/// position of every orbit, layer by layer) with their results; the rows of a layer add up
/// to the layer's row; a folded table's split equals the unfolded table's.
#[test]
fn split_rows_count_each_class_of_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (game, board, (first, second)) in [
        ("quixo", "3x3", ('x', 'o')),
        ("morris", "six stones=3", ('x', 'o')),
        ("teeko", "4x4s3", ('x', 'o')),
        ("mnk", "3x3k3", ('x', 'o')),
        ("connect", "4x4", ('x', 'o')),
    ] {
        let split_of = |extra: &[&str]| -> Value {
            let table = dir.path().join(format!("{game}{}.retro", extra.len()));
            let table = table.to_str().unwrap().to_string();
            let mut args = vec!["build", game, board, "-o", &table, "-q"];
            args.extend_from_slice(extra);
            ok(&retro(&args, ""));
            let stats = ok(&retro(&["stats", &table, "--json", "--split"], ""));
            let mut stats: Value = serde_json::from_str(&stats).unwrap();
            stats["table"] = table.into();
            stats
        };
        let folded = split_of(&[]);
        let unfolded = split_of(&["--no-fold"]);
        assert_eq!(folded["split"], unfolded["split"], "{game} {board}");
        // Counts of positions do not depend on the folding; counts of entries do.
        for key in ["positions", "wins", "losses", "draws", "ties"] {
            assert_eq!(folded["total"][key], unfolded["total"][key], "{game} {key}");
        }
        let layers = folded["layers"].as_array().unwrap();
        let split = folded["split"].as_array().unwrap();
        for l in layers {
            let rows: Vec<&Value> = split.iter().filter(|r| r["layer"] == l["layer"]).collect();
            for key in ["positions", "wins", "losses", "draws", "ties"] {
                let sum: u64 = rows.iter().map(|r| r[key].as_u64().unwrap()).sum();
                assert_eq!(
                    Some(sum),
                    l[key].as_u64(),
                    "{game} layer {} {key}",
                    l["layer"]
                );
            }
        }
        // Every position, from the export of every orbit's positions.
        let csv = dir.path().join(format!("{game}.csv"));
        let csv = csv.to_str().unwrap();
        let table = folded["table"].as_str().unwrap();
        ok(&retro(
            &["export", table, "--all", "--csv", "-o", csv, "-q"],
            "",
        ));
        let rows = csv_rows(&std::fs::read_to_string(csv).unwrap());
        let mut want = std::collections::BTreeMap::<(u64, u64, u64, String), [u64; 5]>::new();
        let mut at = 0usize;
        for l in layers {
            let k = l["layer"].as_u64().unwrap();
            for row in &rows[at..at + l["positions"].as_u64().unwrap() as usize] {
                let (x, o) = marks_of(game, &row["position"]);
                // The side to move, from the text (a finished game's `to_move` is none):
                // written in Morris's, Teeko's and Quixo's; where the sides take turns
                // putting stones down, x when the counts are equal.
                let side = match game {
                    "morris" => position_side(row["position"].split_whitespace().last()),
                    "quixo" => position_side(row["position"].split(':').nth(1)),
                    // Teeko writes it once every stone is down.
                    "teeko" if row["position"].contains(':') => {
                        position_side(row["position"].split(':').nth(1))
                    }
                    _ if x == o => first,
                    _ => second,
                };
                let c = want.entry((k, x, o, side.to_string())).or_default();
                c[0] += 1;
                let slot = ["win", "loss", "draw", "tie"]
                    .iter()
                    .position(|r| *r == row["result"])
                    .unwrap();
                c[1 + slot] += 1;
            }
            at += l["positions"].as_u64().unwrap() as usize;
        }
        assert_eq!(at, rows.len(), "{game}: rows past the layers");
        let got: std::collections::BTreeMap<(u64, u64, u64, String), [u64; 5]> = split
            .iter()
            .map(|r| {
                let n = |key: &str| r[key].as_u64().unwrap();
                (
                    (
                        n("layer"),
                        n("x"),
                        n("o"),
                        r["to_move"].as_str().unwrap().to_string(),
                    ),
                    [
                        n("positions"),
                        n("wins"),
                        n("losses"),
                        n("draws"),
                        n("ties"),
                    ],
                )
            })
            .collect();
        assert_eq!(got, want, "{game} {board}");
    }
}

/// The positions play from the start reaches, per layer, found by a breadth-first search
/// over the game's moves (`Gameplay::moves`) on every position its own entry, told apart
/// by their text in a layer that is one entry for all its positions (morris's lost ones).
fn reached_by_search<G: retro::game::Registered>(board: G::Board) -> Vec<u64> {
    let game = G::unfolded(board).unwrap();
    let start = game.start_position().unwrap();
    let mut seen = std::collections::HashSet::new();
    let mut counts = vec![0u64; game.last_layer() + 1];
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(pos) = queue.pop_front() {
        let k = game.layer_of(&pos);
        let text = game.lumped(k).then(|| game.format_position(&pos));
        if !seen.insert((k, game.rank(&pos), text)) {
            continue;
        }
        counts[k] += 1;
        if game.ended(&pos).is_none() {
            queue.extend(game.moves(&pos).into_iter().map(|m| m.child));
        }
    }
    counts
}

/// `stats --reachable`: per layer and per class, the positions play from the start
/// reaches, equal to a breadth-first search from the start on every small board of every
/// game; a table without a start refuses it in one line.
#[test]
fn reachable_counts_equal_a_search_from_the_start() {
    use retro::game::{Board, Connect, Mnk, Morris, Quixo, Teeko, Twins, Young};
    let dir = tempfile::tempdir().unwrap();
    let shipped = |f: &str| format!("{}/tables/{f}", env!("CARGO_MANIFEST_DIR"));
    let read = |f: &str| std::fs::read_to_string(shipped(f)).unwrap();
    let cases: Vec<(&str, String, Vec<u64>)> = vec![
        (
            "quixo",
            "3x3".into(),
            reached_by_search::<Quixo>(Board::parse("3x3").unwrap()),
        ),
        (
            "teeko",
            "4x4s3".into(),
            reached_by_search::<Teeko>(Board::parse("4x4s3").unwrap()),
        ),
        (
            "mnk",
            "3x3k3".into(),
            reached_by_search::<Mnk>(Board::parse("3x3k3").unwrap()),
        ),
        (
            "connect",
            "4x4".into(),
            reached_by_search::<Connect>(Board::parse("4x4").unwrap()),
        ),
        (
            "morris",
            "six stones=3".into(),
            reached_by_search::<Morris>(Board::parse("six stones=3").unwrap()),
        ),
        (
            "young",
            shipped("young-sample.txt"),
            reached_by_search::<Young>(Board::parse(&read("young-sample.txt")).unwrap()),
        ),
        (
            "twins",
            shipped("twins-sample1.txt"),
            reached_by_search::<Twins>(Board::parse(&read("twins-sample1.txt")).unwrap()),
        ),
    ];
    for (game, board, want) in cases {
        let table = dir.path().join(format!("{game}.retro"));
        let table = table.to_str().unwrap();
        ok(&retro(&["build", game, &board, "-o", table, "-q"], ""));
        let stats = ok(&retro(
            &["stats", table, "--json", "--split", "--reachable"],
            "",
        ));
        let stats: Value = serde_json::from_str(&stats).unwrap();
        let got: Vec<u64> = stats["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["reachable"].as_u64().unwrap())
            .collect();
        assert_eq!(got, want, "{game} {board}");
        let total: u64 = want.iter().sum();
        assert_eq!(stats["total"]["reachable"].as_u64(), Some(total), "{game}");
        // The classes of a layer share out its reachable positions.
        for (k, &n) in want.iter().enumerate() {
            let split: u64 = stats["split"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["layer"] == k)
                .map(|r| r["reachable"].as_u64().unwrap())
                .sum();
            assert_eq!(split, n, "{game} layer {k}");
        }
    }
    let moving = dir.path().join("moving.retro");
    let moving = moving.to_str().unwrap();
    ok(&retro(
        &["build", "morris", "six stones=3 moving", "-o", moving, "-q"],
        "",
    ));
    let refused = retro(&["stats", moving, "--reachable"], "");
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.starts_with("error: this table has no start") && err.lines().count() == 1,
        "{err}"
    );
}

/// The positions play from the start reaches, as `format_position` writes them, found by
/// a breadth-first search over the game's moves on every position its own entry. Each is
/// written as its entry's position, or in a layer that is one entry for all its positions
/// (Morris's lost ones) as itself.
fn reached_positions<G: retro::game::Registered>(
    board: G::Board,
) -> std::collections::HashSet<String> {
    let game = G::unfolded(board).unwrap();
    let start = game.start_position().unwrap();
    let mut seen = std::collections::HashSet::new();
    let mut texts = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(pos) = queue.pop_front() {
        let (k, rank) = (game.layer_of(&pos), game.rank(&pos));
        let own = game.lumped(k).then(|| game.format_position(&pos));
        if !seen.insert((k, rank, own.clone())) {
            continue;
        }
        texts.insert(own.unwrap_or_else(|| game.format_position(&game.unrank(k, rank))));
        if game.ended(&pos).is_none() {
            queue.extend(game.moves(&pos).into_iter().map(|m| m.child));
        }
    }
    texts
}

/// What one set of positions comes to: (positions, wins, losses, draws, ties, longest
/// win, longest loss), -1 for no longest.
fn summed<'a>(
    rows: impl Iterator<Item = &'a std::collections::HashMap<String, String>>,
) -> [i64; 7] {
    let mut c = [0, 0, 0, 0, 0, -1, -1];
    for row in rows {
        c[0] += 1;
        let r: i64 = row["remoteness"].parse().unwrap();
        match row["result"].as_str() {
            "win" => {
                c[1] += 1;
                c[5] = c[5].max(r);
            }
            "loss" => {
                c[2] += 1;
                c[6] = c[6].max(r);
            }
            "draw" => c[3] += 1,
            "tie" => c[4] += 1,
            other => panic!("result {other}"),
        }
    }
    c
}

/// `Reached`'s counts as `summed` gives them.
fn reached_of(v: &Value) -> [i64; 7] {
    let n = |key: &str| v[key].as_i64().unwrap_or(-1);
    [
        n("positions"),
        n("wins"),
        n("losses"),
        n("draws"),
        n("ties"),
        n("longest_win"),
        n("longest_loss"),
    ]
}

/// `stats --reachable`: per layer, per class and in all, the reachable positions' wins,
/// losses, draws, ties and longest lines equal those counted here over `export --all`'s
/// rows (every position with its result) that a search from the start reaches; the text
/// shows those counts. `--examples`: each layer's example positions are reachable, and
/// `query` gives them the layer's longest win and loss among the reachable positions.
#[test]
fn reachable_results_and_examples_equal_a_search_from_the_start() {
    use retro::game::{Board, Connect, Mnk, Morris, Quixo, Teeko};
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, &str, std::collections::HashSet<String>)> = vec![
        (
            "mnk",
            "3x3k3",
            reached_positions::<Mnk>(Board::parse("3x3k3").unwrap()),
        ),
        (
            "quixo",
            "3x3",
            reached_positions::<Quixo>(Board::parse("3x3").unwrap()),
        ),
        (
            "morris",
            "six stones=3",
            reached_positions::<Morris>(Board::parse("six stones=3").unwrap()),
        ),
        (
            "teeko",
            "4x4s3",
            reached_positions::<Teeko>(Board::parse("4x4s3").unwrap()),
        ),
        (
            "connect",
            "4x4",
            reached_positions::<Connect>(Board::parse("4x4").unwrap()),
        ),
    ];
    for (game, board, reached) in cases {
        let table = dir.path().join(format!("{game}.retro"));
        let table = table.to_str().unwrap();
        ok(&retro(&["build", game, board, "-o", table, "-q"], ""));
        let args = [
            "stats",
            table,
            "--json",
            "--split",
            "--reachable",
            "--examples",
        ];
        let stats: Value = serde_json::from_str(&ok(&retro(&args, ""))).unwrap();
        let csv = dir.path().join(format!("{game}.csv"));
        let csv = csv.to_str().unwrap();
        ok(&retro(
            &["export", table, "--all", "--csv", "-o", csv, "-q"],
            "",
        ));
        let rows = csv_rows(&std::fs::read_to_string(csv).unwrap());
        let layers = stats["layers"].as_array().unwrap();
        let mut at = 0usize;
        let mut all = Vec::new();
        for l in layers {
            let k = l["layer"].as_u64().unwrap();
            let n = l["positions"].as_u64().unwrap() as usize;
            let layer: Vec<_> = rows[at..at + n]
                .iter()
                .filter(|r| reached.contains(&r["position"]))
                .collect();
            at += n;
            let want = summed(layer.iter().copied());
            assert_eq!(reached_of(&l["reached"]), want, "{game} layer {k}");
            assert_eq!(l["reachable"].as_i64(), Some(want[0]), "{game} layer {k}");
            // Each class of the layer: its reachable positions' counts.
            for class in stats["split"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["layer"] == k)
            {
                let of_class = layer.iter().copied().filter(|r| {
                    let (x, o) = marks_of(game, &r["position"]);
                    x == class["x"].as_u64().unwrap()
                        && o == class["o"].as_u64().unwrap()
                        && match game {
                            "morris" => r["position"].ends_with(class["to_move"].as_str().unwrap()),
                            "quixo" => r["position"]
                                .ends_with(&format!(":{}", class["to_move"].as_str().unwrap())),
                            "teeko" if r["position"].contains(':') => r["position"]
                                .ends_with(&format!(":{}", class["to_move"].as_str().unwrap())),
                            _ => (x == o) == (class["to_move"] == "x"),
                        }
                });
                assert_eq!(
                    reached_of(&class["reached"]),
                    summed(of_class),
                    "{game} {class}"
                );
            }
            // The examples: reachable positions with the layer's longest win and loss.
            let examples = &l["examples"];
            for (slot, result, longest) in [
                ("longest_win", "win", want[5]),
                ("longest_loss", "loss", want[6]),
            ] {
                let example = &examples[slot];
                if longest < 0 {
                    assert!(example.is_null(), "{game} layer {k}: {examples}");
                    continue;
                }
                let position = example
                    .as_str()
                    .unwrap_or_else(|| panic!("{game} layer {k}: {examples}"));
                assert!(reached.contains(position), "{game} layer {k}: {position}");
                let q: Value =
                    serde_json::from_str(&ok(&retro(&["query", table, position, "--json"], "")))
                        .unwrap();
                assert_eq!(q["result"], result, "{game} {position}");
                assert_eq!(q["remoteness"].as_i64(), Some(longest), "{game} {position}");
            }
            all.extend(layer);
        }
        assert_eq!(at, rows.len(), "{game}");
        assert_eq!(
            reached_of(&stats["total"]["reached"]),
            summed(all.into_iter()),
            "{game}"
        );
        // The text counts the reachable positions: its wins column is theirs.
        let text = ok(&retro(&["stats", table, "--reachable", "--examples"], ""));
        let lines: Vec<&str> = text.lines().collect();
        for l in layers {
            let k = l["layer"].as_u64().unwrap() as usize;
            let words: Vec<&str> = lines[1 + k].split_whitespace().collect();
            let wins_at = words.len() - 6;
            assert_eq!(
                words[wins_at],
                l["reached"]["wins"].to_string(),
                "{game}: {}",
                lines[1 + k]
            );
            if let Some(p) = l["examples"]["longest_win"].as_str() {
                assert!(text.contains(&format!(": {p}")), "{game}: {text}");
            }
        }
        assert!(text.contains("of the reachable positions"), "{text}");
    }
}

/// `stats --examples` prints beside each example the plies `query` gives it. On Quixo 3x3
/// some layers' longest win or loss is held only by positions that cannot arise (which
/// `query` refuses): such a layer has no example there, never a shorter line's position
/// beside the longer figure. Folded and not; the JSON's examples are the same.
#[test]
fn an_example_has_the_plies_printed_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    for fold in [&[][..], &["--no-fold"][..]] {
        let table = dir.path().join(format!("q{}.retro", fold.len()));
        let table = table.to_str().unwrap();
        let mut args = vec!["build", "quixo", "3x3", "-o", table, "-q"];
        args.extend(fold);
        ok(&retro(&args, ""));
        let text = ok(&retro(&["stats", table, "--examples"], ""));
        let json: Value =
            serde_json::from_str(&ok(&retro(&["stats", table, "--json", "--examples"], "")))
                .unwrap();
        // Each example of the JSON has the figure beside it, as `query` gives it.
        let mut checked = 0;
        for l in json["layers"].as_array().unwrap() {
            for (result, slot) in [("win", "longest_win"), ("loss", "longest_loss")] {
                let Some(position) = l["examples"][slot].as_str() else {
                    continue;
                };
                let q: Value =
                    serde_json::from_str(&ok(&retro(&["query", table, position, "--json"], "")))
                        .unwrap();
                assert_eq!(q["result"], result, "layer {}: {position}", l["layer"]);
                assert_eq!(q["remoteness"], l[slot], "layer {}: {position}", l["layer"]);
                checked += 1;
            }
        }
        // The text shows the same examples after the same figures.
        let mut without = 0;
        for line in text
            .lines()
            .skip_while(|l| !l.contains("longest win"))
            .skip(1)
        {
            let k: usize = line.split_whitespace().next().unwrap().parse().unwrap();
            let l = &json["layers"][k];
            for (result, slot) in [("win", "longest_win"), ("loss", "longest_loss")] {
                let Some(figure) = l[slot].as_u64() else {
                    assert!(l["examples"][slot].is_null(), "layer {k}: {l}");
                    continue;
                };
                let said = format!("{result} in {figure}: ");
                let at = line
                    .find(&said)
                    .unwrap_or_else(|| panic!("{said:?} in {line:?}"));
                let shown = line[at + said.len()..].split_whitespace().next().unwrap();
                assert_eq!(l["examples"][slot].as_str().unwrap_or("-"), shown, "{line}");
                if shown == "-" {
                    without += 1;
                }
            }
        }
        assert!(checked > 10 && without > 0, "{checked} {without}: {text}");
    }
}

/// `stats --examples` on a game of scores: each layer's example positions have its
/// greatest and least value, as `query` gives them, and without `--examples` there are none.
#[test]
fn examples_of_a_game_of_scores_have_the_layers_extremes() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    let table = table.to_str().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tables/twins-sample1.txt");
    ok(&retro(&["build", "twins", sample, "-o", table, "-q"], ""));
    let plain: Value = serde_json::from_str(&ok(&retro(&["stats", table, "--json"], ""))).unwrap();
    assert!(plain["layers"][0].get("examples").is_none(), "{plain}");
    let stats: Value =
        serde_json::from_str(&ok(&retro(&["stats", table, "--json", "--examples"], ""))).unwrap();
    // Every position of the layer, with its value, from the export.
    let csv = dir.path().join("t.csv");
    let csv = csv.to_str().unwrap();
    ok(&retro(&["export", table, "--csv", "-o", csv, "-q"], ""));
    let rows = csv_rows(&std::fs::read_to_string(csv).unwrap());
    let mut at = 0;
    for l in stats["layers"].as_array().unwrap() {
        let n = l["entries"].as_u64().unwrap() as usize;
        let values: Vec<i64> = rows[at..at + n]
            .iter()
            .map(|r| r["value"].parse().unwrap())
            .collect();
        at += n;
        for (slot, want) in [
            ("max_value", *values.iter().max().unwrap()),
            ("min_value", *values.iter().min().unwrap()),
        ] {
            let position = l["examples"][slot].as_str().unwrap();
            let q: Value =
                serde_json::from_str(&ok(&retro(&["query", table, position, "--json"], "")))
                    .unwrap();
            assert_eq!(
                q["value"].as_i64(),
                Some(want),
                "layer {} {slot}",
                l["layer"]
            );
        }
    }
}

/// Plain counts of a game whose ranking holds boards no play reaches say so under the
/// table, and how to leave them out: tic-tac-toe's 6,046 boards hold the 5,478 positions
/// play reaches. A table without a start says that which those are is not known; young's
/// ranking holds only positions play reaches, and says nothing.
#[test]
fn plain_stats_say_that_unreachable_boards_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let ttt = dir.path().join("ttt.retro");
    let ttt = ttt.to_str().unwrap();
    ok(&retro(&["build", "mnk", "3x3", "-q", "-o", ttt], ""));
    let note = "(every position the table holds is counted, also those no play from the start reaches: --reachable counts exactly the positions play reaches)";
    for extra in [&[][..], &["--split"][..]] {
        let text = ok(&retro(&[&["stats", ttt][..], extra].concat(), ""));
        assert_eq!(text.lines().last(), Some(note), "{text}");
    }
    let text = ok(&retro(&["stats", ttt], ""));
    assert!(
        text.contains("  all            850             6046 "),
        "{text}"
    );
    let reached = ok(&retro(&["stats", ttt, "--reachable"], ""));
    assert!(
        reached.contains("  all            850             6046             5478 "),
        "{reached}"
    );
    assert!(
        !reached.contains("every position the table holds"),
        "{reached}"
    );
    let moving = dir.path().join("m.retro");
    let moving = moving.to_str().unwrap();
    ok(&retro(
        &["build", "morris", "six stones=3 moving", "-q", "-o", moving],
        "",
    ));
    let text = ok(&retro(&["stats", moving], ""));
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains("this table has no start, so which they are is not known"),
        "{text}"
    );
    let young = dir.path().join("y.retro");
    let young = young.to_str().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tables/young-sample.txt");
    ok(&retro(&["build", "young", sample, "-q", "-o", young], ""));
    let text = ok(&retro(&["stats", young], ""));
    assert!(text.lines().last().unwrap().starts_with("  all"), "{text}");
}

/// `stats --split` on twins, whose first player plays o: each class is the count of x's and
/// o's marks on the board and the side to move, with the least and greatest value of its
/// positions, counted here from `export`'s rows (text and JSON say the same).
#[test]
fn split_rows_of_twins_count_each_sides_marks() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    let table = table.to_str().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tables/twins-sample1.txt");
    ok(&retro(&["build", "twins", sample, "-o", table, "-q"], ""));
    let csv = dir.path().join("t.csv");
    let csv = csv.to_str().unwrap();
    ok(&retro(&["export", table, "--csv", "-o", csv, "-q"], ""));
    let mut want = std::collections::BTreeMap::<(u64, u64, u64, String), [i64; 3]>::new();
    for row in csv_rows(&std::fs::read_to_string(csv).unwrap()) {
        let (x, o) = marks_of("twins", &row["position"]);
        let layer: u64 = row["stones"].parse().unwrap();
        // The first player (o) moves where the marks are even.
        let side = if x == o { "o" } else { "x" };
        let value: i64 = row["value"].parse().unwrap();
        let c = want
            .entry((layer, x, o, side.to_string()))
            .or_insert([0, i64::MAX, i64::MIN]);
        c[0] += 1;
        c[1] = c[1].min(value);
        c[2] = c[2].max(value);
    }
    // Every layer past the first holds marks of both sides or of the first's alone.
    assert!(want.keys().any(|&(_, x, o, _)| x > 0 && o > 0));
    let stats: Value =
        serde_json::from_str(&ok(&retro(&["stats", table, "--json", "--split"], ""))).unwrap();
    let got: std::collections::BTreeMap<(u64, u64, u64, String), [i64; 3]> = stats["split"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let n = |key: &str| r[key].as_i64().unwrap_or_else(|| panic!("{key} in {r}"));
            (
                (
                    n("layer") as u64,
                    n("x") as u64,
                    n("o") as u64,
                    r["to_move"].as_str().unwrap().to_string(),
                ),
                [n("positions"), n("min_value"), n("max_value")],
            )
        })
        .collect();
    assert_eq!(got, want);
    // The text's rows: layer, x, o, side to move, positions, least, greatest.
    let text = ok(&retro(&["stats", table, "--split"], ""));
    let rows: std::collections::BTreeMap<(u64, u64, u64, String), [i64; 3]> = text
        .lines()
        .skip(1)
        .map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            let n = |i: usize| w[i].parse::<i64>().unwrap();
            (
                (n(0) as u64, n(1) as u64, n(2) as u64, w[3].to_string()),
                [n(4), n(5), n(6)],
            )
        })
        .collect();
    assert_eq!(rows, want);
}

/// Tic-tac-toe solved by plain minimax from the empty board, nothing shared with retro:
/// every position play reaches (play stops at a line or a full board), with the result for
/// the side to move ('w', 'l', 't') and the remoteness, the plies to the end with best
/// play: the fastest win, the slowest loss, and a tie's plies to the full board.
fn tic_tac_toe() -> std::collections::HashMap<[u8; 9], (char, usize)> {
    const LINES: [[usize; 3]; 8] = [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
        [0, 4, 8],
        [2, 4, 6],
    ];
    fn solve(
        board: &mut [u8; 9],
        seen: &mut std::collections::HashMap<[u8; 9], (char, usize)>,
    ) -> (char, usize) {
        if let Some(&v) = seen.get(board) {
            return v;
        }
        let line = LINES
            .iter()
            .any(|l| board[l[0]] != 0 && l.iter().all(|&c| board[c] == board[l[0]]));
        let stones = board.iter().filter(|&&c| c != 0).count();
        let value = if line {
            // The side that just moved made the line.
            ('l', 0)
        } else if stones == 9 {
            ('t', 0)
        } else {
            let mark = if stones % 2 == 0 { 1 } else { 2 };
            // The key the side to move ranks its moves by: a win, sooner, before a tie,
            // before a loss, later.
            let key = |v: (char, usize)| match v.0 {
                'w' => (2, -(v.1 as i64)),
                't' => (1, 0),
                _ => (0, v.1 as i64),
            };
            let mut best: Option<(char, usize)> = None;
            for cell in 0..9 {
                if board[cell] != 0 {
                    continue;
                }
                board[cell] = mark;
                let (result, r) = solve(board, seen);
                board[cell] = 0;
                let mine = match result {
                    'l' => ('w', r + 1),
                    'w' => ('l', r + 1),
                    _ => ('t', r + 1),
                };
                if best.is_none_or(|b| key(mine) > key(b)) {
                    best = Some(mine);
                }
            }
            best.unwrap()
        };
        seen.insert(*board, value);
        value
    }
    let mut seen = std::collections::HashMap::new();
    solve(&mut [0; 9], &mut seen);
    seen
}

/// A histogram by (layer, remoteness, None for the draws' row): wins, losses, ties, draws.
type ByRemoteness = std::collections::BTreeMap<(u64, Option<u64>), [u64; 4]>;

/// `--json`'s rows of a histogram, under `layer`.
fn remoteness_json(rows: &Value, layer: u64, into: &mut ByRemoteness) {
    for r in rows.as_array().unwrap_or_else(|| panic!("{rows}")) {
        let n = |key: &str| r[key].as_u64().unwrap_or_else(|| panic!("{key} in {r}"));
        let counts = [n("wins"), n("losses"), n("ties"), n("draws")];
        assert!(counts.iter().any(|&c| c > 0), "an empty row: {r}");
        assert!(
            into.insert((layer, r["remoteness"].as_u64()), counts)
                .is_none(),
            "two rows of one remoteness: {rows}"
        );
    }
}

/// `stats --remoteness --reachable` on tic-tac-toe: per layer and per remoteness, the wins,
/// losses and ties of the reachable positions equal the brute force's (text and JSON say
/// the same), and they sum to the plain counts.
#[test]
fn remoteness_histogram_of_tic_tac_toe_equals_a_minimax() {
    let solved = tic_tac_toe();
    assert_eq!(solved.len(), 5478);
    let mut want = ByRemoteness::new();
    for (board, &(result, r)) in &solved {
        let stones = board.iter().filter(|&&c| c != 0).count() as u64;
        let column = match result {
            'w' => 0,
            'l' => 1,
            _ => 2,
        };
        want.entry((stones, Some(r as u64))).or_default()[column] += 1;
    }
    let dir = tempfile::tempdir().unwrap();
    let ttt = dir.path().join("ttt.retro");
    let ttt = ttt.to_str().unwrap();
    ok(&retro(&["build", "mnk", "3x3k3", "-q", "-o", ttt], ""));
    let args = ["stats", ttt, "--reachable", "--remoteness"];
    let json: Value =
        serde_json::from_str(&ok(&retro(&[&args[..], &["--json"]].concat(), ""))).unwrap();
    let mut got = ByRemoteness::new();
    for l in json["layers"].as_array().unwrap() {
        let layer = l["layer"].as_u64().unwrap();
        remoteness_json(&l["reached"]["remoteness"], layer, &mut got);
    }
    assert_eq!(got, want);
    // The table's rows: the layers' summed.
    let mut all = ByRemoteness::new();
    for (&(_, r), c) in &want {
        let sum = all.entry((0, r)).or_default();
        (0..4).for_each(|i| sum[i] += c[i]);
    }
    let mut total = ByRemoteness::new();
    remoteness_json(&json["total"]["reached"]["remoteness"], 0, &mut total);
    assert_eq!(total, all);
    // The sums are the plain counts of the reachable positions: 2836 wins, 1574 losses,
    // 1068 ties.
    let plain: Value =
        serde_json::from_str(&ok(&retro(&["stats", ttt, "--reachable", "--json"], ""))).unwrap();
    let sums: Vec<u64> = (0..4).map(|i| all.values().map(|c| c[i]).sum()).collect();
    let reached = &plain["total"]["reached"];
    let key = |k: &str| reached[k].as_u64().unwrap();
    assert_eq!(
        sums,
        [key("wins"), key("losses"), key("ties"), key("draws")]
    );
    assert_eq!(sums, [2836, 1574, 1068, 0]);
    // The text: a heading, a row per remoteness, the sums, and the line on reachability.
    let text = ok(&retro(&args, ""));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["remoteness", "wins", "losses", "ties", "draws"]
    );
    let rows = |lines: &[&str], layered: bool| -> ByRemoteness {
        lines
            .iter()
            .map(|line| {
                let w: Vec<&str> = line.split_whitespace().collect();
                let (layer, w) = match layered {
                    true => (w[0].parse().unwrap(), &w[1..]),
                    false => (0, &w[..]),
                };
                let n = |i: usize| w[i].parse::<u64>().unwrap();
                ((layer, Some(n(0))), [n(1), n(2), n(3), n(4)])
            })
            .collect()
    };
    assert_eq!(rows(&lines[1..lines.len() - 2], false), all, "{text}");
    let sums_line = format!(
        "{:>10} {:>14} {:>14} {:>14} {:>14}",
        "all", 2836, 1574, 1068, 0
    );
    assert_eq!(lines[lines.len() - 2], sums_line, "{text}");
    // With --split, each layer's rows first, then the table's under `all`.
    let text = ok(&retro(&[&args[..], &["--split"]].concat(), ""));
    let lines: Vec<&str> = text.lines().collect();
    let layered = lines[1..]
        .iter()
        .take_while(|l| !l.trim_start().starts_with("all"))
        .count();
    assert_eq!(rows(&lines[1..1 + layered], true), want, "{text}");
    assert_eq!(
        lines[lines.len() - 2],
        format!("  all {sums_line}"),
        "{text}"
    );
}

/// `stats --remoteness` on a folded Teeko table, which has draws: each layer's rows (of
/// every position, and of the reachable ones) sum to its counts of wins, losses, ties and
/// draws, the draws are a row of their own, and a game of scores refuses the histogram.
#[test]
fn remoteness_rows_sum_to_the_counts() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    let table = table.to_str().unwrap();
    ok(&retro(&["build", "teeko", "3x3s3", "-q", "-o", table], ""));
    let args = ["stats", table, "--reachable", "--remoteness", "--json"];
    let json: Value = serde_json::from_str(&ok(&retro(&args, ""))).unwrap();
    let summed = |counts: &Value, rows: &Value| {
        let mut by = ByRemoteness::new();
        remoteness_json(rows, 0, &mut by);
        // The draws, and only they, have no remoteness.
        for (&(_, r), c) in &by {
            assert_eq!(r.is_none(), c[3] > 0, "{rows}");
            assert!(r.is_some() || c[..3] == [0, 0, 0], "{rows}");
        }
        let sums: Vec<u64> = (0..4).map(|i| by.values().map(|c| c[i]).sum()).collect();
        let n = |k: &str| counts[k].as_u64().unwrap();
        assert_eq!(
            sums,
            [n("wins"), n("losses"), n("ties"), n("draws")],
            "{counts}"
        );
    };
    let mut draws = 0;
    for l in json["layers"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&json["total"]])
    {
        summed(l, &l["remoteness"]);
        summed(&l["reached"], &l["reached"]["remoteness"]);
        draws += l["draws"].as_u64().unwrap();
    }
    assert!(draws > 0, "{json}");
    // The text's `all` row: the reachable positions' counts.
    let text = ok(&retro(&args[..4], ""));
    let reached = &json["total"]["reached"];
    let n = |k: &str| reached[k].as_u64().unwrap();
    let sums_line = format!(
        "{:>10} {:>14} {:>14} {:>14} {:>14}",
        "all",
        n("wins"),
        n("losses"),
        n("ties"),
        n("draws")
    );
    assert!(text.lines().any(|l| l == sums_line), "{text}");
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("draw ")),
        "{text}"
    );
    // Young's values are scores: no remoteness to count by.
    let young = dir.path().join("y.retro");
    let young = young.to_str().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tables/young-sample.txt");
    ok(&retro(&["build", "young", sample, "-q", "-o", young], ""));
    let out = retro(&["stats", young, "--remoteness"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: --remoteness counts") && err.lines().count() == 1,
        "{err}"
    );
}
