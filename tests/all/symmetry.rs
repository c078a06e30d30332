//! Folded tables (one entry per orbit of the board's symmetries) against unfolded ones: every
//! position of every small board of every folding game has the same value in both, every
//! position of an orbit has its rank, and best moves read from a folded table are legal in the
//! position asked about and reach its value.

use retro::game::Quixo;
use retro::game::{Connect, ConnectBoard};
use retro::game::{Game, Gameplay, LayerKind, Values};
use retro::game::{Mnk, MnkBoard};
use retro::game::{Teeko, TeekoBoard};

/// Every layer's values, solved in memory by the library.
fn all_values<G: Game>(game: &G) -> Vec<Vec<i16>> {
    retro::solve::all_values::<G, i16>(game, retro::Driver::Parallel).expect("solves")
}

/// Every position of the unfolded game has, in the folded game, the value the unfolded table
/// gives it; each of its images has the same folded rank; the orbit sizes of the folded
/// layer add up to the unfolded layer's positions; and each move's value, read through the
/// folded table, is what it is through the unfolded one.
fn same_answers<G: Gameplay>(name: &str, folded: &G, unfolded: &G) {
    same_answers_with(name, folded, unfolded, Index::Dense)
}

/// How a folded layer numbers its orbits.
#[derive(Clone, Copy, PartialEq)]
enum Index {
    /// One entry per orbit: every layer of more than two positions shrinks.
    Dense,
    /// Some orbits keep an entry per position (connect: a height vector that is its own
    /// mirror image keeps all its colourings): no layer grows, and the whole table shrinks.
    Slack,
}

fn same_answers_with<G: Gameplay>(name: &str, folded: &G, unfolded: &G, index: Index) {
    assert!(folded.symmetries() > 1, "{name}: folds");
    assert_eq!(unfolded.symmetries(), 1, "{name}");
    let (f, u) = (all_values(folded), all_values(unfolded));
    let values = folded.values();
    for k in 0..=unfolded.last_layer() {
        let n = unfolded.layer_size(k);
        assert_eq!(folded.layer_positions(k), n, "{name} layer {k}: positions");
        match index {
            Index::Dense => assert!(
                folded.layer_size(k) < n || n <= 2,
                "{name} layer {k} shrinks"
            ),
            Index::Slack => assert!(folded.layer_size(k) <= n, "{name} layer {k} does not grow"),
        }
        let mut covered = 0u64;
        for r in 0..folded.layer_size(k) {
            covered += folded.orbit_size(&folded.unrank(k, r));
        }
        assert_eq!(
            covered, n,
            "{name} layer {k}: orbit sizes add up to the positions"
        );
        for r in 0..n {
            // The position as the folded game reads it: a position carries its own game's
            // rank parts.
            let text = unfolded.format_position(&unfolded.unrank(k, r));
            let pos = folded
                .parse_position(&text)
                .expect("every rank's position reads back");
            let fr = folded.rank(&pos);
            assert_eq!(
                f[k][fr as usize], u[k][r as usize],
                "{name} layer {k} rank {r}: folded {fr}"
            );
            for image in folded.images(&pos) {
                assert_eq!(
                    folded.rank(&image),
                    fr,
                    "{name} layer {k} rank {r}: an image"
                );
            }
            // Moves of the position as given: each child's value through either table, and
            // the solvers' children (ranked from the entry) are the moves' children.
            if folded.ended(&pos).is_none() {
                let (fm, um) = (folded.moves(&pos), unfolded.moves(&unfolded.unrank(k, r)));
                assert_eq!(fm.len(), um.len(), "{name} layer {k} rank {r}: moves");
                let ranks: Vec<u64> = fm.iter().map(|m| folded.rank(&m.child)).collect();
                for ((m, n), &rank) in fm.iter().zip(&um).zip(&ranks) {
                    let c = folded.layer_of(&m.child);
                    assert_eq!(
                        folded.format_position(&m.child),
                        unfolded.format_position(&n.child)
                    );
                    let through_f = values.through(m.reward, f[c][rank as usize].into());
                    let through_u =
                        values.through(n.reward, u[c][unfolded.rank(&n.child) as usize].into());
                    assert_eq!(through_f, through_u, "{name} layer {k} rank {r}: a move");
                }
                // Tables of best moves and `verify` walk the moves in `moves` order by
                // rank: the same order on a position that is not its entry's own.
                let mut in_order = Vec::new();
                folded.for_each_move_in_order(&pos, |child, _| {
                    in_order.push(child);
                    std::ops::ControlFlow::Continue(())
                });
                assert_eq!(in_order, ranks, "{name} layer {k} rank {r}: moves in order");
                // The solvers' children against the moves': by rank, or with slack by value
                // (the children of a position's entry may then be other entries of the same
                // orbits as its moves' children).
                let key = |c: usize, rank: u64| match index {
                    Index::Dense => (c, rank as i64),
                    Index::Slack => (c, i64::from(f[c][rank as usize])),
                };
                let mut listed: Vec<(usize, i64)> = fm
                    .iter()
                    .zip(&ranks)
                    .map(|(m, &rank)| key(folded.layer_of(&m.child), rank))
                    .collect();
                let mut reported = Vec::new();
                folded.for_each_child(&pos, |e| reported.push(key(e.layer, e.rank)));
                // Within a layer a child is reported once however many moves reach it.
                listed.sort_unstable();
                reported.sort_unstable();
                if folded.layer_kind(k) == LayerKind::Fixpoint {
                    listed.dedup();
                    reported.dedup();
                }
                assert_eq!(reported, listed, "{name} layer {k} rank {r}: children");
            }
        }
    }
}

