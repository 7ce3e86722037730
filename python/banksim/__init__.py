"""banksim: a simulator of GPU shared-memory banks, from numpy and pandas.

The bank model of the ``banksim`` command (the Rust crates of this repository) on
arrays of addresses and on traces:

>>> import numpy as np, banksim
>>> t = np.arange(32)
>>> banksim.simulate((t * 32 + 3)[None, :] * 4).wavefronts   # column of a 32x32 float tile
array([32], dtype=uint32)
>>> banksim.simulate((t * 33 + 3)[None, :] * 4).wavefronts   # padded to 33 columns
array([1], dtype=uint32)

- :func:`simulate`: one warp request per row of a ``(requests, lanes)`` array;
- :func:`run`: a trace (file or DataFrame) into the rows of ``banksim run --per-request``;
- :func:`advise`: the layout search of ``banksim advise`` (padding, swizzles, TMA modes);
  :mod:`banksim.layouts` applies and names layouts;
- :class:`Hardware`: a preset with field overrides, validated; :func:`presets` lists them;
- :class:`BanksimError`: bad input, with the message the command prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import _banksim, layouts
from ._banksim import BanksimError, Hardware

__all__ = ["BanksimError", "Hardware", "Outcomes", "presets", "simulate", "run", "advise", "layouts", "TRACE_COLUMNS"]

#: The columns of a trace, in order: six required, then ``gap``, ``dep`` and ``wait``
#: (each optional, but only with the ones before it).
TRACE_COLUMNS = ("block", "thread", "step", "op", "addr", "bytes", "gap", "dep", "wait")

#: The columns of :func:`run`'s DataFrame: those of ``banksim run --per-request``.
REQUEST_COLUMNS = ("block", "warp", "step", "op", "bytes", "active", "wavefronts", "ideal", "conflicts")

PresetLike = Union[str, "os.PathLike[str]", Hardware]


def presets() -> list[str]:
    """The names of the built-in presets (``h100``, ``a100``, ... ``cdna3``)."""
    return list(_banksim.presets())


def _hardware(preset: PresetLike, overrides: dict[str, Any]) -> Hardware:
    if isinstance(preset, Hardware) and not overrides:
        return preset
    if isinstance(preset, os.PathLike):
        preset = os.fspath(preset)
    return Hardware(preset, **overrides)


@dataclass(frozen=True)
class Outcomes:
    """Per-request costs from :func:`simulate`, one entry per row of ``addrs``.

    - ``wavefronts``: bank-conflict-free passes the request needs;
    - ``ideal``: what it would need without conflicts (its phases with an active lane);
    - ``conflicts``: ``wavefronts - ideal``, as Nsight Compute counts bank conflicts.

    All are ``uint32`` arrays; a row with no active lane is no request (all three 0).
    """

    wavefronts: np.ndarray
    ideal: np.ndarray
    conflicts: np.ndarray

    def __len__(self) -> int:
        return len(self.wavefronts)


def simulate(
    addrs: Any,
    bytes: int | None = None,
    op: str = "ld",
    preset: PresetLike = "h100",
    **overrides: Any,
) -> Outcomes:
    """Simulate warp requests given as an array of byte addresses.

    ``addrs`` is an integer array of shape ``(requests, lanes)``: row ``r`` is one warp
    request, column ``l`` the byte address lane ``l`` accesses, ``-1`` where the lane is
    inactive. ``lanes`` must equal the machine's warp size (32 on ``h100``, 64 on
    ``cdna3``): pad with ``-1`` columns, or set ``warp=`` to match. A 1-D array is one
    request. Every active lane accesses ``bytes`` bytes (1, 2, 4, 8 or 16; by default 16
    for ``ldsm``, ``stsm`` and ``ldgsts.cg``, else 4) with ``op`` (``ld``, ``st``, ``atom``,
    ``red``, ``gld``, ``gst``, or a tensor-core op: ``ldsm`` and ``stsm``, a lane's 16-byte
    row of an 8x8 matrix, lanes 0-7 for ``.x1``, 0-15 for ``.x2``, all for ``.x4``;
    ``ldgsts``, a ``cp.async`` of 4, 8 or 16 bytes to the lane's shared address;
    ``ldgsts.cg``); each access must be aligned to its width and lie inside the machine's
    shared memory, as ``banksim run`` checks.

    ``preset`` is a preset name (:func:`presets`), a RON config file, or a
    :class:`Hardware`; ``overrides`` set fields of it, as a config file's fields do
    (``banks=64``, ``bank_bytes=8``, ``warp=64``, ``mapping="Xor(shift: 5, mask: 31)"``).

    Returns a :class:`Outcomes`. Raises :class:`BanksimError` (a ``ValueError``) for bad
    input, with the message the ``banksim`` command prints for it, and ``TypeError``
    for an array that is not of integers.
    """
    hw = _hardware(preset, overrides)
    a = np.asarray(addrs)
    if a.dtype.kind not in "iu":
        raise TypeError(
            f"addrs: expected an array of integer byte addresses (-1 for an inactive lane), got dtype {a.dtype}"
        )
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise BanksimError(
            f"addrs: expected shape (requests, lanes) with lanes = the warp size {hw.warp}, got shape {a.shape}"
        )
    if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise BanksimError(f"addrs: address {int(a.max())} is above 2^32 - 1")
    a = np.ascontiguousarray(a, dtype=np.int64)
    if bytes is None:
        bytes = 16 if op in ("ldsm", "stsm", "ldgsts.cg") else 4
    return Outcomes(*_banksim.simulate_array(a, int(bytes), str(op), hw))


def run(
    trace: Any,
    preset: PresetLike = "h100",
    warp: int | None = None,
    threads_per_block: int | None = None,
    **overrides: Any,
):
    """Simulate a trace; one row per warp request, as ``banksim run --per-request``.

    ``trace`` is a trace file's path (the text CSV or the binary format) or a pandas
    DataFrame with the trace columns ``block, thread, step, op, addr, bytes`` and
    optionally ``gap``, ``dep``, ``wait`` (see docs/trace-format.md). A DataFrame is read
    as the CSV it would write: an error's ``DataFrame:N`` is its row ``N - 2`` (counting
    from 0; line 1 is the header).

    ``preset`` and ``overrides`` are those of :func:`simulate`; ``warp`` overrides the
    warp size (``--warp``), ``threads_per_block`` bounds thread ids
    (``--threads-per-block``).

    Returns a DataFrame with the columns ``block, warp, step, op, bytes, active,
    wavefronts, ideal, conflicts`` (``op`` a string, the rest ``int64``), in (block,
    warp, step) order. Raises :class:`BanksimError` with the command's message.
    """
    import pandas as pd

    if warp is not None:
        overrides = {**overrides, "warp": warp}
    hw = _hardware(preset, overrides)
    if isinstance(trace, pd.DataFrame):
        cols = _trace_columns(trace)
        frame = trace[cols].copy()
        for c in cols[6:]:
            # nullable integers: a missing `dep` or `wait` is an empty field, not `nan`
            if frame[c].dtype.kind == "f" or frame[c].dtype == object:
                frame[c] = frame[c].astype("Int64")
        text = frame.to_csv(index=False).encode()
        columns = _banksim.run_text(text, "DataFrame", hw, threads_per_block)
    elif isinstance(trace, (str, os.PathLike)):
        columns = _banksim.run_trace(os.fspath(trace), hw, threads_per_block)
    else:
        raise TypeError(f"trace: expected a path or a pandas DataFrame, got {type(trace).__name__}")
    names = np.array(_banksim.op_names(), dtype=object)
    columns["op"] = names[columns["op"]]
    return pd.DataFrame({c: columns[c] for c in REQUEST_COLUMNS})


def _trace_columns(df: Any) -> list[str]:
    """The trace columns of ``df`` in file order: the six required ones, then the
    optional ones present (each needs those before it, as in the text format)."""
    missing = [c for c in TRACE_COLUMNS[:6] if c not in df.columns]
    if missing:
        raise BanksimError(
            f"DataFrame: missing column(s) {', '.join(missing)}: a trace has the columns "
            f"{','.join(TRACE_COLUMNS[:6])}[,gap[,dep[,wait]]]"
        )
    cols = list(TRACE_COLUMNS[:6])
    for c in TRACE_COLUMNS[6:]:
        if c not in df.columns:
            break
        cols.append(c)
    extra = [c for c in TRACE_COLUMNS[len(cols) :] if c in df.columns]
    if extra:
        raise BanksimError(
            f"DataFrame: column {extra[0]} needs {TRACE_COLUMNS[len(cols)]} before it "
            f"(columns block,thread,step,op,addr,bytes[,gap[,dep[,wait]]])"
        )
    return cols


def advise(
    input: Any,
    shape: Any = None,
    layouts: str = "all",
    preset: PresetLike = "h100",
    max_pad: int = 33,
    cycles: bool = False,
    **overrides: Any,
):
    """The layout search of ``banksim advise``: every candidate layout of a shared array
    re-simulated on the whole trace; a DataFrame, row 0 the array as it is, then the
    others best first.

    ``input`` is a trace file's path or a generator ``"KIND[:NAME=VALUE,...]"`` (``banksim
    gen --list``). ``shape`` is the array (``"ROWSxCOLSxBYTES[@BASE]"`` or a tuple, see
    :mod:`banksim.layouts`); by default the generator's, else inferred from the most
    conflicted request. ``layouts`` is ``"all"`` (padding up to ``max_pad`` elements, the
    XOR swizzles, the TMA modes, the transpose), ``"tma"`` (the TMA swizzle modes) or
    layouts separated by ``;``. ``cycles`` adds the cycle engine's ``cycles`` column.

    Columns: ``layout`` (the text ``banksim advise`` prints, which
    :func:`banksim.layouts.apply` takes), ``wavefronts``, ``ideal``, ``conflicts``,
    ``extra_bytes``, ``smem_per_block``, ``same_as`` (the layout in CuTe's, Triton's and
    the TMA's words); the array's shape is in ``.attrs["shape"]``.
    """
    import pandas as pd

    from .layouts import _shape

    hw = _hardware(preset, overrides)
    cols = _banksim.advise_input(
        os.fspath(input) if isinstance(input, os.PathLike) else str(input),
        hw,
        None if shape is None else _shape(shape),
        str(layouts),
        int(max_pad),
        bool(cycles),
    )
    found = cols.pop("shape")
    frame = pd.DataFrame(cols)
    frame.attrs["shape"] = found
    return frame

