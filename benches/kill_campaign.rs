//! Builds and exports killed (SIGKILL) at random moments, every one rerun and compared byte
//! for byte with an uninterrupted run.
//!
//!     cargo bench --profile ci --bench kill_campaign
//!     RETRO_KILL_TRIALS=50 RETRO_KILL_SEED=7 cargo bench --profile ci --bench kill_campaign
//!
//! For every game and every encoding (plain, `--compact`, `--moves 2`, 3 and 4) it builds a
//! reference table once and times it. Each trial then starts the same build, kills it after a
//! delay drawn uniformly from [0, 1.2 x that time), reruns the build (which resumes from the
//! partial file or starts again), and compares the result with the reference. Exports are
//! treated the same way, with one more check: after the kill, `-o` still holds the file that
//! was there before (an older export) and never a part of the new one.
//!
//! The test suite stops builds and exports before every single write step
//! (`--crash-before-step`, tests/all/nothing_lost.rs), so each window is hit there by
//! construction; this campaign adds what a real kill brings (a kill in the middle of a
//! write, of a rayon chunk, of the process's start) at a scale a test should not run.
//! It prints one row per configuration and exits 1 if any rerun differs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn retro() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_retro"));
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// A small xorshift generator: the campaign is repeatable from its seed.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Run to the end; panics (this is a benchmark) when the command fails.
fn run(args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = retro().args(args).output().expect("run retro");
    if !out.status.success() {
        // A refused rerun: keep what it refused, to be read.
        if let Some(at) = args.iter().position(|&a| a == "-o") {
            let partial = format!("{}.partial", args[at + 1]);
            let mut kept = 0;
            keep(Path::new(&partial), "refused partial", &mut kept);
        }
    }
    assert!(
        out.status.success(),
        "retro {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    start.elapsed()
}

/// Start `args`, kill it after `delay`: true when the kill found it still running.
fn kill_after(args: &[&str], delay: Duration) -> bool {
    let mut child = retro().args(args).spawn().expect("spawn retro");
    let deadline = Instant::now() + delay;
    loop {
        if child.try_wait().expect("wait").is_some() {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep((deadline - now).min(Duration::from_micros(200)));
    }
    let killed = child.kill().is_ok();
    let status = child.wait().expect("wait");
    killed && !status.success()
}

#[derive(Default)]
struct Tally {
    trials: u64,
    killed: u64,
    resumed: u64,
    identical: u64,
}

fn main() {
    let trials = env_or("RETRO_KILL_TRIALS", 20);
    let seed = env_or("RETRO_KILL_SEED", 0x5eed);
    let mut rng = Rng(seed | 1);
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let write = |name: &str, args: &[&str]| -> PathBuf {
        let path = dir.path().join(name);
        let out = retro()
            .args(args)
            .stdout(Stdio::piped())
            .output()
            .expect("gen");
        std::fs::write(&path, out.stdout).expect("write board");
        path
    };
    // Boards whose builds take a few tenths of a second, so that random kills land inside;
    // exports are slower per position, so they read smaller boards.
    let twins = write(
        "twins-4x4.txt",
        &["gen", "twins", "4x4", "--seed", "7", "--max", "100"],
    );
    let twins_small = write("twins-3x4.txt", &["gen", "twins", "3x4", "--seed", "7"]);
    let young = root.join("tables/young-10x10.txt").display().to_string();
    let boards: Vec<(&str, String, String)> = vec![
        ("young", young.clone(), young),
        (
            "twins",
            twins.display().to_string(),
            twins_small.display().to_string(),
        ),
        ("mnk", "4x4k4".into(), "4x3k3".into()),
        ("connect", "5x4k4".into(), "4x4k4".into()),
        // Games whose stones move: solved to a fixpoint, rewritten in i8 at the end.
        ("teeko", "4x4s3".into(), "3x3s2".into()),
        ("quixo", "3x3".into(), "3x3".into()),
    ];
    let encodings: [&[&str]; 5] = [
        &[],
        &["--compact"],
        &["--moves", "2"],
        &["--moves", "3"],
        &["--moves", "4"],
    ];
    println!("seed {seed}, {trials} kills per row");
    println!();
    println!(
        "| command | game | encoding | full run | kills | landed | left a partial | identical |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut all_same = true;
    let mut kept = 0usize;
    let mut totals = Tally::default();
    for (game, board, export_board) in &boards {
        for encoding in encodings {
            // Tables of best moves are for games the placement sweep solves whole.
            if matches!(*game, "teeko" | "quixo") && encoding.first() == Some(&"--moves") {
                continue;
            }
            let reference = dir.path().join(format!("{game}-ref.retro"));
            let table = dir.path().join(format!("{game}.retro"));
            let (reference_s, table_s) =
                (reference.display().to_string(), table.display().to_string());
            let build = |out: &str| -> Vec<String> {
                let mut args = vec!["build", game, board, "-o", out, "-q"];
                args.extend_from_slice(encoding);
                args.into_iter().map(String::from).collect()
            };
            let _ = std::fs::remove_file(&reference);
            let args = build(&reference_s);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let full = run(&refs);
            let want = std::fs::read(&reference).expect("read reference");
            let mut tally = Tally::default();
            let args = build(&table_s);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            for _ in 0..trials {
                let _ = std::fs::remove_file(&table);
                let _ = std::fs::remove_file(format!("{table_s}.partial"));
                let delay = full.mul_f64(1.2 * rng.unit());
                tally.trials += 1;
                if kill_after(&args, delay) {
                    tally.killed += 1;
                    if Path::new(&format!("{table_s}.partial")).exists() {
                        tally.resumed += 1;
                    }
                }
                run(&args);
                if std::fs::read(&table).ok().as_deref() == Some(&want[..]) {
                    tally.identical += 1;
                } else {
                    keep(&table, "rerun build", &mut kept);
                }
            }
            let name = if encoding.is_empty() {
                "plain".to_string()
            } else {
                encoding.join(" ")
            };
            row("build", game, &name, full, &tally);
            all_same &= tally.identical == tally.trials;
            add(&mut totals, &tally);

            // Exports of a smaller table, over an older export already at -o.
            let args = {
                let mut args = vec!["build", game, export_board, "-o", &reference_s, "-q"];
                args.extend_from_slice(encoding);
                args
            };
            run(&args);
            let csv_ref = dir.path().join(format!("{game}-ref.csv"));
            let csv = dir.path().join(format!("{game}.csv"));
            let (csv_ref_s, csv_s) = (csv_ref.display().to_string(), csv.display().to_string());
            let full = run(&["export", &reference_s, "--csv", "-o", &csv_ref_s, "-q"]);
            let want = std::fs::read(&csv_ref).expect("read export");
            let older = b"an older export\n";
            let mut tally = Tally::default();
            let args = ["export", &reference_s, "--csv", "-o", &csv_s, "-q"];
            for _ in 0..trials.div_ceil(2) {
                std::fs::write(&csv, older).expect("write older");
                let delay = full.mul_f64(1.2 * rng.unit());
                tally.trials += 1;
                let mut intact = true;
                if kill_after(&args, delay) {
                    tally.killed += 1;
                    // A kill may land after the finished export was renamed into place and
                    // before the process exited: then -o holds the whole new export. Anything
                    // but the older file or the whole new one is a loss.
                    let left = std::fs::read(&csv).unwrap_or_default();
                    intact = left == older || left == want;
                    if !intact {
                        keep(&csv, "killed export", &mut kept);
                    }
                    if Path::new(&format!("{csv_s}.partial")).exists() {
                        tally.resumed += 1;
                    }
                }
                run(&args);
                if intact && std::fs::read(&csv).ok().as_deref() == Some(&want[..]) {
                    tally.identical += 1;
                } else if intact {
                    keep(&csv, "rerun export", &mut kept);
                }
            }
            row("export", game, &name, full, &tally);
            all_same &= tally.identical == tally.trials;
            add(&mut totals, &tally);
        }
    }
    println!();
    println!(
        "{} runs, {} killed while running ({} left a partial file), {} reruns identical to an uninterrupted run",
        totals.trials, totals.killed, totals.resumed, totals.identical
    );
    if !all_same {
        println!("a rerun differed from the uninterrupted run");
        std::process::exit(1);
    }
}

/// Copies a file that differed from the uninterrupted run out of the scratch folder (which is
/// removed at the end) into `target/kill-campaign/`, and says where, so that it can be read.
fn keep(file: &Path, what: &str, kept: &mut usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/kill-campaign");
    let _ = std::fs::create_dir_all(&dir);
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let to = dir.join(format!("{kept}-{name}"));
    *kept += 1;
    match std::fs::copy(file, &to) {
        Ok(_) => println!(
            "{what} differed from the uninterrupted run: kept as {}",
            to.display()
        ),
        Err(e) => println!("{what} differed from the uninterrupted run ({e})"),
    }
}

fn add(total: &mut Tally, one: &Tally) {
    total.trials += one.trials;
    total.killed += one.killed;
    total.resumed += one.resumed;
    total.identical += one.identical;
}

fn row(command: &str, game: &str, encoding: &str, full: Duration, t: &Tally) {
    println!(
        "| {command} | {game} | {encoding} | {:.0} ms | {} | {} | {} | {}/{} |",
        full.as_secs_f64() * 1e3,
        t.trials,
        t.killed,
        t.resumed,
        t.identical,
        t.trials
    );
}