#[test]
fn folded_teeko_answers_every_position_as_unfolded_teeko() {
    for (rows, cols, stones, advanced, no_centre_first) in [
        (3, 3, 2, false, false),
        (3, 3, 2, false, true),
        (3, 4, 2, false, false),
        (4, 4, 2, false, false),
        (4, 4, 3, false, false),
        (4, 4, 4, true, false),
        (2, 5, 2, false, false),
    ] {
        let board = TeekoBoard {
            rows,
            cols,
            stones,
            advanced,
            no_centre_first,
        };
        let name = format!("teeko {rows}x{cols}s{stones}");
        let folded = Teeko::new(board.clone()).unwrap();
        let unfolded = Teeko::unfolded(board.clone()).unwrap();
        same_answers(&name, &folded, &unfolded);
        // The order of tables of format version 3, which are still read.
        if (rows, cols, stones) == (3, 4, 2) {
            let keyed_on_occupied = Teeko::keyed_on_occupied(board).unwrap();
            same_answers(
                &format!("{name} (version 3)"),
                &keyed_on_occupied,
                &unfolded,
            );
        }
    }
}

#[test]
fn folded_quixo_answers_every_position_as_unfolded_quixo() {
    for n in [2, 3] {
        let folded = Quixo::new(n).unwrap();
        let unfolded = Quixo::unfolded(n).unwrap();
        same_answers(&format!("quixo {n}x{n}"), &folded, &unfolded);
    }
}

/// Quixo and Teeko count a position's moves within its layer, not its distinct children,
/// and weigh each parent by its moves into the child's orbit: folded and not, every count
/// is the sum of the weights told back, and parents and children are each other's inverse.
#[test]
fn counts_of_moves_are_what_the_parents_are_told() {
    for n in [2, 3] {
        retro::testing::check_parents(&Quixo::new(n).unwrap());
        retro::testing::check_parents(&Quixo::unfolded(n).unwrap());
    }
    for (rows, cols, stones) in [(3, 3, 2), (3, 3, 3), (4, 4, 3), (2, 5, 2)] {
        let board = TeekoBoard {
            rows,
            cols,
            stones,
            advanced: false,
            no_centre_first: false,
        };
        retro::testing::check_parents(&Teeko::new(board.clone()).unwrap());
        retro::testing::check_parents(&Teeko::unfolded(board).unwrap());
    }
}

