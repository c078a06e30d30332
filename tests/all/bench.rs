//! `retro bench` output as data: the board and the statistics in JSON, CSV and markdown,
//! and a `--plot` path that cannot be written refused before any run.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::retro;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A generated board in a file of `dir`.
fn board(dir: &Path, game: &str, size: &str) -> PathBuf {
    let out = retro(&["gen", game, size, "--seed", "5"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = dir.join(format!("{game}-{size}.txt"));
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// `retro bench` on `file`, quick: two thread counts, no warm-up, and `extra`.
fn bench(game: &str, file: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "bench",
        game,
        file.to_str().unwrap(),
        "--threads",
        "1,2",
        "--warmup",
        "0",
    ];
    args.extend_from_slice(extra);
    retro(&args, "")
}

fn succeeds(out: Output) -> String {
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn json_is_an_object_with_the_board_and_each_thread_counts_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let y = board(dir.path(), "young", "4x4");
    let out = succeeds(bench("young", &y, &["--repeat", "3", "--json"]));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["game"], "young", "{json}");
    assert_eq!(json["board"], "4x4", "{json}");
    // 4 x 4: C(8, 4) = 70 positions.
    assert_eq!(json["positions"], 70, "{json}");
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (row, threads) in results.iter().zip([1, 2]) {
        assert_eq!(row["threads"], threads, "{row}");
        let f = |k: &str| row[k].as_f64().unwrap_or_else(|| panic!("{k} in {row}"));
        let times: Vec<f64> = row["times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        assert_eq!(times.len(), 3, "{row}");
        let (min, max) = (f("min"), f("max"));
        assert!(
            min > 0.0 && min <= f("median") && f("median") <= max,
            "{row}"
        );
        assert!(min <= f("mean") && f("mean") <= max, "{row}");
        assert!(f("stddev") >= 0.0 && f("stddev") <= max - min, "{row}");
        assert_eq!(min, times.iter().copied().fold(f64::INFINITY, f64::min));
        assert_eq!(max, times.iter().copied().fold(0.0, f64::max));
        assert!(times.contains(&f("median")), "{row}");
        // Throughput and speedup come from the median.
        assert!((f("positions_per_second") * f("median") - 70.0).abs() < 1e-6);
        assert!((f("efficiency") - f("speedup") / threads as f64).abs() < 1e-9);
    }
    assert_eq!(results[0]["speedup"], 1.0);

    // One run: the spread collapses and there is no standard deviation to estimate.
    let out = succeeds(bench("young", &y, &["--repeat", "1", "--json"]));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    for row in json["results"].as_array().unwrap() {
        assert!(row["stddev"].is_null(), "{row}");
        assert_eq!(row["times"].as_array().unwrap().len(), 1, "{row}");
        for k in ["mean", "min", "max"] {
            assert_eq!(row[k], row["median"], "{row}");
        }
    }

    let t = board(dir.path(), "twins", "2x3");
    let out = succeeds(retro(
        &[
            "bench",
            "twins",
            t.to_str().unwrap(),
            "--rows",
            "2",
            "--cols",
            "3",
            "--threads",
            "1",
            "--repeat",
            "1",
            "--warmup",
            "0",
            "--json",
        ],
        "",
    ));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["game"], "twins", "{json}");
    assert_eq!(json["board"], "2x3", "{json}");
    assert!(json["positions"].as_u64().unwrap() > 0, "{json}");
}

#[test]
fn csv_rows_carry_the_board() {
    let dir = tempfile::tempdir().unwrap();
    let y = board(dir.path(), "young", "4x4");
    let header = "game,board,positions,threads,median,mean,stddev,min,max,\
                  positions_per_second,speedup,efficiency,entries,entries_per_second";
    for (repeat, stddev_empty) in [("2", false), ("1", true)] {
        let csv = succeeds(bench("young", &y, &["--repeat", repeat, "--csv"]));
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert_eq!(lines[0], header);
        for (line, threads) in lines[1..].iter().zip(["1", "2"]) {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells.len(), 14, "{line}");
            // Young folds nothing: its entries are its positions.
            assert_eq!(cells[12], "70", "{line}");
            assert_eq!(cells[..4], ["young", "4x4", "70", threads], "{line}");
            assert_eq!(cells[6].is_empty(), stddev_empty, "{line}");
            for (i, cell) in cells.iter().enumerate().skip(4) {
                if i != 6 || !stddev_empty {
                    cell.parse::<f64>()
                        .unwrap_or_else(|_| panic!("column {i} of {line}"));
                }
            }
        }
    }
}

#[test]
fn markdown_and_text_name_the_board_above_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let y = board(dir.path(), "young", "4x4");
    let md = succeeds(bench("young", &y, &["--repeat", "1", "--markdown"]));
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines.len(), 6, "{md}");
    assert!(
        lines[0].starts_with("young 4x4: 70 positions"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1], "");
    assert!(lines[2].starts_with("| threads | median ("), "{md}");
    assert!(lines[2].contains("mean ± σ") && lines[2].contains("min … max"));
    assert!(lines[4].starts_with("| 1 |") && lines[5].starts_with("| 2 |"));

    let table = succeeds(bench("young", &y, &["--repeat", "2"]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("young 4x4: 70 positions, 2 timed runs"));
    assert!(lines[1].trim_start().starts_with("threads"), "{table}");
    assert!(
        lines[2].contains(" ± ") && lines[2].contains(" … "),
        "{table}"
    );
}

