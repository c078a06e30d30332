//! The fixed prefix and the bincode header of a table file.

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};
use crate::game::{AnyBoard, Registry};
use crate::stored::ValueType;

/// First eight bytes of every table.
pub const MAGIC: [u8; 8] = *b"RETROTBL";
/// Bumped whenever the layout or the meaning of a field changes. Version 4 changes the
/// order of a folded Teeko table's entries within each layer (its orbits are keyed on one
/// side's stones, not on the occupied cells: `Teeko::new`); its header is version 3's, and
/// a version 3 table still answers, read in the order it was written
/// (`Registered::folded_as`). Version 3 adds, after the
/// board, how many symmetries the table folds (`Game::symmetries`); only folded tables are
/// written as version 3, so a table that folds nothing is byte for byte what version 2 wrote
/// and an older retro still reads it, while one that folds is refused by an older retro
/// rather than misread. Version 2 names the game (its name and its board's own
/// serialisation); version 1 stored it as the variant index of the game enum of its day,
/// which `decode` still reads.
pub const VERSION: u32 = 4;
/// The version of a table that folds nothing.
pub const UNFOLDED_VERSION: u32 = 2;
/// The oldest version this retro reads.
pub const OLDEST_VERSION: u32 = 1;
/// Version 1's game list, in its enum's order: a version 1 header's game is an index here.
const VERSION_1_GAMES: [&str; 4] = ["young", "twins", "mnk", "connect"];
/// Where the format version (u32 LE) sits in the prefix, after the magic.
pub const VERSION_AT: usize = 8;
/// Where the header's length (u32 LE) sits in the prefix.
pub const HEADER_LEN_AT: usize = 12;
/// Where the header's xxh3-64 (u64 LE) sits in the prefix.
pub const HEADER_CHECKSUM_AT: usize = 16;
/// magic (8) + version (4) + header length (4) + header checksum (8).
pub const PREFIX_LEN: u64 = 24;
/// A header is a few KiB even for large boards; anything longer is damage, and the limit
/// keeps a corrupted length from turning into a huge allocation.
pub const MAX_HEADER_LEN: u32 = 1 << 20;
/// The value region starts on this boundary.
pub const ALIGN: u64 = 64;

/// How a layer's values are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Encoding {
    /// A raw little-endian array of `value_type`: entry i at offset + i * width.
    Plain,
    /// Blocks of 4096 entries packed in per-block bit widths (see `blocks.rs`).
    Blocked,
    /// Best moves (`retro build --moves L`, see `moves.rs`): layers `k` with
    /// `k % values_every == 0`, and the full layer, hold values as `Blocked` does; every
    /// other layer holds, per position, the index of its first best move in `Game::moves`
    /// order, in the same block layout. Added after version 1's two encodings, so a reader
    /// that predates it fails to decode the header instead of misreading the table.
    Moves {
        /// L: every L-th layer holds values.
        values_every: u32,
    },
}

impl Encoding {
    /// Whether layer `k` of a board of `cells` cells stores values (not best moves).
    pub fn stores_values(self, k: usize, cells: usize) -> bool {
        match self {
            Encoding::Plain | Encoding::Blocked => true,
            // A zero L is refused when the table is opened; as "values everywhere" it
            // still cannot divide by zero.
            Encoding::Moves { values_every } => {
                k == cells || k.checked_rem(values_every as usize).is_none_or(|r| r == 0)
            }
        }
    }

    /// Whether layers are stored in blocks (compact and best-move tables).
    pub fn blocked(self) -> bool {
        !matches!(self, Encoding::Plain)
    }

    /// The most table lookups one value takes: from a layer of best moves, one per layer
    /// down to the next layer of values, plus that value.
    pub fn lookups_per_value(self, cells: usize) -> usize {
        (0..=cells)
            .map(|k| {
                (k..=cells)
                    .find(|&l| self.stores_values(l, cells))
                    .unwrap_or(cells)
                    - k
                    + 1
            })
            .max()
            .unwrap_or(1)
    }
}