#[test]
fn folded_mnk_answers_every_position_as_unfolded_mnk() {
    // Squares (8 symmetries), rectangles both ways round (4), a single row (2).
    for (rows, cols, k) in [
        (3, 3, 3),
        (3, 3, 2),
        (2, 3, 2),
        (3, 4, 3),
        (4, 3, 3),
        (1, 5, 3),
        (4, 4, 3),
    ] {
        let board = MnkBoard { rows, cols, k };
        let folded = Mnk::new(board.clone()).unwrap();
        let unfolded = Mnk::unfolded(board).unwrap();
        let symmetries = match (rows, cols) {
            (1, _) | (_, 1) => 2,
            _ if rows == cols => 8,
            _ => 4,
        };
        assert_eq!(folded.symmetries(), symmetries, "{rows}x{cols}");
        same_answers(&format!("mnk {rows}x{cols}k{k}"), &folded, &unfolded);
    }
    // A single cell has no symmetry but the identity: nothing to fold.
    let cell = MnkBoard {
        rows: 1,
        cols: 1,
        k: 1,
    };
    assert_eq!(Mnk::new(cell).unwrap().symmetries(), 1);
}

#[test]
fn folded_connect_answers_every_position_as_unfolded_connect() {
    // Odd and even widths (a middle column, or none), a single row, K from 2 to 4.
    for (w, h, k) in [
        (2, 2, 2),
        (3, 3, 3),
        (4, 3, 3),
        (3, 4, 3),
        (4, 4, 4),
        (5, 3, 3),
        (5, 1, 2),
        (2, 4, 3),
    ] {
        let board = ConnectBoard::checked(w, h, k).unwrap();
        let folded = Connect::new(board.clone()).unwrap();
        let unfolded = Connect::unfolded(board).unwrap();
        assert_eq!(folded.symmetries(), 2, "{w}x{h}");
        same_answers_with(
            &format!("connect {w}x{h}k{k}"),
            &folded,
            &unfolded,
            Index::Slack,
        );
        let (f, u) = (folded.total_positions(), unfolded.total_positions());
        assert!(
            4 * f < 3 * u,
            "connect {w}x{h}k{k}: {f} entries for {u} positions"
        );
    }
    // One column: the mirror is the identity, nothing folds.
    let column = ConnectBoard::checked(1, 4, 2).unwrap();
    assert_eq!(Connect::new(column).unwrap().symmetries(), 1);
}

#[test]
fn folding_keeps_the_value_model() {
    let game = Teeko::new(TeekoBoard::standard()).unwrap();
    assert_eq!(game.values(), Values::SideToMove);
    assert_eq!(game.symmetries(), 16);
}

