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
use crate::answers::export::{CsvSink, RowSink};
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

Columns: position, stones, to_move (first, second, or none where play has ended), value,
best_move; games that end in a win, a loss, a tie or a draw (mnk, connect, teeko, quixo,
morris)
then have result (for the side to move: win, loss, tie or draw) and remoteness (plies to the
end with best play); then reachable (false for a board no game reaches, such as tic-tac-toe
with a line for each side: leave those out of counts); then the best move as integers.
best_move is the first best move in `retro query`'s order, as `row,col` (1-based, row 1 at
the top), with best_row and best_col the same numbers; for connect, whose moves are columns,
the column alone (`3`, 1-based from the left), and best_column; for teeko and quixo
`row,col-row,col` where a stone or cube moves, and best_from_row, best_from_col, best_row,
best_col; for morris its name (`d2`, `d2-d3`, `d2-d3xa4`) alone, and morris has
x_in_hand and o_in_hand after stones. They are empty (Parquet: null) where nobody moves: a full board, or a game already
won.")]
pub struct Args {
    #[command(flatten)]
    threads: super::Threads,
    /// Table file.
    table: PathBuf,
    /// Export only layer K (the positions with K stones) [default: every layer, 0 first].
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
    /// `orbit_size`.
    #[arg(long)]
    all: bool,
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
        // A folded table: one row per entry with its orbit's size, or every position.
        let shape = if args.all {
            crate::answers::export::Rows::Positions
        } else {
            crate::answers::export::Rows::Entries
        };
        let orbits = game.symmetries() > 1 && !args.all;
        // A game whose stones in hand are part of the position gets them as columns.
        let hands = game.hands(&game.unrank(0, 0)).is_some();
        match format {
            #[cfg(feature = "parquet")]
            Format::Parquet => parquet_sink::ParquetSink::new(
                out,
                board,
                partial,
                args.row_group,
                notation,
                crate::answers::export::columns_of(notation, outcomes, orbits, hands),
            )
            .and_then(|sink| rows_with_bar(&game, table, layers, sink, args.quiet, shape)),
            _ => {
                let _ = board;
                rows_with_bar(
                    &game,
                    table,
                    layers,
                    CsvSink::new(out, partial, notation, outcomes, orbits, hands),
                    args.quiet,
                    shape,
                )
            }
        }
    }
}

/// `export::rows_of` under a progress bar (unless quiet or not on a terminal).
fn rows_with_bar<G: Registered, S: RowSink + Send>(
    game: &G,
    table: &Table,
    layers: RangeInclusive<usize>,
    sink: S,
    quiet: bool,
    shape: crate::answers::export::Rows,
) -> Result<(S::Output, u64)> {
    let total = layers.clone().map(|k| game.layer_size(k)).sum();
    let bar = progress_bar(total, quiet);
    let progress: &dyn Progress = match &bar {
        Some(b) => b,
        None => &Silent,
    };
    let reach = crate::answers::reach::Reachable::where_needed(game)?;
    let written =
        crate::answers::export::rows_of(game, table, layers, sink, progress, shape, reach.as_ref());
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    written
}

#[cfg(feature = "parquet")]
mod parquet_sink {
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use parquet::basic::Compression;
    use parquet::column::writer::ColumnWriter;
    use parquet::data_type::ByteArray;
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use parquet::schema::types::ColumnPath;

    use crate::answers::export::{CHUNK, Row, RowSink, move_numbers};
    use crate::error::{Error, Result};
    use crate::game::{AnyBoard, MoveNotation};

    /// The Parquet type of each of `export::columns_of`: every column is required but the move
    /// columns, null where nobody moves (or, for `best_from_*`, where a stone is put on the
    /// board).
    fn schema(names: &[&str]) -> String {
        let fields: String = names
            .iter()
            .map(|&name| {
                let ty = match name {
                    "position" | "to_move" | "result" => "REQUIRED BYTE_ARRAY",
                    "best_move" => "OPTIONAL BYTE_ARRAY",
                    "value" | "orbit_size" => "REQUIRED INT64",
                    "reachable" => "REQUIRED BOOLEAN",
                    "stones" | "remoteness" | "x_in_hand" | "o_in_hand" => "REQUIRED INT32",
                    _ => "OPTIONAL INT32",
                };
                let utf8 = if ty.ends_with("BYTE_ARRAY") {
                    " (UTF8)"
                } else {
                    ""
                };
                format!("{ty} {name}{utf8};\n")
            })
            .collect();
        format!("message retro_export {{\n{fields}}}")
    }

