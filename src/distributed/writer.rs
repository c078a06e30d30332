//! Every rank writes its slices of each layer into the one partial file, in place, at
//! offsets every rank computes the same way; rank 0 alone owns the header. The file is
//! byte for byte what `TableWriter` writes for the same board.

use std::fs::{File, OpenOptions};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, Result, io_error};
use crate::game::Registry;
use crate::stored::Value;
use crate::table::blocks;
use crate::table::header::{self, Header};
use crate::table::journal::Journal;
use crate::table::partial::{Kind, Partial, partial_path};
use crate::table::writer::check_partial;

/// Rank 0's side of a build: the partial file's header.
pub struct HeaderOwner {
    pub header: Header,
    header_len: usize,
    /// Where the header's copies go (`table::journal`): past the next layer however
    /// large, since the ranks write it while the header is updated.
    journal: Journal,
    /// The most bytes any layer can take.
    largest_layer: u64,
}

/// Create `path.partial` (or resume it unless `fresh`): the header to keep, where the
/// next layer goes, and the lowest finished layer when resuming. Rank 0 only.
pub fn create_or_resume<R: Registry>(
    path: &Path,
    wanted: Header,
    fresh: bool,
) -> Result<(HeaderOwner, u64, Option<usize>)> {
    let header_len = header::encode(&wanted)?.len();
    let blank_end = header::values_start(header_len as u64);
    // The ranks share the file, so it is not locked; it is opened as a single process
    // opens it (no symbolic link followed, never a file retro did not write emptied).
    let mut partial = Partial::open_shared(path, Kind::Table)?;
    let found = match fresh || partial.held == 0 {
        true => None,
        false => check_partial::<R>(&partial.path, &wanted, &|_| false)?,
    };
    let Some((table, lowest)) = found else {
        partial.start_over()?;
        let mut owner = HeaderOwner::new(wanted, header_len);
        owner.write(&partial.file, &partial.path, blank_end)?;
        return Ok((owner, blank_end, None));
    };
    let found = table.header.clone();
    drop(table);
    let end = found.layers[lowest].offset + found.layers[lowest].bytes;
    // Anything past the last finished layer is a layer cut off mid-write.
    partial
        .file
        .set_len(end)
        .map_err(|e| io_error(&partial.path, e))?;
    let owner = HeaderOwner::new(found, header_len);
    Ok((owner, end, Some(lowest)))
}

impl HeaderOwner {
    fn new(header: Header, header_len: usize) -> HeaderOwner {
        let width = header.value_type.stored_as().width() as u64;
        // A layer's bytes, plain or in blocks, are at most its values at full width with
        // the blocks' directory and slack.
        let largest_layer = header
            .layers
            .iter()
            .map(|l| blocks::layer_bytes_bound(l.positions, width))
            .max()
            .unwrap_or(0);
        HeaderOwner {
            header,
            header_len,
            journal: Journal::default(),
            largest_layer,
        }
    }

    /// Write the header (through its copy) for a file whose layers so far end at `end`.
    pub fn write(&mut self, file: &File, partial: &Path, end: u64) -> Result<()> {
        let encoded = header::encode(&self.header)?;
        if encoded.len() != self.header_len {
            return Err(Error::other("table header changed size while building"));
        }
        let mut bytes = header::prefix(&encoded, header::version_of(&self.header)).to_vec();
        bytes.extend_from_slice(&encoded);
        let past = end.saturating_add(self.largest_layer);
        self.journal.commit(file, partial, &bytes, past)
    }
}

/// A rank's open partial file.
pub struct Shared {
    pub file: File,
    pub partial: PathBuf,
}

impl Shared {
    pub fn open(path: &Path) -> Result<Shared> {
        let partial = partial_path(path);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&partial)
            .map_err(|e| io_error(&partial, e))?;
        Ok(Shared { file, partial })
    }

    pub fn write_at(&self, bytes: &[u8], offset: u64) -> Result<()> {
        self.file
            .write_all_at(bytes, offset)
            .map_err(|e| io_error(&self.partial, e))
    }

    /// A plain slice: values at `layer_offset + start * width`. Returns the xxh3-64 of the
    /// bytes written (the layer's checksum, where the slice is the whole layer).
    pub fn write_plain<V: Value>(
        &self,
        layer_offset: u64,
        slice: &Range<u64>,
        values: &[V],
    ) -> Result<u64> {
        let width = V::TYPE.width() as u64;
        let mut at = layer_offset + slice.start * width;
        let mut buf = Vec::new();
        let mut hasher = Xxh3::new();
        for chunk in values.chunks(1 << 18) {
            buf.clear();
            chunk.iter().for_each(|&v| v.write_le(&mut buf));
            self.write_at(&buf, at)?;
            hasher.update(&buf);
            at += buf.len() as u64;
        }
        Ok(hasher.digest())
    }

    /// xxh3-64 of `len` bytes at `offset`, read back (the layer checksum is over the
    /// bytes in file order, which no rank holds alone).
    pub fn checksum(&self, offset: u64, len: u64) -> Result<u64> {
        let mut hasher = Xxh3::new();
        let mut buf = vec![0u8; 1 << 22];
        let mut at = 0;
        while at < len {
            let n = (len - at).min(buf.len() as u64) as usize;
            self.file
                .read_exact_at(&mut buf[..n], offset + at)
                .map_err(|e| io_error(&self.partial, e))?;
            hasher.update(&buf[..n]);
            at += n as u64;
        }
        Ok(hasher.digest())
    }

    pub fn sync(&self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| io_error(&self.partial, e))
    }
}

/// A compact slice's blocks packed: the data bytes and, per block, (min, offset in the
/// slice's data, width). The slice starts on a block boundary, so these are exactly the
/// blocks a single process packs.
pub fn pack_blocks<T: Sync>(
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

/// Bytes of a compact layer of `positions` values whose blocks' data take `data` bytes.
pub fn compact_layer_bytes(positions: u64, data: u64) -> u64 {
    blocks::layer_bytes(positions, data)
}
