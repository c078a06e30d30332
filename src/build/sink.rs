//! A build's table as the solve's sink, on one process or over the ranks of an MPI build:
//! what the file takes from the driver and how (the policy; `crate::table` is the file
//! itself). It opens the partial file (or resumes one, reading back the finished layers the
//! rest of the solve reads), writes each layer as the driver hands it on (values in the
//! type the table stores, or a layer's best moves), lets the driver map finished layers
//! back from the file instead of holding them, and seals the table once every layer is in:
//! values for the side to move narrowed to one byte where they all fit.
//!
//! The one process, or rank 0 of several, holds the table's writer: the partial file's
//! lock, its header and its copies, the resume and the seal, so that an MPI build opens,
//! resumes and seals a table exactly as one process does, whatever the number of ranks,
//! and a partial file one of them leaves is one the other goes on with. The other ranks
//! join the file rank 0 opened (`join`) and write their slices of each layer into it at
//! the offsets every rank works out alike; rank 0 records each layer in the header once
//! every rank has written its slice (`Slices`).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::ScopedJoinHandle;
use std::time::Instant;

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, Result, io_error};
use crate::game::{AnyBoard, Registered};
use crate::progress::{self, Progress};
use crate::solve::{self as driver_, Cut, Driver, Ranks, StartAt};
use crate::stored::{Value, ValueType};
use crate::table::blocks::{self, BLOCK, DIR_ENTRY, SLACK};
use crate::table::mapped::GuardedMap;
use crate::table::partial::{Kind, Partial, crash_point, write_step};
use crate::table::writer::{Start, TableWriter};
use crate::table::{Encoding, Table};

/// How a build lays out its table.
pub(crate) struct Layout {
    /// Plain values, blocks of them, or best moves.
    pub encoding: Encoding,
    /// The type a fresh build stores its values in (a partial file goes on in its own).
    pub stored: ValueType,
    /// Ignore an interrupted build's partial file and start over.
    pub fresh: bool,
    /// Test hook: stop after writing this layer.
    pub stop_after: Option<usize>,
    /// Test hook: narrow to halved codes where `i8` would do too.
    pub halve: bool,
}

/// A table being built: its writer (one process, or rank 0), and what every rank needs to
/// write its slices of the layers.
pub(crate) struct TableSink {
    /// The table's writer: None on the ranks other than 0.
    writer: Option<TableWriter>,
    /// The partial file as the ranks other than 0 opened it.
    joined: Option<File>,
    partial: PathBuf,
    /// Entries of each layer.
    sizes: Vec<u64>,
    /// Values for the side to move (narrowed to one byte when sealed, where they fit).
    side_to_move: bool,
    halve: bool,
    /// The type the partial file stores values in.
    stored: ValueType,
    encoding: Encoding,
    resumed_below: Option<usize>,
    /// Where the next layer goes.
    end: u64,
    stop_after: Option<usize>,
    seconds: Seconds,
}

/// Seconds a rank's sink spent over several ranks (rank 0's split of an MPI build).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Seconds {
    /// Waiting for its slices to be written.
    pub write: f64,
    /// Waiting for the other ranks' writes, and for a layer to be hashed and recorded.
    pub checksum: f64,
}

/// What sealing a table wrote.
pub(crate) struct Sealed {
    /// Entries the table holds.
    pub entries: u64,
    /// Size of the file in bytes.
    pub file_bytes: u64,
    /// Bytes of values (without header and padding).
    pub value_bytes: u64,
}

/// `TableSink::state`'s layer when the build starts from the top.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
const NO_LAYER: u64 = u64::MAX;
/// The value types by their number in `TableSink::state`.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
const TYPES: [ValueType; 5] = [
    ValueType::I8,
    ValueType::I16,
    ValueType::I32,
    ValueType::I64,
    ValueType::Halved,
];

