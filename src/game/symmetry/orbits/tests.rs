//! The orbit ranking's own checks: dense ranks equal exactly on images, under both keys,
//! the direct tables against the lists, and the bit helpers against the plain ways.

use super::*;
use crate::game::symmetry::GridGroup;
use crate::game::two_colour;

/// Each rank of layer k counted `seen[r]` times, once a position of its orbit: the
/// counts are the orbits' sizes, and the cursor walks the ranks in order.
fn every_rank_is_one_orbit(orbits: &Orbits, k: usize, seen: &[u64], what: &str) {
    for (r, &count) in seen.iter().enumerate() {
        let (s, y, _) = orbits.unrank(k, r as u64);
        assert_eq!(count, orbits.orbit_size(s, y), "{what} r {r}");
    }
    if seen.is_empty() {
        return;
    }
    let (_, _, mut cursor) = orbits.unrank(k, 0);
    for r in 1..seen.len() as u64 {
        let (s, y) = orbits.advance(k, &mut cursor);
        let (s2, y2, _) = orbits.unrank(k, r);
        assert_eq!((s, y), (s2, y2), "{what} r {r}");
    }
}

/// Every position of small grids: the ranks are dense, equal exactly on images, and read
/// back to a position of the same orbit; the cursor walks the ranks in order.
#[test]
fn orbit_ranks_are_dense_and_equal_exactly_on_images() {
    for (rows, cols, group) in [
        (3, 3, GridGroup::Dihedral),
        (2, 3, GridGroup::Dihedral),
        (4, 4, GridGroup::Dihedral),
        (3, 4, GridGroup::Mirror),
    ] {
        let sym = GridSymmetries::grid(rows, cols, group);
        let cells = rows * cols;
        for fixed in [false, true] {
            let top = if cells > 12 { 6 } else { cells };
            let xs: Vec<Option<usize>> =
                (0..=top).map(|k| fixed.then_some(k.div_ceil(2))).collect();
            let orbits = Orbits::new(sym.clone(), xs.clone()).unwrap();
            for (k, &h) in xs.iter().enumerate() {
                let n = orbits.layer_size(k);
                let mut seen = vec![0u64; n as usize];
                for set in (0u64..1 << cells).filter(|s| s.count_ones() as usize == k) {
                    // Every subset of the set, as x's stones.
                    let subsets =
                        std::iter::successors(Some(set), |&x| (x != 0).then(|| (x - 1) & set));
                    for x in subsets {
                        if h.is_some_and(|h| x.count_ones() as usize != h) {
                            continue;
                        }
                        let r = orbits.rank(k, set, x);
                        assert!(r < n, "{rows}x{cols} layer {k}: rank {r} of {n}");
                        seen[r as usize] += 1;
                        for (s, y) in orbits.images(set, x) {
                            assert_eq!(orbits.rank(k, s, y), r);
                        }
                        let (s, y, _) = orbits.unrank(k, r);
                        assert!(orbits.images(set, x).contains(&(s, y)));
                    }
                }
                // Every rank is one orbit, and the orbit sizes add up to its positions.
                every_rank_is_one_orbit(&orbits, k, &seen, &format!("{rows}x{cols} k {k}"));
            }
        }
    }
}

/// Keyed on one side's stones: every (outer, inner) pair of small grids ranks densely,
/// equal exactly on images, with the sizes of the occupied key; the positions of one
/// outer set rank through its entry as one at a time; the cursor walks the ranks.
#[test]
fn outer_keyed_ranks_are_dense_and_equal_exactly_on_images() {
    for (rows, cols, group) in [
        (3, 3, GridGroup::Dihedral),
        (4, 4, GridGroup::Dihedral),
        (3, 4, GridGroup::Mirror),
    ] {
        let sym = GridSymmetries::grid(rows, cols, group);
        let cells = rows * cols;
        let specs: Vec<(usize, usize)> = (0..=4)
            .flat_map(|b| (0..=4).map(move |a| (b, a)))
            .filter(|&(b, a)| a + b <= cells.min(7))
            .collect();
        let orbits = Orbits::with_outer_layers(sym.clone(), specs.clone()).unwrap();
        let occupied =
            Orbits::with_layers(sym, specs.iter().map(|&(b, a)| (a + b, Some(a))).collect())
                .unwrap();
        for (i, &(b, a)) in specs.iter().enumerate() {
            let n = orbits.layer_size(i);
            assert_eq!(n, occupied.layer_size(i), "{rows}x{cols} ({b}, {a})");
            assert_eq!(orbits.occupied(i), a + b);
            let mut seen = vec![0u64; n as usize];
            let all = (1u64 << cells) - 1;
            for outer in (0u64..1 << cells).filter(|s| s.count_ones() as usize == b) {
                let entry = orbits.outer(i, outer);
                let free = all & !outer;
                let inners =
                    std::iter::successors(Some(free), |&x| (x != 0).then(|| (x - 1) & free));
                for inner in inners.filter(|x| x.count_ones() as usize == a) {
                    let (r, fixed) = orbits.rank_fixed(i, outer, inner);
                    assert_eq!(entry.rank_fixed(inner), (r, fixed));
                    assert!(r < n, "{rows}x{cols} ({b}, {a}): rank {r} of {n}");
                    seen[r as usize] += 1;
                    let images = orbits.images(outer, inner);
                    assert_eq!(fixed as usize * images.len(), orbits.symmetries().len());
                    for &(s, y) in &images {
                        assert_eq!(orbits.rank(i, s, y), r);
                    }
                    let (s, y, _) = orbits.unrank(i, r);
                    assert!(images.contains(&(s, y)), "{rows}x{cols} ({b}, {a}) r {r}");
                }
            }
            every_rank_is_one_orbit(&orbits, i, &seen, &format!("{rows}x{cols} ({b}, {a})"));
        }
    }
}

