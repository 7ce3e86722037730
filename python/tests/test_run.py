"""banksim.run: a trace file or DataFrame into the rows of `banksim run --per-request`,
equal to banksim.simulate on the same requests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import banksim
from conftest import run_cli


def random_requests(seed: int, requests: int, warp: int = 32) -> np.ndarray:
    """Random word addresses in 8 KiB, about a third of the lanes inactive, no row empty."""
    rng = np.random.default_rng(seed)
    addrs = rng.integers(0, 2048, size=(requests, warp)) * 4
    off = rng.random(addrs.shape) < 0.35
    off[:, 0] = False
    addrs[off] = -1
    return addrs


def as_trace(addrs: np.ndarray, steps_per_block: int, op: str = "ld") -> pd.DataFrame:
    """Request r as block r // steps_per_block, warp 0, step r % steps_per_block; lane l is
    thread l. Rows shuffled: a trace's records may come in any order."""
    r, lane = np.nonzero(addrs >= 0)
    df = pd.DataFrame(
        {
            "block": r // steps_per_block,
            "thread": lane,
            "step": r % steps_per_block,
            "op": op,
            "addr": addrs[r, lane],
            "bytes": 4,
        }
    )
    return df.sample(frac=1.0, random_state=1).reset_index(drop=True)


def test_run_on_a_csv_equals_simulate_on_the_same_requests(tmp_path):
    addrs = random_requests(3, 600)
    trace = tmp_path / "random.csv"
    as_trace(addrs, steps_per_block=50).to_csv(trace, index=False)
    df = banksim.run(trace)
    assert list(df.columns) == list(banksim.REQUEST_COLUMNS)
    assert len(df) == 600
    # rows in (block, warp, step) order: request r
    np.testing.assert_array_equal(df["block"] * 50 + df["step"], np.arange(600))
    out = banksim.simulate(addrs)
    np.testing.assert_array_equal(df["wavefronts"], out.wavefronts)
    np.testing.assert_array_equal(df["ideal"], out.ideal)
    np.testing.assert_array_equal(df["conflicts"], out.conflicts)
    np.testing.assert_array_equal(df["active"], (addrs >= 0).sum(axis=1))
    assert (df["op"] == "ld").all() and (df["bytes"] == 4).all() and (df["warp"] == 0).all()
    assert all(df[c].dtype == np.int64 for c in banksim.REQUEST_COLUMNS if c != "op")


def test_a_dataframe_gives_the_rows_of_its_csv(tmp_path, cli):
    addrs = random_requests(4, 200, warp=64)  # threads 0..63: warps 0 and 1 at warp 32
    df = as_trace(addrs, steps_per_block=20)
    df["gap"] = np.arange(len(df)) % 5
    df["dep"] = np.where(np.arange(len(df)) % 3 == 0, np.nan, np.arange(len(df)) % 2)
    path = tmp_path / "t.csv"
    frame = df.copy()
    frame["dep"] = frame["dep"].astype("Int64")
    frame.to_csv(path, index=False)
    from_file = banksim.run(path)
    pd.testing.assert_frame_equal(banksim.run(df), from_file)
    assert set(from_file["warp"]) == {0, 1}
    if cli:
        out = tmp_path / "requests.csv"
        done = run_cli(cli, "run", "--per-request", out, path)
        assert done.returncode == 0, done.stderr
        pd.testing.assert_frame_equal(pd.read_csv(out), from_file)
        # the same trace in the binary format (`banksim convert`)
        binary = tmp_path / "t.bin"
        done = run_cli(cli, "convert", path, binary)
        assert done.returncode == 0, done.stderr
        pd.testing.assert_frame_equal(banksim.run(binary), from_file)
    # and on another machine: 64-lane warps, from the preset or the override
    on_cdna3 = banksim.run(df, preset="cdna3")
    assert set(on_cdna3["warp"]) == {0} and len(on_cdna3) == 200
    np.testing.assert_array_equal(on_cdna3["wavefronts"], banksim.simulate(addrs, preset="cdna3").wavefronts)
    pd.testing.assert_frame_equal(banksim.run(df, warp=64)[["block", "warp", "step", "active"]],
                                  on_cdna3[["block", "warp", "step", "active"]])


def test_trace_errors_name_the_line_and_field(tmp_path):
    df = pd.DataFrame({"block": [0, 0, 0], "thread": [0, 1, 2], "step": [0, 0, 0],
                       "op": ["ld", "load", "ld"], "addr": [0, 4, 8], "bytes": [4, 4, 4]})
    # row 1 is line 3 of the CSV the DataFrame stands for
    with pytest.raises(banksim.BanksimError, match=r"^DataFrame:3: column 4 `op`: expected one of ld, st, atom, red, bar, gld, gst(, [a-z.]+)*, found `load`$"):
        banksim.run(df)
    path = tmp_path / "bad.csv"
    df.to_csv(path, index=False)
    with pytest.raises(banksim.BanksimError, match=rf"^{path}:3: column 4 `op`"):
        banksim.run(path)
    df.loc[1, "op"] = "ld"
    df.loc[2, "addr"] = 6
    with pytest.raises(banksim.BanksimError, match=r"DataFrame:4: misaligned 4-byte ld at address 0x6"):
        banksim.run(df)
    with pytest.raises(banksim.BanksimError, match=r"DataFrame: missing column\(s\) addr"):
        banksim.run(df.drop(columns=["addr"]))
    with pytest.raises(banksim.BanksimError, match="column dep needs gap before it"):
        banksim.run(df.assign(dep=1))
    with pytest.raises(banksim.BanksimError, match="thread 2 is beyond the block size --threads-per-block 2"):
        banksim.run(df.assign(addr=[0, 4, 8]), threads_per_block=2)
    with pytest.raises(banksim.BanksimError, match="no-such.csv: cannot read"):
        banksim.run(tmp_path / "no-such.csv")
    with pytest.raises(TypeError, match="trace: expected a path or a pandas DataFrame, got int"):
        banksim.run(3)
