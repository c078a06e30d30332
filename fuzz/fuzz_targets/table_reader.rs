//! Table reader: a valid small table (one of four, built once) is damaged as the input says,
//! written to a temporary file and opened. `Table::open` and every read after it must
//! return Ok or Err: no panic, no huge allocation.
//!
//! Input layout:
//! - byte 0: bits 0-1 pick the base table (young 2x3 plain, young 3x3 compact, twins 2x2
//!   plain, twins 3x4 compact, whose large layers span several blocks); bit 2: edit the
//!   decoded header (fields from the next bytes) and re-encode it with a valid prefix;
//!   bit 3: after the raw edits, recompute the header checksum in the prefix so that damage
//!   inside the header reaches the decoder and the layout check; bit 4: read through mmap;
//!   bit 5: also run `verify_checksum` (slow under ASan: a 4 MiB buffer per layer).
//! - with bit 2: a header edit script (see `edit_header`);
//! - then raw edits, each an op byte and its arguments (see `edit_bytes`).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use retro::game::{GameSpec, TwinsSpec, YoungSpec};
use retro::table::{Encoding, Header, Table, header};
use retro::value::ValueType;

struct Base {
    bytes: Vec<u8>,
    header: Header,
}

fn tmp_dir() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    let root = if shm.is_dir() { shm } else { std::env::temp_dir() };
    // One shared directory; file names carry the process id (fork mode runs many).
    let dir = root.join("retro-fuzz");
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn bases() -> &'static [Base] {
    static BASES: OnceLock<Vec<Base>> = OnceLock::new();
    BASES.get_or_init(|| {
        let dir = tmp_dir();
        let young = |n: usize, m: usize| {
            GameSpec::Young(YoungSpec {
                rows: n,
                cols: m,
                a: (0..n * m).map(|i| (i as i64 * 7) % 11 + 1).collect(),
                b: (0..n * m).map(|i| (i as i64 * 5) % 13).collect(),
            })
        };
        let twins = |r: usize, c: usize| {
            GameSpec::Twins(TwinsSpec {
                rows: r,
                cols: c,
                vert: (0..(r - 1) * c).map(|i| (i as i64 * 3) % 10 + 200).collect(),
                horiz: (0..r * (c - 1)).map(|i| (i as i64 * 7) % 10).collect(),
            })
        };
        [(young(2, 3), false), (young(3, 3), true), (twins(2, 2), false), (twins(3, 4), true)]
            .into_iter()
            .enumerate()
            .map(|(i, (spec, compact))| {
                let path = dir.join(format!("base-{}-{i}.retro", std::process::id()));
                let _ = std::fs::remove_file(&path);
                let options = retro::job::BuildOptions {
                    compact,
                    force: true,
                    ..Default::default()
                };
                retro::job::build(
                    &spec,
                    &path,
                    &options,
                    retro::Driver::Serial,
                    &retro::Silent,
                )
                .expect("base table builds");
                let table = Table::open(&path).expect("base table opens");
                table.verify_checksum().expect("base table verifies");
                let bytes = std::fs::read(&path).expect("base table reads");
                let _ = std::fs::remove_file(&path);
                Base {
                    bytes,
                    header: table.header.clone(),
                }
            })
            .collect()
    })
}

/// Reads fuzz bytes as arguments; zeros once they run out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn done(&self) -> bool {
        self.0.is_empty()
    }
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn bytes(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }
    fn u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        let src = self.bytes(4);
        b[..src.len()].copy_from_slice(src);
        u32::from_le_bytes(b)
    }
    fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        let src = self.bytes(8);
        b[..src.len()].copy_from_slice(src);
        u64::from_le_bytes(b)
    }
    /// A u64 that is often near something interesting.
    fn value(&mut self, around: u64) -> u64 {
        match self.u8() % 8 {
            0 => around.wrapping_add(self.u8() as u64),
            1 => around.wrapping_sub(self.u8() as u64),
            2 => self.u8() as u64,
            3 => u64::MAX - self.u8() as u64,
            4 => 1u64 << (self.u8() % 64),
            5 => (1u64 << (self.u8() % 64)).wrapping_add(1),
            _ => self.u64(),
        }
    }
}

