"""banksim.advise and banksim.layouts: the command's layout search and its text from
Python, each figure checked here against addresses built in numpy (the TMA's chunk
formula, CuTe's and Triton's swizzles as their docs write them), and against the
command's CSV where BANKSIM names a built binary."""

from __future__ import annotations

import csv
import os
import subprocess
import tempfile

import numpy as np
import pytest

import banksim
import banksim.layouts as L


def ldmatrix_rows(major: int, rows: int = 64, row_bytes: int = 128) -> np.ndarray:
    """Byte offsets of the row addresses ldmatrix.x4 takes, one request per 16 x 32-byte
    fragment: K-major lane l row l % 16, chunk l // 16; MN-major (.trans) row
    l % 8 + 8 * (l // 16), chunk (l // 8) % 2."""
    lane = np.arange(32)
    if major == 0:
        r, chunk = lane % 16, lane // 16
    else:
        r, chunk = lane % 8 + 8 * (lane // 16), (lane // 8) % 2
    out = []
    for fr in range(rows // 16):
        for fc in range(row_bytes // 32):
            out.append((16 * fr + r) * row_bytes + 32 * fc + 16 * chunk)
    return np.array(out)


def swizzle_128b(offset: np.ndarray) -> np.ndarray:
    """SWIZZLE_128B: 16-byte chunk c of 128-byte row r stored at chunk c ^ (r % 8)."""
    r, c = offset // 128, (offset % 128) // 16
    return r * 128 + ((c ^ (r % 8)) * 16) + offset % 16


@pytest.mark.parametrize("major", [0, 1])
def test_the_tma_question_is_answered_by_swizzle_128b(major):
    modes = banksim.advise(f"ldmatrix:major={major}", layouts="tma")
    assert modes.layout[0] == "as is"
    free = modes[modes.conflicts == 0]
    assert free.layout.tolist() == ["TMA SWIZZLE_128B"]
    # the same figures from addresses built here, on the ldsm rule
    plain = ldmatrix_rows(major)
    as_is = banksim.simulate(plain, bytes=16, op="ldsm")
    swizzled = banksim.simulate(swizzle_128b(plain), bytes=16, op="ldsm")
    assert int(as_is.conflicts.sum()) == modes.conflicts[0]
    assert int(swizzled.conflicts.sum()) == 0
    # and the layout's own map is the chunk formula
    assert (L.apply("SWIZZLE_128B", plain, "64x64x2") == swizzle_128b(plain)).all()


def test_layout_text_round_trips_and_names_the_same_layout():
    shape = (64, 64, 2)
    offsets = np.arange(0, 64 * 64 * 2, 2)
    r, c = offsets // 128, (offsets % 128) // 2
    # CuTe Swizzle<3,3,3> on element offsets, Triton vec=8 perPhase=1 maxPhase=8
    cute = (offsets // 2) ^ (((offsets // 2) & (7 << 6)) >> 3)
    triton = r * 64 + (((c // 8) ^ (r % 8)) * 8 + c % 8)
    for text in ["Swizzle<3,3,3>", "SWIZZLE_128B", "tma 128b"]:
        moved = L.apply(text, offsets, shape) // 2
        assert (moved == cute).all(), text
        assert (moved == triton).all(), text
    assert L.canonical("tma 128b") == "TMA SWIZZLE_128B"
    assert L.same_as("Swizzle<3,3,3>", shape)[0] == "TMA SWIZZLE_128B = Swizzle<3,4,3> on bytes"
    assert [m.value for m in L.TMA_MODES] == list(range(7))
    assert L.TMA_MODES[3].cute == ((3, 4, 3),)
    # inactive lanes stay, shapes of any rank keep their shape
    two = L.apply("pad 1", np.array([[0, -1], [128, 4]]), "32x32x4")
    assert two.tolist() == [[0, -1], [132, 4]]
    with pytest.raises(banksim.BanksimError, match="layout `Swizzle<3,4,2>`"):
        L.apply("Swizzle<3,4,2>", offsets, shape)


@pytest.mark.skipif("BANKSIM" not in os.environ, reason="BANKSIM names no built banksim")
def test_python_gets_the_commands_fix_strings():
    for gen, extra in [("tile:rows=32,cols=32", []), ("ldmatrix:major=2", ["--layouts", "tma"])]:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "a.csv")
            subprocess.run(
                [os.environ["BANKSIM"], "advise", gen, "--no-cycles", "--csv", out, *extra],
                check=True,
                capture_output=True,
            )
            with open(out) as f:
                rows = list(csv.DictReader(f))
        frame = banksim.advise(gen, layouts=extra[1] if extra else "all")
        assert frame.layout.tolist() == [r["layout"] for r in rows]
        assert frame.same_as.tolist() == [r["same_as"] for r in rows]
        assert frame.conflicts.tolist() == [int(r["conflicts"]) for r in rows]