/// The commands on a folded table: `export --all` writes exactly the rows an unfolded table's
/// export writes (every position, its value, its best move in its own cells); the default
/// export writes one row per entry whose `orbit_size`s add up to the positions; `query
/// --batch` answers every position as the unfolded table does, and `query --pv` gives the
/// same moves and line of play; `info` counts both.
#[test]
fn commands_on_a_folded_table_answer_as_on_an_unfolded_one() {
    use crate::common::{ok, retro};
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    // A rectangle's 4 symmetries, a square's 8, each with the colours exchanged (Teeko,
    // Quixo) or not (mnk: x moves first).
    for (game, board, symmetries) in [
        ("teeko", "3x4s2", 8),
        ("quixo", "3x3", 16),
        ("mnk", "3x3k3", 8),
        ("mnk", "3x4k3", 4),
        ("connect", "4x4k3", 2),
    ] {
        // A pair per board: a build does not replace another board's table.
        let (f, u) = (
            path(&format!("{game}-{board}-f.retro")),
            path(&format!("{game}-{board}-u.retro")),
        );
        ok(&retro(&["build", game, board, "-q", "-o", &f], ""));
        ok(&retro(
            &["build", game, board, "-q", "--no-fold", "-o", &u],
            "",
        ));
        let export = |table: &str, extra: &[&str]| {
            let out = path("out.csv");
            let mut args = vec!["export", table, "-q", "-o", &out];
            args.extend_from_slice(extra);
            ok(&retro(&args, ""));
            std::fs::read_to_string(&out).unwrap()
        };
        let sorted = |text: &str| {
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            lines.sort();
            lines
        };
        let unfolded = export(&u, &[]);
        assert_eq!(
            sorted(&export(&f, &["--all"])),
            sorted(&unfolded),
            "{game} {board}"
        );
        let entries = export(&f, &[]);
        assert!(entries.lines().next().unwrap().ends_with(",orbit_size"));
        let covered: u64 = entries
            .lines()
            .skip(1)
            .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
            .sum();
        let positions = unfolded.lines().count() as u64 - 1;
        assert_eq!(covered, positions, "{game} {board}");
        // Nearly every orbit is as large as the group is.
        let entries_count = entries.lines().count() as u64 - 1;
        assert!(
            entries_count * symmetries * 3 < positions * 4,
            "{game} {board}"
        );
        // Every position play reaches, as typed, through the folded table (the others are
        // refused, one error line each, as the unfolded table refuses them).
        let header: Vec<&str> = unfolded.lines().next().unwrap().split(',').collect();
        let reachable = header.iter().position(|&c| c == "reachable").unwrap();
        let every: String = unfolded
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            // Fields before `reachable` hold no comma but the quoted best move.
            .filter(|f| f[reachable + f.len() - header.len()] == "true")
            .map(|f| format!("{}\n", f[0]))
            .collect();
        assert!(every.lines().count() > 1000, "{game} {board}");
        let answers = |table: &str| {
            crate::common::stdout(&retro(&["query", table, "--batch", "--codes"], &every))
        };
        assert_eq!(answers(&f), answers(&u), "{game} {board}");
        // Best moves and lines of play, in the cells of the position as typed.
        for position in every.lines().step_by(every.lines().count() / 40 + 1) {
            let pv = |table: &str| ok(&retro(&["query", table, position, "--json", "--pv"], ""));
            assert_eq!(pv(&f), pv(&u), "{game} {board} {position}");
        }
        let info: serde_json::Value =
            serde_json::from_str(&ok(&retro(&["info", &f, "--json"], ""))).unwrap();
        assert_eq!(info["positions"], positions);
        assert_eq!(info["entries"], entries_count);
        assert_eq!(info["symmetries"], symmetries);
        assert_eq!(info["format_version"], 4);
    }
}

/// `plan` sizes the table `build` makes, over MPI as in one process: for a folded game its
/// entries, with the positions they answer for; with `--no-fold`, the table of every
/// position.
#[test]
fn plan_sizes_the_folded_table_an_mpi_build_writes() {
    use crate::common::{ok, retro};
    let board = MnkBoard {
        rows: 4,
        cols: 4,
        k: 4,
    };
    let entries = Mnk::new(board.clone()).unwrap().total_positions();
    let positions = Mnk::unfolded(board).unwrap().total_positions();
    let plan = |extra: &[&str]| {
        let mut args = vec!["plan", "mnk", "4x4k4", "--ranks", "2", "--total"];
        args.extend_from_slice(extra);
        ok(&retro(&args, "")).lines().next().unwrap().to_string()
    };
    let folded = plan(&[]);
    assert!(
        folded.starts_with(&format!(
            "plan: mnk 4x4k4, {entries} entries for {positions} positions"
        )),
        "{folded}"
    );
    let unfolded = plan(&["--no-fold"]);
    assert!(
        unfolded.starts_with(&format!("plan: mnk 4x4k4, {positions} positions,")),
        "{unfolded}"
    );
}

