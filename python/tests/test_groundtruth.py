"""banksim.simulate against the H100's Nsight Compute counts (fixtures/h100/), and the
same probe kernels through banksim.run and the `banksim` command, request by request."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

import banksim
from conftest import H100, patterns, probe_trace_csv, run_cli

GROUND_TRUTH = [
    ("patterns.txt", "ncu_counts.csv", 215),
    ("patterns_extra.txt", "ncu_counts_extra.csv", 158),
    ("patterns_extra2.txt", "ncu_counts_extra2.csv", 73),
]


def totals(out: banksim.Outcomes) -> tuple[int, int]:
    return int(out.wavefronts.sum()), int(out.conflicts.sum())


@pytest.mark.parametrize("pattern_file,counts_file,expected", GROUND_TRUTH)
def test_simulate_reproduces_every_measured_pattern(pattern_file, counts_file, expected):
    pats = patterns(pattern_file)
    with open(H100 / counts_file) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(pats) == expected
    hw = banksim.Hardware("h100")
    failures = []
    for p, row in zip(pats, rows):
        assert row["pattern"] == p.name, "counts and patterns out of step"
        ld = totals(banksim.simulate(p.addrs("ld"), bytes=p.width, op="ld", preset=hw))
        st = totals(banksim.simulate(p.addrs("st"), bytes=p.width, op="st", preset=hw))
        want_ld = (int(row["ld_wavefronts"]), int(row["ld_conflicts"]))
        want_st = (int(row["st_wavefronts"]), int(row["st_conflicts"]))
        if (ld, st) != (want_ld, want_st):
            failures.append(f"{p.name}: ld {ld} expected {want_ld}; st {st} expected {want_st}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("pattern_file,counts_file", [("atom_patterns.txt", "ncu_atom.csv"),
                                                      ("atom_patterns_extra.txt", "ncu_atom_extra.csv")])
def test_atomics_serialize_lanes_and_reductions_merge_words(pattern_file, counts_file):
    pats = {p.name: p for p in patterns(pattern_file)}
    checked = 0
    with open(H100 / counts_file) as f:
        for row in csv.DictReader(f):
            # atom_f32 is a compare-and-swap loop: not one request
            op = {"atom_u32": "atom", "atom_u32_noret": "red"}.get(row["kernel"])
            if op is None:
                continue
            p = pats[row["pattern"]]
            got = totals(banksim.simulate(p.addrs("st"), bytes=4, op=op))
            assert got == (int(row["atom_wavefronts"]), int(row["atom_conflicts"])), f"{p.name} {op}"
            checked += 1
    assert checked >= 28


def simulate_probe(pats) -> pd.DataFrame:
    """The rows `banksim run --per-request` gives for the probe trace, from simulate."""
    rows = []
    for b, p in enumerate(pats):
        st, ld = p.addrs("st"), p.addrs("ld")
        o_st = banksim.simulate(st, bytes=p.width, op="st")
        o_ld = banksim.simulate(ld, bytes=p.width, op="ld")
        for w in range(len(st)):
            for step, op, a, o in [(0, "st", st, o_st), (1, "bar", None, None), (2, "ld", ld, o_ld)]:
                if op == "bar":
                    rows.append((b, w, 1, "bar", 0, 32, 0, 0, 0))
                    continue
                active = int((a[w] >= 0).sum())
                if active:
                    rows.append((b, w, step, op, p.width, active,
                                 int(o.wavefronts[w]), int(o.ideal[w]), int(o.conflicts[w])))
    return pd.DataFrame(rows, columns=list(banksim.REQUEST_COLUMNS))


def test_run_and_the_command_give_simulates_rows_for_every_probe(tmp_path, cli):
    pats = [p for f, _, _ in GROUND_TRUTH for p in patterns(f)]
    trace = tmp_path / "probes.csv"
    probe_trace_csv(pats, trace)
    expected = simulate_probe(pats)
    got = banksim.run(trace)
    pd.testing.assert_frame_equal(got, expected)
    if cli:
        out = tmp_path / "requests.csv"
        done = run_cli(cli, "run", "--per-request", out, trace)
        assert done.returncode == 0, done.stderr
        pd.testing.assert_frame_equal(pd.read_csv(out), expected)
