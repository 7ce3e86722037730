"""Type stub of the compiled module ``banksim._banksim`` (see ``python/src/lib.rs``)."""

import os
from typing import Any

import numpy as np
import numpy.typing as npt

DEFAULT_PRESET: str

class BanksimError(ValueError):
    """Bad input: a preset, override, array or trace banksim cannot simulate. The message
    is the one the ``banksim`` command prints for the same problem."""

class Hardware:
    """A validated machine: a preset name or RON config file, with config fields
    overridden by keyword (``Hardware("h100", banks=64)``). Keyword values: int, bool,
    None, a str of RON text (``mapping="Xor(shift: 5, mask: 7)"``; ``name`` and
    ``base`` are plain strings), a dict (a RON struct) or a list."""

    def __init__(self, preset: "str | os.PathLike[str] | Hardware" = "h100", **overrides: Any) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def banks(self) -> int: ...
    @property
    def bank_bytes(self) -> int: ...
    @property
    def warp(self) -> int: ...
    @property
    def smem_per_sm(self) -> int: ...
    def to_ron(self) -> str:
        """The machine as a complete RON config file (for ``banksim --config``)."""
    def __eq__(self, other: object) -> bool: ...

def presets() -> list[str]: ...
def op_names() -> list[str]: ...
def simulate_array(
    addrs: npt.NDArray[np.int64], bytes: int, op: str, hardware: Hardware
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...
def run_trace(path: str, hardware: Hardware, threads_per_block: int | None = None) -> dict[str, np.ndarray]: ...
def run_text(
    text: bytes, name: str, hardware: Hardware, threads_per_block: int | None = None
) -> dict[str, np.ndarray]: ...
def advise_input(
    input: str,
    hardware: Hardware,
    shape: str | None = None,
    layouts: str = "all",
    max_pad: int = 33,
    cycles: bool = False,
) -> dict[str, object]: ...
def layout_map(layout: str, shape: str, addrs: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]: ...
def layout_names(layout: str, shape: str) -> tuple[str, list[str]]: ...
def tma_modes() -> list[tuple[str, int, int, list[tuple[int, int, int]]]]: ...
