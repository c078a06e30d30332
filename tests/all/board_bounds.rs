//! Boards at the edges of what each game accepts, named on the command line or in a table
//! header (which anyone can write): every command answers or refuses them in one line,
//! with a bounded amount of memory. The commands run with their address space capped, so
//! a table sized from such a board fails the allocation and aborts the process, which the
//! tests see as a crash rather than an `error:` line.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{fails, text};
use retro::game::{
    AnyBoard, Connect, ConnectBoard, Mnk, MnkBoard, Quixo, QuixoBoard, Teeko, TeekoBoard, Twins,
    TwinsBoard, Young, YoungBoard,
};
use retro::stored::ValueType;
use retro::table::header::{self, Encoding, Header, LayerEntry};

/// The address space each command gets: 2 GiB, room for threads and every table a
/// bounded board needs, far below what a table sized from a huge board would take.
const ADDRESS_SPACE: u64 = 2 << 30;

/// Run `retro` with `args` and `stdin` under `prlimit --as` (util-linux).
fn capped(args: &[&str], stdin: &str) -> Output {
    let mut command = Command::new("prlimit");
    command
        .arg(format!("--as={ADDRESS_SPACE}"))
        .arg(env!("CARGO_BIN_EXE_retro"))
        .args(args);
    common::feed(command, stdin)
}

