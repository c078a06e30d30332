//! A header update that a power cut cannot tear. While a table is built, its header (a few
//! KiB, more than a disk page for large boards) is rewritten at offset 0 after every layer.
//! One write of several pages is not atomic: a cut between its pages leaves the new prefix
//! and checksum beside the old layer list, which no longer checks, and every finished layer
//! would be lost with it.
//!
//! So each update is made twice. First a copy of the new header goes past everything the
//! build has written or will write before the next update (the copy, then an 8-byte mark
//! `RETROJNL` and the copy's offset: the last 16 bytes of the file), and is synced; only
//! then is the header at offset 0 written. At every instant one of the two is whole: a cut
//! in the copy leaves the old header at 0, and a cut at 0 leaves the synced copy, which
//! `recover` writes back to offset 0 before the build resumes. The copies only ever move
//! further into the file, so the last one is always the file's tail. A finished table is
//! cut where its values end: the copy is never part of a table.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use super::header::{HEADER_CHECKSUM_AT, HEADER_LEN_AT, MAGIC, MAX_HEADER_LEN, PREFIX_LEN};
use crate::error::{Result, io_error};
use crate::table::partial::{crash_point, write_step};

/// What follows the copy of a header: this mark, then the copy's offset (u64 LE).
const MARK: [u8; 8] = *b"RETROJNL";
/// The mark and the offset.
const TRAILER_LEN: u64 = 16;

/// Where a build's header copies go.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// Offset of the last copy written (0: none since the file was last cut).
    at: u64,
}

impl Journal {
    /// Write `header` (the prefix and the encoded header) as a copy at `at_least` or
    /// further (never before the last copy), sync it, then write it at offset 0. The
    /// caller syncs after, as after any write it wants on disk.
    pub(crate) fn commit(
        &mut self,
        file: &File,
        path: &Path,
        header: &[u8],
        at_least: u64,
    ) -> Result<()> {
        self.at = self.at.max(at_least);
        let mut record = Vec::with_capacity(header.len() + TRAILER_LEN as usize);
        record.extend_from_slice(header);
        record.extend_from_slice(&MARK);
        record.extend_from_slice(&self.at.to_le_bytes());
        write_step(file, &record, self.at).map_err(|e| io_error(path, e))?;
        crash_point();
        file.sync_data().map_err(|e| io_error(path, e))?;
        write_step(file, header, 0).map_err(|e| io_error(path, e))
    }

    /// The file was cut before the last copy: the next goes where the caller says.
    pub(crate) fn cut(&mut self) {
        self.at = 0;
    }
}

/// The prefix and header at `at`, if they are whole and check (magic, length, checksum).
fn whole_header(file: &File, at: u64, len: u64) -> Option<Vec<u8>> {
    if at.checked_add(PREFIX_LEN)? > len {
        return None;
    }
    let mut prefix = [0u8; PREFIX_LEN as usize];
    file.read_exact_at(&mut prefix, at).ok()?;
    let field = |i: usize, n: usize| &prefix[i..i + n];
    let header_len = u32::from_le_bytes(field(HEADER_LEN_AT, 4).try_into().ok()?);
    let checksum = u64::from_le_bytes(field(HEADER_CHECKSUM_AT, 8).try_into().ok()?);
    if prefix[..MAGIC.len()] != MAGIC || header_len > MAX_HEADER_LEN {
        return None;
    }
    let end = at + PREFIX_LEN + u64::from(header_len);
    if end > len {
        return None;
    }
    let mut bytes = vec![0u8; (PREFIX_LEN + u64::from(header_len)) as usize];
    file.read_exact_at(&mut bytes, at).ok()?;
    (xxh3_64(&bytes[PREFIX_LEN as usize..]) == checksum).then_some(bytes)
}

/// Put back the header of an interrupted build whose header at offset 0 was torn: where
/// it does not check and the file ends in a whole copy (`Journal::commit`) that `fits`
/// accepts (the prefix and header bytes: a copy of the board being built, as long as the
/// header it replaces), the copy is written to offset 0 and synced. Whether it did so; a
/// file with a whole header, with no copy to take one from or with a copy of another
/// board, is left as it is for the reader to judge.
pub(crate) fn recover(partial: &Path, fits: impl Fn(&[u8]) -> bool) -> Result<bool> {
    let Ok(file) = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(partial)
    else {
        return Ok(false);
    };
    let len = file.metadata().map_err(|e| io_error(partial, e))?.len();
    if whole_header(&file, 0, len).is_some() || len < TRAILER_LEN {
        return Ok(false);
    }
    let mut trailer = [0u8; TRAILER_LEN as usize];
    file.read_exact_at(&mut trailer, len - TRAILER_LEN)
        .map_err(|e| io_error(partial, e))?;
    if trailer[..8] != MARK {
        return Ok(false);
    }
    let mut at = [0u8; 8];
    at.copy_from_slice(&trailer[8..]);
    let at = u64::from_le_bytes(at);
    let Some(copy) = whole_header(&file, at, len - TRAILER_LEN) else {
        return Ok(false);
    };
    if at == 0 || at + copy.len() as u64 + TRAILER_LEN != len || !fits(&copy) {
        return Ok(false);
    }
    crash_point();
    file.write_all_at(&copy, 0)
        .map_err(|e| io_error(partial, e))?;
    crash_point();
    file.sync_data().map_err(|e| io_error(partial, e))?;
    Ok(true)
}
