//! Side by side in one run: `retro`'s sweep against what contest solutions do (memoised
//! minimax over a 2^(n+m) boundary mask for young, over a 3^(R*C) array for twins).
//!
//! cargo bench --bench contest_baseline              # young 14x14, 15x15 and twins 4x4
//! cargo bench --bench contest_baseline -- young 13  # one board: young 13x13
//!
//! retro is timed as `retro solve GAME FILE --threads N`, the command a user runs
//! (process start and input parsing included). Times are medians: retro 3 runs per thread
//! count, the baseline 3 runs on boards under
//! 50 million positions and 1 run above (15 x 15 takes about two minutes).
//!
//! Peak memory: retro runs first, so the process's peak resident memory after it is
//! retro's; the baseline runs next and its array (4 GiB at 15 x 15) sets the second figure.
//! Run one board per process for clean peaks: `-- young 15`.

mod baseline;

use std::time::Instant;

use retro::Registry;
use retro::build;
use retro::game::AnyBoard;
use retro::{Driver, Silent};

fn rows(flat: &[i64], cols: usize) -> Vec<Vec<i64>> {
    if cols == 0 {
        Vec::new()
    } else {
        flat.chunks(cols).map(<[i64]>::to_vec).collect()
    }
}

/// Median wall time of `runs` runs (this machine's speed drifts by a third between runs,
/// so one run of each side is not a fair comparison).
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        out = Some(f());
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (out.expect("at least one run"), times[times.len() / 2])
}

/// `retro solve` as a user runs it: the binary, on the board file, `--threads N`.
fn retro_solve(spec: &AnyBoard, board: &std::path::Path, threads: usize) -> (i64, f64) {
    let (r, c) = spec.dims();
    let (rows, cols) = (r.to_string(), c.to_string());
    let mut args = vec!["solve", spec.name(), board.to_str().expect("path")];
    if spec.name() == "twins" {
        args.extend_from_slice(&["--rows", &rows, "--cols", &cols]);
    }
    let t = threads.to_string();
    args.extend_from_slice(&["--threads", &t]);
    time(3, || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(&args)
            .output()
            .expect("run retro");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .next()
            .and_then(|l| l.parse::<i64>().ok())
            .expect("a value")
    })
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn compare(game: &str, size: usize, cols: usize, max: u64) {
    let spec = retro::Builtin::random(game, (size, cols), 7, max, "--max").expect("board");
    let board =
        std::env::temp_dir().join(format!("retro-baseline-{}-{size}x{cols}.txt", spec.name()));
    std::fs::write(&board, spec.to_input()).expect("write board");
    let (v1, s1) = retro_solve(&spec, &board, 1);
    let (v2, s2) = retro_solve(&spec, &board, 2);
    // Peak memory: retro's sweep once in this process first, so the peak so far is its
    // own; the baseline's array then raises it.
    pool(1).install(|| {
        build::solve_board::<retro::Builtin>(&spec, Driver::Parallel, &Silent).expect("solve")
    });
    let retro_peak = retro::peak_rss().unwrap_or(0);
    let positions: u64 = retro::Builtin::layer_sizes(&spec)
        .expect("sizes")
        .iter()
        .sum();
    // The baseline is as slow as it is; repeat it too where that costs under a minute.
    let runs = if positions < 50_000_000 { 3 } else { 1 };
    let (base_value, base_s) = if let Some(y) = spec.get::<retro::game::Young>() {
        time(runs, || {
            baseline::young_mask(y.rows, y.cols, &rows(&y.a, y.cols), &rows(&y.b, y.cols))
        })
    } else if let Some(t) = spec.get::<retro::game::Twins>() {
        time(runs, || {
            baseline::twins_base3(
                t.rows,
                t.cols,
                &rows(&t.vert, t.cols),
                &rows(&t.horiz, t.cols - 1),
            )
        })
    } else {
        // The contest baselines are for the weighted games only.
        return;
    };
    let base_peak = retro::peak_rss().unwrap_or(0);
    assert_eq!(base_value, v1, "retro and the baseline disagree");
    assert_eq!(v1, v2);
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "| {} {size}x{cols} | {positions} | {base_s:.2} | {s1:.3} | {s2:.3} | {:.1}x | {:.1}x | {:.1} | {:.0} | {:.0} |",
        spec.name(),
        base_s / s1,
        base_s / s2,
        s1 * 1e9 / positions as f64,
        mib(retro_peak),
        mib(base_peak),
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    println!(
        "| board | positions | baseline s | retro 1 thread s | retro 2 threads s | speedup 1t | speedup 2t | ns/position 1t | retro peak MiB | baseline peak MiB |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    match args.as_slice() {
        [game, size] => {
            let n: usize = size.parse().expect("size");
            match game.as_str() {
                "young" => compare("young", n, n, 100_000),
                _ => compare("twins", n, n, 100),
            }
        }
        _ => {
            compare("young", 14, 14, 100_000);
            compare("young", 15, 15, 100_000);
            compare("twins", 4, 4, 100);
        }
    }
}
