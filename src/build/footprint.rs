//! What a build's process holds at its peak beyond the layers the solve holds at once:
//! the binary and its threads, the tables the game ranks its positions by, and the buffers
//! of the table's last rewrite. A job sized by layer memory alone runs out: Quixo 5 x 5
//! from 24 cubes taken held 85 MiB of layers and peaked at 386 MiB, 319 MiB of it the
//! orbit tables' lists of the nearly full boards.

use crate::game::Game;

/// What a build's process holds whatever the board, measured as the peak resident memory
/// of the smallest builds (young's contest sample: 7.7 to 8.0 MiB, one or two threads; mnk
/// 4 x 4, whose layers take half a MiB: 9.7 to 10.7 MiB; Quixo 4 x 4 holds 10.6 MiB beside
/// its heap), with room: the binary's pages, the threads' stacks, the table writer's and
/// its checksum's 4 MiB buffers.
pub const BASELINE: u64 = 14 << 20;

/// Values a table's narrowing to one byte reads at a time (`build::sink`'s `RANGE`).
const NARROW_RANGE: u64 = 1 << 22;

/// Bytes the rewrite of a finished table in one byte a value holds at once, where a build
/// does it (values for the side to move computed `width` bytes wide, stored wider than a
/// byte): a range of values read as `i64`s beside their bytes, and the largest layer's
/// bytes (`TableWriter::rewrite` writes a layer at a time).
pub fn narrowing_bytes<G: Game>(game: &G, width: u64, stored_width: u64) -> u64 {
    if !game.values().for_side_to_move() || stored_width <= 1 {
        return 0;
    }
    let largest = (0..=game.last_layer())
        .map(|k| game.layer_size(k))
        .max()
        .unwrap_or(0);
    NARROW_RANGE.min(largest) * (8 + width) + largest
}

/// The peak resident memory of a build's process (of each rank's, over MPI) whose solve
/// holds `layers` bytes of layers at its peak: the baseline, the game's ranking tables
/// (kept to the end), and the larger of the layers and the final rewrite.
pub fn process_bytes<G: Game>(game: &G, layers: u64, narrowing: u64) -> u64 {
    BASELINE
        .saturating_add(game.table_bytes())
        .saturating_add(layers.max(narrowing))
}

/// What a table entry costs one thread, in CPU nanoseconds (user and system time; on a
/// box whose cores are shared, wall time is longer), by game, as measured on a 2-core AMD
/// EPYC box (32 MiB of L3 cache) with `retro build --threads 1`, release build.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// Per entry of a layer whose working set fits in the cache.
    pub ns: f64,
    /// Per entry of a layer solved by another worker than the sweep, on top of `ns` as its
    /// working set outgrows `cache_bytes` (`layer_ns`): its children's and parents' words
    /// are then read from memory, each a miss.
    pub far_ns: f64,
    /// The working set at which a layer pays half of `far_ns`.
    pub cache_bytes: f64,
    /// Per entry of an MPI rank's chunk whose children are not all in its own slice, on top
    /// of `ns`: planned, or computed a first time, then computed through the fetched values
    /// (measured under MPI: `docs/mpi.md`).
    pub fetched_ns: f64,
}

/// CPU nanoseconds a byte of the table costs the system: written, synced and read back
/// for its checksum (young 16 x 16's 2.2 GiB: 2.0 s of system time; twins 4 x 5's 2.8
/// GiB: 2.6 s).
pub const NS_PER_DISK_BYTE: f64 = 0.9;

