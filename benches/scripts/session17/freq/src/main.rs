//! Clock probe (session 17): a dependent chain of adds (one a cycle: its rate in G ops/s
//! is the clock in GHz) in scalar, ymm or zmm registers, or (`heavy`) throughput-bound
//! 512-bit byte permutes, GF2 affine ops and byte popcounts, on 1 thread and then on 16
//! at once; per thread, three runs, sorted. `tput` (session 18) is throughput-bound
//! scalar adds, eight independent chains: it prints `N` / seconds like the others but
//! runs 4 `N` adds (about 4.5 a cycle on this machine's cores). Run it pinned in pairs
//! (`FREQ_THREADS=1 taskset -c C`) to find CPUs that share a core.
//!
//! ```sh
//! cargo build --release && ./target/release/freq scalar ymm zmm heavy
//! ```
use std::arch::asm;
use std::time::Instant;

/// Adds a chain runs (the ops of `heavy` are in the same number of loop trips).
const N: u64 = 200_000_000;

/// `N` dependent adds (4 a loop trip): one a cycle, so the rate is the clock.
#[inline(never)]
fn scalar() -> u64 {
    let mut x = 1u64;
    unsafe {
        asm!("2:", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "dec {n}", "jnz 2b",
            x = inout(reg) x, one = in(reg) 3u64, n = inout(reg) N / 4 => _, options(nomem, nostack));
    }
    x
}

#[inline(never)]
fn ymm() -> u64 {
    unsafe {
        asm!("vpxor ymm0, ymm0, ymm0", "vpcmpeqd ymm1, ymm1, ymm1",
            "2:", "vpaddd ymm0, ymm0, ymm1", "vpaddd ymm0, ymm0, ymm1", "vpaddd ymm0, ymm0, ymm1", "vpaddd ymm0, ymm0, ymm1", "dec {n}", "jnz 2b",
            n = inout(reg) N / 4 => _, out("ymm0") _, out("ymm1") _, options(nomem, nostack));
    }
    0
}

#[inline(never)]
fn zmm() -> u64 {
    unsafe {
        asm!("vpxord zmm0, zmm0, zmm0", "vpternlogd zmm1, zmm1, zmm1, 0xff",
            "2:", "vpaddd zmm0, zmm0, zmm1", "vpaddd zmm0, zmm0, zmm1", "vpaddd zmm0, zmm0, zmm1", "vpaddd zmm0, zmm0, zmm1", "dec {n}", "jnz 2b",
            n = inout(reg) N / 4 => _, out("zmm0") _, out("zmm1") _, options(nomem, nostack));
    }
    0
}

/// The kernel's kind of work, throughput-bound: byte permutes, GF2 affine and byte
/// popcounts on four independent registers; `N` / 4 trips of 12 ops.
#[inline(never)]
fn heavy() -> u64 {
    unsafe {
        asm!("vpternlogd zmm4, zmm4, zmm4, 0xff", "vpxord zmm0, zmm0, zmm0", "vpxord zmm1, zmm1, zmm1", "vpxord zmm2, zmm2, zmm2", "vpxord zmm3, zmm3, zmm3",
            "2:",
            "vpermb zmm0, zmm4, zmm0", "vpermb zmm1, zmm4, zmm1", "vpermb zmm2, zmm4, zmm2", "vpermb zmm3, zmm4, zmm3",
            "vgf2p8affineqb zmm0, zmm0, zmm4, 0", "vgf2p8affineqb zmm1, zmm1, zmm4, 0", "vgf2p8affineqb zmm2, zmm2, zmm4, 0", "vgf2p8affineqb zmm3, zmm3, zmm4, 0",
            "vpopcntb zmm0, zmm0", "vpopcntb zmm1, zmm1", "vpopcntb zmm2, zmm2", "vpopcntb zmm3, zmm3",
            "dec {n}", "jnz 2b",
            n = inout(reg) N / 4 => _, out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _, out("zmm4") _, options(nomem, nostack));
    }
    0
}

