//! Writing a table: layers are appended as the sweep finishes them (full board first),
//! into `NAME.partial`; the header goes in last and the file is renamed, so a table is
//! only ever visible under its final name once it is whole.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use super::header::{self, Header, LayerEntry};
use crate::error::{Error, Result, io_error};
use crate::game::GameSpec;
use crate::value::{Value, ValueType};

pub struct TableWriter {
    out: BufWriter<File>,
    partial: PathBuf,
    path: PathBuf,
    header: Header,
    header_len: usize,
    /// Where the next layer goes.
    end: u64,
    buf: Vec<u8>,
}

/// The temporary name a table is built under.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

impl TableWriter {
    pub fn create(
        path: &Path,
        game: GameSpec,
        value_type: ValueType,
        layer_sizes: &[u64],
    ) -> Result<Self> {
        let layers = layer_sizes
            .iter()
            .map(|&positions| LayerEntry {
                offset: 0,
                positions,
                checksum: 0,
            })
            .collect();
        let header = Header {
            game,
            value_type,
            layers,
            checksum: 0,
        };
        let header_len = header::encode(&header)?.len();
        let partial = partial_path(path);
        let file = File::create(&partial).map_err(|e| io_error(&partial, e))?;
        let end = header::values_start(header_len as u64);
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.seek(SeekFrom::Start(end))
            .map_err(|e| io_error(&partial, e))?;
        Ok(TableWriter {
            out,
            partial,
            path: path.to_path_buf(),
            header,
            header_len,
            end,
            buf: Vec::new(),
        })
    }

    /// Append layer `k`. Every layer is written exactly once.
    pub fn write_layer<V: Value>(&mut self, k: usize, values: &[V]) -> Result<()> {
        let entry = &mut self.header.layers[k];
        if values.len() as u64 != entry.positions || V::TYPE != self.header.value_type {
            return Err(Error::other(format!(
                "layer {k} does not match the table header"
            )));
        }
        let mut hasher = Xxh3::new();
        for chunk in values.chunks(1 << 16) {
            self.buf.clear();
            for &v in chunk {
                v.write_le(&mut self.buf);
            }
            hasher.update(&self.buf);
            self.out
                .write_all(&self.buf)
                .map_err(|e| io_error(&self.partial, e))?;
        }
        entry.offset = self.end;
        entry.checksum = hasher.digest();
        self.end += (values.len() * V::TYPE.width()) as u64;
        Ok(())
    }

    /// Write the header, flush to disk and move the table to its final name.
    /// Returns the file size.
    pub fn finish(mut self) -> Result<u64> {
        self.header.checksum = Header::combined_checksum(&self.header.layers);
        let encoded = header::encode(&self.header)?;
        if encoded.len() != self.header_len {
            return Err(Error::other("table header changed size while building"));
        }
        let io = |e| io_error(&self.partial, e);
        self.out.seek(SeekFrom::Start(0)).map_err(io)?;
        self.out.write_all(&header::prefix(&encoded)).map_err(io)?;
        self.out.write_all(&encoded).map_err(io)?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| io_error(&self.partial, e.into_error()))?;
        file.sync_all().map_err(|e| io_error(&self.partial, e))?;
        drop(file);
        std::fs::rename(&self.partial, &self.path).map_err(|e| io_error(&self.path, e))?;
        Ok(self.end)
    }
}
