//! The `retro` binary as a user runs it: exact contest output, table commands, and a
//! one-line `error: ...` with the documented exit code for every kind of bad input.

use std::path::{Path, PathBuf};

use crate::common;
use common::{fails, ok, retro, shipped, stdout};

fn build(dir: &Path, args: &[&str], name: &str) -> PathBuf {
    let path = dir.join(name);
    let mut full = vec!["build"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["-o", path.to_str().unwrap(), "--quiet"]);
    let out = retro(&full, "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

#[test]
fn solve_prints_exactly_the_contest_output() {
    assert_eq!(
        stdout(&retro(
            &["solve", "young", &shipped("young-sample.txt")],
            ""
        )),
        "2\n"
    );
    assert_eq!(
        stdout(&retro(
            &["solve", "young"],
            "2 3\n2 7 3\n9 1 2\n3 7 2\n2 3 1\n"
        )),
        "2\n"
    );
    assert_eq!(
        stdout(&retro(
            &["solve", "twins", &shipped("twins-sample1.txt")],
            ""
        )),
        "15\n80\n"
    );
    let out = retro(
        &[
            "solve",
            "twins",
            &shipped("twins-sample2.txt"),
            "--threads",
            "1",
        ],
        "",
    );
    assert_eq!(stdout(&out), "72\n107\n");
    assert!(out.stderr.is_empty());
}

#[test]
fn twins_other_board_sizes() {
    // 1 x 1: no pairs at all; 1 x 3: only horizontal pairs; 2 x 1: one vertical pair.
    assert_eq!(
        stdout(&retro(
            &["solve", "twins", "--rows", "1", "--cols", "1"],
            ""
        )),
        "0\n0\n"
    );
    assert_eq!(
        stdout(&retro(
            &["solve", "twins", "--rows", "1", "--cols", "3"],
            "5 7"
        )),
        "5\n7\n"
    );
    assert_eq!(
        stdout(&retro(
            &["solve", "twins", "--rows", "2", "--cols", "1"],
            "9"
        )),
        "0\n9\n"
    );
}

#[test]
fn build_query_info_on_the_samples() {
    let dir = tempfile::tempdir().unwrap();
    let table = build(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let t = table.to_str().unwrap();
    let out = retro(&["query", t, "0,0", "--json"], "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], 2);
    assert_eq!(v["stones"], 0);
    assert_eq!(v["to_move"], "first");
    assert_eq!(v["best"], serde_json::json!(["1,1"]));
    assert_eq!(v["moves"][0]["position"], "1,0");
    // The spec's optimal line: second answers (1,2) after (1,1).
    let v: serde_json::Value =
        serde_json::from_slice(&retro(&["query", t, "1,0", "--json"], "").stdout).unwrap();
    assert_eq!(v["to_move"], "second");
    assert_eq!(v["best"], serde_json::json!(["1,2"]));
    let text = stdout(&retro(&["query", t, "3,2"], ""));
    assert!(text.contains("value     -1 "), "{text}");
    let info = stdout(&retro(&["info", t], ""));
    assert!(
        info.contains("game         young")
            && info.contains("positions    10")
            && info.contains("ok"),
        "{info}"
    );

    let table = build(
        dir.path(),
        &["twins", &shipped("twins-sample2.txt")],
        "t.retro",
    );
    let t = table.to_str().unwrap();
    let v: serde_json::Value =
        serde_json::from_slice(&retro(&["query", t, ".../.../...", "--json"], "").stdout).unwrap();
    assert_eq!(v["value"], 72);
    assert_eq!(v["second_score"], 107);
    assert_eq!(v["moves"].as_array().unwrap().len(), 9);
    let text = stdout(&retro(&["query", t, "ox./.../..."], ""));
    assert!(text.contains("o x .") && text.contains("second"), "{text}");
}

#[test]
fn bad_boards_are_refused_with_one_line() {
    let y = |input: &str| retro(&["solve", "young"], input);
    fails(&y("2 3\n2 7 3\n9 1 2\n3 7 2\n2 3"), 2, "missing numbers");
    fails(&y("2 3\n2 7 3\n9 1 2\n3 7 2\n2 3 1 4"), 2, "extra numbers");
    fails(&y("2 3\n2 7 3\n9 1 2\n3 7 2\n2 3 x"), 2, "not an integer");
    fails(&y("2 3\n2 7 3\n9 -1 2\n3 7 2\n2 3 1"), 2, "negative");
    fails(&y("0 3"), 2, "at least 1");
    fails(&y(""), 2, "missing board size");
    fails(
        &y("1 2 9223372036854775807 9223372036854775807 0 0"),
        2,
        "overflows 64-bit",
    );
    fails(&y(&format!("40 40 {}", "1 ".repeat(3200))), 2, "too large");
    let big = format!("30 30 {}", "1 ".repeat(1800));
    fails(&y(&big), 1, "too large for memory");
    fails(
        &retro(&["solve", "young", "/nonexistent/board.txt"], ""),
        1,
        "/nonexistent/board.txt",
    );
    let t = |args: &[&str], input: &str| {
        let mut full = vec!["solve", "twins"];
        full.extend_from_slice(args);
        retro(&full, input)
    };
    fails(
        &t(&["--rows", "3", "--cols", "3"], "1 2 3 4 5 6 7 8 9 10 11"),
        2,
        "needs 12 weights",
    );
    fails(
        &t(&["--rows", "2", "--cols", "2"], "1 2 3 4 5 6"),
        2,
        "extra numbers",
    );
    fails(&t(&["--rows", "0"], ""), 2, "at least 1");
    fails(&t(&["--rows", "9", "--cols", "9"], ""), 2, "too large");
    fails(
        &retro(
            &[
                "solve",
                "young",
                "--rows",
                "3",
                &shipped("young-sample.txt"),
            ],
            "",
        ),
        2,
        "--rows/--cols are for twins",
    );
    fails(
        &retro(
            &[
                "solve",
                "young",
                "--threads",
                "0",
                &shipped("young-sample.txt"),
            ],
            "",
        ),
        2,
        "--threads",
    );
}

#[test]
fn usage_errors_are_one_line_too() {
    fails(
        &retro(&["solve", "young", "--threads", "abc"], ""),
        2,
        "invalid value 'abc'",
    );
    fails(&retro(&["frob"], ""), 2, "unrecognized subcommand");
    fails(&retro(&["query"], ""), 2, "<TABLE> <POSITION>");
    fails(&retro(&["gen", "young", "4by4"], ""), 2, "ROWSxCOLS");
    let out = retro(&["--help"], "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bad_positions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let y = build(
        dir.path(),
        &["young", &shipped("young-sample.txt")],
        "y.retro",
    );
    let tw = build(
        dir.path(),
        &["twins", &shipped("twins-sample1.txt")],
        "t.retro",
    );
    let q = |table: &Path, pos: &str| retro(&["query", table.to_str().unwrap(), pos], "");
    fails(&q(&y, "1,2"), 2, "longer than the row above");
    fails(&q(&y, "1,0,0"), 2, "at most 2 comma-separated");
    fails(&q(&y, "4,0"), 2, "above the width");
    fails(&q(&y, "a,0"), 2, "not a row length");
    fails(&q(&tw, "oo./.../..."), 2, "o must equal x");
    fails(&q(&tw, "xx./o../..."), 2, "o must equal x");
    fails(&q(&tw, "o?./.../..."), 2, "cells are");
    fails(&q(&tw, "o../..."), 2, "expected 3 rows");
    fails(&q(&tw, "o.../.../..."), 2, "expected 3");
}

#[test]
fn damaged_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = build(
        dir.path(),
        &["twins", &shipped("twins-sample1.txt")],
        "t.retro",
    );
    let bytes = std::fs::read(&good).unwrap();
    let variant = |name: &str, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        f(&mut b);
        let p = dir.path().join(name);
        std::fs::write(&p, b).unwrap();
        p
    };
    let info = |p: &Path| retro(&["info", p.to_str().unwrap()], "");
    let query = |p: &Path| retro(&["query", p.to_str().unwrap(), ".../.../..."], "");
    fails(&info(&dir.path().join("missing.retro")), 1, "No such file");
    fails(&info(dir.path()), 1, "directory");
    fails(
        &info(&variant("empty", &|b| b.clear())),
        1,
        "not a retro table",
    );
    fails(
        &query(&variant("foreign", &|b| b[0] = b'X')),
        1,
        "wrong magic",
    );
    fails(&query(&variant("version", &|b| b[8] = 9)), 1, "version 9");
    fails(
        &query(&variant("truncated", &|b| b.truncate(b.len() - 1))),
        1,
        "truncated",
    );
    fails(
        &query(&variant("longer", &|b| b.push(0))),
        1,
        "trailing bytes",
    );
    fails(
        &query(&variant("header", &|b| b[40] ^= 1)),
        1,
        "header checksum",
    );
    fails(
        &query(&variant("hdrlen", &|b| b[13] = 0xff)),
        1,
        "header length",
    );
    let last = bytes.len() - 1;
    fails(
        &info(&variant("values", &|b| b[last] ^= 0x10)),
        1,
        "checksum mismatch in layer 0",
    );
}

#[test]
fn bench_reports_rows_as_data_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("y.txt");
    let generated = retro(&["gen", "young", "6x6", "--seed", "3"], "");
    std::fs::write(&input, &generated.stdout).unwrap();
    let y = input.to_str().unwrap();
    let base = [
        "bench",
        "young",
        y,
        "--threads",
        "1,2",
        "--repeat",
        "1",
        "--warmup",
        "0",
    ];

    let out = retro(&[&base[..], &["--json"]].concat(), "");
    assert!(out.status.success());
    // stderr is not a terminal here: no per-run times, no bar; only, on a busy machine,
    // the load warning.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines().all(|l| l.starts_with("warning: load average ")),
        "{err}"
    );
    let bench: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = bench["results"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, threads) in rows.iter().zip([1.0, 2.0]) {
        assert_eq!(row["threads"].as_f64(), Some(threads));
        let f = |k: &str| row[k].as_f64().unwrap_or_else(|| panic!("{k} in {row}"));
        assert!(f("median") > 0.0);
        // 6 x 6: C(12, 6) = 924 positions.
        assert!((f("positions_per_second") * f("median") - 924.0).abs() < 1.0);
        assert!((f("efficiency") - f("speedup") / threads).abs() < 1e-9);
    }
    assert_eq!(rows[0]["speedup"].as_f64(), Some(1.0));

    let csv = retro(&[&base[..], &["--csv"]].concat(), "");
    let csv = String::from_utf8_lossy(&csv.stdout).into_owned();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(
        csv.starts_with("game,board,positions,threads,median,"),
        "{csv}"
    );

    let plot = dir.path().join("speedup.svg");
    let md = retro(
        &[&base[..], &["--markdown", "--plot", plot.to_str().unwrap()]].concat(),
        "",
    );
    let md = String::from_utf8_lossy(&md.stdout).into_owned();
    assert!(
        md.contains("\n\n| threads |") && md.lines().count() == 6,
        "{md}"
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("<svg") && svg.contains("ideal"), "{svg}");

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let many = (cores + 1).to_string();
    let mut too_many = base;
    too_many[4] = &many;
    let out = retro(&too_many, "");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than this machine's"));

    fails(
        &retro(&["bench", "young", y, "--repeat", "0"], ""),
        2,
        "--repeat",
    );
    for bad in ["4000", "nan", "soon"] {
        fails(
            &retro(&["bench", "young", y, "--warmup", bad], ""),
            2,
            "--warmup",
        );
    }
}

