//! The command line: one file per subcommand, each a thin layer over the library.

mod bench;
mod build;
mod generate;
mod info;
mod plan;
mod play;
mod pv;
mod query;
mod solve;
mod verify;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use crate::error::{Error, Result, io_error};
use crate::game::GameSpec;

#[derive(Parser)]
#[command(
    name = "retro",
    version,
    about = "Exact retrograde tables for placement games"
)]
struct Cli {
    /// Worker threads (default: all cores); `bench` takes a list such as 1,2,4.
    #[arg(long, global = true, value_name = "N", value_delimiter = ',')]
    threads: Vec<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the contest answer for a board.
    Solve(solve::Args),
    /// Build the complete value table of a board.
    Build(build::Args),
    /// Look up a position in a table: its value and every move's value.
    Query(query::Args),
    /// Describe a table file and check its checksum.
    Info(info::Args),
    /// Play against the table's perfect player in the terminal (moves as `row col`).
    Play(play::Args),
    /// Re-derive every entry of a table from its children and check its checksum.
    Verify(verify::Args),
    /// Time the sweep per thread count (thread scaling).
    Bench(bench::Args),
    /// Print a random board in the contest input format.
    Gen(generate::Args),
    /// Estimate a build over MPI ranks: per-rank positions, memory, traffic and time.
    Plan(plan::Args),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum GameName {
    Young,
    Twins,
}

impl GameName {
    pub fn as_str(self) -> &'static str {
        match self {
            GameName::Young => "young",
            GameName::Twins => "twins",
        }
    }
}

/// Where a board comes from: the game, a file or stdin, and (twins) its size.
#[derive(clap::Args)]
pub struct BoardArgs {
    /// The game: young or twins.
    game: GameName,
    /// Contest input file (stdin when absent).
    file: Option<PathBuf>,
    /// Rows of a twins board (default 3).
    #[arg(long, value_name = "R")]
    rows: Option<usize>,
    /// Columns of a twins board (default 3).
    #[arg(long, value_name = "C")]
    cols: Option<usize>,
}

impl BoardArgs {
    fn load(&self) -> Result<GameSpec> {
        let text = match &self.file {
            Some(path) => std::fs::read_to_string(path).map_err(|e| io_error(path, e))?,
            None => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| Error::other(format!("reading stdin: {e}")))?;
                text
            }
        };
        let from = self
            .file
            .as_deref()
            .map_or("stdin".into(), |p| p.display().to_string());
        GameSpec::parse(self.game.as_str(), &text, self.rows, self.cols)
            .map_err(|e| e.context(from))
    }
}

pub fn run() -> Result<i32> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    if cli.threads.contains(&0) {
        return Err(Error::input("--threads must be at least 1"));
    }
    if let Command::Bench(args) = cli.command {
        return bench::run(args, &cli.threads);
    }
    if cli.threads.len() > 1 {
        return Err(Error::input(
            "--threads takes one number here (a list is for `retro bench`)",
        ));
    }
    thread_pool(cli.threads.first().copied())?;
    match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Build(args) => build::run(args),
        Command::Query(args) => query::run(args),
        Command::Info(args) => info::run(args),
        Command::Gen(args) => generate::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Play(args) => play::run(args),
        Command::Plan(args) => plan::run(args, cli.threads.first().copied()),
        Command::Bench(_) => Ok(0),
    }
}

/// Help and version go out as clap writes them; a usage error becomes one `error: ...`
/// line like every other error (clap's own text spans several lines).
fn usage_error(e: clap::Error) -> Result<i32> {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            Ok(0)
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            Ok(2)
        }
        _ => {
            // The first paragraph, on one line.
            let text = e.render().to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let first = first.join(" ");
            let first = first.strip_prefix("error: ").unwrap_or(&first);
            Err(Error::input(format!("{first} (see retro --help)")))
        }
    }
}

/// Size rayon's global pool: every parallel loop of the command runs there, including the
/// table writer's packing, which runs on the writer's own thread (outside any `install`).
fn thread_pool(threads: Option<usize>) -> Result<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build_global()
        .map_err(|e| Error::other(format!("cannot start worker threads: {e}")))
}

/// A progress bar on stderr, or None when stderr is not a terminal or output is quiet.
fn progress_bar(total: u64, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(total);
    let style =
        ProgressStyle::with_template("{msg:28} [{bar:30}] {percent:>3}% {per_sec:>14} ETA {eta}")
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}

fn open_table(path: &Path) -> Result<crate::table::Table> {
    crate::table::Table::open(path)
}
