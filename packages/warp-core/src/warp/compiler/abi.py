"""The launch ABI: how kernel parameters are laid out in the argument buffer.

Shared by the lowering (which loads parameters at these offsets) and the launcher (which packs
them with :mod:`struct`), so the two cannot disagree.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from warp.errors import WarpCodegenTypeError
from warp.types.array_type import ARRAY_DESC_SIZE, ArrayType
from warp.types.scalars import is_scalar_type, type_repr

HEADER_FORMAT = "<4qQq"  # dims[4], error record pointer, reserved
HEADER_SIZE = struct.calcsize(HEADER_FORMAT)

_SCALAR_CODES = {
    "bool": {8: "?"},
    "int": {8: "b", 16: "h", 32: "i", 64: "q"},
    "uint": {8: "B", 16: "H", 32: "I", 64: "Q"},
    "float": {16: "e", 32: "f", 64: "d"},
}


def scalar_code(t: Any) -> str:
    """The struct format character of a scalar type."""
    return _SCALAR_CODES[t._kind_][t._bits_]


def _round8(n: int) -> int:
    return (n + 7) & ~7


@dataclass(frozen=True)
class ParamSlot:
    """Where one parameter lives in the argument buffer and how it is packed."""

    offset: int
    size: int
    #: struct format of the slot (padded to a multiple of 8 bytes)
    format: str


def param_slot(t: Any, offset: int) -> ParamSlot:
    """The slot of a parameter of type ``t`` starting at ``offset``."""
    if isinstance(t, ArrayType):
        return ParamSlot(offset, ARRAY_DESC_SIZE, f"{ARRAY_DESC_SIZE}s")
    if is_scalar_type(t):
        code = _SCALAR_CODES[t._kind_][t._bits_]
        size = t._bits_ // 8
        return ParamSlot(offset, 8, code + ("x" * (8 - size) if size < 8 else ""))
    hook = getattr(t, "_wp_abi_format_", None)
    if hook is not None:
        fmt = hook()
        size = struct.calcsize("<" + fmt)
        padded = _round8(size)
        return ParamSlot(offset, padded, fmt + "x" * (padded - size))
    raise WarpCodegenTypeError(f"type {type_repr(t)} cannot be passed to a kernel")


def param_layout(types: list[Any]) -> list[ParamSlot]:
    """Slots of all parameters, after the launch header."""
    slots = []
    offset = HEADER_SIZE
    for t in types:
        slot = param_slot(t, offset)
        slots.append(slot)
        offset += slot.size
    return slots


def buffer_format(types: list[Any]) -> str:
    """The struct format of a whole argument buffer (header + parameters)."""
    return HEADER_FORMAT + "".join(s.format for s in param_layout(types))
