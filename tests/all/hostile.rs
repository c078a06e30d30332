//! A careful user and a hostile environment: concurrent builds of one table, output paths
//! that are not files, closed and full output, bytes that are not text, absurd arguments,
//! and a disk that fills up mid-build.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use retro::table::Table;

use crate::common;
use common::{fails, ok, retro, shipped, text};

/// A young board of `size` written into `dir`.
fn young_board(dir: &Path, size: &str) -> String {
    let out = retro(&["gen", "young", size, "--seed", "3"], "");
    let path = dir.join(format!("young-{size}.txt"));
    std::fs::write(&path, &out.stdout).expect("write board");
    path.to_str().expect("utf-8 path").to_owned()
}

fn build_table(dir: &Path, board: &str, name: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let p = path.to_str().expect("utf-8 path");
    let mut args = vec!["build", "young", board, "-o", p, "-q"];
    args.extend_from_slice(extra);
    ok(&retro(&args, ""));
    path
}

/// A block directory entry's size in a compact table (the README's file format: minimum,
/// offset and width, 16 bytes).
const DIR_ENTRY: usize = 16;

#[test]
fn a_second_build_of_a_locked_table_stops_naming_the_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("t.retro");
    let t = table.to_str().expect("utf-8 path");
    // This test process holds the lock a running build holds.
    let partial = File::create(dir.path().join("t.retro.partial")).expect("partial");
    partial.lock().expect("lock");
    let out = retro(
        &[
            "build",
            "young",
            &shipped("young-sample.txt"),
            "-o",
            t,
            "-q",
        ],
        "",
    );
    fails(&out, 1, "another build of this table is running");
    assert!(
        text(&out.stderr).contains(&format!("pid {}", std::process::id())),
        "{}",
        text(&out.stderr)
    );
    // --fresh does not get past the lock either, and nothing was written.
    let out = retro(
        &[
            "build",
            "young",
            &shipped("young-sample.txt"),
            "-o",
            t,
            "--fresh",
        ],
        "",
    );
    fails(&out, 1, "another build");
    assert!(!table.exists());
    assert_eq!(
        std::fs::metadata(dir.path().join("t.retro.partial"))
            .expect("partial")
            .len(),
        0
    );
    // Once the lock goes (the holder ended), the build proceeds.
    drop(partial);
    ok(&retro(
        &[
            "build",
            "young",
            &shipped("young-sample.txt"),
            "-o",
            t,
            "-q",
        ],
        "",
    ));
    Table::open(&table)
        .expect("open")
        .verify_checksum()
        .expect("checksum");
}

