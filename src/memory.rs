//! What the machine has and what the process took: available memory and free disk,
//! checked before a solve or a build allocates; the peak resident memory a report gives;
//! byte counts written for people.

use std::path::Path;

/// Ask the processor to bring `value`'s cache line in ahead of its use (a hint; nothing
/// where this code knows no prefetch for the processor).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p: *const T = value;
        // SAFETY: a prefetch reads no value and never faults; `p` comes from a reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Ask the kernel to back `memory` with 2 MiB pages where it can (Linux's transparent huge
/// pages, where they are left to the program's choice): the fixpoint's words and marks are
/// read and written at random over gigabytes, where 4 KiB pages miss the TLB on nearly every
/// access. Called on memory not yet touched, so that its first faults bring in huge pages.
/// Only the 2 MiB-aligned interior is advised; a hint, which changes no value.
pub fn huge_pages<T>(memory: &mut [std::mem::MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = memory.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(memory);
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: [first, last) lies inside `memory`, which the caller owns; the advice
            // changes how its pages are backed, not what they hold.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

/// `len` atomic words, all zero, in memory advised for huge pages (`huge_pages`) before it
/// is touched, and filled in parallel.
pub fn zeroed_atomics<A: Send + Sync>(len: usize, zero: impl Fn() -> A + Sync + Send) -> Box<[A]> {
    use rayon::prelude::*;
    let mut words: Vec<A> = Vec::with_capacity(len);
    huge_pages(words.spare_capacity_mut());
    words.par_extend((0..len).into_par_iter().map(|_| zero()));
    words.into_boxed_slice()
}

/// MemAvailable from /proc/meminfo, in bytes; None where that is not readable.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A byte count for humans: "458 B", "6.4 KiB", "2.2 GiB".
pub fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Free bytes for an unprivileged user on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    let st = rustix::fs::statvfs(dir).ok()?;
    Some(st.f_bavail.saturating_mul(st.f_frsize))
}

/// Peak resident memory of this process, from /proc/self/status.
pub fn peak_rss() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
