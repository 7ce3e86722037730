"""The LDS examples of the ROCm Composable Kernel docs, "Understanding AMD GPU LDS and
Bank Conflicts" (composable_kernel, docs/conceptual/ck_tile/hardware/
lds_bank_conflicts.rst), on the cdna3 preset, through the Python package: a tile of rows
of 64 fp16 (128 bytes, all 32 banks), each lane moving one 16-byte vector of 8 fp16
(ds_write_b128 / ds_read_b128), one wave of 64 lanes. The same cases as
configs/tests/presets_and_errors.rs (module ck_tile_lds)."""

import numpy as np

import banksim

LANES = np.arange(64)


def at(row, col):
    """Byte address of 16-byte vector `col` (0..8) of row `row`."""
    return row * 128 + col * 16


def xor(row, col):
    """The page's XOR preshuffle (KPerBlock = 64, KPack = 8)."""
    return (row % 8) ^ col


def wave(addrs, op):
    out = banksim.simulate(np.asarray(addrs)[None, :], bytes=16, op=op, preset="cdna3")
    return int(out.wavefronts[0]), int(out.ideal[0])


def test_row_major_ds_write_b128_is_conflict_free():
    # lane l writes vector l % 8 of row l / 8: each phase of 8 lanes covers all 32 banks
    assert wave(at(LANES // 8, LANES % 8), "st") == (8, 8)
    assert wave(at(LANES // 8, xor(LANES // 8, LANES % 8)), "st") == (8, 8)


def test_column_wise_ds_read_b128_is_4_way_in_every_phase():
    # lane l reads vector l / 16 of row l % 16 (the 16x16 MFMA operand): the documented
    # read groups (lanes 0-3 with 20-23, ...) make it 4-way in each of the 8 phases
    read = at(LANES % 16, LANES // 16)
    assert wave(read, "ld") == (32, 8)
    # with consecutive groups of 8 lanes, as the writes have, it would be 8-way
    consecutive = banksim.Hardware("cdna3", crossbar={"groups": []})
    out = banksim.simulate(read[None, :], bytes=16, op="ld", preset=consecutive)
    assert (int(out.wavefronts[0]), int(out.ideal[0])) == (64, 8)
    # the XOR preshuffle removes the conflicts
    assert wave(at(LANES % 16, xor(LANES % 16, LANES // 16)), "ld") == (8, 8)


def test_consecutive_ds_read_b128_is_conflict_free():
    assert wave(16 * LANES, "ld") == (8, 8)