impl TableSink {
    /// Open `path`'s partial file for a build of `game` that solves in `V`: resumed where
    /// one of the same board is there (unless `layout.fresh`), else begun afresh. The one
    /// process, or rank 0, alone: it takes the partial file's lock.
    pub(crate) fn open<G: Registered, V: Value>(
        game: &G,
        path: &Path,
        layout: &Layout,
    ) -> Result<TableSink> {
        let sizes: Vec<u64> = (0..=game.last_layer())
            .map(|k| game.layer_size(k))
            .collect();
        let side_to_move = game.values().for_side_to_move();
        // A partial file goes on in its type: one already narrowed to one byte, or one of
        // the type the solve computes in begun before its game stored halved codes. The
        // writer reads it once the file is locked and its header whole.
        let goes_on_in = |t: ValueType| {
            t == V::TYPE || side_to_move && matches!(t, ValueType::I8 | ValueType::Halved)
        };
        let (mut writer, from) = TableWriter::open_resuming::<G>(
            path,
            AnyBoard::of(game),
            layout.stored,
            layout.encoding,
            &sizes,
            layout.fresh,
            &goes_on_in,
        )?;
        writer.stop_after(layout.stop_after);
        let resumed_below = match from {
            Start::Fresh => None,
            Start::Resume { layer } => Some(layer),
        };
        Ok(TableSink {
            stored: writer.value_type(),
            encoding: writer.encoding(),
            end: writer.end(),
            partial: writer.partial_file().to_path_buf(),
            writer: Some(writer),
            joined: None,
            sizes,
            side_to_move,
            halve: layout.halve,
            resumed_below,
            stop_after: layout.stop_after,
            seconds: Seconds::default(),
        })
    }

