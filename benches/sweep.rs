//! Criterion benchmarks of the full sweep, per game and per thread count, with throughput
//! in positions (HTML reports under target/criterion).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use retro::Registry;
use retro::build;
use retro::{Driver, Silent};

fn sweeps(c: &mut Criterion) {
    let boards = [
        ("young 11x11", "young", 11, 11, 100_000),
        ("twins 3x4", "twins", 3, 4, 100),
    ];
    for (name, game, r, cols, max) in boards {
        let spec = retro::Builtin::random(game, (r, cols), 1, max, "--max").expect("board");
        let positions: u64 = retro::Builtin::layer_sizes(&spec)
            .expect("sizes")
            .iter()
            .sum();
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(positions));
        group.sample_size(10);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            group.bench_with_input(BenchmarkId::new("threads", threads), &spec, |b, spec| {
                b.iter(|| {
                    pool.install(|| {
                        build::solve_board::<retro::Builtin>(spec, Driver::Parallel, &Silent)
                            .expect("solve")
                    })
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, sweeps);
criterion_main!(benches);
