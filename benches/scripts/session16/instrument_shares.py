# Session 16: the same timeline instrumentation as instrument.py, for the engine with run_sms (e390149 and later):
# run from the repository root; TRACEF=FILE makes engine::run append its rounds and SM runs to FILE.
p = 'sim-core/src/engine.rs'
s = open(p).read()
# (the module itrace, as instrument.py writes it: its text evaluated as the Python string it is there)
hdr = eval("'''" + open('benches/scripts/session16/instrument.py').read().split("hdr='''")[1].split("'''")[0] + "'''")
s = s.replace("\nstruct Ctx<", hdr + "\nstruct Ctx<", 1)
def rep(a, b):
    global s
    assert a in s, a[:60]
    s = s.replace(a, b, 1)
# (the SM runs' calls: `f(j, ..)` up to a4d133a, `f(..)` after)
j = "j, " if "cell.1 = f(j, cell.0);" in s else ""
rep(f"""                cell.1 = f({j}cell.0);""", f"""                let t = itrace::now();
                cell.1 = f({j}cell.0);
                itrace::item(t);""")
serial = ("        return run.iter().enumerate().map(|(j, &i)| f(j, &mut sms[i])).collect();" if j
          else "        return run.iter().map(|&i| f(&mut sms[i])).collect();")
rep(serial, f"""        return run
            .iter()
            .map(|&i| {{
                let t = itrace::now();
                let r = f({"0, " if j else ""}&mut sms[i]);
                itrace::item(t);
                r
            }})
            .collect();""")
rep("""    let (waits, free) = run_sms(""", """    let t0 = itrace::now();
    let (waits, free) = run_sms(""")
rep("""    let mut dispatch = Dispatch {""", """    itrace::mark(1000000, t0, itrace::now());
    let mut dispatch = Dispatch {""")
rep("""    // No blocks left: every SM runs what it holds to the end.
""", """    // No blocks left: every SM runs what it holds to the end.
    itrace::ROUND.store(999999, std::sync::atomic::Ordering::Relaxed);
    let t0 = itrace::now();
""")
rep("""        sm.advance(&ctx, false)
    });""", """        sm.advance(&ctx, false)
    });
    itrace::mark(1000000, t0, itrace::now());
    itrace::dump();""")
rep("""    fn round<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, sms: &mut [Sm], next: &mut usize) -> bool {
""", """    fn round<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, sms: &mut [Sm], next: &mut usize) -> bool {
        itrace::ROUND.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tr = itrace::now();
""")
rep("""        let results = run_sms(sms, """, """        itrace::mark(1000003, tr, itrace::now());
        let results = run_sms(sms, """)
rep("""        for (&sm, &(w, f)) in run.iter().zip(&results) {""", """        let tp = itrace::now();
        for (&sm, &(w, f)) in run.iter().zip(&results) {""")
rep("""        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }
        true""", """        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }
        itrace::mark(1000001, tr, tp);
        itrace::mark(1000002, tp, itrace::now());
        true""")
open(p, 'w').write(s)
