//! `retro export`: a table's positions with their values and a best move, streamed to CSV
//! or Parquet for study in pandas or polars.
//!
//! Memory stays bounded whatever the table's size: layers are walked in rank order a few
//! chunks of values at a time, and Parquet buffers one row group (at most `ROW_GROUP` rows)
//! because its writer takes a row group column by column.

use std::fs::File;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use clap::ArgGroup;

use super::{open_table, progress_bar};
use crate::answers::export::csv::{CsvSink, MoveCsvSink};
#[cfg(feature = "parquet")]
use crate::answers::export::parquet::{MoveParquetSink, ParquetSink};
use crate::answers::export::{
    RowSink, Rows, columns_of, move_columns_of, move_rows_of, rows_of, walk_size,
};
use crate::error::{Error, Result, io_error};
use crate::game::{AnyBoard, Registered, Registry, Visitor};
use crate::progress::{Progress, Silent};
use crate::table::Table;
use crate::table::partial::{self, Kind, Partial, crash_point};

/// Rows per Parquet row group. Readers parallelise and skip by row group, so groups should
/// be large, but the writer holds a whole group before writing it.
const ROW_GROUP: u64 = 1 << 20;

#[derive(clap::Args)]
#[command(group(ArgGroup::new("format").args(["csv", "parquet"])))]
#[command(after_help = "\
Examples:
  retro export tables/twins-sample1.retro -o twins.csv
  retro export tables/young-10x10.retro --layer 50 -o layer50.parquet
  retro export tables/twins-sample1.retro -o - | head

The format is --csv or --parquet, or else the output's extension (.csv; .parquet or .pq);
`-o -` writes CSV to standard output (and the summary line, unless -q, to standard error).

Columns: position, stones (on the board; Quixo: the cubes taken), to_move (first, second, or
none where play has ended), value (seen from the first player: young's and twins' values,
mnk's and connect's codes, positive when x wins; teeko, quixo and morris, whose values are
for the side to move, name it value_to_move), best_move; games that end in a win, a loss, a tie or a
draw (mnk, connect, teeko, quixo, morris) then have result (for the side to move: win, loss,
tie or draw) and remoteness (plies to the end with best play); then reachable (false for a
board no game reaches, such as tic-tac-toe with a line for each side: leave those out of
counts; empty, not known, where the table cannot tell: a Quixo or Morris table without a
start, whose positions do not show their history); then the best move as integers.
best_move is the first best move in `retro query`'s order, as `row,col` (1-based, row 1 at
the top), with best_row and best_col the same numbers; for connect, whose moves are columns,
the column alone (`3`, 1-based from the left), and best_column; for teeko and quixo
`row,col-row,col` where a stone or cube moves, and best_from_row, best_from_col, best_row,
best_col; for morris its name (`d2`, `d2-d3`, `d2-d3xa4`) alone, and morris has x_in_hand
and o_in_hand after stones. The move's columns are empty (Parquet: null) where nobody moves:
a full board, or a game already won.

--all writes, for a folded table, exactly the rows of an unfolded (--no-fold) table of the
board, in its order. --moves writes a row per legal move instead, each position's moves in
`retro query`'s order: position, move (as query --json writes it), child (the position it
leads to), then result and remoteness (the move's result for the side that plays it, and
the plies to the end from the position) or, for young and twins, value (the move's reward
plus its child's value, for the first player); orbit_size last for a folded table without
--all.")]
pub struct Args {
    #[command(flatten)]
    threads: super::Threads,
    /// Table file.
    table: PathBuf,
    /// Export only layer K: in a placement game the positions with K stones; Quixo's and
    /// Morris's layers are their own, and `retro stats` says what each holds [default:
    /// every layer, 0 first].
    #[arg(long, value_name = "K")]
    layer: Option<usize>,
    /// Write CSV with a header line.
    #[arg(long)]
    csv: bool,
    /// Write Parquet (snappy-compressed row groups of up to 1M rows).
    #[arg(long)]
    parquet: bool,
    /// Output file (`-`: standard output); an existing regular file is replaced once the
    /// export is complete.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// No progress bar and no summary line.
    #[arg(short, long)]
    quiet: bool,
    /// For a table that folds symmetric positions (one entry per orbit): one row per
    /// position, every position of each orbit, rather than one row per entry with its
    /// `orbit_size`; and for morris, a row per position lost for want of stones, rather
    /// than one for the entry that stands for them all.
    #[arg(long)]
    all: bool,
    /// One row per move of each position written (every position with `--all`), in
    /// `retro query`'s order: position, move, child, then the move's result and
    /// remoteness for the side that plays it (its value in a game of scores).
    #[arg(long)]
    moves: bool,
    /// Test hook: abort, as a kill would, just before the Nth write, sync or rename of the
    /// partial file (see `partial::crash_before_step`).
    #[arg(long, hide = true, value_name = "N")]
    crash_before_step: Option<u64>,
    /// Rows per Parquet row group; hidden, it lets the tests cross group boundaries on
    /// small tables.
    #[arg(long, hide = true, value_name = "N", default_value_t = ROW_GROUP,
          value_parser = clap::value_parser!(u64).range(1..))]
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    row_group: u64,
}

