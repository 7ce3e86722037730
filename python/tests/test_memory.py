"""banksim.run in a loop keeps the process's memory flat: a call holds nothing once it
returns (no list of inputs, no cache keyed on the call), as a notebook that calls it
100 000 times needs."""

from __future__ import annotations

import resource
import sys

import banksim


def peak_rss_mib() -> float:
    """The process's peak resident memory, MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def test_100000_runs_keep_memory_flat(tmp_path):
    trace = tmp_path / "small.csv"
    rows = ["block,thread,step,op,addr,bytes"]
    rows += [f"0,{t},0,ld,{8 * t},4" for t in range(32)]  # a 2-way conflict
    trace.write_text("\n".join(rows) + "\n")
    # warm-up: pandas, numpy and the allocator reach their steady state
    for _ in range(5_000):
        banksim.run(trace)
    before = peak_rss_mib()
    for _ in range(100_000):
        df = banksim.run(trace)
    after = peak_rss_mib()
    assert len(df) == 1 and df["wavefronts"][0] == 2
    # each call used to leave about 100 bytes behind (10 MB over the loop)
    assert after - before < 4.0, f"peak memory grew {after - before:.1f} MiB over 100 000 calls ({before:.1f} -> {after:.1f})"
