"""Text forms of an array: ``repr(a)`` and ``str(a)`` (values shown for CPU arrays only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from warp.types.scalars import type_repr

if TYPE_CHECKING:
    from warp.arrays.array import array


def array_repr(arr: array) -> str:
    """``repr`` of an array: its values and dtype (CPU), or shape, dtype and device."""
    if arr._is_annotation:
        return f"array(dtype={type_repr(arr._dtype)}, ndim={arr._ndim})"
    if not arr._device.is_cpu:
        return f"array(shape={arr._shape}, dtype={type_repr(arr._dtype)}, device={arr._device})"
    body = np.array2string(arr._values(), separator=", ", prefix="array(")
    return f"array({body}, dtype={type_repr(arr._dtype)})"


def array_str(arr: array) -> str:
    """``str`` of an array: its values (CPU), else its ``repr``."""
    if arr._is_annotation or not arr._device.is_cpu:
        return repr(arr)
    return str(arr._values())
