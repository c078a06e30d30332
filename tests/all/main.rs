//! The integration tests, one module per file, linked into one test binary: each binary
//! links the whole crate, so one of them links once instead of two dozen times
//! (docs/testing.md). `tests/mpi.rs` stays a binary of its own, built with the `mpi`
//! feature only, its tests each a job under `mpirun`.
//!
//! One file's tests: `cargo test --profile ci --test all cli::`.

mod common;
mod support {
    pub mod browser;
    pub mod server;
}

mod bench;
mod board_bounds;
mod brute_selfcheck;
mod build;
mod cli;
mod connect;
mod connect_cli;
mod damaged;
mod diff;
mod docs_lists;
mod engine;
mod export;
mod fixpoint;
mod golden;
mod hostile;
mod input;
mod mnk;
mod morris;
mod move_lists;
mod moves;
mod moving;
mod nothing_lost;
mod plan_memory;
mod play;
mod query;
mod quixo;
mod reader_regressions;
mod readme;
mod serve;
mod stats;
mod symmetry;
mod teeko;
mod verify;
