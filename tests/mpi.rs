//! Builds and solves under `mpirun` (feature `mpi`): byte-identical to a single process,
//! resumable, the contest answers, and a failing rank ends the job. Skipped, with a note,
//! where `mpirun` is missing.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

const RETRO: &str = env!("CARGO_BIN_EXE_retro");

/// One `mpirun` at a time: the tests run on threads of their own, and ranks oversubscribing
/// a small box wait for each other's time slices in every collective.
static ONE_JOB: Mutex<()> = Mutex::new(());

/// Seconds after which `mpirun` kills a job: a hang fails the test instead of the suite
/// never ending.
const TIMEOUT: &str = "60";

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

/// `retro COMMAND --threads 1 ARGS` on `np` ranks.
fn mpirun(np: usize, command: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("mpirun");
    cmd.args([
        "--oversubscribe",
        "--timeout",
        TIMEOUT,
        "-np",
        &np.to_string(),
        RETRO,
        command,
        "--threads",
        "1",
    ])
    .args(args)
    // Containers run tests as root; one box, shared memory only; ranks waiting in a
    // collective yield their core to the rank they wait for.
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    .env("OMPI_MCA_btl", "self,vader")
    .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    .env("OMPI_MCA_mpi_yield_when_idle", "1")
    .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let _one = ONE_JOB
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
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
    same_bytes_as(dir, board, ranks, env, &[&[], &["--compact"]]);
}

/// Build `board` on one process and on each of `ranks` with each of `encodings` (build
/// flags), and compare.
fn same_bytes_as(
    dir: &Path,
    board: &[&str],
    ranks: &[usize],
    env: &[(&str, &str)],
    encodings: &[&[&str]],
) {
    for &flag in encodings {
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
                "build",
                &[&["-q", "--fresh", "-o", got_s][..], board, flag].concat(),
                env,
            ));
            assert!(
                std::fs::read(&got).expect("mpi table") == std::fs::read(&want).expect("table"),
                "{board:?} {flag:?} on {np} ranks differs from one process"
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
    let d = dir.path();
    let young67 = board(d, "young", "6x7");
    same_bytes(d, &["young", &young67], &[1, 4], &[]);
    let young99 = board(d, "young", "9x9");
    same_bytes(d, &["young", &young99], &[2], &[]);
    let young12 = board(d, "young", "12x12");
    same_bytes(d, &["young", &young12], &[3], &[]);
    // Twins layers span many blocks and their children scatter: these exchange the most.
    let twins33 = board(d, "twins", "3x3");
    same_bytes(d, &["twins", &twins33], &[2], &[]);
    let twins44 = board(d, "twins", "4x4");
    same_bytes(d, &["twins", &twins44], &[4], &[]);
    // Early endings (terminal positions in a run) and children ranked through the
    // height vectors.
    // Every position, as --no-fold stores them (folded tables: below).
    let connect54 = board(d, "connect", "5x4");
    same_bytes_as(
        d,
        &["connect", &connect54],
        &[3],
        &[],
        &[&["--no-fold"], &["--no-fold", "--compact"]],
    );
}

/// Tables of best moves (`--moves L`: most layers store move indices derived from the
/// children's values, which a rank partly fetched), every game the sweep builds, and
/// eight ranks on a small box (slices of a block or none at all on the small layers).
#[test]
fn best_moves_every_game_and_eight_ranks_match_one_process() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let moves: &[&[&str]] = &[&["--moves", "3"], &["--moves", "1"]];
    let young88 = board(d, "young", "8x8");
    same_bytes_as(d, &["young", &young88], &[2, 8], &[], moves);
    let twins34 = board(d, "twins", "3x4");
    same_bytes_as(d, &["twins", &twins34], &[3], &[], moves);
    let mnk = board(d, "mnk", "4x4");
    // Every position, and best moves (a table of moves never folds).
    same_bytes_as(
        d,
        &["mnk", &mnk],
        &[2, 8],
        &[],
        &[&["--no-fold"], &["--moves", "2"]],
    );
    let connect54 = board(d, "connect", "5x4");
    same_bytes_as(
        d,
        &["connect", &connect54],
        &[8],
        &[],
        &[&["--no-fold", "--compact"], &["--moves", "4"]],
    );
}

