//! `retro export`: every row agrees with the table and with `retro query`, best moves are
//! legal and best, Parquet holds the same rows as CSV, and bad arguments fail cleanly.

use std::path::{Path, PathBuf};

use crate::common;
use common::{fails, ok, retro, shipped};

use retro::Registry;
use retro::game::{AnyBoard, Game, Gameplay, Registered, Twins, TwinsBoard, Visitor};
use retro::table::Table;
use retro::{Driver, Silent};

/// One CSV row: position, stones, to_move, value, best_move ("" on a full board),
/// reachable, best_row, best_col (None on a full board).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    position: String,
    stones: usize,
    to_move: String,
    value: i64,
    best: String,
    reachable: bool,
    best_cell: Option<(i64, i64)>,
}

/// Build a table with the CLI from one of the repository's boards.
fn build_cli(dir: &Path, args: &[&str], name: &str) -> PathBuf {
    let path = dir.join(name);
    let mut full = vec!["build"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["-o", path.to_str().unwrap(), "--quiet"]);
    ok(&retro(&full, ""));
    path
}

fn build_lib(spec: &AnyBoard, path: &Path) -> PathBuf {
    retro::build::build_board::<retro::Builtin>(
        spec,
        path,
        &Default::default(),
        Driver::Parallel,
        &Silent,
        &mut |_| Ok(()),
    )
    .unwrap();
    path.to_path_buf()
}

fn export(table: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "export",
        table.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&retro(&args, ""))
}

/// Split one CSV line; fields with commas come quoted, and none holds a quote.
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            _ => fields.last_mut().unwrap().push(ch),
        }
    }
    assert!(!quoted, "unbalanced quotes in {line:?}");
    fields
}

fn read_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("position,stones,to_move,value,best_move,reachable,best_row,best_col")
    );
    lines
        .map(|line| {
            let f = split_csv(line);
            assert_eq!(f.len(), 8, "{line:?}");
            let best_cell = match (f[6].as_str(), f[7].as_str()) {
                ("", "") => None,
                (r, c) => Some((r.parse().unwrap(), c.parse().unwrap())),
            };
            Row {
                position: f[0].clone(),
                stones: f[1].parse().unwrap(),
                to_move: f[2].clone(),
                value: f[3].parse().unwrap(),
                best: f[4].clone(),
                reachable: f[5].parse().unwrap(),
                best_cell,
            }
        })
        .collect()
}

#[cfg(feature = "parquet")]
fn read_parquet(path: &Path) -> (Vec<Row>, usize) {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let groups = reader.metadata().num_row_groups();
    let rows = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            Row {
                position: row.get_string(0).unwrap().clone(),
                stones: row.get_int(1).unwrap() as usize,
                to_move: row.get_string(2).unwrap().clone(),
                value: row.get_long(3).unwrap(),
                best: row.get_string(4).cloned().unwrap_or_default(),
                reachable: row.get_bool(5).unwrap(),
                best_cell: match (row.get_int(6), row.get_int(7)) {
                    (Ok(r), Ok(c)) => Some((r.into(), c.into())),
                    _ => None,
                },
            }
        })
        .collect();
    (rows, groups)
}

/// Every row is the table's entry for its position, in layer and rank order, with the
/// first best move of `Game::moves` (legal, and its reward plus its child's value is the
/// position's value, as no earlier move's is).
fn check_rows<G: Gameplay>(game: &G, table: &Table, rows: &[Row], layers: &[usize]) {
    let expected: u64 = layers.iter().map(|&k| game.layer_size(k)).sum();
    assert_eq!(rows.len() as u64, expected);
    let mut at = 0;
    for &k in layers {
        for rank in 0..game.layer_size(k) {
            let row = &rows[at];
            at += 1;
            let pos = game.parse_position(&row.position).unwrap();
            assert_eq!((game.layer_of(&pos), game.rank(&pos)), (k, rank), "{row:?}");
            assert_eq!(row.stones, k);
            assert_eq!(row.value, table.value(k, rank).unwrap(), "{row:?}");
            let want_to_move = if k == game.last_layer() {
                "none"
            } else if k % 2 == 0 {
                "first"
            } else {
                "second"
            };
            assert_eq!(row.to_move, want_to_move);
            // Young and twins boards all arise: no game ends before the board is full.
            assert!(row.reachable, "{row:?}");
            let moves = game.moves(&pos);
            if moves.is_empty() {
                assert_eq!(row.best, "", "{row:?}");
                assert_eq!(row.best_cell, None, "{row:?}");
                continue;
            }
            let keeps = |mv: &retro::game::Move<G::Position>| {
                let child = table
                    .value(game.layer_of(&mv.child), game.rank(&mv.child))
                    .unwrap();
                mv.reward + child == row.value
            };
            let first_best = moves.iter().position(keeps).expect("some move is best");
            let mv = &moves[first_best];
            assert_eq!(
                row.best,
                format!("{},{}", mv.row + 1, mv.col + 1),
                "{row:?}"
            );
            let cell = (mv.row as i64 + 1, mv.col as i64 + 1);
            assert_eq!(row.best_cell, Some(cell), "{row:?}");
        }
    }
}

