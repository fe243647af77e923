//! Where the server and the client run: pinned (the server on CPU 0, the client on CPU 1, set
//! with `sched_setaffinity`, which `taskset` uses) or unpinned (both anywhere).

use std::io;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Placement {
    Pinned,
    Unpinned,
}

impl Placement {
    pub fn label(self) -> &'static str {
        match self {
            Placement::Pinned => "pinned (server on CPU 0, client on CPU 1)",
            Placement::Unpinned => "unpinned",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Placement::Pinned => "pinned",
            Placement::Unpinned => "unpinned",
        }
    }

    /// The CPUs a server spawned now gets (a bit per CPU).
    pub fn server_cpus(self, all: u64) -> u64 {
        match self {
            Placement::Pinned => 1 << 0,
            Placement::Unpinned => all,
        }
    }

    /// Moves every thread of the harness to the client's CPUs.
    pub fn apply_to_client(self, all: u64) -> io::Result<()> {
        let cpus = match self {
            Placement::Pinned => 1 << 1,
            Placement::Unpinned => all,
        };
        for task in std::fs::read_dir("/proc/self/task")? {
            let tid: libc::pid_t = task?.file_name().to_string_lossy().parse().map_err(io::Error::other)?;
            set_affinity(tid, cpus)?;
        }
        Ok(())
    }
}

/// Every CPU this process may run on now, as a mask (the first 64).
pub fn all_cpus() -> io::Result<u64> {
    // SAFETY: `set` is a plain bit set the call fills in; its size is passed with it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((0..64).filter(|&cpu| libc::CPU_ISSET(cpu, &set)).fold(0, |mask, cpu| mask | 1 << cpu))
    }
}

/// Restricts thread `tid` (0: the calling one) to the CPUs in `mask`. Async-signal-safe, so a
/// child may call it between `fork` and `exec`.
pub fn set_affinity(tid: libc::pid_t, mask: u64) -> io::Result<()> {
    // SAFETY: as above.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for cpu in (0..64).filter(|cpu| mask & 1 << cpu != 0) {
            libc::CPU_SET(cpu, &mut set);
        }
        if libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
