//! `retro stats`: each layer's counts against the table's own rows (`export`), counted
//! here: entries, positions (orbit sizes summed), wins, losses, draws, ties and the longest
//! win and loss, for folded tables of results, a compact one, and a game of scores.

use serde_json::Value;

use crate::common::{ok, retro};

/// (entries, positions, wins, losses, draws, ties, longest win, longest loss) per layer,
/// from `export --csv`'s rows, which come layer by layer; `sizes` are the layers' entries.
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
            c[0] += 1;
            c[1] += field(orbit).parse::<i64>().unwrap();
            let r: i64 = field(remoteness).parse().unwrap();
            match field(result) {
                "win" => {
                    c[2] += 1;
                    c[6] = c[6].max(r);
                }
                "loss" => {
                    c[3] += 1;
                    c[7] = c[7].max(r);
                }
                "draw" => c[4] += 1,
                "tie" => c[5] += 1,
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
        // The table as people read it: a header, a row per layer and the totals.
        let text = ok(&retro(&["stats", table], ""));
        assert_eq!(text.lines().count(), layers.len() + 2, "{text}");
        assert!(text.lines().last().unwrap().starts_with("  all"), "{text}");
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
