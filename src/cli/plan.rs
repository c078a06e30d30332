//! `retro plan`: what a build over MPI ranks will take, per layer and in total, worked out
//! without MPI.

use super::GameName;
use crate::build::footprint;
use crate::distributed::estimate::{self, LayerPlan};
use crate::error::{Error, Result};
use crate::game::{Board, Registered, Registry, Visitor};
use crate::memory::human_bytes;
use crate::solve::Worker;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro plan young 20x20 --ranks 16 --threads 32
  retro plan twins 5x5 --ranks 64 --bytes-per-second 1.25e10 --total
  retro plan connect 7x6 --ranks 8 --total        seven columns, six rows")]
pub struct Args {
    /// The game (`retro help games` describes each).
    game: GameName,
    /// Board size: rows x columns (e.g. 20x20), but width x height for connect (7x6 is
    /// seven columns of six); or a board in its game's words (`4x4k3`, `4x4 advanced`,
    /// several words needing no quotes); none for the board `build` takes without one.
    #[arg(value_name = "SIZE")]
    size: Vec<String>,
    /// Worker threads per rank.
    #[arg(long, value_name = "T", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    threads: u32,
    /// MPI ranks.
    #[arg(long, value_name = "P", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    ranks: u32,
    /// Network bandwidth per rank, bytes per second.
    #[arg(long, value_name = "B", default_value_t = 1e9)]
    bytes_per_second: f64,
    /// Largest weight of the boards to plan for (the value type follows); sizes do not
    /// depend on weights.
    #[arg(long, value_name = "W", default_value_t = 0)]
    max_weight: u64,
    /// Plan a compact table (its size on disk is then an upper bound).
    #[arg(long)]
    compact: bool,
    /// Print the total only.
    #[arg(long)]
    total: bool,
    /// Plan a table of every position, not one entry per orbit of the board's symmetries
    /// (mnk, connect, Teeko, Quixo and Morris fold them by default, over MPI ranks too).
    #[arg(long)]
    no_fold: bool,
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    if !(args.bytes_per_second.is_finite() && args.bytes_per_second > 0.0) {
        return Err(Error::input("--bytes-per-second must be a positive number"));
    }
    let threads = args.threads as usize;
    let board = super::generate::board_for_size::<R>(
        args.game.as_str(),
        &args.size.join(" "),
        0,
        args.max_weight,
        "--max-weight",
    )?;
    let board = if args.no_fold {
        board.unfolded()
    } else {
        board
    };
    let ranks = args.ranks as usize;
    if ranks > estimate::MAX_RANKS {
        return Err(Error::input(format!(
            "--ranks {ranks} is more than plan describes: at most {}",
            estimate::MAX_RANKS
        )));
    }
    R::visit(
        &board,
        Plan {
            args: &args,
            threads,
            ranks,
        },
    )
}

/// The plan, on the board's game.
struct Plan<'a> {
    args: &'a Args,
    threads: usize,
    ranks: usize,
}