#[test]
fn help_topics_completions_and_manual() {
    let games = retro(&["help", "games"], "");
    assert_eq!(games.status.code(), Some(0));
    let text = stdout(&games);
    let doc = std::fs::read_to_string(format!("{}/docs/games.md", env!("CARGO_MANIFEST_DIR")))
        .expect("docs/games.md");
    // The page as terminal text: each heading's title underlined, no Markdown marks
    // (heading hashes, link targets, table rules, strong stars), every paragraph's words.
    for line in doc.lines().filter(|l| l.starts_with("## ")) {
        let title = &line[3..];
        let underlined = format!("\n{title}\n{}\n", "-".repeat(title.chars().count()));
        assert!(
            text.contains(&underlined),
            "{title:?} is not a heading of {text}"
        );
    }
    for line in text.lines() {
        assert!(!line.starts_with('#'), "{line}");
        assert!(!line.starts_with("|"), "{line}");
        assert!(!line.contains("](") && !line.contains("**"), "{line}");
    }
    assert!(
        text.contains("The contest sample boards are in the repository's `tables/` directory"),
        "{text}"
    );
    for shell in ["bash", "zsh", "fish"] {
        let out = retro(&["completions", shell], "");
        assert_eq!(out.status.code(), Some(0));
        let script = stdout(&out);
        assert!(
            script.contains("retro") && script.contains("export"),
            "{shell}"
        );
        // Completions offer what --help shows, not the hidden test hooks.
        for hidden in [
            "stop-after-layer",
            "assume-free-bytes",
            "row-group",
            "crash-before",
        ] {
            assert!(!script.contains(hidden), "{shell} completes --{hidden}");
        }
    }
    let man = stdout(&retro(&["man"], ""));
    assert!(man.starts_with(".ie") || man.contains(".TH retro"), "{man}");
    // Every subcommand the top page names has a page of its own, with its options, its
    // examples and the exit codes; `--dir` writes them all.
    let build = stdout(&retro(&["man", "build"], ""));
    for needle in [
        ".TH retro-build 1",
        "\\fBretro build\\fR",
        "\\-\\-threads",
        ".SH EXAMPLES\n.nf\n  retro build young",
        ".SH \"EXIT STATUS\"",
    ] {
        assert!(build.contains(needle), "{needle:?} missing: {build}");
    }
    assert!(!build.contains("stop\\-after"), "{build}");
    let dir = tempfile::tempdir().unwrap();
    let said = stdout(&retro(&["man", "--dir", dir.path().to_str().unwrap()], ""));
    assert!(
        said.ends_with("17 pages (retro.1, retro-build.1, ...)\n"),
        "{said}"
    );
    for named in man.split("retro\\-").skip(1) {
        let sub = named.split('(').next().unwrap();
        assert!(
            dir.path().join(format!("retro-{sub}.1")).exists(),
            "retro-{sub}.1"
        );
    }
    fails(&retro(&["man", "nope"], ""), 2, "no subcommand \"nope\"");
    for sub in [
        "solve", "build", "query", "info", "play", "verify", "bench", "gen", "export", "serve",
        "plan",
    ] {
        let help = stdout(&retro(&[sub, "--help"], ""));
        assert!(
            help.contains("Examples:\n  retro "),
            "{sub} --help lacks examples"
        );
        let threads = help.contains("--threads");
        let runs_on_threads = matches!(
            sub,
            "solve" | "build" | "verify" | "bench" | "export" | "serve" | "plan"
        );
        assert_eq!(threads, runs_on_threads, "{sub} --help and --threads");
    }
}