#[test]
fn concurrent_builds_never_leave_a_bad_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let board = young_board(dir.path(), "12x12");
    let table = dir.path().join("cc.retro");
    let t = table.to_str().expect("utf-8 path");
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(["build", "young", &board, "-o", t, "-q", "--threads", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let mut both_ran = 0;
    for _ in 0..4 {
        let _ = std::fs::remove_file(&table);
        let first = start();
        let second = start();
        let (a, b) = (
            first.wait_with_output().expect("wait"),
            second.wait_with_output().expect("wait"),
        );
        for out in [&a, &b] {
            let err = text(&out.stderr);
            assert!(
                out.status.success() || err.contains("another build of this table is running"),
                "{err}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
        assert!(a.status.success() || b.status.success());
        if !(a.status.success() && b.status.success()) {
            both_ran += 1;
        }
        // Whatever interleaving happened, the file under the table's name is whole.
        let t = Table::open(&table).expect("open");
        t.verify_checksum().expect("checksum");
        ok(&retro(
            &["verify", t.path().to_str().expect("path"), "-q"],
            "",
        ));
    }
    // Both started together: at least once the second met the first's lock (the
    // builds take far longer than a process start).
    assert!(both_ran > 0, "the two builds never overlapped");
}

#[test]
fn output_paths_that_are_not_files_are_refused_before_any_work() {
    let dir = tempfile::tempdir().expect("tempdir");
    let board = shipped("young-sample.txt");
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    let missing = dir.path().join("no/such/dir/t.retro");
    let cases: [(&str, &str); 6] = [
        ("/dev/null", "is a device"),
        (".", "is a directory"),
        ("/", "names a directory"),
        (dir.path().to_str().expect("path"), "is a directory"),
        (fifo.to_str().expect("path"), "is a FIFO"),
        (missing.to_str().expect("path"), "No such file or directory"),
    ];
    for (path, needle) in cases {
        let started = Instant::now();
        let out = retro(&["build", "young", &board, "-o", path], "");
        fails(&out, if needle.contains("No such") { 1 } else { 2 }, needle);
        assert!(started.elapsed() < Duration::from_secs(10));
    }
    let meta = std::fs::metadata("/dev/null").expect("/dev/null");
    use std::os::unix::fs::FileTypeExt;
    assert!(meta.file_type().is_char_device(), "/dev/null was replaced");
}

/// Run `args` with stdout the read end of a pipe that is closed at once.
fn with_closed_stdout(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let mut input = child.stdin.take().expect("stdin");
    let _ = input.write_all(stdin);
    drop(input);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read stderr");
    let status = child.wait().expect("wait");
    Output {
        status,
        stdout: Vec::new(),
        stderr: err.into_bytes(),
    }
}

/// Run `args` with stdout on /dev/full.
fn with_full_stdout(args: &[&str], stdin: &[u8]) -> Output {
    let full = File::options()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("wait")
}

#[test]
fn closed_output_ends_quietly_and_full_output_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let board = shipped("young-sample.txt");
    let table = build_table(dir.path(), &board, "t.retro", &[]);
    let t = table.to_str().expect("path");
    let out2 = dir.path().join("u.retro");
    let u = out2.to_str().expect("path");
    let many: String = "0,0\n".repeat(200_000);
    let commands: Vec<(Vec<&str>, &[u8])> = vec![
        (vec!["info", t], b""),
        (vec!["info", t, "--json"], b""),
        (vec!["query", t, "0,0"], b""),
        (vec!["query", t, "--batch"], many.as_bytes()),
        (vec!["gen", "young", "30x30"], b""),
        (vec!["plan", "young", "12x12", "--ranks", "4"], b""),
        (vec!["solve", "young", &board], b""),
        (vec!["verify", t, "-q"], b""),
        (
            vec!["build", "young", &board, "-o", u, "-q", "--fresh"],
            b"",
        ),
        (
            vec![
                "bench",
                "young",
                &board,
                "--threads",
                "1",
                "--repeat",
                "1",
                "--json",
                "--quiet",
            ],
            b"",
        ),
    ];
    for (args, stdin) in &commands {
        let out = with_closed_stdout(args, stdin);
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?} not quiet: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");

        let out = with_full_stdout(args, stdin);
        fails(&out, 1, "writing output: No space left on device");
    }
}

#[test]
fn bytes_that_are_not_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = build_table(dir.path(), &shipped("young-sample.txt"), "t.retro", &[]);
    let t = table.to_str().expect("path");
    // Batch: a line that is not UTF-8 is a bad line in its place; the rest go on.
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["query", t, "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .expect("stdin")
                .write_all(b"0,0\n1,\xff\n1,0\n2,1\n")?;
            c.wait_with_output()
        })
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "2\nerror\n0\n-2\n");
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: line 2: byte 3 is not UTF-8"),
        "{err}"
    );

    // A board file with invalid bytes is bad input.
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, b"2 3\n2 7 \xfe 3").expect("write");
    let out = retro(&["solve", "young", bad.to_str().expect("path")], "");
    fails(&out, 2, "not UTF-8");
}

#[test]
fn thread_counts_beyond_the_machine_are_refused_at_once() {
    let started = Instant::now();
    let out = retro(
        &[
            "solve",
            "young",
            &shipped("young-sample.txt"),
            "--threads",
            "100000",
        ],
        "",
    );
    fails(&out, 2, "--threads 100000 is too many");
    let out = retro(
        &[
            "bench",
            "young",
            &shipped("young-sample.txt"),
            "--threads",
            "1,100000",
        ],
        "",
    );
    fails(&out, 2, "--threads 100000 is too many");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn huge_input_lines_are_not_echoed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = build_table(dir.path(), &shipped("young-sample.txt"), "t.retro", &[]);
    let t = table.to_str().expect("path");
    let mut input = "9".repeat(10 << 20);
    input.push('\n');
    let long_position = format!("{}\n", ",".repeat(5000));
    input.push_str(&long_position);
    input.push_str("1,0\n");
    let out = retro(&["query", t, "--batch"], &input);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "error\nerror\n0\n");
    let err = text(&out.stderr);
    assert!(
        err.len() < 1000,
        "stderr echoes the input: {} bytes",
        err.len()
    );
    assert!(err.contains("line 1: longer than 65536 bytes"), "{err}");
    assert!(err.contains("line 2: "), "{err}");
}

