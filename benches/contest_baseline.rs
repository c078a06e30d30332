//! Side by side in one run: `retro`'s sweep against what contest solutions do (memoised
//! minimax over a 2^(n+m) boundary mask for young, over a 3^(R*C) array for twins).
//!
//! cargo bench --bench contest_baseline              # young 14x14, 15x15 and twins 4x4
//! cargo bench --bench contest_baseline -- young 13  # one board: young 13x13
//!
//! Peak memory: retro runs first, so the process's peak resident memory after it is
//! retro's; the baseline runs next and its array (4 GiB at 15 x 15) sets the second figure.
//! Run one board per process for clean peaks: `-- young 15`.

mod baseline;

use std::time::Instant;

use retro::game::GameSpec;
use retro::job;
use retro::random::random_board;
use retro::sweep::{Driver, Silent};

fn rows(flat: &[i64], cols: usize) -> Vec<Vec<i64>> {
    if cols == 0 {
        Vec::new()
    } else {
        flat.chunks(cols).map(<[i64]>::to_vec).collect()
    }
}

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed().as_secs_f64())
}

fn retro_solve(spec: &GameSpec, threads: usize) -> (i64, f64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    time(|| pool.install(|| job::solve(spec, Driver::Parallel, &Silent).expect("solve")))
}

fn compare(game: &str, size: usize, cols: usize, max: u64) {
    let spec = random_board(game, size, cols, 7, max).expect("board");
    // retro first, so the process's peak memory so far is retro's own; the baseline's
    // array then raises it.
    let (v1, s1) = retro_solve(&spec, 1);
    let (v2, s2) = retro_solve(&spec, 2);
    let retro_peak = job::peak_rss().unwrap_or(0);
    let (base_value, base_s) = match &spec {
        GameSpec::Young(y) => {
            time(|| baseline::young_mask(y.rows, y.cols, &rows(&y.a, y.cols), &rows(&y.b, y.cols)))
        }
        GameSpec::Twins(t) => time(|| {
            baseline::twins_base3(
                t.rows,
                t.cols,
                &rows(&t.vert, t.cols),
                &rows(&t.horiz, t.cols - 1),
            )
        }),
    };
    let base_peak = job::peak_rss().unwrap_or(0);
    assert_eq!(base_value, v1, "retro and the baseline disagree");
    assert_eq!(v1, v2);
    let positions: u64 = spec.layer_sizes().expect("sizes").iter().sum();
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
