"""The tensor-core ops through the package: ``op="ldsm"``, ``"stsm"``, ``"ldgsts"`` and
``"ldgsts.cg"`` in ``banksim.simulate`` and in a DataFrame for ``banksim.run``, against the
H100's Nsight Compute counts (fixtures/h100/ncu_matrix.csv, validate/probe/probe_matrix.cu)."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

import banksim
from conftest import H100

WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
CF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"


def matrix_patterns() -> list[tuple[str, str, list[int]]]:
    out = []
    for line in (H100 / "matrix_patterns.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        head, addrs = line.split("|")
        name, shape, _ = head.split()
        out.append((name, shape, [int(a) for a in addrs.split()]))
    return out


def measured(op: str, row: dict[str, str]) -> tuple[int, int]:
    """The instruction's own (wavefronts, conflicts): ldmatrix is the probe's one shared
    load, stmatrix its one shared store; cp.async has no wavefront column of its own."""
    if op == "ldsm":
        return int(row[WF + "_op_ld"]), int(row[CF + "_op_ld"])
    if op == "stsm":
        return int(row[WF + "_op_st"]), int(row[CF + "_op_st"])
    others = sum(int(row[f"{WF}_op_{o}"]) for o in ("atom", "gmma", "ipa", "ld", "misc", "st"))
    return int(row[WF]) - others, int(row[CF + "_op_ldgsts"])


def test_simulate_reproduces_ldmatrix_stmatrix_and_packed_cp_async():
    with open(H100 / "ncu_matrix.csv") as f:
        rows = {r["pattern"]: r for r in csv.DictReader(f)}
    hw = banksim.Hardware("h100")
    checked, failures = 0, []
    for name, shape, addrs in matrix_patterns():
        if shape.startswith(("ldsm", "stsm")):
            op, width, unit = shape[:4], 16, 16
        elif shape in ("cpasync16_ca", "cpasync16_cg") or shape.endswith("_packed"):
            # sources packed, as a trace takes them (16-byte copies: 16 bytes a lane)
            width = int(shape[7:].split("_")[0])
            op, unit = ("ldgsts.cg" if shape.endswith("_cg") else "ldgsts"), width
        else:
            continue  # other source layouts: see the Rust test
        a = np.full(32, -1, dtype=np.int64)
        a[: len(addrs)] = [x * unit if x >= 0 else -1 for x in addrs]
        out = banksim.simulate(a, bytes=width, op=op, preset=hw)
        got = (int(out.wavefronts.sum()), int(out.conflicts.sum()))
        if got != measured(op, rows[name]):
            failures.append(f"{name}: {got} expected {measured(op, rows[name])}")
        checked += 1
    assert not failures, "\n".join(failures)
    assert checked == 528 + 54 * 4


def test_a_dataframe_holds_the_tensor_core_ops():
    # an ldmatrix .x4 of a 64x64 fp16 tile's rows (128 bytes each: conflicts), an
    # stmatrix .x1 of padded rows, a 4-byte cp.async of a row and a cp.async.cg
    recs = [(l, 0, "ldsm", 128 * l, 16) for l in range(32)]
    recs += [(l, 1, "stsm", 144 * l, 16) for l in range(8)]
    recs += [(l, 2, "ldgsts", 4 * l, 4) for l in range(32)]
    recs += [(l, 3, "ldgsts.cg", 16 * l, 16) for l in range(32)]
    df = pd.DataFrame(
        [(0, t, s, op, a, b) for t, s, op, a, b in recs],
        columns=["block", "thread", "step", "op", "addr", "bytes"],
    )
    out = banksim.run(df)
    assert list(out["op"]) == ["ldsm", "stsm", "ldgsts", "ldgsts.cg"]
    assert list(out["wavefronts"]) == [32, 1, 1, 0]
    assert list(out["ideal"]) == [4, 1, 1, 0]
    # the same through simulate, the width of ldsm taken by default
    assert int(banksim.simulate(128 * np.arange(32), op="ldsm").wavefronts[0]) == 32


@pytest.mark.parametrize(
    "op,width,message",
    [
        ("ldsm", 8, "`bytes`: expected 16 bytes for `ldsm` (its one width), found 8"),
        ("ldgsts", 2, "`bytes`: expected 4, 8 or 16 bytes for `ldgsts`, found 2"),
        ("ldmatrix", 16, "`op`: expected one of ld, st, atom, red, gld, gst, ldsm, stsm, ldgsts, ldgsts.cg"),
    ],
)
def test_tensor_core_op_errors_name_the_widths(op, width, message):
    with pytest.raises(banksim.BanksimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        banksim.simulate(np.zeros(32, dtype=np.int64), bytes=width, op=op)