impl Visitor for Plan<'_> {
    type Output = i32;

    fn visit<G: Registered>(self, game: G) -> Result<i32> {
        let Plan {
            args,
            threads,
            ranks,
        } = self;
        let board = game.board().label();
        let vt = crate::solve::value_type(&game);
        let costs = estimate::costs(G::NAME, &board);
        let width = vt.width() as u64;
        let layers = estimate::plan(
            &game,
            ranks,
            threads,
            width,
            args.compact,
            costs,
            args.bytes_per_second,
        );
        // A folded table's slices are ranges of entries (orbits), as in the build.
        let positions: u64 = (0..=game.last_layer())
            .map(|k| game.layer_positions(k))
            .sum();
        let entries = match game.symmetries() > 1 {
            true => format!(
                "{} entries for {positions} positions",
                game.total_positions()
            ),
            false => format!("{positions} positions"),
        };
        let halved = game.values().for_side_to_move() && game.halved_values();
        // Values for the side to move computed wider than a byte are written again in one
        // byte once every value is known to fit (`build::build`).
        let narrowed = game.values().for_side_to_move() && !halved && width > 1;
        super::outln!(
            "plan: {} {board}, {}, {ranks} ranks x {threads} threads, {} values{}, {} ns per entry per thread ({}), {} per second per rank",
            args.game.as_str(),
            entries,
            vt.name(),
            match (halved, narrowed) {
                (true, _) => " (stored as i8-halved: a byte each)",
                (_, true) => " (stored in i8 where every value fits a byte)",
                _ => "",
            },
            costs.ns,
            match costs.far_ns > 0.0 {
                true => format!("up to +{} as a layer outgrows the cache", costs.far_ns),
                false => format!(
                    "+{} where its chunk needs fetched children",
                    costs.fetched_ns
                ),
            },
            human_bytes(args.bytes_per_second)
        )?;
        if !args.total {
            super::outln!(
                "{:>5} {:>8} {:>15} {:>14} {:>14} {:>14} {:>11} {:>11} {:>6} {:>10}",
                "layer",
                "worker",
                "entries",
                "per rank",
                "recv/rank",
                "sent/rank",
                "peak/rank",
                "disk",
                "twice",
                "seconds"
            )?;
            for l in &layers {
                print_layer(l, width)?;
            }
        }
        let sum = |f: fn(&LayerPlan) -> u64| layers.iter().map(f).sum::<u64>();
        // Values fetched or served, and a fixpoint's updates (delta-coded, as many each way).
        let bytes = |values: &dyn Fn(&LayerPlan) -> u64| {
            layers
                .iter()
                .map(|l| values(l) * width + l.told_bytes())
                .sum::<u64>()
        };
        let mut peak = layers.iter().map(|l| l.peak_bytes).max().unwrap_or(0);
        // What the process holds beyond its layers: the binary, the ranking tables, the
        // final rewrite of a table narrowed to one byte (rank 0's).
        let stored_width = if halved { 1 } else { width };
        let narrowing = footprint::narrowing_bytes(&game, width, stored_width);
        let mut process = footprint::process_bytes(&game, peak, narrowing);
        let mut seconds: f64 = layers.iter().map(|l| l.seconds).sum();
        let mut table = sum(|l| l.disk_bytes);
        // One process is a build without MPI: its figures are the build's own estimate
        // (`build::Estimate::of`), the one `retro build` prints before it starts, so that
        // the two never differ (the fixpoint worker it picks, finished layers read back
        // from the table file, the header).
        if ranks == 1 {
            let options = crate::build::BuildOptions {
                compact: args.compact,
                ..Default::default()
            };
            let one = crate::build::Estimate::of(&game, std::path::Path::new("plan"), &options)?;
            peak = one.layer_memory;
            process = one.peak_memory;
            seconds = one.cpu_seconds / threads as f64;
            table = one.table_bytes;
        }
        // The table in one byte a value, where a build writes it so once every value fits.
        let narrow = match narrowed && !args.compact {
            true => format!(
                " (in i8, where every value fits a byte: {})",
                human_bytes(table.saturating_sub(game.total_positions() * (width - 1)) as f64)
            ),
            false => String::new(),
        };
        let twice: f64 = layers
            .iter()
            .map(|l| l.per_rank as f64 * l.remote_share)
            .sum::<f64>()
            / sum(|l| l.per_rank).max(1) as f64;
        super::outln!(
            "total: {} entries per rank, recv {} and sent {} per rank (largest rank each layer{}), peak memory per rank {} (layers {}, ranking tables {}), table {}{}{narrow}, {:.0}% of entries computed twice, estimated {:.0} s",
            sum(|l| l.per_rank),
            human_bytes(bytes(&|l| l.received) as f64),
            human_bytes(bytes(&|l| l.sent) as f64),
            if layers.iter().any(|l| l.sampled) {
                "; large slices sampled"
            } else {
                ""
            },
            human_bytes(process as f64),
            human_bytes(peak as f64),
            human_bytes(game.table_bytes() as f64),
            // As the build's estimate says it: a compact table, or values for the side to
            // move (narrowed, or halved: `build::build`).
            if args.compact || game.values().for_side_to_move() {
                "at most "
            } else {
                ""
            },
            human_bytes(table as f64),
            100.0 * twice,
            seconds
        )?;
        Ok(0)
    }
}

fn print_layer(l: &LayerPlan, width: u64) -> Result<()> {
    let mark = if l.sampled { "~" } else { "" };
    let sweep = l.worker == Worker::Sweep;
    // Values fetched or served, and a fixpoint's updates (delta-coded, as many each way).
    let exchange = |values: u64| {
        format!(
            "{mark}{}",
            human_bytes((values * width + l.told_bytes()) as f64)
        )
    };
    super::outln!(
        "{:>5} {:>8} {:>15} {:>14} {:>14} {:>14} {:>11} {:>11} {:>6} {:>10.3}",
        l.k,
        match l.worker {
            Worker::Sweep => "sweep",
            Worker::Pass => "pass",
            Worker::Fixpoint => "fixpoint",
        },
        l.positions,
        l.per_rank,
        exchange(l.received),
        exchange(l.sent),
        human_bytes(l.peak_bytes as f64),
        human_bytes(l.disk_bytes as f64),
        match sweep {
            true => format!("{mark}{:.0}%", 100.0 * l.remote_share),
            false => "-".into(),
        },
        l.seconds
    )
}
