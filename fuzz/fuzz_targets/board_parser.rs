//! Contest input (board) parser: arbitrary text through `GameSpec::parse` for both games,
//! with rows/cols chosen from the first bytes. On success the spec must round-trip through
//! `to_input`, and a small enough board is built, ranked and solved.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retro::game::{Game, GameSpec, Twins, Young};

/// Boards with more positions than this are only counted, not built and walked.
const MAX_BUILD: u64 = 1_000_000;
/// Boards up to this many positions are also solved (serial sweep).
const MAX_SOLVE: u64 = 5_000;

fn dim(byte: u8) -> Option<usize> {
    match byte % 16 {
        0..=5 => None,
        6 => Some(0),
        7 => Some(62),
        8 => Some(63),
        9 => Some(usize::MAX),
        10 => Some(1 << 32),
        11 => Some((1 << 32) + 1),
        _ => Some((byte as usize >> 4) + 1),
    }
}

fn check_game<G: Game>(game: &G, sizes: &[u64]) {
    assert_eq!(game.cells() + 1, sizes.len());
    for (k, &size) in sizes.iter().enumerate() {
        assert_eq!(game.layer_size(k), size);
        assert!(size > 0, "layer {k} is empty");
        for rank in [0, size / 2, size - 1] {
            let pos = game.unrank(k, rank);
            assert_eq!(game.rank(&pos), rank);
            assert_eq!(game.stones(&pos), k);
            let text = game.format_position(&pos);
            let back = game
                .parse_position(&text)
                .unwrap_or_else(|e| panic!("formatted position {text:?} does not parse: {e}"));
            assert_eq!(game.rank(&back), rank, "{text:?}");
            let _ = game.draw(&pos);
            let mut kids = Vec::new();
            game.for_each_child(&pos, |child, _| {
                if k < game.cells() {
                    assert!(child < sizes[k + 1], "child rank {child} out of layer {}", k + 1);
                }
                kids.push(child);
            });
            let mut from_moves: Vec<u64> = game.moves(&pos).iter().map(|m| game.rank(&m.child)).collect();
            kids.sort_unstable();
            from_moves.sort_unstable();
            assert_eq!(kids, from_moves, "children of {text:?}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (head, rest) = data.split_at(2);
    let text = String::from_utf8_lossy(rest);
    let game = if head[0] & 1 == 0 { "young" } else { "twins" };
    // Mostly no size for young (any size is an error there), mostly a size for twins.
    let (rows, cols) = if head[0] & 2 == 0 {
        (None, None)
    } else {
        (dim(head[0] >> 2), dim(head[1]))
    };
    let Ok(spec) = GameSpec::parse_sized(game, &text, rows, cols) else {
        return;
    };
    assert_eq!(spec.name(), game);
    // The contest input it prints reads back as the same board.
    let again = GameSpec::parse_sized(game, &spec.to_input(), rows, cols)
        .unwrap_or_else(|e| panic!("to_input does not parse back: {e}"));
    assert_eq!(again, spec);

    let Ok(sizes) = spec.layer_sizes() else {
        return;
    };
    let total: u128 = sizes.iter().map(|&s| s as u128).sum();
    if total >= MAX_BUILD as u128 {
        return;
    }
    match &spec {
        GameSpec::Young(s) => {
            let g = Young::new(s.clone()).expect("layer_sizes built it once");
            check_game(&g, &sizes);
            assert_eq!(g.total_positions() as u128, total);
        }
        GameSpec::Twins(s) => {
            let g = Twins::new(s.clone()).expect("layer_sizes built it once");
            check_game(&g, &sizes);
            assert_eq!(g.total_positions() as u128, total);
        }
    }
    if total <= MAX_SOLVE as u128 {
        let _ = retro::job::solve(&spec, retro::Driver::Serial, &retro::Silent);
    }
});
