//! `retro query`: a position's value and every move's value, from the table file.

use std::path::PathBuf;

use serde_json::json;

use super::lines::{Line, MAX_LINE, read_line};
use super::open_table;
use std::io::Write;

use crate::answers::probe::{
    Answer, MoveStyle, answer, answer_text, describe_move, line_json, line_values,
    played_from_start, principal_variation, pv_json, read_position, to_json,
};
use crate::error::{Error, Result};
use crate::game::{Registered, Registry, Visitor};
use crate::table::Table;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro query tables/young-sample.retro 1,0
  retro query tables/young-sample.retro empty --pv --json
  retro query ttt.retro 'start 2,2 1,1 1,3' --line   a position as moves from the start, and the value after each
  printf '0,0\\n1,0\\n' | retro query tables/young-sample.retro --batch
  printf 'empty\\n' | retro query quixo.retro --batch --codes   a Quixo table's stored codes
  retro query ttt.retro --batch --quiet < positions.txt   refusals summed up in one line on stderr")]
pub struct Args {
    /// Table file.
    table: PathBuf,
    /// Position in the notation of the table's game (the games below), or `empty`, or
    /// moves from the start: `start` and the moves separated by spaces, each as `play`
    /// reads it (`start 2,2 1,1`, `start a5 c5`).
    #[arg(required_unless_present = "batch")]
    position: Option<String>,
    /// Read positions from stdin, one per line, and print one value per line (with
    /// --json, one object per line; --pv needs --json here). A game that ends in a win, a
    /// loss, a tie or a draw prints its result in words: `win in 7`, `loss in 2`, `tie`,
    /// `draw`.
    #[arg(long, conflicts_with = "position")]
    batch: bool,
    /// With --batch: print each position's stored number as it is, a code for games that
    /// end in a win, a loss, a tie or a draw (`retro help games` says how each is read).
    #[arg(long, conflicts_with = "json")]
    codes: bool,
    /// With --batch: instead of a line on stderr per refused input, one line at the end
    /// saying how many were refused and the first (the exit code is 2 all the same).
    #[arg(long)]
    quiet: bool,
    /// Also print the principal variation to the end of the game.
    #[arg(long)]
    pv: bool,
    /// For a position given as moves from the start: the value after each ply of the
    /// line, and whether each move was best (JSON: `line`).
    #[arg(long, conflicts_with = "batch")]
    line: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Verify the table's checksum before answering (reads the whole file).
    #[arg(long)]
    check: bool,
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    let table = open_table::<R>(&args.table)?;
    if args.check {
        table.verify_checksum()?;
    }
    let board = table.header.game.clone();
    R::visit(&board, Query { args: &args, table })
}

/// The rest of `query`, on the table's game.
struct Query<'a> {
    args: &'a Args,
    table: Table,
}

impl Visitor for Query<'_> {
    type Output = i32;

    fn visit<G: Registered>(self, game: G) -> Result<i32> {
        let Query { args, table } = self;
        if args.codes && !args.batch {
            return Err(Error::input(
                "--codes goes with --batch: a single query says the result in words, and --json gives the code as `code`",
            ));
        }
        if args.quiet && !args.batch {
            return Err(Error::input(
                "--quiet goes with --batch: it sums up the refused lines of a batch, and a single query's refusal is its one error line",
            ));
        }
        if args.batch {
            if args.pv && !args.json {
                return Err(Error::input(
                    "--batch --pv needs --json: a line of play does not fit one value per line",
                ));
            }
            let style = if args.json {
                Batch::Json { pv: args.pv }
            } else {
                Batch::Plain { codes: args.codes }
            };
            let table = table.with_mmap()?.check_layers_as_read();
            return batch(&game, &table, style, args.quiet);
        }
        let text = args.position.as_deref().unwrap_or_default();
        let a = match answer_text(&game, &table, text) {
            Err(e) if e.is_input() && looks_like_a_move(&game, text) => {
                return Err(a_move_for_a_position::<G>(&args.table, text));
            }
            answered => answered?,
        };
        // The line's values, ply by ply, for a position given as moves from the start.
        let line = match args.line {
            false => None,
            true => {
                if game.start_position().is_none() {
                    return Err(Error::input(
                        "--line needs a position given as moves from the start, and this table has no start (it holds part of a game)",
                    ));
                }
                let played = played_from_start(&game, text)?.ok_or_else(|| {
                    Error::input(format!(
                        "--line needs a position given as moves from the start: `start` and the moves separated by spaces, such as `retro query {} 'start {}' --line`",
                        args.table.display(),
                        example_moves(&game)
                    ))
                })?;
                Some(line_values(&game, &table, &played)?)
            }
        };
        let pv = if args.pv {
            Some(principal_variation(&game, &table, &a.position)?)
        } else {
            None
        };
        if args.json {
            let mut out = to_json(&game, &a);
            if let Some(pv) = &pv {
                out["pv"] = pv_json(&game, pv);
            }
            if let Some(line) = &line {
                out["line"] = line_json(&game, line);
            }
            super::outln!("{out}")?;
        } else {
            super::out!("{}", crate::answers::text::answer(&game, &a))?;
            if let Some(pv) = &pv {
                super::out!(
                    "{}",
                    crate::answers::text::principal_variation(&game, pv, a.value, &a.position)
                )?;
            }
            if let Some(line) = &line {
                super::out!("{}", crate::answers::text::line_of_play(&game, line))?;
            }
        }
        Ok(0)
    }
}

