//! `retro plan`: what a build over MPI ranks will take, per layer and in total, worked out
//! without MPI.

use super::GameName;
use crate::distributed::budget::Figures;
use crate::distributed::estimate::LayerPlan;
use crate::error::{Error, Result};
use crate::game::{Board, Registered, Registry, Visitor};
use crate::memory::human_bytes;
use crate::solve::Worker;
use crate::stored::ValueType;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro plan young 20x20 --ranks 16 --threads 32
  retro plan twins 5x5 --ranks 64 --bytes-per-second 1.25e10 --total
  retro plan connect 7x6 --ranks 8 --total        seven columns, six rows
  retro plan quixo 5x5 --ranks 16 --threads 32 --json   the figures for a job script")]
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
    /// Print one JSON object: the totals (bytes, seconds) and, without `--total`, the
    /// layers' rows.
    #[arg(long)]
    json: bool,
    /// Plan a table of every position, not one entry per orbit of the board's symmetries
    /// (mnk, connect, Teeko, Quixo and Morris fold them by default, over MPI ranks too).
    #[arg(long)]
    no_fold: bool,
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    if !(args.bytes_per_second.is_finite() && args.bytes_per_second > 0.0) {
        return Err(Error::input("--bytes-per-second must be a positive number"));
    }
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
    R::visit(&board, Plan { args: &args })
}

/// The plan, on the board's game.
struct Plan<'a> {
    args: &'a Args,
}

impl Visitor for Plan<'_> {
    type Output = i32;

    fn visit<G: Registered>(self, game: G) -> Result<i32> {
        let args = self.args;
        let options = crate::build::BuildOptions {
            compact: args.compact,
            ..Default::default()
        };
        let f = Figures::of(
            &game,
            args.ranks as usize,
            args.threads as usize,
            &options,
            args.bytes_per_second,
        )?;
        match args.json {
            true => super::outln!("{}", to_json(&game, args, &f))?,
            false => print_text(&game, args, &f)?,
        }
        Ok(0)
    }
}

/// "i8 values", or how a table of values for the side to move computed wider is written.
fn values_said(f: &Figures) -> String {
    match (f.written, f.computed) {
        (w, c) if w == c => format!("{} values", w.name()),
        (ValueType::Halved, c) => {
            format!("i8-halved values (a byte each, computed in {})", c.name())
        }
        (w, c) => format!(
            "{w} values (computed in {c}, written again in {w} once every value fits it; a table with a value that does not stays in {c})",
            w = w.name(),
            c = c.name(),
        ),
    }
}

/// The table's size: where the build writes it again narrower, that size, and the most
/// it takes otherwise; a compact table's is the most it takes.
fn table_said<G: Registered>(game: &G, args: &Args, f: &Figures) -> String {
    let at_most = if args.compact { "at most " } else { "" };
    match f.estimate.narrow_table_bytes {
        Some(narrow) => format!(
            "{at_most}{} in {} (at most {} where a value does not fit a byte)",
            human_bytes(narrow as f64),
            f.written.name(),
            human_bytes(f.estimate.table_bytes as f64)
        ),
        // Values for the side to move, as the build's estimate says them
        // (`build::Prepared::table_at_most`).
        None if game.values().for_side_to_move() => {
            format!("at most {}", human_bytes(f.estimate.table_bytes as f64))
        }
        None => format!("{at_most}{}", human_bytes(f.estimate.table_bytes as f64)),
    }
}

