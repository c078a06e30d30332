//! What a distributed build will cost, worked out without MPI (`retro plan`): per layer,
//! each rank's positions, the values it fetches from and serves to other ranks, its layer
//! buffers at their peak, the layer's bytes on disk, and a time estimate.

use crate::game::Game;
use crate::table::blocks;

use super::plan::{self, GRAIN, Marker};
use super::split;
use crate::sweep::CHUNK;

/// Slices longer than this are sampled rather than planned position by position.
const EXACT_LIMIT: u64 = 1 << 22;
/// Windows of `CHUNK` positions planned per sampled slice.
const WINDOWS: u64 = 4;

/// One layer's figures; per-rank figures are the largest over ranks.
#[derive(Debug, Clone, Default)]
pub struct LayerPlan {
    /// The layer.
    pub k: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Positions of the largest rank's slice.
    pub per_rank: u64,
    /// Values a rank fetches from other ranks and sends to them (largest rank).
    pub received: u64,
    /// Values a rank sends to others (largest rank).
    pub sent: u64,
    /// Bytes of layer buffers a rank holds at its peak while computing this layer.
    pub peak_bytes: u64,
    /// Bytes of the layer on disk (compact: at most this).
    pub disk_bytes: u64,
    /// Estimated seconds for the layer.
    pub seconds: f64,
    /// Whether the exchange figures are extrapolated from samples.
    pub sampled: bool,
}

/// Figures for building `game` on `ranks` ranks of `threads` threads each.
pub fn plan<G: Game>(
    game: &G,
    ranks: usize,
    threads: usize,
    width: u64,
    compact: bool,
    ns_per_position: f64,
    bytes_per_second: f64,
) -> Vec<LayerPlan> {
    let cells = game.cells();
    let mut layers = Vec::with_capacity(cells + 1);
    for k in (0..=cells).rev() {
        let n = game.layer_size(k);
        let slices: Vec<_> = (0..ranks).map(|r| split::slice(n, ranks, r)).collect();
        let per_rank = slices.iter().map(|s| s.end - s.start).max().unwrap_or(0);
        let disk_bytes = if compact {
            blocks::layer_bytes_bound(n, width)
        } else {
            n * width
        };
        let mut layer = LayerPlan {
            k,
            positions: n,
            per_rank,
            disk_bytes,
            peak_bytes: per_rank * width,
            ..LayerPlan::default()
        };
        if k < cells {
            game.prepare_layer(k);
            let next = game.layer_size(k + 1);
            let mut fetched = vec![0u64; ranks];
            let mut received = vec![0u64; ranks];
            let mut sent = vec![0u64; ranks];
            let mut served = vec![0u64; ranks];
            for (r, slice) in slices.iter().enumerate() {
                let len = slice.end - slice.start;
                let own = split::slice(next, ranks, r);
                let (spans, scale) = if len <= EXACT_LIMIT {
                    let (_, _, marks) = plan::plan_rank(game, k, ranks, r);
                    (plan::spans(&marks, next), 1.0)
                } else {
                    layer.sampled = true;
                    (
                        sampled_spans(game, k, slice, &own, next),
                        len as f64 / (WINDOWS * CHUNK as u64) as f64,
                    )
                };
                let mut pieces = Vec::new();
                for &(s, e) in &spans {
                    split::pieces(next, ranks, s, e, &mut pieces);
                }
                let scaled = |x: u64| ((x as f64 * scale) as u64).min(next);
                let mut per_owner = vec![0u64; ranks];
                for &(q, s, e) in &pieces {
                    per_owner[q] += e - s;
                }
                for (q, &c) in per_owner.iter().enumerate() {
                    let c = scaled(c);
                    fetched[r] += c;
                    served[q] += c;
                    if q != r {
                        received[r] += c;
                        sent[q] += c;
                    }
                }
                fetched[r] = fetched[r].min(next);
            }
            for r in 0..ranks {
                let own_next = {
                    let s = split::slice(next, ranks, r);
                    s.end - s.start
                };
                let own = slices[r].end - slices[r].start;
                let exchanging = (own_next + fetched[r] + served[r]) * width;
                let computing = (own_next + fetched[r] + own) * width;
                layer.peak_bytes = layer.peak_bytes.max(exchanging).max(computing);
            }
            layer.received = received.iter().copied().max().unwrap_or(0);
            layer.sent = sent.iter().copied().max().unwrap_or(0);
        }
        let moved = layer.received.max(layer.sent) * width;
        layer.seconds = per_rank as f64 * ns_per_position * 1e-9 / threads as f64
            + moved as f64 / bytes_per_second;
        layers.push(layer);
    }
    layers
}

/// The grains a rank fetches for `WINDOWS` windows of `CHUNK` positions spread over its
/// slice of layer `k` (`own` is its slice of layer k + 1, of `next` positions): a sparse
/// plan, since a whole-layer bitmap per rank and layer would cost more than the sample.
fn sampled_spans<G: Game>(
    game: &G,
    k: usize,
    slice: &std::ops::Range<u64>,
    own: &std::ops::Range<u64>,
    next: u64,
) -> Vec<plan::Span> {
    let step = (slice.end - slice.start) / WINDOWS;
    let mut marker = Marker::new(Vec::new());
    for w in 0..WINDOWS {
        game.visit_runs(k, slice.start + w * step, CHUNK, &mut marker);
    }
    let mut words = marker.finish();
    words.sort_unstable_by_key(|&(w, _)| w);
    let read = plan::read_in_place(own, next);
    let mut spans: Vec<plan::Span> = Vec::new();
    for (w, bits) in words {
        for bit in (0..64).filter(|b| bits >> b & 1 == 1) {
            let b = w as u64 * 64 + bit;
            if read.contains(&b) {
                continue;
            }
            let (s, e) = (b * GRAIN, ((b + 1) * GRAIN).min(next));
            match spans.last_mut() {
                Some(last) if last.1 >= s => last.1 = last.1.max(e),
                _ => spans.push((s, e)),
            }
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::random_board;

    #[test]
    fn one_rank_fetches_only_from_itself() -> crate::Result<()> {
        let spec = random_board("young", 5, 6, 1, 0)?;
        crate::with_game!(&spec, game => {
            let layers = plan(&game, 1, 1, 1, false, 1.0, 1e9);
            assert_eq!(layers.len(), 31);
            assert!(layers.iter().all(|l| l.received == 0 && l.sent == 0 && l.per_rank == l.positions));
        });
        // Twins 3 x 4 layers span several blocks, so two ranks exchange values.
        let spec = random_board("twins", 3, 4, 1, 0)?;
        crate::with_game!(&spec, game => {
            let two = plan(&game, 2, 1, 1, false, 1.0, 1e9);
            assert!(two.iter().any(|l| l.received > 0 && l.sent > 0));
            assert_eq!(two.iter().map(|l| l.disk_bytes).sum::<u64>(), game.total_positions());
        });
        Ok(())
    }
}