/// A few rows against `retro query --json`: same value, and best_move is its first best.
fn check_against_query(table: &Path, rows: &[Row]) {
    let step = (rows.len() / 12).max(1);
    for row in rows.iter().step_by(step).chain(rows.last()) {
        let out = ok(&retro(
            &["query", table.to_str().unwrap(), &row.position, "--json"],
            "",
        ));
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(json["value"].as_i64(), Some(row.value), "{row:?}");
        assert_eq!(json["stones"].as_u64(), Some(row.stones as u64));
        assert_eq!(json["to_move"].as_str(), Some(row.to_move.as_str()));
        let best = json["best"]
            .get(0)
            .map(|b| b.as_str().unwrap().to_string())
            .unwrap_or_default();
        assert_eq!(best, row.best, "{row:?}");
    }
}

fn game_check(table_path: &Path, rows: &[Row], layers: &[usize]) {
    let table = Table::open(table_path).unwrap();
    struct Rows<'a> {
        table: &'a Table,
        rows: &'a [Row],
        layers: &'a [usize],
    }
    impl Visitor for Rows<'_> {
        type Output = ();
        fn visit<G: Registered>(self, game: G) -> retro::Result<()> {
            check_rows(&game, self.table, self.rows, self.layers);
            Ok(())
        }
    }
    let board = table.header.game.clone();
    retro::Builtin::visit(
        &board,
        Rows {
            table: &table,
            rows,
            layers,
        },
    )
    .unwrap();
}

fn all_layers(table: &Path) -> Vec<usize> {
    let layers = Table::open(table).unwrap().header.layers.len();
    (0..layers).collect()
}

#[test]
fn csv_of_the_sample_boards_matches_table_and_query() {
    let dir = tempfile::tempdir().unwrap();
    let young = build_cli(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let twins = build_cli(
        dir.path(),
        &["twins", &shipped("twins-sample1.txt")],
        "t.retro",
    );
    for table in [&young, &twins] {
        let csv = dir.path().join("out.csv");
        let said = export(table, &csv, &["--csv"]);
        let rows = read_csv(&csv);
        assert!(said.contains(&format!("{} rows", rows.len())), "{said}");
        game_check(table, &rows, &all_layers(table));
        check_against_query(table, &rows);
        assert!(!dir.path().join("out.csv.partial").exists());
    }
}

#[test]
fn layer_option_exports_exactly_that_layer() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_cli(
        dir.path(),
        &["twins", &shipped("twins-sample1.txt")],
        "t.retro",
    );
    let layers = all_layers(&table);
    for k in [0, 4, layers.len() - 1] {
        let csv = dir.path().join(format!("layer{k}.csv"));
        export(&table, &csv, &["--csv", "--layer", &k.to_string()]);
        let rows = read_csv(&csv);
        assert!(rows.iter().all(|r| r.stones == k));
        game_check(&table, &rows, &[k]);
    }
}

