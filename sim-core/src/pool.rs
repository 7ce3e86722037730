//! The rayon pool the parallel parts (the cycle engine, chunked simulation of a trace)
//! run best on.

/// A rayon pool of `threads` threads (default: as rayon's, `RAYON_NUM_THREADS` or one
/// per CPU this process may use). A pool with one thread per CPU that the process may
/// run on pins each thread to its own CPU; a smaller pool is left to the operating
/// system, so that several processes on one machine do not pile onto the same CPUs.
///
/// Why pin: the engine runs its SMs in rounds of a few milliseconds, and a worker that
/// went idle between two rounds is woken by the next. On a virtual machine the kernel
/// often runs the woken thread on the same CPU as the thread that woke it, the two
/// taking turns at the scheduler's tick while another CPU idles; one thread pinned to
/// each CPU keeps every CPU busy, both for the cycle engine and for reading, decoding
/// and evaluating a trace in chunks.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    // (rayon's own default, worked out here: the pinning needs the count up front)
    let n = threads
        .or_else(|| std::env::var("RAYON_NUM_THREADS").ok()?.parse().ok().filter(|&n| n > 0))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut b = rayon::ThreadPoolBuilder::new().num_threads(n);
    let cpus = core_affinity::get_core_ids().unwrap_or_default();
    if n > 1 && n == cpus.len() {
        // (a thread that cannot be pinned runs where the OS puts it: slower, not wrong)
        b = b.start_handler(move |i| {
            core_affinity::set_for_current(cpus[i]);
        });
    }
    b.build()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use crate::pool::thread_pool;

    /// The CPUs the calling thread may run on, as the kernel lists them.
    fn allowed() -> String {
        let status = std::fs::read_to_string("/proc/thread-self/status").expect("/proc/thread-self/status");
        let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")).expect("Cpus_allowed_list");
        line["Cpus_allowed_list:".len()..].trim().to_string()
    }

    #[test]
    fn a_pool_of_every_cpu_pins_one_thread_to_each_and_a_smaller_one_does_not() {
        let cpus: Vec<String> =
            core_affinity::get_core_ids().expect("the CPU list").iter().map(|c| c.id.to_string()).collect();
        let all = allowed();
        let pool = thread_pool(Some(cpus.len())).expect("a pool");
        let mut seen: Vec<String> = pool.broadcast(|_| allowed());
        seen.sort();
        let mut want = cpus.clone();
        want.sort();
        if cpus.len() > 1 {
            assert_eq!(seen, want, "one thread on each CPU");
            let smaller = thread_pool(Some(cpus.len() - 1)).expect("a pool");
            assert!(smaller.broadcast(|_| allowed()).iter().all(|a| *a == all), "not pinned");
        } else {
            assert_eq!(seen, vec![all], "one CPU: nothing to pin");
        }
    }
}
