//! Reading a table: the prefix and header are checked before anything else, and every
//! entry is then one index computation and one positioned read away. Nothing here reads
//! memory proportional to the table.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::blocks::{self, BLOCK, DIR_ENTRY};
use super::header::{
    self, Encoding, Header, LayerEntry, MAGIC, MAX_HEADER_LEN, PREFIX_LEN, VERSION,
};
use super::mapped::GuardedMap;
use super::moves::{self, Follow, Next};
use crate::error::{Error, Result, io_error};
use crate::game::{Builtin, Registered, Registry, Visitor};
use crate::stored::ValueType;

/// Positioned reads of a table's bytes, as shakmaty-syzygy's `RandomAccessFile`: files,
/// memory maps and plain bytes in memory (tests, the fuzzer) all serve a [`Table`].
pub trait ReadAt: Send + Sync {
    /// Fill `buf` from `offset`, or fail (`UnexpectedEof` past the end).
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;
    /// Length in bytes.
    fn len(&self) -> std::io::Result<u64>;
    /// Whether there are no bytes at all.
    fn is_empty(&self) -> std::io::Result<bool> {
        Ok(self.len()? == 0)
    }
}

impl ReadAt for File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        FileExt::read_exact_at(self, buf, offset)
    }
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

/// Bytes in memory: a slice, a `Vec<u8>`, or a memory map.
fn read_slice(bytes: &[u8], buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let found = start
        .checked_add(buf.len())
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
    buf.copy_from_slice(found);
    Ok(())
}

impl ReadAt for Vec<u8> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        read_slice(self, buf, offset)
    }
    fn len(&self) -> std::io::Result<u64> {
        Ok(Vec::len(self) as u64)
    }
}

impl ReadAt for &'static [u8] {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        read_slice(self, buf, offset)
    }
    fn len(&self) -> std::io::Result<u64> {
        Ok(<[u8]>::len(self) as u64)
    }
}

impl ReadAt for memmap2::Mmap {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        read_slice(self, buf, offset)
    }
    fn len(&self) -> std::io::Result<u64> {
        Ok(<[u8]>::len(self) as u64)
    }
}

impl ReadAt for Arc<GuardedMap> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        read_slice(self.bytes(), buf, offset)
    }
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.bytes().len() as u64)
    }
}

/// What identifies a file's contents as they were when it was opened: its size, its
/// modification time, and its prefix, whose header checksum covers every layer's checksum.
/// A file rewritten in place changes its size or its modification time, and `cp -p`, which
/// puts the modification time back, changes the prefix unless the bytes are the table's own.
/// The change time is not asked: `chmod`, `chown` and a hard link made or removed (a backup
/// tool's) move it, and leave the contents alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    mtime: (i64, i64),
    prefix: [u8; PREFIX_LEN as usize],
}

impl Stamp {
    fn of(file: &File) -> std::io::Result<Stamp> {
        let meta = file.metadata()?;
        // A file cut shorter than a prefix leaves zeros here; its size differs anyway.
        let mut prefix = [0u8; PREFIX_LEN as usize];
        let mut got = 0;
        while got < prefix.len() {
            match file.read_at(&mut prefix[got..], got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Stamp {
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            prefix,
        })
    }

    /// Whether the contents may have changed since `self`.
    fn differs(&self, now: &Stamp) -> bool {
        self != now
    }
}

/// An open, checked table.
pub struct Table {
    source: Box<dyn ReadAt>,
    /// The file behind `source`, kept so `with_mmap` can map it and `check_unchanged` can
    /// look at it (None for tables read from memory).
    file: Option<File>,
    /// The file's size and times when opened.
    stamp: Option<Stamp>,
    /// The memory map reads go through, once `with_mmap` made one.
    map: Option<Arc<GuardedMap>>,
    /// Per layer, once checked: None if its checksum matched, else the error's text. Empty
    /// unless `check_layers_as_read` asked for it.
    checked: Vec<OnceLock<Option<String>>>,
    path: PathBuf,
    /// The file's format version (`header::VERSION`, or an older one this retro reads).
    pub version: u32,
    /// The decoded header.
    pub header: Header,
    /// Length of the whole file in bytes.
    pub file_len: u64,
    /// Positions per layer of the header's board.
    sizes: Vec<u64>,
    /// The board's game, for a table of best moves: it finds a stored move's child.
    follow: Option<Box<dyn Follow>>,
    /// A table of best moves keeps each layer's block directory in memory once it is
    /// first used (empty for other tables): a value takes up to L lookups, and each would
    /// otherwise read its directory entry from somewhere else in the file, a cache miss
    /// for a memory map. The directories are 1/256 of the positions in bytes.
    directories: Vec<OnceLock<Vec<u8>>>,
}

impl Table {
    /// Open a table and check its prefix, header and sizes (not the value checksum; see
    /// `verify_checksum`).
    /// A table of one of `retro`'s own games; `open_in` opens tables of a registry of
    /// your own.
    pub fn open(path: &Path) -> Result<Table> {
        Table::open_in::<Builtin>(path)
    }

