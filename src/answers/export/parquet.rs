//! The Parquet sink: rows a row group at a time, column by column.

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

use super::{CHUNK, MoveRow, MoveSink, Row, RowSink, move_numbers};
use crate::error::{Error, Result};
use crate::game::{AnyBoard, MoveNotation};

/// The Parquet type of each of `export::columns_of`: every column is required but the move
/// columns, null where nobody moves (or, for `best_from_*`, where a stone is put on the
/// board), and `reachable`, null where the table cannot know.
fn schema(names: &[&str]) -> String {
    let fields: String = names
        .iter()
        .map(|&name| {
            let ty = match name {
                "position" | "to_move" | "result" | "move" | "child" => "REQUIRED BYTE_ARRAY",
                "best_move" => "OPTIONAL BYTE_ARRAY",
                "value" | "value_to_move" | "orbit_size" => "REQUIRED INT64",
                "reachable" => "OPTIONAL BOOLEAN",
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

/// A Parquet writer of `names` (`schema`) to `file`, with the board in its metadata;
/// `distinct` names the columns whose every value differs, which get no dictionary.
fn open_writer<W: Write + Send>(
    file: W,
    board: &AnyBoard,
    path: &Path,
    names: &[&str],
    distinct: &[&str],
) -> Result<SerializedFileWriter<W>> {
    let fail = |e: parquet::errors::ParquetError| Error::other(format!("{}: {e}", path.display()));
    let schema = Arc::new(parse_message_type(&schema(names)).map_err(fail)?);
    // Which board the values belong to, for whoever finds the file later.
    let metadata = vec![
        KeyValue::new("retro.game".into(), board.name().to_string()),
        // As `info` names the board; the input that rebuilds it beside.
        KeyValue::new("retro.board".into(), board.label()),
        KeyValue::new("retro.board_input".into(), board.to_input()),
    ];
    let mut props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(format!("retro {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(metadata));
    for &name in distinct {
        // A dictionary of values that never repeat would only be built and dropped.
        props = props.set_column_dictionary_enabled(ColumnPath::from(name), false);
    }
    SerializedFileWriter::new(file, schema, Arc::new(props.build())).map_err(fail)
}

/// A column of strings kept as one string and each value's end (`Group::text`).
fn strings(
    w: &mut parquet::column::writer::ColumnWriterImpl<'_, parquet::data_type::ByteArrayType>,
    text: &str,
    ends: &[usize],
) -> parquet::errors::Result<()> {
    let mut from = 0;
    ends.chunks(CHUNK).try_for_each(|ends| {
        let batch: Vec<ByteArray> = ends
            .iter()
            .map(|&end| {
                let bytes = text.as_bytes()[from..end].to_vec();
                from = end;
                ByteArray::from(bytes)
            })
            .collect();
        w.write_batch(&batch, None, None).map(drop)
    })
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
    reachable: Vec<Option<bool>>,
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
        Ok(ParquetSink {
            writer: open_writer(file, board, path, &names, &["position"])?,
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
                    strings(w, &g.text, &g.ends)
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
                ("value" | "value_to_move", ColumnWriter::Int64ColumnWriter(w)) => {
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
                    let known: Vec<bool> = g.reachable.iter().flatten().copied().collect();
                    let levels: Vec<i16> =
                        g.reachable.iter().map(|r| i16::from(r.is_some())).collect();
                    w.write_batch(&known, Some(&levels), None).map(drop)
                }
                (_, ColumnWriter::Int32ColumnWriter(w)) if name.starts_with("best_") => {
                    let Some(numbers) = numbers.next() else {
                        return Err(Error::other(format!("parquet column {name} has no values")));
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

/// One row group of `export --moves`: the three texts each as one string and its ends.
#[derive(Default)]
struct MoveGroup {
    text: [String; 3],
    ends: [Vec<usize>; 3],
    /// Index in `RESULTS`, and remoteness, for games that have them; else the values.
    results: Vec<u8>,
    remoteness: Vec<i32>,
    values: Vec<i64>,
    orbit: Vec<i64>,
}

/// `export --moves`'s rows as Parquet (`move_columns_of`), a row group at a time.
pub struct MoveParquetSink<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    path: PathBuf,
    group: MoveGroup,
    group_rows: u64,
    names: Vec<&'static str>,
}

impl<W: Write + Send> MoveParquetSink<W> {
    /// A sink writing `names` (`export::move_columns_of`) to `file`.
    pub fn new(
        file: W,
        board: &AnyBoard,
        path: &Path,
        group_rows: u64,
        names: Vec<&'static str>,
    ) -> Result<MoveParquetSink<W>> {
        Ok(MoveParquetSink {
            // A position repeats once per move, and children repeat: only moves' texts
            // are few enough to be worth a dictionary, and the writer's own limit stops
            // one that grows too large.
            writer: open_writer(file, board, path, &names, &[])?,
            path: path.to_path_buf(),
            group: MoveGroup::default(),
            group_rows,
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
        while let Some(mut col) = rg.next_column().map_err(fail)? {
            let name = self.names.get(column).copied().unwrap_or("");
            let text = ["position", "move", "child"]
                .iter()
                .position(|&n| n == name);
            let written = match (name, text, col.untyped()) {
                (_, Some(i), ColumnWriter::ByteArrayColumnWriter(w)) => {
                    strings(w, &g.text[i], &g.ends[i])
                }
                ("result", _, ColumnWriter::ByteArrayColumnWriter(w)) => {
                    names(w, &g.results, &RESULTS)
                }
                ("remoteness", _, ColumnWriter::Int32ColumnWriter(w)) => {
                    w.write_batch(&g.remoteness, None, None).map(drop)
                }
                ("value", _, ColumnWriter::Int64ColumnWriter(w)) => {
                    w.write_batch(&g.values, None, None).map(drop)
                }
                ("orbit_size", _, ColumnWriter::Int64ColumnWriter(w)) => {
                    w.write_batch(&g.orbit, None, None).map(drop)
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

impl<W: Write + Send> MoveSink for MoveParquetSink<W> {
    type Output = W;

    fn push(&mut self, row: &MoveRow<'_>) -> Result<()> {
        let g = &mut self.group;
        for (i, text) in [row.position, row.mv, row.child].into_iter().enumerate() {
            g.text[i].push_str(text);
            g.ends[i].push(g.text[i].len());
        }
        if let Some(o) = row.outcome {
            let result = RESULTS.iter().position(|&r| r == o.result.as_str());
            g.results.push(result.unwrap_or(0) as u8);
            g.remoteness
                .push(i32::try_from(o.remoteness).unwrap_or(i32::MAX));
        }
        g.values.push(row.value);
        g.orbit
            .push(i64::try_from(row.orbit.unwrap_or(1)).unwrap_or(i64::MAX));
        if g.ends[0].len() as u64 >= self.group_rows {
            self.write_group()?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<W> {
        if !self.group.ends[0].is_empty() {
            self.write_group()?;
        }
        self.writer
            .into_inner()
            .map_err(|e| Error::other(format!("{}: {e}", self.path.display())))
    }
}
