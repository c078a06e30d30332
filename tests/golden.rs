//! Golden tables: the tables built from the sample boards shipped in `tables/` have these
//! checksums (xxh3 over the per-layer value checksums). A change to the file format or to
//! any value changes them, so it cannot pass unnoticed; if the change is intended, bump the
//! format version and record the new checksums here.

use retro::game::GameSpec;
use retro::job::{self, BuildOptions};
use retro::sweep::{Driver, Silent};
use retro::table::Table;

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
        let spec = GameSpec::parse(game, &text, None, None).unwrap();
        let path = dir.path().join(format!("{board}-{compact}.retro"));
        let options = BuildOptions {
            compact,
            ..Default::default()
        };
        let report = job::build(&spec, &path, &options, Driver::Parallel, &Silent).unwrap();
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