    /// What the other ranks need of the partial file rank 0 opened (`join`): where the next
    /// layer goes, the layer the build resumes below, the type of its values.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn state(&self) -> [u64; 3] {
        let ty = TYPES.iter().position(|&t| t == self.stored).unwrap_or(0);
        [
            self.end,
            self.resumed_below.map_or(NO_LAYER, |l| l as u64),
            ty as u64,
        ]
    }

    /// A rank other than 0: the partial file rank 0 opened for `path` (`open`), in the
    /// state it found it (`state`), to write this rank's slices into.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn join<G: Registered>(
        game: &G,
        path: &Path,
        layout: &Layout,
        state: [u64; 3],
    ) -> Result<TableSink> {
        let [end, resumed, ty] = state;
        let stored = *TYPES
            .get(ty as usize)
            .ok_or_else(|| Error::other("rank 0 sent an unknown value type"))?;
        let partial = Partial::open_shared(path, Kind::Table)?;
        Ok(TableSink {
            writer: None,
            joined: Some(partial.file),
            partial: partial.path,
            sizes: (0..=game.last_layer())
                .map(|k| game.layer_size(k))
                .collect(),
            side_to_move: game.values().for_side_to_move(),
            halve: layout.halve,
            stored,
            encoding: layout.encoding,
            resumed_below: (resumed != NO_LAYER).then_some(resumed as usize),
            end,
            stop_after: layout.stop_after,
            seconds: Seconds::default(),
        })
    }

    /// The layer a resumed build goes on below, if it resumed.
    pub(crate) fn resumed_below(&self) -> Option<usize> {
        self.resumed_below
    }

    /// Seconds this rank spent writing and recording slices (over several ranks).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn seconds(&self) -> Seconds {
        self.seconds
    }

    /// This rank's slices of the finished layers a build resumed below `layer` reads.
    /// Collective.
    fn read_back<G: Registered, V: Value, R: Ranks>(
        &self,
        game: &G,
        layer: usize,
        ranks: &R,
    ) -> Result<Vec<(usize, Vec<V>)>> {
        let read = (|| {
            // Through the file this build holds, not its name (`TableWriter::current`).
            let held = match (&self.writer, &self.joined) {
                (Some(writer), _) => writer.file(),
                (None, Some(file)) => file,
                (None, None) => return Err(Error::other("a rank without the partial file")),
            };
            let table = Table::open_partial_file::<G>(held, &self.partial)?;
            let step = (BLOCK * 256) as u64;
            driver_::held_below(game, layer)
                .into_iter()
                .map(|j| {
                    let slice = Cut::of(ranks, self.sizes[j]).slice();
                    let mut values = Vec::with_capacity((slice.end - slice.start) as usize);
                    let mut at = slice.start;
                    while at < slice.end {
                        let n = step.min(slice.end - at) as usize;
                        values.extend(table.read_range(j, at, n)?.into_iter().map(V::from_i64));
                        at += n as u64;
                    }
                    Ok((j, values))
                })
                .collect()
        })();
        ranks.agree(read)
    }

    /// Solve `game`'s layers not yet in the file into it, on this rank of `ranks` (`One`:
    /// the whole of every layer); the empty board's value. Collective.
    pub(crate) fn solve<G: Registered, V: Value, R: Ranks>(
        &mut self,
        game: &G,
        driver: Driver,
        progress: &dyn Progress,
        ranks: &R,
    ) -> Result<i64> {
        let from: StartAt<V> = match self.resumed_below {
            None => StartAt::Top,
            Some(layer) => StartAt::Below {
                layer,
                held: self.read_back(game, layer, ranks)?,
            },
        };
        match ranks.count() {
            1 => self.solve_whole(game, driver, progress, from, ranks),
            _ => self.solve_sliced(game, driver, progress, from, ranks),
        }
    }

    /// One rank: every layer whole, written by the writer while the next is solved.
    fn solve_whole<G: Registered, V: Value, R: Ranks>(
        &mut self,
        game: &G,
        driver: Driver,
        progress: &dyn Progress,
        from: StartAt<V>,
        ranks: &R,
    ) -> Result<i64> {
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| Error::other("a build on one rank has no table writer"))?;
        let encoding = writer.encoding();
        // A table of best moves: the driver derives a layer's best moves while its
        // children are at hand, for the layers that do not store values.
        let last = game.last_layer();
        let moves_at = |k: usize| !encoding.stores_values(k, last);
        let moves_at: Option<&(dyn Fn(usize) -> bool + Sync)> =
            matches!(encoding, Encoding::Moves { .. }).then_some(&moves_at);
        // Finished layers a later layer reads are mapped back from the partial file rather
        // than held (a plain table of the values the solve computes in), each where the
        // writer put it.
        let stored = writer.value_type();
        let spills =
            encoding == Encoding::Plain && (stored == V::TYPE || stored == ValueType::Halved);
        // Mapped through the file this build holds, not its name (`TableWriter::current`).
        let held = writer
            .file()
            .try_clone()
            .map_err(|e| io_error(writer.partial_file(), e))?;
        let placed: Mutex<Vec<Option<(u64, u64)>>> = Mutex::new(vec![None; self.sizes.len()]);
        // The partial file is this build's own, locked against other builds
        // (`crate::table::partial`); its finished layers are never written again while the
        // solve runs (the rewrite to i8 comes after it, once every map is dropped). A
        // program that cuts it short anyway meets the SIGBUS guard of `GuardedMap`, and the
        // solve reports it after the layer that read there.
        let map = |k: usize| -> Option<GuardedMap> {
            let (offset, bytes) = (*placed.lock().ok()?.get(k)?)?;
            GuardedMap::range(&held, offset, usize::try_from(bytes).ok()?)
                .ok()
                .flatten()
        };
        let mut write = |s: driver_::Solved<'_, V>| {
            let (k, values) = (s.layer, s.values);
            if let Some(moves) = s.moves {
                return writer.write_moves(k, moves);
            }
            if stored == V::TYPE {
                writer.write_layer(k, values)?;
            } else {
                // One byte a value: halved codes from the first layer, or a resumed build
                // of a table narrowed to one byte. Every value is checked before any is
                // written, so a layer is whole or absent.
                if !values
                    .par_iter()
                    .all(|v| one_byte(stored, v.to_i64()).is_some())
                {
                    return Err(too_wide(k, stored));
                }
                writer.write_narrowed(k, values, |v| {
                    one_byte(stored, v.to_i64()).unwrap_or_default()
                })?;
            }
            if let Ok(mut placed) = placed.lock() {
                placed[k] = Some(writer.layer_place(k));
            }
            Ok(())
        };
        let hooks = driver_::Hooks {
            on_layer: Some(driver_::OnLayer::Beside(&mut write)),
            map_layer: spills.then_some(driver_::MapLayer { stored, map: &map }),
            moves_at,
        };
        driver_::solve_layers::<G, V, R>(game, driver, progress, from, hooks, ranks)
    }

    /// Several ranks: each writes its slice of a layer into the file as soon as the driver
    /// hands it on (on a thread, while the next layer is solved), and rank 0 records the
    /// layer in the header once every rank has written its slice (`Slices`).
    fn solve_sliced<G: Registered, V: Value, R: Ranks>(
        &mut self,
        game: &G,
        driver: Driver,
        progress: &dyn Progress,
        from: StartAt<V>,
        ranks: &R,
    ) -> Result<i64> {
        let file = match (&self.joined, &self.writer) {
            (Some(file), _) => file.try_clone(),
            (None, Some(writer)) => writer.file().try_clone(),
            (None, None) => return Err(Error::other("a rank without the partial file")),
        }
        .map_err(|e| io_error(&self.partial, e))?;
        let (encoding, stored) = (self.encoding, self.stored);
        if let Some(writer) = &mut self.writer {
            // The slices of the next layer are written while the header that lists this
            // one is: its copies go past the largest layer a rank can write there. A
            // layer's bytes, plain or in blocks, are at most its values at full width with
            // the blocks' directory and slack.
            let width = stored.stored_as().width() as u64;
            let largest = self
                .sizes
                .iter()
                .map(|&n| blocks::layer_bytes_bound(n, width))
                .max()
                .unwrap_or(0);
            writer.reserve(largest);
        }
        let last = game.last_layer();
        let moves_at = |k: usize| !encoding.stores_values(k, last);
        let sizes = &self.sizes;
        let writer = self.writer.take();
        let (root, slices) = std::thread::scope(|scope| {
            let mut slices = Slices {
                scope,
                file: &file,
                partial: &self.partial,
                writer,
                writing: None,
                recording: None,
                end: self.end,
                stop_after: self.stop_after,
                seconds: Seconds::default(),
            };
            let mut write = |solved: driver_::Solved<'_, V>| {
                slices.settle(ranks)?;
                let k = solved.layer;
                slices.start(ranks, solved, sizes[k], encoding, stored)
            };
            let hooks = driver_::Hooks {
                on_layer: Some(driver_::OnLayer::Inline(&mut write)),
                map_layer: None,
                moves_at: Some(&moves_at),
            };
            let root = driver_::solve_layers::<G, V, R>(game, driver, progress, from, hooks, ranks)
                .and_then(|root| {
                    slices.settle(ranks)?;
                    let t = Instant::now();
                    let recorded = slices.recorded();
                    ranks.agree(recorded)?;
                    slices.seconds.checksum += t.elapsed().as_secs_f64();
                    Ok(root)
                });
            // The writer comes back from a layer being recorded whatever happened, so that
            // it is dropped (and the file unlocked) only once no thread uses it.
            let _ = slices.recorded();
            (root, (slices.writer.take(), slices.end, slices.seconds))
        });
        let (writer, end, seconds) = slices;
        self.writer = writer;
        self.end = end;
        self.seconds = seconds;
        if let Some(writer) = &mut self.writer {
            writer.reserve(0);
        }
        root
    }

    /// Seal the table under its name, every layer being in: values for the side to move
    /// narrowed to one byte first where they all fit (`narrow_to_i8`). Rank 0 (or the one
    /// process) seals; the other ranks have nothing to seal (None).
    pub(crate) fn seal(self, progress: &dyn Progress) -> Result<Option<Sealed>> {
        let Some(mut writer) = self.writer else {
            return Ok(None);
        };
        if self.side_to_move && writer.value_type().width() > 1 {
            narrow_to_i8(&mut writer, self.sizes.len(), self.halve, progress)?;
        }
        let value_bytes = writer.value_bytes();
        let file_bytes = writer.finish()?;
        Ok(Some(Sealed {
            entries: self.sizes.iter().sum(),
            file_bytes,
            value_bytes,
        }))
    }
}