/// What a table holds: the board, how values are stored, and where each layer is. On disk
/// (version 2) the board is the game's name and the board's bincode bytes, so a file's
/// meaning never depends on the order of a list in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The board the table was built for.
    pub game: AnyBoard,
    /// The integer type of the stored values (or `Halved`: one-byte codes of them).
    pub value_type: ValueType,
    /// Plain, compact or best moves.
    pub encoding: Encoding,
    /// Indexed by layer (stone count) 0..=cells. While a build runs (the `.partial` file),
    /// layers not yet written have offset 0.
    pub layers: Vec<LayerEntry>,
    /// xxh3-64 over the per-layer checksums (little-endian u64s) in layer order.
    pub checksum: u64,
    /// How many positions the game's symmetries fold onto one entry at most
    /// (`Game::symmetries`); 1 for a table that folds nothing.
    pub symmetries: u32,
}

impl Header {
    /// The header of a table not yet written: every layer's size, no offsets or checksums.
    /// Its encoded length is final (integers are fixed-width), so the values' offset is
    /// known before the first layer is written.
    pub fn blank(
        game: AnyBoard,
        value_type: ValueType,
        encoding: Encoding,
        layer_sizes: &[u64],
    ) -> Header {
        let layers = layer_sizes
            .iter()
            .map(|&positions| LayerEntry {
                offset: 0,
                positions,
                bytes: 0,
                checksum: 0,
            })
            .collect();
        Header {
            symmetries: game.symmetries().max(1),
            game,
            value_type,
            encoding,
            layers,
            checksum: 0,
        }
    }
}

/// Where one layer is in the file, and its checksum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerEntry {
    /// Absolute file offset of the layer's first byte.
    pub offset: u64,
    /// Positions in the layer.
    pub positions: u64,
    /// Stored length in bytes.
    pub bytes: u64,
    /// xxh3-64 of the layer's value bytes.
    pub checksum: u64,
}

impl Header {
    /// Combine per-layer checksums into the table checksum.
    pub fn combined_checksum(layers: &[LayerEntry]) -> u64 {
        let bytes: Vec<u8> = layers
            .iter()
            .flat_map(|l| l.checksum.to_le_bytes())
            .collect();
        xxh3_64(&bytes)
    }

    /// Bytes of values over all layers.
    pub fn value_bytes(&self) -> u64 {
        self.layers.iter().map(|l| l.bytes).sum()
    }

    /// Whether layer `k` has been written.
    pub fn finished(&self, k: usize) -> bool {
        self.layers[k].offset != 0
    }

    /// Positions over all layers.
    pub fn total_positions(&self) -> u64 {
        self.layers.iter().map(|l| l.positions).sum()
    }
}

/// The header as version 2 stores it.
#[derive(Serialize, Deserialize)]
struct Stored {
    game: String,
    board: Vec<u8>,
    rest: Rest,
}

/// The header as version 3 stores it (a folded table).
#[derive(Serialize, Deserialize)]
struct StoredFolded {
    game: String,
    board: Vec<u8>,
    symmetries: u32,
    rest: Rest,
}

/// Everything after the board, the same in versions 1 and 2.
#[derive(Serialize, Deserialize)]
struct Rest {
    value_type: ValueType,
    encoding: Encoding,
    layers: Vec<LayerEntry>,
    checksum: u64,
}

fn config() -> impl bincode::config::Config {
    // Fixed-width integers: the header's length does not depend on the offsets and
    // checksums filled in at the end of a build, so its space can be reserved up front.
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
        .with_limit::<{ MAX_HEADER_LEN as usize }>()
}

/// The format version a table with this header is written in: version 2 unless it folds.
pub fn version_of(header: &Header) -> u32 {
    if header.symmetries > 1 {
        VERSION
    } else {
        UNFOLDED_VERSION
    }
}