/// Every layer's canonical positions in rank order, as one FNV-1a checksum of their text: a
/// folded table's layout is this order, so a change to it must be a new format version.
fn layout_checksum<G: Gameplay>(game: &G) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for k in 0..=game.last_layer() {
        for r in 0..game.layer_size(k) {
            let text = game.format_position(&game.unrank(k, r));
            for byte in text.bytes().chain([b'\n']) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    hash
}

/// The folded order of every game, pinned: each checksum is of the order the tables of the
/// current format version hold (Teeko's before version 4 too, which its version 3 tables
/// are still read in). A checksum that changes means tables written before no longer read
/// right: keep the old order for them and raise `table::header::VERSION`.
#[test]
fn every_folded_layout_is_pinned_by_a_checksum() {
    use retro::game::{Board, Morris, Registered};
    fn of<G: Registered>(text: &str) -> G {
        G::new(G::Board::parse(text).expect("a board")).expect("a game")
    }
    let teeko = TeekoBoard::parse("4x4s3").unwrap();
    let sums = [
        ("teeko 4x4s3", layout_checksum(&of::<Teeko>("4x4s3"))),
        (
            "teeko 4x4s3 (version 3)",
            layout_checksum(&Teeko::keyed_on_occupied(teeko).unwrap()),
        ),
        ("quixo 3x3", layout_checksum(&of::<Quixo>("3x3"))),
        ("mnk 3x3k3", layout_checksum(&of::<Mnk>("3x3k3"))),
        ("mnk 3x4k3", layout_checksum(&of::<Mnk>("3x4k3"))),
        ("connect 4x4", layout_checksum(&of::<Connect>("4x4"))),
        (
            "morris six stones=3",
            layout_checksum(&of::<Morris>("six stones=3")),
        ),
    ];
    let pinned = [
        ("teeko 4x4s3", 6410931702404098424),
        ("teeko 4x4s3 (version 3)", 13945345414259841950),
        ("quixo 3x3", 5881147778335585597),
        ("mnk 3x3k3", 692345617412150753),
        ("mnk 3x4k3", 12642652148366294887),
        ("connect 4x4", 830935818381940388),
        ("morris six stones=3", 4614020938495360264),
    ];
    assert_eq!(sums, pinned);
}

/// A folded Teeko table of format version 3 (its orbits keyed on the occupied cells; the
/// file in tests/data was written by the retro of that version) opens, verifies and answers
/// as a table built now: `diff` finds every entry equal position by position, and both
/// export the same positions with the same values.
#[test]
fn a_teeko_table_of_format_version_3_answers_as_one_built_now() {
    use crate::common::{ok, retro};
    let old = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/teeko-4x4s3-v3.retro"
    );
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("n.retro");
    let new = new.to_str().unwrap();
    ok(&retro(&["build", "teeko", "4x4s3", "-o", new, "-q"], ""));
    let version = |table: &str| {
        let info: serde_json::Value =
            serde_json::from_str(&ok(&retro(&["info", table, "--json"], ""))).unwrap();
        info["format_version"].clone()
    };
    assert_eq!(version(old), 3);
    assert_eq!(version(new), 4);
    ok(&retro(&["verify", old, "-q"], ""));
    let diff = ok(&retro(&["diff", old, new], ""));
    assert!(diff.contains("all 27305 entries agree"), "{diff}");
    let export = |table: &str| {
        let out = dir.path().join("e.csv");
        let out = out.to_str().unwrap();
        ok(&retro(
            &["export", table, "--all", "--csv", "-o", out, "-q"],
            "",
        ));
        let mut rows: Vec<String> = std::fs::read_to_string(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        rows.sort();
        rows
    };
    let (before, now) = (export(old), export(new));
    assert_eq!(before.len(), 376_857 + 1);
    assert!(before == now, "the exports differ");
    for position in [
        "empty",
        "x.../.o../..../....",
        "xx.o/.o../x.../..o.:o",
        "xx.o/.o../x.../..o.:x",
    ] {
        let q = |table: &str| retro(&["query", table, position, "--json"], "");
        let (a, b) = (q(old), q(new));
        assert_eq!(
            (a.status.code(), &a.stdout),
            (b.status.code(), &b.stdout),
            "{position}"
        );
    }
}
