"""Shared-memory layouts: padding, XOR swizzles and the TMA's swizzle modes, as ``banksim
advise`` writes them, applied to addresses and named in CuTe's, Triton's and the TMA's words.

A layout is its text as ``banksim advise`` prints it: ``"as is"``, ``"pad 1"``,
``"Swizzle<3,3,3>"`` (CuTe's ``Swizzle<B,M,S>`` on element offsets), ``"transpose"``, or a
TMA mode (``"SWIZZLE_128B"``, ``"TMA SWIZZLE_128B_ATOM_32B"``). A shape is the array's
``"ROWSxCOLSxBYTES[@BASE]"`` (rows of ``COLS`` elements of ``BYTES`` bytes from byte
``BASE``), or a tuple ``(rows, cols, bytes[, base])``.

>>> import banksim.layouts as L
>>> L.same_as("Swizzle<3,3,3>", (64, 64, 2))
['TMA SWIZZLE_128B = Swizzle<3,4,3> on bytes', 'Triton vec=8 perPhase=1 maxPhase=8 order=[1,0]']
>>> [m.name for m in L.TMA_MODES][:4]
['SWIZZLE_NONE', 'SWIZZLE_32B', 'SWIZZLE_64B', 'SWIZZLE_128B']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import _banksim

__all__ = ["TmaMode", "TMA_MODES", "apply", "same_as", "canonical"]

Shape = Union[str, tuple]


def _shape(shape: Shape) -> str:
    if isinstance(shape, str):
        return shape
    rows, cols, elem, *base = shape
    return f"{rows}x{cols}x{elem}" + (f"@{base[0]}" if base else "")


@dataclass(frozen=True)
class TmaMode:
    """A TMA swizzle mode (``CUtensorMapSwizzle``): its name without ``CU_TENSOR_MAP_``,
    its value, its span in bytes (``0`` for ``SWIZZLE_NONE``) and its XORs as CuTe
    ``Swizzle<B,M,S>`` on byte addresses (one, none, or two for ``FLIP_8B``)."""

    name: str
    value: int
    span: int
    cute: tuple


#: Every TMA swizzle mode, by ``CUtensorMapSwizzle`` value (0 to 6).
TMA_MODES = tuple(TmaMode(n, v, s, tuple(x)) for n, v, s, x in _banksim.tma_modes())


def apply(layout: str, addrs: Any, shape: Shape) -> np.ndarray:
    """Where ``layout`` stores each byte address of ``addrs`` (any integer array) of the
    array ``shape``: addresses past the array move by the bytes it grows, ``-1`` (an
    inactive lane) stays. Feed the result to :func:`banksim.simulate`."""
    a = np.asarray(addrs)
    flat = np.ascontiguousarray(a.reshape(-1), dtype=np.int64)
    return _banksim.layout_map(str(layout), _shape(shape), flat).reshape(a.shape)


def same_as(layout: str, shape: Shape) -> list:
    """``layout`` on ``shape`` in other libraries' words, as ``banksim advise`` prints them
    under ``same as``: the TMA mode it is, its CuTe swizzle on bytes, Triton's
    ``vec/perPhase/maxPhase``, a padding as a CuTe layout."""
    return list(_banksim.layout_names(str(layout), _shape(shape))[1])


def canonical(layout: str) -> str:
    """``layout`` as ``banksim`` writes it (``"tma 128b"`` -> ``"TMA SWIZZLE_128B"``)."""
    return _banksim.layout_names(str(layout), "2x1x1")[0]