    /// `open` for the games of registry `R`: a table of a game `R` does not have is
    /// refused, naming the game.
    pub fn open_in<R: Registry>(path: &Path) -> Result<Table> {
        Table::open_checked::<R>(path, false)
    }

    /// Open the `.partial` file of an interrupted build: the layers written so far must be
    /// the top ones, side by side; the file may extend past them.
    pub fn open_partial<R: Registry>(path: &Path) -> Result<Table> {
        Table::open_checked::<R>(path, true)
    }

    /// `open_partial` through a file the caller holds open (a build's locked partial file):
    /// what it reads is that file even if its name has since been removed or given to
    /// another; `path` names it in messages.
    pub fn open_partial_file<R: Registry>(file: &File, path: &Path) -> Result<Table> {
        let reader = file.try_clone().map_err(|e| io_error(path, e))?;
        let handle = file.try_clone().map_err(|e| io_error(path, e))?;
        let (table, values_start) =
            Table::from_source::<R>(Box::new(reader), Some(handle), path.to_path_buf())?;
        table
            .check_layout(values_start, true)
            .map_err(|why| Error::corrupt(format!("{}: {why}", path.display())))?;
        table.with_game()
    }

    /// A table read through any positioned reader (bytes in memory, say), checked as
    /// `open` checks a file; `name` stands for the path in messages.
    /// `R` is the registry whose games it may hold (`Builtin` for `retro`'s own).
    pub fn from_reader<R: Registry>(
        reader: impl ReadAt + 'static,
        name: impl Into<PathBuf>,
    ) -> Result<Table> {
        let path = name.into();
        let (table, values_start) = Table::from_source::<R>(Box::new(reader), None, path.clone())?;
        table
            .check_layout(values_start, false)
            .map_err(|why| Error::corrupt(format!("{}: {why}", path.display())))?;
        table.with_game()
    }

    fn open_checked<R: Registry>(path: &Path, partial: bool) -> Result<Table> {
        let (table, values_start) = Table::open_unchecked::<R>(path).map_err(|e| {
            match !partial && stopped_before_its_header(path) {
                true => Error::input(format!(
                    "{}: an unfinished build stopped before its header was written, not a table: run the same `retro build` again to start it over",
                    path.display()
                )),
                false => e,
            }
        })?;
        if let Err(why) = table.check_layout(values_start, partial) {
            // Layers listed at offset 0, and the rest in place, or every layer written and
            // the header not yet sealed with the table's checksum (the file may still end
            // in the header's copy, or hold a rewrite's copies of its layers): a build
            // that has not finished, not damage. Say what it is and how to finish it.
            let h = &table.header;
            let unwritten = h.layers.iter().filter(|l| l.offset == 0).count();
            // A file still under a build's partial name was stopped before its rename,
            // whatever its header says (a stop while it was sealed leaves the header's
            // copy past the layers).
            let unsealed = h.checksum != Header::combined_checksum(&h.layers)
                || path.as_os_str().as_encoded_bytes().ends_with(b".partial");
            if !partial
                && (unwritten > 0 || unsealed)
                && table.check_layout(values_start, true).is_ok()
            {
                return Err(Error::input(unfinished(
                    path,
                    &table.header.game,
                    unwritten,
                )));
            }
            return Err(Error::corrupt(format!("{}: {why}", path.display())));
        }
        table.with_game()
    }

