//! How every layer is cut between ranks: contiguous slices of whole blocks (the compact
//! encoding's `BLOCK`), so a rank's slice of a compact layer is whole blocks and each rank
//! encodes exactly the blocks a single process would. Every rank computes the same split,
//! so nothing about it is ever sent.

use std::ops::Range;

use crate::table::blocks::BLOCK;

/// Where part `part` of `parts` starts in a layer of `positions` (`part <= parts`).
fn boundary(positions: u64, parts: usize, part: usize) -> u64 {
    let blocks = positions.div_ceil(BLOCK as u64) as u128;
    let block = blocks * part as u128 / parts as u128;
    (block as u64).saturating_mul(BLOCK as u64).min(positions)
}

/// The positions rank `part` of `parts` owns in a layer of `positions`.
pub fn slice(positions: u64, parts: usize, part: usize) -> Range<u64> {
    boundary(positions, parts, part)..boundary(positions, parts, part + 1)
}

/// Where each of `parts` slices of a layer of `positions` starts, and where the last ends.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub fn bounds(positions: u64, parts: usize) -> Vec<u64> {
    (0..=parts).map(|p| boundary(positions, parts, p)).collect()
}

/// The rank owning position `pos` (`pos < positions`).
pub fn owner(positions: u64, parts: usize, pos: u64) -> usize {
    let blocks = positions.div_ceil(BLOCK as u64) as u128;
    let block = (pos / BLOCK as u64) as u128;
    // The first guess is within one of the answer; step to it.
    let mut p = ((block * parts as u128) / blocks.max(1)) as usize;
    p = p.min(parts - 1);
    while p + 1 < parts && boundary(positions, parts, p + 1) <= pos {
        p += 1;
    }
    while p > 0 && boundary(positions, parts, p) > pos {
        p -= 1;
    }
    p
}

/// Cut `start..end` at the slice boundaries: `(rank, start, end)` pieces in order.
pub fn pieces(
    positions: u64,
    parts: usize,
    start: u64,
    end: u64,
    out: &mut Vec<(usize, u64, u64)>,
) {
    let mut at = start;
    let mut p = owner(positions, parts, start);
    while at < end {
        let stop = boundary(positions, parts, p + 1).min(end);
        if stop > at {
            out.push((p, at, stop));
        }
        at = stop;
        p += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_tile_layers_in_blocks() {
        for positions in [
            0u64,
            1,
            5,
            4095,
            4096,
            4097,
            3 * 4096 + 7,
            1 << 20,
            123_456_789,
        ] {
            for parts in 1..=9 {
                let mut next = 0;
                for part in 0..parts {
                    let s = slice(positions, parts, part);
                    assert_eq!(s.start, next);
                    assert!(s.start.is_multiple_of(BLOCK as u64) && s.end >= s.start);
                    assert!(s.end.is_multiple_of(BLOCK as u64) || s.end == positions);
                    next = s.end;
                }
                assert_eq!(next, positions);
                for pos in (0..positions).step_by((positions as usize / 97).max(1)) {
                    let p = owner(positions, parts, pos);
                    assert!(
                        slice(positions, parts, p).contains(&pos),
                        "{positions} {parts} {pos}"
                    );
                }
            }
        }
    }

    #[test]
    fn pieces_follow_owners() {
        let (n, parts) = (10 * 4096 + 3, 4);
        let mut out = Vec::new();
        pieces(n, parts, 100, n, &mut out);
        assert_eq!(out.first().map(|p| p.1), Some(100));
        assert_eq!(out.last().map(|p| p.2), Some(n));
        for w in out.windows(2) {
            assert_eq!(w[0].2, w[1].1);
            assert!(w[0].0 < w[1].0);
        }
        for &(p, s, e) in &out {
            let own = slice(n, parts, p);
            assert!(own.start <= s && e <= own.end);
        }
    }
}
