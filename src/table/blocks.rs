//! Compact values: a layer cut into blocks of `BLOCK` entries, each stored as offsets from
//! the block's minimum in the fewest bits that hold them. Layout of a compact layer:
//!
//! ```text
//! [block 0 bits][block 1 bits]...[8 zero bytes][directory: per block, min i64 LE, then
//!                                               (byte offset << 8 | bit width) u64 LE]
//! ```
//! An entry is the directory entry of its block (16 bytes) and at most 9 data bytes away:
//! two positioned reads, whatever the table's size. The 8 zero bytes let a reader always
//! fetch a whole u64 window without running off the data.

use crate::error::{Error, Result};

/// Entries per block.
pub const BLOCK: usize = 4096;
/// Bytes per directory entry.
pub const DIR_ENTRY: usize = 16;
/// Zero bytes after the last block.
pub const SLACK: usize = 8;

/// Bytes of a blocked layer's directory: one entry per block of `positions` entries.
pub fn directory_bytes(positions: u64) -> u64 {
    positions
        .div_ceil(BLOCK as u64)
        .saturating_mul(DIR_ENTRY as u64)
}

/// Bytes of a blocked layer of `positions` entries whose packed blocks take `data` bytes:
/// the data, the slack, the directory.
pub fn layer_bytes(positions: u64, data: u64) -> u64 {
    data.saturating_add(SLACK as u64)
        .saturating_add(directory_bytes(positions))
}

/// The most a blocked layer of `positions` entries of `width` bytes each can take: every
/// block packed at full width (a block's span never needs more bits than its type has).
pub fn layer_bytes_bound(positions: u64, width: u64) -> u64 {
    layer_bytes(positions, positions.saturating_mul(width))
}

/// The packed data's length in a blocked layer of `bytes` bytes (the reader has checked
/// that the layer holds at least its slack and directory).
pub fn data_bytes(positions: u64, bytes: u64) -> u64 {
    bytes - SLACK as u64 - directory_bytes(positions)
}

/// Where, from the layer's start, the directory entry of the block that begins at entry
/// `first` sits, when the layer's packed data take `data` bytes.
pub fn directory_entry_at(data: u64, first: u64) -> u64 {
    data + SLACK as u64 + first / BLOCK as u64 * DIR_ENTRY as u64
}

/// Pack `entries` (as i64 through `wide`) block by block in parallel: per block its data
/// bytes, minimum and bit width, in order. Both writers (one process, MPI) pack with this.
pub fn pack<T: Sync>(entries: &[T], wide: impl Fn(&T) -> i64 + Sync) -> Vec<(Vec<u8>, i64, u8)> {
    use rayon::prelude::*;
    entries
        .par_chunks(BLOCK)
        .map(|block| {
            let wide: Vec<i64> = block.iter().map(&wide).collect();
            let mut data = Vec::new();
            let (min, _, width) = encode_block(&wide, &mut data);
            (data, min, width)
        })
        .collect()
}

/// Bits needed for `span` (0 for a block of equal values).
fn width_for(span: u64) -> u8 {
    (64 - span.leading_zeros()) as u8
}

/// Append one block's packed bits to `data`; returns its directory entry (min, offset, width).
pub fn encode_block(values: &[i64], data: &mut Vec<u8>) -> (i64, u64, u8) {
    let min = values.iter().copied().min().unwrap_or(0);
    let max = values.iter().copied().max().unwrap_or(0);
    let width = width_for(max.wrapping_sub(min) as u64);
    let offset = data.len() as u64;
    let bits = values.len() * width as usize;
    let start = data.len();
    data.resize(start + bits.div_ceil(8), 0);
    if width > 0 {
        let out = &mut data[start..];
        let (mut acc, mut filled, mut at) = (0u128, 0u32, 0usize);
        for &v in values {
            acc |= ((v.wrapping_sub(min) as u64) as u128) << filled;
            filled += width as u32;
            while filled >= 8 {
                out[at] = acc as u8;
                acc >>= 8;
                filled -= 8;
                at += 1;
            }
        }
        if filled > 0 {
            out[at] = acc as u8;
        }
    }
    (min, offset, width)
}

/// The 16-byte directory entry of a block: `min`, then `offset << 8 | width`.
pub fn dir_entry(min: i64, offset: u64, width: u8) -> [u8; DIR_ENTRY] {
    let mut e = [0u8; DIR_ENTRY];
    e[..8].copy_from_slice(&min.to_le_bytes());
    e[8..].copy_from_slice(&((offset << 8) | width as u64).to_le_bytes());
    e
}

/// (min, data offset, width) from a directory entry, checked against the data length.
pub fn parse_dir_entry(e: &[u8], data_len: u64, count: usize) -> Result<(i64, u64, u8)> {
    let min = i64::from_le_bytes(e[..8].try_into().unwrap_or_default());
    let packed = u64::from_le_bytes(e[8..16].try_into().unwrap_or_default());
    let (offset, width) = (packed >> 8, (packed & 0xff) as u8);
    let bytes = (count as u64 * width as u64).div_ceil(8);
    if width > 64 || offset.checked_add(bytes).is_none_or(|end| end > data_len) {
        return Err(Error::corrupt("corrupt block directory"));
    }
    Ok((min, offset, width))
}

/// Entry `i` of a block, from a window of bytes starting at the byte holding its first bit.
pub fn extract(window: &[u8; 9], bit: u32, width: u8, min: i64) -> i64 {
    if width == 0 {
        return min;
    }
    let raw = u128::from_le_bytes({
        let mut b = [0u8; 16];
        b[..9].copy_from_slice(window);
        b
    }) >> bit;
    let mask = if width == 64 {
        u64::MAX as u128
    } else {
        (1u128 << width) - 1
    };
    min.wrapping_add((raw & mask) as u64 as i64)
}

/// Decode a whole block.
pub fn decode_block(bits: &[u8], count: usize, width: u8, min: i64, out: &mut Vec<i64>) {
    if width == 0 {
        out.extend(std::iter::repeat_n(min, count));
        return;
    }
    let mask = if width == 64 {
        u64::MAX as u128
    } else {
        (1u128 << width) - 1
    };
    let (mut acc, mut have, mut at) = (0u128, 0u32, 0usize);
    for _ in 0..count {
        while have < width as u32 {
            acc |= (bits.get(at).copied().unwrap_or(0) as u128) << have;
            have += 8;
            at += 1;
        }
        out.push(min.wrapping_add((acc & mask) as u64 as i64));
        acc >>= width;
        have -= width as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_at_every_width() {
        for span in [0i64, 1, 2, 3, 255, 1000, 1 << 20, 1 << 40] {
            let values: Vec<i64> = (0..BLOCK as i64)
                .map(|i| -7 + (i * 7919) % (span.max(1)))
                .collect();
            let mut data = vec![0xAA; 3];
            let (min, offset, width) = encode_block(&values, &mut data);
            data.extend_from_slice(&[0; SLACK]);
            let mut out = Vec::new();
            decode_block(&data[offset as usize..], values.len(), width, min, &mut out);
            assert_eq!(out, values);
            for (i, &v) in values.iter().enumerate().step_by(37).filter(|_| width > 0) {
                let bit = i * width as usize;
                let at = offset as usize + bit / 8;
                let window: [u8; 9] = data[at..at + 9].try_into().unwrap();
                assert_eq!(extract(&window, (bit % 8) as u32, width, min), v);
            }
        }
    }
}
