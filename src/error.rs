//! One error type for the whole crate: a message that reads as a single line after
//! `error: `, and a kind that decides the exit code (documented in the README).

use std::fmt;

/// What went wrong, as far as the exit code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The user's input (a board, a position, an argument) is not acceptable: exit 2.
    Input,
    /// Anything else: I/O, a damaged table, not enough memory or disk: exit 1.
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

    pub fn exit_code(&self) -> i32 {
        match self.kind {
            Kind::Input => 2,
            Kind::Other => 1,
        }
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
    Error::other(format!("{}: {}", path.display(), err))
}