#[test]
fn usage_errors_keep_the_tip_and_name_the_subcommand_help() {
    fails(
        &retro(&["qurey"], ""),
        2,
        "unrecognized subcommand 'qurey'; tip: a similar subcommand exists: 'query' (see retro --help)",
    );
    fails(
        &retro(&["build", "young", "--thread", "2"], ""),
        2,
        "tip: a similar argument exists: '--threads' (see retro build --help)",
    );
    fails(
        &retro(&["query", "t.retro", "0,0", "--threads", "2"], ""),
        2,
        "(see retro query --help)",
    );
}

/// `man --dir` writes each page through a partial file renamed over its name: a link
/// planted at a page's name is replaced, its target untouched; a FIFO there is refused at
/// once (writing to it would wait for a reader for ever), before any page is written.
#[test]
fn man_dir_replaces_links_and_refuses_fifos() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    std::fs::create_dir(&pages).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "not a manual page\n").unwrap();
    std::os::unix::fs::symlink(&victim, pages.join("retro.1")).unwrap();
    let pages_arg = pages.to_str().unwrap();
    ok(&retro_within(&["man", "--dir", pages_arg]));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "not a manual page\n"
    );
    let meta = std::fs::symlink_metadata(pages.join("retro.1")).unwrap();
    assert!(meta.is_file(), "retro.1 is still a link");
    assert_eq!(
        std::fs::read_to_string(pages.join("retro.1")).unwrap(),
        stdout(&retro(&["man"], ""))
    );
    assert_no_partial_files(&pages);

    // A FIFO at a page's name: refused, and no page replaced, not even the ones before.
    let fifos = dir.path().join("fifos");
    std::fs::create_dir(&fifos).unwrap();
    let fifo = fifos.join("retro-query.1");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out = retro_within(&["man", "--dir", fifos.to_str().unwrap()]);
    fails(&out, 2, "retro-query.1: is a FIFO, not a manual page");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let left: Vec<_> = std::fs::read_dir(&fifos).unwrap().collect();
    assert_eq!(left.len(), 1, "{left:?}");

    // A link planted at the partial file's name is refused, its target untouched.
    let partial_link = dir.path().join("partial-link");
    std::fs::create_dir(&partial_link).unwrap();
    std::os::unix::fs::symlink(&victim, partial_link.join("retro.1.partial")).unwrap();
    let out = retro_within(&["man", "--dir", partial_link.to_str().unwrap()]);
    fails(&out, 2, "retro.1.partial: is a symbolic link");
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "not a manual page\n"
    );
    assert!(!partial_link.join("retro.1").exists());
}