/// A special orbit ranks by its direct table as by its list: every position of layers
/// with special sets, both ways, on boards with 8 symmetries and with 4.
#[test]
fn direct_tables_rank_as_the_lists_do() {
    for (rows, cols, top) in [(4, 4, 16), (3, 4, 12), (3, 3, 9), (5, 5, 5)] {
        let sym = GridSymmetries::grid(rows, cols, GridGroup::Dihedral);
        let cells = rows * cols;
        let specs: Vec<(usize, Option<usize>)> = (0..=top).map(|k| (k, Some(k / 2))).collect();
        let direct = Orbits::with_layers(sym.clone(), specs.clone()).unwrap();
        let mut listed = Orbits::with_layers(sym, specs).unwrap();
        listed.direct_max = 0;
        for k in 0..=top {
            assert!(direct.keeps_direct(k) && !listed.keeps_direct(k));
            for set in (0u64..1 << cells).filter(|s| s.count_ones() as usize == k) {
                if direct.outer(k, set).is_plain() {
                    continue;
                }
                let subsets =
                    std::iter::successors(Some(set), |&x| (x != 0).then(|| (x - 1) & set));
                for x in subsets.filter(|x| x.count_ones() as usize == k / 2) {
                    assert_eq!(
                        direct.rank_fixed(k, set, x),
                        listed.rank_fixed(k, set, x),
                        "{rows}x{cols} k {k}"
                    );
                }
            }
        }
    }
}

/// The processor's `pdep` places bits as the software loop does, and the orbit found
/// from the last one found (`orbit_of`) is the binary search's, in rank order, at
/// random, and across two layers in turn.
#[test]
fn deposit_and_the_orbit_lookup_agree_with_the_plain_ways() {
    let mut rng = crate::random::SplitMix(7);
    for _ in 0..100_000 {
        let (bits, mask) = (rng.next_u64(), rng.next_u64() >> (rng.next_u64() % 64));
        assert_eq!(deposit(bits, mask), two_colour::spread(bits, mask));
    }
    let sym = GridSymmetries::grid(4, 4, GridGroup::Dihedral);
    let orbits = Orbits::new(sym, (0..=8).map(|k| Some(k / 2)).collect()).expect("4 x 4 folds");
    let plain = |layer: &Layer, r: u64| layer.offset.partition_point(|&s| s <= r) - 1;
    for k in [5, 6, 8] {
        let n = orbits.layer_size(k);
        let layer = orbits.layer(k);
        for r in (0..n).chain((0..n).map(|_| rng.next_u64() % n)) {
            assert_eq!(
                Orbits::orbit_of(layer, r),
                plain(layer, r),
                "k {k} rank {r}"
            );
            let other = orbits.layer(4);
            let s = r % orbits.layer_size(4);
            assert_eq!(Orbits::orbit_of(other, s), plain(other, s));
        }
    }
}

#[test]
fn a_square_has_eight_symmetries_a_rectangle_four_a_mirror_two() {
    assert_eq!(GridSymmetries::grid(5, 5, GridGroup::Dihedral).len(), 8);
    assert_eq!(GridSymmetries::grid(4, 5, GridGroup::Dihedral).len(), 4);
    assert_eq!(GridSymmetries::grid(6, 7, GridGroup::Mirror).len(), 2);
    // Standard Teeko's movement layer with x to move: 1,081,575 sets of 8 cells x 70
    // colourings, in 9,476,160 orbits (Burnside's count, checked against the tables).
    let orbits = Orbits::new(
        GridSymmetries::grid(5, 5, GridGroup::Dihedral),
        (0..=8usize).map(|k| Some(k.div_ceil(2))).collect(),
    )
    .unwrap();
    let k = 8;
    let n = orbits.layer_size(k);
    orbits.prepare(k);
    assert_eq!(orbits.layer(k).offset.last().copied(), Some(n));
    assert!(
        n * 8 >= 1_081_575 * 70 && n * 8 < 1_081_575 * 70 * 101 / 100,
        "{n}"
    );
}
