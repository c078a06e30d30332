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
