//! Compact tables, interrupted and resumed builds, and the disk check.

use std::path::Path;
use std::process::{Command, Output};

use retro::table::Table;

use crate::common;
use common::ok;

fn retro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .output()
        .unwrap()
}

fn board(dir: &Path, game: &str, size: &str, seed: &str) -> String {
    let max = if game == "young" { "100000" } else { "100" };
    let out = retro(&["gen", game, size, "--seed", seed, "--max", max]);
    let path = dir.join(format!("{game}-{size}-{seed}.txt"));
    std::fs::write(&path, &out.stdout).unwrap();
    path.to_str().unwrap().to_owned()
}

fn build(args: &[&str]) -> Output {
    let mut full = vec!["build", "--quiet"];
    full.extend_from_slice(args);
    retro(&full)
}

#[test]
fn compact_tables_hold_the_same_values_in_fewer_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (game, size, extra) in [
        ("young", "6x7", vec![]),
        ("twins", "3x4", vec!["--rows", "3", "--cols", "4"]),
    ] {
        let input = board(dir.path(), game, size, "4");
        let plain = dir.path().join(format!("{game}.plain"));
        let compact = dir.path().join(format!("{game}.compact"));
        let mut args = vec![game, input.as_str()];
        args.extend_from_slice(&extra);
        let p = plain.to_str().unwrap();
        let c = compact.to_str().unwrap();
        ok(&build(&[&args[..], &["-o", p]].concat()));
        ok(&build(&[&args[..], &["-o", c, "--compact"]].concat()));
        let (tp, tc) = (Table::open(&plain).unwrap(), Table::open(&compact).unwrap());
        tc.verify_checksum().unwrap();
        assert!(tc.header.value_bytes() < tp.header.value_bytes());
        for (k, layer) in tp.header.layers.iter().enumerate() {
            let all = tp.read_range(k, 0, layer.positions as usize).unwrap();
            assert_eq!(tc.read_range(k, 0, layer.positions as usize).unwrap(), all);
            for (i, &v) in all.iter().enumerate() {
                assert_eq!(tc.value(k, i as u64).unwrap(), v, "layer {k} entry {i}");
            }
        }
        // The estimate is exact for plain tables and an upper bound for compact ones.
        let spec = tp.header.game.clone();
        let estimate = |compact: bool, path: &Path| {
            let options = retro::build::BuildOptions {
                compact,
                ..Default::default()
            };
            common::estimate(&spec, path, &options).table_bytes
        };
        assert_eq!(estimate(false, &plain), tp.file_len);
        assert!(estimate(true, &compact) >= tc.file_len);
        let info = ok(&retro(&["info", c]));
        assert!(
            info.contains("compact") && info.contains("bytes per position"),
            "{info}"
        );
        ok(&retro(&["verify", c]));
    }
}

#[test]
fn an_interrupted_build_resumes_to_an_identical_table() {
    let dir = tempfile::tempdir().unwrap();
    let input = board(dir.path(), "young", "5x6", "11");
    for compact in [false, true] {
        let flag = if compact { "--compact" } else { "--fresh" };
        let whole = dir.path().join("whole.retro");
        ok(&build(&[
            "young",
            &input,
            "-o",
            whole.to_str().unwrap(),
            flag,
        ]));
        for stop in [30, 17, 0] {
            let resumed = dir.path().join(format!("resumed-{stop}-{compact}.retro"));
            let r = resumed.to_str().unwrap();
            let partial = dir
                .path()
                .join(format!("resumed-{stop}-{compact}.retro.partial"));
            let out = build(&[
                "young",
                &input,
                "-o",
                r,
                flag,
                "--stop-after-layer",
                &stop.to_string(),
            ]);
            assert_eq!(out.status.code(), Some(1));
            assert!(
                String::from_utf8_lossy(&out.stderr)
                    .contains(&format!("stopped after layer {stop}"))
            );
            assert!(partial.exists() && !resumed.exists());
            // The rest of the build may run with another thread count.
            let mut again = vec!["young", input.as_str(), "-o", r, "--threads", "1"];
            if compact {
                again.push("--compact");
            }
            let summary = ok(&build(&again));
            if stop > 0 {
                assert!(
                    summary.contains(&format!("resumed below layer {stop}")),
                    "{summary}"
                );
            }
            assert!(!partial.exists());
            assert_eq!(
                std::fs::read(&resumed).unwrap(),
                std::fs::read(&whole).unwrap(),
                "stop {stop} compact {compact}"
            );
        }
    }
}