/// A twins 3 x 4 board has layers of more than one read chunk (8192 rows), and a small
/// row group size puts several groups in the Parquet file, with boundaries mid-layer.
#[test]
fn rows_across_read_chunks_and_row_groups() {
    let dir = tempfile::tempdir().unwrap();
    let spec = TwinsBoard {
        rows: 3,
        cols: 4,
        vert: (1..=8).map(|x| x * 7 % 11).collect(),
        horiz: (1..=9).map(|x| x * 5 % 13).collect(),
    };
    let game = Twins::new(spec.clone()).unwrap();
    assert!((0..=game.last_layer()).any(|k| game.layer_size(k) > 8192));
    let table = build_lib(&AnyBoard::new::<Twins>(spec), &dir.path().join("t34.retro"));
    let csv = dir.path().join("all.csv");
    export(&table, &csv, &["--csv", "-q"]);
    let rows = read_csv(&csv);
    game_check(&table, &rows, &all_layers(&table));
    // One worker makes and writes the batches in turn; the rows are the same.
    let serial = dir.path().join("serial.csv");
    export(&table, &serial, &["--csv", "-q", "--threads", "1"]);
    assert_eq!(read_csv(&serial), rows);

    #[cfg(feature = "parquet")]
    {
        let pq = dir.path().join("all.parquet");
        export(&table, &pq, &["--parquet", "-q", "--row-group", "10000"]);
        let (from_parquet, groups) = read_parquet(&pq);
        assert_eq!(groups, rows.len().div_ceil(10000));
        assert_eq!(from_parquet, rows);

        // The default row group holds this whole table.
        export(&table, &pq, &["--parquet", "-q"]);
        let (from_parquet, groups) = read_parquet(&pq);
        assert_eq!(groups, 1);
        assert_eq!(from_parquet, rows);
    }
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_of_young_matches_csv_and_one_layer() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_cli(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let csv = dir.path().join("y.csv");
    let pq = dir.path().join("y.parquet");
    export(&table, &csv, &["--csv"]);
    export(&table, &pq, &["--parquet"]);
    let rows = read_csv(&csv);
    assert_eq!(read_parquet(&pq).0, rows);

    export(&table, &pq, &["--parquet", "--layer", "3"]);
    let layer: Vec<Row> = rows.iter().filter(|r| r.stones == 3).cloned().collect();
    assert_eq!(read_parquet(&pq).0, layer);
}

#[test]
fn an_existing_regular_file_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_cli(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let csv = dir.path().join("old.csv");
    std::fs::write(&csv, "stale\n").unwrap();
    export(&table, &csv, &["--csv"]);
    assert!(!read_csv(&csv).is_empty());
}

#[test]
fn bad_arguments_fail_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_cli(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let t = table.to_str().unwrap();
    let out = dir.path().join("out.csv");
    let o = out.to_str().unwrap();
    let layers = all_layers(&table).len();

    let bad_layer = (layers).to_string();
    fails(
        &retro(&["export", t, "--csv", "-o", o, "--layer", &bad_layer], ""),
        2,
        &format!("layers 0..={}", layers - 1),
    );
    let d = dir.path().to_str().unwrap();
    fails(
        &retro(&["export", t, "--csv", "-o", d], ""),
        2,
        "is a directory",
    );
    fails(
        &retro(&["export", t, "--csv", "-o", t], ""),
        2,
        "is the table being exported",
    );
    let missing = dir.path().join("missing.retro");
    fails(
        &retro(&["export", missing.to_str().unwrap(), "--csv", "-o", o], ""),
        1,
        "missing.retro",
    );
    let txt = dir.path().join("out.txt");
    fails(
        &retro(&["export", t, "-o", txt.to_str().unwrap()], ""),
        2,
        "cannot tell the format from the name; say --csv or --parquet",
    );
    fails(
        &retro(&["export", t, "--csv", "--parquet", "-o", o], ""),
        2,
        "cannot be used with",
    );
    let nowhere = dir.path().join("no/such/dir/out.csv");
    fails(
        &retro(&["export", t, "--csv", "-o", nowhere.to_str().unwrap()], ""),
        1,
        "No such file or directory",
    );
    // Nothing was written by any of them, and the table is intact.
    assert!(!out.exists());
    assert!(!dir.path().join("out.csv.partial").exists());
    ok(&retro(&["info", t], ""));
}

/// `-o -` writes the rows to standard output and its summary (unless `-q`) to standard
/// error; the format comes from the output's extension when no flag says it; `-q`
/// silences the summary line.
#[test]
fn standard_output_extensions_and_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_cli(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let t = table.to_str().unwrap();
    let csv = dir.path().join("rows.csv");
    let said = export(&table, &csv, &["-q"]);
    assert_eq!(said, "", "-q prints nothing");
    let from_file = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(read_csv(&csv).len() as u64, {
        let t = Table::open(&table).unwrap();
        t.header.layers.iter().map(|l| l.positions).sum::<u64>()
    });
    let out = retro(&["export", t, "-o", "-"], "");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), from_file);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("standard output: "), "{err}");
    let out = retro(&["export", t, "-o", "-", "-q"], "");
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    assert!(!dir.path().join("-").exists() && !std::path::Path::new("-").exists());
    #[cfg(feature = "parquet")]
    {
        for name in ["rows.parquet", "rows.pq"] {
            let pq = dir.path().join(name);
            export(&table, &pq, &["-q"]);
            assert_eq!(read_parquet(&pq).0, read_csv(&csv), "{name}");
        }
        // Parquet through a pipe is the same file.
        let out = retro(&["export", t, "-o", "-", "--parquet", "-q"], "");
        assert!(out.status.success(), "{out:?}");
        let piped = dir.path().join("piped.parquet");
        std::fs::write(&piped, &out.stdout).unwrap();
        assert_eq!(read_parquet(&piped).0, read_csv(&csv));
    }
}

