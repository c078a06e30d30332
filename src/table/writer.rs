//! Writing a table: layers are appended as the sweep finishes them (full board first) into
//! `NAME.partial`. After each layer the header is rewritten to list it and the file is
//! synced, so an interrupted build resumes from the last finished layer. When the last
//! layer is in, the file is renamed: a table is only ever visible under its final name
//! once it is whole. Every write is ordered (and synced) so that the file on disk resumes
//! at every instant: a layer's bytes reach the disk before the header lists it, and a
//! header that stops listing layers reaches the disk before they are cut off.
//!
//! The partial file is opened, locked and, for a fresh start, emptied by `crate::table::partial`
//! (no symbolic links followed, never a file retro did not write).

use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use super::blocks::{self, BLOCK, SLACK};
use super::header::{self, Encoding, Header, LayerEntry, PREFIX_LEN};
use super::journal::{self, Journal};
use super::reader::Table;
use crate::error::{Error, Result, io_error};
use crate::game::{AnyBoard, Builtin, Registry};
use crate::stored::{Value, ValueType};
use crate::table::partial::{Kind, Partial, crash_point, write_step};

pub use crate::table::partial::{check_output, partial_path};

/// A table being written: layers appended to the locked partial file, then renamed.
pub struct TableWriter {
    partial: Partial,
    path: PathBuf,
    header: Header,
    header_len: usize,
    /// Where the header's copies go (`journal`): the header is never torn.
    journal: Journal,
    /// Where the layers the header on disk lists end: a copy of the next header goes past
    /// them as well as past the layer being appended.
    listed_end: u64,
    /// Where the next layer goes.
    end: u64,
    /// Room past `end` the header's copies keep clear (`reserve`).
    reserve: u64,
    /// Test hook: fail after writing this layer, as an interrupted build would stop.
    stop_after: Option<usize>,
    /// `Table::open_partial_file` for the registry the board's game is in: the partial
    /// file is read back through the descriptor the writer holds locked, never by name (a
    /// name another build may have given to a file of its own).
    open_partial: fn(&std::fs::File, &Path) -> Result<Table>,
}

/// How a build starts: from scratch, or below the lowest layer a partial file holds.
pub enum Start {
    /// No finished layers: start from the full board.
    Fresh,
    /// Layers `layer..=cells` are written (see `read_back`).
    Resume {
        /// The lowest finished layer.
        layer: usize,
    },
}

impl TableWriter {
    /// Start a build of `path`. Unless `fresh`, an existing `path.partial` of the same
    /// board, value type and encoding is resumed after its finished layers are checked;
    /// one of another board with finished layers is refused, and one with none (a build
    /// stopped before its first layer) is started again.
    /// `R` is a registry that has the board's game (the game itself will do).
    pub fn open<R: Registry>(
        path: &Path,
        game: AnyBoard,
        value_type: ValueType,
        encoding: Encoding,
        layer_sizes: &[u64],
        fresh: bool,
    ) -> Result<(Self, Start)> {
        Self::open_resuming::<R>(
            path,
            game,
            value_type,
            encoding,
            layer_sizes,
            fresh,
            &|_| false,
        )
    }

    /// `open`, where a partial file whose values are of a type `goes_on_in` accepts is
    /// resumed in its own type (a table of values for the side to move interrupted while
    /// it was written again in one byte a value goes on in that byte). The type is read
    /// from the header only once the file is locked and a torn header put back from its
    /// copy: the header the build resumes from is the one it judges.
    pub fn open_resuming<R: Registry>(
        path: &Path,
        game: AnyBoard,
        value_type: ValueType,
        encoding: Encoding,
        layer_sizes: &[u64],
        fresh: bool,
        goes_on_in: &dyn Fn(ValueType) -> bool,
    ) -> Result<(Self, Start)> {
        let header = Header::blank(game, value_type, encoding, layer_sizes);
        let header_len = header::encode(&header)?.len();
        check_output(path)?;
        let mut partial = Partial::lock(path, Kind::Table)?;
        if !fresh
            && partial.held > 0
            && let Some((table, lowest)) = check_partial::<R>(&partial.path, &header, goes_on_in)?
        {
            return Self::resume(path, partial, table, lowest, header_len)
                .map(|(w, s)| (w.reading_with(Table::open_partial_file::<R>), s));
        }
        partial.start_over()?;
        let mut writer = TableWriter {
            partial,
            path: path.to_path_buf(),
            header,
            header_len,
            journal: Journal::default(),
            listed_end: 0,
            end: header::values_start(header_len as u64),
            reserve: 0,
            stop_after: None,
            open_partial: Table::open_partial_file::<R>,
        };
        writer.write_header()?;
        Ok((writer, Start::Fresh))
    }

