//! `retro diff`: tables of one board compared entry by entry, whatever their encoding;
//! a damaged entry found with both values; a folded table against an unfolded one (or a
//! table of best moves) position by position; other boards refused.

use serde_json::Value;

use crate::common::{ok, retro};

#[test]
fn diff_agrees_across_encodings_and_finds_a_changed_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (plain, compact, changed) = (path("p.retro"), path("c.retro"), path("x.retro"));
    ok(&retro(&["build", "quixo", "3x3", "-o", &plain, "-q"], ""));
    ok(&retro(
        &["build", "quixo", "3x3", "--compact", "-o", &compact, "-q"],
        "",
    ));
    let same = retro(&["diff", &plain, &compact], "");
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(text.contains("all 2862 entries agree"), "{text}");

    // One stored value changed: the last byte of the plain table is an entry of layer 0's
    // neighbours (layers are written from the last one).
    let mut bytes = std::fs::read(&plain).unwrap();
    let last = bytes.len() - 1;
    bytes[last] = bytes[last].wrapping_add(2);
    std::fs::write(&changed, &bytes).unwrap();
    // The change is not damage to be refused here: the layer checksums are not checked.
    let damaged = retro(&["diff", &plain, &changed], "");
    assert_eq!(damaged.status.code(), Some(2), "{damaged:?}");
    let found = retro(&["diff", &plain, &changed, "--json", "--no-check"], "");
    assert_eq!(found.status.code(), Some(1), "{found:?}");
    let v: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(v["differ"], 1);
    assert_eq!(v["entries"], 2862);
    let first = &v["first"][0];
    assert_eq!(
        first["b"].as_i64().unwrap(),
        first["a"].as_i64().unwrap() + 2
    );
    // The position named is the entry's: querying it in each table gives each value.
    let position = first["position"].as_str().unwrap();
    let value = |table: &str| -> i64 {
        let q: Value =
            serde_json::from_str(&ok(&retro(&["query", table, position, "--json"], ""))).unwrap();
        q["code"].as_i64().unwrap()
    };
    assert_eq!(value(&plain), first["a"].as_i64().unwrap());
    let text =
        String::from_utf8_lossy(&retro(&["diff", &plain, &changed, "--no-check"], "").stdout)
            .to_string();
    assert!(text.contains("1 of 2862 entries differ"), "{text}");
    assert!(text.contains(position), "{text}");

    // Another board: one line, exit 2.
    let other = path("o.retro");
    ok(&retro(&["build", "teeko", "3x3s3", "-o", &other, "-q"], ""));
    let refused = retro(&["diff", &plain, &other], "");
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("one game and board"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `diff`'s JSON for two tables, and its exit code.
fn diff_json(a: &str, b: &str, more: &[&str]) -> (Option<i32>, Value) {
    let out = retro(&[&["diff", a, b, "--json"], more].concat(), "");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    (out.status.code(), v)
}

/// A copy of `from` at `to` with its last byte moved by 2: an entry of the first layer
/// the writer wrote (layers are written from the last one), so another value.
fn with_last_byte_changed(from: &str, to: &str) {
    let mut bytes = std::fs::read(from).unwrap();
    let last = bytes.len() - 1;
    bytes[last] = bytes[last].wrapping_add(2);
    std::fs::write(to, &bytes).unwrap();
}

#[test]
fn diff_compares_folded_and_unfolded_tables_position_by_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();

    // Quixo 3x3 folded (2862 entries) and not (39366): every position agrees, whichever
    // table comes first; the count is of the unfolded table's entries.
    let (folded, unfolded) = (path("qf.retro"), path("qu.retro"));
    ok(&retro(&["build", "quixo", "3x3", "-o", &folded, "-q"], ""));
    ok(&retro(
        &["build", "quixo", "3x3", "--no-fold", "-o", &unfolded, "-q"],
        "",
    ));
    for (a, b) in [(&folded, &unfolded), (&unfolded, &folded)] {
        let out = retro(&["diff", a, b], "");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("all 39366 entries agree"), "{text}");
    }

    // An entry of the unfolded table changed: exactly that position differs, and `a` and
    // `b` stay the values of the first and the second table named.
    let changed = path("qu-changed.retro");
    with_last_byte_changed(&unfolded, &changed);
    let (code, v) = diff_json(&folded, &changed, &["--no-check"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["differ"], 1, "{v}");
    assert_eq!(v["entries"], 39366, "{v}");
    let first = &v["first"][0];
    assert_eq!(
        first["b"].as_i64().unwrap(),
        first["a"].as_i64().unwrap() + 2,
        "{v}"
    );
    // The entry named is the one changed: the last of the unfolded table's layer.
    let layer = first["layer"].as_u64().unwrap() as usize;
    let info: Value =
        serde_json::from_str(&ok(&retro(&["info", &unfolded, "--json"], ""))).unwrap();
    let positions = info["layer_sizes"][layer].as_u64();
    assert_eq!(
        first["rank"].as_u64().map(|r| r + 1),
        positions,
        "{v}\n{info}"
    );
    let (code, v) = diff_json(&changed, &folded, &["--no-check"]);
    assert_eq!((code, &v["differ"]), (Some(1), &Value::from(1)), "{v}");
    // Checked, the changed table is damage: exit 2, as for tables folded alike.
    let checked = retro(&["diff", &folded, &changed], "");
    assert_eq!(checked.status.code(), Some(2), "{checked:?}");

    // An entry of the folded table changed: every position of its orbit differs.
    let changed = path("qf-changed.retro");
    with_last_byte_changed(&folded, &changed);
    let (code, v) = diff_json(&changed, &unfolded, &["--no-check", "--show", "100"]);
    assert_eq!(code, Some(1), "{v}");
    let differ = v["differ"].as_u64().unwrap();
    assert!(
        (1..=16).contains(&differ),
        "an orbit is at most 16 positions: {v}"
    );
    let shown = v["first"].as_array().unwrap();
    assert_eq!(shown.len() as u64, differ, "{v}");
    assert!(shown.iter().all(|d| d["a"] != d["b"]), "{v}");

    // mnk 3x3k3 folded, unfolded, and as best moves (which never fold): all agree, and a
    // changed value in the folded table is found against both others.
    let (mf, mu, mm) = (path("mf.retro"), path("mu.retro"), path("mm.retro"));
    ok(&retro(&["build", "mnk", "3x3k3", "-o", &mf, "-q"], ""));
    ok(&retro(
        &["build", "mnk", "3x3k3", "--no-fold", "-o", &mu, "-q"],
        "",
    ));
    ok(&retro(
        &["build", "mnk", "3x3k3", "--moves", "2", "-o", &mm, "-q"],
        "",
    ));
    for (a, b) in [(&mf, &mu), (&mm, &mf), (&mf, &mm), (&mm, &mu)] {
        let (code, v) = diff_json(a, b, &[]);
        assert_eq!(code, Some(0), "{a} {b}: {v}");
        assert_eq!(v["differ"], 0, "{v}");
        assert_eq!(v["entries"], 6046, "{v}");
    }
    let changed = path("mf-changed.retro");
    with_last_byte_changed(&mf, &changed);
    for b in [&mu, &mm] {
        let (code, v) = diff_json(&changed, b, &["--no-check"]);
        assert_eq!(code, Some(1), "{b}: {v}");
        assert!(v["differ"].as_u64().unwrap() >= 1, "{v}");
    }

    // Young (which folds nothing) as best moves against its values.
    let board = path("y.txt");
    std::fs::write(&board, ok(&retro(&["gen", "young", "3x3"], ""))).unwrap();
    let (yv, ym) = (path("yv.retro"), path("ym.retro"));
    ok(&retro(&["build", "young", &board, "-o", &yv, "-q"], ""));
    ok(&retro(
        &["build", "young", &board, "--moves", "2", "-o", &ym, "-q"],
        "",
    ));
    let (code, v) = diff_json(&ym, &yv, &[]);
    assert_eq!((code, &v["differ"]), (Some(0), &Value::from(0)), "{v}");
    let changed = path("yv-changed.retro");
    with_last_byte_changed(&yv, &changed);
    let (code, v) = diff_json(&ym, &changed, &["--no-check"]);
    assert_eq!((code, &v["differ"]), (Some(1), &Value::from(1)), "{v}");
}

