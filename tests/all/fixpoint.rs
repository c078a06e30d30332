//! The two fixpoint workers, counters (`solve/fixpoint.rs`) and checks (`solve/checks.rs`),
//! write the same table byte for byte on every game whose stones move: small boards of
//! Teeko, Quixo and the Morris family, folded and not. The counters worker's values are
//! checked against brute forces in `teeko.rs`, `quixo.rs` and `morris.rs`, so equal tables
//! check the checks worker too. `RETRO_FIXPOINT` picks the worker; `RETRO_TRACE` shows which
//! one ran, so a build that ignored the choice fails here rather than comparing a worker
//! with itself.

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retro-fixpoint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Build `game board` with `worker` into `out`; its trace on stderr.
fn build(worker: &str, game: &str, board: &str, extra: &[&str], out: &PathBuf) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_retro"));
    command
        .args(["build", game, board, "-q", "--fresh", "-o"])
        .arg(out)
        .args(extra)
        .env("RETRO_FIXPOINT", worker)
        .env("RETRO_TRACE", "1");
    let output = command.output().expect("run retro");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "{worker} {game} {board} {extra:?}: {stderr}"
    );
    stderr
}

#[test]
fn both_workers_write_the_same_table_on_every_game_whose_stones_move() {
    let dir = dir();
    let boards: &[(&str, &str, &[&str])] = &[
        ("teeko", "3x3s3", &[]),
        ("teeko", "4x4s3", &[]),
        ("teeko", "4x4s3", &["--no-fold"]),
        ("teeko", "4x4 advanced", &[]),
        ("quixo", "3x3", &[]),
        ("quixo", "3x3", &["--no-fold"]),
        ("quixo", "3x3 min=5", &[]),
        ("morris", "five", &[]),
        ("morris", "six stones=3", &[]),
        ("morris", "six stones=3 moving", &["--no-fold"]),
        ("morris", "nine stones=4", &[]),
    ];
    for (i, &(game, board, extra)) in boards.iter().enumerate() {
        let counters = dir.join(format!("{i}-counters.retro"));
        let checks = dir.join(format!("{i}-checks.retro"));
        let traced = build("counters", game, board, extra, &counters);
        assert!(
            traced.contains("counted in") && !traced.contains("no counters"),
            "{game} {board}: the counters worker ran: {traced}"
        );
        let traced = build("checks", game, board, extra, &checks);
        assert!(
            traced.contains("no counters") && traced.contains("checks read"),
            "{game} {board}: the checks worker ran: {traced}"
        );
        let (a, b) = (
            std::fs::read(&counters).unwrap(),
            std::fs::read(&checks).unwrap(),
        );
        assert!(a.len() > 100, "{game} {board}: a table");
        assert!(
            a == b,
            "{game} {board} {extra:?}: the two workers' tables differ"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
