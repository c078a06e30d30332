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
use crate::error::{Error, Result, io_error};
use crate::export::{CsvSink, RowSink};
use crate::game::{AnyBoard, Gameplay, Registered, Registry, Visitor};
use crate::partial::{self, Kind, Partial, crash_point};
use crate::sweep::{Progress, Silent};
use crate::table::Table;

/// Rows per Parquet row group. Readers parallelise and skip by row group, so groups should
/// be large, but the writer holds a whole group before writing it.
const ROW_GROUP: u64 = 1 << 20;

#[derive(clap::Args)]
#[command(group(ArgGroup::new("format").required(true).args(["csv", "parquet"])))]
#[command(after_help = "\
Examples:
  retro export tables/twins-sample1.retro --csv -o twins.csv
  retro export tables/young-10x10.retro --layer 50 --parquet -o layer50.parquet

Columns: position, stones, to_move (first, second, or none where play has ended), value,
best_move. best_move is the first best move in `retro query`'s order, as `row,col` (1-based,
row 1 at the top); for connect, whose moves are columns, the column alone (`3`, 1-based from
the left); for teeko and quixo `row,col-row,col` where a stone or cube moves. It is empty
(Parquet: null) where nobody moves: a full board, or a game already won. Games that end in a
win, a loss, a tie or a draw (mnk, connect, teeko, quixo) add result (for the side to move:
win, loss, tie or draw) and remoteness (plies to the end with best play).")]
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
    /// Output file; an existing regular file is replaced once the export is complete.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
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

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    args.threads.start()?;
    if let Some(n) = args.crash_before_step {
        crate::partial::crash_before_step(n);
    }
    // Every layer read is checked against its checksum once, as the rows stream out.
    let table = open_table::<R>(&args.table)?
        .with_mmap()?
        .check_layers_as_read();
    partial::check_output(&args.output)?;
    partial::check_not_input(&args.output, &[(&args.table, "the table being exported")])?;
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
    #[cfg(not(feature = "parquet"))]
    if args.parquet {
        return Err(Error::input(
            "--parquet: this retro was built without Parquet support (cargo feature `parquet`)",
        ));
    }
    // Locked until the rename, as a build locks its table: a second export to the same
    // file stops at once instead of mixing its rows into this one's.
    let mut locked = Partial::lock(&args.output, Kind::Export)?;
    locked.start_over()?;
    let partial = locked.path.clone();
    let file = locked.file.try_clone().map_err(|e| io_error(&partial, e))?;
    let written = R::visit(
        &board,
        Export {
            args: &args,
            table: &table,
            board: &board,
            layers,
            file,
            partial: &partial,
        },
    );
    // A table written over while it was read gives rows of garbage: no rename then.
    let finished = table.unless_changed(written).and_then(|(file, rows)| {
        crash_point();
        file.sync_all().map_err(|e| io_error(&partial, e))?;
        crash_point();
        std::fs::rename(&partial, &args.output).map_err(|e| io_error(&args.output, e))?;
        Ok(rows)
    });
    match finished {
        Ok(rows) => {
            let seconds = started.elapsed().as_secs_f64();
            super::outln!(
                "{}: {rows} rows (layers {}..={}) in {seconds:.2} s, {:.0} rows/s",
                args.output.display(),
                first,
                last,
                rows as f64 / seconds.max(1e-9)
            )?;
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
    table: &'a Table,
    board: &'a AnyBoard,
    layers: std::ops::RangeInclusive<usize>,
    file: File,
    partial: &'a Path,
}

impl Visitor for Export<'_> {
    type Output = (File, u64);

    fn visit<G: Registered>(self, game: G) -> Result<(File, u64)> {
        let Export {
            args,
            table,
            board,
            layers,
            file,
            partial,
        } = self;
        let notation = game.move_notation();
        // A game that ends in a win, a loss, a tie or a draw gets its result and
        // remoteness columns.
        let outcomes = game.outcome(0, 0).is_some();
        match args.parquet {
            #[cfg(feature = "parquet")]
            true => parquet_sink::ParquetSink::new(
                file,
                board,
                partial,
                args.row_group,
                notation,
                outcomes,
            )
            .and_then(|sink| rows_with_bar(&game, table, layers, sink, args.quiet)),
            _ => {
                let _ = board;
                rows_with_bar(
                    &game,
                    table,
                    layers,
                    CsvSink::new(file, partial, notation, outcomes),
                    args.quiet,
                )
            }
        }
    }
}