#[test]
fn a_partial_file_of_another_board_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = board(dir.path(), "young", "4x5", "1");
    let b = board(dir.path(), "young", "4x5", "2");
    let out_path = dir.path().join("t.retro");
    let t = out_path.to_str().unwrap();
    assert_eq!(
        build(&["young", &a, "-o", t, "--stop-after-layer", "10"])
            .status
            .code(),
        Some(1)
    );
    let out = build(&["young", &b, "-o", t]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.starts_with("error: ") && err.contains("another board") && err.contains("--fresh"),
        "{err}"
    );
    ok(&build(&["young", &b, "-o", t, "--fresh"]));
    assert!(!dir.path().join("t.retro.partial").exists());
}

/// A partial file of another game names both boards, not the registry of games.
#[test]
fn a_partial_file_of_another_game_names_both_boards() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("x.retro");
    let t = t.to_str().unwrap();
    let stopped = build(&["quixo", "3x3", "-o", t, "--stop-after-layer", "3"]);
    assert_eq!(stopped.status.code(), Some(1));
    let err = common::fails(
        &build(&["teeko", "4x4s3", "-o", t]),
        1,
        "this interrupted build is of quixo 3x3, not teeko 4x4s3",
    );
    assert!(!err.contains("does not have"), "{err}");
    // Another board of the same game is named too.
    let err = common::fails(&build(&["quixo", "2x2", "-o", t]), 1, "");
    assert!(err.contains("is of quixo 3x3, not quixo 2x2"), "{err}");
}

/// Every command that reads a table, given an unfinished build's partial file, says what it
/// is and how to finish it, rather than that it is damaged.
#[test]
fn a_partial_file_is_named_an_unfinished_build() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.retro");
    let t = out.to_str().unwrap();
    let partial = format!("{t}.partial");
    let stopped = build(&["quixo", "3x3", "-o", t, "--stop-after-layer", "3"]);
    assert_eq!(stopped.status.code(), Some(1));
    ok(&build(&["quixo", "2x2", "-o", &format!("{t}2")]));
    let other = format!("{t}2");
    let commands: Vec<Vec<&str>> = vec![
        vec!["info", &partial],
        vec!["verify", &partial],
        vec!["stats", &partial],
        vec!["export", &partial, "-o", "-"],
        vec!["query", &partial, "empty"],
        vec!["diff", &partial, &other],
        vec!["diff", &other, &partial],
        vec!["play", &partial],
    ];
    for args in commands {
        let err = common::fails(&retro(&args), 2, "an unfinished build of quixo 3x3");
        assert!(!err.contains("corrupt"), "{args:?}: {err}");
        assert!(
            err.contains("run the same `retro build` again") && err.contains(t),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn the_disk_check_refuses_when_the_disk_is_too_small() {
    let dir = tempfile::tempdir().unwrap();
    let a = board(dir.path(), "young", "6x6", "3");
    let out_path = dir.path().join("t.retro");
    let t = out_path.to_str().unwrap();
    let out = build(&["young", &a, "-o", t, "--assume-free-bytes", "1000"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.starts_with("error: not enough disk") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!out_path.exists());
    ok(&build(&[
        "young",
        &a,
        "-o",
        t,
        "--assume-free-bytes",
        "1000",
        "--force",
    ]));
    assert!(out_path.exists());
}

/// The stop Ctrl-C asks for (here at the build's Nth check for a stop, `--stop-at-check`)
/// ends the sweep between chunks: the build exits 130 naming the layer it was computing and
/// the finished layers its partial file keeps (all those above it), and the same command
/// resumes it to the uninterrupted table, for a plain table and one of best moves.
#[test]
fn a_build_stopped_as_by_ctrl_c_keeps_its_finished_layers_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let input = board(dir.path(), "young", "5x6", "11");
    for extra in [&[][..], &["--moves", "2"][..]] {
        let whole = dir.path().join("whole.retro");
        let w = whole.to_str().unwrap();
        ok(&build(
            &[&["young", &input, "-o", w, "--fresh"][..], extra].concat(),
        ));
        let want = std::fs::read(&whole).unwrap();
        let t = dir.path().join("t.retro");
        let ts = t.to_str().unwrap();
        let mut stops = 0;
        // Every 6th check: each build syncs every layer, which is what takes the time.
        for check in (1..).step_by(6) {
            let _ = std::fs::remove_file(&t);
            let _ = std::fs::remove_file(dir.path().join("t.retro.partial"));
            let n = check.to_string();
            let args = [
                &["young", &input, "-o", ts, "--stop-at-check", &n][..],
                extra,
            ]
            .concat();
            let out = build(&args);
            if out.status.success() {
                break;
            }
            stops += 1;
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(130), "{err}");
            assert!(!t.exists(), "a stopped build left a table under its name");
            let last = err.lines().last().unwrap_or_default();
            let at: usize = last
                .strip_prefix("interrupted while computing layer ")
                .and_then(|r| r.split(':').next())
                .and_then(|k| k.parse().ok())
                .unwrap_or_else(|| panic!("{err}"));
            if at < 30 {
                assert!(
                    last.contains(&format!("keeps the finished layers 30 down to {}", at + 1))
                        || (at == 29 && last.contains("keeps the finished layer 30")),
                    "{last}"
                );
            } else {
                assert!(last.contains("no layer was finished yet"), "{last}");
            }
            let summary = ok(&build(&[&["young", &input, "-o", ts][..], extra].concat()));
            if extra.is_empty() && at < 30 {
                assert!(
                    summary.contains(&format!("resumed below layer {}", at + 1)),
                    "{summary}"
                );
            }
            assert_eq!(std::fs::read(&t).unwrap(), want, "{extra:?} check {check}");
        }
        assert!(stops >= 4, "{extra:?}: only {stops} stops");
    }
}

/// The summary's bytes per position divide the file it names, header and all (a small
/// table's header outweighs its values); `--json` and `info --json` name the values' share
/// as such.
#[test]
fn bytes_per_position_divide_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("ttt.retro");
    let ts = t.to_str().unwrap();
    let line = ok(&build(&["mnk", "3x3", "-o", ts]));
    let len = std::fs::metadata(&t).unwrap().len();
    assert!(
        line.contains(&format!(
            "({len} bytes, {:.3} bytes per position)",
            len as f64 / 6046.0
        )),
        "{line}"
    );
    for args in [
        vec!["build", "mnk", "3x3", "-o", ts, "--quiet", "--json"],
        vec!["info", ts, "--json"],
    ] {
        let json: serde_json::Value = serde_json::from_str(&ok(&retro(&args))).unwrap();
        assert!(json.get("bytes_per_position").is_none(), "{json}");
        let values = json["value_bytes"].as_f64().unwrap();
        assert_eq!(json["value_bytes_per_position"], values / 6046.0, "{json}");
    }
}