    /// A regular file, opened; prefix and header checked.
    fn open_unchecked<R: Registry>(path: &Path) -> Result<(Table, u64)> {
        let meta = std::fs::metadata(path).map_err(|e| io_error(path, e))?;
        // A FIFO would block the open below forever; a directory or device is no table.
        if !meta.is_file() {
            return Err(Error::corrupt(format!(
                "{}: is {}, not a table",
                path.display(),
                file_kind(&meta.file_type())
            )));
        }
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let handle = file.try_clone().map_err(|e| io_error(path, e))?;
        let stamp = Stamp::of(&file).map_err(|e| io_error(path, e))?;
        let (mut table, values_start) =
            Table::from_source::<R>(Box::new(file), Some(handle), path.to_path_buf())?;
        table.stamp = Some(stamp);
        Ok((table, values_start))
    }

    /// A table of best moves keeps its block directories once read (the layout check
    /// has accepted its header); other tables need none.
    fn with_game(mut self) -> Result<Table> {
        if self.follow.is_some() {
            self.directories = self.header.layers.iter().map(|_| OnceLock::new()).collect();
        }
        Ok(self)
    }

    /// Prefix and header checked, before anything else is read; returns the table and
    /// where its value region starts.
    fn from_source<R: Registry>(
        source: Box<dyn ReadAt>,
        file: Option<File>,
        path: PathBuf,
    ) -> Result<(Table, u64)> {
        let fail = |why: String| Error::corrupt(format!("{}: {why}", path.display()));
        let file_len = source.len().map_err(|e| io_error(&path, e))?;
        if file_len < PREFIX_LEN {
            return Err(fail(format!("not a retro table (only {file_len} bytes)")));
        }
        let mut prefix = [0u8; PREFIX_LEN as usize];
        source
            .read_exact_at(&mut prefix, 0)
            .map_err(|e| io_error(&path, e))?;
        if prefix[..MAGIC.len()] != MAGIC {
            return Err(fail("not a retro table (wrong magic bytes)".into()));
        }
        let word = |at: usize| {
            u32::from_le_bytes([prefix[at], prefix[at + 1], prefix[at + 2], prefix[at + 3]])
        };
        let version = word(header::VERSION_AT);
        if !(header::OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(fail(format!(
                "table format version {version}, but this retro reads versions {} to {VERSION}",
                header::OLDEST_VERSION
            )));
        }
        let len = word(header::HEADER_LEN_AT);
        if len > MAX_HEADER_LEN || PREFIX_LEN + len as u64 > file_len {
            return Err(fail(format!(
                "truncated or corrupt: header length {len} does not fit the file"
            )));
        }
        let mut encoded = vec![0u8; len as usize];
        source
            .read_exact_at(&mut encoded, PREFIX_LEN)
            .map_err(|e| io_error(&path, e))?;
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&prefix[header::HEADER_CHECKSUM_AT..header::HEADER_CHECKSUM_AT + 8]);
        if xxh3_64(&encoded) != u64::from_le_bytes(stored) {
            return Err(fail(
                "header checksum mismatch: the header is damaged".into(),
            ));
        }
        let header =
            header::decode::<R>(&encoded, version).map_err(|e| e.context(path.display()))?;
        // The board's game gives its layer sizes and, for a table of best moves, follows
        // a stored move to its child.
        let moves = matches!(header.encoding, Encoding::Moves { .. });
        let symmetries = header.symmetries;
        let (sizes, follow) = R::visit(&header.game, OpenGame { moves, symmetries })
            .map_err(|e| fail(format!("header describes a bad board ({e})")))?;
        let table = Table {
            version,
            source,
            file,
            stamp: None,
            map: None,
            checked: Vec::new(),
            path,
            header,
            file_len,
            sizes,
            follow,
            directories: Vec::new(),
        };
        Ok((table, header::values_start(len as u64)))
    }

