//! `retro bench`: thread scaling of the full sweep, as a table, CSV, JSON or markdown.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::BoardArgs;
mod runs;

use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Visitor};
use runs::{self as bench, Progress};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro gen young 14x14 | retro bench young --threads 1,2 --repeat 5
  retro bench young tables/young-10x10.txt --json > bench.json")]
pub struct Args {
    #[command(flatten)]
    board: BoardArgs,
    /// Thread counts to time, each in its own pool [default: 1 up to the cores].
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    threads: Vec<usize>,
    /// Runs per thread count (1 to 1000000); speedup is from the median, and the mean ± σ
    /// and min … max are shown beside it.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    repeat: u32,
    /// Untimed warm-up per thread count: at least one run, and more until this many
    /// seconds have passed.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.5, value_parser = warmup_seconds)]
    warmup: f64,
    /// No progress line on stderr (it is shown only when stderr is a terminal).
    #[arg(short, long)]
    quiet: bool,
    /// Print a JSON object: game, board, positions and the results with every run's time.
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    json: bool,
    /// Print the rows as CSV, each with the game, board and positions.
    #[arg(long, conflicts_with = "markdown")]
    csv: bool,
    /// Print the rows as a markdown table under a line naming the board.
    #[arg(long)]
    markdown: bool,
    /// Draw the speedup curve against the ideal line into an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    super::check_threads(&args.threads)?;
    let threads = &args.threads[..];
    let board = args.board.load::<R>()?;
    // Runs take tens of seconds on large boards; a plot that cannot be written should fail
    // before them, not after.
    if let Some(path) = &args.plot {
        check_writable(path)?;
    }
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
    // Other work on the machine takes cores from the runs: speedups come out low (0.47 on
    // two threads was measured so), with nothing in the table to say why.
    if let Some(load) = bench::load_average()
        && load >= BUSY_LOAD
        && !args.quiet
    {
        eprintln!(
            "warning: load average {load:.2} on {cores} cores: other work is running, so times \
             are long and speedups low; bench on a quiet machine"
        );
    }
    let mut line = ProgressLine {
        shown: false,
        enabled: !args.quiet && std::io::stderr().is_terminal(),
    };
    let mut progress = |p| match p {
        Progress::WarmUp { threads } => line.show(&format!("threads {threads}: warm-up")),
        Progress::Run {
            threads,
            run,
            of,
            last,
        } => line.show(&match last {
            Some(s) => format!("threads {threads}: run {run}/{of} (last {})", seconds(s)),
            None => format!("threads {threads}: run {run}/{of}"),
        }),
    };
    let result = R::visit(
        &board,
        Timed {
            threads,
            repeat: args.repeat as usize,
            warmup: args.warmup,
            progress: &mut progress,
        },
    )?;
    drop(line);
    let out = if args.json {
        bench::to_json(&result)? + "\n"
    } else if args.csv {
        bench::to_csv(&result)
    } else if args.markdown {
        bench::to_markdown(&result)
    } else {
        bench::to_text(&result)
    };
    super::out!("{out}")?;
    if let Some(path) = &args.plot {
        bench::plot_svg(
            &result.results,
            &format!("retro {} {}: speedup", result.game, result.board),
            path,
        )?;
    }
    Ok(0)
}

/// The runs, on the board's game.
struct Timed<'a> {
    threads: &'a [usize],
    repeat: usize,
    warmup: f64,
    progress: &'a mut dyn FnMut(Progress),
}

impl Visitor for Timed<'_> {
    type Output = bench::Bench;

    fn visit<G: Registered>(self, game: G) -> Result<bench::Bench> {
        bench::run(&game, self.threads, self.repeat, self.warmup, self.progress)
    }
}

/// A time for a person, in the unit that gives it a few significant digits.
fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// The one progress line on stderr, redrawn in place between runs. Dropping it clears it, so
/// the results, or an error, start on a clean line.
struct ProgressLine {
    shown: bool,
    enabled: bool,
}

impl ProgressLine {
    fn show(&mut self, text: &str) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            // A progress line that cannot be drawn is no reason to stop the runs.
            let _ = write!(err, "\r\x1b[2K{text}");
            let _ = err.flush();
            self.shown = true;
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// A one-minute load average from which the machine counts as busy: half a core of other
/// work already shows in a two-thread speedup.
const BUSY_LOAD: f64 = 0.5;

/// Whether the plot can be written, without leaving a file behind: an existing file must
/// open for writing (untouched), a new one must be creatable (and is removed again).
fn check_writable(path: &Path) -> Result<()> {
    let fail = |why: String| Error::other(format!("--plot {}: {why}", path.display()));
    if path.is_dir() {
        return Err(fail("is a directory".into()));
    }
    let mut open = std::fs::OpenOptions::new();
    if path.exists() {
        open.write(true)
            .open(path)
            .map_err(|e| fail(e.to_string()))?;
    } else {
        open.write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| fail(e.to_string()))?;
        std::fs::remove_file(path).map_err(|e| fail(e.to_string()))?;
    }
    Ok(())
}

fn warmup_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=3600.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a number of seconds from 0 to 3600")),
    }
}
