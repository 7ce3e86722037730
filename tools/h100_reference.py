#!/usr/bin/env python3
"""Plain-Python reference of the H100 shared-memory wavefront rule (docs/h100-rules.md),
written the way such a script is usually written: csv module, dicts, lists.

    python3 tools/h100_reference.py TRACE.csv

reads a banksim text trace (block,thread,step,op,addr,bytes[,gap,dep[,wait]]), groups
the records into warp requests of 32 lanes (block, thread // 32, step), and prints the
totals by op in the layout of `banksim run`, then its own speed:

- 32 banks of 4 bytes; a request is served in phases of 128 bytes of lanes: 32 lanes for
  accesses of up to 4 bytes, 16 for 8 bytes, 8 for 16 bytes;
- 8- and 16-byte loads whose lanes pair up over the whole warp (every active lane reads
  what lane l^1 reads, or every active lane reads what lane l^2 reads; an inactive
  partner pairs with anything) are served in phases of twice the lanes;
- a phase costs its busiest bank's number of distinct words (loads, stores, `red`) or
  of lane accesses (`atom`, returning atomics serialize);
- wavefronts = sum over phases with an active lane; ideal = those phases;
  conflicts = max(0, wavefronts - ideal) per request.

Barriers and global accesses (`bar`, `gld`, `gst`) are skipped. No dependency beyond
the standard library; `tools/compare.py` runs it against banksim.
"""

import argparse
import csv
import time

BANKS = 32
BANK_BYTES = 4
WARP = 32
PHASE_LANES = {1: 32, 2: 32, 4: 32, 8: 16, 16: 8}
OPS = ["ld", "st", "atom", "red"]


def read_requests(path):
    """{(block, warp, step): [op, bytes, {lane: addr}]} from a text trace."""
    requests = {}
    with open(path, newline="") as f:
        rows = csv.reader(line for line in f if not line.startswith("#"))
        next(rows)  # header
        for row in rows:
            block, thread, step, op = int(row[0]), int(row[1]), int(row[2]), row[3].strip()
            if op in ("bar", "gld", "gst"):
                continue
            addr = row[4].strip()
            addr = int(addr, 16) if addr.lower().startswith("0x") else int(addr)
            key = (block, thread // WARP, step)
            req = requests.get(key)
            if req is None:
                req = requests[key] = [op, int(row[5]), {}]
            req[2][thread % WARP] = addr
    return requests


def pairs_merge(lanes):
    for mask in (1, 2):
        if all(lanes.get(lane ^ mask, addr) == addr for lane, addr in lanes.items()):
            return True
    return False


def wavefronts(op, nbytes, lanes):
    """(wavefronts, ideal) of one warp request; `lanes` maps lane -> byte address."""
    phase = PHASE_LANES[nbytes]
    if op == "ld" and nbytes in (8, 16) and pairs_merge(lanes):
        phase = min(2 * phase, WARP)
    phases = {}
    for lane, addr in lanes.items():
        phases.setdefault(lane // phase, []).append(addr)
    total = 0
    for addrs in phases.values():
        banks = {}
        for addr in addrs:
            for word in range(addr // BANK_BYTES, (addr + nbytes - 1) // BANK_BYTES + 1):
                banks.setdefault(word % BANKS, []).append(word)
        if op == "atom":
            total += max(len(words) for words in banks.values())
        else:
            total += max(len(set(words)) for words in banks.values())
    return total, len(phases)


def simulate(requests):
    totals = {op: [0, 0, 0, 0, 0] for op in OPS}  # requests, lanes, wavefronts, ideal, conflicts
    for (op, nbytes, lanes) in requests.values():
        w, ideal = wavefronts(op, nbytes, lanes)
        t = totals[op]
        t[0] += 1
        t[1] += len(lanes)
        t[2] += w
        t[3] += ideal
        t[4] += max(0, w - ideal)
    return totals


def timed_simulate(path):
    """(totals, seconds in all, seconds of the wavefront rule alone) of a text trace."""
    start = time.perf_counter()
    requests = read_requests(path)
    read = time.perf_counter()
    totals = simulate(requests)
    done = time.perf_counter()
    return totals, done - start, done - read


def trace_parser(description):
    """A command line whose one positional argument, `trace`, is a text trace."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("trace", metavar="TRACE.csv", help="a banksim text trace")
    return parser


def main():
    parser = trace_parser(
        "Simulate a banksim text trace with a plain-Python model of the H100 "
        "shared-memory rule (32 banks of 4 bytes, warp 32) and print the totals by op, "
        "as `banksim run --config h100` does."
    )
    args = parser.parse_args()
    totals, secs, model = timed_simulate(args.trace)
    print(f"{'op':<6}{'requests':>10}{'lanes':>10}{'wavefronts':>12}{'ideal':>10}{'conflicts':>11}")
    all_ = [0] * 5
    for op in OPS:
        t = totals[op]
        if t[0]:
            print(f"{op:<6}{t[0]:>10}{t[1]:>10}{t[2]:>12}{t[3]:>10}{t[4]:>11}")
        all_ = [a + b for a, b in zip(all_, t)]
    print(f"{'total':<6}{all_[0]:>10}{all_[1]:>10}{all_[2]:>12}{all_[3]:>10}{all_[4]:>11}")
    print(
        f"{all_[0]} warp requests in {secs:.2f} s: {all_[0] / secs:,.0f} warp-requests/s "
        f"(wavefront rule alone: {model:.2f} s, {all_[0] / model:,.0f} warp-requests/s)"
    )


if __name__ == "__main__":
    main()