    /// The header must describe exactly this file: the layer counts of its board, layers
    /// side by side from the start of the value region to the end of the file. For a
    /// partial file, only the finished (top) layers are checked.
    fn check_layout(&self, values_start: u64, partial: bool) -> std::result::Result<(), String> {
        let h = &self.header;
        let sizes = &self.sizes;
        if sizes.len() != h.layers.len() {
            return Err(format!(
                "header lists {} layers, the board has {} (damaged, or written by a retro that numbered this game's layers otherwise: rebuild it)",
                h.layers.len(),
                sizes.len()
            ));
        }
        if h.encoding == (Encoding::Moves { values_every: 0 }) {
            return Err("best-move table stores values every 0 layers".into());
        }
        let width = h.value_type.width() as u64;
        // A partial file whose every layer is written may hold them anywhere past the
        // header, apart: a rewrite in another value type writes each layer's copy past
        // the old ones and moves the copies into place one by one (`TableWriter::rewrite`).
        let placed_anywhere = partial && h.layers.iter().all(|l| l.offset != 0);
        let mut spans = Vec::with_capacity(h.layers.len());
        // Layers are written from the full board down, so in file order k descends.
        let mut at = values_start;
        let mut seen_unfinished = false;
        for (k, (entry, &size)) in h.layers.iter().zip(sizes).enumerate().rev() {
            if entry.positions != size {
                return Err(format!(
                    "layer {k} holds {} positions, the board has {size}",
                    entry.positions
                ));
            }
            if entry.offset == 0 && partial {
                seen_unfinished = true;
                continue;
            }
            if seen_unfinished {
                return Err(format!("layer {k} is written but a layer above it is not"));
            }
            let least = match h.encoding {
                Encoding::Plain => size.checked_mul(width),
                // Saturating: a size this large fails the file-length check below.
                Encoding::Blocked | Encoding::Moves { .. } => Some(blocks::layer_bytes(size, 0)),
            }
            .ok_or_else(|| format!("layer {k} size overflows"))?;
            let exact = h.encoding.blocked() || entry.bytes == least;
            let placed = match placed_anywhere {
                true => entry.offset >= values_start,
                false => entry.offset == at,
            };
            if !placed || entry.bytes < least || !exact {
                return Err(format!("corrupt layer {k} offset or length"));
            }
            let end = entry
                .offset
                .checked_add(entry.bytes)
                .ok_or_else(|| format!("layer {k} length overflows"))?;
            spans.push((entry.offset, end, k));
            at = at.max(end);
        }
        if placed_anywhere {
            spans.sort_unstable();
            if let Some(w) = spans.windows(2).find(|w| w[0].1 > w[1].0) {
                return Err(format!("layers {} and {} overlap", w[0].2, w[1].2));
            }
        }
        // A partial file whose header lists no finished layer may end before the value
        // region's padding: its header is all it holds.
        let nothing_written = partial && at == values_start;
        if (at > self.file_len && !nothing_written) || (!partial && at != self.file_len) {
            let what = if self.file_len < at {
                "truncated"
            } else {
                "has trailing bytes"
            };
            return Err(format!(
                "{what}: the header needs {at} bytes, the file has {}",
                self.file_len
            ));
        }
        Ok(())
    }

    /// Read entries through a memory map from now on (many small lookups: no system
    /// call per entry). A table read from memory is returned as it is.
    ///
    /// If another process truncates the file while it is mapped, the reads past its new
    /// end give zeros instead of killing the process (see `mapped.rs`), and
    /// `check_unchanged` says so: callers check it before they trust what they read.
    pub fn with_mmap(mut self) -> Result<Table> {
        if let Some(file) = &self.file
            && let Some(map) = GuardedMap::new(file).map_err(|e| io_error(&self.path, e))?
        {
            let map = Arc::new(map);
            self.source = Box::new(Arc::clone(&map));
            self.map = Some(map);
        }
        Ok(self)
    }

    /// From now on, the first read of each layer checks that layer's checksum (once) and
    /// every read of a damaged layer fails: for readers that go through most of a table
    /// (`export`, `query --batch`), so that a flipped byte is an error and not a wrong
    /// answer, without reading layers they never touch.
    pub fn check_layers_as_read(mut self) -> Table {
        self.checked = self.header.layers.iter().map(|_| OnceLock::new()).collect();
        self
    }

    /// Fail if the file has changed since it was opened: rewritten or cut short in place
    /// (`cp` over it, an editor), which a reader cannot tell from damage. A table replaced
    /// by a rename (`mv new.retro t.retro`) keeps the old file open and is not a change.
    pub fn check_unchanged(&self) -> Result<()> {
        let (Some(file), Some(stamp)) = (&self.file, self.stamp) else {
            return Ok(());
        };
        let now = Stamp::of(file).map_err(|e| io_error(&self.path, e))?;
        let faulted = self.map.as_ref().is_some_and(|m| m.faulted());
        if faulted || stamp.differs(&now) {
            return Err(Error::corrupt(format!(
                "{}: the file changed on disk while it was being read (it was written over in place); replace a table by renaming a new file over it",
                self.path.display()
            )));
        }
        Ok(())
    }