/// `export::rows` under a progress bar (unless quiet or not on a terminal).
fn rows_with_bar<G: Gameplay>(
    game: &G,
    table: &Table,
    layers: RangeInclusive<usize>,
    sink: impl RowSink + Send,
    quiet: bool,
) -> Result<(File, u64)> {
    let total = layers.clone().map(|k| game.layer_size(k)).sum();
    let bar = progress_bar(total, quiet);
    let progress: &dyn Progress = match &bar {
        Some(b) => b,
        None => &Silent,
    };
    let written = crate::export::rows(game, table, layers, sink, progress);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    written
}

#[cfg(feature = "parquet")]
mod parquet_sink {
    use std::fs::File;
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

    use crate::error::{Error, Result};
    use crate::export::{CHUNK, Row, RowSink};
    use crate::game::{AnyBoard, MoveNotation};
    use crate::probe::{MoveStyle, from_to_text};

    const SCHEMA: &str = "
        message retro_export {
            REQUIRED BYTE_ARRAY position (UTF8);
            REQUIRED INT32 stones;
            REQUIRED BYTE_ARRAY to_move (UTF8);
            REQUIRED INT64 value;
            OPTIONAL BYTE_ARRAY best_move (UTF8);
        }
    ";
    /// `SCHEMA` with the result and remoteness columns, for games that have them.
    const SCHEMA_OUTCOMES: &str = "
        message retro_export {
            REQUIRED BYTE_ARRAY position (UTF8);
            REQUIRED INT32 stones;
            REQUIRED BYTE_ARRAY to_move (UTF8);
            REQUIRED INT64 value;
            OPTIONAL BYTE_ARRAY best_move (UTF8);
            REQUIRED BYTE_ARRAY result (UTF8);
            REQUIRED INT32 remoteness;
        }
    ";

    /// One row group's columns. Positions are kept as one string and its row ends rather
    /// than a `ByteArray` each, a tenth of the memory for short positions; the `ByteArray`s
    /// the writer wants are made a chunk at a time when the group is written.
    #[derive(Default)]
    struct Group {
        text: String,
        ends: Vec<usize>,
        stones: Vec<i32>,
        /// Index in `TO_MOVE`: a byte, not a 16-byte `&str`, per row.
        to_move: Vec<u8>,
        values: Vec<i64>,
        best: Vec<Option<Best>>,
        /// Index in `RESULTS`, and remoteness, for games that have them.
        results: Vec<u8>,
        remoteness: Vec<i32>,
    }

    const RESULTS: [&str; 4] = ["win", "loss", "tie", "draw"];

    /// A best move's cells, small: where it is taken from (if anywhere), row, column.
    type Best = (Option<(u16, u16)>, u16, u16);

    const TO_MOVE: [&str; 3] = ["first", "second", "none"];

    pub struct ParquetSink {
        writer: SerializedFileWriter<File>,
        path: PathBuf,
        group: Group,
        group_rows: u64,
        notation: MoveNotation,
    }

    impl ParquetSink {
        pub fn new(
            file: File,
            board: &AnyBoard,
            path: &Path,
            group_rows: u64,
            notation: MoveNotation,
            outcomes: bool,
        ) -> Result<ParquetSink> {
            let fail =
                |e: parquet::errors::ParquetError| Error::other(format!("{}: {e}", path.display()));
            let schema = if outcomes { SCHEMA_OUTCOMES } else { SCHEMA };
            let schema = Arc::new(parse_message_type(schema).map_err(fail)?);
            // Which board the values belong to, for whoever finds the file later.
            let metadata = vec![
                KeyValue::new("retro.game".into(), board.name().to_string()),
                KeyValue::new("retro.board".into(), board.to_input()),
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
            })
        }

