//! What `plan` and the build's estimate say a build holds, against what it held: the peak
//! memory of the process (its layers, the game's ranking tables, the binary), for one small
//! board of each game; and the boards whose rules cannot work, refused before any estimate.

use crate::common::{fails, ok, retro};

/// A byte count as `human_bytes` prints it ("14.0 MiB", "458 B"), in bytes.
fn bytes(text: &str) -> f64 {
    let (number, unit) = text.split_once(' ').unwrap_or((text, "B"));
    let scale = match unit {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        other => panic!("unit {other} in {text:?}"),
    };
    number.parse::<f64>().unwrap() * scale
}

/// The figure after `label` in `line`, up to the next " (" or ",".
fn figure(line: &str, label: &str) -> f64 {
    let at = line
        .find(label)
        .unwrap_or_else(|| panic!("{label} in {line}"))
        + label.len();
    let rest = &line[at..];
    let end = rest.find([',', '(']).unwrap_or(rest.len());
    bytes(rest[..end].trim())
}

/// For one small board of each game: the plan's peak memory per rank and the build's
/// estimate are at least the peak resident memory the build reports, and at most twice it
/// (the baseline is generous for the smallest boards; Quixo 4 x 4 planned 4.2 MiB of
/// layers where it held 25.8 MiB, most of it its orbit tables and the rewrite to one byte).
#[test]
fn plan_peak_memory_covers_a_build_of_each_game() {
    let dir = tempfile::tempdir().unwrap();
    let young = ok(&retro(
        &["gen", "young", "8x8", "--seed", "7", "--max", "100"],
        "",
    ));
    let twins = ok(&retro(
        &["gen", "twins", "4x4", "--seed", "7", "--max", "100"],
        "",
    ));
    // (game, plan's size, build's board words, the board on stdin, plan's extra options)
    let boards: [(&str, &str, &str, &str, &[&str]); 7] = [
        ("young", "8x8", "", &young, &["--max-weight", "100"]),
        ("twins", "4x4", "", &twins, &["--max-weight", "100"]),
        ("mnk", "4x4k3", "4x4k3", "", &[]),
        ("connect", "5x4", "5x4", "", &[]),
        ("teeko", "4x4 advanced", "4x4 advanced", "", &[]),
        ("quixo", "4x4", "4x4", "", &[]),
        ("morris", "six", "six", "", &[]),
    ];
    for (game, size, words, stdin, extra) in boards {
        let table = dir.path().join(format!("{game}.retro"));
        let table = table.to_str().unwrap();
        let mut args = vec!["build", game];
        args.extend(words.split_whitespace());
        args.extend(["-o", table, "--json", "--threads", "1"]);
        let out = retro(&args, stdin);
        let report: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
        let measured = report["peak_rss"].as_f64().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let estimated = figure(&stderr, "peak memory ");
        let mut args = vec!["plan", game];
        args.extend(size.split_whitespace());
        args.extend(["--total"]);
        args.extend(extra.iter().copied());
        let plan = ok(&retro(&args, ""));
        let planned = figure(plan.lines().last().unwrap(), "peak memory per rank ");
        let mib = |b: f64| b / (1 << 20) as f64;
        for (what, figure) in [("plan", planned), ("estimate", estimated)] {
            assert!(
                figure >= measured && figure <= 2.0 * measured,
                "{game} {size}: {what} {:.1} MiB against {:.1} MiB measured",
                mib(figure),
                mib(measured)
            );
        }
    }
}

/// A Teeko board no line fits (nine stones each on 5 x 5) is refused in one line, with
/// nothing estimated and nothing built; so is one by `plan`.
#[test]
fn plan_and_build_refuse_a_board_no_one_can_win() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.retro");
    let out = retro(
        &["build", "teeko", "5x5s9", "-o", table.to_str().unwrap()],
        "",
    );
    let err = fails(&out, 2, "no line of 9 fits the board");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!table.exists());
    fails(
        &retro(&["plan", "teeko", "4x4s5"], ""),
        2,
        "no line of 5 fits the board",
    );
}

/// `retro` with `RETRO_FIXPOINT` set: a build on one process picks its fixpoint worker by
/// the memory available, so a figure meant to hold on any machine names the worker.
fn retro_with_fixpoint(worker: &str, args: &[&str]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_retro"));
    command.args(args).env("RETRO_FIXPOINT", worker);
    crate::common::feed(command, "")
}