/// The costs of the entries (`Costs`) of a board of `game` (`AnyBoard::label`), by the
/// game's name; a game of another crate takes the costs of twins, a placement game ranked
/// as two-colour grids. User time of one thread (the table's system time is
/// `NS_PER_DISK_BYTE`):
///
/// - young, `retro gen young 16x16 --seed 7`: 4.10 s over 601.1 M positions (14 x 14:
///   0.25 s over 40.1 M).
/// - twins, `retro gen twins 4x5 --seed 7`: 7.82 s over 741.4 M positions.
/// - mnk 4x5k4: 14.32 s over 185.4 M entries (folded by 4).
/// - connect 6x4 and 5x5: 2.46 s over 83.2 M entries and 2.31 s over 95.6 M (folded by 2).
/// - teeko, standard: 3.55 s over 12.1 M entries.
/// - quixo 4x4: 3.47 s over 5.4 M entries; 5 x 5 from 24 cubes taken: 114.3 s over 56.7 M,
///   from 22, 3,006 s over 1,577 M. A 5 x 5 entry costs three times a 4 x 4 one: most of
///   its sets are their own image under a symmetry, and rank through the orbit tables'
///   lists.
/// - morris: six 0.86 s over 3.1 M entries, `nine stones=4` 1.47 s over 6.3 M, `nine
///   stones=5` 16.8 s over 86.6 M; `nine moving`, whose largest layers take gigabytes,
///   4,199 s over 8,905 M (472 ns an entry): the far cost.
///
/// The MPI costs of a chunk that needs fetched children (`fetched_ns`) were measured as
/// wall time on 2 ranks (young 16 x 16, connect 6 x 4, twins 4 x 5); they are scaled here
/// by the ratio of the same builds' CPU time on one thread to their wall time then.
pub fn costs(game: &str, board: &str) -> Costs {
    const GIB: f64 = (1u64 << 30) as f64;
    let (ns, far_ns, cache_bytes, fetched_ns) = match game {
        "young" => (6.8, 0.0, 1.0, 16.0),
        "twins" => (10.5, 0.0, 1.0, 100.0),
        "mnk" => (77.0, 0.0, 1.0, 100.0),
        "connect" => (27.0, 0.0, 1.0, 56.0),
        "teeko" => (295.0, 0.0, 1.0, 0.0),
        "quixo" if board.starts_with("5x5") => (1990.0, 0.0, 1.0, 0.0),
        "quixo" => (640.0, 0.0, 1.0, 0.0),
        "morris" => (215.0, 400.0, 2.0 * GIB, 0.0),
        _ => (10.5, 0.0, 1.0, 100.0),
    };
    Costs {
        ns,
        far_ns,
        cache_bytes,
        fetched_ns,
    }
}

impl Costs {
    /// Nanoseconds an entry of layer `k` of `game` costs one thread, values `width` bytes
    /// wide, where the solve holds `entries` of the layer (a rank's slice: the whole layer
    /// on one process): the near cost, and for a layer another worker than the sweep
    /// solves the far cost by the share of its working set (its words and values, and the
    /// layers it reads) the cache does not hold.
    pub fn layer_ns<G: Game>(&self, game: &G, k: usize, entries: u64, width: u64) -> f64 {
        if crate::solve::worker(game, k) == crate::solve::Worker::Sweep || self.far_ns == 0.0 {
            return self.ns;
        }
        let read: u64 = game
            .child_layers(k)
            .into_iter()
            .filter(|&c| c != k && c <= game.last_layer())
            .map(|c| game.layer_size(c) * width)
            .sum();
        let working = (entries * (3 + width)).saturating_add(read) as f64;
        self.ns + self.far_ns * working / (working + self.cache_bytes)
    }
}

/// CPU seconds a build of `game` on one process takes (all its threads' time together),
/// its values `width` bytes wide and its table `disk_bytes` on disk.
pub fn seconds<G: Game>(game: &G, costs: Costs, width: u64, disk_bytes: u64) -> f64 {
    let compute: f64 = (0..=game.last_layer())
        .map(|k| {
            let n = game.layer_size(k);
            n as f64 * costs.layer_ns(game, k, n, width)
        })
        .sum();
    (compute + disk_bytes as f64 * NS_PER_DISK_BYTE) * 1e-9
}