    /// Go on from an interrupted build whose layers `lowest..` are finished.
    fn resume(
        path: &Path,
        partial: Partial,
        table: Table,
        mut lowest: usize,
        header_len: usize,
    ) -> Result<(Self, Start)> {
        let on_disk = table.header.clone();
        // A table of best moves resumes from its lowest finished layer of values (the sweep
        // restarts from values); the layers of moves below it are written again.
        while lowest < on_disk.layers.len() && !table.stores_values(lowest) {
            lowest += 1;
        }
        drop(table);
        let mut header = on_disk.clone();
        for entry in &mut header.layers[..lowest] {
            *entry = LayerEntry {
                positions: entry.positions,
                ..LayerEntry::default()
            };
        }
        let (start, end) = match header.layers.get(lowest) {
            // Where the last listed layer ends: the lowest, or the last of a rewrite's
            // copies, which may lie past it (`rewrite`).
            Some(_) => (Start::Resume { layer: lowest }, listed_end(&header)),
            None => (Start::Fresh, header::values_start(header_len as u64)),
        };
        let mut writer = TableWriter {
            partial,
            path: path.to_path_buf(),
            header,
            header_len,
            journal: Journal::default(),
            listed_end: listed_end(&on_disk),
            end,
            reserve: 0,
            stop_after: None,
            open_partial: Table::open_partial_file::<Builtin>,
        };
        if writer.header != on_disk {
            // Layers of moves below the layer resumed from are dropped: the header on disk
            // stops listing them (synced) before their bytes are cut off, so a crash in
            // between leaves a file that still resumes.
            writer.write_header()?;
            writer.sync()?;
        }
        // Anything past the last finished layer is a layer cut off mid-write.
        crash_point();
        writer
            .partial
            .file
            .set_len(end)
            .map_err(|e| io_error(&writer.partial.path, e))?;
        writer.journal.cut();
        Ok((writer, start))
    }

    fn reading_with(mut self, open_partial: fn(&std::fs::File, &Path) -> Result<Table>) -> Self {
        self.open_partial = open_partial;
        self
    }

    /// The partial file as a table, as its header lists it now (its finished layers).
    pub fn current(&self) -> Result<Table> {
        (self.open_partial)(&self.partial.file, &self.partial.path)
    }

    /// Where finished layer `k` lies in the partial file: its offset and bytes.
    pub fn layer_place(&self, k: usize) -> (u64, u64) {
        let entry = &self.header.layers[k];
        (entry.offset, entry.bytes)
    }

    /// The partial file being written.
    pub fn partial_file(&self) -> &Path {
        &self.partial.path
    }

    /// The open partial file, for layers written in slices beside this writer (ranks of an
    /// MPI build, `record_layer`).
    pub(crate) fn file(&self) -> &std::fs::File {
        &self.partial.file
    }

    /// Where the next layer goes.
    pub(crate) fn end(&self) -> u64 {
        self.end
    }

    /// Keep `bytes` past the end of the layers free of the header's copies: the next layer
    /// is written there while the header that lists this one is.
    pub(crate) fn reserve(&mut self, bytes: u64) {
        self.reserve = bytes;
    }

    /// Record layer `k`, written by others from `offset` (where the next layer goes) over
    /// `bytes` bytes with xxh3-64 `checksum`, as `write_layer` records the layers it
    /// appends: synced, then listed in the header, synced again.
    pub(crate) fn record_layer(
        &mut self,
        k: usize,
        offset: u64,
        bytes: u64,
        checksum: u64,
    ) -> Result<()> {
        if offset != self.end || k >= self.header.layers.len() {
            return Err(Error::other(format!(
                "layer {k} does not match the table header"
            )));
        }
        self.sync()?;
        self.end = offset + bytes;
        let entry = &mut self.header.layers[k];
        entry.offset = offset;
        entry.bytes = bytes;
        entry.checksum = checksum;
        self.write_header()?;
        self.sync()
    }