/// A disk that takes no more bytes (here a file-size limit of 0, which fails every write
/// as a full disk does) leaves no page at all, not an empty one under its final name.
#[test]
fn man_dir_on_a_full_disk_leaves_no_empty_page() {
    let dir = tempfile::tempdir().unwrap();
    // SIGXFSZ ignored, so the write fails with EFBIG instead of killing the process.
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 0; exec \"$0\" man --dir \"$1\"",
        ])
        .arg(env!("CARGO_BIN_EXE_retro"))
        .arg(dir.path())
        .output()
        .unwrap();
    fails(&out, 1, "retro.1.partial: File too large");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `retro ARGS`, killed (and failed) if it has not ended after 30 s.
fn retro_within(args: &[&str]) -> std::process::Output {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("retro {args:?} still running after 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn assert_no_partial_files(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name();
        assert!(
            !name.to_string_lossy().ends_with(".partial"),
            "{name:?} left"
        );
    }
}

/// The SIGBUS guard of mapped tables holds when the program installs a SIGBUS handler of
/// its own after opening a table (Python's `faulthandler.enable()` does). Each case runs
/// `sigbus_child` in a process of its own, on its own copy of a table.
#[test]
fn the_sigbus_guard_outlives_a_handler_installed_after_it() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let table = build(
        dir.path(),
        &["young", &shipped("young-10x10.txt")],
        "t.retro",
    );
    let run = |case: &str| {
        let copy = dir.path().join(format!("{case}.retro"));
        std::fs::copy(&table, &copy).unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["cli::sigbus_child", "--exact", "--ignored", "--nocapture"])
            .env("RETRO_SIGBUS_CASE", case)
            .env("RETRO_SIGBUS_TABLE", &copy)
            .env(
                "RETRO_SIGBUS_OTHER",
                dir.path().join(format!("{case}.other")),
            )
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        (
            out.status,
            stdout,
            stderr.matches("foreign handler").count(),
        )
    };
    // A handler that passes the signal on as faulthandler does (puts the previous one
    // back, raises again), installed just before the file is cut short: it sees the fault
    // first, and the read still ends as an error.
    let (status, stdout, foreign) = run("passes-on");
    assert!(status.success(), "{status:?} {stdout}");
    assert!(stdout.contains("changed on disk"), "{stdout}");
    assert_eq!(foreign, 1);
    // A handler that ends the process, installed before an answer: the answer puts the
    // guard back, so the next fault never reaches it.
    let (status, stdout, foreign) = run("ends");
    assert!(status.success(), "{status:?} {stdout}");
    assert!(stdout.contains("changed on disk"), "{stdout}");
    assert_eq!(foreign, 0);
    // A fault outside the tables still reaches that handler (exit 3) ...
    let (status, _, foreign) = run("ends-outside");
    assert_eq!(status.code(), Some(3), "{status:?}");
    assert_eq!(foreign, 1);
    // ... and one that passes it on sees it once, then the process ends with SIGBUS, as
    // without a guard (not passed round between the two handlers for ever).
    let (status, _, foreign) = run("passes-on-outside");
    assert_eq!(status.signal(), Some(libc::SIGBUS), "{status:?}");
    assert_eq!(foreign, 1);
}

