//! A build's table as the solve's sink, on one process: what the file takes from the driver
//! and how (the policy; `crate::table` is the file itself). It opens the partial file (or resumes one, reading back the finished layers
//! the rest of the solve reads), writes each layer as the driver hands it on (values in the
//! type the table stores, or a layer's best moves), lets the driver map finished layers
//! back from the file instead of holding them, and seals the table once every layer is in:
//! values for the side to move narrowed to one byte where they all fit. The builds over MPI
//! write their slices through `distributed::run` and seal through here.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::{AnyBoard, Registered};
use crate::progress::{self, Progress};
use crate::solve::{self as driver_, Driver, StartAt};
use crate::stored::{Value, ValueType};
use crate::table::Encoding;
use crate::table::mapped::GuardedMap;
use crate::table::writer::{Start, TableWriter};

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

/// A table being built: its writer, and where each finished layer lies in the partial file.
pub(crate) struct TableSink {
    writer: TableWriter,
    /// Entries of each layer.
    sizes: Vec<u64>,
    /// Values for the side to move (narrowed to one byte when sealed, where they fit).
    side_to_move: bool,
    halve: bool,
    resumed_below: Option<usize>,
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

impl TableSink {
    /// Open `path`'s partial file for a build of `game` that solves in `V`: resumed where
    /// one of the same board is there (unless `layout.fresh`), else begun afresh.
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
            writer,
            sizes,
            side_to_move,
            halve: layout.halve,
            resumed_below,
        })
    }

    /// The layer a resumed build goes on below, if it resumed.
    pub(crate) fn resumed_below(&self) -> Option<usize> {
        self.resumed_below
    }

    /// Solve `game`'s layers not yet in the file into it; the empty board's value.
    pub(crate) fn solve<G: Registered, V: Value>(
        &mut self,
        game: &G,
        driver: Driver,
        progress: &dyn Progress,
    ) -> Result<i64> {
        let writer = &mut self.writer;
        let from = match self.resumed_below {
            None => StartAt::Top,
            Some(layer) => StartAt::Below {
                layer,
                held: driver_::held_below(game, layer)
                    .into_iter()
                    .map(|j| Ok((j, writer.read_back::<V>(j)?)))
                    .collect::<Result<_>>()?,
            },
        };
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
        let partial: PathBuf = writer.partial_file().to_path_buf();
        let placed: Mutex<Vec<Option<(u64, u64)>>> = Mutex::new(vec![None; self.sizes.len()]);
        // The partial file is this build's own, locked against other builds
        // (`crate::table::partial`); its finished layers are never written again while the
        // solve runs (the rewrite to i8 comes after it, once every map is dropped). A
        // program that cuts it short anyway meets the SIGBUS guard of `GuardedMap`, and the
        // solve reports it after the layer that read there.
        let map = |k: usize| -> Option<GuardedMap> {
            let (offset, bytes) = (*placed.lock().ok()?.get(k)?)?;
            let file = std::fs::File::open(&partial).ok()?;
            GuardedMap::range(&file, offset, usize::try_from(bytes).ok()?)
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
        driver_::solve_layers::<G, V, driver_::One>(
            game,
            driver,
            progress,
            from,
            hooks,
            &driver_::One,
        )
    }

    /// Seal the table under its name, every layer being in: values for the side to move
    /// narrowed to one byte first where they all fit (`narrow_to_i8`).
    pub(crate) fn seal(mut self, progress: &dyn Progress) -> Result<Sealed> {
        if self.side_to_move && self.writer.value_type().width() > 1 {
            narrow_to_i8(&mut self.writer, self.sizes.len(), self.halve, progress)?;
        }
        let value_bytes = self.writer.value_bytes();
        let file_bytes = self.writer.finish()?;
        Ok(Sealed {
            entries: self.sizes.iter().sum(),
            file_bytes,
            value_bytes,
        })
    }
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
/// build narrows them), not once they are being rewritten: a stop there would drop the
/// `i16` layers not yet written again, and the rewrite takes seconds where the solve took
/// minutes.
///
/// The layers are read in ranges, never whole as `i64`s: a plain table is rewritten in
/// place, each layer read whole as `i8`s and written where the one before it ended, which
/// is never past where its own `i16`s began (so the rewrite holds one layer's `i8`s, and the
/// disk no second copy). A compact table, whose blocks may not shrink, is read whole first.
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
    // Layers in the order the file holds them (the build writes the last first).
    let mut order: Vec<usize> = (0..layers).collect();
    order.sort_by_key(|&k| old.header.layers[k].offset);
    if writer.encoding() != Encoding::Plain {
        let mut narrow = Vec::with_capacity(layers);
        for k in 0..layers {
            narrow.push(narrow_layer(k)?);
        }
        writer.restart_as(stored)?;
        for &k in &order {
            writer.write_layer(k, &narrow[k])?;
        }
        return Ok(());
    }
    writer.restart_over_as(stored)?;
    for &k in &order {
        let values = narrow_layer(k)?;
        writer.write_layer(k, &values)?;
    }
    writer.cut()
}
