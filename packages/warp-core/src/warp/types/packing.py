"""``struct``-module format codes of scalar types: how a scalar is packed into a launch's argument
buffer (:mod:`warp.compiler.abi` lays the buffer out; the types give their own formats).
"""

from __future__ import annotations

from typing import Any

from warp.types.scalars import bfloat16

_SCALAR_CODES = {
    "bool": {8: "?"},
    "int": {8: "b", 16: "h", 32: "i", 64: "q"},
    "uint": {8: "B", 16: "H", 32: "I", 64: "Q"},
    "float": {16: "e", 32: "f", 64: "d"},
}


def scalar_code(t: Any) -> str:
    """The struct format character of a scalar type (bfloat16: its bit pattern, ``H``)."""
    if t is bfloat16:
        return "H"
    return _SCALAR_CODES[t._kind_][t._bits_]


__all__ = ["scalar_code"]