    /// The header's encoding.
    pub fn encoding(&self) -> Encoding {
        self.header.encoding
    }

    /// Write every layer again in `value_type`, one byte a value (`layer(k)` gives layer
    /// `k`'s bytes, read from the layers listed now), so that a stop at any step keeps
    /// every finished layer. The new copies go past everything the file holds (the listed
    /// layers and the header's copy), each written while the header still lists the old
    /// layers; once all are synced, one header update lists the copies instead; `finish`
    /// then moves them down into place (`settle`). A stop before that update resumes from
    /// the old layers, one after it from the new: the disk holds both at the peak.
    pub fn rewrite(
        &mut self,
        value_type: ValueType,
        mut layer: impl FnMut(usize) -> Result<Vec<i8>>,
    ) -> Result<()> {
        if value_type.stored_as() != ValueType::I8 {
            return Err(Error::other(
                "a table is written again in one byte a value only",
            ));
        }
        let mut order: Vec<usize> = (0..self.header.layers.len()).collect();
        order.sort_by_key(|&k| self.header.layers[k].offset);
        let len = self
            .partial
            .file
            .metadata()
            .map_err(|e| io_error(&self.partial.path, e))?
            .len();
        self.end = self.end.max(len);
        let mut copies = Vec::with_capacity(order.len());
        for k in order {
            let values = layer(k)?;
            let offset = self.end;
            let checksum = self.put_entries(k, &values, |&v| v)?;
            copies.push((k, offset, self.end - offset, checksum));
        }
        self.sync()?;
        self.header.value_type = value_type;
        for (k, offset, bytes, checksum) in copies {
            let entry = &mut self.header.layers[k];
            (entry.offset, entry.bytes, entry.checksum) = (offset, bytes, checksum);
        }
        self.write_header()?;
        self.sync()
    }

    /// Move every layer into place, side by side from the start of the values in file
    /// order (the full board first), where a rewrite left copies elsewhere; then the file
    /// ends where they do. Each layer is copied, synced and listed at its new place before
    /// the next moves; its new place holds no layer the header lists (only old bytes of a
    /// rewrite, or layers moved there before), so a stop between any two steps leaves
    /// every layer listed once, whole.
    fn settle(&mut self) -> Result<()> {
        let mut at = header::values_start(self.header_len as u64);
        let mut buf = Vec::new();
        for k in (0..self.header.layers.len()).rev() {
            let LayerEntry { offset, bytes, .. } = self.header.layers[k];
            if offset != at {
                let into = at..at + bytes;
                // Its own old place counts too: a stop in a copy over itself would leave
                // neither.
                let in_the_way = self.header.layers.iter().any(|l| {
                    l.offset != 0
                        && l.bytes > 0
                        && l.offset < into.end
                        && into.start < l.offset + l.bytes
                });
                if in_the_way {
                    return Err(Error::other(format!(
                        "{}: layer {k} cannot move into place: another layer is there",
                        self.partial.path.display()
                    )));
                }
                buf.resize((1usize << 22).min(bytes as usize), 0);
                let mut done = 0u64;
                while done < bytes {
                    let n = (buf.len() as u64).min(bytes - done) as usize;
                    let file = &self.partial.file;
                    file.read_exact_at(&mut buf[..n], offset + done)
                        .and_then(|()| write_step(file, &buf[..n], at + done))
                        .map_err(|e| io_error(&self.partial.path, e))?;
                    done += n as u64;
                }
                self.sync()?;
                self.header.layers[k].offset = at;
                self.write_header()?;
                self.sync()?;
            }
            at += bytes;
        }
        self.end = at;
        Ok(())
    }

    /// End the file where the last layer written ends.
    fn cut(&mut self) -> Result<()> {
        crash_point();
        self.partial
            .file
            .set_len(self.end)
            .map_err(|e| io_error(&self.partial.path, e))?;
        self.journal.cut();
        Ok(())
    }

