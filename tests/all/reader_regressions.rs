//! Headers the table_reader fuzz target found (fuzz/regressions/table_reader): sizes that
//! overflow or would size huge tables must be refused by `Table::open`, not panic or
//! allocate. Each header carries a valid prefix checksum, as anyone can write one.

use retro::Registry;
use retro::game::{AnyBoard, Twins, TwinsBoard, Young, YoungBoard};
use retro::stored::ValueType;
use retro::table::Table;
use retro::table::header::{self, Encoding, Header, LayerEntry};

fn open_with(game: AnyBoard) -> retro::Result<Table> {
    let dir = tempfile::tempdir().unwrap();
    Table::open(&crafted_file(dir.path(), game, 3))
}

/// A table of `layers` one-entry layers for `game`, its header's checksum valid, written to
/// `dir` for a reader to open.
fn crafted_file(dir: &std::path::Path, game: AnyBoard, layers: usize) -> std::path::PathBuf {
    let header = Header {
        game,
        value_type: ValueType::I8,
        encoding: Encoding::Plain,
        layers: vec![
            LayerEntry {
                offset: 64,
                positions: 1,
                bytes: 1,
                checksum: 0
            };
            layers
        ],
        checksum: 0,
        symmetries: 1,
    };
    let encoded = header::encode(&header).unwrap();
    let mut bytes = header::prefix(&encoded, header::version_of(&header)).to_vec();
    bytes.extend_from_slice(&encoded);
    bytes.resize(
        header::values_start(encoded.len() as u64) as usize + layers,
        0,
    );
    let path = dir.join("crafted.retro");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn twins_rows_times_cols_overflow() {
    let game = AnyBoard::new::<Twins>(TwinsBoard {
        rows: usize::MAX,
        cols: 2,
        vert: vec![],
        horiz: vec![],
    });
    assert!(open_with(game).is_err());
}

#[test]
fn young_rows_times_cols_overflow() {
    let game = AnyBoard::new::<Young>(YoungBoard {
        rows: 2,
        cols: usize::MAX,
        a: vec![],
        b: vec![],
    });
    assert!(open_with(game).is_err());
}

#[test]
fn young_cols_that_wrap_the_cell_count() {
    // 2 * (2^63 + 1) wraps to 2, which matched the two weights before the fix.
    let game = AnyBoard::new::<Young>(YoungBoard {
        rows: 2,
        cols: (1 << 63) + 1,
        a: vec![1, 2],
        b: vec![3, 4],
    });
    let err = open_with(game).err().unwrap();
    assert!(
        err.to_string().contains("disagree") || err.to_string().contains("too large"),
        "{err}"
    );
}

#[test]
fn a_very_wide_young_board_is_refused_before_sizing_tables() {
    let n = 40_000;
    let game = AnyBoard::new::<Young>(YoungBoard {
        rows: 1,
        cols: n,
        a: vec![0; n],
        b: vec![0; n],
    });
    let err = open_with(game).err().unwrap();
    assert!(err.to_string().contains("too large"), "{err}");
}

#[test]
fn a_header_that_does_not_decode_is_refused() {
    // A valid prefix and checksum over bytes that are not a header.
    let junk = vec![0xffu8; 40];
    let mut bytes = header::prefix(&junk, header::VERSION).to_vec();
    bytes.extend_from_slice(&junk);
    bytes.resize(128, 0);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.retro");
    std::fs::write(&path, bytes).unwrap();
    let err = Table::open(&path).err().unwrap();
    assert!(err.to_string().contains("header does not decode"), "{err}");
    assert_eq!(err.to_string().lines().count(), 1);
}

/// Errors are typed: tests (and library users) match the variant, not the text, and an
/// I/O error keeps the OS error as its source.
#[test]
fn errors_are_typed_and_keep_their_source() {
    use retro::error::{Error, Kind};
    use std::error::Error as _;
    let dir = tempfile::tempdir().unwrap();
    let missing = Table::open(&dir.path().join("missing.retro"))
        .err()
        .unwrap();
    assert!(matches!(&missing, Error::Io { .. }), "{missing:?}");
    assert_eq!(missing.kind(), Kind::Io(std::io::ErrorKind::NotFound));
    assert!(missing.source().is_some());
    assert_eq!(missing.exit_code(), 1);

    let foreign = dir.path().join("foreign.retro");
    std::fs::write(&foreign, vec![7u8; 100]).unwrap();
    let err = Table::open(&foreign).err().unwrap();
    assert!(matches!(err, Error::Corrupt(_)), "{err:?}");

    let bad = retro::Builtin::parse("young", "2 3 1 2").err().unwrap();
    assert!(bad.is_input() && bad.exit_code() == 2, "{bad:?}");
    // Young 24 x 24: two adjacent layers of about 2.5 TB.
    let huge: Young = retro::testing::random_game(24, 24, 1, 9).unwrap();
    let options = retro::build::BuildOptions::default();
    let err = retro::build::Estimate::check_memory(&huge, &options)
        .err()
        .unwrap();
    assert!(matches!(err, Error::TooLarge(_)), "{err:?}");
}

/// A table read from memory answers as the file does; damage is found the same way.
#[test]
fn tables_read_from_memory_through_the_positioned_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.retro");
    let spec = retro::Builtin::random("twins", (3, 3), 4, 100, "--max").unwrap();
    retro::build::build_board::<retro::Builtin>(
        &spec,
        &path,
        &Default::default(),
        retro::Driver::Serial,
        &retro::Silent,
        &mut |_| Ok(()),
    )
    .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let file = Table::open(&path).unwrap();
    let memory = Table::from_reader::<retro::Builtin>(bytes.clone(), "in memory").unwrap();
    memory.verify_checksum().unwrap();
    for (k, layer) in file.header.layers.iter().enumerate() {
        let n = layer.positions as usize;
        assert_eq!(
            memory.read_range(k, 0, n).unwrap(),
            file.read_range(k, 0, n).unwrap()
        );
    }
    let cut = bytes[..bytes.len() - 1].to_vec();
    let err = Table::from_reader::<retro::Builtin>(cut, "cut")
        .err()
        .unwrap();
    assert!(matches!(err, retro::Error::Corrupt(_)), "{err:?}");
    assert!(err.to_string().starts_with("cut: truncated"), "{err}");
}

