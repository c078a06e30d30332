//! `retro`: exact retrograde tables for two-player placement games.
//!
//! - `game`: the game abstraction and one file per game (ranking lives there);
//! - `rank`: binomial tables and the colex combinatorial number system;
//! - `sweep`: the layer sweep, serial and parallel, generic over the game;
//! - `table`: the file format (header, writer, reader);
//! - `cli`: one file per subcommand.

pub mod bench;
pub mod cli;
pub mod distributed;
pub mod error;
pub mod game;
pub mod job;
pub mod probe;
pub mod random;
pub mod rank;
pub mod sweep;
pub mod table;
pub mod testing;
pub mod value;
pub mod verify;

pub use error::{Error, Result};
