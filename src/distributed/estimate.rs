//! What a distributed build will cost, worked out without MPI (`retro plan`): per layer,
//! each rank's positions, the values it fetches from and serves to other ranks, its layer
//! buffers at their peak, the layer's bytes on disk, and a time estimate.

use rayon::prelude::*;

use crate::game::Game;
use crate::solve::{Fixpoint, Worker, fixpoint_bytes};
use crate::table::blocks;

use super::plan::{self, GRAIN, Marker};
use super::split;
use crate::solve::sweep::CHUNK;

/// Slices longer than this are sampled rather than planned position by position.
const EXACT_LIMIT: u64 = 1 << 22;
/// Windows of `CHUNK` positions planned per sampled slice.
const WINDOWS: u64 = 4;
/// Entries past which a layer another worker than the sweep solves is not walked by the
/// plan (`plan`).
const PREPARE_LIMIT: u64 = 1 << 24;
/// Ranks sampled in a layer another worker than the sweep solves.
const RETROGRADE_SAMPLES: usize = 8;
/// Positions per sampled window of such a layer.
const RETROGRADE_WINDOW: usize = 1024;

/// One layer's figures; per-rank figures are the largest over ranks.
#[derive(Debug, Clone)]
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
    /// The share of the largest rank's chunks whose children are not all in its own
    /// slice of the next layer: the build computes them a second time, once their
    /// children are fetched (a layer where most are planned first instead, about the same
    /// cost).
    pub remote_share: f64,
    /// Estimated seconds for the layer.
    pub seconds: f64,
    /// Whether the exchange figures are extrapolated from samples.
    pub sampled: bool,
    /// The worker that solves the layer (`solve::worker`).
    pub worker: Worker,
    /// Updates a rank of a fixpoint layer sends to the owners of the parents of the
    /// positions it decides, at most (largest rank; 8 bytes each, as many received): every
    /// position counted as decided, a draw never is.
    pub told: u64,
    /// Whether the traffic is another layer's per entry (a layer too large to walk).
    pub sampled_from_other: bool,
}

/// What one position costs one thread of an MPI rank whose children it holds (one walk of
/// its moves), and what it costs on top of that where its chunk needs children from other
/// ranks (planned, or computed a first time, then computed through the fetched values), in
/// nanoseconds, for `retro plan`'s time estimate; by game, as measured (release `--features
/// mpi`, load average about 5 from other builds):
///
/// - young, `retro gen young 16x16 --seed 7`: rank 0's compute 8.91 s over 601.1 M positions
///   on one rank; on 2 ranks 300.5 M positions in 8.71 s, 40.9% of its chunks twice:
///   (8.71 s - 300.5 M x 14.8 ns) / (0.409 x 300.5 M).
/// - connect 6x4: 4.83 s over 159.6 M positions on one rank; on 2 ranks rank 0 computed
///   79.8 M positions in 6.39 s, 43.6% of its chunks twice.
/// - teeko, quixo and morris, solved in one process (their plan is on paper), per table
///   entry (an orbit, where they fold): the single-process solve on one thread, folded,
///   medians of 5 paired runs (standard Teeko: 4.60 s for 12,097,029 entries; quixo 4x4:
///   3.66 s for 5,398,083; both counting moves rather than children, `Game::children_within`; morris
///   `nine moving`, the moving phase of Nine Men's Morris: 4,199 s of CPU (user) on two
///   threads for 8,904,593,602 entries, 472 ns an entry, one run of 2,198 s on an
///   otherwise idle box).
/// - every other game (twins, mnk, and games from other crates): `retro gen twins 4x5 --seed
///   7`, 14.12 s over 741.4 M positions on one rank; on 2 ranks rank 0 planned 29.56 s and
///   computed 30.21 s over 370.7 M positions, 78.9% of its chunks needing fetched children:
///   (161.2 - 19.0) / 0.789. mnk is ranked the same way.
pub fn costs(game: &str) -> (f64, f64) {
    match game {
        "young" => (14.8, 34.7),
        "connect" => (30.3, 114.2),
        "teeko" => (380.0, 0.0),
        "quixo" => (678.0, 0.0),
        "morris" => (472.0, 0.0),
        _ => (19.0, 180.0),
    }
}

/// The most ranks `retro plan` describes: its work and output grow with the ranks, and an
/// MPI job beyond this is far past what it was checked against.
pub const MAX_RANKS: usize = 1 << 16;
/// Ranks planned per layer; beyond this, ranks spread evenly over the job are planned and
/// the rest extrapolated, so the work stays linear in the number of ranks.
const RANK_SAMPLES: usize = 64;

