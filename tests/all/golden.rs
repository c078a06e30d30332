//! Golden tables: the tables built from the sample boards shipped in `tables/` have these
//! checksums (xxh3 over the per-layer value checksums). A change to the file format or to
//! any value changes them, so it cannot pass unnoticed; if the change is intended, bump the
//! format version and record the new checksums here.

use retro::Registry;
use retro::build::{self, BuildOptions};
use retro::table::Table;
use retro::{Driver, Silent};

const GOLDEN: [(&str, &str, bool, u64, i64); 6] = [
    ("young", "young-sample.txt", false, 0x3b0d_cb2f_e500_8908, 2),
    ("young", "young-sample.txt", true, 0x8b47_0d36_e30f_ed7e, 2),
    (
        "twins",
        "twins-sample1.txt",
        false,
        0xa6cd_5467_f31d_63c5,
        15,
    ),
    (
        "twins",
        "twins-sample1.txt",
        true,
        0xe7c9_148a_5007_397c,
        15,
    ),
    (
        "twins",
        "twins-sample2.txt",
        false,
        0xcd97_3ba2_49fc_ef6d,
        72,
    ),
    (
        "twins",
        "twins-sample2.txt",
        true,
        0x2700_86fd_6f67_2b67,
        72,
    ),
];

#[test]
fn sample_tables_match_their_recorded_checksums() {
    let dir = tempfile::tempdir().unwrap();
    for (game, board, compact, checksum, root) in GOLDEN {
        let text =
            std::fs::read_to_string(format!("{}/tables/{board}", env!("CARGO_MANIFEST_DIR")))
                .unwrap();
        let spec = retro::Builtin::parse(game, &text).unwrap();
        let path = dir.path().join(format!("{board}-{compact}.retro"));
        let options = BuildOptions {
            compact,
            ..Default::default()
        };
        let report = build::build_board::<retro::Builtin>(
            &spec,
            &path,
            &options,
            Driver::Parallel,
            &Silent,
            &mut |_| Ok(()),
        )
        .unwrap()
        .report;
        assert_eq!(report.root_value, root, "{board}");
        let table = Table::open(&path).unwrap();
        table.verify_checksum().unwrap();
        assert_eq!(
            table.header.checksum, checksum,
            "{board} compact={compact}: got {:#x}",
            table.header.checksum
        );
    }
}

use crate::common;

/// Tables written by format version 1 (the game stored as an enum's variant index), one per
/// game and encoding, kept in `tests/data/v1/`, with the xxh3-64 of their CSV export as that
/// version's binary wrote it (a change to export's columns records new digests here).
const VERSION_1: [(&str, &str, &str, u64); 12] = [
    (
        "young-sample-plain",
        "young",
        "tables/young-sample.txt",
        0x4641_29f4_a251_ee9b,
    ),
    (
        "young-sample-compact",
        "young",
        "tables/young-sample.txt",
        0x4641_29f4_a251_ee9b,
    ),
    (
        "young-sample-moves2",
        "young",
        "tables/young-sample.txt",
        0x4641_29f4_a251_ee9b,
    ),
    (
        "twins-sample1-plain",
        "twins",
        "tables/twins-sample1.txt",
        0x7e20_e1dc_6d19_413d,
    ),
    (
        "twins-sample1-compact",
        "twins",
        "tables/twins-sample1.txt",
        0x7e20_e1dc_6d19_413d,
    ),
    (
        "twins-sample1-moves2",
        "twins",
        "tables/twins-sample1.txt",
        0x7e20_e1dc_6d19_413d,
    ),
    ("mnk-3x3k3-plain", "mnk", "3x3k3", 0xe144_d844_f47e_36fe),
    ("mnk-3x3k3-compact", "mnk", "3x3k3", 0xe144_d844_f47e_36fe),
    ("mnk-3x3k3-moves2", "mnk", "3x3k3", 0xe144_d844_f47e_36fe),
    (
        "connect-4x3k3-plain",
        "connect",
        "4x3k3",
        0xe763_7079_cc3b_dda4,
    ),
    (
        "connect-4x3k3-compact",
        "connect",
        "4x3k3",
        0xe763_7079_cc3b_dda4,
    ),
    (
        "connect-4x3k3-moves2",
        "connect",
        "4x3k3",
        0xe763_7079_cc3b_dda4,
    ),
];

