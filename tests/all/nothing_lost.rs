//! Nothing lost, nothing wrong: partial files under hostile and careless use (links planted
//! under the partial name, a partial name that is the input, strangers' files, two writers
//! of one output), builds and exports stopped at every step that changes a partial file (a
//! fault injected just before the step, `--crash-before-step N`, so each window is hit on
//! purpose rather than by a timer's luck) and rerun byte-identical, readers of whole layers
//! that check checksums, and a table written over while it is read.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::{fails, ok, retro, shipped, text};

fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
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
            input: shipped("young-sample.txt"),
        },
        Board {
            game: "twins",
            input: shipped("twins-sample1.txt"),
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
    ok(&build(&boards()[0], &table, &[]));
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
    std::fs::copy(shipped("young-sample.txt"), &board).expect("copy");
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
    ok(&retro(&["export", s(&table), "--csv", "-o", s(&mine)], ""));
    assert!(!d.join("mine.csv.partial").exists());
}

#[test]
fn an_export_holds_its_partial_file_and_a_second_one_stops_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let table = d.join("t.retro");
    ok(&build(&boards()[2], &table, &[]));
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
    ok(&build(&boards()[3], &other, &[]));
    let whole = |t: &Path, name: &str| {
        let f = d.join(name);
        ok(&retro(&["export", s(t), "--csv", "-o", s(&f)], ""));
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
    ok(&build(board, &reference, extra));
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
    ok(&build(board, &reference, &[]));
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
        ok(&build(board, &out, &[]));
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
        ok(&build(board, &table, &["--moves", "2"]));
        let reference = d.join(format!("ref{i}.csv"));
        ok(&retro(
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
            ok(&retro(&["export", s(&table), "--csv", "-o", s(&out)], ""));
            assert_eq!(std::fs::read(&out).expect("read"), want, "step {step}");
            std::fs::write(&out, "an older export\n").expect("write");
        }
    }
    assert!(stops >= 12, "only {stops} stops");
}

/// `retro query TABLE --batch` on `input`, which it may stop reading early (a damaged
/// table ends the batch).
fn batch(table: &Path, input: &str) -> Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["query", s(table), "--batch"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("wait");
    feeder.join().expect("feeder");
    out
}

/// An exported row's position (quoted when it holds commas).
fn first_field(line: &str) -> &str {
    match line.strip_prefix('"') {
        Some(rest) => rest.split('"').next().unwrap_or(""),
        None => line.split(',').next().unwrap_or(""),
    }
}

/// Layer `k`'s byte range in a table file.
fn layer_bytes(table: &Path, k: usize) -> (u64, u64) {
    let t = retro::table::Table::open(table).expect("open");
    let e = t.header.layers[k];
    (e.offset, e.bytes)
}

#[test]
fn a_flipped_byte_in_any_layer_stops_export_and_batch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let board = &boards()[1];
    let positions: String = {
        let t = d.join("whole.retro");
        ok(&build(board, &t, &[]));
        let csv = d.join("whole.csv");
        ok(&retro(&["export", s(&t), "--csv", "-o", s(&csv)], ""));
        let text = std::fs::read_to_string(csv).expect("read");
        text.lines()
            .skip(1)
            .map(|l| format!("{}\n", first_field(l)))
            .collect()
    };
    let mut flips = 0;
    for extra in [&[][..], &["--compact"][..], &["--moves", "3"][..]] {
        let table = d.join("t.retro");
        ok(&build(
            board,
            &table,
            &["--fresh"].iter().chain(extra).copied().collect::<Vec<_>>(),
        ));
        let original = std::fs::read(&table).expect("read");
        for k in 0..=9 {
            let (offset, bytes) = layer_bytes(&table, k);
            // One bit of the layer's first, middle and last byte.
            for at in [offset, offset + bytes / 2, offset + bytes - 1] {
                let mut damaged = original.clone();
                damaged[at as usize] ^= 0x04;
                let bad = d.join("bad.retro");
                std::fs::write(&bad, &damaged).expect("write");
                let csv = d.join("bad.csv");
                let out = retro(&["export", s(&bad), "--csv", "-o", s(&csv)], "");
                fails(&out, 1, &format!("checksum mismatch in layer {k}"));
                assert!(!csv.exists() && !d.join("bad.csv.partial").exists());
                let out = batch(&bad, &positions);
                fails(&out, 1, &format!("checksum mismatch in layer {k}"));
                flips += 1;
            }
        }
    }
    assert_eq!(flips, 90);
}