/// The header's bincode bytes (fixed-width integers), as its version (`version_of`) lays
/// them out.
pub fn encode(header: &Header) -> Result<Vec<u8>> {
    let fail =
        |e: &dyn std::fmt::Display| Error::other(format!("cannot encode the table header: {e}"));
    let (game, board) = header.game.to_table();
    let rest = Rest {
        value_type: header.value_type,
        encoding: header.encoding,
        layers: header.layers.clone(),
        checksum: header.checksum,
    };
    let game = game.to_string();
    if version_of(header) == UNFOLDED_VERSION {
        let stored = Stored { game, board, rest };
        bincode::serde::encode_to_vec(&stored, config()).map_err(|e| fail(&e))
    } else {
        let stored = StoredFolded {
            game,
            board,
            symmetries: header.symmetries,
            rest,
        };
        bincode::serde::encode_to_vec(&stored, config()).map_err(|e| fail(&e))
    }
}

/// Decode the header bytes of a table of format `version` (1 or 2); damage is a `Corrupt`
/// error, a game this retro does not have an `Other` one.
pub fn decode<R: Registry>(bytes: &[u8], version: u32) -> Result<Header> {
    let bad = |e: &dyn std::fmt::Display| Error::corrupt(format!("header does not decode ({e})"));
    let mut symmetries = 1;
    let (game, rest, used) = if version == 1 {
        // The game enum's variant index (u32), its board's fields, then the rest.
        let index: [u8; 4] = bytes
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad(&"too short"))?;
        let index = u32::from_le_bytes(index);
        let name = VERSION_1_GAMES
            .get(index as usize)
            .ok_or_else(|| bad(&format!("version 1 game index {index}")))?;
        let (game, board_len) = R::decode(name, &bytes[4..])?;
        let (rest, used): (Rest, usize) =
            bincode::serde::decode_from_slice(&bytes[4 + board_len..], config())
                .map_err(|e| bad(&e))?;
        (game, rest, 4 + board_len + used)
    } else {
        let (stored, used) = if version == UNFOLDED_VERSION {
            let (s, used): (Stored, usize) =
                bincode::serde::decode_from_slice(bytes, config()).map_err(|e| bad(&e))?;
            (
                StoredFolded {
                    game: s.game,
                    board: s.board,
                    symmetries: 1,
                    rest: s.rest,
                },
                used,
            )
        } else {
            let (s, used): (StoredFolded, usize) =
                bincode::serde::decode_from_slice(bytes, config()).map_err(|e| bad(&e))?;
            if s.symmetries < 2 {
                return Err(bad(&format!(
                    "a folded table folding {} symmetries",
                    s.symmetries
                )));
            }
            (s, used)
        };
        let (game, board_len) = R::decode(&stored.game, &stored.board)?;
        if board_len != stored.board.len() {
            return Err(Error::corrupt(format!(
                "header: the {} board has trailing bytes",
                stored.game
            )));
        }
        symmetries = stored.symmetries;
        (game, stored.rest, used)
    };
    if used != bytes.len() {
        return Err(Error::corrupt("header has trailing bytes"));
    }
    Ok(Header {
        game: game.with_symmetries(symmetries).with_format(version),
        value_type: rest.value_type,
        encoding: rest.encoding,
        layers: rest.layers,
        checksum: rest.checksum,
        symmetries,
    })
}

/// The 24-byte prefix for an encoded header of format `version` (`version_of`).
pub fn prefix(encoded: &[u8], version: u32) -> [u8; PREFIX_LEN as usize] {
    let mut p = [0u8; PREFIX_LEN as usize];
    p[..VERSION_AT].copy_from_slice(&MAGIC);
    p[VERSION_AT..HEADER_LEN_AT].copy_from_slice(&version.to_le_bytes());
    p[HEADER_LEN_AT..HEADER_CHECKSUM_AT].copy_from_slice(&(encoded.len() as u32).to_le_bytes());
    p[HEADER_CHECKSUM_AT..].copy_from_slice(&xxh3_64(encoded).to_le_bytes());
    p
}

/// Offset of the value region for a header of `len` bytes.
pub fn values_start(len: u64) -> u64 {
    (PREFIX_LEN + len).div_ceil(ALIGN) * ALIGN
}