    /// `result`, unless the file changed under it: then that is the error (a changed file
    /// reads as damaged, and the damage is not the news).
    pub fn unless_changed<T>(&self, result: Result<T>) -> Result<T> {
        self.check_unchanged()?;
        result
    }

    /// Layer `k`'s checksum, checked once if `check_layers_as_read` asked for it.
    fn check_layer(&self, k: usize) -> Result<()> {
        let Some(cell) = self.checked.get(k) else {
            return Ok(());
        };
        let outcome = cell.get_or_init(|| match self.layer_checksum(k) {
            Ok(sum) if sum == self.header.layers[k].checksum => None,
            Ok(_) => Some(format!(
                "{}: checksum mismatch in layer {k}: the values are damaged",
                self.path.display()
            )),
            Err(e) => Some(e.to_string()),
        });
        match outcome {
            None => Ok(()),
            Some(message) => Err(Error::corrupt(message.clone())),
        }
    }

    /// Path of the file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        self.source
            .read_exact_at(buf, offset)
            .map_err(|e| io_error(&self.path, e))
    }

    fn entry(&self, k: usize, index: u64) -> Result<&LayerEntry> {
        let entry = self
            .header
            .layers
            .get(k)
            .filter(|e| index < e.positions && e.offset != 0)
            .ok_or_else(|| Error::other(format!("no entry {index} in layer {k}")))?;
        self.check_layer(k)?;
        Ok(entry)
    }

    /// Byte length of a blocked layer's packed data (before the slack and directory).
    fn data_len(entry: &LayerEntry) -> u64 {
        blocks::data_bytes(entry.positions, entry.bytes)
    }

    /// Directory entry of block `b` of layer `k`: (min, data offset, width).
    fn block(&self, k: usize, entry: &LayerEntry, b: u64) -> Result<(i64, u64, u8)> {
        let mut e = [0u8; DIR_ENTRY];
        let data_len = Self::data_len(entry);
        let at = entry.offset + blocks::directory_entry_at(data_len, 0);
        match self.directories.get(k) {
            Some(cached) => {
                if cached.get().is_none() {
                    let mut dir = vec![0u8; blocks::directory_bytes(entry.positions) as usize];
                    self.read_at(&mut dir, at)?;
                    // Another thread may have read it first: the same bytes either way.
                    let _ = cached.set(dir);
                }
                let dir = cached.get().map(Vec::as_slice).unwrap_or_default();
                let from = b as usize * DIR_ENTRY;
                let found = dir.get(from..from + DIR_ENTRY).ok_or_else(|| {
                    Error::corrupt(format!(
                        "{}: no block {b} in layer {k}",
                        self.path.display()
                    ))
                })?;
                e.copy_from_slice(found);
            }
            None => self.read_at(
                &mut e,
                entry.offset + blocks::directory_entry_at(data_len, b * BLOCK as u64),
            )?,
        }
        let count = (BLOCK as u64).min(entry.positions - b * BLOCK as u64) as usize;
        blocks::parse_dir_entry(&e, data_len, count).map_err(|e| e.context(self.path.display()))
    }

    /// Whether layer `k` holds values (every layer but those of best moves).
    pub fn stores_values(&self, k: usize) -> bool {
        let cells = self.header.layers.len().saturating_sub(1);
        self.header.encoding.stores_values(k, cells)
    }

    /// The value at `index` in layer `k`: one positioned read (two for compact tables:
    /// the block's directory entry, then the bits). In a table of best moves, a layer
    /// without values is left by the stored move, adding its reward, until a layer with
    /// values: at most `Encoding::lookups_per_value` entries.
    pub fn value(&self, k: usize, index: u64) -> Result<i64> {
        let (mut k, mut index, mut sum) = (k, index, 0i64);
        loop {
            let stored = self.stored(k, index)?;
            if self.stores_values(k) {
                let value = self.header.value_type.value_of(stored);
                // Wrapping: damaged moves may add up to anything, but must not panic.
                return Ok(sum.wrapping_add(value));
            }
            match self.best_child(k, index, stored)? {
                Next::Child(child, reward) => {
                    sum = sum.wrapping_add(reward);
                    k += 1;
                    index = child;
                }
                Next::Ended(value) => return Ok(sum.wrapping_add(value)),
            }
        }
    }

    /// The stored best move of entry `index` of layer `k`, a layer of best moves: its index
    /// among the position's moves in `Game::moves` order.
    pub fn best_move(&self, k: usize, index: u64) -> Result<u64> {
        if self.stores_values(k) {
            return Err(Error::other(format!("layer {k} stores values, not moves")));
        }
        Ok(self.stored(k, index)? as u64)
    }

    /// The child rank and reward of move `stored` of entry `index` of layer `k`.
    fn best_child(&self, k: usize, index: u64, stored: i64) -> Result<Next> {
        let follow = self
            .follow
            .as_ref()
            .ok_or_else(|| Error::other("a table of best moves opened without its game"))?;
        follow
            .child(k, index, stored)
            .map_err(|e| e.context(self.path.display()))
    }

    /// Entry `index` of layer `k` as stored: a value, or a best move's index.
    fn stored(&self, k: usize, index: u64) -> Result<i64> {
        let entry = self.entry(k, index)?;
        let vt = self.header.value_type;
        match self.header.encoding {
            Encoding::Plain => {
                let w = vt.width();
                let mut buf = [0u8; 8];
                self.read_at(&mut buf[..w], entry.offset + index * w as u64)?;
                Ok(vt.decode(&buf[..w]))
            }
            Encoding::Blocked | Encoding::Moves { .. } => {
                let b = index / BLOCK as u64;
                let (min, offset, width) = self.block(k, entry, b)?;
                let stored = if width == 0 {
                    min
                } else {
                    let bit = (index % BLOCK as u64) * width as u64;
                    let mut window = [0u8; 9];
                    self.read_at(&mut window, entry.offset + offset + bit / 8)?;
                    blocks::extract(&window, (bit % 8) as u32, width, min)
                };
                if self.stores_values(k) && !vt.holds(stored) {
                    return Err(self.out_of_range(k, stored));
                }
                Ok(stored)
            }
        }
    }

    /// The error for a stored value its type cannot hold: a damaged block.
    fn out_of_range(&self, k: usize, stored: i64) -> Error {
        Error::corrupt(format!(
            "{}: layer {k} holds {stored}, which is not an {} value: the table is damaged",
            self.path.display(),
            self.header.value_type.name()
        ))
    }

    /// Values `start..start + count` of layer `k`, decoded. On a layer of best moves
    /// each value follows its moves (`value`): correct, but a value lookup per entry.
    pub fn read_range(&self, k: usize, start: u64, count: usize) -> Result<Vec<i64>> {
        if !self.stores_values(k) {
            return (start..start + count as u64)
                .map(|i| self.value(k, i))
                .collect();
        }
        self.read_stored(k, start, count)
    }

    /// Entries `start..start + count` of layer `k` as stored: values (halved codes
    /// decoded), or on a layer of best moves their indices.
    pub fn read_stored(&self, k: usize, start: u64, count: usize) -> Result<Vec<i64>> {
        let mut out = Vec::with_capacity(count);
        if count == 0 {
            return Ok(out);
        }
        let entry = *self.entry(k, start + count as u64 - 1)?;
        let vt = self.header.value_type;
        match self.header.encoding {
            Encoding::Plain => {
                let w = vt.width();
                let mut buf = vec![0u8; count * w];
                self.read_at(&mut buf, entry.offset + start * w as u64)?;
                out.extend(buf.chunks_exact(w).map(|b| vt.decode(b)));
            }
            Encoding::Blocked | Encoding::Moves { .. } => {
                let end = start + count as u64;
                let mut bits = Vec::new();
                let mut block_values = Vec::with_capacity(BLOCK);
                for b in start / BLOCK as u64..end.div_ceil(BLOCK as u64) {
                    let first = b * BLOCK as u64;
                    let n = (BLOCK as u64).min(entry.positions - first) as usize;
                    let (min, offset, width) = self.block(k, &entry, b)?;
                    bits.resize((n * width as usize).div_ceil(8), 0);
                    self.read_at(&mut bits, entry.offset + offset)?;
                    block_values.clear();
                    blocks::decode_block(&bits, n, width, min, &mut block_values);
                    let lo = start.max(first) - first;
                    let hi = end.min(first + n as u64) - first;
                    out.extend_from_slice(&block_values[lo as usize..hi as usize]);
                }
            }
        }
        if self.stores_values(k) {
            if let Some(&bad) = out.iter().find(|&&v| !vt.holds(v)) {
                return Err(self.out_of_range(k, bad));
            }
            if vt == ValueType::Halved {
                for v in &mut out {
                    *v = vt.value_of(*v);
                }
            }
        }
        Ok(out)
    }

    /// xxh3-64 of layer `k`'s stored bytes.
    pub fn layer_checksum(&self, k: usize) -> Result<u64> {
        let entry = self.header.layers[k];
        let mut hasher = Xxh3::new();
        let mut buf = vec![0u8; entry.bytes.min(1 << 22) as usize];
        let mut done = 0u64;
        while done < entry.bytes {
            let n = (buf.len() as u64).min(entry.bytes - done) as usize;
            self.read_at(&mut buf[..n], entry.offset + done)?;
            hasher.update(&buf[..n]);
            done += n as u64;
        }
        Ok(hasher.digest())
    }

    /// Stream the value region and compare every layer's checksum; names the first bad layer.
    pub fn verify_checksum(&self) -> Result<()> {
        for (k, entry) in self.header.layers.iter().enumerate() {
            if self.layer_checksum(k)? != entry.checksum {
                return Err(Error::corrupt(format!(
                    "{}: checksum mismatch in layer {k}: the values are damaged",
                    self.path.display()
                )));
            }
        }
        if Header::combined_checksum(&self.header.layers) != self.header.checksum {
            return Err(Error::corrupt(format!(
                "{}: table checksum mismatch",
                self.path.display()
            )));
        }
        Ok(())
    }
}

