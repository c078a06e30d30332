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
    let mut cmd = mpirun_command(np, command, args, env);
    let _one = ONE_JOB
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    cmd.output().expect("mpirun")
}

/// `mpirun`, with `input` on mpirun's standard input.
fn mpirun_input(np: usize, command: &str, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut cmd = mpirun_command(np, command, args, &[]);
    let _one = ONE_JOB
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write the board");
    drop(stdin);
    child.wait_with_output().expect("mpirun")
}

/// The `mpirun` command line of `mpirun`.
fn mpirun_command(np: usize, command: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
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
    cmd
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
        // The files are reused from board to board: a build does not replace a finished
        // table of another board.
        let _ = std::fs::remove_file(&want);
        for &np in ranks {
            let _ = std::fs::remove_file(dir.join(format!("mpi-{np}.tbl")));
        }
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
    // Best moves: layer 9 stores moves, so the build resumes, as one process does, below
    // the lowest finished layer of values, 10, and writes layer 9's moves again.
    let encodings: [(&[&str], usize); 3] = [(&[], 9), (&["--compact"], 9), (&["--moves", "2"], 10)];
    for (e, (flag, below)) in encodings.into_iter().enumerate() {
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
        assert!(
            out.contains(&format!("resumed below layer {below}")),
            "{out}"
        );
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

/// A build over two ranks killed at a crash point (`--crash-before-step`: rank 0 aborts just
/// before its Nth step that changes the partial file) goes on with any number of ranks, or
/// on one process, to the bytes one process writes. Quixo and Teeko are solved in `i16`
/// and written again in one byte a value once every layer is in; a kill in that last phase
/// leaves a partial file of `i8` values, which every rank count resumes in its own type.
/// The crash points are sampled: a few in the solve, and most in the last phase, where the
/// partial file's header says `i8` (checked, so that a change in the steps cannot move the
/// sample out of that phase unnoticed); every point is resumed on 1, 2 and 3 ranks and on
/// one process.
#[test]
fn builds_killed_at_crash_points_resume_with_any_number_of_ranks() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let out = d.join("t.retro");
    let out_s = out.to_str().expect("utf-8");
    let partial = d.join("t.retro.partial");
    // Rank 0 takes 377 steps on two ranks for Quixo 3x3 (30 layers, the last phase from
    // about step 190 on) and 103 for Teeko 4x4s3 (7 layers, whose larger ones rank 1
    // shares; the last phase from about step 50 on). The last step is the rename.
    let games: [(&str, &str, &[u64]); 2] = [
        (
            "quixo",
            "3x3",
            &[30, 120, 195, 220, 250, 280, 310, 340, 365, 377],
        ),
        ("teeko", "4x4s3", &[20, 50, 62, 75, 88, 98, 103]),
    ];
    let mut narrowing = 0;
    for (game, size, points) in games {
        let reference = d.join(format!("{game}.retro"));
        ok(single(&[
            "build",
            "-q",
            "-o",
            reference.to_str().expect("utf-8"),
            game,
            size,
        ]));
        let want = std::fs::read(&reference).expect("table");
        for &n in points {
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(&partial);
            let step = n.to_string();
            let killed = mpirun(
                2,
                "build",
                &["-q", "-o", out_s, game, size, "--crash-before-step", &step],
                &[],
            );
            assert!(
                !killed.status.success(),
                "{game} {size}: step {n} was never reached"
            );
            assert!(!out.exists());
            let left = std::fs::read(&partial).expect("partial file");
            if let Ok(t) = retro::table::Table::open_partial::<retro::Builtin>(&partial)
                && t.header.value_type == retro::stored::ValueType::I8
            {
                narrowing += 1;
            }
            for ranks in [1, 2, 3, 0] {
                let _ = std::fs::remove_file(&out);
                std::fs::write(&partial, &left).expect("write");
                let args = ["-q", "-o", out_s, game, size];
                let resumed = match ranks {
                    0 => single(&[&["build"][..], &args].concat()),
                    np => mpirun(np, "build", &args, &[]),
                };
                let said = String::from_utf8_lossy(&resumed.stderr).into_owned();
                assert!(
                    resumed.status.success(),
                    "{game} {size}: killed before step {n} on 2 ranks, resumed on {ranks} (0: one process): {said}"
                );
                assert!(
                    std::fs::read(&out).expect("table") == want,
                    "{game} {size}: killed before step {n}, resumed on {ranks}: the table differs"
                );
            }
        }
    }
    assert!(
        narrowing >= 10,
        "only {narrowing} crash points in the last phase"
    );
}

/// Rank 0 leaves its token beside the partial file under a name no one can guess, created
/// afresh: a link or a file planted under the name it once used is neither followed nor
/// removed, and no token is left behind.
#[test]
fn the_token_file_follows_no_link_and_removes_no_file() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let victim = d.join("victim.txt");
    std::fs::write(&victim, "victim\n").expect("write");
    for (i, planted) in ["link", "file"].into_iter().enumerate() {
        let out = d.join(format!("t{i}.retro"));
        let name = d.join(format!("t{i}.retro.partial.partial"));
        match planted {
            "link" => std::os::unix::fs::symlink(&victim, &name).expect("symlink"),
            _ => std::fs::write(&name, "mine\n").expect("write"),
        }
        ok(mpirun(
            2,
            "build",
            &["-q", "-o", out.to_str().expect("utf-8"), "mnk", "3x3k3"],
            &[],
        ));
        assert!(out.exists());
        let kept = std::fs::symlink_metadata(&name).expect("the planted name is still there");
        assert_eq!(kept.file_type().is_symlink(), planted == "link");
        if planted == "file" {
            assert_eq!(std::fs::read_to_string(&name).expect("read"), "mine\n");
        }
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "victim\n");
    let left: Vec<String> = std::fs::read_dir(d)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("token"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Rank 0 holds the lock one process holds on the partial file: an MPI build of a table
/// another build is writing is refused, naming the holder, and so are a plain build and a
/// second MPI build started while an MPI build runs; the running build finishes as one
/// process would have built the table.
#[test]
fn an_mpi_build_holds_the_lock_a_plain_build_holds() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let out = d.join("t.retro");
    let out_s = out.to_str().expect("utf-8");
    let partial = d.join("t.retro.partial");
    // This test process holds the lock a running build holds.
    let held = std::fs::File::create(&partial).expect("create");
    held.lock().expect("lock");
    let refused = mpirun(2, "build", &["-q", "-o", out_s, "mnk", "3x3k3"], &[]);
    let said = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "another build of this table is running (pid {}",
            std::process::id()
        )),
        "{said}"
    );
    assert!(!out.exists());
    drop(held);

    // A build over two ranks, caught holding its lock and stopped there (SIGSTOP to the
    // holder, rank 0) while a plain build and a second MPI build of the table start.
    let board = board(d, "young", "12x12");
    let want = d.join("single.tbl");
    ok(single(&[
        "build",
        "-q",
        "-o",
        want.to_str().expect("utf-8"),
        "young",
        &board,
    ]));
    let _one = ONE_JOB
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let start = |timeout: bool| {
        let mut cmd = Command::new("mpirun");
        cmd.arg("--oversubscribe");
        if timeout {
            cmd.args(["--timeout", TIMEOUT]);
        }
        cmd.args([
            "-np",
            "2",
            RETRO,
            "build",
            "--threads",
            "1",
            "-q",
            "-o",
            out_s,
        ])
        .args(["young", &board])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl", "self,vader")
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        cmd
    };
    let mut running = start(true).spawn().expect("mpirun");
    // The process holding a lock on the partial file, from /proc/locks ("1: FLOCK
    // ADVISORY WRITE PID MAJOR:MINOR:INODE 0 EOF").
    let holder = || -> Option<String> {
        use std::os::unix::fs::MetadataExt;
        let ino = std::fs::metadata(&partial).ok()?.ino();
        let locks = std::fs::read_to_string("/proc/locks").ok()?;
        locks.lines().find_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let inode: u64 = f.get(5)?.rsplit(':').next()?.parse().ok()?;
            (f.get(1) == Some(&"FLOCK") && inode == ino).then(|| f.get(4).map(|p| p.to_string()))?
        })
    };
    let pid = loop {
        if let Some(pid) = holder() {
            break pid;
        }
        assert!(
            running.try_wait().expect("wait").is_none(),
            "the MPI build ended without holding a lock on its partial file"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let signal = |sig: &str| {
        let sent = Command::new("kill").args([sig, &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill {sig} {pid}");
    };
    signal("-STOP");
    let plain = single(&["build", "-q", "-o", out_s, "young", &board]);
    let twice = start(false).output().expect("mpirun");
    signal("-CONT");
    let first = running.wait_with_output().expect("wait");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(std::fs::read(&out).expect("table") == std::fs::read(&want).expect("table"));
    for (who, o) in [("a plain build", plain), ("a second MPI build", twice)] {
        let said = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success(), "{who}: {said}");
        assert!(
            said.contains(&format!(
                "another build of this table is running (pid {pid}"
            )),
            "{who}: {said}"
        );
        assert!(
            !said.contains("failed to fill whole buffer"),
            "{who}: {said}"
        );
    }
}

#[test]
fn build_json_under_mpirun_gives_each_rank_and_one_rank_is_a_plain_build() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let young = board(d, "young", "12x12");
    let plain = d.join("plain.tbl");
    let plain_s = plain.to_str().expect("utf-8");
    let want: serde_json::Value = serde_json::from_str(&ok(single(&[
        "build", "-q", "--json", "-o", plain_s, "young", &young,
    ])))
    .expect("plain JSON");
    // Two ranks: the plain build's object, the ranks' figures beside it.
    let two = d.join("two.tbl");
    let out = ok(mpirun(
        2,
        "build",
        &[
            "-q",
            "--json",
            "-o",
            two.to_str().expect("utf-8"),
            "young",
            &young,
        ],
        &[],
    ));
    let got: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    let object = want.as_object().expect("an object");
    for (key, value) in object {
        if !["table", "seconds", "peak_rss"].contains(&key.as_str()) {
            assert_eq!(&got[key], value, "{key}");
        }
    }
    assert_eq!(got["ranks"], 2);
    let ranks = got["per_rank"].as_array().expect("per_rank");
    assert_eq!(ranks.len(), 2);
    let sum = |key: &str| -> u64 { ranks.iter().map(|r| r[key].as_u64().expect(key)).sum() };
    // What one rank sent the other received; young's layers read children across slices.
    assert_eq!(sum("sent_bytes"), sum("received_bytes"));
    assert!(sum("sent_bytes") > 0);
    assert_eq!(got["bytes_exchanged"].as_u64(), Some(sum("sent_bytes")));
    for (r, rank) in ranks.iter().enumerate() {
        assert_eq!(rank["rank"], r);
        assert!(rank["compute_seconds"].as_f64().expect("compute") >= 0.0);
        assert!(rank["exchange_seconds"].as_f64().expect("exchange") >= 0.0);
    }
    assert!(std::fs::read(&two).expect("table") == std::fs::read(&plain).expect("table"));
    // One rank: the plain process's path, so its JSON has no ranks in it.
    let one = d.join("one.tbl");
    let out = ok(mpirun(
        1,
        "build",
        &[
            "-q",
            "--json",
            "-o",
            one.to_str().expect("utf-8"),
            "young",
            &young,
        ],
        &[],
    ));
    let got: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(got["ranks"], serde_json::Value::Null);
    assert_eq!(got["positions"], want["positions"]);
    assert!(std::fs::read(&one).expect("table") == std::fs::read(&plain).expect("table"));
}

/// A distributed build stopped with SIGTERM (a job scheduler's stop: mpirun passes it on
/// to every rank) says on rank 0, as one process stopped by Ctrl-C does, what its partial
/// file keeps (what `retro info` then finds in it) and that the same command goes on; the
/// same command then finishes it, byte for byte the table one process writes. Standard
/// Teeko, stopped a second into its moving layer, which takes most of its build.
#[test]
fn a_distributed_build_stopped_by_sigterm_says_what_it_kept() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("t.retro");
    let table_s = table.to_str().expect("utf-8");
    let partial = dir.path().join("t.retro.partial");
    let partial_s = partial.to_str().expect("utf-8");
    let _one = ONE_JOB
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut child = Command::new("mpirun")
        .args(["--oversubscribe", "--timeout", TIMEOUT, "-np", "2", RETRO])
        .args([
            "build",
            "--threads",
            "1",
            "-q",
            "-o",
            table_s,
            "teeko",
            "5x5",
        ])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl", "self,vader")
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun");
    while !partial.exists() {
        assert!(
            child.try_wait().expect("mpirun").is_none(),
            "the build ended first"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("mpirun");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the build ended first: {err}");
    assert!(!table.exists(), "{err}");
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("interrupted"))
        .collect();
    assert_eq!(said.len(), 1, "rank 0 says it, once: {err}");
    // What the partial file holds, by `retro info`: the layers not written yet.
    let info = String::from_utf8_lossy(&single(&["info", partial_s]).stderr).into_owned();
    let unwritten: usize = info
        .split("(layers ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{info}"));
    let (kept, then) = match unwritten {
        8 => (
            "interrupted: no layer was finished yet".to_string(),
            "run the same command again to start over",
        ),
        7 => (
            "t.retro.partial keeps the finished layer 8;".to_string(),
            "run the same command again to resume",
        ),
        n => (
            format!(
                "t.retro.partial keeps the finished layers 8 down to {};",
                n + 1
            ),
            "run the same command again to resume",
        ),
    };
    assert!(
        said[0].contains(&kept) && said[0].ends_with(then),
        "{}: {info}",
        said[0]
    );
    drop(_one);
    // The same command finishes it, as one process would have written it.
    ok(mpirun(
        2,
        "build",
        &["-q", "-o", table_s, "teeko", "5x5"],
        &[],
    ));
    let want = dir.path().join("single.retro");
    let want_s = want.to_str().expect("utf-8");
    ok(single(&["build", "-q", "-o", want_s, "teeko", "5x5"]));
    assert!(std::fs::read(&table).expect("table") == std::fs::read(&want).expect("table"));
}

