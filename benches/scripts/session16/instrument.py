import sys
p='sim-core/src/engine.rs'
s=open(p).read()
hdr='''
pub mod itrace {
    use std::sync::{Mutex, OnceLock, atomic::{AtomicU32, Ordering}};
    use std::time::Instant;
    pub static LOG: Mutex<Vec<(u32, u32, u64, u64)>> = Mutex::new(Vec::new());
    pub static ROUND: AtomicU32 = AtomicU32::new(0);
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    pub fn now() -> u64 { EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64 }
    pub fn on() -> bool { static ON: OnceLock<bool> = OnceLock::new(); *ON.get_or_init(|| std::env::var_os("TRACEF").is_some()) }
    pub fn item(start: u64) { if on() { let e = now(); LOG.lock().unwrap().push((ROUND.load(Ordering::Relaxed), rayon::current_thread_index().unwrap_or(999) as u32, start, e)); } }
    pub fn mark(kind: u32, start: u64, end: u64) { if on() { LOG.lock().unwrap().push((kind, ROUND.load(Ordering::Relaxed), start, end)); } }
    pub fn dump() {
        if !on() { return; }
        let l = std::mem::take(&mut *LOG.lock().unwrap());
        ROUND.store(0, Ordering::Relaxed);
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).create(true).open(std::env::var("TRACEF").unwrap()).unwrap();
        let mut s = format!("run {}\\n", rayon::current_num_threads());
        for (a, b, c, d) in l { s += &format!("{a} {b} {c} {d}\\n"); }
        f.write_all(s.as_bytes()).unwrap();
    }
}
'''
s=s.replace("\nstruct Ctx<", hdr+"\nstruct Ctx<",1)
import re
# initial
old=re.search(r"    sms\.par_iter_mut\(\)(\.with_max_len\(1\))?\.for_each\(\|sm\| sm\.advance\(&ctx, next < blocks\.len\(\)\)\);", s).group(0)
ml = ".with_max_len(1)" if "with_max_len" in old else ""
s=s.replace(old, f"""    let t0 = itrace::now();
    sms.par_iter_mut(){ml}.for_each(|sm| {{ let t = itrace::now(); sm.advance(&ctx, next < blocks.len()); itrace::item(t); }});
    itrace::mark(1000000, t0, itrace::now());""")
old=re.search(r"    sms\.par_iter_mut\(\)(\.with_max_len\(1\))?\.for_each\(\|sm\| \{\n        sm\.run\.waiting_since = None;\n        sm\.advance\(&ctx, false\)\n    \}\);", s).group(0)
s=s.replace(old, f"""    itrace::ROUND.store(999999, std::sync::atomic::Ordering::Relaxed);
    let t0 = itrace::now();
    sms.par_iter_mut(){ml}.for_each(|sm| {{
        sm.run.waiting_since = None;
        let t = itrace::now();
        sm.advance(&ctx, false);
        itrace::item(t);
    }});
    itrace::mark(1000000, t0, itrace::now());
    itrace::dump();""")
s=s.replace("""    fn round<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, sms: &mut [Sm], next: &mut usize) -> bool {
""","""    fn round<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, sms: &mut [Sm], next: &mut usize) -> bool {
        itrace::ROUND.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tr = itrace::now();
""")
s=s.replace("""            sm.advance(ctx, true)
        });""","""            let t = itrace::now();
            sm.advance(ctx, true);
            itrace::item(t);
        });
        let tp = itrace::now();""")
s=s.replace("""        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }
        true""","""        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }
        itrace::mark(1000001, tr, tp);
        itrace::mark(1000002, tp, itrace::now());
        true""")
open(p,'w').write(s)
