"""banksim.simulate, Hardware and presets: arrays in and out, overrides, and errors with
the messages of the `banksim` command."""

from __future__ import annotations

import numpy as np
import pytest

import banksim
from conftest import run_cli

LANES = np.arange(32, dtype=np.int64)


def test_presets_are_the_configs_presets():
    names = banksim.presets()
    assert {"h100", "a100", "cdna3", "rdna3"} <= set(names)
    for name in names:
        assert banksim.Hardware(name).name == name


def test_result_has_one_entry_per_row_in_order():
    # row r: lanes at stride r + 1 words (stride 2: 2-way, stride 32: 32-way, odd: none)
    strides = np.array([1, 2, 4, 32, 3, 16])
    addrs = strides[:, None] * LANES[None, :] * 4
    out = banksim.simulate(addrs)
    assert len(out) == 6
    assert out.wavefronts.dtype == np.uint32 and out.wavefronts.shape == (6,)
    np.testing.assert_array_equal(out.wavefronts, [1, 2, 4, 32, 1, 16])
    np.testing.assert_array_equal(out.ideal, [1] * 6)
    np.testing.assert_array_equal(out.conflicts, out.wavefronts - out.ideal)


def test_inactive_lanes_and_empty_rows():
    addrs = np.full((3, 32), -1)
    addrs[0, :2] = [0, 128]  # two lanes on bank 0: 2 wavefronts
    addrs[1, 5] = 64  # one lane
    out = banksim.simulate(addrs)  # row 2 has no active lane: no request
    np.testing.assert_array_equal(out.wavefronts, [2, 1, 0])
    np.testing.assert_array_equal(out.ideal, [1, 1, 0])


def test_any_integer_dtype_layout_and_a_single_row_give_the_same_result():
    rng = np.random.default_rng(7)
    addrs = rng.integers(0, 1024, size=(100, 32)) * 4
    addrs[rng.random(addrs.shape) < 0.3] = -1
    ref = banksim.simulate(addrs)
    for a in [addrs.astype(np.int32), np.asfortranarray(addrs), addrs.tolist()]:
        np.testing.assert_array_equal(banksim.simulate(a).wavefronts, ref.wavefronts)
    wide = np.concatenate([addrs, np.zeros_like(addrs)], axis=1)[:, :32]  # a strided view
    np.testing.assert_array_equal(banksim.simulate(wide).wavefronts, ref.wavefronts)
    assert banksim.simulate(addrs[3]).wavefronts.tolist() == [ref.wavefronts[3]]  # 1-D: one request
    full = np.abs(addrs)  # (-1 -> 1 is misaligned: every lane a multiple of 4 instead)
    full[full == 1] = 0
    np.testing.assert_array_equal(
        banksim.simulate(full.astype(np.uint64)).wavefronts, banksim.simulate(full).wavefronts
    )


def test_widths_and_ops():
    # 16-byte loads by 32 lanes: 4 phases of 8 lanes, one wavefront each
    assert banksim.simulate(LANES * 16, bytes=16).wavefronts.tolist() == [4]
    # every lane on one word: a load multicasts, a returning atomic serializes
    same = np.zeros(32, dtype=np.int64)
    assert banksim.simulate(same, op="ld").wavefronts.tolist() == [1]
    assert banksim.simulate(same, op="atom").wavefronts.tolist() == [32]
    assert banksim.simulate(same, op="red").wavefronts.tolist() == [1]


def test_overrides_change_the_machine():
    column = (LANES * 32 + 3) * 4  # column 3 of a 32x32 float tile
    assert banksim.simulate(column).wavefronts.tolist() == [32]
    # 64 banks: words 32t + 3 fall in two banks, 16 lanes each
    assert banksim.simulate(column, banks=64).wavefronts.tolist() == [16]
    # the bank index XORed with the row (bits 5.. of the word): bank 3 ^ t, all distinct
    assert banksim.simulate(column, mapping="Xor(shift: 5, mask: 31)").wavefronts.tolist() == [1]
    # a dict is a RON struct, a list a sequence
    hw = banksim.Hardware("h100", phase_lanes={"b1": 32, "b2": 32, "b4": 16, "b8": 16, "b16": 8})
    assert banksim.simulate(LANES * 4, preset=hw).wavefronts.tolist() == [2]
    assert banksim.Hardware(load_pair_merge=None).to_ron().count("load_pair_merge: None") == 1
    # warp 16: 16 columns a request
    assert banksim.simulate(np.arange(16) * 128, warp=16).wavefronts.tolist() == [16]


