//! The command line: one file per subcommand, each a thin layer over the library.

mod bench;
mod build;
mod completions;
mod diff;
mod export;
mod generate;
mod info;
pub(crate) mod lines;
mod man;
mod markdown;
mod plan;
mod play;
mod query;
mod serve;
mod solve;
mod stats;
mod verify;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use crate::error::{Error, Exit, Result, io_error};
use crate::game::{AnyBoard, Notation, Registry};

/// `retro --version`: says whether the binary builds over MPI ranks, which a cluster
/// user needs to know before writing a job script.
const VERSION: &str = if cfg!(feature = "mpi") {
    concat!(env!("CARGO_PKG_VERSION"), " (mpi)")
} else {
    env!("CARGO_PKG_VERSION")
};

#[derive(Parser)]
#[command(
    name = "retro",
    version = VERSION,
    about = "Exact retrograde tables for two-player games: placement games and games whose stones move"
)]
#[command(after_help = "\
Examples:
  retro build young tables/young-sample.txt      build tables/young-sample.retro
  retro query tables/young-sample.retro 1,0      a position's value and every move's
  retro help games                               rules, input formats, position notation

Each command has its own help: retro build --help.")]
struct Cli {
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
    /// Count each layer's wins, losses, ties and draws, and its longest win.
    Stats(stats::Args),
    /// Compare two tables of one board entry by entry.
    Diff(diff::Args),
    /// Play against the table's perfect player in the terminal.
    Play(play::Args),
    /// Re-derive every entry of a table from its children and check its checksum.
    Verify(verify::Args),
    /// Write a table's positions, values and best moves to a CSV or Parquet file.
    Export(export::Args),
    /// Serve tables over HTTP: a JSON API and an explorer page in the browser.
    Serve(serve::Args),
    /// Time the sweep per thread count (thread scaling).
    Bench(bench::Args),
    /// Print a random board in the contest input format.
    Gen(generate::Args),
    /// Estimate a build over MPI ranks: per-rank positions, memory, traffic and time.
    Plan(plan::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Print the manual page (roff) to stdout.
    Man(man::Args),
}

/// `--threads` for the commands whose work runs on rayon's pool.
#[derive(clap::Args)]
pub struct Threads {
    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

impl Threads {
    /// Check the count and size rayon's global pool with it.
    fn start(&self) -> Result<()> {
        check_threads(self.threads.as_slice())?;
        thread_pool(self.threads)
    }
}

/// A game named on the command line: one of the registry's (`Registry::names`), which
/// `run` gives clap as the possible values.
#[derive(Clone, Debug)]
pub struct GameName(String);

impl GameName {
    /// The name as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl clap::builder::ValueParserFactory for GameName {
    type Parser =
        clap::builder::MapValueParser<clap::builder::PossibleValuesParser, fn(String) -> GameName>;
    fn value_parser() -> Self::Parser {
        let names = GAME_NAMES.get().cloned().unwrap_or_default();
        clap::builder::TypedValueParser::map(
            clap::builder::PossibleValuesParser::new(names),
            GameName as fn(String) -> GameName,
        )
    }
}

/// The running registry's game names, for clap's possible values: set once by `run`
/// before the command line is built (a derived parser cannot take an argument, and
/// changing the argument afterwards would move it among the positionals).
static GAME_NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();

/// The command line for registry `R`: every game argument takes its games, and the help
/// of the commands that take a board, a position or a move lists each game's notation
/// (`Registered::notation`), so no game is left out of them.
fn command<R: Registry>() -> clap::Command {
    let _ = GAME_NAMES.set(R::names());
    let games = R::notations();
    let boards = games_help_block(
        "the board each takes, in FILE or as its words in FILE's place",
        &games,
        |n| vec![n.board.into()],
    );
    let mut command = with_games(
        Cli::command(),
        &games_help_block(
            "their boards are in retro build --help, positions in retro query --help, moves in retro play --help, rules in retro help games",
            &games,
            |n| vec![n.summary.into()],
        ),
    );
    for sub in ["solve", "build", "bench"] {
        command = command.mut_subcommand(sub, |c| with_games(c, &boards));
    }
    let positions = games_help_block(
        "each game's positions (any game's may also be `empty`), then its moves as listed",
        &games,
        |n| {
            let moves = match n.moves {
                "" => String::new(),
                moves => format!("moves: {moves}"),
            };
            vec![n.position.into(), moves]
        },
    );
    command = command.mut_subcommand("query", |c| with_games(c, &positions));
    let moves = games_help_block(
        "each game's moves as typed at the prompt, and which mark each side plays (--as)",
        &games,
        |n| {
            let marks = n.marks.map_or("", |(first, _)| match first {
                'x' => "x plays first, o second",
                'o' => "o plays first, x second",
                _ => "",
            });
            vec![n.moves.into(), marks.into()]
        },
    );
    command.mut_subcommand("play", |c| with_games(c, &moves))
}

/// `command` with `block` after its examples.
fn with_games(command: clap::Command, block: &str) -> clap::Command {
    let after = match command.get_after_help() {
        Some(examples) => format!("{examples}\n\n{block}"),
        None => block.to_string(),
    };
    command.after_help(after)
}

/// The heading `Games: intro`, then each game's name and the lines `lines` makes from its
/// notation, one under the other, an empty one left out; a game that leaves them all empty
/// points at `retro help games`. `retro man` turns the block into the page's GAMES section.
fn games_help_block(
    intro: &str,
    games: &[(&'static str, Notation)],
    lines: impl Fn(&Notation) -> Vec<String>,
) -> String {
    let width = games.iter().map(|(name, _)| name.len()).max().unwrap_or(0) + 2;
    let mut text = format!("Games: {intro}");
    for (name, notation) in games {
        let mut said: Vec<String> = lines(notation)
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect();
        if said.is_empty() {
            said.push("see retro help games".into());
        }
        for (i, line) in said.iter().enumerate() {
            let name = if i == 0 { name } else { "" };
            text.push_str(&format!("\n  {name:width$}{line}"));
        }
    }
    text
}

/// Where a board comes from: the game, a file, its words or stdin, and (twins) its size.
#[derive(clap::Args)]
pub struct BoardArgs {
    /// The game (`retro help games` describes each).
    game: GameName,
    /// Contest input file (stdin when absent), or the board's own words in its place where
    /// the game reads a board from words (`7x6`, `4x4 advanced`: the games below), when no
    /// file of that name exists; several words need no quotes.
    #[arg(value_name = "FILE|BOARD")]
    words: Vec<PathBuf>,
    /// Rows of a twins board [default: inferred from the input].
    #[arg(long, value_name = "R")]
    rows: Option<usize>,
    /// Columns of a twins board [default: inferred from the input].
    #[arg(long, value_name = "C")]
    cols: Option<usize>,
    /// Store every position, not one entry per orbit of the board's symmetries (mnk, connect,
    /// Teeko, Quixo and Morris fold symmetric positions together by default; tables of best
    /// moves never do).
    #[arg(long)]
    no_fold: bool,
}

impl BoardArgs {
    /// The one word after the game, a file's name or a board's words; `-` is stdin, as
    /// for most tools (`retro gen young 3x3 | retro build young -`).
    fn file(&self) -> Option<&Path> {
        match self.words.as_slice() {
            [one] if one.as_os_str() != "-" => Some(one),
            _ => None,
        }
    }

    /// The board given in place of a file (`6x5`, `4x4k3`): one argument that names no
    /// file and reads as a board of the game.
    fn inline<R: Registry>(&self) -> Option<AnyBoard> {
        let path = self.file()?;
        if path.exists() {
            return None;
        }
        R::parse_sized(self.game.as_str(), path.to_str()?, self.rows, self.cols).ok()
    }

    /// The board's input file; None for stdin or a board given in its place.
    fn input_file<R: Registry>(&self) -> Option<&std::path::Path> {
        match self.inline::<R>() {
            Some(_) => None,
            None => self.file(),
        }
    }

    /// The board of several words (`retro build teeko 4x4 advanced`): the words, a space
    /// between each, are its text, as if quoted; no file takes more than one argument.
    fn board_of_words<R: Registry>(&self) -> Result<AnyBoard> {
        let words: Vec<&str> = self
            .words
            .iter()
            .map(|w| w.to_str())
            .collect::<Option<_>>()
            .ok_or_else(|| Error::input("a board's words must be UTF-8 text"))?;
        let game = self.game.as_str();
        R::parse_sized(game, &words.join(" "), self.rows, self.cols).map_err(|e| {
            if self.words[0].is_file() {
                // `retro build young my board.txt`: a file's name with a space in it.
                Error::input(format!(
                    "{}: a board file comes alone, and {} after it is not part of a {game} board; quote a file's name that has spaces in it",
                    self.words[0].display(),
                    crate::error::excerpt(&words[1..].join(" "))
                ))
            } else {
                e
            }
        })
    }

    fn load<R: Registry>(&self) -> Result<AnyBoard> {
        let board = self.load_board::<R>()?;
        Ok(if self.no_fold {
            board.unfolded()
        } else {
            board
        })
    }

    fn load_board<R: Registry>(&self) -> Result<AnyBoard> {
        if self.words.len() > 1 {
            return self.board_of_words::<R>();
        }
        if let Some(board) = self.inline::<R>() {
            return Ok(board);
        }
        let from = self
            .file()
            .map_or("stdin".into(), |p| p.display().to_string());
        let bytes = match self.file() {
            Some(path) => {
                let file = match std::fs::File::open(path) {
                    Ok(file) => file,
                    // A bare word that is neither a file nor a board: say both, since
                    // `retro build connect 9x9` means a board, not a file.
                    Err(e)
                        if e.kind() == std::io::ErrorKind::NotFound
                            && path.components().count() == 1 =>
                    {
                        let game = self.game.as_str();
                        let why = R::parse_sized(game, &from, self.rows, self.cols)
                            .err()
                            .map_or(String::new(), |e| format!(" ({e})"));
                        return Err(Error::input(format!(
                            "{from}: no such file, nor a {game} board{why}{}",
                            weights_hint::<R>(game, &from)
                        )));
                    }
                    Err(e) => return Err(io_error(path, e)),
                };
                read_bounded(file, &from)?
            }
            None => {
                let stdin = std::io::stdin();
                // A game whose board may be left out (standard Teeko, 5 x 5 Quixo) does
                // not wait for a board typed at the terminal.
                if stdin.is_terminal()
                    && let Ok(board) = R::parse_sized(self.game.as_str(), "", self.rows, self.cols)
                {
                    return Ok(board);
                }
                if stdin.is_terminal() {
                    eprintln!(
                        "reading the {} board from stdin (end with Ctrl-D; `retro help games` shows the format)",
                        self.game.as_str()
                    );
                }
                read_bounded(stdin.lock(), &from)?
            }
        };
        self.parse_bytes::<R>(bytes, &from)
    }

    /// The board in a file's (or standard input's) bytes.
    fn parse_bytes<R: Registry>(&self, bytes: Vec<u8>, from: &str) -> Result<AnyBoard> {
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::input(format!(
                "{from}: not a board: byte {} is not UTF-8 text",
                e.utf8_error().valid_up_to() + 1
            ))
        })?;
        R::parse_sized(self.game.as_str(), &text, self.rows, self.cols).map_err(|e| e.context(from))
    }

    /// `load` for every rank of an MPI job (`retro build` and `solve` under mpirun): a
    /// board on standard input reaches rank 0 alone, which reads it and sends it to the
    /// others (`distributed::share_input`); a file or the board's words every rank reads
    /// itself. Elsewhere `load`.
    fn load_on_every_rank<R: Registry>(&self) -> Result<AnyBoard> {
        #[cfg(feature = "mpi")]
        if crate::distributed::under_mpi()
            && self.words.len() <= 1
            && self.inline::<R>().is_none()
            && self.file().is_none()
        {
            let read = || -> Result<Vec<u8>> {
                let bytes = read_bounded(std::io::stdin().lock(), "stdin")?;
                // Checked here, so that a bad board is rank 0's one error line.
                self.parse_bytes::<R>(bytes.clone(), "stdin")?;
                Ok(bytes)
            };
            let bytes = crate::distributed::share_input(read)?;
            let board = self.parse_bytes::<R>(bytes, "stdin")?;
            return Ok(if self.no_fold {
                board.unfolded()
            } else {
                board
            });
        }
        self.load::<R>()
    }
}

/// For a size given where a board of weights belongs (`retro build young 3x3`): how to make
/// a board of that size and build it, in the command that was typed. Empty where the word
/// is no size, or `gen` makes no board of that size.
fn weights_hint<R: Registry>(game: &str, word: &str) -> String {
    let Ok(size) = generate::parse_size(word) else {
        return String::new();
    };
    if R::random(game, size, 1, 9, "--max").is_err() {
        return String::new();
    }
    // The subcommand as typed, so that the hint is a command to run as it stands.
    let command = std::env::args()
        .nth(1)
        .filter(|c| ["solve", "build", "bench"].contains(&c.as_str()))
        .unwrap_or_else(|| "build".into());
    format!(
        "; a {game} board has weights: make one with `retro gen {game} {word} | retro {command} {game} -`"
    )
}

/// A board file larger than this is not a board anyone can sweep (a young board of
/// 1000 x 1000 cells is about 14 MB of text); refusing it keeps a wrong file from being
/// read into memory whole.
const MAX_BOARD_BYTES: u64 = 256 << 20;

fn read_bounded(source: impl Read, from: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    source
        .take(MAX_BOARD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(format!("reading {from}"), e))?;
    if bytes.len() as u64 > MAX_BOARD_BYTES {
        return Err(Error::input(format!(
            "{from}: not a board: more than {} of input",
            crate::memory::human_bytes(MAX_BOARD_BYTES as f64)
        )));
    }
    Ok(bytes)
}

/// `retro help games` for the built-in games.
const GAMES: &str = include_str!("../../docs/games.md");

/// The whole program for the games of registry `R`: parse the command line, run the
/// command, print an error as one `error: ...` line, and exit with the command's code.
/// `retro`'s own binary is `retro::main::<retro::Builtin>()`; a crate with a game of
/// its own passes `(retro::Builtin, MyGame)`, or `MyGame` alone.
pub fn main<R: Registry>() -> ! {
    let code = match run::<R>() {
        Ok(code) => code,
        // Whoever read our output has stopped reading (`| head`): end quietly.
        Err(err) if err.is_broken_pipe() => Exit::Success.code(),
        Err(err) => {
            // A rank of an MPI job prints its error before it leaves the job.
            #[cfg(feature = "mpi")]
            let printed = crate::distributed::printed(&err);
            #[cfg(not(feature = "mpi"))]
            let printed = false;
            if !printed {
                eprintln!("error: {err}");
            }
            err.exit_code()
        }
    };
    std::process::exit(code);
}

/// Parse the command line and run the command for the games of registry `R`; returns the
/// exit code.
pub fn run<R: Registry>() -> Result<i32> {
    // `help games` is a topic, not a subcommand; clap's own `help` handles the rest.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 3 && args[1] == "help" && args[2] == "games" {
        write_stdout(&markdown::to_text(&games_help::<R>()))?;
        return Ok(0);
    }
    let cmd = command::<R>();
    let cli = match cmd
        .clone()
        .try_get_matches_from(&args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return usage_error(e, &args, &R::names()),
    };
    match cli.command {
        Command::Solve(args) => solve::run::<R>(args),
        Command::Build(args) => build::run::<R>(args),
        Command::Query(args) => query::run::<R>(args),
        Command::Info(args) => info::run::<R>(args),
        Command::Stats(args) => stats::run::<R>(args),
        Command::Diff(args) => diff::run::<R>(args),
        Command::Gen(args) => generate::run::<R>(args),
        Command::Verify(args) => verify::run::<R>(args),
        Command::Play(args) => play::run::<R>(args),
        Command::Bench(args) => bench::run::<R>(args),
        Command::Export(args) => export::run::<R>(args),
        Command::Plan(args) => plan::run::<R>(args),
        Command::Serve(args) => serve::run::<R>(args),
        Command::Completions(args) => completions::run(args, cmd),
        Command::Man(args) => man::run(args, cmd),
    }
}

/// `retro help games`: the built-in games' page where the registry has any of them, then
/// each other game's own rules (`Registered::rules`).
fn games_help<R: Registry>() -> String {
    let builtin = crate::game::Builtin::names();
    let mut text = String::new();
    if R::names().iter().any(|n| builtin.contains(n)) {
        text.push_str(GAMES);
    }
    for (name, rules) in R::rules() {
        if builtin.contains(&name) {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        if rules.is_empty() {
            text.push_str(&format!("# {name}\n\n(no rules given)\n"));
        } else {
            text.push_str(rules);
        }
    }
    text
}

/// Help and version go out as clap writes them; a usage error becomes one `error: ...`
/// line like every other error (clap's own text spans several lines), keeping clap's
/// "did you mean" tip and pointing at the subcommand's own help.
fn usage_error(e: clap::Error, args: &[std::ffi::OsString], names: &[&'static str]) -> Result<i32> {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            e.print().map_err(|e| Error::io("writing output", e))?;
            Ok(0)
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            e.print().map_err(|e| Error::io("writing output", e))?;
            Ok(Exit::Input.code())
        }
        _ => {
            // The subcommand whose help to point at: clap names it in its usage line
            // when it prints one, else it is the first argument, if that is one.
            let named = args
                .get(1)
                .and_then(|a| a.to_str())
                .filter(|a| Cli::command().get_subcommands().any(|c| c.get_name() == *a));
            let mut line = one_line_usage_error(&e.render().to_string(), named);
            if e.kind() == ErrorKind::InvalidValue
                && let Some(instead) = named.and_then(|sub| other_name(sub, args, names))
            {
                // Before the pointer to the help, which ends the line.
                let at = line.rfind(" (see retro ").unwrap_or(line.len());
                line.insert_str(at, &format!("; {instead}"));
            }
            Err(Error::input(line))
        }
    }
}

/// Games known by another name that are a board of one of retro's: the name as typed
/// without case or punctuation, the game and its board.
const OTHER_NAMES: [(&str, &str, &str); 3] = [
    ("tictactoe", "mnk", "3x3k3"),
    ("connect4", "connect", "7x6"),
    ("connectfour", "connect", "7x6"),
];

/// For a game name retro does not have but knows as a board of one it has (`retro build
/// tictactoe`): the command to type instead, where the registry has that game.
fn other_name(sub: &str, args: &[std::ffi::OsString], names: &[&str]) -> Option<String> {
    args.iter().skip(2).find_map(|arg| {
        let given = arg.to_str()?;
        let key: String = given
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        let (_, game, board) = OTHER_NAMES
            .iter()
            .find(|&&(name, game, _)| name == key && names.contains(&game))?;
        Some(format!(
            "{given} is the {game} board {board}: retro {sub} {game} {board}"
        ))
    })
}

/// clap's paragraphs (the error, a tip, the usage line) folded into one line.
fn one_line_usage_error(text: &str, named: Option<&str>) -> String {
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .map(|p| p.lines().map(str::trim).collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect();
    let first = paragraphs.first().map_or("bad arguments", String::as_str);
    let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
    if let Some(tip) = paragraphs.iter().find(|p| p.starts_with("tip:")) {
        line.push_str(&format!("; {tip}"));
    }
    // "Usage: retro query [OPTIONS] ..." names the subcommand whose help to read.
    let sub = paragraphs
        .iter()
        .find_map(|p| p.strip_prefix("Usage: retro "))
        .and_then(|u| u.split_whitespace().next())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        .or(named);
    match sub {
        Some(sub) => line.push_str(&format!(" (see retro {sub} --help)")),
        None => line.push_str(" (see retro --help)"),
    }
    line
}

/// Write to stdout, returning an error where `print!` would panic: a closed pipe (which
/// `main` turns into a quiet exit) or a full disk.
pub(crate) fn write_stdout(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("writing output", e))
}

/// `print!` that returns a `Result` (see `write_stdout`).
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::write_stdout(&format!($($arg)*)) };
}