/// Change the decoded header's fields; returns the new header.
fn edit_header(base: &Header, input: &mut Input) -> Header {
    let mut h = base.clone();
    let edits = input.u8() % 8;
    for _ in 0..edits {
        match input.u8() % 12 {
            0 => match &mut h.game {
                GameSpec::Young(s) => s.rows = input.value(s.rows as u64) as usize,
                GameSpec::Twins(s) => s.rows = input.value(s.rows as u64) as usize,
            },
            1 => match &mut h.game {
                GameSpec::Young(s) => s.cols = input.value(s.cols as u64) as usize,
                GameSpec::Twins(s) => s.cols = input.value(s.cols as u64) as usize,
            },
            2 => {
                // Resize a weight list (bounded: the header limit is 1 MiB anyway).
                let len = input.u32() as usize % 70_000;
                let fill = input.value(1) as i64;
                let which = input.u8() & 1;
                let v = match (&mut h.game, which) {
                    (GameSpec::Young(s), 0) => &mut s.a,
                    (GameSpec::Young(s), _) => &mut s.b,
                    (GameSpec::Twins(s), 0) => &mut s.vert,
                    (GameSpec::Twins(s), _) => &mut s.horiz,
                };
                v.resize(len, fill);
            }
            3 => {
                // Set one weight.
                let at = input.u8() as usize;
                let w = input.value(0) as i64;
                let v = match &mut h.game {
                    GameSpec::Young(s) => &mut s.a,
                    GameSpec::Twins(s) => &mut s.horiz,
                };
                if !v.is_empty() {
                    let i = at % v.len();
                    v[i] = w;
                }
            }
            4 => {
                h.game = match h.game.clone() {
                    GameSpec::Young(s) => GameSpec::Twins(TwinsSpec {
                        rows: s.rows,
                        cols: s.cols,
                        vert: s.a,
                        horiz: s.b,
                    }),
                    GameSpec::Twins(s) => GameSpec::Young(YoungSpec {
                        rows: s.rows,
                        cols: s.cols,
                        a: s.vert,
                        b: s.horiz,
                    }),
                }
            }
            5 => {
                h.value_type = [ValueType::I8, ValueType::I16, ValueType::I32, ValueType::I64]
                    [input.u8() as usize % 4]
            }
            6 => {
                // A blocked base read as a table of best moves: its values become move
                // indices, mostly past the positions' moves.
                h.encoding = match input.u8() % 3 {
                    0 => Encoding::Plain,
                    1 => Encoding::Blocked,
                    _ => Encoding::Moves {
                        values_every: input.u8() as u32,
                    },
                }
            }
            7..=9 => {
                if !h.layers.is_empty() {
                    let k = input.u8() as usize % h.layers.len();
                    let e = &mut h.layers[k];
                    match input.u8() % 4 {
                        0 => e.offset = input.value(e.offset),
                        1 => e.positions = input.value(e.positions),
                        2 => e.bytes = input.value(e.bytes),
                        _ => e.checksum = input.value(e.checksum),
                    }
                }
            }
            10 => {
                let len = input.u8() as usize % 80;
                let fill = h.layers.last().copied().unwrap_or(retro::table::LayerEntry {
                    offset: 0,
                    positions: 0,
                    bytes: 0,
                    checksum: 0,
                });
                h.layers.resize(len, fill);
            }
            _ => {
                h.checksum = Header::combined_checksum(&h.layers);
            }
        }
    }
    h
}

