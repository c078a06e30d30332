//! `retro verify` accepts an honest table and names the first wrong entry of a table whose
//! checksums are intact but whose values lie.

use std::process::Command;

use retro::game::{AnyBoard, Game, Twins, TwinsBoard};
use retro::table::{Encoding, TableWriter};
use retro::{Driver, Silent};

fn write_table(path: &std::path::Path, corrupt: Option<(usize, usize)>) {
    let spec = TwinsBoard {
        rows: 3,
        cols: 3,
        vert: vec![0, 15, 0, 0, 0, 25],
        horiz: vec![20, 10, 0, 0, 25, 0],
    };
    let game = Twins::new(spec.clone()).unwrap();
    let sizes: Vec<u64> = (0..=game.last_layer())
        .map(|k| game.layer_size(k))
        .collect();
    let (mut writer, _) = TableWriter::open::<Twins>(
        path,
        AnyBoard::new::<Twins>(spec),
        retro::stored::ValueType::I16,
        Encoding::Blocked,
        &sizes,
        true,
    )
    .unwrap();
    retro::solve::solve_each::<_, i16>(&game, Driver::Serial, &Silent, |k, values| {
        let mut values = values.to_vec();
        if let Some((layer, index)) = corrupt
            && layer == k
        {
            values[index] += 1;
        }
        writer.write_layer(k, &values)
    })
    .unwrap();
    writer.finish().unwrap();
}

fn verify(path: &std::path::Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .arg("verify")
        .arg(path)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn honest_table_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ok.retro");
    write_table(&path, None);
    let out = verify(&path, &[]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("6046 positions checked"));
    let out = verify(&path, &["--sample", "500"]);
    assert!(out.status.success());
}

#[test]
fn lying_entry_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.retro");
    write_table(&path, Some((4, 17)));
    let out = verify(&path, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("layer 4 at index 17"),
        "{err}"
    );
    assert!(err.contains("stored") && err.contains("expected"), "{err}");
    // The root is checked last of all layers.
    let path0 = dir.path().join("bad0.retro");
    write_table(&path0, Some((0, 0)));
    let out = verify(&path0, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("layer 0 at index 0"));
}
