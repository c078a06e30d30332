//! Partial files: every file retro writes (a table, an export, a manual page) is written
//! under `NAME.partial` and renamed to `NAME` only when whole, so nothing under a final
//! name is ever incomplete. The rules that keep a partial file from destroying anything:
//!
//! - it is opened without following a symbolic link (a link planted there would
//!   otherwise send the writes, and the final rename, to the file it points at);
//! - it is never the input being read (`export T.partial -o T` would truncate its own
//!   table, and `build -o BOARD` would replace the board);
//! - an existing one is emptied only if retro wrote it (a table's magic bytes, an
//!   export's first bytes) or it is empty: a stranger's file of that name is refused. A file
//!   that begins with zeros is taken for one whose first bytes a power cut kept from the
//!   disk only while it is no longer than the first write could have made it, and has no
//!   other name: disk images and sparse files begin with zeros too, and a second link
//!   would carry the truncation to a file the user named otherwise;
//! - the writer holds an exclusive lock (`flock`) on it from before it reads or truncates
//!   it until the rename, so a second writer of the same output stops at once, naming the
//!   first. The OS drops the lock when a process dies, so a killed build still resumes.

use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result, io_error};
use crate::table::header::MAGIC;
use crate::table::reader::file_kind;

/// The temporary name a file is written under until it is whole.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// What a partial file is the beginning of: it decides how a leftover one is recognised
/// as retro's own, and how a second writer is told off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Exports and manual pages are the command line's.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub enum Kind {
    /// A table being built (`TableWriter`, MPI builds).
    Table,
    /// An export (CSV or Parquet).
    Export,
    /// A manual page (`retro man --dir`).
    Page,
}

impl Kind {
    /// The longest file this kind of writer leaves with nothing but zeros where its first
    /// bytes go: a power cut after its first write extended the file and before the bytes
    /// reached the disk. A table's first write is its header's copy past the header's room
    /// (`TableWriter`, `journal`: a few KiB); an export's or a page's first write is one
    /// buffer of rows or text.
    pub(crate) fn zeros_at_most(self) -> u64 {
        64 << 10
    }

    /// Whether a file starting with `head` (its first bytes, possibly fewer than asked for),
    /// `len` bytes long in all and with `links` names, was written by this kind of writer.
    /// All zeros counts only for a file no longer than `zeros_at_most` with one name (see
    /// the module's comment).
    pub(crate) fn recognises(self, head: &[u8], len: u64, links: u64) -> bool {
        let starts = |prefix: &[u8]| head.iter().zip(prefix).all(|(a, b)| a == b);
        (head.iter().all(|&b| b == 0) && len <= self.zeros_at_most() && links <= 1)
            || match self {
                Kind::Table => starts(&MAGIC),
                // The CSV header line, or Parquet's magic.
                Kind::Export => starts(b"position,stones,") || starts(b"PAR1"),
                // The first line of every page `retro man` renders.
                Kind::Page => starts(b".ie \\n(.g .ds Aq"),
            }
    }

    /// The refusal of a file at `partial` that this kind of writer did not write.
    pub(crate) fn not_ours(self, partial: &Path) -> Error {
        let what = match self {
            Kind::Table => "an interrupted build's partial table",
            Kind::Export => "an interrupted export's partial file",
            Kind::Page => "an interrupted `retro man --dir`'s partial page",
        };
        Error::input(format!(
            "{}: exists and is not {what}; retro only overwrites partial files it wrote: remove it or choose another name",
            partial.display()
        ))
    }
}

/// Refuse, before any work, an output path that cannot end up holding the output: one that
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

/// Refuse an output whose final name or partial file is one of the inputs being read,
/// each given with what it is ("the table being exported"): the partial file would be
/// truncated under the reader, and the rename would replace the input.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub fn check_not_input(path: &Path, inputs: &[(&Path, &str)]) -> Result<()> {
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    // The partial file is opened without following links, so only the file itself counts.
    let partial = partial_path(path);
    let partial_id = std::fs::symlink_metadata(&partial)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| (m.dev(), m.ino()));
    for &(input, what) in inputs {
        let Some(input_id) = id(input) else { continue };
        if id(path) == Some(input_id) {
            return Err(Error::input(format!(
                "{}: is {what}; writing the output there would replace it: choose another name",
                path.display()
            )));
        }
        if partial_id == Some(input_id) {
            return Err(Error::input(format!(
                "{}: is {what}; the output is written under that name until it is whole: choose another name",
                partial.display()
            )));
        }
    }
    Ok(())
}