/// Figures for building `game` on `ranks` ranks of `threads` threads each. The work is
/// linear in the ranks and in the positions planned: each sampled rank's fetches come
/// from a sparse list of marked grains, never a bitmap of the whole next layer. The time
/// takes the nanoseconds a position costs one thread, and what one costs on top of that
/// where its chunk needs fetched children (`costs`).
pub fn plan<G: Game>(
    game: &G,
    ranks: usize,
    threads: usize,
    width: u64,
    compact: bool,
    (ns_per_position, ns_per_fetched_position): (f64, f64),
    bytes_per_second: f64,
) -> Vec<LayerPlan> {
    let cells = game.last_layer();
    let mut layers = Vec::with_capacity(cells + 1);
    // Retrograde layers too large to walk, by index in `layers`.
    let mut unwalked: Vec<usize> = Vec::new();
    // The ranks planned: all of them, or RANK_SAMPLES spread from the first to the last.
    let planned: Vec<usize> = if ranks <= RANK_SAMPLES {
        (0..ranks).collect()
    } else {
        (0..RANK_SAMPLES)
            .map(|i| i * (ranks - 1) / (RANK_SAMPLES - 1))
            .collect()
    };
    // With every rank planned, what each rank serves is summed exactly; with a sample, a
    // rank is taken to serve as much as it fetches (the slices are alike).
    let all_planned = planned.len() == ranks;
    // A sample of ranks walks proportionately less of each slice, so that the work per
    // layer does not grow with the ranks.
    let exact_limit =
        (EXACT_LIMIT * planned.len() as u64 / ranks as u64).max(WINDOWS * CHUNK as u64);
    for k in (0..=cells).rev() {
        let n = game.layer_size(k);
        let size = |r: usize| {
            let s = split::slice(n, ranks, r);
            s.end - s.start
        };
        // Slices differ by at most a block, and the first ones are the largest.
        let per_rank = size(0).max(size(ranks - 1));
        let disk_bytes = if compact {
            blocks::layer_bytes_bound(n, width)
        } else {
            n.saturating_mul(width)
        };
        let worker = crate::solve::worker(game, k);
        let mut layer = LayerPlan {
            k,
            positions: n,
            per_rank,
            received: 0,
            sent: 0,
            disk_bytes,
            peak_bytes: per_rank * width,
            remote_share: 0.0,
            seconds: 0.0,
            sampled: planned.len() < ranks,
            worker,
            told: 0,
            sampled_from_other: false,
        };
        if worker != Worker::Sweep {
            // A layer of a game whose stones move: each rank holds its share of the layer's
            // values (and of the fixpoint's words and candidates) and of every layer its
            // moves lead to, fetches the children its slice reads in other ranks' slices,
            // and (a fixpoint) tells the parents other ranks own of each position it decides.
            // A game that stores halved codes (`Game::halved_values`) writes a byte a
            // position, and on one process reads finished layers mapped from the file at
            // that width (`solve::peak_bytes`); ranks hold them as computed.
            let stored = match game.values().for_side_to_move() && game.halved_values() {
                true => 1,
                false => width,
            };
            layer.disk_bytes = if compact {
                blocks::layer_bytes_bound(n, stored)
            } else {
                n.saturating_mul(stored)
            };
            let held_width = if ranks == 1 { stored } else { width };
            let read: u64 = game
                .child_layers(k)
                .into_iter()
                .filter(|&c| c != k && c <= cells)
                .map(|c| {
                    let share = split::slice(game.layer_size(c), ranks, 0);
                    (share.end - share.start) * held_width
                        + plan::words(game.layer_size(c)) as u64 * 8 * (ranks > 1) as u64
                })
                .sum();
            let own = match worker {
                // Ranks take the counters worker (`solve::fixpoint_layer`), and so does one
                // process where memory is planned to suffice.
                Worker::Fixpoint => {
                    fixpoint_bytes(per_rank.into(), width.into(), Fixpoint::Counters) as u64
                }
                _ => per_rank * width,
            };
            // A folded layer past `PREPARE_LIMIT` entries is not walked (preparing it
            // builds its orbit tables, minutes for Quixo 5 x 5's largest): its traffic is
            // the per-entry traffic of the largest layer walked, below.
            let walk = ranks > 1 && (n <= PREPARE_LIMIT || game.symmetries() <= 1);
            if walk {
                game.prepare_layer(k);
            } else if ranks > 1 {
                layer.sampled = true;
                unwalked.push(layers.len());
            }
            // Ranks' slices of such a layer are alike: a few ranks, and short windows of a
            // large slice, stand for the rest (ranking a folded game's children and
            // parents is what such a plan spends its time on).
            let sampled: Vec<usize> = match planned.len() > RETROGRADE_SAMPLES {
                true => (0..RETROGRADE_SAMPLES)
                    .map(|i| planned[i * (planned.len() - 1) / (RETROGRADE_SAMPLES - 1)])
                    .collect(),
                false => planned.clone(),
            };
            for &r in sampled.iter().filter(|_| walk) {
                let slice = split::slice(n, ranks, r);
                let len = slice.end - slice.start;
                let (windows, scale): (Vec<(u64, usize)>, f64) = if len <= exact_limit {
                    let chunks = len.div_ceil(CHUNK as u64);
                    let w = (0..chunks)
                        .map(|c| {
                            let start = slice.start + c * CHUNK as u64;
                            (start, (slice.end - start).min(CHUNK as u64) as usize)
                        })
                        .collect();
                    (w, 1.0)
                } else {
                    layer.sampled = true;
                    let step = len / WINDOWS;
                    let w = (0..WINDOWS)
                        .map(|i| (slice.start + i * step, RETROGRADE_WINDOW))
                        .collect();
                    (w, len as f64 / (WINDOWS * RETROGRADE_WINDOW as u64) as f64)
                };
                let (fetched, told) = retrograde_traffic(game, k, ranks, r, &windows);
                let fetched = (fetched as f64 * scale) as u64;
                layer.received = layer.received.max(fetched);
                layer.told = layer.told.max((told as f64 * scale) as u64);
            }
            // Ranks are alike: each serves about what it fetches, and receives about as
            // many updates as it sends.
            layer.sent = layer.received;
            layer.peak_bytes = own + read;
            layer.seconds = per_rank as f64 * ns_per_position * 1e-9 / threads as f64;
            retrograde_traffic_figures(&mut layer, width, bytes_per_second);
            layers.push(layer);
            continue;
        }
        if k < cells {
            game.prepare_layer(k);
            let next = game.layer_size(k + 1);
            let mut fetched = vec![0u64; planned.len()];
            let mut received = vec![0u64; planned.len()];
            // Sent and served by each owner, from the planned ranks only (sparse).
            let mut sent = std::collections::HashMap::<usize, u64>::new();
            let mut served = std::collections::HashMap::<usize, u64>::new();
            for (i, &r) in planned.iter().enumerate() {
                let slice = split::slice(n, ranks, r);
                let len = slice.end - slice.start;
                let own = split::slice(next, ranks, r);
                let chunks = len.div_ceil(CHUNK as u64);
                let (spans, remote, scale) =
                    if len <= exact_limit && plan::words(next) as u64 <= len {
                        // A whole-layer bitmap costs no more than the walk: the build's own plan.
                        let (_, own, marks) = plan::plan_rank(game, k, ranks, r);
                        let remote = plan::plan_chunks(
                            game,
                            k,
                            slice.clone(),
                            CHUNK,
                            own,
                            &plan::blank_marks(next),
                        );
                        (
                            plan::spans(&marks, next),
                            remote as f64 / chunks.max(1) as f64,
                            1.0,
                        )
                    } else if len <= exact_limit {
                        let windows = (0..chunks).map(|c| {
                            let start = slice.start + c * CHUNK as u64;
                            (start, (slice.end - start).min(CHUNK as u64) as usize)
                        });
                        let (spans, remote) = fetched_spans(game, k, windows, &own, next);
                        (spans, remote as f64 / chunks.max(1) as f64, 1.0)
                    } else {
                        layer.sampled = true;
                        let step = len / WINDOWS;
                        let windows = (0..WINDOWS).map(|w| (slice.start + w * step, CHUNK));
                        let (spans, remote) = fetched_spans(game, k, windows, &own, next);
                        (
                            spans,
                            remote as f64 / WINDOWS as f64,
                            len as f64 / (WINDOWS * CHUNK as u64) as f64,
                        )
                    };
                layer.remote_share = layer.remote_share.max(remote);
                let mut pieces = Vec::new();
                for &(s, e) in &spans {
                    split::pieces(next, ranks, s, e, &mut pieces);
                }
                let scaled = |x: u64| ((x as f64 * scale) as u64).min(next);
                let mut per_owner = std::collections::BTreeMap::<usize, u64>::new();
                for &(q, s, e) in &pieces {
                    *per_owner.entry(q).or_default() += e - s;
                }
                for (q, c) in per_owner {
                    let c = scaled(c);
                    fetched[i] += c;
                    *served.entry(q).or_default() += c;
                    if q != r {
                        received[i] += c;
                        *sent.entry(q).or_default() += c;
                    }
                }
                fetched[i] = fetched[i].min(next);
            }
            for (i, &r) in planned.iter().enumerate() {
                let own_next = {
                    let s = split::slice(next, ranks, r);
                    s.end - s.start
                };
                let own = size(r);
                let served = if all_planned {
                    served.get(&r).copied().unwrap_or(0)
                } else {
                    fetched[i]
                };
                let exchanging = (own_next + fetched[i] + served) * width;
                let computing = (own_next + fetched[i] + own) * width;
                layer.peak_bytes = layer.peak_bytes.max(exchanging).max(computing);
            }
            layer.received = received.iter().copied().max().unwrap_or(0);
            layer.sent = if all_planned {
                sent.values().copied().max().unwrap_or(0)
            } else {
                layer.received
            };
        }
        let moved = layer.received.max(layer.sent) * width;
        // A chunk whose children are all at hand is computed once; the others cost more
        // (computed again through the fetched values, or planned first).
        let ns = ns_per_position + ns_per_fetched_position * layer.remote_share;
        layer.seconds =
            per_rank as f64 * ns * 1e-9 / threads as f64 + moved as f64 / bytes_per_second;
        layers.push(layer);
    }
    // The layers not walked take the per-entry traffic of the largest walked layer of
    // their worker.
    for i in unwalked {
        let worker = layers[i].worker;
        let like = layers
            .iter()
            .enumerate()
            .filter(|(j, l)| {
                l.worker == worker && l.per_rank > 0 && !l.sampled_from_other && *j != i
            })
            .filter(|(_, l)| l.positions <= PREPARE_LIMIT)
            .max_by_key(|(_, l)| l.positions)
            .map(|(_, l)| {
                (
                    l.received as f64 / l.per_rank as f64,
                    l.told as f64 / l.per_rank as f64,
                )
            });
        if let Some((values, told)) = like {
            let l = &mut layers[i];
            l.received = ((values * l.per_rank as f64) as u64).min(l.positions);
            l.sent = l.received;
            l.told = (told * l.per_rank as f64) as u64;
            l.sampled_from_other = true;
            retrograde_traffic_figures(l, width, bytes_per_second);
        }
    }
    layers
}