    /// One row group's columns. Positions are kept as one string and its row ends rather
    /// than a `ByteArray` each, a tenth of the memory for short positions; the `ByteArray`s
    /// the writer wants are made a chunk at a time when the group is written.
    #[derive(Default)]
    struct Group {
        text: String,
        ends: Vec<usize>,
        stones: Vec<i32>,
        /// Stones in hand, x's and o's (a game with hands).
        hands: [Vec<i32>; 2],
        /// Index in `TO_MOVE`: a byte, not a 16-byte `&str`, per row.
        to_move: Vec<u8>,
        values: Vec<i64>,
        /// The best moves' text, one string and each row's end; `has_best` where one is.
        best_text: String,
        best_ends: Vec<usize>,
        has_best: Vec<bool>,
        /// Index in `RESULTS`, and remoteness, for games that have them.
        results: Vec<u8>,
        remoteness: Vec<i32>,
        reachable: Vec<bool>,
        /// Each row's orbit size (written where the table folds).
        orbit: Vec<i64>,
        /// The best move's integer columns (`export::move_numbers`), one vector per column.
        numbers: Vec<Vec<Option<u32>>>,
    }

    const RESULTS: [&str; 4] = ["win", "loss", "tie", "draw"];

    const TO_MOVE: [&str; 3] = ["first", "second", "none"];

    pub struct ParquetSink<W: Write + Send> {
        writer: SerializedFileWriter<W>,
        path: PathBuf,
        group: Group,
        group_rows: u64,
        notation: MoveNotation,
        names: Vec<&'static str>,
    }

    impl<W: Write + Send> ParquetSink<W> {
        /// A sink writing `names` (`export::columns_of`) to `file`, moves in `notation`.
        pub fn new(
            file: W,
            board: &AnyBoard,
            path: &Path,
            group_rows: u64,
            notation: MoveNotation,
            names: Vec<&'static str>,
        ) -> Result<ParquetSink<W>> {
            let fail =
                |e: parquet::errors::ParquetError| Error::other(format!("{}: {e}", path.display()));
            let schema = Arc::new(parse_message_type(&schema(&names)).map_err(fail)?);
            // Which board the values belong to, for whoever finds the file later.
            let metadata = vec![
                KeyValue::new("retro.game".into(), board.name().to_string()),
                // As `info` names the board; the input that rebuilds it beside.
                KeyValue::new("retro.board".into(), board.label()),
                KeyValue::new("retro.board_input".into(), board.to_input()),
            ];
            let props = WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_created_by(format!("retro {}", env!("CARGO_PKG_VERSION")))
                .set_key_value_metadata(Some(metadata))
                // Every position is distinct: a dictionary would only be built and dropped.
                .set_column_dictionary_enabled(ColumnPath::from("position"), false)
                .build();
            let writer = SerializedFileWriter::new(file, schema, Arc::new(props)).map_err(fail)?;
            Ok(ParquetSink {
                writer,
                path: path.to_path_buf(),
                group: Group::default(),
                group_rows,
                notation,
                names,
            })
        }