/// A build's finished layers on their way to disk over several ranks. Each rank writes its
/// slice of a layer (on a thread while the next layer is solved); once every rank has
/// written it (the agreement in `settle`), rank 0 hashes the layer back from the file and
/// records it through the table's writer, on a thread too. Only the driver's thread calls
/// the collectives.
struct Slices<'s, 'e> {
    scope: &'s std::thread::Scope<'s, 'e>,
    file: &'e File,
    partial: &'e Path,
    /// Rank 0's writer, while no thread has it.
    writer: Option<TableWriter>,
    /// This rank's write of layer k at `offset`, `bytes` long in all; it ends with the
    /// layer's checksum where this rank wrote every byte of it.
    writing: Option<(usize, u64, u64, Writing<'s>)>,
    /// Rank 0 recording a layer; the writer comes back with the result.
    recording: Option<ScopedJoinHandle<'s, (TableWriter, Result<()>)>>,
    /// Where the next layer starts.
    end: u64,
    stop_after: Option<usize>,
    seconds: Seconds,
}

/// A thread writing a rank's slice: the layer's checksum where it wrote the whole layer.
type Writing<'s> = ScopedJoinHandle<'s, Result<Option<u64>>>;

impl<'s, 'e: 's> Slices<'s, 'e> {
    /// Wait for the layer being written, on every rank, then hand it to rank 0's
    /// recording. Collective.
    fn settle<R: Ranks>(&mut self, ranks: &R) -> Result<()> {
        let Some((k, offset, bytes, writing)) = self.writing.take() else {
            return Ok(());
        };
        let t = Instant::now();
        let written = writing
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        self.seconds.write += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let recorded = self.recorded();
        let known = ranks.agree(written.and_then(|c| recorded.map(|_| c)))?;
        self.seconds.checksum += t.elapsed().as_secs_f64();
        if let Some(mut writer) = self.writer.take() {
            let (file, partial) = (self.file, self.partial);
            self.recording = Some(self.scope.spawn(move || {
                let recorded = (|| {
                    // Read back, unless this rank wrote (and hashed) every byte.
                    let checksum = match known {
                        Some(c) => c,
                        None => checksum(file, partial, offset, bytes)?,
                    };
                    writer.record_layer(k, offset, bytes, checksum)
                })();
                (writer, recorded)
            }));
        }
        if self.stop_after == Some(k) {
            let recorded = self.recorded();
            ranks.agree(recorded)?;
            // Every rank stops here, together.
            return ranks.agree(Err(Error::other(format!(
                "stopped after layer {k} (test hook); {} holds the finished layers",
                self.partial.display()
            ))));
        }
        Ok(())
    }

