#!/usr/bin/env python3
"""Compares banksim with the plain-Python reference (tools/h100_reference.py) on one
trace: same totals, and how much faster banksim is.

    cargo build --release -p banksim
    cargo bench -p banksim-pipeline --bench runner -- --generate /tmp/mix.bsim --blocks 1024
    target/release/banksim convert /tmp/mix.bsim /tmp/mix.csv
    python3 tools/compare.py /tmp/mix.csv

(1024 blocks: 502 400 warp requests, a 310 MB CSV, about 25 s of Python. On a small
trace `banksim run` takes a few milliseconds, most of it process start, so the ratio
then measures the start, not the simulation. docs/performance.md has the figure.)

Times `banksim run` (the whole command: start, read, group, simulate, print) on the CSV
and on its binary conversion (best of 3 runs each), and the Python script on the CSV
(one run, in this process). Exits with status 1 if the totals differ.
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h100_reference  # noqa: E402


def banksim_run(banksim, trace):
    best, out = None, ""
    for _ in range(3):
        start = time.perf_counter()
        out = subprocess.run([banksim, "run", "--config", "h100", trace], check=True, capture_output=True, text=True).stdout
        secs = time.perf_counter() - start
        best = secs if best is None else min(best, secs)
    total = next(line.split() for line in out.splitlines() if line.startswith("total"))
    return best, [int(x) for x in total[1:6]]


def main():
    parser = h100_reference.trace_parser(
        "Run banksim and the plain-Python H100 reference on one text trace; "
        "check that their totals agree (exit status 1 if not) and print both speeds. "
        "The trace is also converted to TRACE.bsim beside it and run in that form."
    )
    parser.add_argument(
        "--banksim",
        metavar="PATH",
        default="target/release/banksim",
        help="the banksim binary (default: %(default)s)",
    )
    args = parser.parse_args()
    banksim = args.banksim
    csv_path = args.trace
    bin_path = os.path.splitext(csv_path)[0] + ".bsim"
    subprocess.run([banksim, "convert", csv_path, bin_path], check=True, capture_output=True)

    t_csv, totals_csv = banksim_run(banksim, csv_path)
    t_bin, totals_bin = banksim_run(banksim, bin_path)

    totals, t_py, t_py_model = h100_reference.timed_simulate(csv_path)
    py = [sum(t[i] for t in totals.values()) for i in range(5)]

    n = py[0]
    print(f"trace {csv_path}: {n} warp requests (warp 32, h100); totals requests, lanes, wavefronts, ideal, conflicts")
    print(f"  python reference     {py}")
    print(f"  banksim run (csv)    {totals_csv}")
    print(f"  banksim run (binary) {totals_bin}")
    print(f"python reference, whole script      {t_py:8.2f} s  {n / t_py:14,.0f} warp-requests/s")
    print(f"python reference, wavefront rule    {t_py_model:8.2f} s  {n / t_py_model:14,.0f} warp-requests/s")
    print(f"banksim run on the csv              {t_csv:8.3f} s  {n / t_csv:14,.0f} warp-requests/s   {t_py / t_csv:8.0f}x faster")
    print(f"banksim run on the binary trace     {t_bin:8.3f} s  {n / t_bin:14,.0f} warp-requests/s   {t_py / t_bin:8.0f}x faster")
    if not (py == totals_csv == totals_bin):
        print("MISMATCH: the totals differ")
        sys.exit(1)
    print("totals agree")


if __name__ == "__main__":
    main()
