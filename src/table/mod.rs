//! The table file: a fixed prefix (magic, version, header length and checksum), a bincode 2
//! header, then every layer's values: raw little-endian arrays, blocks of bit-packed values
//! (`blocks.rs`), or best moves (`moves.rs`). The layout is documented field by field in
//! docs/format.md.

pub(crate) mod blocks;
pub mod header;
pub(crate) mod journal;
pub(crate) mod mapped;
pub(crate) mod moves;
pub(crate) mod partial;
pub(crate) mod reader;
pub(crate) mod writer;

pub use header::{Encoding, Header, LayerEntry};
pub use reader::{ReadAt, Table};
pub use writer::{TableWriter, check_output, partial_path};
