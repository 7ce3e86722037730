#!/usr/bin/env python3
"""Speed of banksim.simulate on numpy arrays, in warp requests per second.

Each pattern is an array of (requests, warp) byte addresses built in advance; the time
is that of banksim.simulate alone (checks, the bank model and the result arrays), the
best of --reps runs, by the wall clock and by the process's CPU time (the same on an
idle core; on a machine shared with other work the CPU time is the steadier figure).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

# (run as `python python/bench.py`, this folder comes first on the path, and its
# `banksim/` is the package's source without the compiled module: use the installed one)
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import banksim  # noqa: E402

EXAMPLES = """\
examples:
  python python/bench.py                              # every pattern, 1 M requests, h100
  taskset -c 0 python python/bench.py --reps 5        # on one core, as docs/performance.md
  python python/bench.py --pattern random --preset cdna3 --requests 4000000
"""


def patterns(requests: int, warp: int, rng: np.random.Generator) -> dict[str, tuple[np.ndarray, int]]:
    """Name -> (addresses, bytes). Addresses stay inside 48 KiB (every preset's shared memory)."""
    lane = np.arange(warp, dtype=np.int64)
    row = np.arange(requests, dtype=np.int64)[:, None]
    out = {
        # consecutive words, a new base per request
        "stride-1": ((row % 256) * warp * 4 + lane * 4, 4),
        # column reads of a 32x32 float tile: the 32-way conflict of the demo
        "transpose": ((row % 32) * 4 + lane * 128, 4),
        # random words of a 16 KiB array
        "random": (rng.integers(0, 4096, size=(requests, warp), dtype=np.int64) * 4, 4),
        # 16-byte loads of a tile (ldmatrix-shaped: 8 lanes per 128-byte row)
        "vec16": ((row % 64) * 512 + (lane // 8) * 128 + (lane % 8) * 16, 16),
    }
    masked = rng.integers(0, 4096, size=(requests, warp), dtype=np.int64) * 4
    masked[:, 1::2] = -1  # every other lane inactive
    out["masked-random"] = (masked, 4)
    return {k: (np.ascontiguousarray(np.broadcast_to(a, (requests, warp))), b) for k, (a, b) in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--requests", type=int, default=1_000_000, help="warp requests per array (default 1000000)")
    ap.add_argument("--reps", type=int, default=3, help="runs per pattern; the best is printed (default 3)")
    ap.add_argument("--preset", default="h100", help="preset name or RON config file (default h100)")
    ap.add_argument(
        "--pattern",
        action="append",
        help="a pattern to time (repeatable; default all): stride-1, transpose, random, vec16, masked-random",
    )
    args = ap.parse_args()
    if args.requests < 1 or args.reps < 1:
        ap.error("--requests and --reps must be at least 1")
    hw = banksim.Hardware(args.preset)
    all_patterns = patterns(args.requests, hw.warp, np.random.default_rng(1))
    chosen = args.pattern or list(all_patterns)
    unknown = [p for p in chosen if p not in all_patterns]
    if unknown:
        ap.error(f"unknown pattern {unknown[0]!r}: known are {', '.join(all_patterns)}")
    print(f"{hw.name}, {args.requests} requests of {hw.warp} lanes, best of {args.reps}")
    print(f"{'pattern':<14} {'M requests/s (wall)':>20} {'M requests/s (CPU)':>19} {'wavefronts/request':>19}")
    for name in chosen:
        addrs, width = all_patterns[name]
        wall = cpu = float("inf")
        for _ in range(args.reps):
            w0, c0 = time.perf_counter(), time.process_time()
            out = banksim.simulate(addrs, bytes=width, preset=hw)
            wall = min(wall, time.perf_counter() - w0)
            cpu = min(cpu, time.process_time() - c0)
        n = args.requests / 1e6
        print(f"{name:<14} {n / wall:>20.1f} {n / max(cpu, 1e-9):>19.1f} {out.wavefronts.mean():>19.2f}")


if __name__ == "__main__":
    main()
