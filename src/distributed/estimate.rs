//! What a distributed build will cost, worked out without MPI (`retro plan`): per layer,
//! each rank's positions, the values it fetches from and serves to other ranks, its layer
//! buffers at their peak, the layer's bytes on disk, and a time estimate.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::build::footprint::NS_PER_DISK_BYTE;
pub use crate::build::footprint::{Costs, costs};
use crate::game::Game;
use crate::solve::{Fixpoint, Worker, fixpoint_bytes};
use crate::table::blocks;

use super::plan::{self, GRAIN, Marker};
use super::split;
use crate::solve::sweep::CHUNK;

/// Windows planned per sampled slice, at most.
const WINDOWS: u64 = 4;
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
    /// Estimated seconds for the layer: its CPU seconds over the rank's threads, and the
    /// wire time of its traffic.
    pub seconds: f64,
    /// CPU seconds the largest rank spends on the layer, all its threads together.
    pub cpu_seconds: f64,
    /// Whether the exchange figures are extrapolated from samples.
    pub sampled: bool,
    /// The worker that solves the layer (`solve::worker`).
    pub worker: Worker,
    /// Updates a rank of a fixpoint layer sends to the owners of the parents of the
    /// positions it decides, at most (largest rank; as many received; delta-coded on the
    /// wire, `told_bytes`): every position counted as decided, a draw never is, and every
    /// tell as sent alone, where the build merges a level's tells to one parent (`codec`).
    pub told: u64,
    /// Whether the traffic is another layer's per entry (a layer too large to walk).
    pub sampled_from_other: bool,
    /// Whether the plan walked some of the layer's positions (a retrograde layer whose
    /// ranking tables were cheap enough to build), rather than borrowing another's figures.
    pub walked: bool,
}

impl LayerPlan {
    /// Bytes of `told` on the wire: sorted and delta-coded (`codec`), a varint gap over the
    /// rank's slice and a byte each.
    pub fn told_bytes(&self) -> u64 {
        (self.told as f64 * super::codec::bytes_per_tell(self.per_rank, self.told)) as u64
    }
}

/// The most ranks `retro plan` describes: its work and output grow with the ranks, and an
/// MPI job beyond this is far past what it was checked against.
pub const MAX_RANKS: usize = 1 << 16;
/// Ranks planned per layer at most; beyond this, ranks spread evenly over the job are
/// planned and the rest extrapolated.
const RANK_SAMPLES: usize = 32;
/// Positions the plan walks over all the sweep's layers together, at most (a few seconds
/// of one thread): a layer's share is walked whole where a
/// planned rank's slices fit in it, else sampled in windows of a chunk, over as many ranks
/// as the share allows, so that a plan answers in seconds at any rank count.
const SAMPLE_BUDGET: u64 = 1 << 25;
/// Bytes of ranking tables a layer another worker than the sweep solves may need built
/// (its own and those of the layers it reads) for the plan to walk a few of its positions;
/// past it, or past `TABLES_BUDGET` built in all, the layer takes the traffic per entry of
/// the layers walked (building Quixo 5 x 5's tables takes gigabytes and minutes, and
/// building a table costs far more than its bytes where most of its sets are special).
const WALK_TABLES: u64 = 4 << 20;
/// Bytes of ranking tables the plan builds in all, at most.
const TABLES_BUDGET: u64 = 24 << 20;

/// Figures for building `game` on `ranks` ranks of `threads` threads each. The work is
/// bounded whatever the ranks and the board (`SAMPLE_BUDGET`, `WALK_TABLES`): each sampled
/// rank's fetches come from a sparse list of marked grains, never a bitmap of the whole
/// next layer. The time takes what an entry costs one thread (`Costs`).
pub fn plan<G: Game>(
    game: &G,
    ranks: usize,
    threads: usize,
    width: u64,
    compact: bool,
    costs: Costs,
    bytes_per_second: f64,
) -> Vec<LayerPlan> {
    let cells = game.last_layer();
    let budget = SAMPLE_BUDGET / cells.max(1) as u64;
    let mut tables = 0u64;
    let mut layers = Vec::with_capacity(cells + 1);
    for k in (0..=cells).rev() {
        let mut layer = blank_layer(game, k, ranks, width, compact);
        if layer.worker != Worker::Sweep {
            plan_retrograde(game, &mut layer, (ranks, width, compact), &mut tables);
        } else if k < cells {
            plan_sweep(game, &mut layer, (ranks, width, budget), &mut tables);
        }
        layers.push(layer);
    }
    borrow_traffic(&mut layers, width);
    let trace = std::env::var_os("RETRO_TRACE").is_some();
    for layer in &mut layers {
        if trace {
            eprintln!(
                "plan: layer {}: {} values fetched, {} tells in {} bytes by the largest rank",
                layer.k,
                layer.received,
                layer.told,
                layer.told_bytes()
            );
        }
        time_layer(
            game,
            layer,
            costs,
            (ranks, threads),
            width,
            bytes_per_second,
        );
    }
    layers
}