/// Open a partial file for reading and writing without following a symbolic link, never
/// truncating; it must be a regular file.
fn open_no_follow(partial: &Path, create: bool) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(create)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW)
        .open(partial)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => Error::input(format!(
                "{}: is a symbolic link; retro writes its partial files itself and never follows a link there: remove it",
                partial.display()
            )),
            _ => io_error(partial, e),
        })?;
    let meta = file.metadata().map_err(|e| io_error(partial, e))?;
    if !meta.is_file() {
        return Err(Error::input(format!(
            "{}: is {}, not a partial file",
            partial.display(),
            file_kind(&meta.file_type())
        )));
    }
    Ok(file)
}

/// A partial file opened for writing, and locked by the process that writes it (on MPI,
/// rank 0; the other ranks open it shared).
pub struct Partial {
    /// The open file.
    pub file: File,
    /// Its path, `NAME.partial`.
    pub path: PathBuf,
    /// Its length when opened: what an earlier, interrupted writer left.
    pub held: u64,
    kind: Kind,
}

impl Partial {
    /// Open (creating if need be, never truncating) and exclusively lock `target`'s partial
    /// file. Another writer holding the lock is an error naming it.
    pub fn lock(target: &Path, kind: Kind) -> Result<Partial> {
        let path = partial_path(target);
        loop {
            let file = open_no_follow(&path, true)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(locked_by_another(&path, &file, kind, target));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io_error(&path, e)),
            }
            // Between our open and our lock, the writer that held the lock may have
            // finished and renamed this very file to the final name: then the lock we hold
            // is on the finished file, and the partial file to work on is a new one.
            let locked = file.metadata().map_err(|e| io_error(&path, e))?;
            match std::fs::symlink_metadata(&path) {
                Ok(now) if now.dev() == locked.dev() && now.ino() == locked.ino() => {
                    if kind == Kind::Table {
                        remove_stale_tokens(&path);
                    }
                    return Ok(Partial {
                        file,
                        path,
                        held: locked.len(),
                        kind,
                    });
                }
                _ => continue,
            }
        }
    }

    /// Open `target`'s partial file, which another process created and holds the lock on,
    /// without a lock and without creating it (the ranks of an MPI build other than rank
    /// 0, which write their slices into rank 0's file).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub fn open_shared(target: &Path, kind: Kind) -> Result<Partial> {
        let path = partial_path(target);
        let file = open_no_follow(&path, false)?;
        let held = file.metadata().map_err(|e| io_error(&path, e))?.len();
        Ok(Partial {
            file,
            path,
            held,
            kind,
        })
    }

    /// Empty the file to start from nothing, if it is empty or retro wrote it; a file of
    /// that name that retro did not write is refused, not truncated.
    pub fn start_over(&mut self) -> Result<()> {
        if self.held > 0 {
            let mut head = [0u8; 16];
            // A positioned read: the file's offset stays at 0 for whoever writes next.
            let n = self
                .file
                .read_at(&mut head, 0)
                .map_err(|e| io_error(&self.path, e))?;
            let meta = self.file.metadata().map_err(|e| io_error(&self.path, e))?;
            if !self.kind.recognises(&head[..n], meta.len(), meta.nlink()) {
                return Err(self.kind.not_ours(&self.path));
            }
        }
        crash_point();
        self.file.set_len(0).map_err(|e| io_error(&self.path, e))?;
        self.held = 0;
        Ok(())
    }
}

/// Remove the token files an MPI build's rank 0 left beside `partial` when it was killed
/// before removing its own (`PARTIAL.token-<16 hex digits>`, holding those 8 bytes: see
/// `distributed::run`). Called with the lock taken: no other build of this table is
/// running, so every such token is stale. Only regular files whose bytes are the token
/// their name gives go: a stranger's file of a like name stays. Failures are ignored; a
/// token left behind does no harm but clutter.
fn remove_stale_tokens(partial: &Path) {
    let (Some(dir), Some(name)) = (partial.parent(), partial.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut prefix = name.as_bytes().to_vec();
    prefix.extend_from_slice(b".token-");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(hex) = file_name.as_bytes().strip_prefix(&prefix[..]) else {
            continue;
        };
        let token = std::str::from_utf8(hex)
            .ok()
            .filter(|h| h.len() == 16 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .and_then(|h| u64::from_str_radix(h, 16).ok());
        let Some(token) = token else { continue };
        let path = entry.path();
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 8)
            && std::fs::read(&path).is_ok_and(|bytes| bytes == token.to_le_bytes());
        if ours {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Fail at once if another writer holds the lock on `target`'s partial file, so that the
/// refusal comes before estimates and checks; the lock itself is taken by `Partial::lock`.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub fn check_unlocked(target: &Path, kind: Kind) -> Result<()> {
    let partial = partial_path(target);
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&partial)
    else {
        return Ok(());
    };
    match file.try_lock() {
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(locked_by_another(&partial, &file, kind, target))
        }
        // Released when `file` closes.
        _ => Ok(()),
    }
}