#[test]
fn a_table_written_over_in_place_while_a_batch_reads_it_is_an_error_not_a_crash() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let board = d.join("y.txt");
    std::fs::write(
        &board,
        retro(&["gen", "young", "9x9", "--seed", "5"], "").stdout,
    )
    .expect("write");
    let table = d.join("v.retro");
    ok(&retro(
        &["build", "young", s(&board), "-o", s(&table), "-q"],
        "",
    ));
    let other = d.join("other.retro");
    ok(&build(&boards()[3], &other, &[]));
    // Every position of layer 40, many times over: output comes in 64 KiB pieces.
    let csv = d.join("l.csv");
    ok(&retro(
        &["export", s(&table), "--layer", "40", "--csv", "-o", s(&csv)],
        "",
    ));
    let layer: Vec<String> = std::fs::read_to_string(&csv)
        .expect("read")
        .lines()
        .skip(1)
        .map(|l| first_field(l).to_string())
        .collect();
    let lines: String = layer.iter().map(|p| format!("{p}\n")).collect();
    let want = retro(&["query", s(&table), "--batch"], &lines);
    let want = ok(&want);
    for replace in ["truncate", "rewrite"] {
        ok(&retro(
            &[
                "build",
                "young",
                s(&board),
                "-o",
                s(&table),
                "-q",
                "--fresh",
            ],
            "",
        ));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(["query", s(&table), "--batch"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        // A feeder thread: rounds of the layer's positions until the table has been written
        // over, then four more, then the end of input (answers come out 64 KiB at a time,
        // so the input must keep coming for the first to appear).
        let replaced = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let feeder = {
            let (replaced, lines) = (replaced.clone(), lines.clone());
            std::thread::spawn(move || {
                let mut after = 0;
                while after < 4 {
                    if stdin.write_all(lines.as_bytes()).is_err() {
                        break;
                    }
                    if replaced.load(std::sync::atomic::Ordering::Acquire) {
                        after += 1;
                    }
                }
            })
        };
        // The first answer: the batch has the table mapped and is reading it.
        let mut printed = Vec::new();
        let mut first = String::new();
        stdout.read_line(&mut first).expect("read");
        printed.push(first);
        // Written over in place, as `cp` does: cut to nothing, then other bytes.
        let f = std::fs::File::options()
            .write(true)
            .open(&table)
            .expect("open");
        f.set_len(0).expect("truncate");
        if replace == "rewrite" {
            std::io::Write::write_all(&mut &f, &std::fs::read(&other).expect("read"))
                .expect("write");
        }
        drop(f);
        replaced.store(true, std::sync::atomic::Ordering::Release);
        let rest = {
            let mut rest = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
            rest
        };
        printed.extend(rest.lines().map(|l| format!("{l}\n")));
        feeder.join().expect("feeder");
        let status = child.wait().expect("wait");
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
            .expect("read");
        assert_eq!(status.code(), Some(1), "{replace}: {err}");
        assert!(
            err.contains("the file changed on disk while it was being read"),
            "{replace}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        // Every answer printed was read before the change, and is right.
        let want: Vec<&str> = want.lines().cycle().take(printed.len()).collect();
        let got: Vec<&str> = printed.iter().map(|l| l.trim_end()).collect();
        assert_eq!(got, want, "{replace}");
    }
}

#[test]
fn verify_holds_no_more_memory_than_the_build() {
    // Twins 4 x 4 with weights up to 100 (one-byte values): its largest layer has 900,900
    // positions, and the build holds two adjacent layers of one byte each; verify used to
    // hold 8 bytes a position of a layer twice over (14 MB more than the build here).
    let dir = tempfile::tempdir().expect("tempdir");
    let board = dir.path().join("t44.txt");
    std::fs::write(
        &board,
        retro(&["gen", "twins", "4x4", "--seed", "7", "--max", "100"], "").stdout,
    )
    .expect("write");
    let table = dir.path().join("t44.retro");
    let peak = |out: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
        v["peak_rss"].as_u64().expect("peak_rss")
    };
    let built = ok(&retro(
        &[
            "build",
            "twins",
            s(&board),
            "-o",
            s(&table),
            "-q",
            "--json",
            "--threads",
            "2",
        ],
        "",
    ));
    let verified = ok(&retro(
        &["verify", s(&table), "-q", "--json", "--threads", "2"],
        "",
    ));
    let (b, v) = (peak(&built), peak(&verified));
    assert!(
        v <= b + (4 << 20),
        "verify peaked at {v} bytes, the build at {b}"
    );
}

/// A header longer than a page, rewritten after every layer, torn between its pages by a
/// power cut: the rerun takes the header back from the copy written before it and resumes
/// byte-identical, losing no finished layer. `--tear-write N --tear-at B` cuts the Nth
/// write of more than B bytes (headers, their copies, layers) after B bytes and aborts.
#[test]
fn headers_torn_at_every_page_boundary_resume_byte_identical() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // Young 10 x 10: 101 layers and 200 weights, a header of about 4.9 KiB.
    let input = d.join("y10.txt");
    let board = ok(&retro(&["gen", "young", "10x10", "--seed", "5"], ""));
    std::fs::write(&input, board).expect("write");
    let board = Board {
        game: "young",
        input: s(&input).to_string(),
    };
    let reference = d.join("ref.retro");
    ok(&build(&board, &reference, &[]));
    let want = std::fs::read(&reference).expect("read");
    let out = d.join("t.retro");
    let partial = d.join("t.retro.partial");
    let mut torn = 0;
    for n in (1u64..).step_by(3) {
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&partial);
        let write = n.to_string();
        let run = build(&board, &out, &["--tear-write", &write, "--tear-at", "4096"]);
        if run.status.success() {
            break;
        }
        torn += 1;
        assert!(!out.exists(), "a torn build left {}", out.display());
        let rerun = retro(&["build", board.game, &board.input, "-o", s(&out)], "");
        let said = ok(&rerun);
        assert!(
            std::fs::read(&out).expect("read") == want,
            "write {n} torn: the resumed table differs"
        );
        // Past the first layer's header, the layers finished before the tear were kept,
        // not built again (the first two long writes are the fresh header's copy and it).
        if n > 3 {
            assert!(
                said.contains("(resumed below layer"),
                "write {n} torn: {said}"
            );
        }
    }
    assert!(torn > 50, "only {torn} tears");
}

