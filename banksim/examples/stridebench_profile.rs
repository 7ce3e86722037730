//! Profiling aid: runs one stride of the stride sweep (reduced) on the h100 preset.
fn main() {
    let hw = configs::preset("h100").unwrap();
    let w = traces::gen::StrideBench::new(132 * 2, 256, 1024, 1, 0);
    let t = std::time::Instant::now();
    let r = sim_core::engine::run(&hw, &w, &Default::default()).unwrap();
    let n = sim_core::engine::Workload::len(&w);
    println!(
        "{} requests, {} cycles, {:.2?}, {:.2} M req/s",
        n,
        r.cycles,
        t.elapsed(),
        n as f64 / t.elapsed().as_secs_f64() / 1e6
    );
}