/// "a directory", "a device", ...: what a path that is not a regular file is.
pub(crate) fn file_kind(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// What opening a table needs of its game: the layer sizes, and for a table of best moves
/// the game itself, boxed, to follow stored moves.
struct OpenGame {
    moves: bool,
    symmetries: u32,
}

impl Visitor for OpenGame {
    type Output = (Vec<u64>, Option<Box<dyn Follow>>);

    fn visit<G: Registered>(self, game: G) -> Result<Self::Output> {
        // A folded table's ranks are this retro's orbits only if it folds the same way.
        let folds = game.symmetries().max(1) as u32;
        if folds != self.symmetries {
            return Err(Error::corrupt(format!(
                "the table folds {} symmetries of {}, this retro's game folds {folds}",
                self.symmetries,
                G::NAME
            )));
        }
        let sizes = (0..=game.last_layer())
            .map(|k| game.layer_size(k))
            .collect();
        Ok((sizes, self.moves.then(|| moves::follower(game))))
    }
}

/// What an unfinished build's partial file is, for a command that wanted a table: its
/// board, the layers it lacks (the lowest, which a build writes last), and how to finish
/// it (a build resumes it and renames it to its table's name).
/// Whether `path` is a build's partial file that holds no whole header yet: the name says
/// partial, and the file is empty, or holds the magic bytes or zeros where a stop or a
/// power cut left the first write short (what a build takes for its own).
fn stopped_before_its_header(path: &Path) -> bool {
    if !path.as_os_str().as_encoded_bytes().ends_with(b".partial") {
        return false;
    }
    let Ok(file) = File::open(path) else {
        return false;
    };
    let Ok(meta) = file.metadata() else {
        return false;
    };
    let mut head = [0u8; PREFIX_LEN as usize];
    let n = meta.len().min(PREFIX_LEN) as usize;
    FileExt::read_exact_at(&file, &mut head[..n], 0).is_ok()
        && crate::table::partial::Kind::Table.recognises(&head[..n], meta.len(), meta.nlink())
}

fn unfinished(path: &Path, game: &crate::game::AnyBoard, unwritten: usize) -> String {
    let lacking = match unwritten {
        0 => "every layer is written, the table is not sealed yet".to_string(),
        1 => "layer 0 is not written yet".to_string(),
        n => format!("layers {} down to 0 are not written yet", n - 1),
    };
    let shown = path.display().to_string();
    let table = shown.strip_suffix(".partial").unwrap_or(&shown);
    format!(
        "{shown}: an unfinished build of {} {} ({lacking}), not a table: run the same `retro build` again to finish it, and it resumes where it stopped and writes {table}",
        game.name(),
        game.label()
    )
}