/// Connect folds the left-right mirror, and its positions carry their entry's rank parts:
/// a folded table against an unfolded one (and a table of best moves) agrees on every
/// position, either way round, on a board of even and one of odd width; a changed value of
/// the folded table is found. Teeko and Morris the same, on small boards.
#[test]
fn diff_of_folded_and_unfolded_tables_of_every_folding_game() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (game, board, positions) in [
        ("connect", "4x4", 201_755u64),
        ("connect", "5x4", 0),
        ("teeko", "3x3s3", 0),
        ("morris", "five stones=3", 0),
    ] {
        let name = |what: &str| path(&format!("{game}-{}-{what}.retro", board.replace(' ', "-")));
        let (folded, unfolded, moves) = (name("f"), name("u"), name("m"));
        ok(&retro(&["build", game, board, "-o", &folded, "-q"], ""));
        ok(&retro(
            &["build", game, board, "--no-fold", "-o", &unfolded, "-q"],
            "",
        ));
        let mut pairs = vec![(&folded, &unfolded), (&unfolded, &folded)];
        if game == "connect" {
            ok(&retro(
                &["build", game, board, "--moves", "2", "-o", &moves, "-q"],
                "",
            ));
            pairs.extend([(&moves, &folded), (&folded, &moves)]);
        }
        let info: Value =
            serde_json::from_str(&ok(&retro(&["info", &unfolded, "--json"], ""))).unwrap();
        let entries = info["layer_sizes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .sum::<u64>();
        if positions > 0 {
            assert_eq!(entries, positions, "{game} {board}");
        }
        for (a, b) in pairs {
            let (code, v) = diff_json(a, b, &[]);
            assert_eq!(code, Some(0), "{a} {b}: {v}");
            assert_eq!(v["differ"], 0, "{v}");
            assert_eq!(v["entries"], entries, "{v}");
        }
        let changed = name("changed");
        with_last_byte_changed(&folded, &changed);
        let (code, v) = diff_json(&changed, &unfolded, &["--no-check"]);
        assert_eq!(code, Some(1), "{game} {board}: {v}");
        assert!(v["differ"].as_u64().unwrap() >= 1, "{v}");
    }
}