/// A retrograde layer's memory and time with its traffic: the fetched values are held
/// while the layer is solved, and both the values and the updates take wire time.
fn retrograde_traffic_figures(layer: &mut LayerPlan, width: u64, bytes_per_second: f64) {
    layer.peak_bytes += layer.received * width;
    let moved = layer.received * width + layer.told * 8;
    layer.seconds += moved as f64 / bytes_per_second;
}

/// What rank `r` of `ranks` exchanges for the positions of layer `k` (a layer another
/// worker than the sweep solves) in `windows` (start, length): the values of the children
/// outside the layer that lie in other ranks' slices (whole grains, each counted once), and
/// the parents within the layer other ranks own (a fixpoint's updates, counted as though
/// every position were decided).
fn retrograde_traffic<G: Game>(
    game: &G,
    k: usize,
    ranks: usize,
    r: usize,
    windows: &[(u64, usize)],
) -> (u64, u64) {
    let n = game.layer_size(k);
    let own = split::slice(n, ranks, r);
    let fixpoint = crate::solve::worker(game, k) == Worker::Fixpoint;
    let sizes: Vec<u64> = (0..=game.last_layer())
        .map(|j| game.layer_size(j))
        .collect();
    let owned: Vec<std::ops::Range<u64>> =
        sizes.iter().map(|&m| split::slice(m, ranks, r)).collect();
    let found: Vec<(Vec<(usize, u64)>, u64)> = windows
        .par_iter()
        .map(|&(start, len)| {
            let mut grains = Vec::new();
            let mut told = 0u64;
            let mut pos = game.unrank(k, start);
            for i in 0..len {
                if i > 0 {
                    game.advance(&mut pos);
                }
                if game.ended(&pos).is_some() {
                    continue;
                }
                game.for_each_child_outside(&pos, |e| {
                    if !owned.get(e.layer).is_some_and(|o| o.contains(&e.rank)) {
                        grains.push((e.layer, e.rank / GRAIN));
                    }
                });
                if fixpoint {
                    game.for_each_parent_within(&pos, |q, _| told += !own.contains(&q) as u64);
                }
            }
            (grains, told)
        })
        .collect();
    let told = found.iter().map(|f| f.1).sum();
    let mut grains: Vec<(usize, u64)> = found.into_iter().flat_map(|f| f.0).collect();
    grains.par_sort_unstable();
    grains.dedup();
    let values = grains
        .iter()
        .map(|&(j, g)| (g * GRAIN + GRAIN).min(sizes[j]) - g * GRAIN)
        .sum();
    (values, told)
}