    /// The values of finished layer `k`, read back from the partial file to resume from.
    pub fn read_back<V: Value>(&self, k: usize) -> Result<Vec<V>> {
        let table = self.current()?;
        let size = self.header.layers[k].positions;
        let mut values = Vec::with_capacity(size as usize);
        let step = (BLOCK * 256) as u64;
        for start in (0..size).step_by(step as usize) {
            let part = table.read_range(k, start, step.min(size - start) as usize)?;
            values.extend(part.into_iter().map(V::from_i64));
        }
        Ok(values)
    }

    /// Test hook: stop with an error once layer `k` is written.
    pub fn stop_after(&mut self, k: Option<usize>) {
        self.stop_after = k;
    }

    fn write_header(&mut self) -> Result<()> {
        let encoded = header::encode(&self.header)?;
        if encoded.len() != self.header_len {
            return Err(Error::other("table header changed size while building"));
        }
        let mut bytes = header::prefix(&encoded, header::version_of(&self.header)).to_vec();
        bytes.extend_from_slice(&encoded);
        // The copy goes where the next layer starts: nothing after it is needed until the
        // header at 0 lists more.
        let past = self.end.saturating_add(self.reserve).max(self.listed_end);
        self.journal
            .commit(&self.partial.file, &self.partial.path, &bytes, past)?;
        self.listed_end = listed_end(&self.header);
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        crash_point();
        self.partial
            .file
            .sync_data()
            .map_err(|e| io_error(&self.partial.path, e))
    }

    fn append(&mut self, bytes: &[u8], hasher: &mut Xxh3) -> Result<()> {
        hasher.update(bytes);
        write_step(&self.partial.file, bytes, self.end)
            .map_err(|e| io_error(&self.partial.path, e))?;
        self.end += bytes.len() as u64;
        Ok(())
    }

    /// Append layer `k`'s best moves (a layer of a best-move table that stores no values),
    /// then record it in the header and sync.
    pub fn write_moves(&mut self, k: usize, moves: &[u8]) -> Result<()> {
        let cells = self.header.layers.len() - 1;
        if moves.len() as u64 != self.header.layers[k].positions
            || self.header.encoding.stores_values(k, cells)
        {
            return Err(Error::other(format!(
                "layer {k} of moves does not match the table header"
            )));
        }
        let offset = self.end;
        let mut hasher = Xxh3::new();
        self.append_blocks(moves, |&m| i64::from(m), &mut hasher)?;
        self.finish_layer(k, offset, hasher.digest())
    }

    /// Append `entries` in blocks, packed in parallel a group at a time and written in
    /// order; the directory follows the data and the slack.
    fn append_blocks<T: Sync>(
        &mut self,
        entries: &[T],
        wide: impl Fn(&T) -> i64 + Sync,
        hasher: &mut Xxh3,
    ) -> Result<()> {
        let mut dir = Vec::with_capacity(blocks::directory_bytes(entries.len() as u64) as usize);
        let mut data_len = 0u64;
        for group in entries.chunks(BLOCK * 256) {
            for (data, min, width) in blocks::pack(group, &wide) {
                dir.extend_from_slice(&blocks::dir_entry(min, data_len, width));
                data_len += data.len() as u64;
                self.append(&data, hasher)?;
            }
        }
        self.append(&[0u8; SLACK], hasher)?;
        self.append(&dir, hasher)
    }

    /// Append layer `k`, then record it in the header and sync, so it survives a crash.
    pub fn write_layer<V: Value>(&mut self, k: usize, values: &[V]) -> Result<()> {
        if V::TYPE != self.header.value_type.stored_as() {
            return Err(Error::other(format!(
                "layer {k} does not match the table header"
            )));
        }
        self.write_entries(k, values, |&v| v)
    }

    /// Append layer `k` of a one-byte table from values computed wider, each written as
    /// `narrow` makes it (its `i8`, or its halved code), as `write_layer` does.
    pub fn write_narrowed<V: Value>(
        &mut self,
        k: usize,
        values: &[V],
        narrow: impl Fn(&V) -> i8 + Sync,
    ) -> Result<()> {
        if self.header.value_type.stored_as() != ValueType::I8 {
            return Err(Error::other(format!(
                "layer {k} does not match the table header"
            )));
        }
        self.write_entries(k, values, narrow)
    }

