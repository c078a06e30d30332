//! The one solve driver: every game's layers, in order, each by the worker its kind needs.
//!
//! A game numbers its layers so that moves lead to higher-numbered layers or stay inside
//! their own (`Game::child_layers`, `Game::layer_kind`): the numbering is a topological order
//! of the layers' graph, so the driver solves them from the last to layer 0, and a table's
//! finished layers are always its top ones, which is what a build resumes from. The driver
//! checks the numbering first, picks each layer's worker (`worker`, the one place the choice
//! is made), holds every finished layer a layer still to come reads and no other, hands each
//! finished layer to the caller (the table writer) while it computes the next, and stops
//! between layers when asked (`Progress::stopped`).
//!
//! The workers: the placement sweep's kernel (`sweep::compute_layer`: no move stays inside
//! the layer, values of a game of scores or lines, children in the next layer), the one-pass
//! (`pass.rs`) and the fixpoint worker (`fixpoint.rs`) of values for the side to move, which
//! fold children outside the layer alike (`outside.rs`). What the driver holds at its peak,
//! and the fixpoint worker that fits it: `budget.rs`; over several ranks, the children a
//! slice reads in other ranks' slices: `fetch.rs`.

use crate::error::{Error, Result};
use crate::game::{Game, LayerKind, Values};
use crate::memory;
use crate::progress::{Progress, Silent, check_stopped};
use crate::stored::{Value, ValueType};

mod budget;
mod checks;
pub(crate) mod children;
mod fetch;
mod fixpoint;
mod layers;
mod levels;
mod moves;
mod outside;
mod pass;
mod ranks;
pub(crate) mod sweep;

pub use layers::Driver;
use layers::Held;
pub(crate) use layers::{Finished, Layer, MapLayer};
pub use ranks::{Cut, One, Ranks};

pub use budget::Fixpoint;
pub(crate) use budget::{check_memory, fixpoint_bytes, layer_peak_bytes, planned_fixpoint};
use budget::{fixpoint_for, forced_fixpoint};
pub(crate) use fetch::Later;
use fetch::fetch_children;

/// Which worker solves a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Worker {
    /// The placement sweep's kernel: one pass, children in the next layer, values of the
    /// first player (scores or lines) taking the max on even layers and the min on odd ones.
    Sweep,
    /// One pass over a layer no move stays inside, values for the side to move.
    Pass,
    /// Retrograde analysis to a fixpoint, for a layer moves stay inside.
    Fixpoint,
}

/// The worker for layer `k` of `game`: the one place the choice is made.
pub fn worker<G: Game>(game: &G, k: usize) -> Worker {
    match (game.layer_kind(k), game.values()) {
        (LayerKind::Fixpoint, _) => Worker::Fixpoint,
        (LayerKind::OnePass, Values::SideToMove) => Worker::Pass,
        (LayerKind::OnePass, _) => Worker::Sweep,
    }
}

/// Layer `k`, a layer with moves inside it, by the fixpoint worker it takes: over several
/// ranks the counters worker (a check would read children in other ranks' slices); on one
/// process the counters worker where its words fit in the memory available now, the
/// checks worker's half-size words where they do not (or as `RETRO_FIXPOINT` says), and
/// the counters worker again where a layer's levels pass what the checks worker's words
/// hold.
fn fixpoint_layer<G: Game, V: Value, R: Ranks>(
    game: &G,
    k: usize,
    cut: &Cut,
    out: &mut [V],
    (finished, later): (&Finished<'_, V>, Option<Later<'_, V>>),
    progress: &dyn Progress,
    ranks: &R,
) -> Result<()> {
    let fixpoint = forced_fixpoint().unwrap_or_else(|| {
        let (own, width) = (out.len() as u128, size_of::<V>() as u128);
        fixpoint_for(
            fixpoint_bytes(own, width, Fixpoint::Counters),
            memory::available_memory(),
        )
    });
    if cut.whole() && fixpoint == Fixpoint::Checks {
        // Deeper than its words hold: solved again with counters, below.
        if let Ok(()) = checks::solve_layer(game, k, out, finished, progress)? {
            return Ok(());
        }
    }
    fixpoint::solve_layer(game, k, cut, out, (finished, later), progress, ranks)
}

