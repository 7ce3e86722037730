#!/usr/bin/env python3
"""Session 11: instruments the cycle engine (sim-core/src/engine.rs at 1d6fe18) and the runner with
timers: each SM's advance, the dispatcher's serial parts, the snapshots, the steps of `run`.

Run from the repository root on a clean tree; then `cargo bench -p banksim --bench runner --no-run`
and `PROBE=16 target/release/deps/runner-*` prints the breakdown of three engine runs on 16 threads
and writes each SM run's (round, ns) to /tmp/probe.txt. `git checkout .` undoes it."""
import sys
p='sim-core/src/engine.rs'
s=open(p).read()
def rep(old,new):
    global s
    assert s.count(old)==1, old
    s=s.replace(old,new)
rep("""    fn advance<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, more_blocks: bool) {
""","""    fn advance<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, more_blocks: bool) {
        let __t = std::time::Instant::now();
        self.advance_inner(ctx, more_blocks);
        let __ns = __t.elapsed().as_nanos() as u64;
        PROBE.lock().unwrap().push((ROUND.load(std::sync::atomic::Ordering::Relaxed), __ns));
    }
    fn advance_inner<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, more_blocks: bool) {
""")
rep("""impl Dispatch {
    /// One round; `false` if no SM waits for a block.
    fn round<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, sms: &mut [Sm], next: &mut usize) -> bool {
""","""pub static PROBE: std::sync::Mutex<Vec<(u32, u64)>> = std::sync::Mutex::new(Vec::new());
pub static ROUND: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
pub static SNAP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
pub static PRE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
pub static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
pub static PAR: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
fn __add(a: &std::sync::atomic::AtomicU64, t: std::time::Instant) { a.fetch_add(t.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed); }
impl Dispatch {
    /// One round; `false` if no SM waits for a block.
    fn round<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, sms: &mut [Sm], next: &mut usize) -> bool {
        ROUND.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let __t = std::time::Instant::now();
""")
rep("""    // No blocks left: every SM runs what it holds to the end.
""","""    ROUND.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    eprintln!("rounds {:?}", __t0.elapsed());
    // No blocks left: every SM runs what it holds to the end.
""")
rep("""    let timing = hw.timing.clone().ok_or_else(|| EngineError::NoTiming { hardware: hw.name.clone() })?;
""","""    let __t0 = std::time::Instant::now();
    let timing = hw.timing.clone().ok_or_else(|| EngineError::NoTiming { hardware: hw.name.clone() })?;
""")
rep("""    let mut dispatch = Dispatch {""","""    eprintln!("new+fill {:?}", __t0.elapsed());
    let mut dispatch = Dispatch {""")
rep("""    while next < blocks.len() {""","""    eprintln!("initial {:?}", __t0.elapsed());
    while next < blocks.len() {""")
rep("""    let mut report =
        EngineReport {""","""    eprintln!("drained {:?}", __t0.elapsed());
    let mut report =
        EngineReport {""")
rep("""    report.sms = sms.into_par_iter().map(|sm| sm.run.stats).collect();
""","""    report.sms = sms.into_par_iter().map(|sm| sm.run.stats).collect();
    eprintln!("end {:?}", __t0.elapsed());
    for (n, a) in [("snap", &SNAP), ("pre", &PRE), ("serial", &SERIAL), ("par", &PAR)] { eprintln!("{n} {:?}", std::time::Duration::from_nanos(a.swap(0, std::sync::atomic::Ordering::Relaxed))); }
""")
rep("""            match sm.speculated.take() {""","""            let __s = std::time::Instant::now();
            match sm.speculated.take() {""")
rep("""                None => sm.saved_timings = None,
            }
""","""                None => sm.saved_timings = None,
            }
            __add(&SNAP, __s);
""")
rep("""        sms.par_iter_mut().filter(|sm| sm.run.waiting_since.is_none()).for_each(|sm| {""","""        __add(&PRE, __t);
        let __p = std::time::Instant::now();
        sms.par_iter_mut().filter(|sm| sm.run.waiting_since.is_none()).for_each(|sm| {""")
rep("""        // check the speculation: a group stands if every SM run before it paused later
""","""        __add(&PAR, __p);
        let __t = std::time::Instant::now();
        // check the speculation: a group stands if every SM run before it paused later
""")
rep("""        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }""","""        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }
        __add(&SERIAL, __t);""")
open(p,'w').write(s)
p='banksim/benches/runner.rs'
s=open(p).read()
rep("""    if let Some(path) = &args.generate {""","""    if let Ok(t) = std::env::var("PROBE") {
        let path = std::env::temp_dir().join("probe-mix.bsim");
        write_mix(&path, args.blocks, &args.classes);
        let requests = engine_requests(&path);
        let p = pool(t.parse().unwrap());
        for _ in 0..3 {
            sim_core::engine::PROBE.lock().unwrap().clear();
            sim_core::engine::ROUND.store(0, std::sync::atomic::Ordering::Relaxed);
            let t0 = Instant::now();
            p.install(|| engine::run(&hw, &requests, &EngineOptions::default())).unwrap();
            eprintln!("wall {:?}", t0.elapsed());
        }
        let v = sim_core::engine::PROBE.lock().unwrap().clone();
        let s: String = v.iter().map(|(r, n)| format!("{r} {n}\\n")).collect();
        std::fs::write("/tmp/probe.txt", s).unwrap();
        return;
    }
    if let Some(path) = &args.generate {""")
open(p,'w').write(s)