#[test]
fn version_1_tables_open_and_answer_as_they_did() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut wrong = Vec::new();
    for (name, game, board, digest) in VERSION_1 {
        let old = format!("{root}/tests/data/v1/{name}.retro");
        let info = common::retro(&["info", &old, "--json"], "");
        assert!(info.status.success(), "{name}: {info:?}");
        let verify = common::retro(&["verify", &old, "-q"], "");
        assert!(verify.status.success(), "{name}: {verify:?}");
        // Every position, one row each, also from a table that folds symmetric positions
        // (mnk, as this binary builds it by default).
        let export = |table: &str, out: &str| -> Vec<u8> {
            let out = dir.path().join(out);
            let ran = common::retro(
                &[
                    "export",
                    table,
                    "--csv",
                    "--all",
                    "-o",
                    out.to_str().expect("utf-8"),
                    "-q",
                ],
                "",
            );
            assert!(ran.status.success(), "{name}: {ran:?}");
            let text = std::fs::read_to_string(out).expect("read export");
            // Columns were added after version 1 (result, remoteness, reachable, the move
            // as numbers): its digest covers the five columns it wrote, which must not
            // have changed.
            text.lines()
                .map(first_five_fields)
                .flat_map(|line| [line, "\n"])
                .collect::<String>()
                .into_bytes()
        };
        let rows = export(&old, &format!("{name}-old.csv"));
        // The same board built by this binary answers every position the same way.
        let board = if board.starts_with("tables/") {
            format!("{root}/{board}")
        } else {
            board.to_string()
        };
        let new = dir.path().join(format!("{name}.retro"));
        let new = new.to_str().expect("utf-8");
        let mut build = vec!["build", game, &board, "-o", new, "-q"];
        if name.ends_with("compact") {
            build.push("--compact");
        } else if name.ends_with("moves2") {
            build.extend(["--moves", "2"]);
        }
        let built = common::retro(&build, "");
        assert!(built.status.success(), "{name}: {built:?}");
        // A folded table writes the rows of each orbit together: compared as sets of rows.
        let sorted = |bytes: &[u8]| {
            let mut lines: Vec<String> = String::from_utf8_lossy(bytes)
                .lines()
                .map(String::from)
                .collect();
            lines.sort();
            lines
        };
        assert!(
            sorted(&rows) == sorted(&export(new, &format!("{name}-new.csv"))),
            "{name}: old and new tables differ"
        );
        // And exactly as version 1's binary answered.
        let got = xxhash_rust::xxh3::xxh3_64(&rows);
        if got != digest {
            wrong.push(format!(
                "{name}: export digest {got:#x}, version 1 wrote {digest:#x}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_table_of_a_game_this_binary_does_not_have_is_refused_naming_it() {
    // A version 2 header names its game: rename young to "hexes" (same length) and re-seal
    // the header's checksum, as a table written by another crate's binary would look.
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("y.retro");
    let table = table.to_str().expect("utf-8");
    let built = common::retro(
        &[
            "build",
            "young",
            &format!("{root}/tables/young-sample.txt"),
            "-o",
            table,
            "-q",
        ],
        "",
    );
    assert!(built.status.success(), "{built:?}");
    let mut bytes = std::fs::read(table).expect("read");
    let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let header = 24..24 + len;
    let at = bytes[header.clone()]
        .windows(5)
        .position(|w| w == b"young")
        .expect("the header names young");
    bytes[24 + at..24 + at + 5].copy_from_slice(b"hexes");
    let sealed = xxhash_rust::xxh3::xxh3_64(&bytes[header]);
    bytes[16..24].copy_from_slice(&sealed.to_le_bytes());
    std::fs::write(table, &bytes).expect("write");
    for args in [
        vec!["info", table],
        vec!["query", table, "1,0"],
        vec!["verify", table],
    ] {
        let out = common::retro(&args, "");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "error: {table}: a table of the game \"hexes\", which this retro does not have (it has {})",
                <retro::Builtin as retro::Registry>::names().join(", ")
            ),
            "{args:?}"
        );
    }
}

#[test]
fn an_interrupted_version_1_build_is_not_resumed_under_version_2() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("t.retro");
    let table = table.to_str().expect("utf-8");
    // A version 1 table is a finished version 1 build's partial file, every layer written.
    std::fs::copy(
        format!("{root}/tests/data/v1/twins-sample1-plain.retro"),
        format!("{table}.partial"),
    )
    .expect("copy");
    let board = format!("{root}/tables/twins-sample1.txt");
    let out = common::retro(&["build", "twins", &board, "-o", table, "-q"], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("written by an older retro (table format version 1)")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    let fresh = common::retro(
        &["build", "twins", &board, "-o", table, "-q", "--fresh"],
        "",
    );
    assert!(fresh.status.success(), "{fresh:?}");
    let info = common::retro(&["info", table, "--json"], "");
    assert!(
        String::from_utf8_lossy(&info.stdout).contains("\"format_version\":2"),
        "{info:?}"
    );
}

/// A CSV line up to its fifth field (commas inside quotes do not count).
fn first_five_fields(line: &str) -> &str {
    let mut quoted = false;
    let mut fields = 0;
    for (i, ch) in line.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                fields += 1;
                if fields == 5 {
                    return &line[..i];
                }
            }
            _ => {}
        }
    }
    line
}
