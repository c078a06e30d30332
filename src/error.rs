//! One error type for the whole crate. Each variant says what kind of thing went wrong,
//! which decides the exit code (documented in docs/testing.md); its text reads as a single line
//! after `error: `, and an I/O error keeps the OS error as its `source()`, so callers can
//! tell a broken pipe from a full disk.

use std::fmt;

/// Everything that can go wrong in `retro`.
#[derive(Debug)]
pub enum Error {
    /// The user's input (a board, a position, an argument, a path) is not acceptable:
    /// exit 2.
    Input(String),
    /// The operating system refused an I/O operation: what was being done (usually a
    /// path), and the OS error.
    Io {
        /// What was being done: a path, "writing output", "reading stdin".
        context: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A table file that is damaged, truncated, foreign or of another version.
    Corrupt(String),
    /// A board too large for this machine's memory or disk, or for 64-bit counts.
    TooLarge(String),
    /// Anything else.
    Other(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong, as far as the exit code is concerned (see [`Error::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Bad input: exit 2.
    Input,
    /// An I/O error of this kind: exit 1.
    Io(std::io::ErrorKind),
    /// A damaged or foreign table: exit 1.
    Corrupt,
    /// Too large for memory, disk or counts: exit 1.
    TooLarge,
    /// Anything else: exit 1.
    Other,
}

impl Error {
    /// Bad input, with a message that names it.
    pub fn input(message: impl Into<String>) -> Self {
        Error::Input(message.into())
    }

    /// Anything not covered by the other kinds.
    pub fn other(message: impl Into<String>) -> Self {
        Error::Other(message.into())
    }

    /// A damaged or foreign table.
    pub fn corrupt(message: impl Into<String>) -> Self {
        Error::Corrupt(message.into())
    }

    /// Too large for memory, disk or 64-bit counts.
    pub fn too_large(message: impl Into<String>) -> Self {
        Error::TooLarge(message.into())
    }

    /// An I/O error with what was being done ("writing output", a path).
    pub fn io(what: impl fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            context: what.to_string(),
            source,
        }
    }

    /// The kind of error, without its text.
    pub fn kind(&self) -> Kind {
        match self {
            Error::Input(_) => Kind::Input,
            Error::Io { source, .. } => Kind::Io(source.kind()),
            Error::Corrupt(_) => Kind::Corrupt,
            Error::TooLarge(_) => Kind::TooLarge,
            Error::Other(_) => Kind::Other,
        }
    }

    /// Whether this is bad input (exit 2) rather than a failure (exit 1).
    pub fn is_input(&self) -> bool {
        matches!(self, Error::Input(_))
    }

    /// Prefix the message with where it happened ("reading foo.tbl: ...").
    pub fn context(self, what: impl fmt::Display) -> Self {
        match self {
            Error::Input(m) => Error::Input(format!("{what}: {m}")),
            Error::Io { context, source } => Error::Io {
                context: format!("{what}: {context}"),
                source,
            },
            Error::Corrupt(m) => Error::Corrupt(format!("{what}: {m}")),
            Error::TooLarge(m) => Error::TooLarge(format!("{what}: {m}")),
            Error::Other(m) => Error::Other(format!("{what}: {m}")),
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        if self.is_input() { 2 } else { 1 }
    }

    /// The reader of our output went away (`retro info t.retro | head -1`): not a failure
    /// of ours, so the command ends quietly, as Unix tools do.
    pub fn is_broken_pipe(&self) -> bool {
        self.kind() == Kind::Io(std::io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(m) | Error::Corrupt(m) | Error::TooLarge(m) | Error::Other(m) => {
                f.write_str(m)
            }
            Error::Io { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Attach a path to an I/O error; the OS message alone ("No such file or directory")
/// does not say which file.
pub fn io_error(path: &std::path::Path, err: std::io::Error) -> Error {
    Error::io(path.display(), err)
}

/// At most this many characters of a user's input are echoed in an error message.
pub const EXCERPT: usize = 40;

/// A short, printable excerpt of user input for an error message: a 1 GB line must not
/// come back as a 1 GB error.
pub fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(EXCERPT).collect();
    if text.chars().nth(EXCERPT).is_some() {
        out.push_str("...");
    }
    format!("{out:?}")
}
