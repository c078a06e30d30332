//! Partial files under hostile and careless use: links planted under the partial name, a
//! partial name that is the input, strangers' files, two writers of one output, and builds
//! and exports stopped at every step that changes a partial file (a fault injected just
//! before the step, `--crash-before-step N`, so each window is hit on purpose rather than by
//! a timer's luck), each rerun byte-identical to an uninterrupted run.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::retro;

fn repo(name: &str) -> String {
    format!("{}/tables/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// The command fails with `code` and exactly one stderr line `error: ...` containing `needle`.
fn fails(out: &Output, code: i32, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
}

fn succeeds(out: &Output) -> String {
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    text(&out.stdout)
}

/// How a board is given to `build`: the game, then the file or size.
struct Board {
    game: &'static str,
    input: String,
}

fn boards() -> Vec<Board> {
    vec![
        Board {
            game: "young",
            input: repo("young-sample.txt"),
        },
        Board {
            game: "twins",
            input: repo("twins-sample1.txt"),
        },
        Board {
            game: "mnk",
            input: "3x3k3".into(),
        },
        Board {
            game: "connect",
            input: "3x3k3".into(),
        },
    ]
}

fn build(board: &Board, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["build", board.game, &board.input, "-o", s(out), "-q"];
    args.extend_from_slice(extra);
    retro(&args, "")
}

#[test]
fn a_partial_file_is_never_a_link_nor_the_input_nor_a_strangers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let table = d.join("t.retro");
    succeeds(&build(&boards()[0], &table, &[]));
    let original = std::fs::read(&table).expect("read");

    // `export snap.partial -o snap`: the partial name is the input.
    let snap = d.join("snap.partial");
    std::fs::copy(&table, &snap).expect("copy");
    let out = retro(&["export", s(&snap), "--csv", "-o", s(&d.join("snap"))], "");
    fails(&out, 2, "is the table being exported");
    assert_eq!(std::fs::read(&snap).expect("read"), original);
    assert!(!d.join("snap").exists());

    // A link planted under the partial name: the file it points at is untouched.
    let victim = d.join("victim.txt");
    std::fs::write(&victim, "victim\n").expect("write");
    std::os::unix::fs::symlink(&victim, d.join("out.csv.partial")).expect("symlink");
    let out = retro(
        &["export", s(&table), "--csv", "-o", s(&d.join("out.csv"))],
        "",
    );
    fails(&out, 2, "is a symbolic link");
    std::os::unix::fs::symlink(&victim, d.join("l.retro.partial")).expect("symlink");
    for extra in [&[][..], &["--fresh"][..]] {
        fails(
            &build(&boards()[0], &d.join("l.retro"), extra),
            2,
            "is a symbolic link",
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "victim\n");
    assert!(!d.join("out.csv").exists() && !d.join("l.retro").exists());

    // `build ... -o BOARD` would replace the board with the table.
    let board = d.join("board.txt");
    std::fs::copy(repo("young-sample.txt"), &board).expect("copy");
    let before = std::fs::read(&board).expect("read");
    let out = retro(&["build", "young", s(&board), "-o", s(&board), "-q"], "");
    fails(&out, 2, "is the board file being read");
    assert_eq!(std::fs::read(&board).expect("read"), before);

    // A stranger's file under an export's partial name is refused, not truncated; a
    // leftover of an interrupted export is replaced.
    let mine = d.join("mine.csv");
    std::fs::write(d.join("mine.csv.partial"), "my notes\n").expect("write");
    let out = retro(&["export", s(&table), "--csv", "-o", s(&mine)], "");
    fails(&out, 2, "is not an interrupted export's partial file");
    assert_eq!(
        std::fs::read_to_string(d.join("mine.csv.partial")).expect("read"),
        "my notes\n"
    );
    std::fs::write(d.join("mine.csv.partial"), "position,stones,to_m").expect("write");
    succeeds(&retro(&["export", s(&table), "--csv", "-o", s(&mine)], ""));
    assert!(!d.join("mine.csv.partial").exists());
}

#[test]
fn an_export_holds_its_partial_file_and_a_second_one_stops_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let table = d.join("t.retro");
    succeeds(&build(&boards()[2], &table, &[]));
    let out_csv = d.join("out.csv");
    // This test process holds the lock a running export holds.
    let held = std::fs::File::create(d.join("out.csv.partial")).expect("create");
    held.lock().expect("lock");
    let out = retro(&["export", s(&table), "--csv", "-o", s(&out_csv)], "");
    fails(&out, 1, "another export to");
    assert!(
        text(&out.stderr).contains(&format!("pid {}", std::process::id())),
        "{}",
        text(&out.stderr)
    );
    assert!(!out_csv.exists());
    drop(held);

    // Two real exports of different tables to one file, started together, a few times:
    // whatever the interleaving, the file is one whole export, never a mix, and a loser
    // says who holds the file.
    let other = d.join("u.retro");
    succeeds(&build(&boards()[3], &other, &[]));
    let whole = |t: &Path, name: &str| {
        let f = d.join(name);
        succeeds(&retro(&["export", s(t), "--csv", "-o", s(&f)], ""));
        std::fs::read(f).expect("read")
    };
    let (a, b) = (whole(&table, "a.csv"), whole(&other, "b.csv"));
    let exe = env!("CARGO_BIN_EXE_retro");
    for _ in 0..8 {
        let _ = std::fs::remove_file(&out_csv);
        let start = |t: &Path| {
            std::process::Command::new(exe)
                .args(["export", s(t), "--csv", "-o", s(&out_csv)])
                .stderr(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn")
        };
        let (x, y) = (start(&table), start(&other));
        let outs = [x.wait_with_output(), y.wait_with_output()].map(|o| o.expect("wait"));
        for o in &outs {
            if !o.status.success() {
                fails(o, 1, "another export to");
            }
        }
        assert!(outs.iter().any(|o| o.status.success()));
        let got = std::fs::read(&out_csv).expect("read");
        assert!(got == a || got == b, "a mix of two exports");
    }
}

/// Build `board` uninterrupted, then again stopping just before each step in `steps` of a
/// first run and then, if `second` is given, before that step of the rerun too; the last
/// run must finish with the uninterrupted table, byte for byte. Returns how many stops.
fn stop_and_resume(board: &Board, extra: &[&str], every: usize, second: &[u64]) -> usize {
    let dir = tempfile::tempdir().expect("tempdir");
    let reference = dir.path().join("ref.retro");
    succeeds(&build(board, &reference, extra));
    let want = std::fs::read(&reference).expect("read");
    let out = dir.path().join("t.retro");
    let partial = dir.path().join("t.retro.partial");
    let mut stops = 0;
    let mut first = 1u64;
    loop {
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&partial);
        let n = first.to_string();
        let mut args = extra.to_vec();
        args.extend(["--crash-before-step", &n]);
        let run = build(board, &out, &args);
        if run.status.success() {
            break;
        }
        assert!(!out.exists(), "a stopped build left {}", out.display());
        stops += 1;
        for &again in second {
            let n = again.to_string();
            let mut args = extra.to_vec();
            args.extend(["--crash-before-step", &n]);
            if build(board, &out, &args).status.success() {
                break;
            }
            assert!(!out.exists());
            stops += 1;
        }
        let rerun = build(board, &out, extra);
        assert!(
            rerun.status.success(),
            "{} {:?} stopped before step {first}: the rerun failed: {}",
            board.game,
            extra,
            text(&rerun.stderr)
        );
        let got = std::fs::read(&out).expect("read");
        assert!(
            got == want,
            "{} {extra:?} stopped before step {first}: the resumed table differs",
            board.game
        );
        first += every as u64;
    }
    stops
}

#[test]
fn builds_stopped_at_every_step_resume_byte_identical() {
    let mut stops = 0;
    for board in boards() {
        for extra in [
            &[][..],
            &["--compact"][..],
            &["--moves", "2"][..],
            &["--moves", "3"][..],
            &["--moves", "4"][..],
        ] {
            // Every step of young's sample; every third of the larger boards.
            let every = if board.game == "young" { 1 } else { 3 };
            stops += stop_and_resume(&board, extra, every, &[]);
        }
    }
    assert!(stops > 500, "only {stops} stops");
}

#[test]
fn a_resumed_build_stopped_again_while_it_resumes_still_resumes() {
    // The first steps of a resumed build rewrite the header (a table of best moves drops
    // the layers of moves below its last layer of values) and cut the file after its last
    // finished layer; a stop between or inside those must leave a file that resumes.
    let mut stops = 0;
    for board in [&boards()[0], &boards()[3]] {
        for extra in [&["--moves", "3"][..], &["--moves", "2"][..], &[][..]] {
            stops += stop_and_resume(board, extra, 2, &[1, 2, 3, 4]);
        }
    }
    assert!(stops > 100, "only {stops} stops");
}

#[test]
fn a_build_stopped_before_its_first_layer_starts_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let board = &boards()[1];
    let reference = dir.path().join("ref.retro");
    succeeds(&build(board, &reference, &[]));
    let want = std::fs::read(&reference).expect("read");
    let out = dir.path().join("t.retro");
    let partial: PathBuf = dir.path().join("t.retro.partial");
    // Step 1 empties the file, step 2 writes the header, step 3 is the first layer's data:
    // a header alone is shorter than the padded start of the values.
    for (step, cut) in [(3, None), (3, Some(10)), (3, Some(0)), (2, None)] {
        let _ = std::fs::remove_file(&partial);
        let n = step.to_string();
        assert!(
            !build(board, &out, &["--crash-before-step", &n])
                .status
                .success()
        );
        if let Some(len) = cut {
            // A header cut short, as by a power loss in the middle of its write.
            std::fs::File::options()
                .write(true)
                .open(&partial)
                .and_then(|f| f.set_len(len))
                .expect("truncate");
        }
        succeeds(&build(board, &out, &[]));
        assert_eq!(
            std::fs::read(&out).expect("read"),
            want,
            "step {step}, cut {cut:?}"
        );
    }
}

