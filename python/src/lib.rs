//! `retro._retro`: the Rust half of the Python package `retro` (`python/retro/` is the
//! other half, which callers import). Every answer comes from the same library functions
//! the command line calls (`probe::Prober::query_json` for `query --json`,
//! `answers::info::info_json` for `info --json`, `build::build`, `build::solve`), so the two cannot
//! drift apart. Long work releases the GIL; nothing here panics on what a caller passes.
//!
//! `errors.rs` turns retro's errors into Python exceptions; `pools.rs` keeps the thread
//! pools (rebuilt after a fork); `columns.rs` the buffers `query_many` and exports fill;
//! `game_probe.rs` what the table object asks of its game; `table.rs` the table object;
//! `jobs.rs` builds and solves. This file registers them as the module `retro._retro`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, mpsc};
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyIndexError, PyOSError, PyPermissionError, PyRuntimeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList, PyString};
use rayon::prelude::*;

use retro::answers::probe::Prober;
use retro::build::BuildOptions;
use retro::error::{Error, Kind};
use retro::game::{Builtin, Outcome, Registered, Registry, Visitor};
use retro::{Driver, Progress};

mod columns;
mod errors;
mod game_probe;
mod jobs;
mod pools;
mod table;

use columns::*;
use errors::*;
use game_probe::*;
use jobs::*;
use pools::*;
use table::*;

/// MemAvailable of this machine in bytes (what the command line's memory checks compare
/// with), None where it cannot be read.
#[pyfunction]
fn available_memory() -> Option<u64> {
    retro::available_memory()
}

/// The games this retro has.
#[pyfunction]
fn games() -> Vec<&'static str> {
    Builtin::names()
}

#[pymodule]
fn _retro(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let _ = LOADED_IN.set(std::process::id());
    m.add("TableError", m.py().get_type::<TableError>())?;
    m.add_class::<RawTable>()?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(available_memory, m)?)?;
    Ok(())
}