        fn write_group(&mut self) -> Result<()> {
            let g = std::mem::take(&mut self.group);
            let path = &self.path;
            let fail =
                |e: parquet::errors::ParquetError| Error::other(format!("{}: {e}", path.display()));
            let mut rg = self.writer.next_row_group().map_err(fail)?;
            let mut column = 0;
            let mut numbers = g.numbers.iter();
            while let Some(mut col) = rg.next_column().map_err(fail)? {
                let name = self.names.get(column).copied().unwrap_or("");
                let written = match (name, col.untyped()) {
                    ("position", ColumnWriter::ByteArrayColumnWriter(w)) => {
                        let mut from = 0;
                        g.ends.chunks(CHUNK).try_for_each(|ends| {
                            let batch: Vec<ByteArray> = ends
                                .iter()
                                .map(|&end| {
                                    let bytes = g.text.as_bytes()[from..end].to_vec();
                                    from = end;
                                    ByteArray::from(bytes)
                                })
                                .collect();
                            w.write_batch(&batch, None, None).map(drop)
                        })
                    }
                    ("stones", ColumnWriter::Int32ColumnWriter(w)) => {
                        w.write_batch(&g.stones, None, None).map(drop)
                    }
                    ("x_in_hand", ColumnWriter::Int32ColumnWriter(w)) => {
                        w.write_batch(&g.hands[0], None, None).map(drop)
                    }
                    ("o_in_hand", ColumnWriter::Int32ColumnWriter(w)) => {
                        w.write_batch(&g.hands[1], None, None).map(drop)
                    }
                    ("to_move", ColumnWriter::ByteArrayColumnWriter(w)) => {
                        names(w, &g.to_move, &TO_MOVE)
                    }
                    ("value", ColumnWriter::Int64ColumnWriter(w)) => {
                        w.write_batch(&g.values, None, None).map(drop)
                    }
                    ("orbit_size", ColumnWriter::Int64ColumnWriter(w)) => {
                        w.write_batch(&g.orbit, None, None).map(drop)
                    }
                    ("best_move", ColumnWriter::ByteArrayColumnWriter(w)) => {
                        let mut ends = g.best_ends.iter();
                        let mut from = 0;
                        g.has_best.chunks(CHUNK).try_for_each(|chunk| {
                            let levels: Vec<i16> = chunk.iter().map(|&b| i16::from(b)).collect();
                            let batch: Vec<ByteArray> = chunk
                                .iter()
                                .filter(|&&b| b)
                                .map(|_| {
                                    let end = ends.next().copied().unwrap_or(from);
                                    let bytes = g.best_text.as_bytes()[from..end].to_vec();
                                    from = end;
                                    ByteArray::from(bytes)
                                })
                                .collect();
                            w.write_batch(&batch, Some(&levels), None).map(drop)
                        })
                    }
                    ("result", ColumnWriter::ByteArrayColumnWriter(w)) => {
                        names(w, &g.results, &RESULTS)
                    }
                    ("remoteness", ColumnWriter::Int32ColumnWriter(w)) => {
                        w.write_batch(&g.remoteness, None, None).map(drop)
                    }
                    ("reachable", ColumnWriter::BoolColumnWriter(w)) => {
                        w.write_batch(&g.reachable, None, None).map(drop)
                    }
                    (_, ColumnWriter::Int32ColumnWriter(w)) if name.starts_with("best_") => {
                        let Some(numbers) = numbers.next() else {
                            return Err(Error::other(format!(
                                "parquet column {name} has no values"
                            )));
                        };
                        numbers.chunks(CHUNK).try_for_each(|chunk| {
                            let levels: Vec<i16> =
                                chunk.iter().map(|n| i16::from(n.is_some())).collect();
                            let batch: Vec<i32> = chunk
                                .iter()
                                .flatten()
                                .map(|&n| i32::try_from(n).unwrap_or(i32::MAX))
                                .collect();
                            w.write_batch(&batch, Some(&levels), None).map(drop)
                        })
                    }
                    _ => {
                        return Err(Error::other(format!(
                            "parquet column {column} ({name}) does not have the schema's type"
                        )));
                    }
                };
                written.map_err(fail)?;
                col.close().map_err(fail)?;
                column += 1;
            }
            rg.close().map_err(fail)?;
            Ok(())
        }
    }

    /// A column of words kept as indices into `words` (a byte per row, not a string).
    fn names(
        w: &mut parquet::column::writer::ColumnWriterImpl<'_, parquet::data_type::ByteArrayType>,
        indices: &[u8],
        words: &[&str],
    ) -> parquet::errors::Result<()> {
        let words: Vec<ByteArray> = words.iter().map(|&word| ByteArray::from(word)).collect();
        indices.chunks(CHUNK).try_for_each(|chunk| {
            let batch: Vec<ByteArray> = chunk.iter().map(|&i| words[i as usize].clone()).collect();
            w.write_batch(&batch, None, None).map(drop)
        })
    }

    impl<W: Write + Send> RowSink for ParquetSink<W> {
        type Output = W;

        fn push(&mut self, row: &Row<'_>) -> Result<()> {
            let g = &mut self.group;
            g.text.push_str(row.position);
            g.ends.push(g.text.len());
            g.stones.push(i32::try_from(row.stones).unwrap_or(i32::MAX));
            let to_move = TO_MOVE.iter().position(|&t| t == row.to_move);
            g.to_move.push(to_move.unwrap_or(0) as u8);
            g.values.push(row.value);
            if let Some([x, o]) = row.hands {
                g.hands[0].push(i32::try_from(x).unwrap_or(i32::MAX));
                g.hands[1].push(i32::try_from(o).unwrap_or(i32::MAX));
            }
            g.has_best.push(row.best_text.is_some());
            if let Some(text) = &row.best_text {
                g.best_text.push_str(text);
                g.best_ends.push(g.best_text.len());
            }
            if let Some(o) = row.outcome {
                let result = RESULTS.iter().position(|&r| r == o.result.as_str());
                g.results.push(result.unwrap_or(0) as u8);
                g.remoteness
                    .push(i32::try_from(o.remoteness).unwrap_or(i32::MAX));
            }
            g.reachable.push(row.reachable);
            g.orbit
                .push(i64::try_from(row.orbit.unwrap_or(1)).unwrap_or(i64::MAX));
            let numbers = move_numbers(self.notation, row.best);
            g.numbers.resize(numbers.len(), Vec::new());
            for (column, n) in g.numbers.iter_mut().zip(numbers) {
                column.push(n);
            }
            if g.ends.len() as u64 >= self.group_rows {
                self.write_group()?;
            }
            Ok(())
        }

        fn finish(mut self) -> Result<W> {
            if !self.group.ends.is_empty() {
                self.write_group()?;
            }
            self.writer
                .into_inner()
                .map_err(|e| Error::other(format!("{}: {e}", self.path.display())))
        }
    }
}
