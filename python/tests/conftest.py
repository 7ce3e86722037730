"""Shared helpers: the repository's fixtures, and the `banksim` command where one is built.

Set BANKSIM to a built `banksim` binary (e.g. target/release/banksim) to also compare
with the command; without it the tests that need it compare `banksim.run` instead.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
H100 = REPO / "fixtures" / "h100"


@dataclass
class Pattern:
    """One line of a probe pattern file: `NAME WIDTH NTHREADS | st idx... | ld idx...`;
    thread t stores (then loads) element idx[t] of `width` bytes, -1: it does not."""

    name: str
    width: int
    store: np.ndarray
    load: np.ndarray

    def addrs(self, which: str, warp: int = 32) -> np.ndarray:
        """The step's byte addresses as (warps, warp) rows, -1 for threads that skip it."""
        idx = self.store if which == "st" else self.load
        return np.where(idx >= 0, idx * self.width, -1).reshape(-1, warp)


def patterns(file: str) -> list[Pattern]:
    out = []
    for line in (H100 / file).read_text().splitlines():
        head, st, ld = line.split("|")
        name, width, threads = head.split()
        p = Pattern(name, int(width), np.array(st.split(), dtype=np.int64), np.array(ld.split(), dtype=np.int64))
        assert len(p.store) == len(p.load) == int(threads), name
        out.append(p)
    return out


def probe_trace_csv(pats: list[Pattern], path: Path, store_op: str = "st") -> None:
    """The probe kernel of every pattern as one text trace, pattern i in block i: step 0
    stores, step 1 is the barrier, step 2 loads (as sim-core/tests/h100_groundtruth.rs)."""
    lines = ["block,thread,step,op,addr,bytes"]
    for b, p in enumerate(pats):
        for t, i in enumerate(p.store):
            if i >= 0:
                lines.append(f"{b},{t},0,{store_op},{i * p.width},{p.width}")
        lines += [f"{b},{t},1,bar,0,0" for t in range(len(p.store))]
        for t, i in enumerate(p.load):
            if i >= 0:
                lines.append(f"{b},{t},2,ld,{i * p.width:#x},{p.width}")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def cli() -> str | None:
    """The `banksim` binary named by BANKSIM, or None."""
    path = os.environ.get("BANKSIM")
    if path:
        assert Path(path).is_file(), f"BANKSIM={path}: no such file"
    return path


def run_cli(cli: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