/// Quixo and Teeko are solved in `i16` and their tables written again in one byte a value
/// once every layer is in. A header torn at a long write of that rewrite (its headers say
/// `i8`) is put back from its copy before its value type is read, so the first rerun
/// resumes, byte-identical; reading the type first took the torn header for another
/// format and refused it until a second rerun. Every long write of Teeko 4x4s3 is torn,
/// and Quixo 3x3's from its 80th on (of 157; the rewrite starts just after the 80th, the
/// solve's writes before it are torn above and in Teeko's).
#[test]
fn torn_headers_of_tables_written_again_in_one_byte_resume_on_the_first_rerun() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let mut torn = 0;
    for (game, size, first) in [("quixo", "3x3", 80u64), ("teeko", "4x4s3", 1)] {
        let board = Board {
            game,
            input: size.into(),
        };
        let reference = d.join(format!("{game}.retro"));
        ok(&build(&board, &reference, &[]));
        let want = std::fs::read(&reference).expect("read");
        let out = d.join("t.retro");
        let partial = d.join("t.retro.partial");
        for n in first.. {
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(&partial);
            // Past the prefix, inside every header (and the layers longer than that).
            let write = n.to_string();
            let run = build(&board, &out, &["--tear-write", &write, "--tear-at", "64"]);
            if run.status.success() {
                break;
            }
            torn += 1;
            assert!(!out.exists(), "a torn build left {}", out.display());
            let rerun = build(&board, &out, &[]);
            assert!(
                rerun.status.success(),
                "{game} {size}: write {n} torn: the first rerun failed: {}",
                text(&rerun.stderr)
            );
            assert!(
                std::fs::read(&out).expect("read") == want,
                "{game} {size}: write {n} torn: the resumed table differs"
            );
        }
    }
    assert!(torn > 100, "only {torn} tears");
}