    /// Rank 0: wait for the layer being recorded and take the writer back.
    fn recorded(&mut self) -> Result<()> {
        match self.recording.take() {
            Some(h) => {
                let (writer, recorded) = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                self.writer = Some(writer);
                recorded
            }
            None => Ok(()),
        }
    }

    /// Write this rank's slice of a finished layer (`positions` entries in all), its values
    /// stored as `stored`. Collective.
    fn start<R: Ranks, V: Value>(
        &mut self,
        ranks: &R,
        solved: driver_::Solved<'_, V>,
        positions: u64,
        encoding: Encoding,
        stored: ValueType,
    ) -> Result<()> {
        let t = Instant::now();
        let driver_::Solved {
            layer: k,
            start,
            values,
            moves,
            keep,
        } = solved;
        let (file, partial, end) = (self.file, self.partial, self.end);
        // One byte a value (halved codes, or a table narrowed to i8): every value checked
        // before any is written, so a layer is whole or absent.
        let codes: Option<Vec<i8>> = match stored == V::TYPE || moves.is_some() {
            true => None,
            false => Some(ranks.agree(narrow(k, values, stored))?),
        };
        let width = stored.width() as u64;
        let (bytes, writing) = match encoding {
            Encoding::Plain => {
                // On a thread while the next layer is solved: the codes, or the values the
                // driver shares (`Solved::keep`). A rank that writes the whole layer hashes
                // it as it goes, so that rank 0 need not read it back.
                let at = end + start * width;
                let whole = values.len() as u64 == positions;
                let write: Box<dyn FnOnce() -> Result<u64> + Send> = match codes {
                    Some(codes) => Box::new(move || write_plain(file, partial, at, &codes)),
                    None => {
                        let kept = keep
                            .cloned()
                            .unwrap_or_else(|| std::sync::Arc::new(values.to_vec()));
                        Box::new(move || write_plain(file, partial, at, &kept))
                    }
                };
                let writing = self.scope.spawn(move || {
                    let hash = write()?;
                    sync(file, partial)?;
                    Ok(whole.then_some(hash))
                });
                (positions * width, writing)
            }
            // A layer of best moves is blocks of move indices, as compact values are.
            Encoding::Blocked | Encoding::Moves { .. } => {
                let (data, dir) = match (moves, &codes) {
                    (Some(moves), _) => pack_blocks(moves, |&m| i64::from(m)),
                    (None, Some(codes)) => pack_blocks(codes, |&c| i64::from(c)),
                    (None, None) => pack_blocks(values, |v| v.to_i64()),
                };
                let (data_at, total) = ranks.scan(data.len() as u64);
                let dir_at = end + blocks::directory_entry_at(total, start);
                let mut entries = Vec::with_capacity(dir.len() * DIR_ENTRY);
                for &(min, at, w) in &dir {
                    entries.extend_from_slice(&blocks::dir_entry(min, data_at + at, w));
                }
                let first = ranks.rank() == 0;
                let writing = self.scope.spawn(move || {
                    let write = |bytes: &[u8], at: u64| {
                        write_step(file, bytes, at).map_err(|e| io_error(partial, e))
                    };
                    write(&data, end + data_at)?;
                    write(&entries, dir_at)?;
                    if first {
                        write(&[0u8; SLACK], end + total)?;
                    }
                    sync(file, partial)?;
                    Ok(None)
                });
                (blocks::layer_bytes(positions, total), writing)
            }
        };
        self.writing = Some((k, end, bytes, writing));
        self.end += bytes;
        self.seconds.write += t.elapsed().as_secs_f64();
        Ok(())
    }
}