/// The SIGBUS action before `install_foreign` replaced it.
static FOREIGN_PREVIOUS: std::sync::OnceLock<libc::sigaction> = std::sync::OnceLock::new();

fn say_foreign() {
    let line = b"foreign handler\n";
    // SAFETY: write(2) of a static buffer is async-signal-safe.
    unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
}

/// As Python's faulthandler: say so, put the previous handler back, raise the signal.
extern "C" fn passes_on(signal: libc::c_int) {
    say_foreign();
    if let Some(previous) = FOREIGN_PREVIOUS.get() {
        // SAFETY: restoring an action saved by sigaction, then raising, as faulthandler.
        unsafe {
            libc::sigaction(signal, previous, std::ptr::null_mut());
            libc::raise(signal);
        }
    }
}

/// A crash reporter that ends the process at once.
extern "C" fn ends(_signal: libc::c_int) {
    say_foreign();
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(3) };
}

fn install_foreign(handler: extern "C" fn(libc::c_int)) {
    // SAFETY: plain C structs; the handler is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as *const () as usize;
        action.sa_flags = libc::SA_NODEFER;
        libc::sigemptyset(&mut action.sa_mask);
        let mut previous: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(libc::SIGBUS, &action, &mut previous), 0);
        FOREIGN_PREVIOUS.set(previous).unwrap();
    }
}

/// Every value of every layer, then whether the table changed: "unchanged", or the error.
fn read_everything(table: &retro::Table) -> String {
    for (k, layer) in table.header.layers.iter().enumerate() {
        let _ = table.read_range(k, 0, layer.positions as usize);
    }
    match table.check_unchanged() {
        Ok(()) => "unchanged".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
#[ignore = "run by the_sigbus_guard_outlives_a_handler_installed_after_it, in a process of its own"]
fn sigbus_child() {
    let (Ok(case), Some(path), Some(other)) = (
        std::env::var("RETRO_SIGBUS_CASE"),
        std::env::var_os("RETRO_SIGBUS_TABLE"),
        std::env::var_os("RETRO_SIGBUS_OTHER"),
    ) else {
        return;
    };
    let table = retro::Table::open(Path::new(&path))
        .unwrap()
        .with_mmap()
        .unwrap();
    let cut_short = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap()
    };
    match case.as_str() {
        "passes-on" => {
            install_foreign(passes_on);
            cut_short();
            println!("{}", read_everything(&table));
        }
        "ends" => {
            install_foreign(ends);
            assert_eq!(read_everything(&table), "unchanged");
            cut_short();
            println!("{}", read_everything(&table));
        }
        "ends-outside" | "passes-on-outside" => {
            install_foreign(if case == "ends-outside" {
                ends
            } else {
                passes_on
            });
            assert_eq!(read_everything(&table), "unchanged");
            // A map that is not a table's, cut short under a read.
            std::fs::write(&other, vec![1u8; 1 << 16]).unwrap();
            let file = std::fs::File::open(&other).unwrap();
            // SAFETY: a read-only map of a file only this process uses; the read past its
            // new end is the fault under test.
            let byte = unsafe {
                let map = libc::mmap(
                    std::ptr::null_mut(),
                    1 << 16,
                    libc::PROT_READ,
                    libc::MAP_SHARED,
                    std::os::fd::AsRawFd::as_raw_fd(&file),
                    0,
                );
                assert_ne!(map, libc::MAP_FAILED);
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&other)
                    .unwrap()
                    .set_len(0)
                    .unwrap();
                std::ptr::read_volatile(map.cast::<u8>().add(1 << 15))
            };
            println!("read {byte} past the end of a file cut short");
        }
        _ => panic!("no case {case}"),
    }
}

