//! The retrograde solve of a Teeko or Quixo board, timed per layer: positions, seconds,
//! positions per second, the value counts, peak memory.
//!
//! `cargo bench --bench teeko -- [RxC S] [--advanced] [--no-centre-first] [--threads T]`
//! (standard Teeko, 5x5 with 4 stones, by default); `cargo bench --bench teeko -- quixo N`.

use std::time::Instant;

use retro::game::Quixo;
use retro::game::{Game, Wdl};
use retro::game::{Teeko, TeekoBoard};
use retro::solve::solve_each;
use retro::{Driver, Silent};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut board = TeekoBoard::standard();
    let mut threads = None;
    let mut quixo = None;
    let mut words = args.iter();
    while let Some(a) = words.next() {
        match a.as_str() {
            "--advanced" => board.advanced = true,
            "--no-centre-first" => board.no_centre_first = true,
            "--threads" => threads = words.next().and_then(|t| t.parse().ok()),
            "quixo" => quixo = words.next().and_then(|n| n.parse::<usize>().ok()),
            size if size.contains('x') => {
                let (r, c) = size.split_once('x').expect("RxC");
                board.rows = r.parse().expect("rows");
                board.cols = c.parse().expect("columns");
            }
            stones => board.stones = stones.parse().expect("stones"),
        }
    }
    if let Some(t) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .expect("threads");
    }
    if let Some(n) = quixo {
        run(&Quixo::new(n).expect("a board"), &format!("quixo {n}x{n}"));
        return;
    }
    let name = format!(
        "teeko {}x{} with {} stones{}{}",
        board.rows,
        board.cols,
        board.stones,
        if board.advanced { ", advanced" } else { "" },
        if board.no_centre_first {
            ", no centre first"
        } else {
            ""
        },
    );
    run(&Teeko::new(board).expect("a board"), &name);
}

fn run<G: Game>(game: &G, name: &str) {
    let total: u64 = (0..=game.last_layer()).map(|k| game.layer_size(k)).sum();
    println!(
        "{name}: {total} positions, {} threads",
        rayon::current_num_threads()
    );
    let start = Instant::now();
    let mut last = Instant::now();
    let root = solve_each::<G, i16>(game, Driver::Parallel, &Silent, |k, values| {
        let (mut win, mut loss, mut draw, mut far) = (0u64, 0u64, 0u64, 0u32);
        for &v in values {
            match Wdl::decode(v as i64) {
                Wdl::Win(r) => {
                    win += 1;
                    far = far.max(r);
                }
                Wdl::Loss(r) => {
                    loss += 1;
                    far = far.max(r);
                }
                Wdl::Draw => draw += 1,
            }
        }
        let s = last.elapsed().as_secs_f64();
        println!(
            "layer {k:>2}: {:>11} positions in {s:>7.2} s ({:>6.1} M/s): {win} wins, {loss} losses, {draw} draws, longest {far}",
            values.len(),
            values.len() as f64 / s / 1e6,
        );
        last = Instant::now();
        Ok(())
    })
    .expect("solve");
    let s = start.elapsed().as_secs_f64();
    println!(
        "root: {:?}; {s:.2} s, {:.1} M positions/s, peak memory {} MiB",
        Wdl::decode(root as i64),
        total as f64 / s / 1e6,
        retro::peak_rss().unwrap_or(0) >> 20
    );
}