/// A slice's values as one-byte codes of `stored`, or the error a value without one gets.
fn narrow<V: Value>(k: usize, values: &[V], stored: ValueType) -> Result<Vec<i8>> {
    values
        .par_iter()
        .map(|v| one_byte(stored, v.to_i64()).ok_or_else(|| too_wide(k, stored)))
        .collect()
}

/// Write plain values at `at`, a step at a time (`write_step`: the crash and tear hooks);
/// the xxh3-64 of the bytes written (the layer's checksum, where they are the whole layer).
fn write_plain<V: Value>(file: &File, partial: &Path, mut at: u64, values: &[V]) -> Result<u64> {
    let mut buf = Vec::new();
    let mut hasher = Xxh3::new();
    for chunk in values.chunks(1 << 18) {
        buf.clear();
        chunk.iter().for_each(|&v| v.write_le(&mut buf));
        write_step(file, &buf, at).map_err(|e| io_error(partial, e))?;
        hasher.update(&buf);
        at += buf.len() as u64;
    }
    Ok(hasher.digest())
}

fn sync(file: &File, partial: &Path) -> Result<()> {
    crash_point();
    file.sync_data().map_err(|e| io_error(partial, e))
}

/// xxh3-64 of `len` bytes at `offset`, read back (a layer's checksum is over its bytes in
/// file order, which no rank holds alone).
fn checksum(file: &File, partial: &Path, offset: u64, len: u64) -> Result<u64> {
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 1 << 22];
    let mut at = 0;
    while at < len {
        let n = (len - at).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], offset + at)
            .map_err(|e| io_error(partial, e))?;
        hasher.update(&buf[..n]);
        at += n as u64;
    }
    Ok(hasher.digest())
}