/// The ranks planned for a layer when `most` may be: all of them, or `most` spread from
/// the first to the last.
fn spread(ranks: usize, most: usize) -> Vec<usize> {
    let most = most.clamp(1, ranks);
    match most {
        _ if most >= ranks => (0..ranks).collect(),
        1 => vec![0],
        _ => (0..most).map(|i| i * (ranks - 1) / (most - 1)).collect(),
    }
}

/// Layer `k`'s sizes, disk bytes and worker, before any walk: a rank holds its slice's
/// values.
fn blank_layer<G: Game>(game: &G, k: usize, ranks: usize, width: u64, compact: bool) -> LayerPlan {
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
    LayerPlan {
        k,
        positions: n,
        per_rank,
        received: 0,
        sent: 0,
        disk_bytes,
        peak_bytes: per_rank * width,
        remote_share: 0.0,
        seconds: 0.0,
        cpu_seconds: 0.0,
        sampled: false,
        worker: crate::solve::worker(game, k),
        told: 0,
        sampled_from_other: false,
        walked: false,
    }
}

/// A layer of a game whose stones move: each rank holds its share of the layer's values (and
/// of the fixpoint's words and candidates) and of every layer its moves lead to, fetches the
/// children its slice reads in other ranks' slices, and (a fixpoint) tells the parents other
/// ranks own of each position it decides. A game that stores halved codes
/// (`Game::halved_values`) writes a byte a position, and on one process reads finished
/// layers mapped from the file at that width (`solve::peak_bytes`); ranks hold them as
/// computed. `tables`: the ranking tables the plan has had built so far.
fn plan_retrograde<G: Game>(
    game: &G,
    layer: &mut LayerPlan,
    (ranks, width, compact): (usize, u64, bool),
    tables: &mut u64,
) {
    let (k, n, cells) = (layer.k, layer.positions, game.last_layer());
    let stored = match game.values().for_side_to_move() && game.halved_values() {
        true => 1,
        false => width,
    };
    layer.disk_bytes = match compact {
        true => blocks::layer_bytes_bound(n, stored),
        false => n.saturating_mul(stored),
    };
    let held_width = if ranks == 1 { stored } else { width };
    let outside: Vec<usize> = game
        .child_layers(k)
        .into_iter()
        .filter(|&c| c != k && c <= cells)
        .collect();
    let read: u64 = outside
        .iter()
        .map(|&c| {
            let share = split::slice(game.layer_size(c), ranks, 0);
            (share.end - share.start) * held_width
                + plan::words(game.layer_size(c)) as u64 * 8 * (ranks > 1) as u64
        })
        .sum();
    let own = match layer.worker {
        // Ranks take the counters worker (`solve::fixpoint_layer`), and so does one
        // process where memory is planned to suffice.
        Worker::Fixpoint => {
            fixpoint_bytes(layer.per_rank.into(), width.into(), Fixpoint::Counters) as u64
        }
        _ => layer.per_rank * width,
    };
    layer.peak_bytes = own + read;
    if ranks == 1 {
        return;
    }
    // Walked only where the ranking tables the walk needs are cheap to build: the layer's
    // and those of the layers its children lie in.
    let needed: u64 = std::iter::once(k)
        .chain(outside)
        .map(|j| game.unbuilt_table_bytes(j))
        .sum();
    layer.sampled = true;
    if needed > WALK_TABLES || *tables + needed > TABLES_BUDGET {
        return;
    }
    *tables += needed;
    game.prepare_layer(k);
    layer.walked = true;
    // Ranks' slices of such a layer are alike: a few ranks, and short windows of a large
    // slice, stand for the rest (ranking a folded game's children and parents is what
    // such a plan spends its time on).
    for r in spread(ranks, RETROGRADE_SAMPLES) {
        let slice = split::slice(n, ranks, r);
        let len = slice.end - slice.start;
        let (windows, scale): (Vec<(u64, usize)>, f64) =
            if len <= WINDOWS * RETROGRADE_WINDOW as u64 {
                (vec![(slice.start, len as usize)], 1.0)
            } else {
                let step = len / WINDOWS;
                let w = (0..WINDOWS)
                    .map(|i| (slice.start + i * step, RETROGRADE_WINDOW))
                    .collect();
                (w, len as f64 / (WINDOWS * RETROGRADE_WINDOW as u64) as f64)
            };
        let (fetched, told) = retrograde_traffic(game, k, ranks, r, &windows, scale);
        layer.received = layer.received.max(fetched);
        layer.told = layer.told.max((told as f64 * scale) as u64);
    }
    // Ranks are alike: each serves about what it fetches, and receives about as many
    // updates as it sends.
    layer.sent = layer.received;
}