/// A failure of rank 0's own at the start (a link planted where the partial file goes) is
/// printed by rank 0 however soon the other ranks end: every rank prints its error before
/// any leaves the job. No line describes the partial file, which the build never opened.
#[test]
fn rank_0s_own_error_is_printed_and_no_unopened_file_described() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("t.retro");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "victim\n").expect("write");
    std::os::unix::fs::symlink(&victim, dir.path().join("t.retro.partial")).expect("symlink");
    for np in [2, 3] {
        for run in 0..10 {
            let out = mpirun(
                np,
                "build",
                &["-q", "-o", table.to_str().expect("utf-8"), "mnk", "3x3k3"],
                &[],
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{np} ranks, run {run}: {err}");
            assert!(
                err.lines().any(|l| l.starts_with("error: rank 0: ")
                    && l.contains("t.retro.partial: is a symbolic link")),
                "{np} ranks, run {run}: {err}"
            );
            assert!(!err.contains("interrupted"), "{np} ranks, run {run}: {err}");
        }
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "victim\n");
}

/// SIGTERM to mpirun once every layer is written (rank 0 about to seal the table), or once
/// the table is sealed: rank 0 says what the stop kept, the whole table or every layer in
/// the partial file, never that no layer was finished; a stop after the seal ends rank 0
/// with 0, and the table is whole. The same command finishes a table stopped before its
/// seal, byte for byte what one process writes. (`RETRO_MPI_TEST_TERM` sends the signal.)
#[test]
fn a_stop_at_the_seal_says_what_it_kept() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let want = dir.path().join("single.retro");
    let want_s = want.to_str().expect("utf-8");
    ok(single(&["build", "-q", "-o", want_s, "teeko", "4x4s3"]));
    for at in ["sealing", "sealed"] {
        let table = dir.path().join(format!("{at}.retro"));
        let table_s = table.to_str().expect("utf-8");
        let out = mpirun(
            2,
            "build",
            &["-q", "-o", table_s, "teeko", "4x4s3"],
            &[("RETRO_MPI_TEST_TERM", at)],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        let said: Vec<&str> = err
            .lines()
            .filter(|l| l.starts_with("interrupted"))
            .collect();
        assert_eq!(said.len(), 1, "{at}: {err}");
        match at {
            "sealed" => {
                assert_eq!(
                    said[0],
                    format!("interrupted after the table was sealed: {table_s} is whole"),
                    "{err}"
                );
                assert!(!dir.path().join("sealed.retro.partial").exists());
            }
            _ => {
                assert_eq!(
                    said[0],
                    format!(
                        "interrupted while sealing the table: {table_s}.partial holds every layer; run the same command again to finish it"
                    ),
                    "{err}"
                );
                assert!(!table.exists(), "{err}");
                let again = ok(mpirun(2, "build", &["-o", table_s, "teeko", "4x4s3"], &[]));
                assert!(again.contains("resumed below layer 0"), "{again}");
            }
        }
        assert!(std::fs::read(&table).expect("table") == std::fs::read(&want).expect("table"));
    }
}