/// The header copy at the end of a partial file, and where it is: the prefix and header
/// bytes, and their offset (the file's last 16 bytes are `RETROJNL` and the offset).
fn header_copy(file: &[u8]) -> (Vec<u8>, usize) {
    let len = file.len();
    assert_eq!(&file[len - 16..len - 8], b"RETROJNL");
    let at = u64::from_le_bytes(file[len - 8..].try_into().expect("8 bytes")) as usize;
    (file[at..len - 16].to_vec(), at)
}

/// A torn header is put back from its copy only where the copy is of the board being
/// built: a copy of another board's header (longer than this one's) written over offset 0
/// would run over the start of the layers before the board check refused the file. The
/// file is refused as it is, its bytes untouched.
#[test]
fn a_header_copy_of_another_board_is_not_written_over_the_layers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // Young 10 x 10's header is about 4.9 KiB, the young sample's a few hundred bytes.
    let input = d.join("y10.txt");
    let y10 = ok(&retro(&["gen", "young", "10x10", "--seed", "5"], ""));
    std::fs::write(&input, y10).expect("write");
    let large = Board {
        game: "young",
        input: s(&input).to_string(),
    };
    let other = d.join("other.retro");
    let stopped = build(&large, &other, &["--stop-after-layer", "99"]);
    fails(&stopped, 1, "stopped after layer 99");
    let (copy, _) = header_copy(&std::fs::read(d.join("other.retro.partial")).expect("read"));

    let small = &boards()[0];
    let out = d.join("t.retro");
    let partial = d.join("t.retro.partial");
    fails(
        &build(small, &out, &["--stop-after-layer", "4"]),
        1,
        "stopped after layer 4",
    );
    let mut bytes = std::fs::read(&partial).expect("read");
    let (own, at) = header_copy(&bytes);
    assert!(copy.len() > own.len() + 64, "{} {}", copy.len(), own.len());
    // The header at 0 torn (a byte of its layer list changed, so that its checksum fails),
    // and the copy at the end the other board's.
    bytes[40] ^= 0xff;
    bytes.truncate(at);
    bytes.extend_from_slice(&copy);
    bytes.extend_from_slice(b"RETROJNL");
    bytes.extend_from_slice(&(at as u64).to_le_bytes());
    std::fs::write(&partial, &bytes).expect("write");
    let refused = build(small, &out, &[]);
    fails(&refused, 1, "run again with --fresh");
    assert!(
        std::fs::read(&partial).expect("read") == bytes,
        "the refused partial file was written over"
    );
    assert!(!out.exists());
    // --fresh starts over, and builds the table.
    ok(&build(small, &out, &["--fresh"]));
}

/// The layer a rerun of a stopped build resumes below (the board's layers + 1 when it
/// starts from nothing), from its summary line.
fn resumed_below(summary: &str, layers: usize) -> usize {
    summary
        .split("resumed below layer ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|k| k.parse().ok())
        .unwrap_or(layers + 1)
}

/// Teeko and Quixo tables are built in `i16` and written again in one byte a value at the
/// end. Stopped before every step of the build, the rewrite included, a rerun resumes
/// below a layer that never goes back up as the stop moves on (a stop in the rewrite
/// once threw every finished layer away), `info` names every partial file left an
/// unfinished build (never damage: a file whose layers are all written still ends in the
/// header's copy), and the rerun's table is the uninterrupted one.
#[test]
fn a_stop_at_any_step_keeps_what_the_step_before_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // Every step of Teeko 4x4s3 (about 150); every thirteenth of Quixo 3x3's 30 layers.
    for (game, size, layers, every) in [("teeko", "4x4s3", 6, 1), ("quixo", "3x3", 29, 13)] {
        let board = Board {
            game,
            input: size.into(),
        };
        let reference = d.join(format!("{game}.retro"));
        ok(&build(&board, &reference, &[]));
        let want = std::fs::read(&reference).expect("read");
        let out = d.join("t.retro");
        let partial = d.join("t.retro.partial");
        let mut kept = layers + 1;
        let mut rewrite_stops = 0;
        for n in (1u64..).step_by(every) {
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(&partial);
            let step = n.to_string();
            if build(&board, &out, &["--crash-before-step", &step])
                .status
                .success()
            {
                break;
            }
            let info = retro(&["info", s(&partial)], "");
            let said = text(&info.stderr);
            assert!(
                info.status.success() || said.contains("an unfinished build"),
                "{game} {size}, stopped before step {n}: info says {said}"
            );
            rewrite_stops += usize::from(said.contains("every layer is written"));
            let rerun = build(&board, &out, &[]);
            let summary = ok(&rerun);
            let below = resumed_below(&summary, layers);
            assert!(
                below <= kept,
                "{game} {size}: stopped before step {n}, the rerun resumed below layer {below} where one stopped a step earlier resumed below {kept}"
            );
            kept = below;
            assert!(
                std::fs::read(&out).expect("read") == want,
                "{game} {size}: stopped before step {n}, the resumed table differs"
            );
        }
        assert_eq!(
            kept, 0,
            "{game} {size}: the last stops resume below layer 0"
        );
        assert!(
            rewrite_stops > 5,
            "{game} {size}: {rewrite_stops} stops in the rewrite"
        );
    }
}