/// `println!` that returns a `Result` (see `write_stdout`).
macro_rules! outln {
    ($($arg:tt)*) => { $crate::cli::write_stdout(&format!("{}\n", format_args!($($arg)*))) };
}
pub(crate) use {out, outln};

/// More worker threads than this many per core only cost start-up time (10,000 threads
/// took 32 s to start here) and memory.
const THREADS_PER_CORE: usize = 4;

/// Refuse thread counts of 0 or far beyond the machine.
fn check_threads(threads: &[usize]) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let limit = THREADS_PER_CORE * cores;
    for &t in threads {
        if t == 0 {
            return Err(Error::input("--threads must be at least 1"));
        }
        if t > limit {
            return Err(Error::input(format!(
                "--threads {t} is too many: at most {limit} ({THREADS_PER_CORE} per core, {cores} cores here)"
            )));
        }
    }
    Ok(())
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
    // indicatif's own {per_sec} prints every digit ("11,931,532.14826732687652/s").
    let style =
        ProgressStyle::with_template("{msg:28} [{bar:30}] {percent:>3}% {rate:>20} ETA {eta}")
            .map(|s| {
                s.progress_chars("=> ").with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{} positions/s", human_count(state.per_sec()));
                    },
                )
            })
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}

/// 11931532.1 -> "11.9 M": three significant figures and an SI prefix.
pub fn human_count(x: f64) -> String {
    const PREFIXES: [&str; 5] = ["", " k", " M", " G", " T"];
    let mut v = x;
    let mut p = 0;
    while v.abs() >= 1000.0 && p + 1 < PREFIXES.len() {
        v /= 1000.0;
        p += 1;
    }
    if p == 0 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.0}{}", PREFIXES[p])
    } else if v.abs() >= 10.0 {
        format!("{v:.1}{}", PREFIXES[p])
    } else {
        format!("{v:.2}{}", PREFIXES[p])
    }
}

fn open_table<R: Registry>(path: &Path) -> Result<crate::table::Table> {
    crate::table::Table::open_in::<R>(path)
}
