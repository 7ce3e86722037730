"""The demo's transpose: reading a column of a 32x32 float tile is a 32-way bank
conflict on the H100; padding each row to 33 floats removes it."""

import numpy as np

import banksim


def column_reads(row_floats: int) -> np.ndarray:
    """Lane t reads element [t][c] of the tile, for each column c: one request per column."""
    t = np.arange(32)
    c = np.arange(32)[:, None]
    return (t[None, :] * row_floats + c) * 4


def test_unpadded_column_reads_are_32_wavefronts_padded_are_1():
    unpadded = banksim.simulate(column_reads(32), preset="h100")
    padded = banksim.simulate(column_reads(33), preset="h100")
    assert unpadded.wavefronts.tolist() == [32] * 32
    assert unpadded.conflicts.tolist() == [31] * 32
    assert padded.wavefronts.tolist() == [1] * 32
    assert padded.conflicts.tolist() == [0] * 32
    # the row writes (the transpose's other half: lane t writes element [r][t]) are
    # conflict-free either way
    for row_floats in (32, 33):
        rows = (np.arange(32)[:, None] * row_floats + np.arange(32)[None, :]) * 4
        assert banksim.simulate(rows, op="st").wavefronts.tolist() == [1] * 32
