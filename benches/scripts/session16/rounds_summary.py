# Session 16: per parallel run of a TRACEF timeline, over its full rounds: wall time a round, the delay
# from the round's start to the first SM run, the time from the last SM run to the round's end, and the
# share of T x wall time spent in SM runs.
import sys, collections, statistics as st
runs=[]; cur=None
for line in open(sys.argv[1]):
    if line.startswith("run"):
        cur={"T":int(line.split()[1]),"items":[],"marks":[]}; runs.append(cur); continue
    a,b,c,d=map(int,line.split())
    (cur["marks"] if a>=1000000 else cur["items"]).append((a,b,c,d))
for r in runs:
    if r["T"]==1: continue
    rounds=collections.defaultdict(list)
    for a,b,c,d in r["items"]: rounds[a].append((b,c,d))
    W=F=TL=IM=B=0; n=0
    for m in r["marks"]:
        if m[0]!=1000001 or len(rounds[m[1]])<100: continue
        per=collections.defaultdict(list)
        for b,c,d in rounds[m[1]]: per[b].append((c,d))
        st_,en=m[2],m[3]; T=r["T"]
        firsts=[min(c for c,_ in v)-st_ for v in per.values()]
        tails=[en-max(d for _,d in v) for v in per.values()]
        busy=sum(d-c for v in per.values() for c,d in v)
        W+=en-st_; F+=min(firsts); TL+=min(tails); B+=busy; n+=1
        IM+= (en-st_)*T - busy
    print(f"T={r['T']} full rounds {n}: wall/round {W/n/1e3:.0f} us, min first start {F/n/1e3:.0f} us, min tail {TL/n/1e3:.0f} us, busy/(T*wall) {B/(W*r['T']):.3f}")
