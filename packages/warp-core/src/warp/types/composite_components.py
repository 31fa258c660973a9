"""Component arrays of composite values in Python scope (NumPy): conversion with C's integer
wrap-around, C division of integers, and printing. Used by :mod:`warp.types.composite_values`."""

from __future__ import annotations

from typing import Any

import numpy as np

from warp.types import scalars as _s
from warp.types.scalars import is_scalar_type


def value_dtype(scalar: Any) -> np.dtype:
    """NumPy dtype of component values in Python scope (bfloat16: float32 holding bfloat16 values)."""
    return np.dtype(np.float32) if scalar is _s.bfloat16 else scalar._np_dtype_


def as_components(values: Any, dtype: np.dtype) -> np.ndarray:
    """``values`` as a new array of ``dtype``; integers wrap around as C casts do (-2 -> 254 in uint8)."""
    if dtype.kind not in "iu":
        return np.array(values, dtype=dtype)
    arr = np.asarray(values)
    if arr.dtype == object:  # Python ints beyond 64 bits: keep the low 64 bits
        low = [int(x) & 0xFFFFFFFFFFFFFFFF for x in arr.reshape(-1)]
        arr = np.array(low, dtype=np.uint64).reshape(arr.shape)
    return arr.astype(dtype)


def is_number(v: Any) -> bool:
    """True for one scalar value: a Python/NumPy number or a warp scalar (not a string or sequence)."""
    if isinstance(v, (bool, int, float, np.number, np.bool_)) or is_scalar_type(type(v)):
        return True
    return isinstance(v, np.ndarray) and v.ndim == 0


def divide(a: np.ndarray, b: Any) -> np.ndarray:
    """Component-wise division; integer components divide as C does (truncating toward zero)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        with np.errstate(divide="ignore"):
            q = np.abs(a) // np.where(b == 0, 1, np.abs(b))
        return np.where(b == 0, 0, np.where((a < 0) != (b < 0), -q, q))
    return a / b


def format_components(data: np.ndarray) -> str:
    """``[1.0, 2.0]``; a matrix as its rows, one per line."""
    if data.ndim == 1:
        return (
            "[" + ", ".join(repr(float(x)) if data.dtype.kind == "f" else repr(x.item()) for x in data) + "]"
        )
    return "[" + ",\n ".join(format_components(row) for row in data) + "]"