/// A `--plot` that cannot be written fails with exit 1 and one line, before any run: the
/// warm-up asked for would take seconds, and nothing reaches stdout.
#[test]
fn a_plot_path_that_cannot_be_written_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let y = board(dir.path(), "young", "4x4");
    let missing = dir.path().join("no-such-dir").join("speedup.svg");
    for (plot, needle) in [
        (dir.path().to_path_buf(), "is a directory"),
        (missing.clone(), "No such file or directory"),
    ] {
        let out = retro(
            &[
                "bench",
                "young",
                y.to_str().unwrap(),
                "--threads",
                "1",
                "--repeat",
                "1",
                "--warmup",
                "5",
                "--plot",
                plot.to_str().unwrap(),
            ],
            "",
        );
        // Refused before any run: nothing was measured (a run prints its row on stdout).
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: --plot "), "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    }
    assert!(!missing.parent().unwrap().exists());

    // The check leaves no file behind; the plot itself is written after the runs.
    let plot = dir.path().join("speedup.svg");
    succeeds(bench(
        "young",
        &y,
        &["--repeat", "1", "--plot", plot.to_str().unwrap()],
    ));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("<svg"));
    // The text of every label: the x axis counts whole threads (no 0.5 or 1.5), and the
    // legend names both lines, each with a sample of its line beside it.
    let labels: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
        .map(|rest| rest.split("</text>").next().unwrap_or("").trim())
        .collect();
    for whole in ["0", "1", "2"] {
        assert!(labels.contains(&whole), "{labels:?}");
    }
    for legend in ["ideal", "measured"] {
        assert!(labels.contains(&legend), "{labels:?}");
    }
    let mut halves: Vec<&str> = labels
        .iter()
        .copied()
        .filter(|l| l.ends_with(".5"))
        .collect();
    // Half steps may label the speedup axis (0.5, 1.5, each once), never the threads: a
    // half step that labels both axes would be there twice. (How far the speedup axis
    // goes depends on what was measured.)
    let count = halves.len();
    halves.sort_unstable();
    halves.dedup();
    assert_eq!(halves.len(), count, "{labels:?}");
    let polylines = svg.matches("<polyline").count();
    assert!(
        polylines >= 4,
        "two lines and two legend samples: {polylines}"
    );
}

/// On a terminal (a pseudo-terminal from util-linux `script`), one progress line redrawn per
/// run and cleared at the end; none with `--quiet`. Skipped where `script` is missing.
#[test]
fn progress_line_only_on_a_terminal_and_not_with_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let y = board(dir.path(), "young", "4x4");
    let command = |quiet: &str| {
        format!(
            "'{}' bench young '{}' --threads 1,2 --repeat 2 --warmup 0 {quiet} >/dev/null",
            env!("CARGO_BIN_EXE_retro"),
            y.display()
        )
    };
    let script = |quiet: &str| {
        std::process::Command::new("script")
            .args(["-qec", &command(quiet), "/dev/null"])
            .stdin(std::process::Stdio::null())
            .output()
    };
    let Ok(out) = script("") else {
        eprintln!("no `script` here: progress line not checked");
        return;
    };
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    for step in [
        "threads 1: warm-up",
        "threads 1: run 1/2",
        "threads 1: run 2/2 (last ",
        "threads 2: warm-up",
        "threads 2: run 2/2",
    ] {
        assert!(shown.contains(&format!("\r\x1b[2K{step}")), "{shown:?}");
    }
    assert!(shown.ends_with("\r\x1b[2K"), "not cleared: {shown:?}");

    let quiet = script("--quiet").unwrap();
    assert!(quiet.status.success());
    assert!(quiet.stdout.is_empty(), "{:?}", text(&quiet.stdout));
}

/// Tic-tac-toe folds 8 symmetries: the sweep computes 850 entries, which stand for every
/// board with as many x's as o's or one more, 6,046 of them (counted here). The title says
/// both, and each rate is its own count over the median.
#[test]
fn a_folded_game_counts_positions_and_entries_apart() {
    let choose = |n: u64, k: u64| (0..k).fold(1u64, |c, i| c * (n - i) / (i + 1));
    let boards: u64 = (0..=9)
        .map(|k| choose(9, k) * choose(k, k.div_ceil(2)))
        .sum();
    assert_eq!(boards, 6046);
    let args = [
        "bench",
        "mnk",
        "3x3k3",
        "--threads",
        "1",
        "--repeat",
        "1",
        "--warmup",
        "0",
    ];
    let out = succeeds(retro(&[&args[..], &["--json"]].concat(), ""));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["positions"], boards, "{json}");
    assert_eq!(json["entries"], 850, "{json}");
    let row = &json["results"][0];
    let f = |k: &str| row[k].as_f64().unwrap_or_else(|| panic!("{k} in {row}"));
    assert!((f("positions_per_second") * f("median") - boards as f64).abs() < 1e-6);
    assert!((f("entries_per_second") * f("median") - 850.0).abs() < 1e-6);
    let out = succeeds(retro(&[&args[..], &["--quiet"]].concat(), ""));
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some(
            "mnk 3x3k3: 6046 positions (850 entries: folded by 8 symmetries), 1 timed run per thread count"
        ),
        "{out}"
    );
    let header: Vec<&str> = lines
        .next()
        .unwrap()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert!(
        header.contains(&"positions/s") && header.contains(&"entries/s"),
        "{out}"
    );
}
