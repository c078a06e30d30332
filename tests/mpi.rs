//! Builds and solves under `mpirun` (feature `mpi`): byte-identical to a single process,
//! resumable, and the contest answers. Skipped, with a note, where `mpirun` is missing.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::{Command, Output};

const RETRO: &str = env!("CARGO_BIN_EXE_retro");

fn have_mpirun() -> bool {
    let found = Command::new("mpirun").arg("--version").output().is_ok();
    if !found {
        eprintln!("note: mpirun not found; skipping the MPI tests");
    }
    found
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `retro ARGS` on `np` ranks of one thread each.
fn mpirun(np: usize, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("mpirun");
    cmd.args([
        "--oversubscribe",
        "-np",
        &np.to_string(),
        RETRO,
        "--threads",
        "1",
    ])
    .args(args)
    // Containers run tests as root; loopback only.
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("mpirun")
}

fn single(args: &[&str]) -> Output {
    Command::new(RETRO).args(args).output().expect("retro")
}

fn board(dir: &Path, game: &str, size: &str) -> String {
    let path = dir.join(format!("{game}-{size}.txt"));
    let text = ok(single(&["gen", game, size, "--seed", "1"]));
    std::fs::write(&path, text).expect("board");
    path.to_str().expect("utf-8 path").to_owned()
}

/// Build `board` on one process and on each of `ranks`, plain and compact, and compare.
fn same_bytes(dir: &Path, board: &[&str], ranks: &[usize], env: &[(&str, &str)]) {
    for compact in [false, true] {
        let flag: &[&str] = if compact { &["--compact"] } else { &[] };
        let want = dir.join("single.tbl");
        let want_s = want.to_str().expect("utf-8");
        ok(single(
            &[&["build", "-q", "-o", want_s][..], board, flag].concat(),
        ));
        for &np in ranks {
            let got = dir.join(format!("mpi-{np}.tbl"));
            let got_s = got.to_str().expect("utf-8");
            ok(mpirun(
                np,
                &[&["build", "-q", "--fresh", "-o", got_s][..], board, flag].concat(),
                env,
            ));
            assert!(
                std::fs::read(&got).expect("mpi table") == std::fs::read(&want).expect("table"),
                "{board:?} compact={compact} on {np} ranks differs from one process"
            );
        }
    }
}

#[test]
fn distributed_builds_match_one_process() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let young67 = board(dir.path(), "young", "6x7");
    same_bytes(dir.path(), &["young", &young67], &[1, 2, 3, 4], &[]);
    let young99 = board(dir.path(), "young", "9x9");
    same_bytes(dir.path(), &["young", &young99], &[2, 4], &[]);
    // Twins layers span several blocks: these exchange values between ranks.
    let twins33 = board(dir.path(), "twins", "3x3");
    same_bytes(dir.path(), &["twins", &twins33], &[2, 3], &[]);
    let twins35 = board(dir.path(), "twins", "3x5");
    same_bytes(
        dir.path(),
        &["twins", &twins35, "--rows", "3", "--cols", "5"],
        &[3],
        &[],
    );
}

#[test]
fn exchanges_split_into_rounds_still_match() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let twins34 = board(dir.path(), "twins", "3x4");
    let small = [("RETRO_MPI_MAX_MESSAGE", "1000")];
    same_bytes(
        dir.path(),
        &["twins", &twins34, "--rows", "3", "--cols", "4"],
        &[3],
        &small,
    );
}

#[test]
fn an_interrupted_distributed_build_resumes_to_the_same_bytes() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let twins34 = board(dir.path(), "twins", "3x4");
    let b = ["twins", twins34.as_str(), "--rows", "3", "--cols", "4"];
    for compact in [false, true] {
        let flag: &[&str] = if compact { &["--compact"] } else { &[] };
        let want = dir.path().join("single.tbl");
        let want_s = want.to_str().expect("utf-8");
        ok(single(
            &[&["build", "-q", "-o", want_s][..], &b, flag].concat(),
        ));
        let got = dir.path().join(format!("resumed-{compact}.tbl"));
        let got_s = got.to_str().expect("utf-8");
        let stopped = mpirun(
            2,
            &[
                &["build", "-q", "-o", got_s, "--stop-after-layer", "6"][..],
                &b,
                flag,
            ]
            .concat(),
            &[],
        );
        assert!(!stopped.status.success());
        assert!(String::from_utf8_lossy(&stopped.stderr).contains("stopped after layer 6"));
        assert!(!got.exists());
        // Another rank count: the split is recomputed, the file is addressed by position.
        let out = ok(mpirun(
            3,
            &[&["build", "-q", "-o", got_s][..], &b, flag].concat(),
            &[],
        ));
        assert!(out.contains("resumed below layer 6"), "{out}");
        assert!(std::fs::read(&got).expect("table") == std::fs::read(&want).expect("table"));
    }
}

#[test]
fn distributed_solve_prints_the_contest_answers() {
    if !have_mpirun() {
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let young = format!("{root}/tables/young-sample.txt");
    let twins = format!("{root}/tables/twins-sample1.txt");
    for np in [2, 3] {
        assert_eq!(ok(mpirun(np, &["solve", "young", &young], &[])), "2\n");
        assert_eq!(ok(mpirun(np, &["solve", "twins", &twins], &[])), "15\n80\n");
    }
}