/// What the rows are written as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Parquet,
}

/// The format the flags say, or else the output's extension (`-` is CSV).
fn format(args: &Args) -> Result<Format> {
    if args.csv {
        return Ok(Format::Csv);
    }
    if args.parquet {
        return Ok(Format::Parquet);
    }
    if args.output.as_os_str() == "-" {
        return Ok(Format::Csv);
    }
    let extension = args.output.extension().and_then(|e| e.to_str());
    match extension.map(str::to_ascii_lowercase).as_deref() {
        Some("csv") => Ok(Format::Csv),
        Some("parquet" | "pq") => Ok(Format::Parquet),
        _ => Err(Error::input(format!(
            "{}: cannot tell the format from the name; say --csv or --parquet, or name the \
             file .csv or .parquet",
            args.output.display()
        ))),
    }
}

/// Where the rows go: the partial file renamed over the output once complete, or
/// standard output.
enum Out {
    File(File),
    Stdout(std::io::Stdout),
}

impl std::io::Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            Out::Stdout(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Stdout(s) => s.flush(),
        }
    }
}

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    args.threads.start()?;
    if let Some(n) = args.crash_before_step {
        crate::table::partial::crash_before_step(n);
    }
    let format = format(&args)?;
    let to_stdout = args.output.as_os_str() == "-";
    if to_stdout
        && format == Format::Parquet
        && std::io::IsTerminal::is_terminal(&std::io::stdout())
    {
        return Err(Error::input(
            "-o -: Parquet is binary; send standard output to a file or a pipe, or say --csv",
        ));
    }
    #[cfg(not(feature = "parquet"))]
    if format == Format::Parquet {
        return Err(Error::input(
            "--parquet: this retro was built without Parquet support (cargo feature `parquet`)",
        ));
    }
    // Every layer read is checked against its checksum once, as the rows stream out.
    let table = open_table::<R>(&args.table)?
        .with_mmap()?
        .check_layers_as_read();
    if !to_stdout {
        partial::check_output(&args.output)?;
        partial::check_not_input(&args.output, &[(&args.table, "the table being exported")])?;
    }
    let board = table.header.game.clone();
    let last = table.header.layers.len().saturating_sub(1);
    let layers = match args.layer {
        Some(k) if k > last => {
            return Err(Error::input(format!(
                "--layer {k} is out of range: {} has layers 0..={last}",
                args.table.display()
            )));
        }
        Some(k) => k..=k,
        None => 0..=last,
    };
    let (first, last) = (*layers.start(), *layers.end());
    let started = std::time::Instant::now();
    let summary = |rows: u64| {
        if args.quiet {
            return Ok(());
        }
        let seconds = started.elapsed().as_secs_f64();
        let line = format!(
            "{}: {rows} rows (layers {first}..={last}) in {seconds:.2} s, {:.0} rows/s",
            if to_stdout {
                "standard output".into()
            } else {
                args.output.display().to_string()
            },
            rows as f64 / seconds.max(1e-9)
        );
        // Standard output carries the rows when they go there.
        if to_stdout {
            eprintln!("{line}");
            Ok(())
        } else {
            super::outln!("{line}")
        }
    };
    let export = |out: Out, partial: &Path| {
        R::visit(
            &board,
            Export {
                args: &args,
                format,
                table: &table,
                board: &board,
                layers: layers.clone(),
                out,
                partial,
            },
        )
    };
    if to_stdout {
        let (out, rows) = table.unless_changed(export(
            Out::Stdout(std::io::stdout()),
            Path::new("standard output"),
        ))?;
        drop(out);
        summary(rows)?;
        return Ok(0);
    }
    // Locked until the rename, as a build locks its table: a second export to the same
    // file stops at once instead of mixing its rows into this one's.
    let mut locked = Partial::lock(&args.output, Kind::Export)?;
    locked.start_over()?;
    let partial = locked.path.clone();
    let file = locked.file.try_clone().map_err(|e| io_error(&partial, e))?;
    let written = export(Out::File(file), &partial);
    // A table written over while it was read gives rows of garbage: no rename then.
    let finished = table.unless_changed(written).and_then(|(out, rows)| {
        crash_point();
        if let Out::File(file) = out {
            file.sync_all().map_err(|e| io_error(&partial, e))?;
        }
        crash_point();
        std::fs::rename(&partial, &args.output).map_err(|e| io_error(&args.output, e))?;
        Ok(rows)
    });
    match finished {
        Ok(rows) => {
            summary(rows)?;
            Ok(0)
        }
        Err(e) => {
            // A half-written export is of no use, and its name already says so; removing
            // it (still under our lock, so it is ours) is a courtesy, so its own failure
            // would only hide the real error.
            let _ = std::fs::remove_file(&partial);
            drop(locked);
            Err(e)
        }
    }
}