def test_hardware_repr_fields_equality_and_ron_round_trip(tmp_path):
    hw = banksim.Hardware("h100", banks=64, bank_bytes=8)
    assert (hw.name, hw.banks, hw.bank_bytes, hw.warp, hw.smem_per_sm) == ("h100+", 64, 8, 32, 233472)
    r = repr(hw)
    assert r.startswith('Hardware(name: "h100+", banks: 64, bank_bytes: 8, warp: 32, ') and "mapping: Linear" in r
    assert banksim.Hardware("h100") == banksim.Hardware()
    assert hw != banksim.Hardware()
    assert banksim.Hardware(hw) == hw and banksim.Hardware(hw, warp=16).banks == 64
    path = tmp_path / "wide.ron"
    path.write_text(hw.to_ron())
    assert banksim.Hardware(str(path)) == hw and banksim.Hardware(path) == hw
    # named by its name, not changed: no `+`
    assert banksim.Hardware(name="mine", banks=16).name == "mine"


def test_cdna3_takes_64_lanes():
    hw = banksim.Hardware("cdna3")
    assert hw.warp == 64
    # 64 lanes on consecutive words: 2 phases of 32 lanes
    assert banksim.simulate(np.arange(64) * 4, preset=hw).wavefronts.tolist() == [2]
    with pytest.raises(banksim.BanksimError, match="has 32 lanes per request .* `cdna3` has a warp of 64"):
        banksim.simulate(LANES * 4, preset="cdna3")


@pytest.mark.parametrize(
    "addrs,kwargs,message",
    [
        (LANES * 4 + 1, {}, r"addrs\[0, 0\]: misaligned 4-byte ld at address 0x1: shared-memory accesses must be aligned"),
        (np.where(LANES == 7, -2, LANES * 4), {}, r"addrs\[0, 7\]: expected a byte address .* or -1 for an inactive lane, found -2"),
        (np.where(LANES == 3, 1 << 33, LANES * 4), {}, r"addrs\[0, 3\]: expected a byte address from 0 to 4294967295"),
        (np.where(LANES == 31, 233472, LANES * 4), {}, r"addrs\[0, 31\]: address 0x39000 \+ 4 bytes is beyond the 233472 bytes of shared memory of `h100`"),
        (LANES * 4, {"bytes": 3}, r"`bytes`: expected an access width of 1, 2, 4, 8 or 16 bytes, found 3"),
        (LANES * 4, {"op": "load"}, r"`op`: expected one of ld, st, atom, red, gld, gst, ldsm, stsm, ldgsts, ldgsts.cg, found `load`"),
        (LANES * 4, {"op": "bar"}, r"`op`: expected one of"),
        (np.zeros((2, 2, 32), dtype=int), {}, r"addrs: expected shape \(requests, lanes\)"),
        (np.zeros((1, 16), dtype=int), {}, r"addrs has 16 lanes per request \(shape 1 x 16\) but `h100` has a warp of 32 lanes"),
        (LANES * 4, {"preset": "h300"}, r"unknown preset `h300` \(and no such file\): known presets are h100, a100"),
        (LANES * 4, {"banks": 0}, r"keyword overrides:1: `banks`: must be between 1 and 1024, got 0"),
        (LANES * 4, {"colour": 1}, r"keyword overrides:1: `colour`: unknown field; expected one of base, name, banks"),
        (LANES * 4, {"mapping": "Xorr"}, r"Unexpected variant named `Xorr` .* \(the overrides as RON: `\(mapping: Xorr\)`\)"),
    ],
)
def test_bad_input_raises_banksim_error(addrs, kwargs, message):
    with pytest.raises(banksim.BanksimError, match=message):
        banksim.simulate(addrs, **kwargs)


def test_errors_are_value_errors_and_types_are_type_errors():
    assert issubclass(banksim.BanksimError, ValueError)
    with pytest.raises(TypeError, match="dtype float64"):
        banksim.simulate(np.zeros((1, 32)))
    with pytest.raises(TypeError, match="override `banks`: a object is not a config value"):
        banksim.Hardware(banks=object())
    with pytest.raises(TypeError, match="preset: expected a preset name"):
        banksim.Hardware(3)


def test_messages_are_those_of_a_config_file(tmp_path, cli):
    """Keyword overrides fail with the lines a config file with the same fields gets, in
    the command where BANKSIM names it, else in the loader the command uses."""
    trace = tmp_path / "t.csv"
    trace.write_text("block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n")
    config = tmp_path / "c.ron"
    config.write_text('(base: "h100", banks: 0, colour: 1)')
    with pytest.raises(banksim.BanksimError) as e:
        banksim.Hardware("h100", banks=0, colour=1)
    ours = str(e.value).replace("keyword overrides", str(config))
    with pytest.raises(banksim.BanksimError) as from_file:
        banksim.Hardware(config)
    assert str(from_file.value) == ours
    with pytest.raises(banksim.BanksimError) as unknown:
        banksim.Hardware("h300")
    if cli:
        done = run_cli(cli, "run", "--config", config, trace)
        assert done.returncode != 0
        for line in ours.splitlines():
            assert line in done.stderr, f"{line!r} not in {done.stderr!r}"
        done = run_cli(cli, "run", "--config", "h300", trace)
        assert done.returncode != 0 and str(unknown.value) in done.stderr