/// Every game of the registry, with what it is and how its boards, positions and moves
/// are written, in the help of every command that takes one and in the manual: the lists
/// are made from the registry, so a new game is in them without a word of help changed.
#[test]
fn help_and_manual_name_every_game_and_its_notation() {
    use retro::Registry;
    let help = |args: &[&str]| ok(&retro(args, ""));
    let top = help(&["--help"]);
    let build = help(&["build", "--help"]);
    let solve = help(&["solve", "--help"]);
    let query = help(&["query", "--help"]);
    let play = help(&["play", "--help"]);
    let man = help(&["man"]);
    // The manual's GAMES section, where the games are listed one a line.
    let games_section = |page: &str| -> String {
        let Some(at) = page.find(".SH GAMES\n") else {
            return String::new();
        };
        let rest = &page[at + 1..];
        rest[..rest.find("\n.SH ").unwrap_or(rest.len())].to_string()
    };
    let man_games = games_section(&man);
    let man_pages: Vec<(&str, String)> = ["build", "query", "play"]
        .into_iter()
        .map(|sub| (sub, games_section(&help(&["man", sub]))))
        .collect();
    let games = retro::Builtin::notations();
    assert_eq!(games.len(), retro::Builtin::names().len());
    for (name, n) in &games {
        for field in [n.summary, n.board, n.position, n.moves] {
            assert!(!field.is_empty(), "{name} leaves a notation field empty");
        }
        let listed = |text: &str| text.contains(&format!("\n  {name} "));
        assert!(listed(&top) && top.contains(n.summary), "--help: {name}");
        assert!(listed(&build) && build.contains(n.board), "build: {name}");
        assert!(listed(&solve) && solve.contains(n.board), "solve: {name}");
        assert!(
            listed(&query) && query.contains(n.position) && query.contains(n.moves),
            "query: {name}"
        );
        assert!(listed(&play) && play.contains(n.moves), "play: {name}");
        assert!(listed(&man_games), "man: {name}");
        for (sub, section) in &man_pages {
            assert!(listed(section), "man {sub}: {name}");
        }
    }
    assert!(
        top.contains("two-player games: placement games and games whose stones move"),
        "{top}"
    );
    // Moves are printed `1,2`, `2,5-1,4` or `column 3`: no help says otherwise.
    let mut texts = vec![top, man];
    for sub in [
        "solve",
        "build",
        "query",
        "info",
        "play",
        "verify",
        "export",
        "serve",
        "bench",
        "gen",
        "plan",
        "completions",
        "man",
    ] {
        texts.push(help(&[sub, "--help"]));
        texts.push(help(&["man", sub]));
    }
    for text in &texts {
        assert!(!text.contains("(row,col)"), "{text}");
    }
}

/// A board of several words needs no quotes: `retro build teeko 4x4 advanced` is the board
/// `4x4 advanced`, for every command that takes a board on the command line.
#[test]
fn a_board_of_several_words_needs_no_quotes() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    let t = table.to_str().unwrap();
    ok(&retro(
        &["build", "teeko", "4x4", "advanced", "-o", t, "-q"],
        "",
    ));
    let info: serde_json::Value =
        serde_json::from_str(&ok(&retro(&["info", t, "--json"], ""))).expect("info --json");
    assert_eq!(info["board"], "4x4-advanced", "{info}");

    let words = ok(&retro(&["solve", "teeko", "3x3", "no-centre-first"], ""));
    let quoted = ok(&retro(&["solve", "teeko", "3x3 no-centre-first"], ""));
    assert_eq!(words, quoted);
    assert_eq!(
        ok(&retro(&["gen", "teeko", "4x4", "advanced"], "")),
        "4x4 advanced\n"
    );
    ok(&retro(&["plan", "teeko", "4x4", "advanced", "--total"], ""));
    ok(&retro(&["solve", "mnk", "3", "3", "3"], ""));
    // Words that are no board say so; a file followed by more words is a name to quote.
    fails(
        &retro(&["solve", "teeko", "3x3", "advancd"], ""),
        2,
        "unknown word \"advancd\"",
    );
    fails(
        &retro(
            &["solve", "young", &shipped("young-sample.txt"), "extra"],
            "",
        ),
        2,
        "a board file comes alone, and \"extra\" after it is not part of a young board; quote a file's name",
    );
}