        fn write_group(&mut self) -> Result<()> {
            let g = std::mem::take(&mut self.group);
            let (path, notation) = (&self.path, self.notation);
            let fail =
                |e: parquet::errors::ParquetError| Error::other(format!("{}: {e}", path.display()));
            let mut rg = self.writer.next_row_group().map_err(fail)?;
            let mut column = 0;
            while let Some(mut col) = rg.next_column().map_err(fail)? {
                let written = match (column, col.untyped()) {
                    (0, ColumnWriter::ByteArrayColumnWriter(w)) => {
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
                    (1, ColumnWriter::Int32ColumnWriter(w)) => {
                        w.write_batch(&g.stones, None, None).map(drop)
                    }
                    (2, ColumnWriter::ByteArrayColumnWriter(w)) => names(w, &g.to_move, &TO_MOVE),
                    (3, ColumnWriter::Int64ColumnWriter(w)) => {
                        w.write_batch(&g.values, None, None).map(drop)
                    }
                    (4, ColumnWriter::ByteArrayColumnWriter(w)) => {
                        g.best.chunks(CHUNK).try_for_each(|chunk| {
                            let levels: Vec<i16> =
                                chunk.iter().map(|b| i16::from(b.is_some())).collect();
                            let batch: Vec<ByteArray> = chunk
                                .iter()
                                .flatten()
                                .map(|&(from, r, c)| {
                                    let from = from.map(|(r, c)| (r.into(), c.into()));
                                    let text = from_to_text(
                                        notation,
                                        MoveStyle::Field,
                                        from,
                                        r.into(),
                                        c.into(),
                                    );
                                    ByteArray::from(text.into_bytes())
                                })
                                .collect();
                            w.write_batch(&batch, Some(&levels), None).map(drop)
                        })
                    }
                    (5, ColumnWriter::ByteArrayColumnWriter(w)) => names(w, &g.results, &RESULTS),
                    (6, ColumnWriter::Int32ColumnWriter(w)) => {
                        w.write_batch(&g.remoteness, None, None).map(drop)
                    }
                    _ => {
                        return Err(Error::other(format!(
                            "parquet column {column} does not have the schema's type"
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

    impl RowSink for ParquetSink {
        fn push(&mut self, row: &Row<'_>) -> Result<()> {
            let g = &mut self.group;
            g.text.push_str(row.position);
            g.ends.push(g.text.len());
            g.stones.push(i32::try_from(row.stones).unwrap_or(i32::MAX));
            let to_move = TO_MOVE.iter().position(|&t| t == row.to_move);
            g.to_move.push(to_move.unwrap_or(0) as u8);
            g.values.push(row.value);
            // No board has 65536 rows or columns (the layer counts would overflow first).
            let small = |x: usize| u16::try_from(x).unwrap_or(u16::MAX);
            g.best.push(row.best.map(|b| {
                let from = b.from.map(|(r, c)| (small(r), small(c)));
                (from, small(b.to.0), small(b.to.1))
            }));
            if let Some(o) = row.outcome {
                let result = RESULTS.iter().position(|&r| r == o.result.as_str());
                g.results.push(result.unwrap_or(0) as u8);
                g.remoteness
                    .push(i32::try_from(o.remoteness).unwrap_or(i32::MAX));
            }
            if g.ends.len() as u64 >= self.group_rows {
                self.write_group()?;
            }
            Ok(())
        }

        fn finish(mut self) -> Result<File> {
            if !self.group.ends.is_empty() {
                self.write_group()?;
            }
            self.writer
                .into_inner()
                .map_err(|e| Error::other(format!("{}: {e}", self.path.display())))
        }
    }
}