/// A board on standard input reaches rank 0 alone: rank 0 reads it and sends it to the
/// other ranks, so `retro gen ... | mpirun retro build` builds the table a file gives, and
/// `solve` answers as one process does. A bad board on standard input is rank 0's one
/// error line.
#[test]
fn a_board_on_standard_input_is_sent_to_every_rank() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let text = ok(single(&["gen", "young", "8x8", "--seed", "3"]));
    let file = dir.path().join("young.txt");
    std::fs::write(&file, &text).expect("write");
    let want = dir.path().join("file.retro");
    ok(single(&[
        "build",
        "-q",
        "-o",
        want.to_str().expect("utf-8"),
        "young",
        file.to_str().expect("utf-8"),
    ]));
    for np in [2, 3] {
        let table = dir.path().join(format!("stdin-{np}.retro"));
        ok(mpirun_input(
            np,
            "build",
            &["-q", "-o", table.to_str().expect("utf-8"), "young"],
            &text,
        ));
        assert!(std::fs::read(&table).expect("table") == std::fs::read(&want).expect("table"));
        let answer = ok(mpirun_input(np, "solve", &["young"], &text));
        assert_eq!(
            answer,
            ok(single(&["solve", "young", file.to_str().expect("utf-8")]))
        );
    }
    let table = dir.path().join("bad.retro");
    let out = mpirun_input(
        3,
        "build",
        &["-q", "-o", table.to_str().expect("utf-8"), "young"],
        "zz\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].starts_with("error: stdin: "), "{err}");
    assert!(!err.contains("interrupted"), "{err}");
}

