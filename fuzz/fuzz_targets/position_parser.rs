//! Position notation parser: arbitrary text through `parse_position` of a fixed young 4x5
//! and twins 3x3 game (and one edge-size board picked by the first byte). A parsed position
//! must have a rank inside its layer, format back to text that parses to the same rank,
//! agree with `unrank`, and have children (from `for_each_child` and from `moves`) that
//! agree and lie inside the next layer.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use retro::game::{Game, Twins, TwinsSpec, Young, YoungSpec};

fn young(n: usize, m: usize) -> Option<Young> {
    let a = (0..n * m).map(|i| (i as i64 * 7) % 11).collect();
    let b = (0..n * m).map(|i| (i as i64 * 5) % 13).collect();
    Young::new(YoungSpec { rows: n, cols: m, a, b }).ok()
}

fn twins(r: usize, c: usize) -> Option<Twins> {
    let vert = (0..(r - 1) * c).map(|i| (i as i64 * 3) % 10).collect();
    let horiz = (0..r * (c - 1)).map(|i| (i as i64 * 7) % 10).collect();
    Twins::new(TwinsSpec { rows: r, cols: c, vert, horiz }).ok()
}

struct Games {
    young: Young,
    twins: Twins,
    /// Boards at the edges of what the games allow.
    young_edge: Vec<Young>,
    twins_edge: Vec<Twins>,
}

fn games() -> &'static Games {
    static GAMES: OnceLock<Games> = OnceLock::new();
    GAMES.get_or_init(|| Games {
        young: young(4, 5).unwrap(),
        twins: twins(3, 3).unwrap(),
        young_edge: [(1, 1), (1, 64), (64, 1), (64, 3), (3, 64), (8, 8), (33, 33), (2, 3)]
            .iter()
            .filter_map(|&(n, m)| young(n, m))
            .collect(),
        twins_edge: [(1, 1), (1, 5), (5, 1), (2, 2), (4, 5), (6, 6), (6, 7), (1, 20)]
            .iter()
            .filter_map(|&(r, c)| twins(r, c))
            .collect(),
    })
}

fn check<G: Game>(game: &G, text: &str) {
    let Ok(pos) = game.parse_position(text) else {
        return;
    };
    let k = game.stones(&pos);
    assert!(k <= game.cells());
    let rank = game.rank(&pos);
    assert!(rank < game.layer_size(k), "rank {rank} outside layer {k} for {text:?}");
    let formatted = game.format_position(&pos);
    let back = game
        .parse_position(&formatted)
        .unwrap_or_else(|e| panic!("{formatted:?} (from {text:?}) does not parse: {e}"));
    assert_eq!(game.rank(&back), rank, "{text:?} -> {formatted:?}");
    assert_eq!(game.stones(&back), k);
    assert_eq!(game.format_position(&game.unrank(k, rank)), formatted, "unrank of {text:?}");
    let _ = game.draw(&pos);
    let mut kids = Vec::new();
    game.for_each_child(&pos, |child, _| kids.push(child));
    let moves = game.moves(&pos);
    let mut from_moves = Vec::new();
    for m in &moves {
        assert_eq!(game.stones(&m.child), k + 1);
        let r = game.rank(&m.child);
        assert!(r < game.layer_size(k + 1));
        from_moves.push(r);
    }
    kids.sort_unstable();
    from_moves.sort_unstable();
    assert_eq!(kids, from_moves, "children of {text:?}");
}

fuzz_target!(|data: &[u8]| {
    let g = games();
    let (pick, rest) = match data.split_first() {
        Some((&p, rest)) => (p as usize, rest),
        None => (0, data),
    };
    let text = String::from_utf8_lossy(rest);
    check(&g.young, &text);
    check(&g.twins, &text);
    if !g.young_edge.is_empty() {
        check(&g.young_edge[pick % g.young_edge.len()], &text);
    }
    if !g.twins_edge.is_empty() {
        check(&g.twins_edge[pick % g.twins_edge.len()], &text);
    }
});
