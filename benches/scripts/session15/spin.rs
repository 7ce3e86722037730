// T threads each run one job; prints each T's per-thread rate against T = 1.
use std::time::Instant;
fn alu(n: u64) -> u64 {
    let (mut a, mut b, mut c, mut d) = (1u64, 2u64, 3u64, 4u64);
    for i in 0..n {
        a = a.wrapping_mul(6364136223846793005).wrapping_add(i);
        b = b.wrapping_mul(2862933555777941757).wrapping_add(a >> 7);
        c ^= b.rotate_left(13);
        d = d.wrapping_add(c ^ a);
    }
    a ^ b ^ c ^ d
}
fn chase(buf: &[u32], n: u64) -> u64 {
    let mask = buf.len() - 1;
    let (mut i, mut s) = (0usize, 0u64);
    for _ in 0..n {
        i = buf[i] as usize & mask;
        s = s.wrapping_add(i as u64);
    }
    s
}
fn stream(buf: &[u32], bytes: u64) -> u64 {
    let passes = (bytes / (buf.len() as u64 * 4)).max(1);
    let mut s = 0u64;
    for p in 0..passes {
        let mut acc = [0u32; 16];
        for c in buf.chunks_exact(16) {
            for k in 0..16 { acc[k] = acc[k].wrapping_add(c[k]); }
        }
        s = s.wrapping_add(acc.iter().map(|&x| x as u64).sum::<u64>() ^ p);
    }
    s
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let job = args[1].clone();
    let kib: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(0);
    let run = |t: usize| -> f64 {
        let start = std::sync::Barrier::new(t);
        let times: Vec<f64> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..t).map(|k| {
                let job = &job; let start = &start;
                s.spawn(move || {
                    let len = (kib * 256).next_power_of_two().max(1);
                    // one cycle through every slot (Sattolo), so the chase covers the buffer
                    let mut buf: Vec<u32> = (0..len as u32).collect();
                    let len = if job == "stream" { 0 } else { len };
                    let mut r = 0x9E3779B97F4A7C15u64 ^ k as u64;
                    for i in (1..len).rev() {
                        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
                        let j = (r % i as u64) as usize;
                        buf.swap(i, j);
                    }
                    start.wait();
                    let t0 = Instant::now();
                    let r = match job.as_str() { "alu" => alu(200_000_000), "stream" => stream(&buf, 4 << 30), _ => chase(&buf, 40_000_000) };
                    std::hint::black_box(r);
                    t0.elapsed().as_secs_f64()
                })
            }).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        if job == "stream" { eprint!("[{t} thr: {:.1} GB/s] ", t as f64 * 4.0 * 1.073741824 / (times.iter().sum::<f64>() / t as f64)); }
        times.iter().sum::<f64>() / t as f64
    };
    let one = run(1);
    print!("{job} {kib}KiB: 1 thread {:.3} s;", one);
    for t in [2, 4, 8, 16] {
        let x = run(t);
        print!(" {t}: {:.2}", one / x);
    }
    println!();
}