/// The manual's EXIT STATUS, as (code, what it says) per entry.
fn exit_status() -> Vec<(i32, String)> {
    let man = stdout(&retro(&["man"], ""));
    let at = man
        .find(".SH \"EXIT STATUS\"\n")
        .expect("an EXIT STATUS section");
    man[at..]
        .split(".TP\n")
        .skip(1)
        .map(|entry| {
            let (code, text) = entry.split_once('\n').expect("a code and its text");
            let code = code
                .trim_start_matches("\\fB")
                .trim_end_matches("\\fR")
                .parse()
                .unwrap_or_else(|_| panic!("exit code {code:?}"));
            (code, text.replace("\\-", "-"))
        })
        .collect()
}

/// Each way a run ends exits with the code the manual gives it.
#[test]
fn exit_codes_are_the_manuals() {
    let codes = exit_status();
    // The code of the one entry that says `words`; None if not exactly one does.
    let said = |words: &str| -> Option<i32> {
        let listed: Vec<i32> = codes
            .iter()
            .filter(|(_, text)| text.contains(words))
            .map(|&(code, _)| code)
            .collect();
        match listed[..] {
            [code] => Some(code),
            _ => None,
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let table = build(
        dir.path(),
        &["twins", &shipped("twins-sample1.txt")],
        "t.retro",
    );
    let t = table.to_str().unwrap();
    let foreign = dir.path().join("foreign.retro");
    std::fs::write(&foreign, b"not a table at all, just text\n").unwrap();
    let damaged = dir.path().join("damaged.retro");
    let mut bytes = std::fs::read(&table).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&damaged, bytes).unwrap();
    let missing = dir.path().join("missing.retro");
    let large = format!("30 30 {}", "1 ".repeat(1800));
    let cases: Vec<(&str, Option<i32>)> = vec![
        (
            "not a retro table",
            retro(&["info", foreign.to_str().unwrap()], ""),
        ),
        ("damaged", retro(&["info", damaged.to_str().unwrap()], "")),
        ("memory", retro(&["solve", "young"], &large)),
        (
            "read or written",
            retro(&["info", missing.to_str().unwrap()], ""),
        ),
        ("Bad input", retro(&["solve", "young"], "2 3\n1 2")),
        ("Bad input", retro(&["query", t, "oo./.../..."], "")),
        (
            "a batch with a bad line",
            retro(&["query", t, "--batch"], "bad\n"),
        ),
        ("Success", retro(&["info", t], "")),
    ]
    .into_iter()
    .map(|(words, out)| (words, out.status.code()))
    .chain([
        (
            "interrupted by Ctrl-C",
            interrupted_build(dir.path(), libc::SIGINT),
        ),
        // A job scheduler's stop, as Ctrl-C.
        ("SIGTERM", interrupted_build(dir.path(), libc::SIGTERM)),
    ])
    .collect();
    let wrong: Vec<String> = cases
        .iter()
        .filter(|&&(words, code)| code.is_none() || said(words) != code)
        .map(|(words, code)| format!("{words}: exit {code:?}, the manual {:?}", said(words)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?} in {codes:#?}");
    // Every code the manual lists is one a case above ends with.
    for (code, text) in &codes {
        assert!(
            cases.iter().any(|&(_, c)| c == Some(*code)),
            "{code} ({text}) untested"
        );
    }
}

/// The exit code of a build stopped by `signal` (SIGINT, SIGTERM) once it has started
/// writing its table (None if the signal ended it), having said how to resume: a teeko
/// 4 x 5 build takes seconds, and the signal goes as soon as the partial file is there.
fn interrupted_build(dir: &Path, signal: libc::c_int) -> Option<i32> {
    use std::process::{Command, Stdio};
    let table = dir.join("interrupted.retro");
    let partial = dir.join("interrupted.retro.partial");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["build", "teeko", "4x5", "--threads", "1", "-q", "-o"])
        .arg(&table)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while !partial.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the build ended first");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // SAFETY: kill(2) on our own child's pid, which it still holds (not yet waited for).
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0);
    let out = child.wait_with_output().unwrap();
    assert!(partial.exists() && !table.exists());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines()
            .any(|l| l.starts_with("interrupted") && l.contains("run the same command again")),
        "signal {signal}: {err}"
    );
    // The next case starts over.
    std::fs::remove_file(&partial).unwrap();
    out.status.code()
}

