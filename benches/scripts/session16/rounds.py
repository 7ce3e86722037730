# Session 16: the timeline a TRACEF run writes (instrument.py, instrument_shares.py), per run: wall time,
# SM runs ("items") and their total time, the mean SM run against the first 1-thread run, and the share of
# T x wall time spent in SM runs. With a second argument: each round of each parallel run in detail.
import sys, collections
runs=[]; cur=None
for line in open(sys.argv[1]):
    if line.startswith("run"):
        cur={"T":int(line.split()[1]),"items":[],"marks":[]}; runs.append(cur); continue
    a,b,c,d=map(int,line.split())
    if a>=1000000: cur["marks"].append((a,b,c,d))
    else: cur["items"].append((a,b,c,d))
base=None
for r in runs:
    T=r["T"]; it=r["items"]; mk=r["marks"]
    t_start=min(m[2] for m in mk); t_end=max(m[3] for m in mk)
    wall=t_end-t_start
    busy=sum(d-c for _,_,c,d in it)
    par=[m for m in mk if m[0] in (1000000,1000001)]
    parwall=sum(m[3]-m[2] for m in par)
    serial=sum(m[3]-m[2] for m in mk if m[0]==1000002)
    n=len(it)
    if n == 0: continue
    mean=busy/n
    # per parallel phase: start delay per thread and tail idle
    byround=collections.defaultdict(list)
    for a,b,c,d in it: byround[a].append((b,c,d))
    startdelay=0; tailidle=0; cnt=0; maxitems=[]
    for m in par:
        items=byround.get(m[1] if m[0]==1000001 else (999999 if m[1]==999999 else 0),[])
    if base is None and T==1: base=mean
    print(f"T={T:2d} wall {wall/1e6:6.2f} ms  items {n} busy {busy/1e6:7.2f} ms  mean item {mean/1e3:5.1f} us (x{mean/base if base else 0:.2f} of 1T)  par-phases {parwall/1e6:6.2f} ms serial-check {serial/1e6:5.2f} ms  sched-eff busy/(T*wall) {busy/(T*wall):.3f}")
    if len(sys.argv)>2 and T>1:
        # per-round detail for the last run of this T
        rounds=collections.defaultdict(list)
        for a,b,c,d in it: rounds[a].append((b,c,d))
        for m in mk:
            if m[0]==1000001:
                rd=m[1]; its=rounds[rd]; st=m[2]; en=m[3]
                per=collections.defaultdict(list)
                for b,c,d in its: per[b].append((c,d))
                firsts=sorted((min(c for c,_ in v)-st)/1e3 for v in per.values())
                lasts=sorted((en-max(d for _,d in v))/1e3 for v in per.values())
                cnts=sorted(len(v) for v in per.values())
                print(f"  round {rd}: wall {(en-st)/1e3:.0f} us, items {len(its)}, threads {len(per)}, per-thread counts {cnts}, first start us {[int(x) for x in firsts]}, tail idle us {[int(x) for x in lasts]}")
