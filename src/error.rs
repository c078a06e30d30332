//! One error type for the whole crate. Each variant says what kind of thing went wrong,
//! which decides the exit code ([`EXIT_CODES`], documented in docs/testing.md: the table the program's exit and the
//! manual's EXIT STATUS are both read from); its text reads as a single line after
//! `error: `, and an I/O error keeps the OS error as its `source()`, so callers can tell a
//! broken pipe from a full disk.

use std::fmt;

/// How a run of `retro` ends, as far as its exit code goes: [`EXIT_CODES`] gives each its
/// code and its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The command did what it was asked.
    Success,
    /// `Error::Input`.
    Input,
    /// `Error::Io`.
    Io,
    /// `Error::Corrupt`.
    Corrupt,
    /// `Error::TooLarge`.
    TooLarge,
    /// `Error::Other`.
    Other,
    /// A build stopped by Ctrl-C (SIGINT), its finished layers kept.
    Interrupted,
}

/// Every way a run ends, its exit code, and what the manual says of it, in the order the
/// manual lists them: the one place both come from (`Exit::code`, `retro man`).
pub const EXIT_CODES: [(Exit, i32, &str); 7] = [
    (
        Exit::Success,
        0,
        "Success; also when the reader of the output goes away (retro info t.retro | head -1).",
    ),
    (
        Exit::Io,
        1,
        "A file could not be read or written (a missing table, a directory, a full disk).",
    ),
    (
        Exit::Corrupt,
        1,
        "A table file is damaged, truncated, of another format version or foreign (not a retro table), or was written over while read.",
    ),
    (
        Exit::TooLarge,
        1,
        "A board too large for this machine's memory or disk.",
    ),
    (
        Exit::Other,
        1,
        "Anything else: another build or export holds the output's lock, a table of a game this retro does not have, a rank of an MPI job failed.",
    ),
    (
        Exit::Input,
        2,
        "Bad input: an argument, a board (one whose counts overflow 64 bits too), a position, an output path that is not a file, a batch with a bad line.",
    ),
    (
        Exit::Interrupted,
        130,
        "A build interrupted by Ctrl-C, SIGTERM or SIGHUP: the same command resumes it below the last finished layer.",
    ),
];

impl Exit {
    /// The exit code, from `EXIT_CODES`.
    pub fn code(self) -> i32 {
        EXIT_CODES
            .iter()
            .find(|(exit, _, _)| *exit == self)
            .map_or(1, |&(_, code, _)| code)
    }
}

/// Everything that can go wrong in `retro`.
#[derive(Debug)]
pub enum Error {
    /// The user's input (a board, a position, an argument, a path) is not acceptable.
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
    /// Bad input.
    Input,
    /// An I/O error of this kind.
    Io(std::io::ErrorKind),
    /// A damaged or foreign table.
    Corrupt,
    /// Too large for memory, disk or counts.
    TooLarge,
    /// Anything else.
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

    /// How the run ends with this error, for its exit code.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Input(_) => Exit::Input,
            Error::Io { .. } => Exit::Io,
            Error::Corrupt(_) => Exit::Corrupt,
            Error::TooLarge(_) => Exit::TooLarge,
            Error::Other(_) => Exit::Other,
        }
    }

    /// Whether this is bad input rather than a failure of the work.
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

    /// The same error with `more` after its message ("...; build a part of it: ..."), where
    /// there is more to say.
    pub fn then_say(self, more: Option<impl fmt::Display>) -> Self {
        let Some(more) = more else {
            return self;
        };
        match self {
            Error::Input(m) => Error::Input(format!("{m}; {more}")),
            Error::Io { context, source } => Error::Io { context, source },
            Error::Corrupt(m) => Error::Corrupt(format!("{m}; {more}")),
            Error::TooLarge(m) => Error::TooLarge(format!("{m}; {more}")),
            Error::Other(m) => Error::Other(format!("{m}; {more}")),
        }
    }

    /// The process exit code for this error (`EXIT_CODES`).
    pub fn exit_code(&self) -> i32 {
        self.exit().code()
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