#[test]
fn smaller_hostile_cases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let board = shipped("young-sample.txt");
    let table = build_table(dir.path(), &board, "t.retro", &[]);
    let t = table.to_str().expect("path");

    // info on a FIFO does not block.
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    fails(
        &retro(&["info", fifo.to_str().expect("path")], ""),
        1,
        "is a FIFO, not a table",
    );

    // A huge sample is bounded by the table's positions.
    let started = Instant::now();
    let out = ok(&retro(
        &["verify", t, "--sample", "18446744073709551615"],
        "",
    ));
    assert!(out.contains("10 positions checked"), "{out}");
    assert!(started.elapsed() < Duration::from_secs(10));

    // A file under the partial name that retro did not write is named once and left
    // alone, with or without --fresh.
    let u = dir.path().join("u.retro");
    let stranger = b"not a table at all, but long enough";
    std::fs::write(dir.path().join("u.retro.partial"), stranger).expect("write");
    for extra in [None, Some("--fresh")] {
        let mut args = vec![
            "build",
            "young",
            &board,
            "-o",
            u.to_str().expect("path"),
            "-q",
        ];
        args.extend(extra);
        let out = retro(&args, "");
        fails(
            &out,
            2,
            "exists and is not an interrupted build's partial table",
        );
        let err = text(&out.stderr);
        assert_eq!(err.matches("u.retro.partial").count(), 1, "{err}");
        let kept = std::fs::read(dir.path().join("u.retro.partial")).expect("read");
        assert_eq!(kept, stranger);
    }

    // A damaged compact directory stops a batch as a damaged table (exit 1), not as a
    // bad line (exit 2).
    let compact = build_table(
        dir.path(),
        &young_board(dir.path(), "6x7"),
        "c.retro",
        &["--compact"],
    );
    let header = Table::open(&compact).expect("open").header;
    let layer = &header.layers[6];
    let mut bytes = std::fs::read(&compact).expect("read");
    // The directory is the last part of the layer: break its first entry's width.
    let dir_entry_at =
        (layer.offset + layer.bytes) as usize - layer.positions.div_ceil(4096) as usize * DIR_ENTRY;
    for b in &mut bytes[dir_entry_at..dir_entry_at + DIR_ENTRY] {
        *b = 0xff;
    }
    std::fs::write(&compact, &bytes).expect("write");
    let positions: String = (0..20).map(|_| "1,1,1,1,1,1\n").collect();
    let out = retro(
        &["query", compact.to_str().expect("path"), "--batch"],
        &positions,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).starts_with("error: "),
        "{}",
        text(&out.stderr)
    );
}