/// Two moves from the start, as a line given as moves is written (`2,2 1,1`), for a
/// message.
fn example_moves<G: Registered>(game: &G) -> String {
    let Some(start) = game.start_position() else {
        return String::new();
    };
    let mut out = Vec::new();
    let mut at = start;
    for _ in 0..2 {
        let Some(mv) = game.moves(&at).into_iter().next() else {
            break;
        };
        out.push(describe_move(game, MoveStyle::Field, &mv));
        at = mv.child;
    }
    out.join(" ")
}

/// Whether `text`, which is no position, is written as a move is (`retro query six.retro
/// d2`): one of the start's moves, or cells and the game's names of points joined by `-`
/// and `x` as its moves are (`d2-d3xa4`, `1,1-1,3`).
fn looks_like_a_move<G: Registered>(game: &G, text: &str) -> bool {
    let Some(start) = game.start_position() else {
        return false;
    };
    // Young's positions are numbers and commas, as a cell is: no telling them apart.
    let numbers = |s: &str| s.chars().all(|c| c.is_ascii_digit() || c == ',');
    if numbers(&game.format_position(&start)) {
        return false;
    }
    let key = |s: &str| -> String {
        s.split_whitespace()
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let names: Vec<String> = game
        .moves(&start)
        .iter()
        .flat_map(|mv| {
            [MoveStyle::Listed, MoveStyle::Field].map(|style| key(&describe_move(game, style, mv)))
        })
        .collect();
    let text = key(text);
    let cell = |part: &str| {
        part.split_once(',').is_some_and(|(r, c)| {
            !r.is_empty()
                && !c.is_empty()
                && r.chars().chain(c.chars()).all(|ch| ch.is_ascii_digit())
        })
    };
    !text.is_empty()
        && (names.contains(&text)
            || text
                .split(['-', 'x'])
                .all(|part| cell(part) || names.iter().any(|n| n == part)))
}

/// The error for a move given where `query` takes a position: what a position is, and
/// where moves go instead.
fn a_move_for_a_position<G: Registered>(table: &std::path::Path, text: &str) -> Error {
    let table = table.display();
    let position = match G::notation().position {
        "" => "`retro help games` says how".to_string(),
        form => format!("a {} position is {form}", G::NAME),
    };
    Error::input(format!(
        "{} looks like a move, where query takes a position: `retro query {table} empty` lists \
         the moves from the start with their values, and `retro play {table}` plays moves \
         typed one a line (stdin too); {position}",
        crate::error::excerpt(text)
    ))
}

/// What `--batch` prints per line.
#[derive(Clone, Copy)]
enum Batch {
    /// The value alone (the fast path: one entry read per line): in words for a game that
    /// ends in a win, a loss, a tie or a draw, unless the stored `codes` are asked for.
    Plain { codes: bool },
    /// `query --json`'s object with the input line number (and the principal variation).
    Json { pv: bool },
}

/// One output line per input line, so output lines up with input: a bad line (not UTF-8,
/// too long, not a position) prints `error` (JSON: an object with `error`) in its place and
/// a message with its number on stderr, and the rest go on; exit code 2 if any line
/// failed. A damaged table is not a bad line: it stops the batch (exit 1); each layer's
/// checksum is checked when the batch first reads it. `quiet` (`--quiet`) trades the
/// message per bad line for one at the end: how many, and the first.
///
/// Answers are held until the table is seen unchanged since they were read (a file written
/// over in place reads as garbage): every answer printed was read from the table as opened.
fn batch<G: Registered>(game: &G, table: &Table, style: Batch, quiet: bool) -> Result<i32> {
    let mut stdin = std::io::stdin().lock();
    let mut out = Checked {
        table,
        held: Vec::with_capacity(1 << 16),
        stdout: std::io::stdout().lock(),
    };
    let mut failed = 0u64;
    // `--quiet`'s summary names the first refusal, as the message per line would have.
    let mut first_refused: Option<String> = None;
    let io = |e: std::io::Error| Error::io("writing output", e);
    let mut buf = Vec::new();
    let mut number = 0u64;
    loop {
        let line =
            match read_line(&mut stdin, &mut buf).map_err(|e| Error::io("reading stdin", e))? {
                None => break,
                Some(Line::TooLong) => Err(Error::input(format!(
                    "longer than {MAX_LINE} bytes, not a position"
                ))),
                Some(Line::Bytes(bytes)) => std::str::from_utf8(bytes).map_err(|e| {
                    Error::input(format!("byte {} is not UTF-8 text", e.valid_up_to() + 1))
                }),
            };
        number += 1;
        let looked_up = line
            .and_then(|text| read_position(game, text))
            .and_then(|(pos, from_start)| game.check_reachable(&pos).map(|()| (pos, from_start)))
            .and_then(|(pos, from_start)| {
                Ok(match style {
                    Batch::Plain { codes } => {
                        let stones = game.layer_of(&pos);
                        let value = table.value(stones, game.rank(&pos))?;
                        match game.outcome(value, stones) {
                            Some(o) if !codes => o.words(),
                            _ => value.to_string(),
                        }
                    }
                    Batch::Json { pv } => {
                        let a = Answer {
                            from_start,
                            ..answer(game, table, pos)?
                        };
                        let mut obj = to_json(game, &a);
                        if pv {
                            obj["pv"] =
                                pv_json(game, &principal_variation(game, table, &a.position)?);
                        }
                        obj["line"] = json!(number);
                        obj.to_string()
                    }
                })
            });
        match looked_up {
            Ok(value) => {
                writeln!(out.held, "{value}").map_err(io)?;
                if out.held.len() >= 1 << 16 {
                    out.flush()?;
                }
            }
            Err(e) if e.is_input() => {
                failed += 1;
                match style {
                    Batch::Plain { .. } => writeln!(out.held, "error").map_err(io)?,
                    Batch::Json { .. } => writeln!(
                        out.held,
                        "{}",
                        json!({"line": number, "error": e.to_string()})
                    )
                    .map_err(io)?,
                }
                out.flush()?;
                match quiet {
                    true => {
                        first_refused.get_or_insert_with(|| format!("line {number}: {e}"));
                    }
                    false => eprintln!("error: line {number}: {e}"),
                }
            }
            Err(e) => return table.unless_changed(Err(e)),
        }
    }
    out.flush()?;
    if let Some(first) = first_refused {
        let s = if number == 1 { "" } else { "s" };
        eprintln!("error: {failed} of {number} position{s} refused (first: {first})");
    }
    Ok(if failed > 0 {
        crate::error::Exit::Input.code()
    } else {
        0
    })
}

/// Batch output held until the table is checked unchanged.
struct Checked<'a, W: Write> {
    table: &'a Table,
    held: Vec<u8>,
    stdout: W,
}

impl<W: Write> Checked<'_, W> {
    fn flush(&mut self) -> Result<()> {
        self.table.check_unchanged()?;
        let io = |e: std::io::Error| Error::io("writing output", e);
        self.stdout.write_all(&self.held).map_err(io)?;
        self.held.clear();
        self.stdout.flush().map_err(io)
    }
}