/// The command succeeded under the cap; its stdout.
fn capped_ok(args: &[&str], stdin: &str) -> String {
    let out = capped(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: exit {:?}: {}",
        out.status.code(),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A table file that is a header naming `game` and nothing else (a valid prefix and
/// checksum, three layers): opening it builds the board's game, then finds the layers
/// wrong.
fn header_only(dir: &Path, name: &str, game: AnyBoard) -> PathBuf {
    let header = Header {
        game,
        value_type: ValueType::I8,
        encoding: Encoding::Plain,
        layers: vec![
            LayerEntry {
                offset: 64,
                positions: 1,
                bytes: 1,
                checksum: 0,
            };
            3
        ],
        checksum: 0,
        symmetries: 1,
    };
    let encoded = header::encode(&header).unwrap();
    let mut bytes = header::prefix(&encoded, header::version_of(&header)).to_vec();
    bytes.extend_from_slice(&encoded);
    bytes.resize(header::values_start(encoded.len() as u64) as usize + 3, 0);
    let path = dir.join(format!("{name}.retro"));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn teeko(rows: usize, cols: usize, stones: usize) -> TeekoBoard {
    TeekoBoard {
        rows,
        cols,
        stones,
        advanced: false,
        no_centre_first: false,
    }
}

/// The largest boards each game accepts (and a few just past them): a header naming one
/// is opened or refused in one line within the cap. Teeko's largest listed every layout
/// of up to 17 stones on 36 cells (240 GB) before anything looked at the size.
#[test]
fn headers_naming_the_largest_boards_open_within_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut teekos = vec![
        teeko(6, 6, 17),
        teeko(1, 36, 17),
        teeko(36, 1, 17),
        teeko(6, 6, 11),
        teeko(6, 6, 9),
        teeko(1, 9, 4),
        teeko(9, 1, 4),
        teeko(1, 36, 4),
    ];
    let mut advanced = teeko(5, 7, 17);
    advanced.advanced = true;
    advanced.no_centre_first = true;
    teekos.push(advanced);
    let mut advanced = teeko(1, 35, 4);
    advanced.advanced = true;
    advanced.no_centre_first = true;
    teekos.push(advanced);
    let mut boards: Vec<(String, AnyBoard)> = teekos
        .into_iter()
        .map(|b| {
            let name = format!("teeko-{}x{}s{}", b.rows, b.cols, b.stones);
            (name, AnyBoard::new::<Teeko>(b))
        })
        .collect();
    boards.push((
        "quixo-5".into(),
        AnyBoard::new::<Quixo>(QuixoBoard { n: 5, min: 0 }),
    ));
    for (rows, cols, k) in [(6, 7, 6), (7, 6, 4), (1, 41, 4), (1, 43, 43), (62, 1, 1)] {
        boards.push((
            format!("mnk-{rows}x{cols}k{k}"),
            AnyBoard::new::<Mnk>(MnkBoard { rows, cols, k }),
        ));
    }
    for (rows, cols) in [(6, 7), (1, 41), (1, 43)] {
        boards.push((
            format!("twins-{rows}x{cols}"),
            AnyBoard::new::<Twins>(TwinsBoard {
                rows,
                cols,
                vert: vec![1; (rows - 1) * cols],
                horiz: vec![1; rows * (cols - 1)],
            }),
        ));
    }
    // 20 x 1 has the most height vectors connect tabulates (2^20), 6 x 9 the most cells
    // with fewer, 1 x 63 the tallest column.
    for (width, height, k) in [(20, 1, 4), (6, 9, 4), (1, 63, 4)] {
        boards.push((
            format!("connect-{width}x{height}k{k}"),
            AnyBoard::new::<Connect>(ConnectBoard { width, height, k }),
        ));
    }
    for (rows, cols) in [(33, 33), (1, 64), (64, 1), (34, 34)] {
        boards.push((
            format!("young-{rows}x{cols}"),
            AnyBoard::new::<Young>(YoungBoard {
                rows,
                cols,
                a: vec![1; rows * cols],
                b: vec![1; rows * cols],
            }),
        ));
    }
    for (name, board) in boards {
        let table = header_only(dir.path(), &name, board);
        let table = table.to_str().unwrap();
        // The header's three layers are not the board's: damage, exit 1, naming the file.
        fails(&capped(&["info", table], ""), 1, table);
        if name.starts_with("teeko") {
            fails(&capped(&["query", table, "empty"], ""), 1, table);
        }
    }
}

/// A Teeko board with a side of 1 has no squares: it was set up with `0..=rows - size`,
/// which wrapped and listed patterns until memory ran out. Such a board is built, planned
/// and solved like any other.
#[test]
fn teeko_boards_with_a_side_of_one_are_built() {
    let dir = tempfile::tempdir().unwrap();
    for board in [
        "1x9s4",
        "9x1s4",
        "1x12s4 advanced",
        "11x1s4 no-centre-first",
    ] {
        let table = dir.path().join("t.retro");
        let table = table.to_str().unwrap();
        capped_ok(&["build", "teeko", "-o", table], &format!("{board}\n"));
        let info = capped_ok(&["info", table], "");
        assert!(info.contains("root value"), "{info}");
        let size = board.split_whitespace().next().unwrap();
        let plan = capped_ok(&["plan", "teeko", size, "--total"], "");
        assert!(plan.contains("\ntotal: "), "{plan}");
        std::fs::remove_file(table).unwrap();
    }
    // The same board from the brute force's point of view: 9 cells in a row, 4 stones
    // each, lines of 4 only.
    let game = Teeko::unfolded(teeko(1, 9, 4)).unwrap();
    assert_eq!(game.patterns().len(), 6);
    let game = Teeko::unfolded(teeko(9, 1, 4)).unwrap();
    assert_eq!(game.patterns().len(), 6);
}

/// Boards far too large to build are described by `plan` and refused by `build` and
/// `solve` before anything is allocated for them (boards a line of their stones fits:
/// `plan_memory` has those no one can win).
#[test]
fn teeko_boards_too_large_to_build_are_planned_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    for size in ["6x6s6", "2x18s12", "2x18s17", "1x36s17"] {
        let plan = capped_ok(&["plan", "teeko", size, "--total"], "");
        assert!(plan.contains("\ntotal: "), "{plan}");
        let table = dir.path().join(format!("{size}.retro"));
        let out = capped(
            &["build", "teeko", "-o", table.to_str().unwrap()],
            &format!("{size}\n"),
        );
        // `build` prints its estimate first, then the refusal.
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.starts_with("estimate: "), "{err}");
        let last = err.lines().nth(1).unwrap_or_default();
        assert!(
            last.starts_with("error: board too large for memory"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 2, "{err}");
        assert!(!table.exists(), "{size}: no table is left");
        fails(
            &capped(&["solve", "teeko"], &format!("{size}\n")),
            1,
            "too large for memory",
        );
    }
}
