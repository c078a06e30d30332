//! What ranking a parent costs: the whole parents-of step (`Game::for_each_parent_within`:
//! each move undone, the parent ranked to its orbit and weighed) on real positions of a
//! game's largest fixpoint layer, in nanoseconds a parent, old ranking against new where a
//! game has both.
//!
//! cargo bench --bench rank                 # every row below
//! cargo bench --bench rank -- teeko        # the rows whose name holds "teeko"
//!
//! Positions are a fixed sample of the layer's ranks (every rank at a stride, so the sample
//! is spread over the layer as a solve's decided positions are), each unranked once before
//! the clock starts; each row is the median of 5 timed passes over the sample. Standard
//! Teeko's movement layer is ranked keyed on the stones a move leaves in place (`new`) and,
//! as tables of format version 3 were, on the occupied cells (`old`); the other rows are
//! the games as they rank now.

use std::time::Instant;

use retro::game::{Board, Game, Morris, Quixo, Registered, Teeko, TeekoBoard};

/// Positions sampled a layer.
const SAMPLE: u64 = 200_000;

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f));
    println!("| game, layer | ranking | positions | parents | ns a parent | ns a position |");
    println!("|---|---|---:|---:|---:|---:|");
    let standard = TeekoBoard::standard();
    if wanted("teeko") {
        let layer = 2 * standard.stones;
        let old = Teeko::keyed_on_occupied(standard.clone()).expect("standard Teeko");
        let new = Teeko::new(standard).expect("standard Teeko");
        row(
            "standard teeko, movement layer",
            "occupied (old)",
            &old,
            layer,
        );
        row("standard teeko, movement layer", "outer (new)", &new, layer);
    }
    if wanted("quixo") {
        let quixo = Quixo::new(4).expect("quixo 4x4");
        let layer = (0..=quixo.last_layer())
            .max_by_key(|&k| quixo.layer_size(k))
            .unwrap_or(0);
        row(
            &format!("quixo 4x4, layer {layer}"),
            "occupied",
            &quixo,
            layer,
        );
    }
    if wanted("morris") {
        let board = <Morris as Registered>::Board::parse("six").expect("six men's morris");
        let six = Morris::new(board).expect("six men's morris");
        let layer = (0..=six.last_layer())
            .max_by_key(|&k| six.layer_size(k))
            .unwrap_or(0);
        row(
            &format!("six men's morris, layer {layer}"),
            "occupied",
            &six,
            layer,
        );
    }
}

/// One row: the median pass over the sample of layer `k`.
fn row<G: Game>(name: &str, ranking: &str, game: &G, k: usize) {
    game.prepare_layer(k);
    let size = game.layer_size(k);
    let stride = (size / SAMPLE).max(1);
    let positions: Vec<G::Position> = (0..size)
        .step_by(stride as usize)
        .map(|r| game.unrank(k, r))
        .collect();
    let mut parents = 0u64;
    let mut sink = 0u64;
    let mut times = Vec::new();
    for _ in 0..5 {
        parents = 0;
        let start = Instant::now();
        for pos in &positions {
            game.for_each_parent_within(pos, |rank, weight| {
                sink = sink.wrapping_add(rank ^ u64::from(weight));
                parents += 1;
            });
        }
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    std::hint::black_box(sink);
    let n = positions.len() as f64;
    println!(
        "| {name} | {ranking} | {} | {parents} | {:.1} | {:.1} |",
        positions.len(),
        median * 1e9 / parents.max(1) as f64,
        median * 1e9 / n,
    );
}