/// Where a mistake has an obvious fix, the one-line error says what to type.
#[test]
fn errors_say_what_to_type() {
    let dir = tempfile::tempdir().unwrap();

    // A game by another name: the board of the game retro has.
    let err = fails(
        &retro(&["build", "tictactoe", "3x3"], ""),
        2,
        "retro build mnk 3x3k3",
    );
    assert!(err.contains("invalid value 'tictactoe'"), "{err}");
    fails(
        &retro(&["solve", "Connect-Four"], ""),
        2,
        "retro solve connect 7x6",
    );

    // A size where a board of weights belongs: how to make one, and the command works.
    fails(
        &retro(&["build", "young", "3x3"], ""),
        2,
        "retro gen young 3x3 | retro build young -`",
    );
    fails(
        &retro(&["solve", "twins", "2x3"], ""),
        2,
        "retro gen twins 2x3 | retro solve twins -`",
    );
    let board = ok(&retro(&["gen", "young", "3x3"], ""));
    let table = dir.path().join("y.retro");
    let table = table.to_str().unwrap();
    ok(&retro(&["build", "young", "-", "-o", table, "-q"], &board));
    assert_eq!(
        ok(&retro(&["solve", "young", "-"], &board)),
        ok(&retro(&["solve", "young"], &board))
    );

    // A move where a position belongs: said, with what a position is and where moves go.
    let six = build(dir.path(), &["morris", "six"], "six.retro");
    let six = six.to_str().unwrap();
    for mv in ["d2", "D2", "e3-e5", "e3-e5xd2"] {
        let err = fails(&retro(&["query", six, mv], ""), 2, "looks like a move");
        for says in [
            "retro query ",
            " empty` lists the moves",
            "retro play ",
            "a morris position is the points",
        ] {
            assert!(err.contains(says), "{mv}: {err}");
        }
    }
    let quixo = build(dir.path(), &["quixo", "3x3"], "q.retro");
    let quixo = quixo.to_str().unwrap();
    for mv in ["1,1-1,3", "2,1"] {
        fails(&retro(&["query", quixo, mv], ""), 2, "looks like a move");
    }
    // A position that is merely wrong is not called a move, and no message says
    // "expected" twice.
    for (table, bad) in [
        (six, "x.. 0 0 x"),
        (six, "xx"),
        (quixo, "xo./...:x"),
        (quixo, "xo./.../...:q"),
    ] {
        let err = fails(&retro(&["query", table, bad], ""), 2, "position");
        assert!(!err.contains("looks like a move"), "{bad}: {err}");
        assert!(err.matches("expected").count() <= 1, "{bad}: {err}");
    }

    // `plan` takes the board `build` takes without a size; a game without one says so.
    assert_eq!(
        ok(&retro(&["plan", "teeko", "--total"], "")),
        ok(&retro(&["plan", "teeko", "5x5s4", "--total"], ""))
    );
    assert_eq!(
        ok(&retro(&["plan", "quixo", "--total"], "")),
        ok(&retro(&["plan", "quixo", "5x5", "--total"], ""))
    );
    fails(&retro(&["plan", "young"], ""), 2, "give a size");

    // Whole 5 x 5 Quixo, too large for memory: a part of it, and a plan for the whole.
    use retro::game::{Board, Gameplay, Quixo, QuixoBoard, Registered};
    let hint = |words: &str| {
        <Quixo as Registered>::new(QuixoBoard::parse(words).unwrap())
            .unwrap()
            .when_too_large()
    };
    let whole = hint("5x5").expect("whole 5 x 5 has a hint");
    assert!(
        whole.contains("retro build quixo \"5x5 min=22\""),
        "{whole}"
    );
    assert!(whole.contains("retro plan quixo 5x5 --ranks P"), "{whole}");
    assert!(hint("5x5 min=21").is_some_and(|h| h.contains("plan quixo \"5x5 min=21\"")));
    assert_eq!(hint("5x5 min=22"), None);
    assert_eq!(hint("4x4"), None);
    // The refusal itself, where this machine is one it refuses (whole 5 x 5 needs about
    // 35 GiB).
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kib| kib << 10);
    if available.is_some_and(|bytes| bytes < 30 << 30) {
        let table = dir.path().join("q5.retro");
        let out = retro(
            &["build", "quixo", "5x5", "-o", table.to_str().unwrap()],
            "",
        );
        let err = common::text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("error: board too large for memory"),
            "{err}"
        );
        assert!(last.contains("retro build quixo \"5x5 min=22\""), "{err}");
        assert!(last.contains("retro plan quixo 5x5 --ranks P"), "{err}");
        let err = fails(&retro(&["solve", "quixo", "5x5"], ""), 1, "too large");
        assert!(err.contains("\"5x5 min=22\""), "{err}");
    }
}