/// Stone counts near usize::MAX in a header (its checksum valid) are refused before any
/// arithmetic: `2 * stones` once wrapped and panicked every command that opened the table.
#[test]
fn stone_counts_that_would_wrap_are_refused_by_every_reader() {
    use retro::game::{MorrisBoard, Teeko, TeekoBoard};
    let dir = tempfile::tempdir().unwrap();
    let mut morris = MorrisBoard::variant("nine").unwrap();
    morris.stones = (1 << 63) + 3;
    let mut teeko = TeekoBoard::standard();
    teeko.stones = 1 << 63;
    for game in [
        AnyBoard::new::<retro::game::Morris>(morris),
        AnyBoard::new::<Teeko>(teeko),
    ] {
        let err = open_with(game.clone()).err().expect("refused");
        assert!(err.to_string().contains("stones"), "{err}");
        let path = crafted_file(dir.path(), game, 1);
        let p = path.to_str().unwrap();
        for args in [
            &["info", p][..],
            &["query", p, "start"],
            &["stats", p],
            &["verify", p],
            &["diff", p, p],
            &["export", p, "--csv", "-o", "-"],
        ] {
            let out = crate::common::retro(args, "");
            let err = crate::common::text(&out.stderr);
            assert!(!out.status.success(), "{args:?} accepted the table");
            assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {err}");
            assert!(err.starts_with("error: "), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        }
        // The same header in an interrupted build's partial file, resumed.
        let out = dir.path().join("t.retro");
        std::fs::rename(&path, dir.path().join("t.retro.partial")).unwrap();
        let run = crate::common::retro(
            &[
                "build",
                "morris",
                "six stones=3",
                "-q",
                "-o",
                out.to_str().unwrap(),
            ],
            "",
        );
        let err = crate::common::text(&run.stderr);
        assert!(!run.status.success() && !out.exists(), "{err}");
        assert!(
            err.starts_with("error: ") && !err.contains("panicked"),
            "{err}"
        );
    }
}
