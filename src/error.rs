//! One error type for the whole crate: a message that reads as a single line after
//! `error: `, and a kind that decides the exit code (documented in the README).

use std::fmt;

/// What went wrong, as far as the exit code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The user's input (a board, a position, an argument) is not acceptable: exit 2.
    Input,
    /// An operating-system I/O error of this kind (the message names the path): exit 1.
    Io(std::io::ErrorKind),
    /// Anything else: a damaged table, not enough memory or disk: exit 1.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn input(message: impl Into<String>) -> Self {
        Error {
            kind: Kind::Input,
            message: message.into(),
        }
    }

    pub fn other(message: impl Into<String>) -> Self {
        Error {
            kind: Kind::Other,
            message: message.into(),
        }
    }

    /// Prefix the message with where it happened ("reading foo.tbl: ...").
    pub fn context(mut self, what: impl fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// An I/O error with what was being done ("writing output", a path).
    pub fn io(what: impl fmt::Display, err: std::io::Error) -> Self {
        Error {
            kind: Kind::Io(err.kind()),
            message: format!("{what}: {err}"),
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self.kind {
            Kind::Input => 2,
            Kind::Io(_) | Kind::Other => 1,
        }
    }

    /// The reader of our output went away (`retro info t.retro | head -1`): not a failure
    /// of ours, so the command ends quietly, as Unix tools do.
    pub fn is_broken_pipe(&self) -> bool {
        self.kind == Kind::Io(std::io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

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