fn print_text<G: Registered>(game: &G, args: &Args, f: &Figures) -> Result<()> {
    let board = game.board().label();
    let positions: u64 = (0..=game.last_layer())
        .map(|k| game.layer_positions(k))
        .sum();
    // A folded table's slices are ranges of entries (orbits), as in the build.
    let entries = match game.symmetries() > 1 {
        true => format!(
            "{} entries for {positions} positions",
            game.total_positions()
        ),
        false => format!("{positions} positions"),
    };
    let costs = f.costs;
    super::outln!(
        "plan: {} {board}, {}, {} ranks x {} threads, {}, {} ns per entry per thread ({}), {} per second per rank",
        args.game.as_str(),
        entries,
        f.ranks,
        f.threads,
        values_said(f),
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
    let width = f.computed.width() as u64;
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
        for l in &f.layers {
            print_layer(l, width)?;
        }
    }
    // Twice and the time, with what they mean: the two figures most often misread.
    let twice = match f.ranks {
        1 => String::new(),
        _ => format!(
            ", {:.0}% of entries computed twice (a chunk with children in other ranks' slices is computed from the rank's own, then again once those are fetched)",
            100.0 * f.twice
        ),
    };
    super::outln!(
        "total: {} entries per rank, recv {} and sent {} per rank (largest rank each layer{}), peak memory per rank {} (layers {}, ranking tables {}), table {}, disk needed {}{twice}, estimated {:.0} s (CPU time: {:.0} s a rank over its {} threads{}; wall time is longer where other work shares the cores)",
        f.entries_per_rank(),
        human_bytes(f.received_bytes as f64),
        human_bytes(f.sent_bytes as f64),
        if f.layers.iter().any(|l| l.sampled) {
            "; large slices sampled"
        } else {
            ""
        },
        human_bytes(f.peak_memory as f64),
        human_bytes(f.layer_memory as f64),
        human_bytes(game.table_bytes() as f64),
        table_said(game, args, f),
        human_bytes(f.estimate.disk_bytes as f64),
        f.wall_seconds,
        f.cpu_seconds,
        f.threads,
        match f.ranks {
            1 => "",
            _ => ", and its traffic on the wire",
        }
    )
}

/// `plan --json`: the figures in bytes and seconds, for a job script.
fn to_json<G: Registered>(game: &G, args: &Args, f: &Figures) -> serde_json::Value {
    let positions: u64 = (0..=game.last_layer())
        .map(|k| game.layer_positions(k))
        .sum();
    let width = f.computed.width() as u64;
    let mut out = serde_json::json!({
        "game": G::NAME,
        "board": game.board().label(),
        "positions": positions,
        "entries": game.total_positions(),
        "ranks": f.ranks,
        "threads": f.threads,
        "value_type": f.written.name(),
        "computed_in": f.computed.name(),
        "entries_per_rank": f.entries_per_rank(),
        "peak_memory_bytes": f.peak_memory,
        "layer_memory_bytes": f.layer_memory,
        "ranking_table_bytes": game.table_bytes(),
        "table_bytes": f.estimate.narrow_table_bytes.unwrap_or(f.estimate.table_bytes),
        "table_bytes_at_most": f.estimate.table_bytes,
        "disk_bytes": f.estimate.disk_bytes,
        "received_bytes": f.received_bytes,
        "sent_bytes": f.sent_bytes,
        "computed_twice": f.twice,
        "cpu_seconds": f.cpu_seconds,
        "wall_seconds": f.wall_seconds,
        "bytes_per_second": args.bytes_per_second,
    });
    if !args.total {
        out["layers"] = f
            .layers
            .iter()
            .map(|l| {
                serde_json::json!({
                    "layer": l.k,
                    "worker": worker_name(l.worker),
                    "entries": l.positions,
                    "entries_per_rank": l.per_rank,
                    "received_bytes": l.received * width + l.told_bytes(),
                    "sent_bytes": l.sent * width + l.told_bytes(),
                    "peak_bytes": l.peak_bytes,
                    "disk_bytes": l.disk_bytes,
                    "computed_twice": (l.worker == Worker::Sweep).then_some(l.remote_share),
                    "cpu_seconds": l.cpu_seconds,
                    "seconds": l.seconds,
                    "sampled": l.sampled,
                })
            })
            .collect::<Vec<_>>()
            .into();
    }
    out
}

fn worker_name(worker: Worker) -> &'static str {
    match worker {
        Worker::Sweep => "sweep",
        Worker::Pass => "pass",
        Worker::Fixpoint => "fixpoint",
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
        worker_name(l.worker),
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
