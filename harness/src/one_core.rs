//! Holding a measurement to one core: the calling thread is pinned to one CPU, and every
//! thread it starts meanwhile (the engine's runtime, the replay's listing, the predicate
//! workers) inherits that CPU, as Linux gives a new thread its creator's affinity. A figure
//! "on one core" measured this way cannot spread over the others, as it would with only the
//! predicate workers limited to one.
#![allow(unsafe_code)] // libc: the CPU affinity calls that pin a measurement to one core.

/// The calling thread pinned to one CPU until dropped; then it may run where it could before.
pub struct OneCore {
    #[cfg(target_os = "linux")]
    before: libc::cpu_set_t,
}

#[cfg(target_os = "linux")]
impl OneCore {
    /// Pins the calling thread to the first CPU it may run on.
    pub fn pin() -> Result<OneCore, String> {
        let before = affinity()?;
        // SAFETY: `CPU_ISSET` reads a bit of a live, initialised set, below `CPU_SETSIZE`.
        let first = (0..libc::CPU_SETSIZE as usize)
            .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &before) })
            .ok_or("the thread may run on no CPU")?;
        // SAFETY: an all-zero `cpu_set_t` is the empty set.
        let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `first` is below `CPU_SETSIZE`; the set is a live local.
        unsafe { libc::CPU_SET(first, &mut one) };
        set_affinity(&one)?;
        Ok(OneCore { before })
    }
}

#[cfg(not(target_os = "linux"))]
impl OneCore {
    /// Pinning a thread is done on Linux only.
    pub fn pin() -> Result<OneCore, String> {
        Err("holding a measurement to one core needs Linux".into())
    }
}

#[cfg(target_os = "linux")]
impl Drop for OneCore {
    fn drop(&mut self) {
        // Nothing to report from a drop: at worst the thread stays on one CPU.
        let _ = set_affinity(&self.before);
    }
}

#[cfg(target_os = "linux")]
fn affinity() -> Result<libc::cpu_set_t, String> {
    // SAFETY: an all-zero `cpu_set_t` is the empty set; the call writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the pointer and size are those of a live local.
    let done = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
    if done != 0 {
        return Err(format!(
            "cannot read the thread's CPUs: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(set)
}

#[cfg(target_os = "linux")]
fn set_affinity(set: &libc::cpu_set_t) -> Result<(), String> {
    // SAFETY: pid 0 is the calling thread; the pointer and size are those of a live set.
    let done = unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), set) };
    if done != 0 {
        return Err(format!(
            "cannot pin the thread to one CPU: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// How many CPUs the calling thread may run on.
    fn cpus_allowed() -> Option<usize> {
        // SAFETY: `CPU_COUNT` reads a live, initialised set.
        affinity()
            .ok()
            .map(|set| unsafe { libc::CPU_COUNT(&set) } as usize)
    }

    /// Pinned, the thread and every thread it starts run on one CPU; dropped, the thread runs
    /// where it could before, and so do the threads it starts after.
    #[test]
    fn a_pinned_thread_and_its_children_run_on_one_cpu_until_dropped() {
        let before = cpus_allowed().expect("Linux reports a thread's CPUs");
        let child = || std::thread::spawn(cpus_allowed).join().unwrap();
        {
            let _pinned = OneCore::pin().unwrap();
            assert_eq!(cpus_allowed(), Some(1));
            assert_eq!(child(), Some(1), "a thread started while pinned");
        }
        assert_eq!(cpus_allowed(), Some(before));
        assert_eq!(child(), Some(before), "a thread started after");
    }
}
