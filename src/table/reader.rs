//! Reading a table: the prefix and header are checked before anything else, and every
//! entry is then one index computation and one positioned read away. Nothing here reads
//! memory proportional to the table.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::header::{self, Header, MAGIC, MAX_HEADER_LEN, PREFIX_LEN, VERSION};
use crate::error::{Error, Result, io_error};

/// Where entries come from: positioned reads (the default), or a memory map (opt-in, for
/// many small lookups, where a system call per entry would dominate).
enum Source {
    File(File),
    Map(memmap2::Mmap),
}

impl Source {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        match self {
            Source::File(f) => f.read_exact_at(buf, offset),
            Source::Map(m) => {
                let start = usize::try_from(offset).unwrap_or(usize::MAX);
                let bytes = start
                    .checked_add(buf.len())
                    .and_then(|end| m.get(start..end))
                    .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
                buf.copy_from_slice(bytes);
                Ok(())
            }
        }
    }
}

/// An open, checked table.
pub struct Table {
    file: Source,
    path: PathBuf,
    pub header: Header,
    pub file_len: u64,
}

impl Table {
    /// Open a table and check its prefix, header and sizes (not the value checksum; see
    /// `verify_checksum`).
    pub fn open(path: &Path) -> Result<Table> {
        let fail = |why: String| Error::other(format!("{}: {why}", path.display()));
        let meta = std::fs::metadata(path).map_err(|e| io_error(path, e))?;
        if meta.is_dir() {
            return Err(fail("is a directory, not a table".into()));
        }
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let file_len = meta.len();
        if file_len < PREFIX_LEN {
            return Err(fail(format!("not a retro table (only {file_len} bytes)")));
        }
        let mut prefix = [0u8; PREFIX_LEN as usize];
        file.read_exact_at(&mut prefix, 0)
            .map_err(|e| io_error(path, e))?;
        if prefix[..8] != MAGIC {
            return Err(fail("not a retro table (wrong magic bytes)".into()));
        }
        let version = u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]);
        if version != VERSION {
            return Err(fail(format!(
                "table format version {version}, but this retro reads version {VERSION}"
            )));
        }
        let len = u32::from_le_bytes([prefix[12], prefix[13], prefix[14], prefix[15]]);
        if len > MAX_HEADER_LEN || PREFIX_LEN + len as u64 > file_len {
            return Err(fail(format!(
                "truncated or corrupt: header length {len} does not fit the file"
            )));
        }
        let mut encoded = vec![0u8; len as usize];
        file.read_exact_at(&mut encoded, PREFIX_LEN)
            .map_err(|e| io_error(path, e))?;
        let stored = u64::from_le_bytes(prefix[16..24].try_into().unwrap_or_default());
        if xxh3_64(&encoded) != stored {
            return Err(fail(
                "header checksum mismatch: the header is damaged".into(),
            ));
        }
        let header = header::decode(&encoded).map_err(|e| e.context(path.display()))?;
        let table = Table {
            file: Source::File(file),
            path: path.to_path_buf(),
            header,
            file_len,
        };
        table
            .check_layout(header::values_start(len as u64))
            .map_err(fail)?;
        Ok(table)
    }

    /// The header must describe exactly this file: the layer counts of its board, layers
    /// side by side from the start of the value region to the end of the file.
    fn check_layout(&self, values_start: u64) -> std::result::Result<(), String> {
        let sizes = self
            .header
            .game
            .layer_sizes()
            .map_err(|e| format!("header describes a bad board ({e})"))?;
        let h = &self.header;
        if sizes.len() != h.layers.len() {
            return Err(format!(
                "header lists {} layers, the board has {}",
                h.layers.len(),
                sizes.len()
            ));
        }
        let mut extents = Vec::with_capacity(h.layers.len());
        for (k, (entry, &size)) in h.layers.iter().zip(&sizes).enumerate() {
            if entry.positions != size {
                return Err(format!(
                    "layer {k} holds {} positions, the board has {size}",
                    entry.positions
                ));
            }
            let bytes = size
                .checked_mul(h.value_type.width() as u64)
                .and_then(|b| b.checked_add(entry.offset))
                .ok_or_else(|| format!("layer {k} offset overflows"))?;
            extents.push((entry.offset, bytes));
        }
        extents.sort_unstable();
        let mut at = values_start;
        for (start, end) in extents {
            if start != at {
                return Err(format!(
                    "corrupt layer offsets (a layer starts at {start}, expected {at})"
                ));
            }
            at = end;
        }
        if at != self.file_len {
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

    /// Read entries through a memory map from now on. The file must not be changed or
    /// truncated by another process while it is open (tables are written once, under a
    /// temporary name, and never modified in place).
    pub fn with_mmap(mut self) -> Result<Table> {
        if let Source::File(file) = &self.file {
            // SAFETY: the map is read-only and its length was checked against the header
            // at open; retro never writes a table in place once it has its final name, so
            // the mapped bytes do not change under us unless a user edits the file while
            // it is being queried, which the README warns against.
            let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| io_error(&self.path, e))?;
            self.file = Source::Map(map);
        }
        Ok(self)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value at `index` in layer `k`: one positioned read.
    pub fn value(&self, k: usize, index: u64) -> Result<i64> {
        let entry = self
            .header
            .layers
            .get(k)
            .filter(|e| index < e.positions)
            .ok_or_else(|| Error::other(format!("no entry {index} in layer {k}")))?;
        let w = self.header.value_type.width();
        let mut buf = [0u8; 8];
        self.file
            .read_exact_at(&mut buf[..w], entry.offset + index * w as u64)
            .map_err(|e| io_error(&self.path, e))?;
        Ok(self.header.value_type.decode(&buf[..w]))
    }

    /// Read `out.len()` values of layer `k` starting at `start` in one read.
    pub fn read_values(&self, k: usize, start: u64, out: &mut Vec<u8>, count: usize) -> Result<()> {
        let entry = &self.header.layers[k];
        let w = self.header.value_type.width();
        out.resize(count * w, 0);
        self.file
            .read_exact_at(out, entry.offset + start * w as u64)
            .map_err(|e| io_error(&self.path, e))
    }

    /// Stream the value region and compare every layer's checksum; names the first bad layer.
    pub fn verify_checksum(&self) -> Result<()> {
        let mut buf = Vec::new();
        let w = self.header.value_type.width();
        for (k, entry) in self.header.layers.iter().enumerate() {
            let mut hasher = Xxh3::new();
            let per_read = (1usize << 22) / w;
            let mut done = 0u64;
            while done < entry.positions {
                let count = per_read.min((entry.positions - done) as usize);
                self.read_values(k, done, &mut buf, count)?;
                hasher.update(&buf);
                done += count as u64;
            }
            if hasher.digest() != entry.checksum {
                return Err(Error::other(format!(
                    "{}: checksum mismatch in layer {k}: the values are damaged",
                    self.path.display()
                )));
            }
        }
        if Header::combined_checksum(&self.header.layers) != self.header.checksum {
            return Err(Error::other(format!(
                "{}: table checksum mismatch",
                self.path.display()
            )));
        }
        Ok(())
    }
}
