//! The thread pools a call runs its parallel work in, rebuilt in a process forked from
//! the one that loaded the module (a fork keeps no worker threads).

use crate::*;

/// The process that loaded this module. rayon's global pool has its worker threads in that
/// process only: `fork` copies just the thread that calls it, so in a child the global
/// pool's workers do not exist and work handed to them would wait forever.
pub(crate) static LOADED_IN: OnceLock<u32> = OnceLock::new();

/// The pools of a process forked from the one that loaded the module, built on first use.
pub(crate) struct Forked {
    /// The process they were started in: a child of a child starts its own.
    pub(crate) pid: u32,
    /// For the work.
    pub(crate) work: Arc<rayon::ThreadPool>,
    /// For the table writer's packing, which runs on a thread of its own outside the
    /// work's pool (`progress::Progress::pool`): a pool apart, so it never waits on a worker
    /// that waits on it.
    pub(crate) writer: Arc<rayon::ThreadPool>,
}

pub(crate) static FORKED: Mutex<Option<Forked>> = Mutex::new(None);

/// In a process forked from the one that loaded the module (a `multiprocessing` worker
/// started with the `fork` method), its own pools, with as many threads as the global
/// pool has; None where rayon's global pool works.
pub(crate) fn forked_pools()
-> retro::Result<Option<(Arc<rayon::ThreadPool>, Arc<rayon::ThreadPool>)>> {
    let pid = std::process::id();
    if LOADED_IN.get().is_none_or(|&loaded| loaded == pid) {
        return Ok(None);
    }
    let mut slot = FORKED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(f) = slot.as_ref().filter(|f| f.pid == pid) {
        return Ok(Some((Arc::clone(&f.work), Arc::clone(&f.writer))));
    }
    let build = || {
        rayon::ThreadPoolBuilder::new()
            .build()
            .map(Arc::new)
            .map_err(|e| Error::other(format!("cannot start worker threads: {e}")))
    };
    let (work, writer) = (build()?, build()?);
    *slot = Some(Forked {
        pid,
        work: Arc::clone(&work),
        writer: Arc::clone(&writer),
    });
    Ok(Some((work, writer)))
}

/// Run `work`, and the parallel work in it, on rayon's global pool, or in a forked child
/// on the child's own (`forked_pools`).
pub(crate) fn parallel<T: Send>(work: impl FnOnce() -> T + Send) -> retro::Result<T> {
    Ok(match forked_pools()? {
        None => work(),
        Some((pool, _)) => pool.install(work),
    })
}

/// Positions per chunk of parallel work: as the sweep and export use.
pub(crate) const CHUNK: usize = 1 << 13;
