//! The engine's parallel step: a function run on a set of SMs on the current rayon
//! pool's threads, each thread first taking the SMs of its own share ([`run_sms`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Runs `f` on the SMs `run` (indices into `sms`, ascending), in parallel on the current
/// rayon pool's threads, and returns when all are done.
///
/// Each pool thread owns the SMs of one contiguous share of the SM indices and runs
/// those first, so that an SM tends to run on the same thread round after round, its
/// state in that core's caches; a thread done with its own takes, one SM at a time, the
/// others' not taken yet, so a slow or late thread holds up at most the SM it runs.
/// This thread wakes the others (one spawned task each) instead of a parallel
/// iterator's chain of splits stolen one after another, and the SMs' results come back
/// in one small array; that scales better than a parallel iterator over the SMs.
pub(super) fn run_sms<S, R, F>(sms: &mut [S], run: &[usize], f: F) -> Vec<R>
where
    S: Send,
    R: Send + Copy + Default,
    F: Fn(&mut S) -> R + Sync,
{
    let threads = rayon::current_num_threads();
    if threads == 1 || run.len() < 2 {
        return run.iter().map(|&i| f(&mut sms[i])).collect();
    }
    let n = sms.len();
    let owner = |sm: usize| sm * threads / n;
    // (each SM behind its own lock, with its result: taken once, by the thread whose
    // claim won)
    let mut cells: Vec<Mutex<(&mut S, R)>> = Vec::with_capacity(run.len());
    let mut want = run.iter().peekable();
    for (i, sm) in sms.iter_mut().enumerate() {
        if want.next_if_eq(&&i).is_some() {
            cells.push(Mutex::new((sm, R::default())));
        }
    }
    debug_assert!(want.peek().is_none(), "SM indices ascending and in range");
    // share k: cells[bounds[k]..bounds[k + 1]], claimed from the front through next[k]
    let bounds: Vec<usize> = (0..=threads).map(|k| run.partition_point(|&sm| owner(sm) < k)).collect();
    let next: Vec<AtomicUsize> = bounds[..threads].iter().map(|&b| AtomicUsize::new(b)).collect();
    let work = || {
        let me = rayon::current_thread_index().unwrap_or(0) % threads;
        for k in (0..threads).map(|d| (me + d) % threads) {
            loop {
                let j = next[k].fetch_add(1, Ordering::Relaxed);
                if j >= bounds[k + 1] {
                    break;
                }
                let mut cell = cells[j].lock().unwrap_or_else(|p| p.into_inner());
                cell.1 = f(cell.0);
            }
        }
    };
    rayon::in_place_scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| work());
        }
        work();
    });
    cells.into_iter().map(|c| c.into_inner().unwrap_or_else(|p| p.into_inner()).1).collect()
}
