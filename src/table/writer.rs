//! Writing a table: layers are appended as the sweep finishes them (full board first) into
//! `NAME.partial`. After each layer the header is rewritten to list it and the file is
//! synced, so an interrupted build resumes from the last finished layer. When the last
//! layer is in, the file is renamed: a table is only ever visible under its final name
//! once it is whole.
//!
//! A build holds an exclusive lock (`flock`) on its partial file from before it reads or
//! truncates it until the rename: a second build of the same table stops at once, naming
//! the first, instead of resuming from a file that is still being appended to. The OS
//! drops the lock when the process dies, so a killed build still resumes.

use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use super::blocks::{self, BLOCK, SLACK};
use super::header::{self, Encoding, Header, LayerEntry};
use super::reader::{Table, file_kind};
use crate::error::{Error, Result, io_error};
use crate::game::GameSpec;
use crate::value::{Value, ValueType};

/// A table being written: layers appended to the locked partial file, then renamed.
pub struct TableWriter {
    file: File,
    partial: PathBuf,
    path: PathBuf,
    header: Header,
    header_len: usize,
    /// Where the next layer goes.
    end: u64,
    /// Test hook: fail after writing this layer, as an interrupted build would stop.
    stop_after: Option<usize>,
}

/// The temporary name a table is built under.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
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
    /// one of another board is refused.
    pub fn open(
        path: &Path,
        game: GameSpec,
        value_type: ValueType,
        encoding: Encoding,
        layer_sizes: &[u64],
        fresh: bool,
    ) -> Result<(Self, Start)> {
        let header = Header::blank(game, value_type, encoding, layer_sizes);
        let header_len = header::encode(&header)?.len();
        check_output(path)?;
        let partial = partial_path(path);
        let file = lock_partial(&partial)?;
        let held = file.metadata().map_err(|e| io_error(&partial, e))?.len();
        if !fresh && held > 0 {
            return Self::resume(path, file, partial, header, header_len);
        }
        file.set_len(0).map_err(|e| io_error(&partial, e))?;
        let mut writer = TableWriter {
            file,
            partial,
            path: path.to_path_buf(),
            header,
            header_len,
            end: header::values_start(header_len as u64),
            stop_after: None,
        };
        writer.write_header()?;
        Ok((writer, Start::Fresh))
    }

    fn resume(
        path: &Path,
        file: File,
        partial: PathBuf,
        wanted: Header,
        header_len: usize,
    ) -> Result<(Self, Start)> {
        let (table, mut lowest) = check_partial(&partial, &wanted)?;
        let found = &table.header;
        // A table of best moves resumes from its lowest finished layer of values (the sweep
        // restarts from values); the layers of moves below it are written again.
        while lowest < found.layers.len() && !table.stores_values(lowest) {
            lowest += 1;
        }
        let found_on_disk = &table.header.clone();
        let mut found = found.clone();
        for entry in &mut found.layers[..lowest] {
            *entry = LayerEntry {
                positions: entry.positions,
                ..LayerEntry::default()
            };
        }
        let found = &found;
        let start = if lowest == found.layers.len() {
            Start::Fresh
        } else {
            Start::Resume { layer: lowest }
        };
        let end = match lowest {
            l if l < found.layers.len() => found.layers[l].offset + found.layers[l].bytes,
            _ => header::values_start(header_len as u64),
        };
        let header = found.clone();
        drop(table);
        // Anything past the last finished layer is a layer cut off mid-write.
        file.set_len(end).map_err(|e| io_error(&partial, e))?;
        let mut writer = TableWriter {
            file,
            partial,
            path: path.to_path_buf(),
            header,
            header_len,
            end,
            stop_after: None,
        };
        if writer.header != *found_on_disk {
            // Layers of moves below the layer resumed from were dropped: the header on
            // disk must stop listing them before anything reads the file back.
            writer.write_header()?;
            writer
                .file
                .sync_data()
                .map_err(|e| io_error(&writer.partial, e))?;
        }
        Ok((writer, start))
    }

    /// The values of finished layer `k`, read back from the partial file to resume from.
    pub fn read_back<V: Value>(&self, k: usize) -> Result<Vec<V>> {
        let table = Table::open_partial(&self.partial)?;
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
        let mut bytes = header::prefix(&encoded).to_vec();
        bytes.extend_from_slice(&encoded);
        self.file
            .write_all_at(&bytes, 0)
            .map_err(|e| io_error(&self.partial, e))
    }

    fn append(&mut self, bytes: &[u8], hasher: &mut Xxh3) -> Result<()> {
        hasher.update(bytes);
        self.file
            .write_all_at(bytes, self.end)
            .map_err(|e| io_error(&self.partial, e))?;
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
        self.finish_layer(k, offset, hasher)
    }

    /// Append `entries` in blocks, packed in parallel a group at a time and written in
    /// order; the directory follows the data and the slack.
    fn append_blocks<T: Sync>(
        &mut self,
        entries: &[T],
        wide: impl Fn(&T) -> i64 + Sync,
        hasher: &mut Xxh3,
    ) -> Result<()> {
        let mut dir = Vec::with_capacity(entries.len().div_ceil(BLOCK) * blocks::DIR_ENTRY);
        let mut data_len = 0u64;
        for group in entries.chunks(BLOCK * 256) {
            let packed: Vec<(Vec<u8>, i64, u8)> = group
                .par_chunks(BLOCK)
                .map(|block| {
                    let wide: Vec<i64> = block.iter().map(&wide).collect();
                    let mut data = Vec::new();
                    let (min, _, width) = blocks::encode_block(&wide, &mut data);
                    (data, min, width)
                })
                .collect();
            for (data, min, width) in packed {
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
        let cells = self.header.layers.len() - 1;
        if values.len() as u64 != self.header.layers[k].positions
            || V::TYPE != self.header.value_type
            || !self.header.encoding.stores_values(k, cells)
        {
            return Err(Error::other(format!(
                "layer {k} does not match the table header"
            )));
        }
        let offset = self.end;
        let mut hasher = Xxh3::new();
        match self.header.encoding {
            Encoding::Plain => {
                let mut buf = Vec::new();
                for chunk in values.chunks(1 << 18) {
                    buf.clear();
                    chunk.iter().for_each(|&v| v.write_le(&mut buf));
                    self.append(&buf, &mut hasher)?;
                }
            }
            Encoding::Blocked | Encoding::Moves { .. } => {
                self.append_blocks(values, |v| v.to_i64(), &mut hasher)?;
            }
        }
        self.finish_layer(k, offset, hasher)
    }

    /// Record a layer appended from `offset` in the header, syncing before and after.
    fn finish_layer(&mut self, k: usize, offset: u64, hasher: Xxh3) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| io_error(&self.partial, e))?;
        let entry = &mut self.header.layers[k];
        entry.offset = offset;
        entry.bytes = self.end - offset;
        entry.checksum = hasher.digest();
        self.write_header()?;
        self.file
            .sync_data()
            .map_err(|e| io_error(&self.partial, e))?;
        if self.stop_after == Some(k) {
            return Err(Error::other(format!(
                "stopped after layer {k} (test hook); {} holds the finished layers",
                self.partial.display()
            )));
        }
        Ok(())
    }

    /// Bytes of values written so far.
    pub fn value_bytes(&self) -> u64 {
        self.header.value_bytes()
    }

    /// Seal the header with the table checksum and move the table to its final name.
    /// Returns the file size.
    pub fn finish(mut self) -> Result<u64> {
        self.header.checksum = Header::combined_checksum(&self.header.layers);
        self.write_header()?;
        self.file
            .sync_all()
            .map_err(|e| io_error(&self.partial, e))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| io_error(&self.path, e))?;
        Ok(self.end)
    }
}