    /// Append layer `k`'s `entries`, each stored as `stored` makes it, and record it.
    fn write_entries<T: Sync, S: Value>(
        &mut self,
        k: usize,
        entries: &[T],
        stored: impl Fn(&T) -> S + Sync,
    ) -> Result<()> {
        let offset = self.end;
        let checksum = self.put_entries(k, entries, stored)?;
        self.finish_layer(k, offset, checksum)
    }

    /// Append layer `k`'s `entries` at the end, each stored as `stored` makes it, without
    /// recording it; the xxh3-64 of the bytes written.
    fn put_entries<T: Sync, S: Value>(
        &mut self,
        k: usize,
        entries: &[T],
        stored: impl Fn(&T) -> S + Sync,
    ) -> Result<u64> {
        let cells = self.header.layers.len() - 1;
        if entries.len() as u64 != self.header.layers[k].positions
            || !self.header.encoding.stores_values(k, cells)
        {
            return Err(Error::other(format!(
                "layer {k} does not match the table header"
            )));
        }
        let mut hasher = Xxh3::new();
        match self.header.encoding {
            Encoding::Plain => {
                let mut buf = Vec::new();
                for chunk in entries.chunks(1 << 18) {
                    buf.clear();
                    chunk.iter().for_each(|t| stored(t).write_le(&mut buf));
                    self.append(&buf, &mut hasher)?;
                }
            }
            Encoding::Blocked | Encoding::Moves { .. } => {
                self.append_blocks(entries, |t| stored(t).to_i64(), &mut hasher)?;
            }
        }
        Ok(hasher.digest())
    }

    /// Record a layer appended from `offset` in the header, syncing before and after.
    fn finish_layer(&mut self, k: usize, offset: u64, checksum: u64) -> Result<()> {
        self.sync()?;
        let entry = &mut self.header.layers[k];
        entry.offset = offset;
        entry.bytes = self.end - offset;
        entry.checksum = checksum;
        self.write_header()?;
        self.sync()?;
        if crate::table::partial::cut_after(k) {
            // Test hook: another program cuts the file in the middle of this layer.
            let _ = self.partial.file.set_len(offset + (self.end - offset) / 2);
        }
        crate::table::partial::replace_after(k, &self.partial.path);
        if self.stop_after == Some(k) {
            return Err(Error::other(format!(
                "stopped after layer {k} (test hook); {} holds the finished layers",
                self.partial.path.display()
            )));
        }
        Ok(())
    }

    /// Read every layer back from the file and check it against the checksum recorded as
    /// it was written, so that a table is never sealed with bytes another program cut off
    /// or wrote over while it was built.
    fn check_layers(&self) -> Result<()> {
        let file = &self.partial.file;
        let path = &self.partial.path;
        let len = file.metadata().map_err(|e| io_error(path, e))?.len();
        let mut buf = vec![0u8; 1 << 22];
        for (k, entry) in self.header.layers.iter().enumerate() {
            let damaged = || {
                Error::corrupt(format!(
                    "{}: layer {k} no longer matches what this build wrote (did another program cut the file short or write over it?); the table is not sealed: run the same command again with --fresh",
                    path.display()
                ))
            };
            if entry.offset == 0 || entry.offset.saturating_add(entry.bytes) > len {
                return Err(damaged());
            }
            let mut hasher = Xxh3::new();
            let mut done = 0u64;
            while done < entry.bytes {
                let n = (buf.len() as u64).min(entry.bytes - done) as usize;
                file.read_exact_at(&mut buf[..n], entry.offset + done)
                    .map_err(|e| io_error(path, e))?;
                hasher.update(&buf[..n]);
                done += n as u64;
            }
            if hasher.digest() != entry.checksum {
                return Err(damaged());
            }
        }
        Ok(())
    }

    /// The header's value type.
    pub fn value_type(&self) -> ValueType {
        self.header.value_type
    }