#[test]
fn exports_stopped_at_every_step_leave_the_old_file_and_rerun_identical() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let mut stops = 0;
    for (i, board) in boards().iter().enumerate() {
        let table = d.join(format!("t{i}.retro"));
        succeeds(&build(board, &table, &["--moves", "2"]));
        let reference = d.join(format!("ref{i}.csv"));
        succeeds(&retro(
            &["export", s(&table), "--csv", "-o", s(&reference)],
            "",
        ));
        let want = std::fs::read(&reference).expect("read");
        let out = d.join(format!("out{i}.csv"));
        std::fs::write(&out, "an older export\n").expect("write");
        for step in 1.. {
            let n = step.to_string();
            let run = retro(
                &[
                    "export",
                    s(&table),
                    "--csv",
                    "-o",
                    s(&out),
                    "--crash-before-step",
                    &n,
                    "--threads",
                    "1",
                ],
                "",
            );
            if run.status.success() {
                break;
            }
            stops += 1;
            // Stopped: the file under the name is still the old one.
            assert_eq!(
                std::fs::read_to_string(&out).expect("read"),
                "an older export\n"
            );
            succeeds(&retro(&["export", s(&table), "--csv", "-o", s(&out)], ""));
            assert_eq!(std::fs::read(&out).expect("read"), want, "step {step}");
            std::fs::write(&out, "an older export\n").expect("write");
        }
    }
    assert!(stops >= 12, "only {stops} stops");
}