/// Throughput-bound: eight independent add chains (two adds each a trip, `N` / 4 trips),
/// so one thread alone issues several adds a cycle and a thread sharing its core (SMT)
/// gets about half.
#[inline(never)]
fn tput() -> u64 {
    let mut x = [1u64; 8];
    unsafe {
        asm!("2:",
            "add {a}, {one}", "add {b}, {one}", "add {c}, {one}", "add {d}, {one}",
            "add {e}, {one}", "add {f}, {one}", "add {g}, {one}", "add {h}, {one}",
            "add {a}, {one}", "add {b}, {one}", "add {c}, {one}", "add {d}, {one}",
            "add {e}, {one}", "add {f}, {one}", "add {g}, {one}", "add {h}, {one}",
            "dec {n}", "jnz 2b",
            a = inout(reg) x[0], b = inout(reg) x[1], c = inout(reg) x[2], d = inout(reg) x[3],
            e = inout(reg) x[4], f = inout(reg) x[5], g = inout(reg) x[6], h = inout(reg) x[7],
            one = in(reg) 3u64, n = inout(reg) N / 4 => _, options(nomem, nostack));
    }
    x.iter().sum()
}

fn run(kind: &str) -> u64 {
    match kind {
        "scalar" => scalar(),
        "ymm" => ymm(),
        "zmm" => zmm(),
        "heavy" => heavy(),
        "tput" => tput(),
        _ => panic!("kind: scalar, ymm, zmm, heavy or tput"),
    }
}

/// Memory bandwidth (session 18): `threads` threads sum `mib` MiB of u64 three times,
/// each its own share (`split`) or each the whole array (as independent copies of a
/// job read one input); returns GB/s read, all threads together.
fn bandwidth(threads: usize, mib: usize, split: bool) -> f64 {
    let n = mib << 17;
    let data: Vec<u64> = (0..n as u64).collect();
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let part = if split { &data[t * n / threads..(t + 1) * n / threads] } else { &data[..] };
            s.spawn(move || {
                let mut sum = 0u64;
                for _ in 0..3 {
                    sum = part.iter().fold(sum, |a, &x| a.wrapping_add(x));
                }
                std::hint::black_box(sum)
            });
        }
    });
    let bytes = 3 * 8 * if split { n } else { n * threads };
    bytes as f64 / start.elapsed().as_secs_f64() / 1e9
}

fn main() {
    let kinds: Vec<String> = std::env::args().skip(1).collect();
    if kinds.first().map(String::as_str) == Some("bw") {
        // bw: 1 GiB split over 1 and 16 threads; 160 MiB (the engine's requests for the mix) read whole by each
        for &(t, mib, split) in &[(1, 1024, true), (16, 1024, true), (1, 160, false), (16, 160, false)] {
            let r: Vec<String> = (0..3).map(|_| format!("{:.1}", bandwidth(t, mib, split))).collect();
            println!("bw {} MiB {} x{t:<2}: GB/s {}", mib, if split { "split" } else { "each whole" }, r.join(" "));
        }
        return;
    }
    // FREQ_THREADS=1 runs one thread only (for pairs pinned with taskset)
    let threads: Vec<usize> = match std::env::var("FREQ_THREADS") {
        Ok(t) => t.split(',').map(|t| t.parse().expect("FREQ_THREADS: a list of counts")).collect(),
        Err(_) => vec![1, 16],
    };
    for kind in &kinds {
        for &t in &threads {
            let mut rates = Vec::new();
            for _rep in 0..3 {
                let start = Instant::now();
                let hs: Vec<_> = (0..t)
                    .map(|_| {
                        let k = kind.clone();
                        std::thread::spawn(move || {
                            let s = Instant::now();
                            std::hint::black_box(run(&k));
                            s.elapsed().as_secs_f64()
                        })
                    })
                    .collect();
                let per: Vec<f64> = hs.into_iter().map(|h| h.join().unwrap()).collect();
                let _ = start;
                let mean = per.iter().sum::<f64>() / per.len() as f64;
                rates.push(N as f64 / mean / 1e9);
            }
            rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!("{kind:>6} x{t:<2}: G ops/s per thread {:.2} {:.2} {:.2}", rates[0], rates[1], rates[2]);
        }
    }
}
