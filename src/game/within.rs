//! What the games whose stones move share in the fixpoint's hooks
//! (`Game::children_within`, `Game::for_each_parent_within`): a position's children or
//! parents within its own layer, each entry once, or weighed by the moves they stand for.

/// Distinct ranks among `ranks`, each passed to `f` once, in rank order; returns how many.
/// A position's children or parents within its layer are reported once each, though two
/// moves may reach one position (Quixo's pushes) or one orbit (a folded layer).
pub(crate) fn each_distinct(ranks: &mut [u64], mut f: impl FnMut(u64)) -> usize {
    ranks.sort_unstable();
    let mut n = 0;
    for i in 0..ranks.len() {
        if i == 0 || ranks[i] != ranks[i - 1] {
            f(ranks[i]);
            n += 1;
        }
    }
    n
}

/// A position's parents within its layer, for a game whose `children_within` counts moves
/// (`Game::for_each_parent_within`): `parents` holds, for every move undone, the parent's
/// rank and how many symmetries fix the parent (`weighed`); `fixed` is how many fix the
/// position itself. The parents go to `f` with the number of their moves that lead into
/// this position's entry: the moves undone into it, times the parent's fixed count over
/// this position's (the moves from the orbit of one side onto the orbit of the other,
/// counted from either end, are one set). Where symmetries fix the position each parent
/// goes once, in rank order; where none does, once per move undone.
pub(crate) fn each_weighted(parents: &mut [u64], fixed: u32, mut f: impl FnMut(u64, u32)) {
    if fixed == 1 {
        // No symmetry fixes the position (most positions): each move undone carries its
        // parent's own weight, so a parent reached by two moves is told twice, which adds
        // up to the same, and needs neither the sort nor a division.
        for &key in parents.iter() {
            f(key >> 8, (key & 0xff) as u32);
        }
        return;
    }
    parents.sort_unstable();
    let mut i = 0;
    while i < parents.len() {
        let key = parents[i];
        let mut j = i + 1;
        while j < parents.len() && parents[j] == key {
            j += 1;
        }
        let (undone, theirs) = ((j - i) as u32, (key & 0xff) as u32);
        debug_assert_eq!(undone * theirs % fixed, 0, "moves between two orbits");
        f(key >> 8, undone * theirs / fixed);
        i = j;
    }
}

/// A parent's rank and fixed count (`Orbits::rank_fixed`) as one word for `each_weighted`:
/// sorting words is what a position's tells cost besides ranking.
#[inline]
pub(crate) fn weighed((rank, fixed): (u64, u32)) -> u64 {
    rank << 8 | fixed as u64
}
