//! The memory bound of a sweep: the time to read every layer once and write every layer
//! once, as the sweep must at the least, with nothing computed.
//!
//! cargo bench --bench memory_stream              # young 15 x 15, i32 values
//! cargo bench --bench memory_stream -- young 16  # another young board
//! cargo bench --bench memory_stream -- twins 4   # twins 4 x 4
//!
//! For layer k it sums layer k + 1 (a read of every entry) and fills layer k (a write of
//! every entry), in two buffers sized once for the largest layer, exactly like the sweep's.
//! Prints one markdown row per thread count: seconds (median of 5), bytes moved, GB/s, and
//! the nanoseconds per position this bound alone costs.

use std::time::Instant;

use rayon::prelude::*;
use retro::Registry;
use retro::game::AnyBoard;
use retro::stored::ValueType;

/// Read all of `next`, write all of `out`.
fn stream<V: Copy + Send + Sync + Into<i64> + From<i8>>(out: &mut [V], next: &[V]) -> i64 {
    let sum: i64 = next.par_iter().map(|&v| v.into()).sum();
    let fill = V::from((sum & 0x3f) as i8);
    out.par_iter_mut().for_each(|v| *v = fill);
    sum
}

fn run<V: Copy + Send + Sync + Into<i64> + From<i8> + Default>(
    sizes: &[u64],
    threads: usize,
) -> f64 {
    let largest = *sizes.iter().max().expect("a layer") as usize;
    let mut a: Vec<V> = vec![V::default(); largest];
    let mut b: Vec<V> = vec![V::from(1); largest];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let mut times = Vec::new();
    let mut check = 0i64;
    for _ in 0..5 {
        let start = Instant::now();
        pool.install(|| {
            for k in (0..sizes.len() - 1).rev() {
                check ^= stream(&mut a[..sizes[k] as usize], &b[..sizes[k + 1] as usize]);
                std::mem::swap(&mut a, &mut b);
            }
        });
        times.push(start.elapsed().as_secs_f64());
    }
    std::hint::black_box(check);
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The value type the sweep picks for a board's weights.
struct PickedType;

impl retro::Visitor for PickedType {
    type Output = ValueType;
    fn visit<G: retro::Registered>(self, game: G) -> retro::Result<ValueType> {
        Ok(retro::solve::value_type(&game))
    }
}

fn value_type(spec: &AnyBoard) -> retro::Result<ValueType> {
    retro::Builtin::visit(spec, PickedType)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let (game, n) = match args.as_slice() {
        [game, size] => (game.clone(), size.parse::<usize>().expect("a board size")),
        _ => ("young".to_string(), 15),
    };
    let max = if game == "young" { 100_000 } else { 100 };
    let spec = retro::Builtin::random(&game, (n, n), 7, max, "--max").expect("board");
    let sizes = retro::Builtin::layer_sizes(&spec).expect("layer sizes");
    let positions: u64 = sizes.iter().sum();
    // The value type the sweep picks for these weights (i32 for young, i16 for twins).
    let vt = value_type(&spec).expect("a board");
    let width = vt.width() as u64;
    let bytes: u64 = sizes.windows(2).map(|w| (w[0] + w[1]) * width).sum();
    println!("| board | threads | seconds | bytes moved | GB/s | ns/position |");
    println!("|---|---:|---:|---:|---:|---:|");
    for threads in [1, 2] {
        let s = retro::with_value_type!(vt, V => run::<V>(&sizes, threads));
        println!(
            "| {game} {n}x{n} | {threads} | {s:.3} | {bytes} | {:.1} | {:.2} |",
            bytes as f64 / s / 1e9,
            s * 1e9 / positions as f64
        );
    }
}