    /// Bytes of values written so far.
    pub fn value_bytes(&self) -> u64 {
        self.header.value_bytes()
    }

    /// Seal the header with the table checksum and move the table to its final name.
    /// Returns the file size.
    pub fn finish(mut self) -> Result<u64> {
        self.settle()?;
        self.check_layers()?;
        self.header.checksum = Header::combined_checksum(&self.header.layers);
        self.write_header()?;
        crash_point();
        self.partial
            .file
            .sync_all()
            .map_err(|e| io_error(&self.partial.path, e))?;
        // The header's copy is not part of the table.
        self.cut()?;
        crash_point();
        self.partial
            .file
            .sync_all()
            .map_err(|e| io_error(&self.partial.path, e))?;
        self.still_named()?;
        crash_point();
        std::fs::rename(&self.partial.path, &self.path).map_err(|e| io_error(&self.path, e))?;
        Ok(self.end)
    }

    /// Refuse to seal when the partial file's name no longer leads to the file this build
    /// holds: it was removed, or another build gave the name to a file of its own. The
    /// rename would then give the table's name to that file, not to this build's.
    fn still_named(&self) -> Result<()> {
        let held = self
            .partial
            .file
            .metadata()
            .map_err(|e| io_error(&self.partial.path, e))?;
        match std::fs::symlink_metadata(&self.partial.path) {
            Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => Ok(()),
            _ => Err(Error::other(format!(
                "{}: was removed or replaced while this build ran (by another build, or by hand); the table is not sealed: run the build again",
                self.partial.path.display()
            ))),
        }
    }
}

/// Where the last layer a header lists ends (0 when it lists none).
fn listed_end(header: &Header) -> u64 {
    header
        .layers
        .iter()
        .filter(|l| l.offset != 0)
        .map(|l| l.offset + l.bytes)
        .max()
        .unwrap_or(0)
}

/// Open an interrupted build's partial file for resuming `wanted`: it must be of the same
/// board and encoding, of its value type or one `goes_on_in` accepts, and its finished
/// layers (the top ones) must match their checksums. Returns the file as a table and its
/// lowest finished layer, or None when it holds no finished layer at all (a build stopped
/// before its first layer, even in the middle of writing its header, or one of another
/// board that had finished nothing): there is nothing to keep, and the build starts again.
pub fn check_partial<R: Registry>(
    partial: &Path,
    wanted: &Header,
    goes_on_in: &dyn Fn(ValueType) -> bool,
) -> Result<Option<(Table, usize)>> {
    let refuse = |why: &str| {
        Error::other(format!(
            "{}: {why}; remove it or run again with --fresh to start over",
            partial.display()
        ))
    };
    // A header torn by a cut between its pages is put back from its copy first, and only
    // a copy of this board and format: a copy of another (a longer header) written at 0
    // would run over the start of the layers, and the board check below refuses the file
    // anyway.
    let version = header::version_of(wanted);
    let len = PREFIX_LEN as usize + header::encode(wanted)?.len();
    journal::recover(partial, |copy| {
        let at = header::VERSION_AT;
        copy.len() == len
            && copy.get(at..at + 4) == Some(&version.to_le_bytes()[..])
            && header::decode::<R>(&copy[PREFIX_LEN as usize..], version)
                .is_ok_and(|found| same_board(&found, wanted))
    })?;
    match started(partial)? {
        Started::NotOurs => return Err(Kind::Table.not_ours(partial)),
        Started::HeaderIncomplete => return Ok(None),
        Started::HeaderWhole => {}
    }
    // The reader's messages start with the path, which `refuse` already names. `R` may
    // hold the one game being built: retro's own games beside it name a partial file of
    // another (`R`'s first, where a name is in both).
    let table = Table::open_partial::<(R, Builtin)>(partial).map_err(|e| {
        let prefix = format!("{}: ", partial.display());
        let message = e.to_string();
        refuse(message.strip_prefix(&prefix).unwrap_or(&message))
    })?;
    let found = &table.header;
    if !(0..found.layers.len()).any(|k| found.finished(k)) {
        return Ok(None);
    }
    if found.game != wanted.game
        && (found.game.name() != wanted.game.name() || found.game.label() != wanted.game.label())
    {
        // Another game, or a board its label tells apart: named first, since the fold,
        // the format and the values differ with it.
        return Err(refuse(&another_board(&found.game, &wanted.game)));
    }
    if found.symmetries != wanted.symmetries {
        // Folded and unfolded tables differ in every layer (and in the header's length).
        let fold = |s: u32| match s {
            1 => "every position its own entry (--no-fold)".to_string(),
            s => format!("positions folded by {s} symmetries (the default)"),
        };
        return Err(refuse(&format!(
            "this interrupted build holds {}, this build asks for {}",
            fold(found.symmetries),
            fold(wanted.symmetries)
        )));
    }
    if table.version != header::version_of(wanted) {
        // Its header has another length, so its layers are not where ours would go.
        return Err(refuse(&format!(
            "this interrupted build was written by an older retro (table format version {})",
            table.version
        )));
    }
    if found.game != wanted.game {
        // Boards whose labels are alike (young's and twins' leave out the weights).
        return Err(refuse(&format!(
            "this interrupted build is of another board, {} {} with other weights",
            found.game.name(),
            found.game.label()
        )));
    }
    if !same_board(found, wanted)
        || found.value_type != wanted.value_type && !goes_on_in(found.value_type)
    {
        return Err(refuse(
            "this interrupted build is of another board or format",
        ));
    }
    let mut lowest = found.layers.len();
    for k in (0..found.layers.len()).rev() {
        if !found.finished(k) {
            break;
        }
        if table.layer_checksum(k)? != found.layers[k].checksum {
            return Err(refuse(&format!("finished layer {k} is damaged")));
        }
        lowest = k;
    }
    Ok((lowest < found.layers.len()).then_some((table, lowest)))
}

