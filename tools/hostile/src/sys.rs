//! The tool's only calls into the C library: the descriptor limit and the
//! kernel's clock tick.

use std::io;

/// Raises this process's soft limit on open descriptors to its hard limit
/// (an attack holds thousands of sockets); returns the limit before and
/// after.
#[allow(unsafe_code)]
pub fn raise_nofile() -> io::Result<(u64, u64)> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we own and pass by pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let before = lim.rlim_cur;
    // An unlimited hard limit is not a number the kernel takes for
    // descriptors (it stops at fs.nr_open): ask for a million.
    let wanted = if lim.rlim_max == libc::RLIM_INFINITY { 1 << 20 } else { lim.rlim_max };
    if wanted > lim.rlim_cur {
        let raised = libc::rlimit { rlim_cur: wanted, rlim_max: lim.rlim_max };
        // SAFETY: setrlimit reads the struct we own.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
            return Err(io::Error::last_os_error());
        }
        lim.rlim_cur = wanted;
    }
    Ok((before, lim.rlim_cur))
}

/// Clock ticks per second, the unit of CPU times in `/proc/PID/stat`.
#[allow(unsafe_code)]
pub fn clock_ticks() -> u64 {
    // SAFETY: sysconf reads a constant of the running system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    // 100 is USER_HZ on every Linux architecture in use.
    if ticks > 0 { ticks as u64 } else { 100 }
}