/// Open an interrupted build's partial file for resuming `wanted`: it must be of the same
/// board, value type and encoding, and its finished layers (the top ones) must match their
/// checksums. Returns the file as a table and its lowest finished layer (the number of
/// layers when none is finished). Shared by single-process and MPI builds.
pub fn check_partial(partial: &Path, wanted: &Header) -> Result<(Table, usize)> {
    let refuse = |why: &str| {
        Error::other(format!(
            "{}: {why}; remove it or run again with --fresh to start over",
            partial.display()
        ))
    };
    // The reader's messages start with the path, which `refuse` already names.
    let table = Table::open_partial(partial).map_err(|e| {
        let prefix = format!("{}: ", partial.display());
        let message = e.to_string();
        refuse(message.strip_prefix(&prefix).unwrap_or(&message))
    })?;
    let found = &table.header;
    if found.game != wanted.game
        || found.value_type != wanted.value_type
        || found.encoding != wanted.encoding
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
    Ok((table, lowest))
}

/// Refuse, before any work, an output path that cannot end up holding the table: one that
/// exists and is not a regular file (a directory, a device such as /dev/null, a FIFO, a
/// socket), one that names a directory, or one whose directory is missing or not writable.
pub fn check_output(path: &Path) -> Result<()> {
    let refuse = |why: &str| Error::input(format!("{}: {why}", path.display()));
    if path.as_os_str().is_empty() || path.as_os_str().as_bytes().ends_with(b"/") {
        return Err(refuse("names a directory, not a table file"));
    }
    for p in [path.to_path_buf(), partial_path(path)] {
        if let Ok(meta) = std::fs::metadata(&p)
            && !meta.is_file()
        {
            let kind = file_kind(&meta.file_type());
            return Err(Error::input(format!(
                "{}: is {kind}, not a table file",
                p.display()
            )));
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(refuse(&format!("{} is not a directory", dir.display()))),
        Err(e) => {
            return Err(Error::io(
                format!("{}: directory {}", path.display(), dir.display()),
                e,
            ));
        }
    }
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).map_err(|e| {
        Error::io(
            format!("{}: cannot write in {}", path.display(), dir.display()),
            e.into(),
        )
    })
}

