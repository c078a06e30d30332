//! Damaged tables are never read as good: `stats` and `diff` check what they read, a value
//! no stored type holds is refused wherever a table is read, a build whose partial file is
//! cut short under it never seals a table, and a refused resume names what differs.

use std::path::Path;

use retro::table::Table;
use retro::table::header::{self, Header};

use crate::common::{fails, ok, retro, text};

fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn build(board: &str, out: &Path, extra: &[&str]) {
    let mut args = vec!["build", "morris", board, "-q", "-o", s(out)];
    args.extend_from_slice(extra);
    ok(&retro(&args, ""));
}

/// Flip a byte in the middle of the largest layer's values.
fn flip(path: &Path) {
    let table = Table::open(path).expect("open");
    let layer = table
        .header
        .layers
        .iter()
        .max_by_key(|l| l.bytes)
        .copied()
        .expect("a layer");
    let mut bytes = std::fs::read(path).expect("read");
    let at = (layer.offset + layer.bytes / 2) as usize;
    bytes[at] ^= 0x5a;
    bytes[at + 1] ^= 0x21;
    std::fs::write(path, bytes).expect("write");
}

#[test]
fn stats_and_diff_refuse_a_damaged_table_and_diff_says_which_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = dir.path().join("good.retro");
    let bad = dir.path().join("bad.retro");
    build("six stones=4", &good, &[]);
    std::fs::copy(&good, &bad).expect("copy");
    flip(&bad);
    fails(&retro(&["stats", s(&bad)], ""), 1, "checksum mismatch");
    fails(
        &retro(&["stats", s(&bad), "--json"], ""),
        1,
        "checksum mismatch",
    );
    // Asked not to check, it counts what is there.
    ok(&retro(&["stats", s(&bad), "--no-check"], ""));
    // diff: 0 alike, 1 different, 2 could not compare.
    let same = retro(&["diff", s(&good), s(&good)], "");
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    let damaged = retro(&["diff", s(&good), s(&bad)], "");
    assert_eq!(damaged.status.code(), Some(2), "{}", text(&damaged.stderr));
    assert!(text(&damaged.stderr).contains("checksum mismatch"));
    let missing = retro(&["diff", s(&good), s(&dir.path().join("none"))], "");
    assert_eq!(missing.status.code(), Some(2));
    let differ = retro(&["diff", s(&good), s(&bad), "--no-check"], "");
    assert_eq!(differ.status.code(), Some(1), "{}", text(&differ.stderr));
}

/// A compact table whose root block's minimum is pushed past what its value type holds,
/// with every checksum recomputed to match: refused by every reader, `verify` included.
#[test]
fn values_no_stored_type_holds_are_refused_wherever_a_table_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("compact.retro");
    build("six stones=3", &path, &["--compact"]);
    let table = Table::open(&path).expect("open");
    let mut head: Header = table.header.clone();
    drop(table);
    let mut bytes = std::fs::read(&path).expect("read");
    // Layer 0 (the start) is one block: its directory entry is the layer's last 16 bytes,
    // the block's minimum the first 8 of them.
    let l0 = head.layers[0];
    let dir_at = (l0.offset + l0.bytes - 16) as usize;
    bytes[dir_at..dir_at + 8].copy_from_slice(&200i64.to_le_bytes());
    let values = &bytes[l0.offset as usize..(l0.offset + l0.bytes) as usize];
    head.layers[0].checksum = xxhash_rust::xxh3::xxh3_64(values);
    head.checksum = Header::combined_checksum(&head.layers);
    let encoded = header::encode(&head).expect("encode");
    let mut prefix = header::prefix(&encoded, header::version_of(&head)).to_vec();
    prefix.extend_from_slice(&encoded);
    bytes[..prefix.len()].copy_from_slice(&prefix);
    std::fs::write(&path, bytes).expect("write");
    let p = s(&path);
    for args in [
        &["verify", p][..],
        &["query", p, "start"],
        &["stats", p],
        &["export", p, "--csv", "-o", "-"],
    ] {
        fails(&retro(args, ""), 1, "is not an i8-halved value");
    }
}

/// Another program cuts the partial file short while the build runs: the build stops with
/// one error line (no SIGBUS from its maps of finished layers) and no table is sealed.
#[test]
fn a_build_whose_partial_file_is_cut_short_never_seals_a_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reference = dir.path().join("ref.retro");
    build("six", &reference, &[]);
    let out = dir.path().join("t.retro");
    for k in ["3", "30", "60", "75", "78"] {
        let _ = std::fs::remove_file(dir.path().join("t.retro.partial"));
        let run = retro(
            &[
                "build",
                "morris",
                "six",
                "-q",
                "-o",
                s(&out),
                "--cut-after-layer",
                k,
            ],
            "",
        );
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "layer {k}: {err}");
        assert!(
            err.starts_with("error: ") && err.lines().count() == 1,
            "{err}"
        );
        assert!(!out.exists(), "layer {k}: a damaged table was sealed");
        ok(&retro(
            &["build", "morris", "six", "-q", "--fresh", "-o", s(&out)],
            "",
        ));
        assert!(std::fs::read(&out).expect("read") == std::fs::read(&reference).expect("read"));
        std::fs::remove_file(&out).expect("rm");
    }
}

/// A partial file of a folded build resumed with --no-fold (or the reverse) is refused
/// naming the option, not an older format version.
#[test]
fn resuming_with_other_folding_names_the_option() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("t.retro");
    for (first, then) in [(&[][..], &["--no-fold"][..]), (&["--no-fold"][..], &[][..])] {
        let _ = std::fs::remove_file(dir.path().join("t.retro.partial"));
        let mut args = vec![
            "build",
            "mnk",
            "4x4k3",
            "-q",
            "-o",
            s(&out),
            "--stop-after-layer",
            "10",
        ];
        args.extend_from_slice(first);
        assert!(!retro(&args, "").status.success());
        let mut args = vec!["build", "mnk", "4x4k3", "-q", "-o", s(&out)];
        args.extend_from_slice(then);
        let err = fails(&retro(&args, ""), 1, "--no-fold");
        assert!(!err.contains("older retro"), "{err}");
    }
}