/// A finished table of another game or board at the output is refused, and left as it
/// was; `--force` replaces it, and a table of the same board is built again without a word.
#[test]
fn a_finished_table_of_another_board_is_not_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("ttt.retro");
    let ts = t.to_str().unwrap();
    ok(&build(&["mnk", "3x3", "-o", ts]));
    let before = std::fs::read(&t).unwrap();
    for (game, board, named) in [
        ("connect", "4x4", "not connect 4x4k4"),
        ("mnk", "4x3", "not mnk 4x3k3"),
    ] {
        let err = common::fails(
            &build(&[game, board, "-o", ts]),
            2,
            "holds a finished table of mnk 3x3k3",
        );
        assert!(err.contains(named) && err.contains("--force"), "{err}");
        assert_eq!(std::fs::read(&t).unwrap(), before);
    }
    // The same board, folded or not, is built again.
    common::ok_silent(&build(&["mnk", "3x3k3", "-o", ts, "--no-fold"]));
    common::ok_silent(&build(&["mnk", "3x3", "-o", ts]));
    assert_eq!(std::fs::read(&t).unwrap(), before);
    common::ok_silent(&build(&["connect", "4x4", "-o", ts, "--force"]));
    let info = ok(&retro(&["info", ts]));
    assert!(info.contains("connect"), "{info}");
}

/// A build with no `-o` where there is no `tables/` directory makes one and says so.
#[test]
fn a_build_says_when_it_makes_the_tables_directory() {
    let dir = tempfile::tempdir().unwrap();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(["build", "mnk", "3x3"])
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let first = run();
    ok(&first);
    let said = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(said.contains("created the directory tables/"), "{said}");
    assert!(dir.path().join("tables/mnk-3x3k3.retro").exists());
    let again = run();
    ok(&again);
    let said = String::from_utf8_lossy(&again.stderr).into_owned();
    assert!(!said.contains("created"), "{said}");
}