/// Apply raw byte edits to the file image.
fn edit_bytes(file: &mut Vec<u8>, input: &mut Input) {
    let mut ops = 0;
    while !input.done() && ops < 64 {
        ops += 1;
        let op = input.u8();
        let len = file.len();
        let at = |x: u32| if len == 0 { 0 } else { x as usize % len };
        match op % 8 {
            0..=2 => {
                // Overwrite a run of bytes, mostly in the prefix and header.
                let raw = input.u32();
                let pos = if op & 0x80 != 0 { at(raw % 512) } else { at(raw) };
                let n = (input.u8() % 16) as usize + 1;
                let src = input.bytes(n).to_vec();
                for (i, b) in src.into_iter().enumerate() {
                    if let Some(slot) = file.get_mut(pos + i) {
                        *slot = b;
                    }
                }
            }
            3 => {
                let pos = at(input.u32());
                let v = input.u8();
                if let Some(slot) = file.get_mut(pos) {
                    *slot ^= v.max(1);
                }
            }
            4 => {
                // Write an interesting u64 (little-endian) at a position.
                let pos = at(input.u32());
                let old = file
                    .get(pos..pos + 8)
                    .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                    .unwrap_or(0);
                let v = input.value(old).to_le_bytes();
                for (i, b) in v.into_iter().enumerate() {
                    if let Some(slot) = file.get_mut(pos + i) {
                        *slot = b;
                    }
                }
            }
            5 => {
                let pos = at(input.u32());
                file.truncate(pos);
            }
            6 => {
                let n = input.u8() as usize;
                let fill = input.u8();
                file.extend(std::iter::repeat_n(fill, n));
            }
            _ => {
                // Remove or duplicate a run (shifts everything after it).
                let pos = at(input.u32());
                let n = (input.u8() % 64) as usize;
                let end = (pos + n).min(len);
                if op & 0x80 != 0 {
                    file.drain(pos..end);
                } else {
                    let dup: Vec<u8> = file[pos..end].to_vec();
                    file.splice(pos..pos, dup);
                }
            }
        }
    }
}

/// Make the prefix's header checksum match whatever header length it declares.
fn fix_checksum(file: &mut [u8]) {
    if file.len() < header::PREFIX_LEN as usize {
        return;
    }
    let len = u32::from_le_bytes(file[12..16].try_into().unwrap()) as usize;
    let start = header::PREFIX_LEN as usize;
    if let Some(encoded) = file.get(start..start.saturating_add(len)) {
        let sum = xxhash_rust::xxh3::xxh3_64(encoded);
        file[16..24].copy_from_slice(&sum.to_le_bytes());
    }
}

fn exercise(table: &Table) {
    let layers = table.header.layers.clone();
    for (k, e) in layers.iter().enumerate() {
        let n = e.positions;
        for i in [0, 1, n / 2, n.saturating_sub(1), n, n.saturating_add(1), u64::MAX] {
            let _ = table.value(k, i);
        }
        // Sensible ranges (the caller keeps start + count within the layer) plus a few
        // just past its end.
        let count = n.min(5_000) as usize;
        let _ = table.read_range(k, 0, count);
        let _ = table.read_range(k, n / 3, (n - n / 3).min(5_000) as usize);
        let _ = table.read_range(k, n.saturating_sub(3), 5);
        let _ = table.read_range(k, n, 1);
        let _ = table.read_range(k, 0, 0);
    }
    let _ = table.value(layers.len(), 0);
    let _ = table.read_range(layers.len(), 0, 1);
}

fuzz_target!(|data: &[u8]| {
    let bases = bases();
    let mut input = Input(data);
    let flags = input.u8();
    let base = &bases[flags as usize % bases.len()];
    let mut file = base.bytes.clone();
    if flags & 4 != 0 {
        let h = edit_header(&base.header, &mut input);
        if let Ok(encoded) = header::encode(&h) {
            let old_start = header::values_start(header::encode(&base.header).unwrap().len() as u64);
            let start = header::values_start(encoded.len() as u64) as usize;
            let mut image = Vec::with_capacity(start + file.len());
            image.extend_from_slice(&header::prefix(&encoded, header::version_of(&h)));
            image.extend_from_slice(&encoded);
            image.resize(start, 0);
            image.extend_from_slice(&file[old_start as usize..]);
            file = image;
        }
    }
    edit_bytes(&mut file, &mut input);
    if flags & 8 != 0 {
        fix_checksum(&mut file);
    }

    thread_local! {
        static PATH: PathBuf = tmp_dir().join(format!("case-{}.retro", std::process::id()));
    }
    let path = PATH.with(|p| p.clone());
    std::fs::write(&path, &file).expect("write temp table");
    let Ok(table) = Table::open(&path) else {
        return;
    };
    // A table that opens must describe exactly this file.
    assert_eq!(table.file_len, file.len() as u64);
    let table = if flags & 16 != 0 {
        match table.with_mmap() {
            Ok(t) => t,
            Err(_) => return,
        }
    } else {
        table
    };
    exercise(&table);
    // Each call allocates a 4 MiB buffer per layer: slow under ASan, so only sometimes.
    if flags & 32 != 0 {
        let _ = table.verify_checksum();
    }
});
