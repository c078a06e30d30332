//! What is asked of a finished table: a position's value and best moves (`probe`), the
//! words and numbers they are said in (`text`), every position written out (`export`),
//! counts per layer and class (`stats`), what a table holds (`info`), a check of its
//! values against the rules (`verify`), and which positions play reaches (`reach`).

pub mod probe;
pub mod reach;
pub mod stats;

// Without the command line, only the best move's functions of `export` are used, and
// `text` not at all.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod export;
pub(crate) mod info;
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod text;
pub(crate) mod verify;
