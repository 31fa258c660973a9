"""The warp type of a Python-scope value, as a generic kernel launch infers it.

Rules (NVIDIA Warp's): Python ``int`` is ``int32``, ``float`` is ``float32``, ``bool`` is
``bool``; warp scalars (``wp.float16(3)``), vectors, matrices, quaternions, transforms and
struct instances have their own type; a ``wp.array`` has ``array(dtype, ndim)``; a NumPy array
of a scalar dtype is taken as an array of the matching warp scalar type, a NumPy scalar as that
scalar type. Tuples and lists are not inferred (they could be a vector of any length and type).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from warp.types.array_type import ArrayType
from warp.types.scalars import ScalarBase, dtype_from_numpy, float32, int32
from warp.types.scalars import bool as wp_bool


def infer_type(value: Any) -> Any:
    """The warp type of ``value``, or None when it cannot be inferred."""
    if isinstance(value, builtins.bool):
        return wp_bool
    if isinstance(value, int):
        return int32
    if isinstance(value, float):
        return float32
    t = type(value)
    if isinstance(value, ScalarBase) or getattr(t, "_wp_type_", False) is True:
        return t
    array_type = getattr(value, "array_type", None)
    if isinstance(array_type, ArrayType):
        return array_type
    if isinstance(value, np.generic):
        try:
            return dtype_from_numpy(value.dtype)
        except TypeError:
            return None
    if isinstance(value, np.ndarray) and 1 <= value.ndim <= 4:
        try:
            return ArrayType(dtype_from_numpy(value.dtype), value.ndim)
        except TypeError:
            return None
    return None