/// Fail at once if another build holds the lock on `path`'s partial file, so that the
/// refusal comes before estimates and checks; the lock itself is taken by `open`.
pub fn check_unlocked(path: &Path) -> Result<()> {
    let partial = partial_path(path);
    let Ok(file) = OpenOptions::new().read(true).open(&partial) else {
        return Ok(());
    };
    match file.try_lock() {
        Err(std::fs::TryLockError::WouldBlock) => Err(locked_by_another(&partial, &file)),
        // Released when `file` closes.
        _ => Ok(()),
    }
}

fn locked_by_another(partial: &Path, file: &File) -> Error {
    Error::other(format!(
        "{}: another build of this table is running ({}); wait for it to finish or stop it",
        partial.display(),
        lock_holder(file).unwrap_or_else(|| "another process".into())
    ))
}

/// Open (creating if need be, never truncating) and exclusively lock the partial file.
fn lock_partial(partial: &Path) -> Result<File> {
    loop {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(partial)
            .map_err(|e| io_error(partial, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(locked_by_another(partial, &file));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_error(partial, e)),
        }
        // Between our open and our lock, the build that held the lock may have finished
        // and renamed this very file to the table's name: then the lock we hold is on the
        // finished table, and the partial file to work on is a new one.
        let locked = file.metadata().map_err(|e| io_error(partial, e))?;
        match std::fs::metadata(partial) {
            Ok(now) if now.dev() == locked.dev() && now.ino() == locked.ino() => return Ok(file),
            _ => continue,
        }
    }
}

/// "pid 1234 (retro build ...)": the process holding a flock on `file`, from
/// /proc/locks (Linux); None where that cannot be read.
fn lock_holder(file: &File) -> Option<String> {
    let ino = file.metadata().ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:56789 0 EOF": pid, then major:minor:inode.
    let pid = locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let inode = fields.get(5)?.rsplit(':').next()?.parse::<u64>().ok()?;
        (fields.get(1) == Some(&"FLOCK") && inode == ino).then(|| fields.get(4).copied())?
    })?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmd: Vec<String> = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    Some(if cmd.is_empty() {
        format!("pid {pid}")
    } else {
        let cmd = cmd.join(" ");
        let short: String = cmd.chars().take(100).collect();
        let more = if short.len() < cmd.len() { "..." } else { "" };
        format!("pid {pid}: {short}{more}")
    })
}