#[test]
fn exchanges_split_into_rounds_still_match() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let twins35 = board(dir.path(), "twins", "3x5");
    let small = [("RETRO_MPI_MAX_MESSAGE", "1000")];
    same_bytes(
        dir.path(),
        &["twins", &twins35, "--rows", "3", "--cols", "5"],
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
    let twins44 = board(dir.path(), "twins", "4x4");
    let b = ["twins", twins44.as_str()];
    // Best moves: layer 9 stores moves, so the resumed ranks read its values by
    // following them.
    let encodings: [&[&str]; 3] = [&[], &["--compact"], &["--moves", "2"]];
    for (e, flag) in encodings.into_iter().enumerate() {
        let want = dir.path().join("single.tbl");
        let want_s = want.to_str().expect("utf-8");
        ok(single(
            &[&["build", "-q", "-o", want_s][..], &b, flag].concat(),
        ));
        let got = dir.path().join(format!("resumed-{e}.tbl"));
        let got_s = got.to_str().expect("utf-8");
        let stopped = mpirun(
            2,
            "build",
            &[
                &["-q", "-o", got_s, "--stop-after-layer", "9"][..],
                &b,
                flag,
            ]
            .concat(),
            &[],
        );
        assert!(!stopped.status.success());
        assert!(String::from_utf8_lossy(&stopped.stderr).contains("stopped after layer 9"));
        assert!(!got.exists());
        // Another rank count: the split is recomputed, the file is addressed by position.
        let out = ok(mpirun(
            3,
            "build",
            &[&["-q", "-o", got_s][..], &b, flag].concat(),
            &[],
        ));
        assert!(out.contains("resumed below layer 9"), "{out}");
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
    assert_eq!(ok(mpirun(2, "solve", &["young", &young], &[])), "2\n");
    assert_eq!(ok(mpirun(3, "solve", &["twins", &twins], &[])), "15\n80\n");
}

/// A rank that panics, or fails where the others do not hear of it, ends the whole job
/// (MPI_Abort) rather than leaving the others waiting in a collective; `--timeout` would
/// end a hung job, so a prompt finish is the check.
#[test]
fn a_failing_rank_ends_the_job() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let young99 = board(dir.path(), "young", "9x9");
    let out = dir.path().join("failed.tbl");
    for how in ["panic", "error"] {
        let started = std::time::Instant::now();
        let failed = mpirun(
            3,
            "build",
            &["-q", "-o", out.to_str().expect("utf-8"), "young", &young99],
            &[("RETRO_MPI_TEST_FAIL", &format!("1:{how}"))],
        );
        let stderr = String::from_utf8_lossy(&failed.stderr);
        assert!(!failed.status.success(), "{how}: {stderr}");
        assert!(stderr.contains("rank 1"), "{how}: {stderr}");
        assert!(
            started.elapsed().as_secs() < 30,
            "{how}: the job took {:?} to end",
            started.elapsed()
        );
        assert!(!out.exists());
    }
}

/// Every game, folded as it is by default or not: a layer solved to a fixpoint (Teeko,
/// Quixo, Morris) has its slices' updates to other ranks' parents traded level by level,
/// a one-pass layer (Morris's placements) fetches children from several layers, and a
/// folded table's slices are ranges of entries. One to four ranks, plain and compact.
#[test]
fn every_game_folded_or_not_matches_one_process() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    same_bytes(d, &["mnk", "4x4k3"], &[1, 2, 3, 4], &[]);
    same_bytes(d, &["connect", "5x4"], &[2, 3], &[]);
    same_bytes(d, &["teeko", "4x4"], &[1, 2, 3, 4], &[]);
    same_bytes(d, &["morris", "six stones=4"], &[2, 3, 4], &[]);
    same_bytes_as(d, &["morris", "five"], &[3], &[], &[&[]]);
    same_bytes_as(d, &["morris", "six moving"], &[2], &[], &[&[]]);
    same_bytes_as(d, &["quixo", "4x4"], &[2], &[], &[&[]]);
}

/// A fixpoint game stopped after a layer on two ranks resumes on three to the bytes one
/// process writes; `solve` under mpirun answers as one process does.
#[test]
fn moving_games_resume_with_another_rank_count_and_solve() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let b = ["morris", "six stones=4"];
    for flag in [&[][..], &["--compact"][..]] {
        let want = dir.path().join("single.tbl");
        let want_s = want.to_str().expect("utf-8");
        ok(single(
            &[&["build", "-q", "-o", want_s][..], &b, flag].concat(),
        ));
        let got = dir.path().join(format!("resumed-{}.tbl", flag.len()));
        let got_s = got.to_str().expect("utf-8");
        let stopped = mpirun(
            2,
            "build",
            &[
                &["-q", "--fresh", "-o", got_s, "--stop-after-layer", "5"][..],
                &b,
                flag,
            ]
            .concat(),
            &[],
        );
        assert!(!stopped.status.success());
        assert!(String::from_utf8_lossy(&stopped.stderr).contains("stopped after layer 5"));
        assert!(!got.exists());
        let out = ok(mpirun(
            3,
            "build",
            &[&["-q", "-o", got_s][..], &b, flag].concat(),
            &[],
        ));
        assert!(out.contains("resumed below layer 5"), "{out}");
        assert!(std::fs::read(&got).expect("table") == std::fs::read(&want).expect("table"));
    }
    for board in [&["teeko", "4x4"][..], &["morris", "six stones=4"][..]] {
        let one = ok(single(&[&["solve"][..], board].concat()));
        assert_eq!(ok(mpirun(3, "solve", board, &[])), one, "{board:?}");
    }
}