#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let table = build_cli(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let out = dir.path().join("y.parquet");
    fails(
        &retro(
            &[
                "export",
                table.to_str().unwrap(),
                "--parquet",
                "-o",
                out.to_str().unwrap(),
            ],
            "",
        ),
        2,
        "without Parquet support",
    );
    assert!(!out.exists());
}

/// The value column is named for whose side it is seen from, so that rows of several games
/// put together never mix the two: `value` for the first player (young, twins, mnk,
/// connect: x), `value_to_move` for the side to move (Teeko, Quixo, Morris), in CSV and
/// Parquet and as `info --json` names it; a won position's number says so (positive for a
/// win of the side it is seen from).
#[test]
fn the_value_column_says_whose_side_it_is_seen_from() {
    let dir = tempfile::tempdir().unwrap();
    let young = common::shipped("young-sample.txt");
    for (game, board, name, won) in [
        ("young", young.as_str(), "value", None),
        ("mnk", "3x3", "value", Some(("xxx/oo./...", 5))),
        ("connect", "4x4k3", "value", None),
        ("teeko", "3x3s2", "value_to_move", None),
        ("quixo", "3x3", "value_to_move", Some(("xxx/oo./...:o", -1))),
        ("morris", "six stones=3", "value_to_move", None),
    ] {
        let table = build_cli(dir.path(), &[game, board], game);
        let t = table.to_str().unwrap();
        let info: serde_json::Value =
            serde_json::from_str(&ok(&retro(&["info", t, "--json"], ""))).unwrap();
        assert_eq!(info["value_column"], name, "{game}");
        // Every position, so that the won one is among the rows.
        let csv = ok(&retro(&["export", t, "-o", "-", "-q", "--all"], ""));
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let at = header.iter().position(|&c| c == name);
        assert!(at.is_some(), "{game}: {header:?}");
        let other = if name == "value" {
            "value_to_move"
        } else {
            "value"
        };
        assert!(!header.contains(&other), "{game}: {header:?}");
        // x has won: seen from x a positive code (N + 1 - p), seen from o, to move, a loss
        // in 0 (-1).
        if let Some((position, want)) = won {
            let row = csv
                .lines()
                .map(split_csv)
                .find(|f| f[0] == position)
                .unwrap_or_else(|| panic!("{game}: no row {position}"));
            assert_eq!(row[at.unwrap()], want.to_string(), "{game}: {row:?}");
        }
        #[cfg(feature = "parquet")]
        {
            use parquet::file::reader::{FileReader, SerializedFileReader};
            let pq = dir.path().join(format!("{game}.parquet"));
            export(&table, &pq, &[]);
            let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
            let schema = reader.metadata().file_metadata().schema_descr();
            let names: Vec<String> = (0..schema.num_columns())
                .map(|i| schema.column(i).name().to_string())
                .collect();
            let has = |n: &str| names.iter().any(|c| c == n);
            assert!(has(name) && !has(other), "{game}: {names:?}");
        }
    }
}

/// Every row of a Parquet file as text, in order, whatever its columns.
#[cfg(feature = "parquet")]
fn parquet_lines(path: &Path) -> Vec<String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| row.unwrap().to_string())
        .collect()
}