/// The text after `label` in `line`, up to the next ",", ":" or " (".
fn said<'a>(line: &'a str, label: &str) -> &'a str {
    let at = line
        .find(label)
        .unwrap_or_else(|| panic!("{label} in {line}"))
        + label.len();
    let rest = &line[at..];
    let end = [rest.find(','), rest.find(':'), rest.find(" (")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    &rest[..end]
}

/// One process is one build: `plan --total` at one rank prints the figures of the build's
/// own estimate line (peak memory, its layers, the table), for boards that build and for
/// whole Quixo 5 x 5, whose build is refused after its estimate; a table of values for the
/// side to move that a build narrows to a byte says its size in i8 too, and the build
/// writes that size. docs/games.md quotes the Quixo 5 x 5 plan for each fixpoint worker.
#[test]
fn plan_on_one_process_says_what_the_build_estimates() {
    let dir = tempfile::tempdir().unwrap();
    for (game, board, builds) in [
        ("teeko", "4x4", true),
        ("quixo", "4x4", true),
        ("morris", "six", true),
        ("mnk", "4x4k3", true),
        ("quixo", "5x5", false),
    ] {
        for worker in ["counters", "checks"] {
            // A file per board: a build does not replace another board's table.
            let table = dir.path().join(format!("{game}-{board}.retro"));
            let table = table.to_str().unwrap();
            let mut args = vec!["build", game, board, "-o", table, "--fresh"];
            if !builds {
                // Refused on any machine, after the estimate: no disk for it.
                args.extend(["--assume-free-bytes", "1"]);
            }
            let built = retro_with_fixpoint(worker, &args);
            assert_eq!(built.status.success(), builds, "{built:?}");
            let stderr = String::from_utf8_lossy(&built.stderr).to_string();
            let estimate = stderr
                .lines()
                .find(|l| l.starts_with("estimate: "))
                .unwrap_or_else(|| panic!("{stderr}"));
            let plan = retro_with_fixpoint(worker, &["plan", game, board, "--total"]);
            let plan = ok(&plan);
            let total = plan.lines().last().unwrap();
            let what = format!("{game} {board} {worker}:\n{estimate}\n{total}");
            assert_eq!(
                said(estimate, "peak memory "),
                said(total, "peak memory per rank "),
                "{what}"
            );
            assert_eq!(
                said(estimate, "(layers "),
                said(total, "(layers "),
                "{what}"
            );
            assert_eq!(said(estimate, "table "), said(total, "table "), "{what}");
            if game == "teeko" {
                // Teeko 4 x 4's values fit a byte: the plan says the table is written in
                // i8, and the table written is the size it gives.
                assert!(plan.contains("i8 values (computed in i16"), "{plan}");
                let size = std::fs::metadata(table).unwrap().len() as f64;
                let i8 = said(total, "table ");
                let i8 = i8
                    .strip_suffix(" in i8")
                    .unwrap_or_else(|| panic!("{what}"));
                assert!((bytes(i8) - size).abs() <= size * 0.001, "{what}: {size}");
                let json = retro_with_fixpoint(worker, &["plan", game, board, "--json"]);
                let json: serde_json::Value = serde_json::from_str(&ok(&json)).unwrap();
                assert_eq!(json["value_type"], "i8", "{json}");
                assert_eq!(json["table_bytes"].as_f64(), Some(size), "{json}");
            }
            if !builds {
                let docs =
                    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/games.md"))
                        .unwrap();
                let peak = said(total, "peak memory per rank ");
                assert!(
                    docs.contains(&format!("{peak} with the {worker} worker")),
                    "docs/games.md does not quote {peak} with the {worker} worker"
                );
            }
        }
    }
}

/// A byte count as the text output prints it ("458 B", "6.4 KiB").
fn human(b: &serde_json::Value) -> String {
    let b = b.as_f64().unwrap_or_else(|| panic!("a byte count: {b}"));
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let (mut v, mut u) = (b, 0);
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    match u {
        0 => format!("{b:.0} B"),
        _ => format!("{v:.1} {}", units[u]),
    }
}

