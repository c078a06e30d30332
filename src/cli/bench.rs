//! `retro bench`: thread scaling of the full sweep, as a table, CSV, JSON or markdown.

use std::io::IsTerminal;
use std::path::PathBuf;

use super::BoardArgs;
use crate::bench;
use crate::error::Result;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    board: BoardArgs,
    /// Runs per thread count (at least 1); the median is reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Untimed warm-up per thread count: at least one run, and more until this many
    /// seconds have passed.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.5, value_parser = warmup_seconds)]
    warmup: f64,
    /// No per-run times on stderr (they are shown only when stderr is a terminal).
    #[arg(short, long)]
    quiet: bool,
    /// Print the rows as a JSON array.
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    json: bool,
    /// Print the rows as CSV.
    #[arg(long, conflicts_with = "markdown")]
    csv: bool,
    /// Print the rows as a markdown table.
    #[arg(long)]
    markdown: bool,
    /// Draw the speedup curve against the ideal line into an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

pub fn run(args: Args, threads: &[usize]) -> Result<i32> {
    let spec = args.board.load()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let default: Vec<usize> = (1..=cores).collect();
    let threads = if threads.is_empty() {
        &default[..]
    } else {
        threads
    };
    for &t in threads.iter().filter(|&&t| t > cores) {
        eprintln!("warning: {t} threads is more than this machine's {cores} cores");
    }
    // Each run's time, between runs (never inside a timed region), for a person watching.
    let watched = !args.quiet && std::io::stderr().is_terminal();
    let rows = bench::run(&spec, threads, args.repeat as usize, args.warmup, |t, s| {
        if watched {
            eprintln!("  {t} thread(s): {s:.3} s");
        }
    })?;
    let out = if args.json {
        bench::to_json(&rows) + "\n"
    } else if args.csv {
        bench::to_csv(&rows)
    } else if args.markdown {
        bench::to_markdown(&rows)
    } else {
        bench::to_text(&rows)
    };
    print!("{out}");
    if let Some(path) = &args.plot {
        let (r, c) = spec.dims();
        bench::plot_svg(
            &rows,
            &format!("retro {} {r} x {c}: speedup", spec.name()),
            path,
        )?;
    }
    Ok(0)
}

fn warmup_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=3600.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a number of seconds from 0 to 3600")),
    }
}
