//! Hex over MPI ranks (feature `mpi`): a game from outside retro's crate builds over 1 to 4
//! ranks to the bytes one process writes, and `solve` under mpirun answers as one process
//! does. Skipped, with a note, where `mpirun` is missing.
#![cfg(feature = "mpi")]

use std::process::{Command, Output};

const RETRO_HEX: &str = env!("CARGO_BIN_EXE_retro-hex");

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
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn mpirun(np: usize, args: &[&str]) -> Output {
    Command::new("mpirun")
        .args([
            "--oversubscribe",
            "--timeout",
            "300",
            "-np",
            &np.to_string(),
        ])
        .arg(RETRO_HEX)
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl", "self,vader")
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .output()
        .expect("mpirun")
}

#[test]
fn hex_over_ranks_matches_one_process() {
    if !have_mpirun() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for flags in [&[][..], &["--compact"][..]] {
        let one = dir.path().join("one.retro");
        let one_s = one.to_str().expect("utf-8");
        ok(Command::new(RETRO_HEX)
            .args(
                [
                    &["build", "-q", "--fresh", "-o", one_s, "hex", "4x4"][..],
                    flags,
                ]
                .concat(),
            )
            .output()
            .expect("retro-hex"));
        for np in 1..=4 {
            let many = dir.path().join(format!("mpi-{np}.retro"));
            let many_s = many.to_str().expect("utf-8");
            ok(mpirun(
                np,
                &[
                    &["build", "-q", "--fresh", "-o", many_s, "hex", "4x4"][..],
                    flags,
                ]
                .concat(),
            ));
            assert!(
                std::fs::read(&many).expect("table") == std::fs::read(&one).expect("table"),
                "hex 4x4 {flags:?} on {np} ranks differs from one process"
            );
        }
    }
    let one = ok(Command::new(RETRO_HEX)
        .args(["solve", "hex", "4x4"])
        .output()
        .expect("retro-hex"));
    assert_eq!(ok(mpirun(3, &["solve", "hex", "4x4"])), one);
}