/// Whether any layer of `game` is solved by another worker than the placement sweep (a game
/// whose values are for the side to move): such a game's tables store no best moves, and an
/// MPI build refuses it.
pub(crate) fn beyond_sweep<G: Game>(game: &G) -> bool {
    (0..=game.last_layer()).any(|k| worker(game, k) != Worker::Sweep)
}

/// Check what the game declares of its layers against what the workers need: child layers
/// numbered after their layer, a sweep's children in the next layer only, a fixpoint only
/// for values of the side to move. A game that breaks this is a bug in the game, reported
/// as an error rather than a wrong table.
pub fn check_layers<G: Game>(game: &G) -> Result<()> {
    let last = game.last_layer();
    for k in 0..=last {
        let children = game.child_layers(k);
        if let Some(&bad) = children.iter().find(|&&j| j <= k || j > last) {
            return Err(Error::other(format!(
                "layer {k} declares moves into layer {bad}: moves must lead to higher-numbered layers (up to {last}) or stay inside their own"
            )));
        }
        match worker(game, k) {
            Worker::Sweep if children.iter().any(|&j| j != k + 1) => {
                return Err(Error::other(format!(
                    "layer {k}: the placement sweep reads its children in layer {} only",
                    k + 1
                )));
            }
            Worker::Fixpoint if !game.values().for_side_to_move() => {
                return Err(Error::other(format!(
                    "layer {k}: a layer with moves inside it needs values for the side to move"
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// For each layer, the lowest layer that reads it (None: no layer does): the driver frees a
/// finished layer once every layer that reads it is solved.
pub(crate) fn lowest_readers<G: Game>(game: &G) -> Vec<Option<usize>> {
    let last = game.last_layer();
    let mut lowest = vec![None; last + 1];
    for k in (0..=last).rev() {
        for j in game.child_layers(k) {
            if let Some(slot) = lowest.get_mut(j) {
                *slot = Some(k);
            }
        }
    }
    lowest
}

/// The value type a solve of `game` computes in.
pub fn value_type<G: Game>(game: &G) -> ValueType {
    game.values().value_type()
}

/// Where a solve starts: from the last layer, or below finished layers (a resumed build).
pub(crate) enum StartAt<V> {
    /// Nothing finished: from the last layer down.
    Top,
    /// Layers `layer..` are finished; `held` gives the values of those the layers below read
    /// (`held_below`).
    Below {
        /// The lowest finished layer.
        layer: usize,
        /// `(layer, values)` of every layer `held_below(layer)` names.
        held: Vec<(usize, Vec<V>)>,
    },
}

/// The finished layers a solve resumed below `layer` reads (for a placement game: `layer`
/// itself), and layer 0 where every layer is finished (the empty board's value is read from
/// it).
pub(crate) fn held_below<G: Game>(game: &G, layer: usize) -> Vec<usize> {
    let lowest = lowest_readers(game);
    (layer..=game.last_layer())
        .filter(|&j| lowest[j].is_some_and(|r| r < layer) || j == 0)
        .collect()
}

/// A finished layer as the driver hands it on: this rank's slice of it (on one process, the
/// whole layer).
pub(crate) struct Solved<'a, V> {
    /// The layer.
    pub layer: usize,
    /// Where the slice starts in the layer (only an MPI build's writer needs it).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub start: u64,
    /// The slice's values.
    pub values: &'a [V],
    /// The slice's best moves, where the caller asked for them (`Hooks::moves_at`).
    pub moves: Option<&'a [u8]>,
    /// The same values, for a writer that keeps them past the call (an `Inline` hook, which
    /// writes them on a thread of its own while the next layer is solved).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub keep: Option<&'a std::sync::Arc<Vec<V>>>,
}

/// A writer of finished layers that runs on a thread of its own.
pub(crate) type Writer<'a, V> = dyn FnMut(Solved<'_, V>) -> Result<()> + Send + 'a;

/// Called with each finished layer, in order (the table writer).
pub(crate) enum OnLayer<'a, V> {
    /// On a thread of its own while the next layer is solved.
    Beside(&'a mut Writer<'a, V>),
    /// On the driver's thread as soon as the layer is solved, before the next starts: a
    /// writer that calls collectives with the other ranks.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    Inline(&'a mut dyn FnMut(Solved<'_, V>) -> Result<()>),
}

/// What a caller of the driver adds to a solve.
pub(crate) struct Hooks<'a, V> {
    /// Called with each finished layer, in order.
    pub on_layer: Option<OnLayer<'a, V>>,
    /// Where finished layers can be mapped back from (one process only).
    pub map_layer: Option<MapLayer<'a>>,
    /// The layers whose best moves are derived too, while their children's values are at
    /// hand (a table of best moves; placement-sweep layers only).
    pub moves_at: Option<&'a (dyn Fn(usize) -> bool + Sync)>,
}

impl<V> Hooks<'_, V> {
    /// No hooks: the root's value alone.
    pub(crate) fn none() -> Self {
        Hooks {
            on_layer: None,
            map_layer: None,
            moves_at: None,
        }
    }
}

/// Solve every layer not yet finished, from the last down to 0, on this rank of `ranks`
/// (`One`: the whole of every layer), handing each finished layer to the hooks; returns the
/// empty board's value (on every rank).
pub(crate) fn solve_layers<G: Game, V: Value, R: Ranks>(
    game: &G,
    driver: Driver,
    progress: &dyn Progress,
    from: StartAt<V>,
    hooks: Hooks<'_, V>,
    ranks: &R,
) -> Result<i64> {
    check_layers(game)?;
    let Hooks {
        on_layer,
        map_layer,
        moves_at,
    } = hooks;
    let (mut beside, mut inline) = match on_layer {
        Some(OnLayer::Beside(f)) => (Some(f), None),
        Some(OnLayer::Inline(f)) => (None, Some(f)),
        None => (None, None),
    };
    let last = game.last_layer();
    let lowest = lowest_readers(game);
    let sizes: Vec<u64> = (0..=last).map(|k| game.layer_size(k)).collect();
    let cuts: Vec<Cut> = sizes.iter().map(|&n| Cut::of(ranks, n)).collect();
    if let Some(k) = (0..=last).find(|&k| usize::try_from(sizes[k]).is_err()) {
        return Err(Error::too_large(format!(
            "layer {k} does not fit in memory"
        )));
    }
    // One process alone maps finished layers back from its file.
    let map_layer = map_layer.filter(|_| ranks.count() == 1);
    let solve = Solve {
        game,
        driver,
        progress,
        ranks,
        cuts: &cuts,
        sizes: &sizes,
    };
    // Finished layers still to be read (this rank's slices). A freed buffer is kept to be
    // reused by the next layer it holds (the sweep's two alternate, and fresh memory costs
    // page faults), but never beside a fresh one: where none fits, the spares go first, so
    // the driver holds no more than `peak_bytes` says. A fixpoint's layer always starts
    // fresh: its values fill as its words are freed (`fixpoint`), so its untouched pages
    // cost nothing until then.
    let mut held: Vec<Option<Held<V>>> = (0..=last).map(|_| None).collect();
    let mut spare: Vec<Vec<V>> = Vec::new();
    let top = read_back(game, from, &sizes, &cuts, &mut held, progress)?;
    // The layer finished last and not yet handed on, with its best moves.
    let mut unseen: Option<(usize, Option<Vec<u8>>)> = None;
    // Whether a placement sweep over ranks computes each chunk from its own slice first.
    let mut speculate = true;
    for k in (0..top).rev() {
        let cut = &cuts[k];
        let size = cut.len();
        progress.layer(k, sizes[k]);
        game.prepare_layer(k);
        // Finished layers that this layer does not read, written already (all but the one
        // handed on last), are read back from the file when a later layer needs them, and
        // their memory goes: a game whose far layers read many (morris's last placements
        // read every movement layer) holds only what each layer reads.
        if let Some(map_layer) = &map_layer {
            map_finished(
                game,
                k,
                map_layer,
                &cuts,
                &mut held,
                &mut unseen,
                beside.as_deref_mut(),
            )?;
        }
        let mut buffer = layer_buffer(&mut spare, size, worker(game, k) == Worker::Fixpoint);
        let wants_moves = moves_at.is_some_and(|m| m(k)) && worker(game, k) == Worker::Sweep;
        let mut moves = wants_moves.then(|| vec![0u8; size]);
        {
            // Over several ranks, the children this slice reads in other ranks' slices,
            // fetched before the layer is solved.
            // The placement sweep over ranks fetches its own (`sweep::solve_slice`).
            let sliced_sweep = !cut.whole() && worker(game, k) == Worker::Sweep && k < last;
            // A fixpoint layer over ranks starts from its own slices, and fetches what its
            // counting pass finds it lacks (`Later`).
            let counts_first = !cut.whole() && worker(game, k) == Worker::Fixpoint;
            let mine = |j: usize| {
                held[j]
                    .as_ref()
                    .and_then(Held::in_memory)
                    .ok_or_else(|| Error::other(format!("layer {j} is not held")))
            };
            let (fetched, later) = match (cut.whole() || sliced_sweep, counts_first) {
                (true, _) => (Vec::new(), None),
                (false, true) => {
                    let (own, later) = Later::of(game, k, &cuts, &sizes, mine, ranks)?;
                    (own, Some(later))
                }
                (false, false) => (fetch_children(game, k, &cuts, &sizes, mine, ranks)?, None),
            };
            let finished = match cut.whole() {
                true => Finished::of(
                    last,
                    held.iter()
                        .enumerate()
                        .filter_map(|(j, h)| h.as_ref().map(|v| (j, v.layer()))),
                ),
                false => Finished::of(last, fetched.iter().map(|(j, f)| (*j, Layer::Fetched(f)))),
            };
            let out = &mut buffer[..size];
            let compute = |out: &mut [V], moves: Option<&mut [u8]>| {
                let layer = (k, &finished, &held[..]);
                compute_layer(&solve, layer, later, &mut speculate, out, moves)
            };
            let written = (&unseen, beside.as_deref_mut(), &finished);
            compute_beside(compute, (out, moves.as_deref_mut()), written, progress)?;
        }
        // A finished layer read from the file while another program cut the file short
        // read zeros there (the SIGBUS guard): the layer just computed is wrong.
        if held.iter().flatten().any(Held::faulted) {
            return Err(Error::corrupt(format!(
                "layer {k}: the table file being written was cut short while this build read it (did another program truncate it?); run the same command again with --fresh"
            )));
        }
        // Asked to stop: the layer just computed may be partial, and is not handed on.
        check_stopped(progress)?;
        match inline.as_deref_mut() {
            Some(f) => {
                let shared = std::sync::Arc::new(buffer);
                f(Solved {
                    layer: k,
                    start: cut.start(),
                    values: &shared,
                    moves: moves.as_deref(),
                    keep: Some(&shared),
                })?;
                held[k] = Some(Held::Shared(shared));
            }
            None => {
                unseen = Some((k, moves));
                held[k] = Some(Held::Memory(buffer));
            }
        }
        free_unread(k, &lowest, &mut held, &mut spare);
    }
    if let Some(f) = beside {
        write_unseen(&mut unseen, f, &held)?;
    }
    root_value(&cuts[0], &held, ranks)
}

/// Once layer `k` is solved (and every layer but k handed on): free what no layer below k
/// reads, keeping its buffer as a spare for a later layer.
fn free_unread<V: Value>(
    k: usize,
    lowest: &[Option<usize>],
    held: &mut [Option<Held<V>>],
    spare: &mut Vec<Vec<V>>,
) {
    for (j, slot) in held.iter_mut().enumerate().skip(k + 1) {
        if lowest[j].is_none_or(|r| r >= k)
            && let Some(values) = slot.take().and_then(Held::into_buffer)
        {
            spare.push(values);
        }
    }
}

/// What a layer's solve hands the writer beside it: the layer finished last and not yet
/// handed on, the writer, and the finished layers that hold it.
type Beside<'a, 'b, V> = (
    &'a Option<(usize, Option<Vec<u8>>)>,
    Option<&'a mut Writer<'b, V>>,
    &'a Finished<'a, V>,
);

/// Run `compute` on a layer's buffer while the writer writes the layer finished last on a
/// thread of its own, where there are both; else `compute` alone.
fn compute_beside<V: Value>(
    compute: impl FnOnce(&mut [V], Option<&mut [u8]>) -> Result<()>,
    (out, moves): (&mut [V], Option<&mut [u8]>),
    (unseen, beside, finished): Beside<'_, '_, V>,
    progress: &dyn Progress,
) -> Result<()> {
    let (Some((j, handed_moves)), Some(f)) = (unseen, beside) else {
        return compute(out, moves);
    };
    let handed = Solved {
        layer: *j,
        start: 0,
        values: finished.layer(*j),
        moves: handed_moves.as_deref(),
        keep: None,
    };
    std::thread::scope(|scope| {
        // The writer packs a compact layer on rayon's pool: the caller's own where it has
        // one (a forked Python child).
        let writer = scope.spawn(move || match progress.pool() {
            Some(pool) => pool.install(|| f(handed)),
            None => f(handed),
        });
        let computed = compute(out, moves);
        let written = writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        computed.and(written)
    })
}

/// Hand the layer finished last, not yet handed on, to the writer `f`, where the driver holds
/// it in memory.
fn write_unseen<V: Value>(
    unseen: &mut Option<(usize, Option<Vec<u8>>)>,
    f: &mut Writer<'_, V>,
    held: &[Option<Held<V>>],
) -> Result<()> {
    if let Some((j, moves)) = unseen.take() {
        match &held[j] {
            Some(Held::Memory(values)) => f(Solved {
                layer: j,
                start: 0,
                values,
                moves: moves.as_deref(),
                keep: None,
            })?,
            _ => *unseen = Some((j, moves)),
        }
    }
    Ok(())
}

/// Where the layers still to solve end (the last layer + 1, or the lowest finished one of a
/// resumed build), with the finished layers a resumed build read back put in `held`.
fn read_back<G: Game, V: Value>(
    game: &G,
    from: StartAt<V>,
    sizes: &[u64],
    cuts: &[Cut],
    held: &mut [Option<Held<V>>],
    progress: &dyn Progress,
) -> Result<usize> {
    let last = game.last_layer();
    Ok(match from {
        StartAt::Top => last + 1,
        StartAt::Below { layer, held: read } => {
            progress.advance(sizes[layer..].iter().sum());
            for (j, values) in read {
                if j < layer || j > last || values.len() != cuts[j].len() {
                    return Err(Error::other(format!(
                        "layer {j} read back does not match the game's layer"
                    )));
                }
                held[j] = Some(Held::Memory(values));
            }
            if let Some(&j) = held_below(game, layer).iter().find(|&&j| held[j].is_none()) {
                return Err(Error::other(format!("layer {j} was not read back")));
            }
            layer
        }
    })
}

/// Before layer `k` is solved on one process: the finished layers it does not read, written
/// already, are left in the table file (their memory goes), and those it reads are mapped
/// back from it where the file holds them (or holds them narrower than the solve computes);
/// the layer finished last is written first where that lets its memory go.
fn map_finished<'h, G: Game, V: Value>(
    game: &G,
    k: usize,
    map_layer: &MapLayer<'_>,
    cuts: &[Cut],
    held: &mut [Option<Held<V>>],
    unseen: &mut Option<(usize, Option<Vec<u8>>)>,
    beside: Option<&mut Writer<'h, V>>,
) -> Result<()> {
    let MapLayer { stored, map } = map_layer;
    let last = game.last_layer();
    let stored = *stored;
    let narrower = stored.width() < size_of::<V>();
    let reads = game.child_layers(k);
    // The layer finished last, if this one does not read it, is written now rather
    // than beside this layer's solve, so that its memory goes first; and so is one
    // it reads where the file stores it narrower, to be read from there.
    if let (Some((j, _)), Some(f)) = (&*unseen, beside)
        && (!reads.contains(j) || narrower)
    {
        write_unseen(unseen, f, held)?;
    }
    // A layer this one reads stays in memory, unless the file stores it narrower
    // than the solve computes (halved codes, a byte a position where the solve holds
    // two): then the map holds less, and its reads touch half the cache lines. A
    // layer it does not read is left in the file, and mapped again when one does.
    let written = unseen.as_ref().map_or(k + 1, |(j, _)| j + 1);
    for j in written..=last {
        let read = reads.contains(&j);
        let n = cuts[j].len();
        match &held[j] {
            Some(Held::Memory(_)) => {
                if let Some(m) = map(j)
                    && (!read || narrower)
                    && let Some(mapped) = Held::mapped(m, n, stored)
                {
                    held[j] = Some(if read { mapped } else { Held::Written });
                }
            }
            Some(Held::Mapped(..) | Held::MappedHalved(..)) if !read => {
                held[j] = Some(Held::Written);
            }
            Some(Held::Written) if read => {
                let mapped = map(j).and_then(|m| Held::mapped(m, n, stored));
                held[j] = Some(mapped.ok_or_else(|| {
                    Error::other(format!(
                        "layer {j} could not be read back from the table file"
                    ))
                })?);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The buffer layer values of `size` are computed into: a spare one that fits, reused (fresh
/// memory costs page faults), or a fresh one, the spares freed first; a fixpoint's layer
/// (`fresh`) always starts fresh, since its values fill as its words are freed.
fn layer_buffer<V: Value>(spare: &mut Vec<Vec<V>>, size: usize, fresh: bool) -> Vec<V> {
    let fits = match fresh {
        true => None,
        false => spare
            .iter()
            .enumerate()
            .filter(|(_, b)| b.capacity() >= size)
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i),
    };
    match fits {
        Some(i) => {
            let mut b = spare.swap_remove(i);
            spare.clear();
            b.truncate(size);
            b.resize(size, V::default());
            b
        }
        None => {
            spare.clear();
            vec![V::default(); size]
        }
    }
}

/// The empty board's value, on every rank: position 0 of layer 0, on the rank whose slice
/// holds it.
fn root_value<V: Value, R: Ranks>(cut: &Cut, held: &[Option<Held<V>>], ranks: &R) -> Result<i64> {
    let root = match cut.local(0) {
        Some(_) => held[0].as_ref().and_then(|v| match v.layer() {
            Layer::Values(v) => v.first().map(|v| v.to_i64()),
            Layer::Halved(c) => c.first().map(|&c| ValueType::Halved.value_of(c.into())),
            Layer::Fetched(_) => None,
        }),
        None => None,
    };
    // Values order as their bits do with the sign bit flipped; 0 is no value.
    let shared = ranks.max(root.map_or(0, |v| (v as u64 ^ 1 << 63).max(1)));
    match shared {
        0 => Err(Error::other("the solve finished without layer 0")),
        v => Ok((v ^ 1 << 63) as i64),
    }
}

/// What every layer's solve is given: the game, how the sweep runs, the progress, the
/// ranks and every layer's cut and size.
struct Solve<'a, G, R> {
    game: &'a G,
    driver: Driver,
    progress: &'a dyn Progress,
    ranks: &'a R,
    cuts: &'a [Cut],
    sizes: &'a [u64],
}

/// A finished layer the solve reads, as the workers see it: layer `k`, the finished layers
/// it reads, and what the driver holds.
type ToSolve<'a, 'b, V> = (usize, &'a Finished<'b, V>, &'a [Option<Held<V>>]);

/// Layer `k` (this rank's slice) into `out`, by its worker, and its best moves where asked
/// for; every rank agrees on the outcome.
fn compute_layer<G: Game, V: Value, R: Ranks>(
    solve: &Solve<'_, G, R>,
    (k, finished, held): ToSolve<'_, '_, V>,
    later: Option<Later<'_, V>>,
    speculate: &mut bool,
    out: &mut [V],
    moves: Option<&mut [u8]>,
) -> Result<()> {
    let Solve {
        game,
        driver,
        progress,
        ranks,
        cuts,
        sizes,
    } = *solve;
    let cut = &cuts[k];
    let start = cut.start();
    // The placement sweep over ranks fetches the children it reads in other ranks' slices
    // itself (`sweep::solve_slice`).
    let sliced_sweep = !cut.whole() && worker(game, k) == Worker::Sweep && k < game.last_layer();
    let computed = match worker(game, k) {
        Worker::Sweep if sliced_sweep => {
            let own = held[k + 1].as_ref().and_then(Held::in_memory);
            let own = own.ok_or_else(|| Error::other(format!("layer {} is not held", k + 1)));
            ranks.agree(own).and_then(|own| {
                let next = (own, cuts[k + 1].start(), sizes[k + 1]);
                let fetched =
                    sweep::solve_slice(game, k, start, out, next, speculate, progress, ranks)?;
                check_stopped(progress)?;
                match moves {
                    Some(m) => moves::best_moves(game, k, start, out, &fetched, m),
                    None => Ok(()),
                }
            })
        }
        Worker::Sweep => match finished.fetched(k + 1) {
            Some(next) => sweep_layer(game, k, start, out, next, moves, driver, progress),
            None => {
                let next = finished.layer(k + 1);
                sweep_layer(game, k, start, out, next, moves, driver, progress)
            }
        },
        Worker::Pass => pass::solve_layer(game, k, start, out, finished, progress),
        Worker::Fixpoint => fixpoint_layer(game, k, cut, out, (finished, later), progress, ranks),
    };
    ranks.agree(computed)
}

/// The placement sweep of positions `start..` of layer `k` from `next`, and their best moves
/// where asked for.
#[allow(clippy::too_many_arguments)]
fn sweep_layer<G: Game, V: Value, C: sweep::ChildValues<V> + Sync + ?Sized>(
    game: &G,
    k: usize,
    start: u64,
    out: &mut [V],
    next: &C,
    moves: Option<&mut [u8]>,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<()> {
    sweep::compute_layer(game, k, start, out, next, driver, progress);
    // Asked to stop: the layer is partial, and its moves are not derived.
    check_stopped(progress)?;
    match moves {
        Some(m) => moves::best_moves(game, k, start, out, next, m),
        None => Ok(()),
    }
}

/// Solve every layer, handing each finished layer to `on_layer` (in order, on a thread of its
/// own while the next layer is computed); returns the empty board's value.
pub fn solve_each<G: Game, V: Value>(
    game: &G,
    driver: Driver,
    progress: &dyn Progress,
    mut on_layer: impl FnMut(usize, &[V]) -> Result<()> + Send,
) -> Result<i64> {
    let mut each = |s: Solved<'_, V>| on_layer(s.layer, s.values);
    let hooks = Hooks {
        on_layer: Some(OnLayer::Beside(&mut each)),
        ..Hooks::none()
    };
    solve_layers::<G, V, One>(game, driver, progress, StartAt::Top, hooks, &One)
}

/// The empty board's value, holding only the layers the solve needs at once.
pub fn solve<G: Game, V: Value>(game: &G, driver: Driver, progress: &dyn Progress) -> Result<i64> {
    solve_layers::<G, V, One>(game, driver, progress, StartAt::Top, Hooks::none(), &One)
}

/// Every layer's values, in memory (tests, small boards).
pub fn all_values<G: Game, V: Value>(game: &G, driver: Driver) -> Result<Vec<Vec<V>>> {
    let mut layers = vec![Vec::new(); game.last_layer() + 1];
    solve_each::<G, V>(game, driver, &Silent, |k, values| {
        layers[k] = values.to_vec();
        Ok(())
    })?;
    Ok(layers)
}