/// What one rank's slice of a sweep layer `k < cells` exchanges for its children in layer
/// k + 1, and its buffers at their peak: walked whole, or sampled in windows of a chunk,
/// within `budget` positions.
fn plan_sweep<G: Game>(
    game: &G,
    layer: &mut LayerPlan,
    (ranks, width, budget): (usize, u64, u64),
    tables: &mut u64,
) {
    let k = layer.k;
    let (n, next) = (layer.positions, game.layer_size(k + 1));
    // A rank holds its slice of both layers; one rank fetches nothing.
    layer.peak_bytes = (layer.per_rank + split::slice(next, ranks, 0).end) * width;
    if ranks == 1 {
        return;
    }
    // Walked only where the ranking tables of both layers are cheap to build (a folded
    // mnk board's); else the layer borrows a walked layer's figures (`borrow_traffic`).
    let needed = game.unbuilt_table_bytes(k) + game.unbuilt_table_bytes(k + 1);
    layer.sampled = true;
    if needed > WALK_TABLES || *tables + needed > TABLES_BUDGET {
        return;
    }
    *tables += needed;
    game.prepare_layer(k);
    layer.walked = true;
    let chunks_allowed = (budget / CHUNK as u64).max(2) as usize;
    let planned = spread(ranks, RANK_SAMPLES.min(chunks_allowed));
    // With every rank planned, what each rank serves is summed exactly; with a sample, a
    // rank is taken to serve as much as it fetches (the slices are alike).
    let all_planned = planned.len() == ranks;
    layer.sampled = !all_planned;
    let windows = (chunks_allowed / planned.len()).clamp(1, WINDOWS as usize) as u64;
    let mut fetched = vec![0u64; planned.len()];
    let mut received = vec![0u64; planned.len()];
    // Sent and served by each owner, from the planned ranks only (sparse).
    let mut sent = HashMap::<usize, u64>::new();
    let mut served = HashMap::<usize, u64>::new();
    for (i, &r) in planned.iter().enumerate() {
        let slice = split::slice(n, ranks, r);
        let exact = (slice.end - slice.start) * planned.len() as u64 <= budget;
        let (spans, remote, scale) = rank_spans(game, k, ranks, r, exact, windows);
        layer.sampled |= !exact;
        layer.remote_share = layer.remote_share.max(remote);
        let mut pieces = Vec::new();
        for &(s, e) in &spans {
            split::pieces(next, ranks, s, e, &mut pieces);
        }
        let mut per_owner = std::collections::BTreeMap::<usize, u64>::new();
        for &(q, s, e) in &pieces {
            *per_owner.entry(q).or_default() += e - s;
        }
        for (q, c) in per_owner {
            // What a sample fetched of one owner's slice, spread over the whole slice as
            // `fetched_grains` spreads a fixpoint's (in positions: whole grains either way).
            let theirs = split::slice(next, ranks, q);
            let c = match exact {
                true => c,
                false => fetched_grains(c as f64, scale, (theirs.end - theirs.start) as f64) as u64,
            };
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
        let own = {
            let s = split::slice(n, ranks, r);
            s.end - s.start
        };
        let served = match all_planned {
            true => served.get(&r).copied().unwrap_or(0),
            false => fetched[i],
        };
        let exchanging = (own_next + fetched[i] + served) * width;
        let computing = (own_next + fetched[i] + own) * width;
        layer.peak_bytes = layer.peak_bytes.max(exchanging).max(computing);
    }
    layer.received = received.iter().copied().max().unwrap_or(0);
    layer.sent = match all_planned {
        true => sent.values().copied().max().unwrap_or(0),
        false => layer.received,
    };
}

/// The spans of layer k + 1 rank `r` fetches for its slice of sweep layer `k`, the share
/// of its chunks that need them, and the factor that scales a sample to the slice: every
/// chunk where `exact`, else `windows` chunks spread over the slice.
fn rank_spans<G: Game>(
    game: &G,
    k: usize,
    ranks: usize,
    r: usize,
    exact: bool,
    windows: u64,
) -> (Vec<plan::Span>, f64, f64) {
    let (n, next) = (game.layer_size(k), game.layer_size(k + 1));
    let slice = split::slice(n, ranks, r);
    let len = slice.end - slice.start;
    let own = split::slice(next, ranks, r);
    let chunks = len.div_ceil(CHUNK as u64);
    if exact && plan::words(next) as u64 <= len {
        // A whole-layer bitmap costs no more than the walk: the build's own plan.
        let (_, own, marks) = plan::plan_rank(game, k, ranks, r);
        let remote = plan::plan_chunks(game, k, slice, CHUNK, own, &plan::blank_marks(next));
        let share = remote as f64 / chunks.max(1) as f64;
        return (plan::spans(&marks, next), share, 1.0);
    }
    if exact || chunks <= windows {
        let all = (0..chunks).map(|c| {
            let start = slice.start + c * CHUNK as u64;
            (start, (slice.end - start).min(CHUNK as u64) as usize)
        });
        let (spans, remote) = fetched_spans(game, k, all, &own, next);
        return (spans, remote as f64 / chunks.max(1) as f64, 1.0);
    }
    let step = len / windows;
    let sample = (0..windows).map(|w| (slice.start + w * step, CHUNK));
    let (spans, remote) = fetched_spans(game, k, sample, &own, next);
    let scale = len as f64 / (windows * CHUNK as u64) as f64;
    (spans, remote as f64 / windows as f64, scale)
}

/// The layers not walked (where ranks exchange) take the per-entry traffic of the largest
/// walked layer of their worker; a sweep layer also its share of chunks computed twice,
/// and holds what it fetches.
fn borrow_traffic(layers: &mut [LayerPlan], width: u64) {
    let unwalked: Vec<usize> = (0..layers.len())
        .filter(|&i| layers[i].sampled && !layers[i].walked)
        .collect();
    for i in unwalked {
        let worker = layers[i].worker;
        let like = layers
            .iter()
            .filter(|l| l.worker == worker && l.walked && l.per_rank > 0)
            .max_by_key(|l| l.positions)
            .map(|l| {
                (
                    l.received as f64 / l.per_rank as f64,
                    l.told as f64 / l.per_rank as f64,
                    l.remote_share,
                )
            });
        if let Some((values, told, remote_share)) = like {
            let l = &mut layers[i];
            l.received = ((values * l.per_rank as f64) as u64).min(l.positions);
            l.sent = l.received;
            l.told = (told * l.per_rank as f64) as u64;
            l.sampled_from_other = true;
            if l.worker == Worker::Sweep {
                l.remote_share = remote_share;
                l.peak_bytes += l.received * width;
            }
        }
    }
}

/// A layer's time, and for a retrograde layer the fetched values it holds while solved:
/// the entries of the largest slice at what each costs a thread (more where its chunk
/// needs fetched children), the share of the table a rank writes, and the wire time of its
/// traffic (a fixpoint's updates delta-coded: `LayerPlan::told_bytes`).
fn time_layer<G: Game>(
    game: &G,
    layer: &mut LayerPlan,
    costs: Costs,
    (ranks, threads): (usize, usize),
    width: u64,
    bytes_per_second: f64,
) {
    let ns = costs.layer_ns(game, layer.k, layer.per_rank, width)
        + costs.fetched_ns * layer.remote_share;
    let moved = match layer.worker {
        Worker::Sweep => layer.received.max(layer.sent) * width,
        _ => {
            layer.peak_bytes += layer.received * width;
            layer.received * width + layer.told_bytes()
        }
    };
    let disk = (layer.disk_bytes / ranks as u64) as f64 * NS_PER_DISK_BYTE;
    layer.cpu_seconds = (layer.per_rank as f64 * ns + disk) * 1e-9;
    layer.seconds = (layer.per_rank as f64 * ns / threads as f64 + disk) * 1e-9
        + moved as f64 / bytes_per_second;
}

/// What rank `r` of `ranks` exchanges for the positions of layer `k` (a layer another
/// worker than the sweep solves) in `windows` (start, length), which stand for `scale`
/// times as many positions of its slice: the values of the children outside the layer that
/// lie in other ranks' slices (whole grains, each counted once, as the build fetches them:
/// `fetched_grains`), and the parents within the layer other ranks own (a fixpoint's
/// updates, counted as though every position were decided).
fn retrograde_traffic<G: Game>(
    game: &G,
    k: usize,
    ranks: usize,
    r: usize,
    windows: &[(u64, usize)],
    scale: f64,
) -> (u64, u64) {
    let n = game.layer_size(k);
    let own = split::slice(n, ranks, r);
    let fixpoint = crate::solve::worker(game, k) == Worker::Fixpoint;
    let sizes: Vec<u64> = (0..=game.last_layer())
        .map(|j| game.layer_size(j))
        .collect();
    // What the build reads in place of each layer (its own slice, less the edges a chunk's
    // lookups may cross: `children::read_in_place`), in grains.
    let in_place: Vec<std::ops::Range<u64>> = sizes
        .iter()
        .map(|&m| plan::read_in_place(&split::slice(m, ranks, r), m))
        .collect();
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
                    let g = e.rank / GRAIN;
                    if !in_place.get(e.layer).is_some_and(|o| o.contains(&g)) {
                        grains.push((e.layer, g));
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
    let mut values = 0.0;
    for j in 0..sizes.len() {
        let of_j =
            &grains[grains.partition_point(|g| g.0 < j)..grains.partition_point(|g| g.0 <= j)];
        if of_j.is_empty() {
            continue;
        }
        let distinct = 1 + of_j.windows(2).filter(|w| w[0] != w[1]).count();
        let all = sizes[j].div_ceil(GRAIN);
        let remote = all - (in_place[j].end - in_place[j].start).min(all);
        let grains = fetched_grains(distinct as f64, scale, remote as f64);
        values += grains * GRAIN as f64;
    }
    (values.min(u64::MAX as f64) as u64, told)
}

/// The grains a rank fetches of a layer whose `remote` grains lie outside what it reads in
/// place, where a sample of its positions (one in `scale`, in windows of consecutive
/// positions) found `distinct` grains there. A grain is fetched once however many
/// children it holds, so the sample's grains do not scale with the positions: taken as
/// throws into `remote` bins, n throws fill remote (1 - e^(-n/remote)) of them. Within a
/// window, neighbours' children share grains (counted once, as the sample counts them);
/// across the slice, windows' grains fall anywhere. Against the build on Quixo 4 x 4 at 2
/// ranks, each layer's planned grains are within a fifth of the larger rank's fetch.
fn fetched_grains(distinct: f64, scale: f64, remote: f64) -> f64 {
    if scale <= 1.0 || remote <= distinct {
        return distinct;
    }
    remote * -(-distinct * scale / remote).exp_m1()
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

    /// A sampled slice's grains: exact where the sample is the slice, near linear where the
    /// owner's grains far outnumber the throws, never more than the owner has, and n throws
    /// into n grains fill 1 - 1/e of them.
    #[test]
    fn a_sample_s_grains_fill_the_owner_s_grains_as_throws_do() {
        assert_eq!(fetched_grains(10.0, 1.0, 1e6), 10.0);
        assert!((fetched_grains(100.0, 10.0, 1e9) - 1000.0).abs() < 1.0);
        let many = fetched_grains(1000.0, 1000.0, 5000.0);
        assert!(many <= 5000.0 && many > 4999.0, "{many}");
        let even = fetched_grains(100.0, 10.0, 1000.0);
        assert!(
            (even - 1000.0 * (1.0 - (-1.0f64).exp())).abs() < 1e-6,
            "{even}"
        );
    }

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
        let layers = plan(&g, MAX_RANKS, 1, 1, false, costs("twins", ""), 1e9);
        // Every layer but the full board's (which reads no children) is sampled.
        assert!(layers.iter().skip(1).all(|l| l.sampled));
        assert_eq!(
            layers.iter().map(|l| l.disk_bytes).sum::<u64>(),
            g.total_positions()
        );
        Ok(())
    }

    #[test]
    fn one_rank_fetches_only_from_itself() -> crate::error::Result<()> {
        let game: Young = random_game(5, 6, 1, 0)?;
        let layers = plan(&game, 1, 1, 1, false, costs("young", ""), 1e9);
        assert_eq!(layers.len(), 31);
        assert!(
            layers
                .iter()
                .all(|l| l.received == 0 && l.sent == 0 && l.per_rank == l.positions)
        );
        // Twins 3 x 4 layers span several blocks, so two ranks exchange values.
        let game: Twins = random_game(3, 4, 1, 0)?;
        let two = plan(&game, 2, 1, 1, false, costs("twins", ""), 1e9);
        assert!(two.iter().any(|l| l.received > 0 && l.sent > 0));
        assert_eq!(
            two.iter().map(|l| l.disk_bytes).sum::<u64>(),
            game.total_positions()
        );
        Ok(())
    }
}
