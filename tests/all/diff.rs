//! `retro diff`: tables of one board compared entry by entry, whatever their encoding;
//! a damaged entry found with both values; other boards and folds refused.

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

    // Another board, or the same board folded and not: one line, exit 2.
    let other = path("o.retro");
    ok(&retro(&["build", "teeko", "3x3s3", "-o", &other, "-q"], ""));
    let unfolded = path("u.retro");
    ok(&retro(
        &["build", "quixo", "3x3", "--no-fold", "-o", &unfolded, "-q"],
        "",
    ));
    for (b, says) in [
        (&other, "one game and board"),
        (&unfolded, "different layers"),
    ] {
        let refused = retro(&["diff", &plain, b], "");
        assert_eq!(refused.status.code(), Some(2), "{refused:?}");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(err.starts_with("error: ") && err.contains(says), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