fn locked_by_another(partial: &Path, file: &File, kind: Kind, target: &Path) -> Error {
    let holder = lock_holder(file).unwrap_or_else(|| "another process".into());
    let what = match kind {
        Kind::Table => "another build of this table".to_string(),
        Kind::Export => format!("another export to {}", target.display()),
        Kind::Page => format!("another `retro man --dir` writing {}", target.display()),
    };
    Error::other(format!(
        "{}: {what} is running ({holder}); wait for it to finish or stop it",
        partial.display(),
    ))
}

/// "pid 1234: retro build ...": the process holding a flock on `file`, from /proc/locks
/// (Linux); None where that cannot be read.
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

/// The write step a test asked to crash before (0: none), and the steps taken so far.
static CRASH_AT: AtomicU64 = AtomicU64::new(0);
static STEPS: AtomicU64 = AtomicU64::new(0);

/// Test hook (`build --crash-before-step N`, `export` likewise): abort the process, as a
/// kill or a power cut would stop it, just before the Nth step that changes a partial file
/// or its name (a write of a layer or a header, a sync, a truncation, the rename), so a
/// test can stop a writer inside every window instead of hoping a timer lands there.
#[doc(hidden)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub fn crash_before_step(n: u64) {
    CRASH_AT.store(n, Ordering::Relaxed);
}

/// The long write a test asked to tear (0: none), the bytes of it to write before the
/// process aborts, and the long writes made so far.
static TEAR_WRITE: AtomicU64 = AtomicU64::new(0);
static TEAR_BYTES: AtomicU64 = AtomicU64::new(0);
static LONG_WRITES: AtomicU64 = AtomicU64::new(0);

/// Test hook (`build --tear-write N --tear-at B`): the Nth write of more than B bytes to a
/// partial file writes its first B bytes, syncs them and aborts the process, as a power
/// cut between the pages of one write leaves a file (a page boundary for B, 4096 or its
/// multiples, is what disks tear at).
#[doc(hidden)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub fn tear_write(n: u64, bytes: u64) {
    TEAR_BYTES.store(bytes, Ordering::Relaxed);
    TEAR_WRITE.store(n, Ordering::Relaxed);
}

/// Write `bytes` at `offset` of a partial file as one step (`crash_point`), torn where a
/// test asked (`tear_write`).
pub(crate) fn write_step(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    crash_point();
    let n = TEAR_WRITE.load(Ordering::Relaxed);
    let keep = TEAR_BYTES.load(Ordering::Relaxed);
    if n != 0 && bytes.len() as u64 > keep && LONG_WRITES.fetch_add(1, Ordering::Relaxed) + 1 == n {
        file.write_all_at(&bytes[..keep as usize], offset)?;
        file.sync_data()?;
        std::process::abort();
    }
    file.write_all_at(bytes, offset)
}

/// The layer after which a test cuts the partial file short (its number + 1; 0: none).
static CUT_AFTER: AtomicU64 = AtomicU64::new(0);

/// Test hook (`build --cut-after-layer K`): once layer K is written, cut the partial file
/// short in the middle of it, as another program truncating the file under the build
/// would (the build must then stop with an error, never seal the table).
#[doc(hidden)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub fn cut_after_layer(k: u64) {
    CUT_AFTER.store(k.saturating_add(1), Ordering::Relaxed);
}

/// Whether a test asked to cut the file short once layer `k` is written.
pub(crate) fn cut_after(k: usize) -> bool {
    CUT_AFTER.load(Ordering::Relaxed) == k as u64 + 1
}

/// The layer after which a test gives the partial file's name to another file (its
/// number + 1; 0: none).
static REPLACE_AFTER: AtomicU64 = AtomicU64::new(0);

/// Test hook (`build --replace-after-layer K`): once layer K is written, the partial file
/// is moved to `NAME.partial.moved` and a new, empty file takes its name, as when a user
/// removes a running build's partial file and a second build creates its own: the first
/// must go on reading its own file and refuse to seal under the name.
#[doc(hidden)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub fn replace_after_layer(k: u64) {
    REPLACE_AFTER.store(k.saturating_add(1), Ordering::Relaxed);
}

/// Give `partial`'s name to a new file if a test asked for it once layer `k` is written.
pub(crate) fn replace_after(k: usize, partial: &Path) {
    if REPLACE_AFTER.load(Ordering::Relaxed) == k as u64 + 1 {
        let mut moved = partial.as_os_str().to_owned();
        moved.push(".moved");
        let _ = std::fs::rename(partial, &moved);
        let _ = File::create(partial);
    }
}

/// Count a step that changes a partial file; abort if a test asked to crash before it.
pub(crate) fn crash_point() {
    let at = CRASH_AT.load(Ordering::Relaxed);
    if at != 0 && STEPS.fetch_add(1, Ordering::Relaxed) + 1 == at {
        std::process::abort();
    }
}
