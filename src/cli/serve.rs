//! `retro serve`: tables over HTTP, as a JSON API and an explorer page.
//!
//! The tables, their games and their summaries are built once at start and shared
//! read-only by every request; `http` holds the router, the handlers and the assets.

mod conn;
mod http;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::answers::probe::Prober;
use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Visitor};
use crate::table::Table;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro serve tables/young-sample.retro tables/twins-sample1.retro
  retro serve tables/*.retro --addr 127.0.0.1:0 --quiet
  curl http://127.0.0.1:8080/api/young-sample/1,0

Each table is served under its file stem: tables/young-sample.retro is `young-sample`,
at http://127.0.0.1:8080/young-sample (the explorer) and /api/young-sample/POSITION.
NAME=PATH serves a table under NAME instead (two tables of one stem: old=a/t.retro
new=b/t.retro).")]
pub struct Args {
    /// Table files, each served under its file stem, or NAME=PATH to serve one under NAME
    /// (an argument that is an existing file is a path, even with a `=` in it).
    #[arg(required = true, value_name = "TABLE")]
    tables: Vec<PathBuf>,
    /// Address to listen on; port 0 takes any free port. Only loopback by default: the
    /// server has no authentication.
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Once the server listens, print the explorer's URL on stdout and open it in a
    /// browser ($BROWSER, else xdg-open; open on macOS).
    #[arg(long)]
    open: bool,
    /// No access log on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// Seconds a connection has to send a request's head, from when it opens or from its
    /// last answer (so an idle connection is closed after this long), and then as long
    /// again to send a batch's body (a body still incomplete then is answered 408). A
    /// client that takes none of an answer's bytes for this long is disconnected.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = timeout_seconds)]
    timeout: f64,
    /// Connections open at once; one more is answered 503. Batch bodies being received
    /// take at most half of them, so slow uploads always leave room for other requests
    /// [default: what the descriptor limit allows, raised to its hard limit, at most 16384].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections: Option<u32>,
    #[command(flatten)]
    threads: super::Threads,
}

/// One table as the server holds it.
pub(crate) struct Served {
    name: String,
    /// The table's game, built once: building one per request would copy the board's
    /// weights and tables each time.
    game: Box<dyn Prober>,
    table: Table,
    /// Its entry in `GET /api/tables`.
    summary: Value,
    /// Where it opens (`Gameplay::opening`), in the game's notation, and why there when
    /// that is not the game's start.
    opening: (String, Option<String>),
}

/// A table argument: the name it is served under and its file. `NAME=PATH` names it; a
/// plain path is served under its file stem. An argument that is an existing file is a
/// path, even with a `=` in it, so no file that serves today stops serving.
fn name_and_path(arg: &Path) -> Result<(String, PathBuf)> {
    let named = match arg.to_str() {
        Some(text) if !arg.exists() => text.split_once('='),
        _ => None,
    };
    if let Some((name, path)) = named {
        if name.is_empty() || name.contains('/') || path.is_empty() {
            return Err(Error::input(format!(
                "{}: a table is named as NAME=PATH, NAME not empty and without a /, such as young=tables/young-sample.retro",
                arg.display()
            )));
        }
        return Ok((name.to_string(), PathBuf::from(path)));
    }
    let name = arg
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            Error::input(format!(
                "{}: cannot serve a table whose file name is not UTF-8 text under its file stem; give it a name, as NAME=PATH",
                arg.display()
            ))
        })?;
    Ok((name.to_string(), arg.to_path_buf()))
}

impl Served {
    fn open<R: Registry>(name: String, path: &Path) -> Result<Served> {
        // `/api/tables` is the list of tables: a table of that name could not be reached
        // at `/api/NAME` as every other is.
        if name == "tables" {
            return Err(Error::input(format!(
                "{}: a table named \"tables\" cannot be served, since /api/tables is the list of tables; serve it under another name, as NAME=PATH (such as t={})",
                path.display(),
                path.display()
            )));
        }
        let table = Table::open_in::<R>(path)?.with_mmap()?;
        // As `info` does: a table whose values do not match its checksum is not served.
        table.verify_checksum()?;
        let board = table.header.game.clone();
        let game = R::visit(&board, Boxed)?;
        // The explorer opens there, and `GET /api/TABLE` answers for it; a note says why
        // where it is not the game's start (a table without one).
        let opening = game.opening();
        let (rows, cols) = board.dims();
        let mut summary = json!({
            "name": name,
            "game": board.name(),
            // The board as `info --json` names it (3x3k3), and in words beside it.
            "board": board.label(),
            "board_words": board.size_words(),
            "rows": rows,
            "cols": cols,
            // A folded table's entries stand for more positions: both, each by its name.
            "positions": crate::answers::info::layer_positions::<R>(&table)?.iter().sum::<u64>(),
            "entries": table.header.total_positions(),
            "value_type": table.header.value_type.name(),
        });
        // The root as `info --json` gives it: `root_value` for a game of scores, else
        // `root_code` beside `root_result` and `root_remoteness` (and for a table without
        // a start, those of the position it opens on, with `root_position`); and in words,
        // as `build` and `info` say it.
        let root = crate::answers::info::root_words::<R>(&table)?;
        root.add_to(&mut summary);
        summary["root_words"] = json!(root.line());
        // The explorer draws the board from its own fields (young's weights a and b,
        // twins' pair weights, mnk's K), whatever the game: the board as the table header
        // stores it.
        summary["spec"] = board.to_json();
        // A board of points and lines (morris) is drawn from them.
        if let Some(points) = board.points() {
            summary["points"] = json!(points.cells);
            summary["links"] = json!(points.links);
        }
        summary["opening"] = json!(opening.0);
        summary["opening_note"] = json!(opening.1);
        Ok(Served {
            name,
            game,
            table,
            summary,
            opening,
        })
    }

    /// `retro query --json`'s object for `text`, with `pv` when asked for.
    fn query(&self, text: &str, pv: bool) -> Result<Value> {
        self.game.query_json(&self.table, text, pv)
    }

    /// `query` of the position the table opens on, with a `note` where that is not the
    /// game's start (a table of the moving phase alone).
    fn opening(&self, pv: bool) -> Result<Value> {
        let (text, note) = &self.opening;
        let mut answer = self.query(text, pv)?;
        if let Some(note) = note {
            answer["note"] = json!(note);
        }
        Ok(answer)
    }
}

/// Everything the handlers share: the tables by name, in name order.
pub(crate) struct State {
    tables: BTreeMap<String, Served>,
    /// Batches computing at once, at most one per worker thread.
    batches: std::sync::Arc<tokio::sync::Semaphore>,
    /// Batch bodies being received at once: half the connection cap, so that clients
    /// sending bodies slowly (or never) cannot hold every connection.
    uploads: std::sync::Arc<tokio::sync::Semaphore>,
    /// The most bodies received at once (`uploads`' size), for its 503.
    max_uploads: usize,
    /// Time a batch's body has to arrive once its head has.
    body_timeout: std::time::Duration,
}

/// Bodies received at once for a connection cap of `connections`: half, at least one.
fn upload_limit(connections: usize) -> usize {
    (connections / 2).max(1)
}

impl State {
    fn load<R: Registry>(
        paths: &[PathBuf],
        workers: usize,
        connections: usize,
        body_timeout: std::time::Duration,
    ) -> Result<State> {
        let mut tables: BTreeMap<String, Served> = BTreeMap::new();
        let mut from: BTreeMap<String, PathBuf> = BTreeMap::new();
        for arg in paths {
            let (name, path) = name_and_path(arg)?;
            if let Some(other) = from.get(&name) {
                return Err(Error::input(format!(
                    "{} and {} would both be served as {name:?}: give one another name, as NAME=PATH (such as {name}-2={})",
                    other.display(),
                    path.display(),
                    path.display()
                )));
            }
            let served = Served::open::<R>(name.clone(), &path)?;
            from.insert(name.clone(), path);
            tables.insert(name, served);
        }
        let max_uploads = upload_limit(connections);
        Ok(State {
            tables,
            batches: std::sync::Arc::new(tokio::sync::Semaphore::new(workers.max(1))),
            uploads: std::sync::Arc::new(tokio::sync::Semaphore::new(max_uploads)),
            max_uploads,
            body_timeout,
        })
    }
}

/// A table's game behind a trait object, so tables of several games share one map.
struct Boxed;

impl Visitor for Boxed {
    type Output = Box<dyn Prober>;

    fn visit<G: Registered>(self, game: G) -> Result<Box<dyn Prober>> {
        Ok(Box::new(game))
    }
}

fn timeout_seconds(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.05..=86400.0).contains(&s) => Ok(s),
        _ => Err("a number of seconds from 0.05 to 86400".into()),
    }
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    super::check_threads(args.threads.threads.as_slice())?;
    let workers = args
        .threads
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let max_connections = args
        .max_connections
        .map_or_else(conn::connection_limit, |n| n as usize);
    let timeout = std::time::Duration::from_secs_f64(args.timeout);
    let state = State::load::<R>(&args.tables, workers, max_connections, timeout)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .map_err(|e| Error::io("starting the server's threads", e))?;
    runtime.block_on(http::serve(
        state,
        args.addr,
        http::Options {
            open: args.open,
            quiet: args.quiet,
            max_connections,
            timeout,
        },
    ))?;
    Ok(0)
}