/// The grains a rank fetches (outside what it reads in place from `own`, its slice of
/// layer k + 1 of `next` positions) for the children of the positions of layer `k` in
/// `windows` (start, length): marked sparsely, then sorted and merged into spans. Also
/// how many windows have a child outside `own`.
fn fetched_spans<G: Game>(
    game: &G,
    k: usize,
    windows: impl Iterator<Item = (u64, usize)>,
    own: &std::ops::Range<u64>,
    next: u64,
) -> (Vec<plan::Span>, usize) {
    let windows: Vec<(u64, usize)> = windows.collect();
    let marked: Vec<(Vec<(usize, u64)>, bool)> = windows
        .par_iter()
        .map(|&(start, len)| {
            let mut marker = Marker::watching(Vec::new(), own.clone());
            game.visit_runs(k, start, len, &mut marker);
            let remote = marker.remote();
            (marker.finish(), remote)
        })
        .collect();
    let remote = marked.iter().filter(|m| m.1).count();
    let mut words: Vec<(usize, u64)> = marked.into_iter().flat_map(|m| m.0).collect();
    words.par_sort_unstable_by_key(|&(w, _)| w);
    // A word may be marked by several windows: join them before reading bits in order.
    words.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 |= later.1;
        }
        same
    });
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
                Some(last) if last.1 == s => last.1 = e,
                _ => spans.push((s, e)),
            }
        }
    }
    (spans, remote)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Connect, Game, Mnk, Registered, Twins, Young};
    use crate::testing::random_game;

    /// The sparse marks give exactly the spans the bitmap plan of an MPI build fetches.
    #[test]
    fn sparse_spans_equal_the_build_plan() -> crate::error::Result<()> {
        sparse_spans_equal_the_plan(&random_game::<Young>(4, 5, 1, 0)?);
        sparse_spans_equal_the_plan(&random_game::<Twins>(3, 4, 1, 0)?);
        sparse_spans_equal_the_plan(&random_game::<Mnk>(3, 3, 1, 0)?);
        sparse_spans_equal_the_plan(&random_game::<Connect>(4, 3, 1, 0)?);
        Ok(())
    }

    fn sparse_spans_equal_the_plan<G: Registered>(g: &G) {
        let game = G::NAME;
        {
            {
                for ranks in [1, 2, 3, 7] {
                    for k in 0..g.last_layer() {
                        g.prepare_layer(k);
                        let next = g.layer_size(k + 1);
                        for r in 0..ranks {
                            let (slice, own, marks) = plan::plan_rank(g, k, ranks, r);
                            let windows = (slice.start..slice.end)
                                .step_by(CHUNK)
                                .map(|s| (s, (slice.end - s).min(CHUNK as u64) as usize));
                            assert_eq!(
                                fetched_spans(g, k, windows, &own, next).0,
                                plan::spans(&marks, next),
                                "{game} layer {k}, rank {r} of {ranks}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn many_ranks_are_planned_from_a_sample() -> crate::error::Result<()> {
        let g: Twins = random_game(3, 4, 1, 0)?;
        let layers = plan(&g, MAX_RANKS, 1, 1, false, (1.0, 2.0), 1e9);
        assert!(layers.iter().all(|l| l.sampled));
        assert_eq!(
            layers.iter().map(|l| l.disk_bytes).sum::<u64>(),
            g.total_positions()
        );
        Ok(())
    }

    #[test]
    fn one_rank_fetches_only_from_itself() -> crate::error::Result<()> {
        let game: Young = random_game(5, 6, 1, 0)?;
        let layers = plan(&game, 1, 1, 1, false, (1.0, 2.0), 1e9);
        assert_eq!(layers.len(), 31);
        assert!(
            layers
                .iter()
                .all(|l| l.received == 0 && l.sent == 0 && l.per_rank == l.positions)
        );
        // Twins 3 x 4 layers span several blocks, so two ranks exchange values.
        let game: Twins = random_game(3, 4, 1, 0)?;
        let two = plan(&game, 2, 1, 1, false, (1.0, 2.0), 1e9);
        assert!(two.iter().any(|l| l.received > 0 && l.sent > 0));
        assert_eq!(
            two.iter().map(|l| l.disk_bytes).sum::<u64>(),
            game.total_positions()
        );
        Ok(())
    }
}