/// Whether a header found in a partial file is of the board, folding and encoding a build
/// asks for (its value type apart).
fn same_board(found: &Header, wanted: &Header) -> bool {
    found.game == wanted.game
        && found.symmetries == wanted.symmetries
        && found.encoding == wanted.encoding
        && found.layers.len() == wanted.layers.len()
        && found
            .layers
            .iter()
            .zip(&wanted.layers)
            .all(|(f, w)| f.positions == w.positions)
}

/// "this interrupted build is of quixo 3x3, not teeko 4x4s3": the board a partial file
/// holds and the one asked for, as commands name them.
fn another_board(found: &AnyBoard, wanted: &AnyBoard) -> String {
    format!(
        "this interrupted build is of {} {}, not {} {}",
        found.name(),
        found.label(),
        wanted.name(),
        wanted.label()
    )
}

/// How far an interrupted build got with its partial file's first bytes.
enum Started {
    /// Not a table's start (another program's file of that name).
    NotOurs,
    /// The magic bytes, or zeros, and fewer bytes than the header they announce: a build
    /// stopped within its first write.
    HeaderIncomplete,
    /// A whole header, for the reader to judge.
    HeaderWhole,
}

fn started(partial: &Path) -> Result<Started> {
    let file = std::fs::File::open(partial).map_err(|e| io_error(partial, e))?;
    let meta = file.metadata().map_err(|e| io_error(partial, e))?;
    let len = meta.len();
    let mut prefix = [0u8; PREFIX_LEN as usize];
    let n = (len.min(PREFIX_LEN)) as usize;
    file.read_exact_at(&mut prefix[..n], 0)
        .map_err(|e| io_error(partial, e))?;
    if !Kind::Table.recognises(
        &prefix[..n],
        len,
        std::os::unix::fs::MetadataExt::nlink(&meta),
    ) {
        return Ok(Started::NotOurs);
    }
    if len < PREFIX_LEN || prefix.iter().all(|&b| b == 0) {
        return Ok(Started::HeaderIncomplete);
    }
    let at = header::HEADER_LEN_AT;
    let header_len =
        u32::from_le_bytes([prefix[at], prefix[at + 1], prefix[at + 2], prefix[at + 3]]);
    Ok(if len < PREFIX_LEN + u64::from(header_len) {
        Started::HeaderIncomplete
    } else {
        Started::HeaderWhole
    })
}