/// Stale token files beside the partial file (a rank 0 killed before it removed its own)
/// go when an MPI build takes the lock; the build's own token goes too, as before.
#[test]
fn an_mpi_build_removes_stale_token_files() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let table = d.join("t.retro");
    let stale = d.join("t.retro.partial.token-00000000deadbeef");
    std::fs::write(&stale, 0xdead_beef_u64.to_le_bytes()).expect("write");
    ok(mpirun(
        2,
        "build",
        &["-q", "-o", table.to_str().expect("utf-8"), "mnk", "3x3k3"],
        &[],
    ));
    let left: Vec<String> = std::fs::read_dir(d)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("token"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A build over two ranks stopped before every step rank 0 takes (the rewrite in one byte a
/// value at the end included) leaves a partial file that `info` names an unfinished build,
/// never damage, and that a rerun resumes below a layer that never goes back up as the
/// stop moves on, to the bytes one process writes.
#[test]
fn a_stop_at_any_step_over_two_ranks_keeps_what_the_step_before_kept() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let out = d.join("t.retro");
    let out_s = out.to_str().expect("utf-8");
    let partial = d.join("t.retro.partial");
    let partial_s = partial.to_str().expect("utf-8");
    let reference = d.join("ref.retro");
    ok(single(&[
        "build",
        "-q",
        "-o",
        reference.to_str().expect("utf-8"),
        "teeko",
        "4x4s3",
    ]));
    let want = std::fs::read(&reference).expect("table");
    // Teeko 4x4s3 has layers 0 to 6; 7 stands for a rerun from nothing.
    let mut kept = 7;
    let mut stops = 0;
    for n in 1u64.. {
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&partial);
        let step = n.to_string();
        let args = ["-q", "-o", out_s, "teeko", "4x4s3"];
        let killed = mpirun(
            2,
            "build",
            &[&args[..], &["--crash-before-step", &step]].concat(),
            &[],
        );
        if killed.status.success() {
            break;
        }
        stops += 1;
        assert!(!out.exists());
        let info = single(&["info", partial_s]);
        let said = String::from_utf8_lossy(&info.stderr).into_owned();
        assert!(
            info.status.success() || said.contains("an unfinished build"),
            "stopped before step {n}: info says {said}"
        );
        let summary = ok(single(&[&["build"][..], &args].concat()));
        let below = summary
            .split("resumed below layer ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|k| k.parse().ok())
            .unwrap_or(7);
        assert!(
            below <= kept,
            "stopped before step {n}: the rerun resumed below layer {below}, one stopped a step earlier below {kept}"
        );
        kept = below;
        assert!(
            std::fs::read(&out).expect("table") == want,
            "stopped before step {n}: the resumed table differs"
        );
    }
    assert_eq!(kept, 0, "the last stops resume below layer 0");
    assert!(stops > 60, "only {stops} stops");
}

/// A board whose ranks would not fit in memory is refused before anything is written,
/// quoting what `retro plan` says a rank needs over as many ranks (Connect Four over 2
/// ranks needs terabytes a rank: refused on any machine).
#[test]
fn a_build_too_large_for_its_ranks_quotes_the_plan() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("c4.retro");
    let out = mpirun(
        2,
        "build",
        &["-q", "-o", table.to_str().expect("utf-8"), "connect", "7x6"],
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    let plan = ok(single(&[
        "plan", "connect", "7x6", "--ranks", "2", "--total", "--json",
    ]));
    let plan: serde_json::Value = serde_json::from_str(&plan).expect("plan --json");
    let peak = plan["peak_memory_bytes"]
        .as_u64()
        .expect("peak_memory_bytes");
    let text = ok(single(&[
        "plan", "connect", "7x6", "--ranks", "2", "--total",
    ]));
    let said = text
        .split("peak memory per rank ")
        .nth(1)
        .and_then(|t| t.split(" (").next())
        .expect("the plan's peak memory");
    assert!(
        err.contains(&format!(
            "board too large for memory: each of the 2 ranks needs about {said} at its peak"
        )),
        "{err}\nplan: {peak} bytes, {said}"
    );
    assert!(!table.exists());
    assert!(!dir.path().join("c4.retro.partial").exists());
}