/// `plan --json` is one object whose figures are the text's, and the build's own: the
/// peak memory, its layers, the disk, the CPU and wall seconds (at `--threads`), and with
/// each layer's row; for whole Quixo 5 x 5, whose build is refused (for memory, or on any
/// machine for disk), the estimate the build prints and the figure it refuses by.
#[test]
fn plan_json_gives_the_text_s_figures_and_the_build_s() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("q.retro");
    let args = ["plan", "quixo", "5x5", "--threads", "4", "--total"];
    let text = ok(&retro_with_fixpoint("checks", &args));
    let total = text.lines().last().unwrap();
    let json = ok(&retro_with_fixpoint(
        "checks",
        &[&args[..], &["--json"]].concat(),
    ));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (json["ranks"].as_u64(), json["threads"].as_u64()),
        (Some(1), Some(4))
    );
    assert!(json.get("layers").is_none(), "--total: no rows");
    let built = retro_with_fixpoint(
        "checks",
        &[
            "build",
            "quixo",
            "5x5",
            "-o",
            table.to_str().unwrap(),
            "--threads",
            "4",
            "--assume-free-bytes",
            "1",
        ],
    );
    assert!(!built.status.success());
    let stderr = String::from_utf8_lossy(&built.stderr).to_string();
    let estimate = stderr
        .lines()
        .find(|l| l.starts_with("estimate: "))
        .unwrap();
    let peak = human(&json["peak_memory_bytes"]);
    let layers = human(&json["layer_memory_bytes"]);
    let disk = human(&json["disk_bytes"]);
    for (figure, in_text, in_estimate) in [
        (&peak, "peak memory per rank ", "peak memory "),
        (&layers, "(layers ", "(layers "),
        (&disk, "disk needed ", "disk needed "),
    ] {
        assert_eq!(figure, said(total, in_text), "{total}");
        assert_eq!(figure, said(estimate, in_estimate), "{estimate}");
    }
    let narrow = human(&json["table_bytes"]);
    assert_eq!(said(total, "table "), format!("{narrow} in i8"), "{total}");
    assert_eq!(
        said(estimate, "table "),
        format!("{narrow} in i8"),
        "{estimate}"
    );
    // The time: the text's estimate is the wall seconds at 4 threads, the CPU time over 4.
    let seconds = |v: &serde_json::Value| format!("{:.0}", v.as_f64().unwrap());
    let (cpu, wall) = (json["cpu_seconds"].as_f64().unwrap(), &json["wall_seconds"]);
    assert!(
        (wall.as_f64().unwrap() - cpu / 4.0).abs() < 1e-6 * cpu,
        "{json}"
    );
    assert_eq!(
        said(total, "estimated "),
        format!("{} s", seconds(wall)),
        "{total}"
    );
    assert!(
        total.contains(&format!(
            "(CPU time: {} s a rank over its 4 threads;",
            seconds(&json["cpu_seconds"])
        )),
        "{total}"
    );
    // Refused for memory where the machine has less than the layers or the process: the
    // figure quoted is the plan's; else refused for the disk the plan gives.
    let err = stderr.lines().find(|l| l.starts_with("error: ")).unwrap();
    let quoted = match (
        err.contains("too large for memory"),
        err.contains("at its peak"),
    ) {
        (true, true) => peak.clone(),
        (true, false) => layers.clone(),
        _ => disk.clone(),
    };
    assert!(
        err.contains(&format!("about {quoted}")),
        "{err}
{json}"
    );
    // Rows: one a layer, each the text's row, over ranks too.
    let args = ["plan", "mnk", "4x4k3", "--ranks", "2"];
    let text = ok(&retro(&args, ""));
    let json = ok(&retro(&[&args[..], &["--json"]].concat(), ""));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = json["layers"].as_array().unwrap();
    assert_eq!(rows.len(), 17);
    for row in rows {
        let layer = row["layer"].to_string();
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(layer.as_str()))
            .unwrap_or_else(|| panic!("row {layer}: {text}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[1], row["worker"], "{line}");
        assert_eq!(words[2], row["entries"].to_string(), "{line}");
        assert_eq!(words[3], row["entries_per_rank"].to_string(), "{line}");
        assert!(
            line.contains(&format!(" {} ", human(&row["peak_bytes"]))),
            "{line}: {row}"
        );
        assert!(
            line.contains(&format!(" {} ", human(&row["disk_bytes"]))),
            "{line}: {row}"
        );
    }
    let total = text.lines().last().unwrap();
    assert_eq!(
        human(&json["peak_memory_bytes"]),
        said(total, "peak memory per rank ")
    );
    assert_eq!(human(&json["disk_bytes"]), said(total, "disk needed "));
    assert!(total.contains(&format!(
        "{:.0}% of entries computed twice (a chunk with children in other ranks' slices",
        100.0 * json["computed_twice"].as_f64().unwrap()
    )));
}