/// A slice's blocks packed: the data bytes and, per block, (min, offset in the slice's
/// data, width). A slice starts on a block boundary, so these are exactly the blocks one
/// process packs.
fn pack_blocks<T: Sync>(
    entries: &[T],
    wide: impl Fn(&T) -> i64 + Sync,
) -> (Vec<u8>, Vec<(i64, u64, u8)>) {
    let packed = blocks::pack(entries, wide);
    let mut data = Vec::with_capacity(packed.iter().map(|p| p.0.len()).sum());
    let mut dir = Vec::with_capacity(packed.len());
    for (bytes, min, width) in packed {
        dir.push((min, data.len() as u64, width));
        data.extend_from_slice(&bytes);
    }
    (data, dir)
}

/// The error for a layer with a value the table's one-byte type `stored` cannot hold.
fn too_wide(k: usize, stored: ValueType) -> Error {
    Error::other(format!(
        "layer {k}: a value does not fit the table's one-byte values ({}: {})",
        stored.name(),
        match stored {
            ValueType::Halved => "wins in odd plies and losses in even, up to 254",
            _ => "up to 127",
        }
    ))
}

/// A value's byte in a table of one-byte type `stored` (`I8` or `Halved`), if it has one.
pub(crate) fn one_byte(stored: ValueType, value: i64) -> Option<i8> {
    match stored {
        ValueType::Halved => ValueType::halved(value),
        _ => i8::try_from(value).ok(),
    }
}

/// Write a finished table of values for the side to move again in one byte a value if every
/// value fits: as `i8` where each does, else as halved codes (`ValueType::Halved`) where
/// each has one (wins in odd plies and losses in even, up to 254: Nine Men's Morris's moving
/// phase reaches 204).
/// A stop is honoured while the layers are checked (they are all on disk, and a resumed
/// build narrows them), not once they are being rewritten: the rewrite takes seconds where
/// the solve took minutes. A kill there loses nothing (`TableWriter::rewrite`): the
/// one-byte copies go past the wide layers, which stay listed until every copy is on disk.
///
/// The layers are read in ranges, never whole as `i64`s, and each layer's bytes are held
/// only while it is written.
fn narrow_to_i8(
    writer: &mut TableWriter,
    layers: usize,
    halve: bool,
    progress: &dyn Progress,
) -> Result<()> {
    const RANGE: usize = 1 << 22;
    let old = writer.current()?;
    // Do all fit a byte, as i8s or as halved codes? Checked in ranges, a layer at a time.
    let (mut plain, mut halved) = (true, true);
    for k in 0..layers {
        progress::check_stopped(progress)?;
        let size = old.header.layers[k].positions;
        for start in (0..size).step_by(RANGE) {
            let part = old.read_range(k, start, RANGE.min((size - start) as usize))?;
            plain &= part.iter().all(|&v| i8::try_from(v).is_ok());
            halved &= part.iter().all(|&v| ValueType::halved(v).is_some());
            if !plain && !halved {
                return Ok(());
            }
        }
    }
    let stored = if plain && !(halve && halved) {
        ValueType::I8
    } else {
        ValueType::Halved
    };
    let narrow_layer = |k: usize| -> Result<Vec<i8>> {
        let size = old.header.layers[k].positions;
        let mut out = Vec::with_capacity(size as usize);
        for start in (0..size).step_by(RANGE) {
            let part = old.read_range(k, start, RANGE.min((size - start) as usize))?;
            for v in part {
                // Every value was checked above.
                out.push(one_byte(stored, v).unwrap_or_default());
            }
        }
        Ok(out)
    };
    writer.rewrite(stored, narrow_layer)
}