/// `export --all` of a table that folds symmetric positions writes exactly what the same
/// board's unfolded table (`--no-fold`) writes, byte for byte: the same rows in the
/// unfolded table's order, not orbit by orbit; Morris's positions lost for want of stones
/// among them. So does `--all --moves`, one layer of either, and Parquet read back row by
/// row.
#[test]
fn all_of_a_folded_table_is_the_unfolded_tables_export_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    // Each game's export of every position, of every move of one layer and of another
    // layer; and of every move where that stays small (Morris's are 3.9 s a table).
    for (game, board, moves_layer, layer, every_move) in [
        ("mnk", "3x3k3", "4", "5", true),
        ("connect", "4x4", "7", "12", true),
        ("teeko", "3x3s3", "4", "6", true),
        ("quixo", "3x3", "2", "5", true),
        // Layer 7 is the lumped one: positions lost for want of stones, where nobody moves.
        ("morris", "six stones=3", "6", "7", false),
    ] {
        let folded = build_cli(dir.path(), &[game, board], &format!("{game}.retro"));
        let unfolded = build_cli(
            dir.path(),
            &[game, board, "--no-fold"],
            &format!("{game}-unfolded.retro"),
        );
        let header = |t: &Path| Table::open(t).unwrap().header.symmetries;
        assert!(header(&folded) > 1 && header(&unfolded) == 1, "{game}");
        let mut cases: Vec<Vec<&str>> = vec![
            vec!["--all"],
            vec!["--all", "--layer", layer],
            vec!["--all", "--moves", "--layer", moves_layer],
        ];
        if every_move {
            cases.push(vec!["--all", "--moves"]);
        }
        for extra in &cases {
            let bytes = |t: &Path| {
                let mut args = vec!["export", t.to_str().unwrap(), "-o", "-", "-q", "--csv"];
                args.extend_from_slice(extra);
                let out = retro(&args, "");
                ok(&out);
                out.stdout
            };
            let (a, b) = (bytes(&folded), bytes(&unfolded));
            assert!(
                a.iter().filter(|&&c| c == b'\n').count() > 1,
                "{game} {extra:?}"
            );
            assert!(a == b, "{game} {extra:?}: the folded table's rows differ");
        }
        #[cfg(feature = "parquet")]
        for extra in cases.iter().filter(|c| c.len() < 3) {
            let lines = |t: &Path, name: &str| {
                let pq = dir.path().join(format!("{game}-{name}.parquet"));
                let mut args = vec!["--parquet", "-q"];
                args.extend_from_slice(extra);
                export(t, &pq, &args);
                parquet_lines(&pq)
            };
            let (a, b) = (lines(&folded, "f"), lines(&unfolded, "u"));
            assert!(!a.is_empty(), "{game} {extra:?}");
            assert!(a == b, "{game} {extra:?}: the folded table's rows differ");
        }
    }
}

/// `export --moves` of a game of scores: per position, its moves in `query`'s order, each
/// with the position it leads to and its value as `query --json` gives it (the reward plus
/// the child's value, for the first player), so that the position's value is the best of
/// them; the header says `value`, not a result.
#[test]
fn moves_of_a_game_of_scores_are_querys_moves() {
    let dir = tempfile::tempdir().unwrap();
    for (game, input) in [
        ("young", "young-sample.txt"),
        ("twins", "twins-sample1.txt"),
    ] {
        let table = build_cli(
            dir.path(),
            &[game, &shipped(input)],
            &format!("{game}.retro"),
        );
        let t = table.to_str().unwrap();
        let plain = ok(&retro(&["export", t, "-o", "-", "-q"], ""));
        let moves = ok(&retro(&["export", t, "--moves", "-o", "-", "-q"], ""));
        let mut lines = moves.lines();
        assert_eq!(lines.next(), Some("position,move,child,value"), "{game}");
        let rows: Vec<Vec<String>> = lines.map(split_csv).collect();
        let positions: Vec<Vec<String>> = plain.lines().skip(1).map(split_csv).collect();
        // The rows come a position at a time, every position where play goes on, in the
        // plain export's order.
        let mut groups: Vec<&[Vec<String>]> = Vec::new();
        let mut rest = &rows[..];
        while let Some(first) = rest.first() {
            let n = rest.iter().take_while(|r| r[0] == first[0]).count();
            groups.push(&rest[..n]);
            rest = &rest[n..];
        }
        let moving: Vec<&Vec<String>> = positions.iter().filter(|p| p[2] != "none").collect();
        assert_eq!(groups.len(), moving.len(), "{game}");
        let step = (moving.len() / 40).max(1);
        for (i, (p, got)) in moving.iter().zip(&groups).enumerate() {
            assert_eq!(got[0][0], p[0], "{game}");
            if i % step != 0 && i + 1 != moving.len() {
                continue;
            }
            let json: serde_json::Value =
                serde_json::from_str(&ok(&retro(&["query", t, &p[0], "--json"], ""))).unwrap();
            let want: Vec<Vec<String>> = json["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    vec![
                        p[0].clone(),
                        m["move"].as_str().unwrap().to_string(),
                        m["position"].as_str().unwrap().to_string(),
                        m["value"].to_string(),
                    ]
                })
                .collect();
            assert_eq!(*got, &want[..], "{game} {}", p[0]);
            // The position's value is its best move's.
            let best = got.iter().find(|m| m[1] == p[4]).unwrap();
            assert_eq!(best[3], p[3], "{game} {}", p[0]);
        }
    }
}
