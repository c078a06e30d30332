//! Sanity checks of the brute-force oracles themselves, against the published samples, so a
//! failing crate test can be blamed on the crate rather than on its oracle.

use crate::common;

use common::brute::{Rng, twins_value, young_value};

fn young_sample() -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
    (
        vec![vec![2, 7, 3], vec![9, 1, 2]],
        vec![vec![3, 7, 2], vec![2, 3, 1]],
    )
}

#[test]
fn young_sample_is_2() {
    let (a, b) = young_sample();
    assert_eq!(young_value(2, 3, &a, &b, &[0, 0]), 2);
}

#[test]
fn young_full_board_is_0() {
    let (a, b) = young_sample();
    assert_eq!(young_value(2, 3, &a, &b, &[3, 3]), 0);
    let mut rng = Rng::new(7);
    let (a, b) = (rng.matrix(3, 4, 100_000), rng.matrix(3, 4, 100_000));
    assert_eq!(young_value(3, 4, &a, &b, &[4, 4, 4]), 0);
}

#[test]
fn young_sample_optimal_line() {
    // After the spec's first move (1,1) the second player is to move; the rest of the
    // optimal line scores first 9+1 = 10, second 7+2+1 = 10.
    let (a, b) = young_sample();
    assert_eq!(young_value(2, 3, &a, &b, &[1, 0]), 0);
}

#[test]
fn twins_sample1_is_15() {
    let vert = vec![vec![0, 15, 0], vec![0, 0, 25]];
    let horiz = vec![vec![20, 10], vec![0, 0], vec![25, 0]];
    assert_eq!(twins_value(3, 3, &vert, &horiz, &[0; 9]), 15);
}

#[test]
fn twins_sample2_is_72() {
    let vert = vec![vec![18, 22, 15], vec![11, 16, 17]];
    let horiz = vec![vec![4, 25], vec![22, 15], vec![10, 4]];
    assert_eq!(twins_value(3, 3, &vert, &horiz, &[0; 9]), 72);
}

#[test]
fn rng_is_deterministic_and_bounded() {
    let (mut x, mut y) = (Rng::new(42), Rng::new(42));
    for _ in 0..1000 {
        let v = x.below(10);
        assert_eq!(v, y.below(10));
        assert!(v < 10);
    }
}