/// Mount a tmpfs of `size` at `dir`; false where mounting is refused (not root, no
/// privilege in this container), so the test can skip.
fn mount_tmpfs(dir: &Path, size: &str) -> bool {
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_full_disk_stops_the_build_and_the_rerun_resumes_byte_identical() {
    let dir = tempfile::tempdir().expect("tempdir");
    let board = young_board(dir.path(), "9x10");
    let reference = build_table(dir.path(), &board, "ref.retro", &[]);
    let size = std::fs::metadata(&reference).expect("ref").len();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).expect("mkdir");
    // Room for about half the table.
    if !mount_tmpfs(&mnt, &format!("{}k", size / 2 / 1024)) {
        eprintln!("skipped: cannot mount a tmpfs here");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _guard = Unmount(&mnt);
    let table = mnt.join("t.retro");
    let t = table.to_str().expect("path");
    let out = retro(&["build", "young", &board, "-o", t, "-q", "--force"], "");
    fails(&out, 1, "No space left on device");
    assert!(
        !table.exists(),
        "a table appeared although the disk was full"
    );
    assert!(mnt.join("t.retro.partial").exists());
    // More room, the same command: it resumes and ends with the same bytes.
    assert!(
        Command::new("mount")
            .args(["-o", &format!("remount,size={}k", size * 2 / 1024 + 64)])
            .arg(&mnt)
            .status()
            .expect("remount")
            .success()
    );
    let out = ok(&retro(&["build", "young", &board, "-o", t, "--force"], ""));
    assert!(out.contains("resumed below layer"), "{out}");
    assert_eq!(
        std::fs::read(&table).expect("table"),
        std::fs::read(&reference).expect("reference")
    );
}

/// Arguments and input past what a command can describe or hold are refused in one line
/// (or skipped, for an interactive line), before any large allocation.
#[test]
fn sizes_past_the_bounds_are_refused_naming_the_bound() {
    fails(
        &retro(&["plan", "young", "10x10", "--ranks", "4294967295"], ""),
        2,
        "--ranks 4294967295 is more than plan describes: at most 65536",
    );
    // The largest rank count plan describes is answered (work linear in the ranks).
    let out = ok(&retro(
        &["plan", "young", "10x10", "--ranks", "65536", "--total"],
        "",
    ));
    assert!(out.contains("65536 ranks"), "{out}");
    fails(
        &retro(
            &[
                "plan",
                "young",
                "4x4",
                "--max-weight",
                "18446744073709551615",
            ],
            "",
        ),
        2,
        "--max-weight 18446744073709551615 is too large",
    );
    fails(
        &retro(
            &[
                "bench",
                "young",
                &shipped("young-sample.txt"),
                "--repeat",
                "4294967295",
            ],
            "",
        ),
        2,
        "4294967295",
    );
    // Counts that would wrap when doubled, in every game's board words.
    for (game, board, says) in [
        (
            "morris",
            "nine stones=9223372036854775811",
            "3 to 12 stones",
        ),
        ("morris", "six stones=9223372036854775808", "3 to 8 stones"),
        ("teeko", "5x5s9223372036854775808", "must leave a cell free"),
        (
            "quixo",
            "9223372036854775808x9223372036854775808",
            "9223372036854775808",
        ),
        ("mnk", "3x3k18446744073709551615", "K must be from 1 to 3"),
        ("connect", "18446744073709551615x2", "18446744073709551615"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("t.retro");
        fails(
            &retro(
                &["build", game, board, "-o", out.to_str().expect("utf-8")],
                "",
            ),
            2,
            says,
        );
        assert!(!out.exists());
        fails(&retro(&["plan", game, board], ""), 2, says);
        fails(&retro(&["solve", game, board], ""), 2, says);
    }
    fails(
        &retro(
            &["solve", "twins", "--rows", "9223372036854775808"],
            "1 2 3\n",
        ),
        2,
        "--rows 9223372036854775808 is too large",
    );
    for board in ["1 65", "65 1"] {
        let zeros = vec!["0"; 2 * 65].join(" ");
        fails(
            &retro(&["solve", "young"], &format!("{board}\n{zeros}\n")),
            2,
            "is too large: at most 64 rows and 64 columns",
        );
    }
}

#[test]
fn play_bounds_its_input_lines_and_echoes_little() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = build_table(dir.path(), &shipped("young-sample.txt"), "t.retro", &[]);
    let t = table.to_str().expect("path");
    let input = format!("{}\n{}\nquit\n", "7".repeat(1 << 20), "9".repeat(1000));
    let out = retro(&["play", t], &input);
    let shown = ok(&out);
    assert!(shown.len() < 4000, "play echoed {} bytes", shown.len());
    assert!(
        shown.contains("that line is longer than 65536 bytes, not a move"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("unknown input \"{}...\"", "9".repeat(40))),
        "{shown}"
    );
    assert!(shown.contains("quit: "), "{shown}");
}

#[test]
fn twins_boards_read_back_as_gen_wrote_them() {
    fails(
        &retro(&["solve", "twins"], ""),
        2,
        "no weights: the input is empty",
    );
    fails(&retro(&["solve", "twins"], "\n \n"), 2, "no weights");
    let dir = tempfile::tempdir().expect("tempdir");
    for size in ["1x1", "1x2", "2x1", "1x3", "3x1", "2x3", "3x2"] {
        let board = ok(&retro(&["gen", "twins", size, "--seed", "5"], ""));
        assert!(!board.is_empty(), "gen twins {size} printed nothing");
        let path = dir.path().join(format!("{size}.retro"));
        let p = path.to_str().expect("path");
        ok(&retro(&["build", "twins", "-o", p, "-q"], &board));
        let info = ok(&retro(&["info", p, "--json"], ""));
        let (r, c) = size.split_once('x').expect("size");
        assert!(
            info.contains(&format!("\"board\":\"{r}x{c}\"")),
            "gen twins {size} read back as {info}"
        );
    }
    fails(
        &retro(&["solve", "twins", "--rows", "3"], "2x2\n1 2 3 4\n"),
        2,
        "the input says 2x2 but --rows is 3",
    );
}

/// Token files an MPI build's rank 0 leaves beside the partial file (`T.partial.token-` and
/// 16 hex digits, holding those 8 bytes) when it is killed before removing its own are
/// stale once a build takes the lock: a build, on one process or over ranks, removes them.
/// A file of a like name that does not hold its token, and a link, are not retro's and stay.
#[test]
fn a_build_removes_the_stale_token_files_beside_its_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let table = d.join("t.retro");
    let token = |t: u64| d.join(format!("t.retro.partial.token-{t:016x}"));
    let stale = [0x0123_4567_89ab_cdef_u64, 0xfedc_ba98_7654_3210];
    for t in stale {
        std::fs::write(token(t), t.to_le_bytes()).unwrap();
    }
    let strangers = token(0x1111_2222_3333_4444);
    std::fs::write(&strangers, "not a token\n").unwrap();
    let victim = d.join("victim");
    std::fs::write(&victim, 0x5555_u64.to_le_bytes()).unwrap();
    let link = token(0x5555);
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    // Another table's tokens are its own build's business.
    let other = d.join(format!("u.retro.partial.token-{:016x}", stale[0]));
    std::fs::write(&other, stale[0].to_le_bytes()).unwrap();
    ok(&retro(
        &["build", "mnk", "3x3k3", "-q", "-o", table.to_str().unwrap()],
        "",
    ));
    for t in stale {
        assert!(!token(t).exists(), "{} is left", token(t).display());
    }
    assert_eq!(
        std::fs::read_to_string(&strangers).unwrap(),
        "not a token\n"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(victim.exists() && other.exists());
}