/// The rows of a table's layers, on its game, into the sink `args` asks for.
struct Export<'a> {
    args: &'a Args,
    format: Format,
    table: &'a Table,
    board: &'a AnyBoard,
    layers: std::ops::RangeInclusive<usize>,
    out: Out,
    partial: &'a Path,
}

impl Visitor for Export<'_> {
    type Output = (Out, u64);

    fn visit<G: Registered>(self, game: G) -> Result<(Out, u64)> {
        let Export {
            args,
            format,
            table,
            board,
            layers,
            out,
            partial,
        } = self;
        let notation = game.move_notation();
        // A game that ends in a win, a loss, a tie or a draw gets its result and
        // remoteness columns.
        let outcomes = game.outcome(0, 0).is_some();
        let folded = game.symmetries() > 1;
        // With --all, a folded table's rows are an unfolded table's, in its order.
        let unfolded = match args.all && folded {
            true => Some(
                board
                    .clone()
                    .unfolded()
                    .build_game::<G>()
                    .unwrap_or_else(|| {
                        Err(Error::other(format!(
                            "{}: not a board of {}",
                            board.label(),
                            G::NAME
                        )))
                    })?,
            ),
            false => None,
        };
        let shape = match (args.all, &unfolded) {
            (false, _) => Rows::Entries,
            (true, Some(order)) => Rows::Positions(order),
            (true, None) => Rows::Positions(&game),
        };
        // A folded table: one row per entry with its orbit's size, or every position.
        let orbits = folded && !args.all;
        // A game whose stones in hand are part of the position gets them as columns.
        let hands = game.hands(&game.unrank(0, 0)).is_some();
        // Values for the side to move are named so, apart from those for the first player.
        let to_move = game.values().for_side_to_move();
        let total = layers.clone().map(|k| walk_size(&game, shape, k)).sum();
        let bar = progress_bar(total, args.quiet);
        let progress: &dyn Progress = match &bar {
            Some(b) => b,
            None => &Silent,
        };
        let written = match (format, args.moves) {
            #[cfg(feature = "parquet")]
            (Format::Parquet, true) => MoveParquetSink::new(
                out,
                board,
                partial,
                args.row_group,
                move_columns_of(outcomes, orbits),
            )
            .and_then(|sink| move_rows_of(&game, table, layers, sink, progress, shape)),
            #[cfg(feature = "parquet")]
            (Format::Parquet, false) => ParquetSink::new(
                out,
                board,
                partial,
                args.row_group,
                notation,
                columns_of(notation, outcomes, orbits, hands, to_move),
            )
            .and_then(|sink| rows(&game, table, layers, sink, progress, shape)),
            (_, true) => {
                let sink = MoveCsvSink::new(out, partial, outcomes, orbits);
                move_rows_of(&game, table, layers, sink, progress, shape)
            }
            (_, false) => {
                let sink = CsvSink::new(out, partial, notation, outcomes, orbits, hands, to_move);
                rows(&game, table, layers, sink, progress, shape)
            }
        };
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        written
    }
}

/// `export::rows_of`, with the forward pass of reachability where the game needs one.
fn rows<G: Registered, S: RowSink + Send>(
    game: &G,
    table: &Table,
    layers: RangeInclusive<usize>,
    sink: S,
    progress: &dyn Progress,
    shape: Rows<'_, G>,
) -> Result<(S::Output, u64)> {
    let reach = crate::answers::reach::Reachable::where_needed(game)?;
    rows_of(game, table, layers, sink, progress, shape, reach.as_ref())
}