/// A stranger's file under a build's or an export's partial name that begins with zeros
/// (a disk image, a sparse file) is refused, not emptied; so is a short one of zeros that
/// has a second name (a hard link would carry the truncation to it). A short file of
/// zeros with one name is what a power cut leaves of a first write, and is started over.
#[test]
fn a_strangers_file_of_zeros_under_the_partial_name_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let board = &boards()[0];
    let mut image = vec![0u8; 1 << 20];
    image[40_000..40_010].copy_from_slice(b"disk image");
    let disk = d.join("disk.img");
    std::fs::write(&disk, &image).expect("write");
    // Under its own name: a sparse file, a disk image.
    std::fs::copy(&disk, d.join("iso.retro.partial")).expect("copy");
    fails(
        &build(board, &d.join("iso.retro"), &[]),
        2,
        "is not an interrupted build's partial table",
    );
    fails(
        &build(board, &d.join("iso.retro"), &["--fresh"]),
        2,
        "is not an interrupted build's partial table",
    );
    assert!(std::fs::read(d.join("iso.retro.partial")).expect("read") == image);
    // Through a hard link, however short.
    let short = d.join("short.bin");
    std::fs::write(&short, [0u8; 100]).expect("write");
    std::fs::hard_link(&short, d.join("out.retro.partial")).expect("link");
    fails(
        &build(board, &d.join("out.retro"), &[]),
        2,
        "is not an interrupted build's partial table",
    );
    assert_eq!(std::fs::read(&short).expect("read"), vec![0u8; 100]);
    assert!(!d.join("out.retro").exists());
    // An export's partial name.
    let table = d.join("t.retro");
    ok(&build(board, &table, &[]));
    std::fs::hard_link(&disk, d.join("data.csv.partial")).expect("link");
    let out = retro(
        &["export", s(&table), "--csv", "-o", s(&d.join("data.csv"))],
        "",
    );
    fails(&out, 2, "is not an interrupted export's partial file");
    assert!(std::fs::read(&disk).expect("read") == image);
    // A power cut's leftover: a few zeros, one name.
    std::fs::write(d.join("cut.retro.partial"), [0u8; 600]).expect("write");
    ok(&build(board, &d.join("cut.retro"), &[]));
    assert_eq!(
        std::fs::read(d.join("cut.retro")).expect("read"),
        std::fs::read(&table).expect("read")
    );
}

/// A build reads its partial file back through the file it holds locked, never by name:
/// when the name is given to another file while it runs (a user removed it and a second
/// build created its own), the build says so and seals nothing under the table's name,
/// and the other file is left as it was.
#[test]
fn a_build_whose_partial_file_is_replaced_says_so_and_seals_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for (game, size) in [("teeko", "4x4s3"), ("quixo", "3x3"), ("mnk", "3x3k3")] {
        let board = Board {
            game,
            input: size.into(),
        };
        let out = d.join(format!("{game}.retro"));
        let run = build(&board, &out, &["--replace-after-layer", "5"]);
        fails(&run, 1, "was removed or replaced while this build ran");
        assert!(!out.exists(), "{game}: a table was sealed");
        let partial = d.join(format!("{game}.retro.partial"));
        assert_eq!(std::fs::read(&partial).expect("read").len(), 0, "{game}");
    }
}
